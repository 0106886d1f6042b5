"""Checks of plain values that every layer makes the same way."""

import numpy as np


def is_whole(value) -> bool:
    """Whether ``value`` is a whole number: a Python or NumPy integer. A bool is not one (True
    would count as 1) and neither is a float, even 2.0 (``int`` would truncate 0.7 to 0)."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool)

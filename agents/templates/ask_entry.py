"""How the game loop asks a seat's agent: through the seat's pointer entry
(``giftsim.contract``), made from its row of addresses (``agents.kernels.entries``), so one
compiled loop plays every seating.

``agents.drivers.generate.driver(..., ask=...)`` writes the loop's variant for a table where
every seat plays one built-in family: its marked line imports ``ask_family.py`` instead, which
calls that family's entry directly, so that LLVM can inline the agent into the loop."""

import numpy as np
from numba import njit

from agents.kernels.entries import entry_at


@njit(cache=True, inline="always")
def ask(entries, seat, obs, params, rng, scratch):
    """Ask ``seat``'s agent; ``entries``: the seats' address rows, flattened (three a seat)."""
    at = np.uint64(3 * seat)  # unsigned: no wrap-around of negative indices to check
    entry = entry_at(entries[at], entries[at + np.uint64(1)], entries[at + np.uint64(2)])
    return entry(obs, params, rng, scratch)

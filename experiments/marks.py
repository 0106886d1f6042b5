"""Marks on a table's rows whose interval cannot be taken as it is (too few deals, width 0,
missing, no test, an infinite end), and the notes that say what each means: the same words
under a table in the terminal, in a report's markdown and in the Python API's tables
(``experiments.studies``).
"""

import numpy as np
import pandas as pd

from experiments.stats import FEW_DEALS

FEW = f"< {FEW_DEALS} deals"
FLAT = "width 0"
NONE = "no interval"
UNTESTED = "no test"
UNBOUNDED = "unbounded"
PAST = "past an end"
PAST_ROWS = "past an end"  # ``table.attrs`` key: the index labels of rows marked ``PAST``
WARNINGS = {  # a table's warnings, and the note under it that says what each means
    FEW: "too few deals for the interval's 95% coverage to be trusted; play more games",
    FLAT: "every deal gave the same result, so the deals show no spread and the interval has "
    "width 0; the uncertainty is not 0: play more games",
    NONE: "no spread could be estimated (a single deal, or a single game per seating group): "
    "play more games",
    UNTESTED: "too few deals for the test (fewer deals than positions, or fewer than "
    f"{FEW_DEALS} where a position never won): play more games",
    UNBOUNDED: "in these games the agent never finished behind some other agent (an end at "
    "inf) or never ahead of one (-inf), not even through a chain of agents each ahead of the "
    "next, so its rating has no finite estimate on that side and the interval is one-sided; "
    "the rating shown is held finite only by the prior and grows with the number of games, "
    "and the finite end is no calibrated bound: see the head-to-head table",
    PAST: "the luck-adjusted share (a mean of per-deal values that may lie past 0 or 1) came "
    "out past 0 or 1 on these deals: it is shown at that end, and its interval, wholly past "
    "it, moved to touch it; the estimate is unbiased only unclipped: play more games",
}
FEW_NOTE = "(< {} deals: " + WARNINGS[FEW] + ")"


def flag_few(table: pd.DataFrame, always: bool = False) -> pd.DataFrame:
    """``table`` with a ``warning`` column on rows whose interval cannot be taken as it is: it
    rests on fewer than ``FEW_DEALS`` deals (``FEW``, with a ``deals`` column), has
    width 0 (``FLAT``), is missing (``NONE``: NaN ends) or has an infinite end (``UNBOUNDED``:
    a rating with no finite estimate on that side, ``experiments.ratings``), for each pair of
    columns named ``..low`` and ``..high``, or its test has no p (``UNTESTED``), or it is
    listed in ``table.attrs[PAST_ROWS]`` (``PAST``: a luck-adjusted share clipped to [0, 1],
    ``experiments.luck``); tables with
    no such row are returned as they are, or with ``always`` (the Python API's tables, whose
    columns must not depend on the data) with an empty ``warning`` column."""
    marks = pd.DataFrame(index=table.index)
    if "deals" in table:
        marks[FEW] = table["deals"].to_numpy() < FEW_DEALS
    if "p_value" in table:
        marks[UNTESTED] = table["p_value"].isna().to_numpy()
    for low in [c for c in table.columns if isinstance(c, str) and c.endswith("low")]:
        high = low[: -len("low")] + "high"
        if high not in table or not pd.api.types.is_numeric_dtype(table[low]):
            continue
        ends = table[[low, high]].astype(float)
        missing = ends.isna().any(axis=1)
        marks[NONE] = marks.get(NONE, False) | missing
        infinite = np.isinf(ends).any(axis=1)
        width = (ends[high] - ends[low]).abs()
        flat = ~missing & ~infinite & (width <= 1e-9 * np.maximum(1.0, ends.abs().max(axis=1)))
        marks[FLAT] = marks.get(FLAT, False) | flat
        marks[UNBOUNDED] = marks.get(UNBOUNDED, False) | infinite
    if PAST_ROWS in table.attrs:
        marks[PAST] = table.index.isin(table.attrs[PAST_ROWS])
    if marks.empty or not marks.to_numpy().any():
        return table.assign(warning="") if always else table
    text = [", ".join(w for w in marks.columns if row[w]) for _, row in marks.iterrows()]
    return table.assign(warning=text)


def warning_notes(flagged: pd.DataFrame) -> list[str]:
    """The notes under a table flagged by ``flag_few``: one per kind of warning it shows."""
    if "warning" not in flagged:
        return []
    shown = set(", ".join(flagged["warning"]).split(", "))
    return [
        FEW_NOTE.format(FEW_DEALS) if w == FEW else f"({w}: {WARNINGS[w]})"
        for w in WARNINGS
        if w in shown
    ]

"""How the game loop asks a seat's agent: through the seat's pointer entry
(``giftsim.contract``), so one compiled loop plays every seating.

``agents.drivers.generate.driver(..., ask=...)`` writes the loop's variant for a table where
every seat plays one built-in family: its marked line imports ``ask_family.py`` instead, which
calls that family's entry directly, so that LLVM can inline the agent into the loop."""

from numba import njit


@njit(cache=True, inline="always")
def ask(entries, seat, obs, params, rng, scratch):
    return entries[seat](obs, params, rng, scratch)

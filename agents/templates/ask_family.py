"""The game loop's ``ask`` (``ask_entry.py``) for a table where every seat plays one built-in
family: that family's entry called directly (``agents.drivers.generate`` replaces the marked
import of the stub ``family.py`` with the module of the family's entry)."""

from numba import njit

from .family import decider


@njit(cache=True, inline="always")
def ask(entries, seat, obs, params, rng, scratch):
    return decider(obs, params, rng, scratch)

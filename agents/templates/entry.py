"""The compiled loop's entry of a hand-written family (``giftsim.contract``): the pointers of an
entry call viewed as the arrays its ``decide(obs, params, rng)`` takes, the observation
read-only. ``agents.drivers.generate.entry`` writes one per family, its marked line importing
that family's ``decide``."""

from numba import njit

from giftsim.contract import as_arrays

from .family import decide
from .game import OBS_SIZE


@njit(cache=True)
def decider(obs, params, rng, scratch):
    """Entry of ``decide`` for the compiled loop."""
    o, p, r = as_arrays(obs, params, rng, OBS_SIZE)
    return decide(o, p, r)

"""``random``: takes 1, 2 or 3 stones uniformly among the legal takes."""

from numba import njit

from giftsim.contract import as_arrays
from giftsim.rng import next_below
from tests.toy_game.engine import BIG_LEFT, OBS_SIZE, SEAT

PARAMS = {}
RANGES = {}


@njit
def decide(obs, params, rng):
    """Take 1, 2 or 3 stones (3 only with big takes left), uniformly."""
    return next_below(rng, 3 if obs[BIG_LEFT + obs[SEAT]] > 0 else 2)


@njit
def decider(obs, params, rng, scratch):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``)."""
    o, p, r = as_arrays(obs, params, rng, OBS_SIZE)
    return decide(o, p, r)

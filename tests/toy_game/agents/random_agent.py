"""``random``: takes 1, 2 or 3 stones uniformly among the legal takes."""

from numba import njit

from giftsim.rng import next_below
from tests.toy_game.engine import BIG_LEFT, SEAT

PARAMS = {}
RANGES = {}


@njit
def decide(obs, params, rng):
    """Take 1, 2 or 3 stones (3 only with big takes left), uniformly."""
    return next_below(rng, 3 if obs[BIG_LEFT + obs[SEAT]] > 0 else 2)

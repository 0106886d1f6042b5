"""``steady``: takes big while the pile surely holds more, then one stone at a time."""

from numba import njit

from agents.base import Range
from tests.toy_game.engine import BIG_LEFT, MIN_PILE, SEAT, TAKEN
from tests.toy_game.rules import MAX_PILE, TAKE1, TAKE2, TAKE3

PARAMS = {"margin": 1.0}
RANGES = {"margin": Range(0, MAX_PILE, integer=True)}
MARGIN = list(PARAMS).index("margin")


@njit
def decide(obs, params, rng):
    """Take the most stones (3 only with big takes left) that keep the stones taken at least
    ``margin`` below the smallest possible pile; take one when none does."""
    room = obs[MIN_PILE] - params[MARGIN] - obs[TAKEN]
    if room >= 3 and obs[BIG_LEFT + obs[SEAT]] > 0:
        return TAKE3
    return TAKE2 if room >= 2 else TAKE1

"""``random``: takes with probability ``p``."""

from numba import njit

from agents.base import Range
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.state import (
    CHIPS,
    SEAT,
)
from giftsim.rng import next_float

PARAMS = {"p": 0.5}
RANGES = {"p": Range(0.0, 1.0)}
P = list(PARAMS).index("p")


@njit(cache=True)
def decide(obs, params, rng):
    """Take the card with probability ``p``; take when out of chips."""
    if obs[CHIPS + obs[SEAT]] == 0:
        return TAKE
    return TAKE if next_float(rng) < params[P] else PASS


@njit(cache=True)
def probabilities(obs, params, out):
    """What :func:`decide` does, as probabilities: take ``p``, pass ``1 - p``; take when out
    of chips. Known: returns True."""
    broke = obs[CHIPS + obs[SEAT]] == 0
    out[TAKE] = 1.0 if broke else params[P]
    out[PASS] = 0.0 if broke else 1.0 - params[P]
    return True

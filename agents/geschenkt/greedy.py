"""``greedy``: takes a card when it is cheap enough right now."""

from numba import njit

from agents.base import ANY
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.scoring import take_delta
from geschenkt_sim.state import (
    CARD,
    CHIPS,
    HANDS,
    POT,
    SEAT,
)

PARAMS = {"T": 0.0}
RANGES = {"T": ANY}
T = list(PARAMS).index("T")


@njit(cache=True)
def decide(obs, params, rng):
    """Take iff the change in own card points from taking, minus the chips on it, is <= ``T``.

    Takes when out of chips.
    """
    seat = obs[SEAT]
    if obs[CHIPS + seat] == 0:
        return TAKE
    cost = take_delta(obs[HANDS + seat], obs[CARD]) - obs[POT]
    return TAKE if cost <= params[T] else PASS

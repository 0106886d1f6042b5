"""``greedy``: takes a card when it is cheap enough right now."""

from numba import njit

from agents.base import ANY
from geschenkt_sim.engine import O_CARD, O_CHIPS, O_HANDS, O_POT, O_SEAT
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.scoring import take_delta

PARAMS = {"T": 0.0}
RANGES = {"T": ANY}
T = list(PARAMS).index("T")


@njit(cache=True)
def decide(obs, params, rng):
    """Take iff the change in own card points from taking, minus the chips on it, is <= ``T``.

    Takes when out of chips.
    """
    seat = obs[O_SEAT]
    if obs[O_CHIPS + seat] == 0:
        return TAKE
    cost = take_delta(obs[O_HANDS + seat], obs[O_CARD]) - obs[O_POT]
    return TAKE if cost <= params[T] else PASS

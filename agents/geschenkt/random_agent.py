"""``random``: takes with probability ``p``."""

from numba import njit

from geschenkt_sim.engine import O_CHIPS, O_SEAT
from geschenkt_sim.rules import PASS, TAKE
from giftsim.contract import DECIDE_SIG
from giftsim.rng import next_float


@njit(DECIDE_SIG, cache=True)
def decide(obs, params, rng):
    """Take the card with probability ``p``; take when out of chips."""
    if obs[O_CHIPS + obs[O_SEAT]] == 0:
        return TAKE
    return TAKE if next_float(rng) < params[0] else PASS


PARAMS = {"p": 0.5}

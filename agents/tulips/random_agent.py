"""``random``: any legal action, uniformly."""

from numba import njit

from giftsim.bits import popcount
from giftsim.rng import next_below
from tulips_sim.engine import O_LEGAL


@njit(cache=True)
def decide(obs, params, rng):
    """Choose uniformly among the legal actions."""
    legal = obs[O_LEGAL]
    for _ in range(next_below(rng, popcount(legal))):
        legal &= legal - 1  # drop the lowest legal action
    return popcount((legal & -legal) - 1)  # index of the lowest one left


PARAMS = {}
RANGES = {}

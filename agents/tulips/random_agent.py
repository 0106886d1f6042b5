"""``random``: any legal action, uniformly."""

from numba import njit

from giftsim.bits import popcount
from giftsim.contract import as_arrays
from giftsim.rng import next_below
from tulips_sim.engine import O_LEGAL, O_SIZE


@njit(cache=True)
def decide(obs, params, rng):
    """Choose uniformly among the legal actions."""
    legal = obs[O_LEGAL]
    for _ in range(next_below(rng, popcount(legal))):
        legal &= legal - 1  # drop the lowest legal action
    return popcount((legal & -legal) - 1)  # index of the lowest one left


PARAMS = {}
RANGES = {}


@njit(cache=True)
def decider(obs, params, rng, scratch):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``)."""
    o, p, r = as_arrays(obs, params, rng, O_SIZE)
    return decide(o, p, r)

"""``random``: any legal action, uniformly."""

from numba import njit

from giftsim.bits import popcount
from giftsim.rng import next_below
from tulips_sim.state import (
    LEGAL,
)


@njit(cache=True, inline="always")
def decide(obs, params, rng):
    """Choose uniformly among the legal actions."""
    legal = obs[LEGAL]
    for _ in range(next_below(rng, popcount(legal))):
        legal &= legal - 1  # drop the lowest legal action
    return popcount((legal & -legal) - 1)  # index of the lowest one left


@njit(cache=True)
def probabilities(obs, params, out):
    """What :func:`decide` does, as probabilities: each legal action ``1 / (legal
    actions)``. Known: returns True."""
    legal = obs[LEGAL]
    share = 1.0 / popcount(legal)
    for a in range(out.shape[0]):
        out[a] = share if (legal >> a) & 1 else 0.0
    return True


PARAMS = {}
RANGES = {}

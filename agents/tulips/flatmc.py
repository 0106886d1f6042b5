"""``flatmc``: flat Monte Carlo over sampled worlds."""

import numpy as np
from numba import njit

from agents.common.search import flat_mc
from agents.tulips.worlds import GAME
from giftsim.contract import DECIDER_SIG, as_arrays
from tulips_sim.engine import O_SIZE
from tulips_sim.state import STATE_SIZE


@njit(cache=True)
def decide(obs, params, rng):
    """Try each legal action in ``iters`` / 2 worlds drawn from what this seat may know (the
    unseen cards, and the others' chips when hidden), play each world out with the default
    policy ``policy`` (0 random, 1 greedy, 2 hoarder, 3
    planner) and take the action that won most often.
    """
    return flat_mc(GAME, obs, params, rng, np.empty(STATE_SIZE, np.int64))


PARAMS = {"iters": 1000.0, "policy": 1.0}


@njit(DECIDER_SIG, cache=True)
def decider(obs, params, rng):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``)."""
    o, p, r = as_arrays(obs, params, rng, O_SIZE)
    return decide(o, p, r)

"""``ismcts``: information-set Monte Carlo tree search over sampled worlds."""

import numpy as np
from numba import njit

from agents.common.search import ismcts
from agents.geschenkt.worlds import GAME
from geschenkt_sim.engine import OBS_SIZE
from geschenkt_sim.state import STATE_SIZE
from giftsim.contract import DECIDER_SIG, as_arrays


@njit(cache=True)
def decide(obs, params, rng):
    """Search ``iters`` worlds drawn from what this seat may know (the unseen cards, and the
    others' chips when hidden) with one tree over this seat's information sets (ISMCTS: UCB1
    with availability counts, exploration ``explore``); the other seats, and every seat after
    the tree, play the default policy ``policy`` (0 random, 1 greedy, 2 sniper). Take the most
    visited action.
    """
    return ismcts(GAME, obs, params, rng, np.empty(STATE_SIZE, np.int64))


PARAMS = {"iters": 1000.0, "policy": 1.0, "explore": 0.7}


@njit(DECIDER_SIG, cache=True)
def decider(obs, params, rng):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``)."""
    o, p, r = as_arrays(obs, params, rng, OBS_SIZE)
    return decide(o, p, r)

"""``flatmc``: flat Monte Carlo over sampled worlds."""

import numpy as np
from numba import njit

from agents.common.search import ITERS, best_of, only_action, search_ranges
from agents.tulips.worlds import POLICIES, playout, world
from giftsim.bits import popcount
from giftsim.contract import as_arrays
from tulips_sim.engine import O_SIZE, apply_action, legal_mask
from tulips_sim.rules import NUM_ACTIONS
from tulips_sim.state import STATE_SIZE, TURN


@njit(cache=True)
def decide(obs, params, rng):
    """Try each legal action in ``iters`` / (legal actions) worlds drawn from what this seat may
    know (the pile, the removed cards and the others' secret cards), play each out with the
    default policy ``policy`` (0 random, 1 greedy, 2 hoarder, 3 planner), and take the action of
    the highest mean value (share of the win plus ``margin`` times the score lead).
    """
    state = np.empty(STATE_SIZE, np.int64)
    world(obs, rng, state)
    seat, mask = state[TURN], legal_mask(state)
    if only_action(mask) >= 0:
        return only_action(mask)
    totals = np.zeros(NUM_ACTIONS, np.float64)
    for _ in range(max(int(params[ITERS]) // popcount(mask), 1)):
        for action in range(NUM_ACTIONS):
            if (mask >> action) & 1:
                world(obs, rng, state)
                apply_action(state, action)
                totals[action] += playout(state, params, seat, rng)
    return best_of(totals, mask)


PARAMS = {"iters": 1500.0, "policy": 2.0, "margin": 0.5}
RANGES = search_ranges(PARAMS, len(POLICIES))


@njit(cache=True)
def decider(obs, params, rng, scratch):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``)."""
    o, p, r = as_arrays(obs, params, rng, O_SIZE)
    return decide(o, p, r)

"""``flatmc``: flat Monte Carlo over sampled worlds."""

import numpy as np
from numba import njit

from agents.common.search import ITERS, best_of, only_action, search_ranges
from agents.geschenkt.worlds import POLICIES, playout, world
from geschenkt_sim.engine import OBS_SIZE, apply_action, legal_mask
from geschenkt_sim.rules import NUM_ACTIONS
from geschenkt_sim.state import STATE_SIZE, TURN
from giftsim.bits import popcount
from giftsim.contract import as_arrays


@njit(cache=True)
def decide(obs, params, rng):
    """Try each legal action in ``iters`` / (legal actions) worlds drawn from what this seat may
    know (the unseen cards, and the others' chips when hidden), play each out with the default
    policy ``policy`` (0 random, 1 greedy, 2 sniper, 3 sniper with the tuned parameters for the
    player count, 4 a coin toss between greedy and 3 at every decision), and take the action of
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


PARAMS = {"iters": 1000.0, "policy": 4.0, "margin": 0.0}
RANGES = search_ranges(PARAMS, len(POLICIES))


@njit(cache=True)
def decider(obs, params, rng, scratch):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``)."""
    o, p, r = as_arrays(obs, params, rng, OBS_SIZE)
    return decide(o, p, r)

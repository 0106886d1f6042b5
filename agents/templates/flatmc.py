"""``flatmc``: flat Monte Carlo over sampled worlds."""

import numpy as np
from numba import njit

from agents.base import search_ranges
from agents.kernels.search import ITERS, SEARCH_PARAMS, best_of, only_action
from giftsim.bits import popcount
from giftsim.contract import as_arrays

from .game import (
    NUM_ACTIONS,
    OBS_SIZE,
    POLICIES,
    STATE_SIZE,
    TURN,
    apply_action,
    legal_mask,
    world,
)
from .playouts import playout_value

CALL_RULES = True  # the rules' step verbs are called here, not copied in (giftsim.inlining)


@njit(cache=True)
def decide(obs, params, rng):
    """Try each legal action in ``iters`` / (legal actions) worlds drawn from what this seat may
    know, play each out with the default policy ``policy``, and take the action of the
    highest mean value (share of the win plus ``margin`` times the score lead).
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
                totals[action] += playout_value(state, params, seat, rng)
    return best_of(totals, mask)


NAMES = SEARCH_PARAMS[:3]


def ranges() -> dict:
    """The valid values of ``flatmc``'s parameters."""
    return search_ranges(dict.fromkeys(NAMES), len(POLICIES))


@njit(cache=True)
def decider(obs, params, rng, scratch):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``)."""
    o, p, r = as_arrays(obs, params, rng, OBS_SIZE)
    return decide(o, p, r)

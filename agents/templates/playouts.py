"""Playouts shared by the searches: a world played to the end by a default policy, and every
seat's value there (its share of the win plus ``margin`` times its score lead, in units of the
game's ``LEAD_SCALE``)."""

import numpy as np
from numba import njit

from agents.kernels.search import MARGIN, POLICY, lead
from giftsim.game import N_PLAYERS

from .game import (
    LEAD_SCALE,
    LOWER_WINS,
    MAX_PLAYERS,
    apply_action,
    is_over,
    policy_action,
    rewards,
    scores,
)

CALL_RULES = True  # the rules' step verbs are called here, not copied in (giftsim.inlining)


@njit(cache=True)
def play_to_end(state, policy, rng):
    """Play ``state`` to the end with the default policy number ``policy``."""
    while not is_over(state):
        apply_action(state, policy_action(state, policy, rng))


@njit(cache=True)
def values(state, params, out):
    """Every seat's value at the end: its share of the win plus ``params[MARGIN]`` times its
    score lead."""
    n = state[N_PLAYERS]
    now = np.empty(n, np.int64)
    scores(state, now)
    rewards(state, out)
    for p in range(n):
        out[p] += params[MARGIN] * (lead(now, p, n, LOWER_WINS) / LEAD_SCALE)


@njit(cache=True)
def playout_value(state, params, seat, rng):
    """Play ``state`` to the end with the default policy ``params[POLICY]``; return the seat's
    value (see :func:`values`)."""
    play_to_end(state, int(params[POLICY]), rng)
    out = np.empty(MAX_PLAYERS, np.float64)
    values(state, params, out)
    return out[seat]

"""Gift of Tulips end of game: the secret-festival reveal and majority scoring (rules §6-8)."""

import numpy as np
from numba import njit

from giftsim.rng import below_keyed
from tulips_sim.rules import N_VARIETIES
from tulips_sim.state import (
    BQ_COUNT,
    BQ_VALUE,
    DENSE,
    GIVE_POINTS,
    KEEP_POINTS,
    MAJORITY,
    MAJORITY_PTS,
    N_PLAYERS,
    ORDER,
    SLOTS,
    ZERO_WINS,
)

SCORED_RANKS = 3  # ranks 1..3 pay majorities; 4th and unranked varieties pay nothing
_KEY_SCALE = 1000  # strength key: cards * 1000 + value (values stay far below 1000)


@njit(cache=True)
def pick_positions(key, size, k, out):
    """Choose the secret-festival positions turned up at the end: ``min(k, size)`` of them,
    uniformly and in order, by a partial Fisher-Yates shuffle on the stream ``key``, into
    ``out[:picks]`` (``out`` holds at least ``size`` slots); return ``picks``."""
    for i in range(size):
        out[i] = i
    picks = min(k, size)
    key = np.uint64(key)
    for i in range(picks):
        j, key = below_keyed(key, size - i)
        out[i], out[i + j] = out[i + j], out[i]
    return picks


@njit(cache=True)
def reveal_positions(key, size, k):
    """The positions :func:`pick_positions` chooses, as a new array."""
    out = np.zeros(size, np.int64)
    return out[: pick_positions(key, size, k, out)]


@njit(cache=True)
def _strength(state, seat, variety):
    slot = seat * N_VARIETIES + variety
    return state[BQ_COUNT + slot] * _KEY_SCALE + state[BQ_VALUE + slot]


@njit(cache=True)
def _slot_of(state, seat, variety, eligible_min):
    """0-based majority slot of ``seat`` in ``variety``: the groups (dense) or seats
    (competition) strictly ahead of it."""
    mine = _strength(state, seat, variety)
    ahead = 0
    for q in range(state[N_PLAYERS]):
        other = _strength(state, q, variety)
        if other <= mine or other < eligible_min:
            continue
        if state[DENSE] and _seen_before(state, q, variety, other):
            continue
        ahead += 1
    return ahead


@njit(cache=True)
def _seen_before(state, q, variety, strength):
    for earlier in range(q):
        if _strength(state, earlier, variety) == strength:
            return True
    return False


@njit(cache=True)
def majority_points(state):
    """Pay the majorities of the varieties ranked 1..3 into ``MAJORITY_PTS`` (rules §7)."""
    n = state[N_PLAYERS]
    eligible_min = 0 if state[ZERO_WINS] else _KEY_SCALE
    for p in range(n):
        state[MAJORITY_PTS + p] = 0
    for r in range(SCORED_RANKS):
        variety = state[ORDER + r]
        if variety < 0:
            continue
        for p in range(n):
            if _strength(state, p, variety) < eligible_min:
                continue
            slot = _slot_of(state, p, variety, eligible_min)
            if slot < state[SLOTS]:
                state[MAJORITY_PTS + p] += state[MAJORITY + r * 3 + slot]


@njit(cache=True)
def final_scores(state, out):
    """Giving + keeping + majority points per seat into ``out[:n_players]``."""
    for p in range(state[N_PLAYERS]):
        out[p] = state[GIVE_POINTS + p] + state[KEEP_POINTS + p] + state[MAJORITY_PTS + p]

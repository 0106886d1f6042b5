"""What Tulips agents read off an observation: immediate points and majority standings.

All functions take the observation array (layout ``O_*`` in ``tulips_sim/engine.py``) and
never write to it. Standings are "the majority points each seat would score if the game ended
now", with dense ranking of tied groups (the project default).
"""

import numpy as np
from numba import njit

from tulips_sim.engine import (
    O_BQ_COUNT,
    O_BQ_VALUE,
    O_GIVE_BONUS,
    O_KEEP_PTS,
    O_LEGAL,
    O_N_PLAYERS,
    O_RANK,
    O_TOTALS,
)
from tulips_sim.rules import GIVE, KEEP, MAX_PLAYERS, N_RANKS, N_VARIETIES
from tulips_sim.state import MAJORITY, SLOTS, value_of, variety_of

SCALE = 1000  # strength = cards * 1000 + value, as in the rules' tie-break

# Scratch layout of a Standings array: slot per (variety, seat), then points per seat.
_SLOT = 0
_POINTS = N_VARIETIES * MAX_PLAYERS
STANDINGS_SIZE = _POINTS + MAX_PLAYERS


@njit(cache=True)
def is_legal(obs, action):
    return (obs[O_LEGAL] >> action) & 1 == 1


@njit(cache=True)
def immediate_points(obs, action, card):
    """Points the seat scores right now by resolving ``card`` with ``action``."""
    rank = obs[O_RANK + variety_of(card)]
    if action == KEEP:
        return obs[O_KEEP_PTS + rank - 1]
    if action >= GIVE:
        return value_of(card) + obs[O_GIVE_BONUS + rank - 1]
    return 0


@njit(cache=True)
def strength(obs, seat, variety):
    """Bouquet strength of ``seat`` in ``variety``: cards first, then total value."""
    i = seat * N_VARIETIES + variety
    return obs[O_BQ_COUNT + i] * SCALE + obs[O_BQ_VALUE + i]


@njit(cache=True)
def dense_slot(strengths, n, seat):
    """Dense majority slot (0-based) of ``seat`` given every seat's strength; -1 without a
    card: the number of distinct strengths above its own."""
    mine = strengths[seat]
    if mine < SCALE:
        return -1
    ahead = 0
    for q in range(n):
        if strengths[q] > mine:
            first = True
            for e in range(q):
                if strengths[e] == strengths[q]:
                    first = False
            ahead += first
    return ahead


@njit(cache=True)
def pay(obs, rank, slot_index):
    """Majority points of a slot of a variety at ``rank`` (rank 4 and slots past the table
    pay nothing)."""
    if rank >= N_RANKS or slot_index < 0 or slot_index >= obs[SLOTS]:
        return 0
    return obs[MAJORITY + (rank - 1) * 3 + slot_index]


@njit(cache=True)
def variety_slots(obs, variety, boost_seat, card, out):
    """Every seat's slot in ``variety`` into ``out[:n]``, with ``card`` counted for
    ``boost_seat`` (-1: as things stand)."""
    n = obs[O_N_PLAYERS]
    strengths = np.empty(MAX_PLAYERS, np.int64)
    for p in range(n):
        strengths[p] = strength(obs, p, variety)
    if boost_seat >= 0:
        strengths[boost_seat] += SCALE + value_of(card)
    for p in range(n):
        out[p] = dense_slot(strengths, n, p)


@njit(cache=True)
def standings(obs):
    """Slots per (variety, seat) and majority points per seat if the game ended now."""
    n = obs[O_N_PLAYERS]
    table = np.zeros(STANDINGS_SIZE, np.int64)
    for v in range(N_VARIETIES):
        variety_slots(obs, v, -1, -1, table[_SLOT + v * MAX_PLAYERS :])
        for p in range(n):
            table[_POINTS + p] += pay(obs, obs[O_RANK + v], table[_SLOT + v * MAX_PLAYERS + p])
    return table


@njit(cache=True)
def rank_after_add(obs, variety, card):
    """Rank of ``variety`` once ``card`` is added face up to the festival (rules §4.2)."""
    v = variety_of(card)
    new_total = obs[O_TOTALS + v] + value_of(card)
    if variety == v:
        rank = 1
        for u in range(N_VARIETIES):
            if u != v and obs[O_TOTALS + u] > new_total:
                rank += 1
        return rank
    if obs[O_TOTALS + variety] == 0:
        return N_RANKS  # not in the festival
    rank = obs[O_RANK + variety]
    if obs[O_TOTALS + v] > 0 and obs[O_RANK + v] < rank:
        rank -= 1  # v leaves its old place ahead of this variety
    if obs[O_TOTALS + variety] <= new_total:
        rank += 1  # v lands ahead of it
    return min(rank, N_RANKS)


@njit(cache=True)
def lead_after_card(obs, table, seat, receiver, card, scratch):
    """My majority lead (my points minus the best rival's) once ``card`` joins ``receiver``'s
    bouquet; ``table`` from :func:`standings`."""
    n = obs[O_N_PLAYERS]
    v = variety_of(card)
    rank = obs[O_RANK + v]
    variety_slots(obs, v, receiver, card, scratch)
    mine, best = 0, -1_000_000
    for p in range(n):
        old = pay(obs, rank, table[_SLOT + v * MAX_PLAYERS + p])
        points = table[_POINTS + p] - old + pay(obs, rank, scratch[p])
        if p == seat:
            mine = points
        else:
            best = max(best, points)
    return mine - best


@njit(cache=True)
def lead_after_add(obs, table, seat, card):
    """My majority lead once ``card`` is added face up to the festival (ranks shift)."""
    n = obs[O_N_PLAYERS]
    mine, best = 0, -1_000_000
    for p in range(n):
        points = 0
        for v in range(N_VARIETIES):
            slot = table[_SLOT + v * MAX_PLAYERS + p]
            points += pay(obs, rank_after_add(obs, v, card), slot)
        if p == seat:
            mine = points
        else:
            best = max(best, points)
    return mine - best


@njit(cache=True)
def lead_now(obs, table, seat):
    """My majority lead as things stand."""
    best = -1_000_000
    for p in range(obs[O_N_PLAYERS]):
        if p != seat:
            best = max(best, table[_POINTS + p])
    return table[_POINTS + seat] - best

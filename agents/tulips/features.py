"""What Tulips agents read off an observation: immediate points and the majority race.

All functions take the observation array (the slots of ``tulips_sim/state.py`` below
``OBS_SIZE``) and never write to it. "Points" below are the majority points a seat would
score if the game ended now, and a seat's *lead* is its points minus the best rival's. A
seat's *standing* is its points plus what it has scored so far (giving and keeping), and its
*margin* its standing minus the best rival's.
"""

import numpy as np
from numba import njit

from tulips_sim.rules import GIVE, KEEP, N_RANKS, N_SLOTS, N_TYPES, N_VARIETIES
from tulips_sim.scoring import slot_of
from tulips_sim.state import (
    BOUQUET,
    COPIES,
    DRAWN,
    FACE_UP,
    GIVE_BONUS,
    GIVE_POINTS,
    KEEP_POINTS,
    KEEP_PTS,
    LEGAL,
    MAJORITY,
    N_PLAYERS,
    OWN_SECRET,
    RANK,
    SLOTS,
    TOTALS,
    value_of,
    variety_of,
)

CALL_RULES = True  # the rules' step verbs are called here, not copied in (giftsim.inlining)

NO_SEAT = -1
NO_CARD = -1

# A whole number written into a call (``points_now(obs, 3)``) reaches the callee typed as that
# very value (Numba's ``Literal[int](3)``), and the callee and everything below it compile once
# per value. The seat and variety numbers below are ``np.int64(3)``: one compile serves every
# seat. ``slot_of(..., NO_SEAT, NO_CARD)`` keeps its one literal copy, from which LLVM drops the
# boost (``docs/perf/README.md``: the engine's scoring ran 2.6% fewer instructions with it).


@njit(cache=True)
def is_legal(obs, action):
    return (obs[LEGAL] >> action) & 1 == 1


@njit(cache=True)
def immediate_points(obs, action, card):
    """Points the seat scores right now by resolving ``card`` with ``action``."""
    rank = obs[RANK + variety_of(card)]
    if action == KEEP:
        return obs[KEEP_PTS + rank - 1]
    if action >= GIVE:
        return value_of(card) + obs[GIVE_BONUS + rank - 1]
    return 0


@njit(cache=True)
def pay(obs, rank, slot):
    """Majority points of ``slot`` in a variety at ``rank`` (rank 4 pays nothing)."""
    if rank >= N_RANKS or slot < 0 or slot >= obs[SLOTS]:
        return 0
    return obs[MAJORITY + (rank - 1) * N_SLOTS + slot]


@njit(cache=True)
def slot_now(obs, variety, seat):
    """``seat``'s majority slot in ``variety`` as the bouquets stand (-1: none)."""
    return slot_of(obs, variety, seat, NO_SEAT, NO_CARD)


@njit(cache=True)
def points_now(obs, seat):
    """Majority points of ``seat`` if the game ended now."""
    total = 0
    for v in range(N_VARIETIES):
        total += pay(obs, obs[RANK + v], slot_now(obs, v, seat))
    return total


@njit(cache=True)
def all_points(obs):
    """:func:`points_now` of every seat, as a tuple of six (0 past the last seat)."""
    n = obs[N_PLAYERS]
    return (
        points_now(obs, np.int64(0)),
        points_now(obs, np.int64(1)),
        points_now(obs, np.int64(2)),
        points_now(obs, np.int64(3)) if n > 3 else 0,
        points_now(obs, np.int64(4)) if n > 4 else 0,
        points_now(obs, np.int64(5)) if n > 5 else 0,
    )


@njit(cache=True)
def lead_now(obs, seat, points):
    """``seat``'s lead as things stand; ``points`` from :func:`all_points`."""
    best = -1_000_000
    for p in range(obs[N_PLAYERS]):
        if p != seat:
            best = max(best, points[p])
    return points[seat] - best


@njit(cache=True)
def lead_after_card(obs, seat, receiver, card, points):
    """``seat``'s lead once ``card`` joins ``receiver``'s bouquet (only its variety changes);
    ``points`` from :func:`all_points`."""
    n = obs[N_PLAYERS]
    v = variety_of(card)
    rank = obs[RANK + v]
    mine, best = 0, -1_000_000
    for p in range(n):
        old_slot = slot_now(obs, v, p)
        new_slot = slot_of(obs, v, p, receiver, card)
        points_p = points[p] - pay(obs, rank, old_slot) + pay(obs, rank, new_slot)
        if p == seat:
            mine = points_p
        else:
            best = max(best, points_p)
    return mine - best


@njit(cache=True)
def rank_after_add(obs, variety, card):
    """Rank of ``variety`` once ``card`` is added face up to the festival (rules §4.2)."""
    v = variety_of(card)
    new_total = obs[TOTALS + v] + value_of(card)
    if variety == v:
        rank = 1
        for u in range(N_VARIETIES):
            if u != v and obs[TOTALS + u] > new_total:
                rank += 1
        return rank
    if obs[TOTALS + variety] == 0:
        return N_RANKS  # not in the festival
    rank = obs[RANK + variety]
    if obs[TOTALS + v] > 0 and obs[RANK + v] < rank:
        rank -= 1  # v leaves its old place ahead of this variety
    if obs[TOTALS + variety] <= new_total:
        rank += 1  # v lands ahead of it
    return min(rank, N_RANKS)


@njit(cache=True)
def lead_after_add(obs, seat, card):
    """``seat``'s lead once ``card`` is added face up to the festival (ranks shift)."""
    return _after_add(obs, seat, card, False)


@njit(cache=True)
def _after_add(obs, seat, card, with_scored):
    """``seat``'s majority points less the best rival's once ``card`` is added face up to the
    festival, each counting the points scored so far when ``with_scored``."""
    ranks = (
        rank_after_add(obs, np.int64(0), card),
        rank_after_add(obs, np.int64(1), card),
        rank_after_add(obs, np.int64(2), card),
        rank_after_add(obs, np.int64(3), card),
    )
    mine, best = 0, -1_000_000
    for p in range(obs[N_PLAYERS]):
        points = scored_so_far(obs, p) if with_scored else 0
        for v in range(N_VARIETIES):
            points += pay(obs, ranks[v], slot_now(obs, v, p))
        if p == seat:
            mine = points
        else:
            best = max(best, points)
    return mine - best


@njit(cache=True)
def scored_so_far(obs, seat):
    """Giving plus keeping points ``seat`` has scored so far."""
    return obs[GIVE_POINTS + seat] + obs[KEEP_POINTS + seat]


@njit(cache=True)
def all_standings(obs):
    """Every seat's standing (:func:`all_points` plus points scored so far), as a tuple of six;
    pass it as ``points`` to :func:`lead_now` and :func:`lead_after_card` for margins."""
    points = all_points(obs)
    n = obs[N_PLAYERS]
    return (
        points[0] + scored_so_far(obs, np.int64(0)),
        points[1] + scored_so_far(obs, np.int64(1)),
        points[2] + scored_so_far(obs, np.int64(2)),
        points[3] + scored_so_far(obs, np.int64(3)) if n > 3 else 0,
        points[4] + scored_so_far(obs, np.int64(4)) if n > 4 else 0,
        points[5] + scored_so_far(obs, np.int64(5)) if n > 5 else 0,
    )


@njit(cache=True)
def margin_after_add(obs, seat, card):
    """``seat``'s margin once ``card`` is added face up to the festival (ranks shift; points
    scored so far do not)."""
    return _after_add(obs, seat, card, True)


@njit(cache=True)
def unseen(obs, card):
    """Copies of ``card``'s type the seat has not seen: in the deck, removed unseen, or in the
    other seats' secret festival cards (every copy less those in bouquets, face up in the
    festival, in my secret festival cards and in my hand)."""
    count = obs[COPIES + card] - obs[FACE_UP + card] - obs[OWN_SECRET + card]
    for q in range(obs[N_PLAYERS]):
        count -= obs[BOUQUET + q * N_TYPES + card]
    return count - (1 if obs[DRAWN] == card else 0)

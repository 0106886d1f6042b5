"""Gift of Tulips end of game: the secret-festival reveal and majority scoring (rules §6-8)."""

import numpy as np
from numba import njit

from giftsim.bits import share_out
from giftsim.rng import below_keyed
from tulips_sim.rules import N_SLOTS, N_VARIETIES, VALUES
from tulips_sim.state import (
    BQ_COUNT,
    BQ_VALUE,
    DENSE,
    FIRST,
    GIVE_POINTS,
    KEEP_POINTS,
    MAJORITY,
    MAJORITY_PTS,
    N_DECISIONS,
    N_PLAYERS,
    ORDER,
    SLOTS,
    ZERO_WINS,
    value_of,
    variety_of,
)

SCORED_RANKS = 3  # ranks 1..3 pay majorities; 4th and unranked varieties pay nothing
STRENGTH_SCALE = 1000  # strength: cards * 1000 + value (values stay far below 1000)
CARDS_SCALE = 1000  # finishing key: score * 1000 + bouquet cards (a bouquet holds far fewer)


def score_range(rules) -> tuple[int, int]:
    """The lowest and highest score one seat can have in a game under ``rules``: no points;
    every card of the deck given at the highest value and giving bonus, or kept at the highest
    keeping points, and the highest majority of every variety (points are never negative)."""
    per_card = max(max(VALUES) + max(rules.giving), max(rules.keeping))
    majority = int(np.max(np.asarray(rules.majority)))
    return 0, rules.deck_size * per_card + N_VARIETIES * majority


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
def strength(src, seat, variety, boost_seat, boost_card):
    """Strength ``cards * 1000 + value`` of ``seat`` in ``variety``, read from a state or an
    observation, counting one more card ``boost_card`` for ``boost_seat`` (-1: none)."""
    i = seat * N_VARIETIES + variety
    total = src[BQ_COUNT + i] * STRENGTH_SCALE + src[BQ_VALUE + i]
    if seat == boost_seat and variety_of(boost_card) == variety:
        total += STRENGTH_SCALE + value_of(boost_card)
    return total


@njit(cache=True)
def slot_of(src, variety, seat, boost_seat, boost_card):
    """Majority slot (0-based) of ``seat`` in ``variety`` under the rules in ``src`` (dense
    ranking counts the distinct strengths above it, competition the seats); -1 if it cannot
    score. ``boost_seat``/``boost_card`` as in :func:`strength`."""
    mine = strength(src, seat, variety, boost_seat, boost_card)
    if mine < STRENGTH_SCALE and not src[ZERO_WINS]:
        return -1
    ahead = 0
    for q in range(src[N_PLAYERS]):
        other = strength(src, q, variety, boost_seat, boost_card)
        if other > mine:
            ahead += (
                1 if not src[DENSE] else _first_of(src, q, variety, other, boost_seat, boost_card)
            )
    return ahead


@njit(cache=True)
def _first_of(src, q, variety, value, boost_seat, boost_card):
    """1 if no seat before ``q`` has strength ``value`` in ``variety`` (dense ranking)."""
    for e in range(q):
        if strength(src, e, variety, boost_seat, boost_card) == value:
            return 0
    return 1


@njit(cache=True)
def majority_points(state):
    """Pay the majorities of the varieties ranked 1..3 into ``MAJORITY_PTS`` (rules §7)."""
    n = state[N_PLAYERS]
    for p in range(n):
        state[MAJORITY_PTS + p] = 0
    for r in range(SCORED_RANKS):
        variety = state[ORDER + r]
        if variety < 0:
            continue
        for p in range(n):
            slot = slot_of(state, variety, p, -1, -1)
            if 0 <= slot < state[SLOTS]:
                state[MAJORITY_PTS + p] += state[MAJORITY + r * N_SLOTS + slot]


@njit(cache=True)
def final_scores(state, out):
    """Giving + keeping + majority points per seat into ``out[:n_players]``."""
    for p in range(state[N_PLAYERS]):
        out[p] = state[GIVE_POINTS + p] + state[KEEP_POINTS + p] + state[MAJORITY_PTS + p]


@njit(cache=True)
def bouquet_cards(state, seat):
    """Cards in ``seat``'s bouquet (the tie-break of equal scores)."""
    cards = 0
    for v in range(N_VARIETIES):
        cards += state[BQ_COUNT + seat * N_VARIETIES + v]
    return cards


@njit(cache=True)
def winner_mask(state):
    """Bit mask of the winning seats (rules §8): the highest score wins, then the most bouquet
    cards; seats still level share the victory."""
    best_score, best_cards, mask = -(np.int64(1) << 40), np.int64(-1), np.int64(0)
    for p in range(state[N_PLAYERS]):
        score = state[GIVE_POINTS + p] + state[KEEP_POINTS + p] + state[MAJORITY_PTS + p]
        cards = bouquet_cards(state, p)
        if score > best_score or (score == best_score and cards > best_cards):
            best_score, best_cards, mask = score, cards, np.int64(1) << p
        elif score == best_score and cards == best_cards:
            mask |= np.int64(1) << p
    return mask


@njit(cache=True)
def rewards(state, out):
    """Each seat's share of the win into ``out[:n]``: ties split, the shares sum to 1."""
    share_out(winner_mask(state), state[N_PLAYERS], out)


@njit(cache=True)
def result_row(state, n, rounds, r, out, g):
    """Row ``g`` of a block's results (``rounds`` is 1 and ``r`` 0: Gift of Tulips has no
    matches), in blocks of ``n``: score, giving, keeping, majority
    points and bouquet cards per seat; then the first seat, the decisions and the winners' bit
    mask. Indexed in place,
    since a row view per game costs more than the game's bookkeeping."""
    for p in range(n):
        give, keep = state[GIVE_POINTS + p], state[KEEP_POINTS + p]
        majority = state[MAJORITY_PTS + p]
        out[g, p] = give + keep + majority
        out[g, n + p] = give
        out[g, 2 * n + p] = keep
        out[g, 3 * n + p] = majority
        out[g, 4 * n + p] = bouquet_cards(state, p)
    out[g, 5 * n] = state[FIRST]
    out[g, 5 * n + 1] = state[N_DECISIONS]
    out[g, 5 * n + 2] = winner_mask(state)


def finish_key(blocks: np.ndarray) -> np.ndarray:
    """Each seat's place key in the finishing order from its result blocks (``score``, ...,
    ``cards``), higher finishing better: the score, then the bouquet cards (rules §8). Equal
    keys are ties (for the win too: ``winner_mask``)."""
    return blocks[:, 0] * CARDS_SCALE + blocks[:, -1]

"""The Gift of Tulips observation as a float32 tensor for learning agents.

Built from the observation alone (``engine.observe``), so it holds only what the seat may know:
never the deck, the removed cards or another seat's secret festival cards. Seats are in turn
order starting with the observing seat (relative seat ``r`` is seat ``(seat + r) % n``), so one
network serves every seat. Card types are ``card_type(variety, value)`` (12). Length
``89 + 16 n``: 153 for 4 players.

================  ==========  ================================================================
block             size        meaning
================  ==========  ================================================================
``phase``         4           one-hot: setup, first draw, second draw, over
``used``          3           one-hot: the kind of this turn's first action (keep, give, add)
``deck_left``     1           cards left to draw
``secret_size``   1           cards in the secret festival
``rank``          16          one-hot per variety: its festival rank 1..4 (4: 4th or absent)
``totals``        4           festival total per variety
``face_up``       12          face-up festival cards per type
``drawn``         12          one-hot: the card the seat holds (all 0 when it holds none)
``hand``          24          one-hot per dealt card: the pair it chooses from at setup
``own_secret``    12          the seat's own secret festival cards per type
``bouquets``      n * 12      bouquet cards per relative seat and type
``points``        n * 2       giving and keeping points so far per relative seat
``turn``          n           one-hot: the relative seat to act
``position``      n           one-hot: the observing seat's place in the turn order (0: first)
================  ==========  ================================================================

Ranges (``tensor_bounds``: each entry's true range under the rules). ``D`` is the cards drawn
in turns (``turn_cards - unused``: 56 for 4 players by default), ``T`` the turns (``max_turns``,
28), ``t`` the most turns of one seat (``T / n`` rounded up, 7), ``c`` a type's copies in the
deck (6), ``F = 1 + T + min(n_revealed, n)`` the most festival cards of one variety (its
seeding card, a face-up add each turn, the revealed setup secrets; a secret add costs a face-up
one); "top" ranges over the ranks a variety can hold:

================  ================================================================
block             range
================  ================================================================
``phase``         0..1 (the second draw only where ``D`` > 1; the first draw is also seen
                  while the secret cards are revealed, with explicit chance)
``used``          0..1 (only where ``D`` > 1)
``deck_left``     0..D, at the setup
``secret_size``   0..n + T: one setup card per seat, one add per turn
``rank``          0..1: rank ``r`` up to the number of varieties in the deck; rank 4 for
                  every variety (before the seeding, with explicit chance, all are absent;
                  once seeded, only with three or more varieties); always 1 at rank 4 for a
                  variety not in the deck
``totals``        0..the sum of the variety's ``F`` highest cards (54 by default)
``face_up``       0..min(c, F)
``drawn``         0..1 (always 0 for a type not in the deck, or with no turn)
``hand``          0..1 (always 0 for a type not in the deck)
``own_secret``    0..min(c, 1 + t): the setup card, an add on each own turn
``bouquets``      0..min(c, 1 + T): the setup card, a keep on each own turn, a gift on each
                  other turn
``points``        giving 0..t (top value + top giving bonus), 49 by default; keeping
                  0..(t + 1 with ``setup_scores``) top keeping points, 14 by default
``turn``          0..1
``position``      0..1
================  ================================================================

The ranges of ``totals``, ``face_up``, ``own_secret``, ``bouquets`` and ``points`` are reached
only by particular deals (a variety's cards never two in one turn and none removed, a seat that
draws the same type or the first variety's top card every turn), which play rarely meets.
"""

import numpy as np
from numba import njit

from tulips_sim.rules import MIN_VALUE, N_RANKS, N_TYPES, N_VALUES, N_VARIETIES
from tulips_sim.state import (
    BOUQUET,
    DECK_LEFT,
    DRAWN,
    FACE_UP,
    FIRST,
    GIVE_POINTS,
    HAND,
    KEEP_POINTS,
    N_PLAYERS,
    OWN_SECRET,
    PHASE,
    RANK,
    SEAT,
    SECRET_SIZE,
    TOTALS,
    TURN,
    USED_KIND,
)

BLOCKS = (
    "phase",
    "used",
    "deck_left",
    "secret_size",
    "rank",
    "totals",
    "face_up",
    "drawn",
    "hand",
    "own_secret",
    "bouquets",
    "points",
    "turn",
    "position",
)
_FIXED = 4 + 3 + 2 + N_VARIETIES * N_RANKS + N_VARIETIES + N_TYPES * 5  # 89
_PER_SEAT = N_TYPES + 2 + 2  # bouquet, giving and keeping points, turn, position
# Where each fixed block starts (the layout table above).
PHASE_AT, USED_AT, DECK_LEFT_AT, SECRET_SIZE_AT, RANK_AT = 0, 4, 7, 8, 9
TOTALS_AT = RANK_AT + N_VARIETIES * N_RANKS  # 25
FACE_UP_AT = TOTALS_AT + N_VARIETIES  # 29
DRAWN_AT, HAND_AT = FACE_UP_AT + N_TYPES, FACE_UP_AT + 2 * N_TYPES  # 41, 53
OWN_SECRET_AT = FACE_UP_AT + 4 * N_TYPES  # 77


def tensor_size(rules) -> int:
    """Length of the tensor under ``rules``."""
    return _FIXED + _PER_SEAT * rules.n_players


def block_sizes(rules) -> list[tuple[str, int]]:
    """Each block of the layout and its length under ``rules``, in order."""
    n = rules.n_players
    fixed = (4, 3, 1, 1, N_VARIETIES * N_RANKS, N_VARIETIES, N_TYPES, N_TYPES, 2 * N_TYPES)
    sizes = (*fixed, N_TYPES, n * N_TYPES, 2 * n, n, n)
    return list(zip(BLOCKS, sizes, strict=True))


def tensor_bounds(rules) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest value of every entry under ``rules`` (for an environment's
    observation space), each the entry's true range: the counts of the deck, the turns and the
    points tables bound it (module docstring, "Ranges")."""
    n, size = rules.n_players, tensor_size(rules)
    low, high = np.zeros(size, np.float32), np.zeros(size, np.float32)
    copies = np.array(rules.copies_by_type)
    drawn = rules.turn_cards - rules.unused
    high[PHASE_AT : PHASE_AT + 4] = 1, 1, drawn >= 2, 1  # first draw: see _festival_bounds
    high[USED_AT : USED_AT + 3] = drawn >= 2
    high[DECK_LEFT_AT], high[SECRET_SIZE_AT] = drawn, n + rules.max_turns
    _festival_bounds(rules, copies, low, high)
    held = (copies > 0).astype(np.float32)
    high[DRAWN_AT : DRAWN_AT + N_TYPES] = held * (drawn >= 1)
    high[HAND_AT : HAND_AT + 2 * N_TYPES] = np.tile(held, 2)
    own_turns = -(-rules.max_turns // n)  # the most turns one seat gets
    high[OWN_SECRET_AT : OWN_SECRET_AT + N_TYPES] = np.minimum(copies, 1 + own_turns)
    _seat_bounds(rules, copies, own_turns, high)
    return low, high


def _reachable_ranks(copies: np.ndarray) -> list[int]:
    """The festival ranks (1..4) a variety of the deck can hold once the festival is seeded:
    1..k with k varieties in the deck, and rank 4 ("4th or absent") from 3 varieties (2 are
    both seeded, never absent)."""
    k = int((copies.reshape(N_VARIETIES, N_VALUES).sum(axis=1) > 0).sum())
    return sorted({*range(1, min(k, N_RANKS) + 1), *([N_RANKS] if k >= 3 else [])})


def _festival_bounds(rules, copies, low, high) -> None:
    """Ranks, totals and face-up counts. A variety has at most one seeding card, one card a
    turn added face up (``max_turns``) and the revealed secret cards (at most ``n_revealed``
    of the n setup secrets, a secret add costing a face-up one): ``cap`` cards at most.
    With explicit chance (``Game.deal_open``) a seat also sees the states before the seeding
    cards are turned, where every variety is absent (rank 4, total 0), and the first draw's
    phase while the secret cards are revealed, even in a deck with no turn."""
    cap = 1 + rules.max_turns + min(rules.n_revealed, rules.n_players)
    ranks = _reachable_ranks(copies)
    values = MIN_VALUE + np.arange(N_TYPES) % N_VALUES
    for v in range(N_VARIETIES):
        kinds = slice(v * N_VALUES, (v + 1) * N_VALUES)
        cards = np.repeat(values[kinds], copies[kinds])[::-1]  # the variety's cards, high first
        in_deck = cards.size > 0
        for r in range(1, N_RANKS + 1):
            high[RANK_AT + v * N_RANKS + r - 1] = in_deck and r in ranks
        high[RANK_AT + v * N_RANKS + N_RANKS - 1] = 1  # absent: before the seeding at least
        if not in_deck:
            low[RANK_AT + v * N_RANKS + N_RANKS - 1] = 1
        high[TOTALS_AT + v] = cards[:cap].sum()
    high[FACE_UP_AT : FACE_UP_AT + N_TYPES] = np.minimum(copies, cap)


def _seat_bounds(rules, copies, own_turns: int, high) -> None:
    """Bouquets (the setup card, a keep on each own turn, a gift on each other turn), points
    (each own turn one gift of the highest value and bonus, one keep of the highest keeping
    points; the setup card scores too under ``setup_scores``), turn and position."""
    n, ranks = rules.n_players, _reachable_ranks(copies)
    top_value = MIN_VALUE + max(t % N_VALUES for t in range(N_TYPES) if copies[t] > 0)
    give = own_turns * (top_value + max(rules.giving[r - 1] for r in ranks))
    best_keep = max(rules.keeping[r - 1] for r in ranks)
    keep = (own_turns + int(rules.setup_scores)) * best_keep
    points = _FIXED + n * N_TYPES
    for r in range(n):
        high[_FIXED + r * N_TYPES : _FIXED + (r + 1) * N_TYPES] = np.minimum(
            copies, 1 + rules.max_turns
        )
        high[points + 2 * r], high[points + 2 * r + 1] = give, keep
    high[points + 2 * n :] = 1.0


@njit(cache=True)
def encode(obs, out):
    """Write the tensor of observation ``obs`` into ``out`` (float32, ``tensor_size`` long)."""
    n, me = obs[N_PLAYERS], obs[SEAT]
    out[:] = 0.0
    out[obs[PHASE]] = 1.0
    if obs[USED_KIND] >= 0:
        out[4 + obs[USED_KIND]] = 1.0
    out[7] = obs[DECK_LEFT]
    out[8] = obs[SECRET_SIZE]
    at = 9
    for v in range(N_VARIETIES):
        out[at + v * N_RANKS + obs[RANK + v] - 1] = 1.0
        out[at + N_VARIETIES * N_RANKS + v] = obs[TOTALS + v]
    at += N_VARIETIES * N_RANKS + N_VARIETIES
    for t in range(N_TYPES):
        out[at + t] = obs[FACE_UP + t]
        out[at + 4 * N_TYPES + t] = obs[OWN_SECRET + t]
    _one_hot(obs[DRAWN], out, at + N_TYPES)
    _one_hot(obs[HAND], out, at + 2 * N_TYPES)
    _one_hot(obs[HAND + 1], out, at + 3 * N_TYPES)
    _seats(obs, n, me, out, _FIXED)


@njit(cache=True)
def _one_hot(card, out, at):
    if card >= 0:
        out[at + card] = 1.0


@njit(cache=True)
def _seats(obs, n, me, out, at):
    """The per-seat blocks, relative seats in turn order from the observer."""
    for r in range(n):
        seat = (me + r) % n
        for t in range(N_TYPES):
            out[at + r * N_TYPES + t] = obs[BOUQUET + seat * N_TYPES + t]
        points = at + n * N_TYPES + 2 * r
        out[points] = obs[GIVE_POINTS + seat]
        out[points + 1] = obs[KEEP_POINTS + seat]
    turn = at + n * (N_TYPES + 2)
    if obs[TURN] >= 0:
        out[turn + (obs[TURN] - me) % n] = 1.0
    out[turn + n + (me - obs[FIRST]) % n] = 1.0

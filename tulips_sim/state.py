"""The Gift of Tulips state as one int64 array, and dealing a game from its seed.

A card is stored as its *type* ``card_type(variety, value)`` (0..11): cards of one variety
and value are interchangeable. Tables of card counts are indexed by type. ``card_type``,
``variety_of`` and ``value_of`` are the one card codec; nothing else spells it out.

State layout (``STATE_SIZE`` int64 slots). The first ``OBS_SIZE`` slots are the observation of
seat ``SEAT``: public slots, then the *private view* slots (``DRAWN``, ``HAND``, ``OWN_SECRET``)
that are filled for the seat being shown the state. The rest is hidden from every seat.

================  ======================  ===================================================
slot              size                    meaning
================  ======================  ===================================================
``N_PLAYERS``     1                       seats in this game
``TURN``          1                       seat to act (-1 when the game is over)
``SEAT``          1                       the seat being shown the state
``PHASE``         1                       ``SETUP``, ``FIRST`` / ``SECOND`` draw, ``OVER``
``USED_KIND``     1                       kind of this turn's first action (second draw only)
``DECK_LEFT``     1                       cards left to draw (drawn card and unused not counted)
``SECRET_SIZE``   1                       cards in the secret festival
``FIRST``         1                       seat that takes the first turn
``N_DECISIONS``   1                       decisions made so far
``LEGAL``         1                       bit mask of the legal action ids
``SLOTS``         1                       rules: majorities paid per variety
``SETUP_SCORES``  1                       rules: 1 if the setup bouquet card scores
``ZERO_WINS``     1                       rules: 1 if zero cards can win a majority
``DENSE``         1                       rules: 1 for dense majority ranking
``N_REMOVED``     1                       rules: cards removed unseen before the game
``SETUP_OPEN``    1                       rules: 1 if setup bouquet cards go face up at once
``COPIES``        12                      rules: copies of each card type in the deck
``N_REVEALED``    1                       rules: secret cards the end-game reveal turns up
``ORDER``         4                       variety at festival rank 1..4 (-1 where empty)
``TOTALS``        4                       festival total per variety
``RANK``          4                       rank 1..4 per variety (4 also when not in festival)
``GIVE_BONUS``    4                       rules: giving bonus by rank
``KEEP_PTS``      4                       rules: keeping points by rank
``MAJORITY``      12                      rules: majority points, ``rank * 3 + slot``
``GIVE_POINTS``   ``MAX_PLAYERS``         giving points scored per seat
``KEEP_POINTS``   ``MAX_PLAYERS``         keeping points scored per seat
``BOUQUET``       ``MAX_PLAYERS`` * 12    bouquet card counts, ``seat * 12 + type``
``BQ_COUNT``      ``MAX_PLAYERS`` * 4     bouquet cards per seat and variety
``BQ_VALUE``      ``MAX_PLAYERS`` * 4     bouquet value per seat and variety
``FACE_UP``       12                      face-up festival cards per type
``DRAWN``         1                       private: the card the seat to act holds (else -1)
``HAND``          2                       private: own dealt pair while choosing at setup
``OWN_SECRET``    12                      private: counts of the seat's own secret cards
``TOP``           1                       hidden: index of the next card of ``DECK``
``DECK_N``        1                       hidden: cards in ``DECK``
``REVEAL_KEY``    1                       hidden: random stream of the end-game reveal
``DEALT``         ``MAX_PLAYERS`` * 2     hidden: each seat's dealt pair
``PENDING``       ``MAX_PLAYERS``         hidden: setup choice per seat (-1 before it)
``SECRETS``       ``MAX_PLAYERS`` * 12    hidden: each seat's secret card counts
``MAJORITY_PTS``  ``MAX_PLAYERS``         majority points per seat (set at the end)
``START``         2                       festival start cards, 1st place first
``REVEALED``      ``MAX_DECK``            cards turned up at the end, in order (-1 after)
``PILE``          ``MAX_DECK``            secret festival cards in the order they went in
``REMOVED``       12                      hidden: counts of the removed cards
``DECK``          ``MAX_DECK`` + 1        hidden: draw pile, top at ``TOP``; cards from
                                          ``DECK_N`` on are never drawn (``game_end``); one
                                          slot more for explicit chance's end mark
``SEED_N``        1                       hidden: cards drawn to seed the festival
``SEED_DRAWS``    ``MAX_SEED_DRAWS``      hidden: those cards in the order drawn
``CHANCE``        1                       hidden: the chance event pending (``NO_CHANCE``
                                          unless dealt by :func:`deal_open`; ``chance.py``)
``OPEN_KEY``      1                       hidden, explicit chance: the deal stream, for the
                                          seeding's reshuffle, coin and first seat
``OPEN_STEP``     1                       hidden, explicit chance: cards of the end-game
                                          reveal turned up so far
``SEED_RANDOM``   1                       hidden, explicit chance: rules: 1 if a coin orders
                                          equal seeding values
================  ======================  ===================================================

Explicit chance (:func:`deal_open`): the deck is shuffled as :func:`deal_keyed` shuffles it, but
every card not yet turned up is stored complemented (``~card``, so negative), and the removed
cards, the seeding draws, the seeding coin, the first seat, each dealt card, each card drawn and
each card of the end-game reveal is a chance event that ``chance.apply_chance`` resolves. The
engine's draw, finding a negative entry at the top, stops with ``DRAW`` pending instead (one
predictable branch of the fast path). So that the end of the game is found the same way,
``DECK_N`` is one more than the pile's last drawn place, which holds a negative entry (an
unused card, else ``END_MARK``): a draw there starts the end-game reveal's events.
"""

import numpy as np
from numba import njit

from giftsim.inlining import unless_called
from giftsim.rng import (
    DEAL_STREAM,
    REVEAL_STREAM,
    below_keyed,
    game_key,
    shuffle_keyed,
    stream_from,
)
from tulips_sim.rules import (
    MAX_DECK,
    MAX_PLAYERS,
    MAX_SEED_DRAWS,
    MIN_VALUE,
    N_RANKS,
    N_SLOTS,
    N_TYPES,
    N_VALUES,
    N_VARIETIES,
    R_COPIES,
    R_DENSE,
    R_FIRST_PLAYER,
    R_GAME_END,
    R_GIVE,
    R_KEEP,
    R_MAJORITY,
    R_N_PLAYERS,
    R_N_REMOVED,
    R_N_REVEALED,
    R_SEED_RANDOM,
    R_SETUP_OPEN,
    R_SETUP_SCORES,
    R_SLOTS,
    R_ZERO_WINS,
    RANDOM_FIRST,
)

SETUP, FIRST_DRAW, SECOND_DRAW, OVER = 0, 1, 2, 3

N_PLAYERS = 0
TURN = 1
SEAT = 2
PHASE = 3
USED_KIND = 4
DECK_LEFT = 5
SECRET_SIZE = 6
FIRST = 7
N_DECISIONS = 8
LEGAL = 9
SLOTS = 10
SETUP_SCORES = 11
ZERO_WINS = 12
DENSE = 13
N_REMOVED = 14
SETUP_OPEN = 15
COPIES = 16
N_REVEALED = COPIES + N_TYPES
ORDER = N_REVEALED + 1
TOTALS = ORDER + N_RANKS
RANK = TOTALS + N_VARIETIES
GIVE_BONUS = RANK + N_VARIETIES
KEEP_PTS = GIVE_BONUS + N_RANKS
MAJORITY = KEEP_PTS + N_RANKS
GIVE_POINTS = MAJORITY + N_RANKS * N_SLOTS
KEEP_POINTS = GIVE_POINTS + MAX_PLAYERS
BOUQUET = KEEP_POINTS + MAX_PLAYERS
BQ_COUNT = BOUQUET + MAX_PLAYERS * N_TYPES
BQ_VALUE = BQ_COUNT + MAX_PLAYERS * N_VARIETIES
FACE_UP = BQ_VALUE + MAX_PLAYERS * N_VARIETIES
DRAWN = FACE_UP + N_TYPES
HAND = DRAWN + 1
OWN_SECRET = HAND + 2
OBS_SIZE = OWN_SECRET + N_TYPES
TOP = OBS_SIZE
DECK_N = TOP + 1
REVEAL_KEY = DECK_N + 1
DEALT = REVEAL_KEY + 1
PENDING = DEALT + MAX_PLAYERS * 2
SECRETS = PENDING + MAX_PLAYERS
MAJORITY_PTS = SECRETS + MAX_PLAYERS * N_TYPES
START = MAJORITY_PTS + MAX_PLAYERS
REVEALED = START + 2
PILE = REVEALED + MAX_DECK
REMOVED = PILE + MAX_DECK
DECK = REMOVED + N_TYPES
SEED_N = DECK + MAX_DECK + 1
SEED_DRAWS = SEED_N + 1
CHANCE = SEED_DRAWS + MAX_SEED_DRAWS
OPEN_KEY = CHANCE + 1
OPEN_STEP = OPEN_KEY + 1
SEED_RANDOM = OPEN_STEP + 1
# Whole 64-byte cache lines (8 slots): a state kept after another in a work row (``learned``
# copies the world it draws into the next state's place for each action) then starts where the
# first does relative to the lines; at 977 slots it did not, and ``learned`` decided 8% slower
# (docs/perf/README.md).
STATE_SIZE = -(-(SEED_RANDOM + 1) // 8) * 8

# The seeding coin's outcomes: a NumPy int, not a literal 2, so that its callees compile once
# (a literal argument compiles a copy of the callee: ``giftsim/rng.py``).
COIN_SIDES = np.int64(2)

# Values of ``CHANCE``: the chance events of a game (explicit chance only; ``chance.py``).
NO_CHANCE = 0
REMOVE = 1  # a card removed unseen
SEED = 2  # a card turned up to seed the festival
COIN = 3  # the coin that orders equal seeding values (seeding_tie="random")
FIRST_SEAT = 4  # the seat that takes the first turn (when the rules draw it)
DEAL = 5  # a card of a seat's dealt pair
DRAW = 6  # the card the seat to act draws
REVEAL = 7  # a secret festival card turned up at the end
END_MARK = ~N_TYPES  # explicit chance: the entry past the pile's last drawn card


@njit(cache=True)
def card_type(variety, value):
    """The type of a card of ``variety`` (0..3) and ``value`` (2..4): ``0 .. N_TYPES - 1``."""
    return variety * N_VALUES + value - MIN_VALUE


@njit(cache=True)
def variety_of(card):
    """The variety (0..3) of a card type."""
    return card // N_VALUES


@njit(cache=True)
def value_of(card):
    """The value (2..4) of a card type."""
    return card % N_VALUES + MIN_VALUE


def new_state() -> np.ndarray:
    """An empty state buffer, to be filled by :func:`deal` or :func:`set_deal`."""
    return np.zeros(STATE_SIZE, np.int64)


@njit(cache=True, inline=unless_called)
def _fill_deck(rules_vec, state):
    """Lay the whole deck (every variety and value, as many copies as the rules say) in
    ``DECK``; return its size."""
    n = 0
    for card in range(N_TYPES):
        for _ in range(rules_vec[R_COPIES + card]):
            state[DECK + n] = card
            n += 1
    return n


@njit(cache=True, inline=unless_called)
def _seed_festival(rules_vec, state, top, end, key):
    """Draw the two festival cards from ``DECK[top:end]`` (rules §3.5); return ``(top, key)``.

    Same-variety cards drawn before the second card go back and the rest is reshuffled. The
    cards drawn are kept, in order, in ``SEED_DRAWS``.
    """
    first = state[DECK + top]
    k = top + 1
    while k < end and variety_of(state[DECK + k]) == variety_of(first):
        k += 1
    second = state[DECK + k]
    state[SEED_N] = k - top + 1
    for i in range(k - top + 1):
        state[SEED_DRAWS + i] = state[DECK + top + i]
    returned = k > top + 1
    state[DECK + k] = state[DECK + top + 1]  # the returned cards stay in the pile
    top += 2
    if returned:
        key = shuffle_keyed(state[DECK + top : DECK + end], key)
    first_wins = value_of(first) > value_of(second)
    if value_of(first) == value_of(second):
        first_wins = True
        if rules_vec[R_SEED_RANDOM]:
            coin, key = below_keyed(key, COIN_SIDES)
            first_wins = coin == 0
    state[START] = first if first_wins else second
    state[START + 1] = second if first_wins else first
    return top, key


@njit(cache=True)
def deal(rules_vec, root_seed, game_index, first_player, state):
    """Deal game ``game_index`` of root seed ``root_seed`` into ``state`` (see ``deal_keyed``)."""
    deal_keyed(rules_vec, game_key(root_seed, game_index), first_player, state)


@njit(cache=True, inline=unless_called)
def deal_keyed(rules_vec, game, first_player, state):
    """Shuffle, remove, seed the festival and deal two cards a seat, for the game keyed
    ``game``. ``first_player`` is a seat or ``RANDOM_FIRST`` (then the rules' seat, else a draw).
    """
    key = stream_from(game, DEAL_STREAM)
    end = _fill_deck(rules_vec, state)
    key = shuffle_keyed(state[DECK : DECK + end], key)
    top = rules_vec[R_N_REMOVED]
    for t in range(N_TYPES):
        state[REMOVED + t] = 0
    for i in range(top):
        state[REMOVED + state[DECK + i]] += 1
    top, key = _seed_festival(rules_vec, state, top, end, key)
    if first_player == RANDOM_FIRST:
        first_player = rules_vec[R_FIRST_PLAYER]
    if first_player == RANDOM_FIRST:
        first_player, key = below_keyed(key, rules_vec[R_N_PLAYERS])
    n = rules_vec[R_N_PLAYERS]
    _start(rules_vec, state, top + 2 * n, end, first_player)
    seed_order(state)
    for i in range(2 * n):
        state[DEALT + i] = state[DECK + top + i]
    state[REVEAL_KEY] = np.int64(stream_from(game, REVEAL_STREAM))


@njit(cache=True)
def deal_open(rules_vec, game, first_player, state):
    """:func:`deal_keyed` with explicit chance (see the module docstring): the deck shuffled
    the same way for the same key, every card face down, the festival empty and the first
    event (``REMOVE``, else ``SEED``) pending; ``chance.next_outcome`` gives the outcomes
    that :func:`deal_keyed` deals, ``chance.apply_chance`` resolves them. ``first_player`` as
    for :func:`deal_keyed`; when it is drawn, ``FIRST`` is -1 until ``FIRST_SEAT`` resolves."""
    key = stream_from(game, DEAL_STREAM)
    end = _fill_deck(rules_vec, state)
    key = shuffle_keyed(state[DECK : DECK + end], key)
    if first_player == RANDOM_FIRST:
        first_player = rules_vec[R_FIRST_PLAYER]
    n, removed = rules_vec[R_N_PLAYERS], rules_vec[R_N_REMOVED]
    _start(rules_vec, state, removed + 2 + 2 * n, end, first_player)
    for i in range(end):
        state[DECK + i] = ~state[DECK + i]
    if state[DECK_N] == end:
        state[DECK + end] = END_MARK
    state[DECK_N] += 1
    state[TOP] = 0
    for t in range(N_TYPES):
        state[REMOVED + t] = 0
    for r in range(N_RANKS):
        state[ORDER + r] = -1
    for v in range(N_VARIETIES):
        state[RANK + v] = N_RANKS
    for i in range(2 * MAX_PLAYERS):
        state[DEALT + i] = -1
    state[TURN] = -1
    state[SEED_N] = 0
    state[REVEAL_KEY] = np.int64(stream_from(game, REVEAL_STREAM))
    state[OPEN_KEY] = np.int64(key)
    state[SEED_RANDOM] = rules_vec[R_SEED_RANDOM]
    state[CHANCE] = REMOVE if removed > 0 else SEED


@njit(cache=True)
def set_deal(rules_vec, start, dealt, deck, removed, first_player, reveal_key, state):
    """Fill ``state`` with a given deal: festival start pair, dealt pairs (flat, seat-major),
    draw pile (top first, with the cards ``game_end`` leaves undrawn), removed counts, first
    seat and reveal stream. The seeding draws are set to the start pair (the caller may write
    the recorded draws into ``SEED_DRAWS``)."""
    state[DECK : DECK + deck.shape[0]] = deck
    state[START] = start[0]
    state[START + 1] = start[1]
    state[SEED_N] = 2
    state[SEED_DRAWS] = start[0]
    state[SEED_DRAWS + 1] = start[1]
    state[REMOVED : REMOVED + N_TYPES] = removed
    _start(rules_vec, state, 0, deck.shape[0], first_player)
    seed_order(state)
    state[DEALT : DEALT + dealt.shape[0]] = dealt
    state[REVEAL_KEY] = reveal_key


@njit(cache=True, inline=unless_called)
def _start(rules_vec, state, top, end, first_player):
    """Reset the slots before ``START`` for a game about to begin its setup (the caller sets
    the festival's start, :func:`seed_order`, and ``DEALT`` afterwards)."""
    state[:START] = 0  # REVEALED, PILE and REMOVED are written before they are read
    n = rules_vec[R_N_PLAYERS]
    state[N_PLAYERS] = n
    state[FIRST] = first_player
    state[PHASE] = SETUP
    state[USED_KIND] = -1
    state[TOP] = top
    state[DECK_N] = end - unused_of(rules_vec, end - top)
    state[DECK_LEFT] = state[DECK_N] - top
    state[SLOTS] = rules_vec[R_SLOTS]
    _copy_rules(rules_vec, state)
    for p in range(MAX_PLAYERS):
        state[PENDING + p] = -1
    state[DRAWN] = -1
    state[CHANCE] = NO_CHANCE


@njit(cache=True, inline=unless_called)
def unused_of(rules_vec, turn_cards):
    """Cards at the bottom of a pile of ``turn_cards`` that are never drawn (rules
    ``game_end``): the rest of an incomplete round, a last odd card, or none."""
    end_rule = rules_vec[R_GAME_END]
    if end_rule == 0:
        return turn_cards % (2 * rules_vec[R_N_PLAYERS])
    if end_rule == 1:
        return turn_cards % 2
    return 0


@njit(cache=True, inline=unless_called)
def _copy_rules(rules_vec, state):
    for r in range(N_RANKS):
        state[GIVE_BONUS + r] = rules_vec[R_GIVE + r]
        state[KEEP_PTS + r] = rules_vec[R_KEEP + r]
    for i in range(N_RANKS * N_SLOTS):
        state[MAJORITY + i] = rules_vec[R_MAJORITY + i]
    state[N_REVEALED] = rules_vec[R_N_REVEALED]
    state[SETUP_SCORES] = rules_vec[R_SETUP_SCORES]
    state[SETUP_OPEN] = rules_vec[R_SETUP_OPEN]
    state[ZERO_WINS] = rules_vec[R_ZERO_WINS]
    state[DENSE] = rules_vec[R_DENSE]
    state[N_REMOVED] = rules_vec[R_N_REMOVED]
    for t in range(N_TYPES):
        state[COPIES + t] = rules_vec[R_COPIES + t]


@njit(cache=True, inline=unless_called)
def seed_order(state):
    """Festival ranks from the two start cards (the first-drawn tie rule already applied)."""
    for r in range(N_RANKS):
        state[ORDER + r] = -1
    for v in range(N_VARIETIES):
        state[RANK + v] = N_RANKS
    for r in range(2):
        card = state[START + r]
        state[FACE_UP + card] += 1
        state[ORDER + r] = variety_of(card)
        state[TOTALS + variety_of(card)] = value_of(card)
        state[RANK + variety_of(card)] = r + 1


def card_of(card: int) -> tuple[int, int]:
    """``(variety, value)`` of a card type."""
    return int(variety_of(card)), int(value_of(card))

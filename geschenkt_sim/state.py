"""The No Thanks! state as one int64 array, and dealing a game from its seed.

State layout (``STATE_SIZE`` int64 slots; hands are bit masks, bit ``c`` standing for card ``c``).
The first ``PUBLIC_SIZE`` slots are public and *are* the observation of seat ``SEAT`` (the fast
loop shows agents this prefix of the live state, without a copy); the rest is hidden from
every seat.

=================  ===============  ==============================================================
slot               size             meaning
=================  ===============  ==============================================================
``N_PLAYERS``      1                seats in this game
``TURN``           1                seat to act
``CARD``           1                face-up card (-1 when the game is over)
``POT``            1                chips on the face-up card
``CARDS_LEFT``     1                face-down cards still in the stack
``UNSEEN``         1                bit mask of cards neither taken nor face up (stack + removed)
``LOWEST``         1                lowest card number of the range
``HIGHEST``        1                highest card number of the range
``CHIPS_VISIBLE``  1                1 if agents see opponents' chips
``N_DECISIONS``    1                decisions made so far
``FIRST``          1                seat that acted first
``SEAT``           1                the seat being shown the state (set before each decision)
``N_REMOVED``      1                number of removed cards
``TOTAL_CHIPS``    1                chips in the game (all seats' start chips together)
``CHIPS``          ``MAX_PLAYERS``  chips held by each seat
``HANDS``          ``MAX_PLAYERS``  cards taken by each seat (bit mask)
``POS``            1                hidden: index in ``DECK`` of the face-up card
``N_CARDS``        1                hidden: cards in play (24 by default)
``REMOVED``        1                hidden: bit mask of the removed cards
``DECK``           ``MAX_CARD``     hidden: played cards in the order they are turned up
``CHANCE``         1                hidden: the chance event pending (``NO_CHANCE`` unless dealt
                                    by :func:`deal_open`, see ``chance.py``)
``DEALT_FIRST``    1                hidden, explicit chance: the first seat the deal drew
``FORCED``         1                hidden, explicit chance: bit mask of the cards always removed
=================  ===============  ==============================================================

Explicit chance (:func:`deal_open`): the deal is the same, but every card of ``DECK`` not yet
turned up is stored complemented (``~card``, so negative): the engine, turning up a negative
entry, stops with ``TURN_UP`` pending in ``CHANCE`` instead of showing it (one predictable
branch of the fast path), and ``chance.apply_chance`` turns a card up. ``DEALT_FIRST`` and
``FORCED`` are read only in that mode.
"""

import numpy as np
from numba import njit

from geschenkt_sim.rules import (
    MAX_CARD,
    MAX_PLAYERS,
    R_CHIPS,
    R_CHIPS_VISIBLE,
    R_FIRST_PLAYER,
    R_FORCED_MASK,
    R_HIGHEST,
    R_LOWEST,
    R_N_PLAYERS,
    R_N_REMOVED,
    RANDOM_FIRST,
)
from giftsim.rng import DEAL_STREAM, below_keyed, game_key, shuffle_keyed, stream_from

N_PLAYERS = 0
TURN = 1
CARD = 2
POT = 3
CARDS_LEFT = 4
UNSEEN = 5
LOWEST = 6
HIGHEST = 7
CHIPS_VISIBLE = 8
N_DECISIONS = 9
FIRST = 10
SEAT = 11
N_REMOVED = 12
TOTAL_CHIPS = 13
CHIPS = 14
HANDS = CHIPS + MAX_PLAYERS
PUBLIC_SIZE = HANDS + MAX_PLAYERS
POS = PUBLIC_SIZE
N_CARDS = POS + 1
REMOVED = N_CARDS + 1
DECK = REMOVED + 1
CHANCE = DECK + MAX_CARD
DEALT_FIRST = CHANCE + 1
FORCED = DEALT_FIRST + 1
STATE_SIZE = FORCED + 1

# Values of ``CHANCE``: the chance events of a game (explicit chance only; ``chance.py``).
NO_CHANCE = 0
FIRST_SEAT = 1  # the seat that acts first (when the rules draw it)
TURN_UP = 2  # the next card turned face up


def new_state() -> np.ndarray:
    """An empty state buffer, to be filled by :func:`deal` or :func:`set_deal`."""
    return np.zeros(STATE_SIZE, np.int64)


@njit(cache=True)
def set_deal(rules_vec, deck, removed_mask, first_player, state):
    """Fill ``state`` with the start of a game with a given deck order and first seat."""
    state[DECK : DECK + deck.shape[0]] = deck
    _start(rules_vec, deck.shape[0], removed_mask, first_player, state)


@njit(cache=True)
def _start(rules_vec, n_cards, removed_mask, first_player, state):
    """Set every slot but the deck for a game whose ``n_cards`` cards lie in ``DECK``."""
    state[:DECK] = 0
    state[CHANCE] = NO_CHANCE
    n = rules_vec[R_N_PLAYERS]
    state[N_PLAYERS] = n
    state[TURN] = first_player
    state[FIRST] = first_player
    state[SEAT] = first_player
    state[N_CARDS] = n_cards
    state[CHIPS_VISIBLE] = rules_vec[R_CHIPS_VISIBLE]
    state[REMOVED] = removed_mask
    state[N_REMOVED] = rules_vec[R_N_REMOVED]
    state[LOWEST] = rules_vec[R_LOWEST]
    state[HIGHEST] = rules_vec[R_HIGHEST]
    for p in range(n):
        state[CHIPS + p] = rules_vec[R_CHIPS]
    state[TOTAL_CHIPS] = n * rules_vec[R_CHIPS]
    state[CARD] = state[DECK] if n_cards > 0 else -1
    state[CARDS_LEFT] = max(n_cards - 1, 0)
    state[UNSEEN] = range_mask(rules_vec[R_LOWEST], rules_vec[R_HIGHEST])
    if n_cards > 0:
        state[UNSEEN] &= ~(np.int64(1) << state[DECK])


@njit(cache=True)
def range_mask(lowest, highest):
    """Bit mask of the cards ``lowest..highest``."""
    return (np.int64(1) << (highest + 1)) - (np.int64(1) << lowest)


@njit(cache=True)
def _shuffle_into_deck(rules_vec, key, state):
    """Shuffle the cards that are not always removed into ``DECK``: ``(removed mask, key)``.

    The deck is the first ``n_cards`` of them, the rest join the forced cards in the box.
    """
    forced = rules_vec[R_FORCED_MASK]
    n_free = 0
    for c in range(rules_vec[R_LOWEST], rules_vec[R_HIGHEST] + 1):
        if not (forced >> c) & 1:
            state[DECK + n_free] = c
            n_free += 1
    free = state[DECK : DECK + n_free]
    key = shuffle_keyed(free, key)
    n_cards = rules_vec[R_HIGHEST] - rules_vec[R_LOWEST] + 1 - rules_vec[R_N_REMOVED]
    removed_mask = forced
    for k in range(n_cards, n_free):
        removed_mask |= np.int64(1) << free[k]
        free[k] = 0
    return removed_mask, key


@njit(cache=True)
def deal(rules_vec, root_seed, game_index, first_player, state):
    """Deal game ``game_index`` of root seed ``root_seed`` into ``state``.

    ``first_player`` is a seat, or ``RANDOM_FIRST`` to draw it from the deal stream (then the
    rules' fixed seat, if any, wins).
    """
    deal_keyed(rules_vec, game_key(root_seed, game_index), first_player, state)


@njit(cache=True)
def deal_keyed(rules_vec, game, first_player, state):
    """:func:`deal` for a game given by its key (``giftsim.rng.game_key``)."""
    key = stream_from(game, DEAL_STREAM)
    removed_mask, key = _shuffle_into_deck(rules_vec, key, state)
    if first_player == RANDOM_FIRST:
        first_player = rules_vec[R_FIRST_PLAYER]
    if first_player == RANDOM_FIRST:
        first_player, key = below_keyed(key, rules_vec[R_N_PLAYERS])
    n_cards = rules_vec[R_HIGHEST] - rules_vec[R_LOWEST] + 1 - rules_vec[R_N_REMOVED]
    _start(rules_vec, n_cards, removed_mask, first_player, state)


@njit(cache=True)
def deal_open(rules_vec, game, first_player, state):
    """:func:`deal_keyed` with explicit chance: the same deal (the same stack for the same key),
    but no card is face up yet and, when the rules draw it, nor is the first seat: each is a
    chance event (``CHANCE``) that ``chance.apply_chance`` resolves, with the dealt outcome or
    any other (``chance.next_outcome`` gives the dealt one)."""
    deal_keyed(rules_vec, game, first_player, state)
    n_cards = state[N_CARDS]
    for i in range(n_cards):
        state[DECK + i] = ~state[DECK + i]
    state[CARD] = -1
    state[CARDS_LEFT] = n_cards
    state[UNSEEN] = range_mask(rules_vec[R_LOWEST], rules_vec[R_HIGHEST])
    state[FORCED] = rules_vec[R_FORCED_MASK]
    state[CHANCE] = TURN_UP
    drawn = first_player == RANDOM_FIRST and rules_vec[R_FIRST_PLAYER] == RANDOM_FIRST
    if drawn:
        state[DEALT_FIRST] = state[FIRST]
        state[TURN] = state[FIRST] = state[SEAT] = -1
        state[CHANCE] = FIRST_SEAT


def deck_of(state: np.ndarray) -> list[int]:
    """The played cards in turn-up order."""
    return [int(c) for c in state[DECK : DECK + state[N_CARDS]]]


def cards_of(mask: int) -> list[int]:
    """The cards of a bit mask, ascending."""
    mask = int(mask)
    return [c for c in range(MAX_CARD + 1) if (mask >> c) & 1]

"""No Thanks! with explicit chance: the chance events of a game dealt by ``state.deal_open``.

A game has two kinds of chance event (``state.CHANCE``): ``FIRST_SEAT``, the seat that acts
first, when the rules draw it (outcome: the seat, ``0..n-1``, each weight 1), and ``TURN_UP``,
the next card turned face up, at the start and after every take but the last (outcome: the
card number). Every card neither taken nor face up is equally likely to come up next, the
removed ones included, except the cards the rules always remove (the tactical variant's):
weight 1 each. Both are public: every seat sees the outcome.

A resolved card is swapped into the stack's next place from wherever it lies, the removed cards
included, so the stack and the removed cards always hold the cards still unseen; the engine
then goes on as after any reveal. Outcome ids are card numbers (``0..MAX_CARD``), so
``MAX_OUTCOMES`` is ``MAX_CARD + 1``.
"""

import numpy as np
from numba import njit

from geschenkt_sim.rules import ACTION_NAMES, MAX_CARD
from geschenkt_sim.state import (
    CARD,
    CARDS_LEFT,
    CHANCE,
    DEALT_FIRST,
    DECK,
    FIRST,
    FIRST_SEAT,
    FORCED,
    HIGHEST,
    N_CARDS,
    N_PLAYERS,
    POS,
    REMOVED,
    SEAT,
    TURN,
    TURN_UP,
    UNSEEN,
)

MAX_OUTCOMES = MAX_CARD + 1
KINDS = ("first seat", "turn up")  # names of the events FIRST_SEAT, TURN_UP (kind - 1)


@njit(cache=True)
def chance_pending(state):
    """The chance event to resolve before anyone acts (``FIRST_SEAT``, ``TURN_UP``), else 0."""
    return state[CHANCE]


@njit(cache=True)
def chance_outcomes(state, weights):
    """Write the weight of each outcome id of the pending event into ``weights`` (seats, or
    card numbers: the cards still unseen that the rules do not always remove, 1 each); return
    the number of outcome ids written."""
    if state[CHANCE] == FIRST_SEAT:
        for seat in range(state[N_PLAYERS]):
            weights[seat] = 1
        return state[N_PLAYERS]
    free = state[UNSEEN] & ~state[FORCED]
    for card in range(state[HIGHEST] + 1):
        weights[card] = (free >> card) & 1
    return state[HIGHEST] + 1


@njit(cache=True)
def next_outcome(state):
    """The outcome the dealt game holds for the pending event: the seat the deal drew, or the
    card in the stack's next place."""
    if state[CHANCE] == FIRST_SEAT:
        return state[DEALT_FIRST]
    return ~state[DECK + state[POS]]


@njit(cache=True)
def chance_observers(state):
    """Bit mask of the seats that see the pending event's outcome: every seat."""
    return (np.int64(1) << state[N_PLAYERS]) - 1


@njit(cache=True)
def apply_chance(state, outcome):
    """Resolve the pending event with ``outcome`` (any outcome of positive weight)."""
    if state[CHANCE] == FIRST_SEAT:
        state[TURN] = state[FIRST] = state[SEAT] = outcome
        state[CHANCE] = TURN_UP
        return
    _bring_up(state, outcome)
    state[DECK + state[POS]] = outcome
    state[CARD] = outcome
    state[CARDS_LEFT] -= 1
    state[UNSEEN] &= ~(np.int64(1) << outcome)
    state[CHANCE] = 0


@njit(cache=True)
def _bring_up(state, card):
    """Put the unseen ``card`` in the stack's next place: swapped from later in the stack, or
    exchanged with the removed cards (the card there joins them)."""
    pos, hidden = state[POS], ~card
    for k in range(pos, state[N_CARDS]):
        if state[DECK + k] == hidden:
            state[DECK + k] = state[DECK + pos]
            state[DECK + pos] = hidden
            return
    out = ~state[DECK + pos]
    state[REMOVED] = (state[REMOVED] & ~(np.int64(1) << card)) | (np.int64(1) << out)
    state[DECK + pos] = hidden


@njit(cache=True)
def public_action(state, action):
    """What the other seats see of the decision ``action`` of the seat to act: the action."""
    return action


def chance_text(kind: int, outcome: int) -> str:
    """An outcome of a ``kind`` event as text."""
    return f"seat {outcome} first" if kind == FIRST_SEAT else f"card {outcome}"


def public_text(code: int) -> str:
    """A :func:`public_action` code as text."""
    return ACTION_NAMES[code]


def chance_events(rules) -> int:
    """Bound on the chance events of a game under ``rules``: a card per card played, and the
    first seat."""
    return rules.n_cards + 1

"""Compiled No Thanks! rules: legal actions, applying an action in place, game over, observation.

An observation is the public prefix of the state (slots ``N_PLAYERS .. HANDS``, see
``state.py``) with ``SEAT`` set to the observing seat. When opponents' chips are hidden their
``CHIPS`` entries read -1. An agent reads the observation by the slot names of ``state.py``
(``OBS_SIZE`` long); only the public ones have values in it.
"""

import numpy as np
from numba import njit

from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.state import (
    CARD,
    CARDS_LEFT,
    CHANCE,
    CHIPS,
    CHIPS_VISIBLE,
    DECK,
    HANDS,
    N_CARDS,
    N_DECISIONS,
    N_PLAYERS,
    POS,
    POT,
    PUBLIC_SIZE,
    SEAT,
    TURN,
    TURN_UP,
    UNSEEN,
)

OBS_SIZE = PUBLIC_SIZE
HIDDEN_CHIPS = -1


@njit(cache=True)
def begin(state):
    """Open the game after the deal (nothing to do in No Thanks!)."""


@njit(cache=True)
def is_over(state):
    """True once the last card has been taken."""
    return state[POS] >= state[N_CARDS]


@njit(cache=True)
def is_legal(state, action):
    """Whether ``action`` is legal now: take always, pass only with a chip in hand."""
    if is_over(state):
        return False
    if action == TAKE:
        return True
    return action == PASS and state[CHIPS + state[TURN]] > 0


@njit(cache=True)
def legal_mask(state):
    """Bit mask of the legal action ids: take always, pass with a chip in hand (0 once over)."""
    if is_over(state):
        return np.int64(0)
    can_pass = state[CHIPS + state[TURN]] > 0
    return (np.int64(1) << TAKE) | (np.int64(can_pass) << PASS)


@njit(cache=True)
def legal_actions(state):
    """Legal action ids, ascending (a new array, from :func:`legal_mask`)."""
    mask = legal_mask(state)
    out = np.empty(2, np.int64)
    n = 0
    for a in (PASS, TAKE):
        if (mask >> a) & 1:
            out[n] = a
            n += 1
    return out[:n]


@njit(cache=True)
def apply_action(state, action):
    """Apply a legal ``action`` of the seat to act, in place."""
    seat = state[TURN]
    state[N_DECISIONS] += 1
    if action == PASS:
        state[CHIPS + seat] -= 1
        state[POT] += 1
        state[TURN] = seat + 1 if seat + 1 < state[N_PLAYERS] else 0
    else:
        _take(state, seat)


@njit(cache=True)
def _take(state, seat):
    """The seat to act takes the face-up card and its chips, and the next card turns up."""
    state[HANDS + seat] |= np.int64(1) << state[CARD]
    state[CHIPS + seat] += state[POT]
    state[POT] = 0
    state[POS] += 1
    if is_over(state):
        state[CARD] = -1
        return
    state[CARD] = state[DECK + state[POS]]
    if state[CARD] < 0:  # explicit chance (state.deal_open): chance.apply_chance turns it up
        state[CARD] = -1
        state[CHANCE] = TURN_UP
        return
    state[CARDS_LEFT] -= 1
    state[UNSEEN] &= ~(np.int64(1) << state[CARD])


@njit(cache=True)
def event(state, action, out):
    """A take, before it is applied: the card taken and its price (the chips on it) into
    ``out``; True. A pass is no event."""
    if action != TAKE:
        return False
    out[0], out[1] = state[CARD], state[POT]
    return True


@njit(cache=True)
def show_turn(state):
    """Make the state's public prefix the observation of the seat to act (set ``SEAT``), and
    say whether it now is: unless the rules hide the opponents' chips (then :func:`observe`
    writes a masked copy)."""
    state[SEAT] = state[TURN]
    return state[CHIPS_VISIBLE] == 1


@njit(cache=True)
def observe(state, seat, obs):
    """Write what ``seat`` may know into ``obs``: the public prefix of ``state.py``, copied
    four slots at a time (the fast loops call this before every decision), with the
    opponents' chips blanked when the rules hide them."""
    visible, n = state[CHIPS_VISIBLE], state[N_PLAYERS]
    public, shown = state[:PUBLIC_SIZE], obs[:PUBLIC_SIZE]
    for i in range(0, PUBLIC_SIZE, 4):
        a, b, c, d = public[i], public[i + 1], public[i + 2], public[i + 3]
        shown[i], shown[i + 1], shown[i + 2], shown[i + 3] = a, b, c, d
    shown[SEAT] = seat
    if not visible:
        for p in range(n):
            if p != seat:
                shown[CHIPS + p] = HIDDEN_CHIPS

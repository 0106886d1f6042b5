"""Cheating agents, written as a hostile bot author would, with the public ``define``: the
techniques of the sealing review (an independent review, not in this repository) against the
live state.

Each *reader* lets the hidden next card decide its move once it has found the live state (No
Thanks!: take iff the next face-down card is odd; Gift of Tulips: the highest legal action iff
the next card of the draw pile is an odd type, else the lowest). It checks what it found
against its own observation first (the public slots, and the hidden ones for consistency:
the face-up card at its position in the deck, the cards left), so garbage is never taken for
a state; finding nothing, it plays its *blind twin*: a coin flip from its own stream. So a
reader that sees nothing plays exactly the games of ``*_blind``.

==============  ===========================================================================
technique       how it looks for the live state
==============  ===========================================================================
``strided``     ``np.lib.stride_tricks.as_strided``: a view running down from its copy
``pointer``     ``giftsim.contract.address`` at a negative index, and ``numba.carray``
``objmode``     a ``numba.objmode`` block walking the thread's Python frames for a state
``frames``      plain Python: ``sys._getframe`` walking the caller frames for a state
``seeds``       a search over small root seeds and game indices at secret 0 for the game
                whose key gives its stream's word, then the deal of that game
==============  ===========================================================================

*Writers* (``strided_writer``, ``pointer_writer``) play their honest twin's rule (No Thanks!:
take once 5 chips lie on the card; Tulips: the lowest legal action) and write 50 chips and an
empty hand (Tulips: 50 keeping points) into every live state they find.

Names: ``nt_<technique>`` for No Thanks!, ``tu_<technique>`` for Gift of Tulips.
"""

import sys
import threading

import numba
import numpy as np
from numba import carray, njit

from agents.registry import define
from geschenkt_sim import state as nt
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.rules import Rules as NtRules
from giftsim.contract import address
from giftsim.rng import agent_stream, game_key, next_below
from tulips_sim import state as tu
from tulips_sim.rules import Rules as TuRules

WINDOW = 16384  # int64 words scanned below the copy (128 KiB)
SEEDS, INDICES = 4, 4096  # the seed search's range: small seeds and indices, at secret 0
NT_RULES = np.stack([NtRules(n_players=n).to_array() for n in range(3, 8)])
TU_RULES = np.stack([TuRules(n_players=n).to_array() for n in range(2, 7)])


# ---- No Thanks! -----------------------------------------------------------------------


@njit(cache=True)
def nt_next(s, o):
    """The next face-down card if ``s`` (a candidate state) is consistent with the
    observation ``o``; -1 if not, -2 if it is but no card is left."""
    for slot in (nt.N_PLAYERS, nt.CARD, nt.POT, nt.CARDS_LEFT, nt.N_DECISIONS, nt.UNSEEN):
        if s[slot] != o[slot]:
            return -1
    pos, cards = s[nt.POS], s[nt.N_CARDS]
    if pos < 0 or cards > 33 or pos >= cards or cards - pos - 1 != o[nt.CARDS_LEFT]:
        return -1
    if s[nt.DECK + pos] != o[nt.CARD]:
        return -1
    return s[nt.DECK + pos + 1] if pos + 1 < cards else -2


@njit(cache=True)
def nt_act(obs, rng, card):
    """Take iff the next card is odd; a coin flip when it is unknown."""
    if obs[nt.CHIPS + obs[nt.SEAT]] == 0:
        return TAKE
    if card == -1:
        return TAKE if next_below(rng, 2) == 1 else PASS
    return TAKE if card % 2 == 1 else PASS


@njit(cache=True)
def nt_honest_rule(obs):
    broke = obs[nt.CHIPS + obs[nt.SEAT]] == 0
    return TAKE if broke or obs[nt.POT] >= 5 else PASS


@njit(cache=True)
def nt_scan(words, base, obs, write):
    """Scan ``words`` for a state below the copy (``words[base + d]`` is the word ``d`` words
    from the copy's start); the next card (-1: nothing found), writing 50 chips and an empty
    hand into what it found if ``write``."""
    size = nt.STATE_SIZE
    for d in range(-base, -size):
        if words[base + d] != obs[0] or words[base + d + nt.CARD] != obs[nt.CARD]:
            continue
        card = nt_next(words[base + d : base + d + size], obs)
        if card != -1:
            if write:
                seat = obs[nt.SEAT]
                words[base + d + nt.CHIPS + seat] = 50
                words[base + d + nt.HANDS + seat] = 0
            return card
    return -1


def nt_blind(obs, params, rng):
    return nt_act(obs, rng, -1)


def nt_honest(obs, params, rng):
    return nt_honest_rule(obs)


def nt_strided(obs, params, rng):
    down = np.lib.stride_tricks.as_strided(obs, shape=(WINDOW,), strides=(-8,))
    return nt_act(obs, rng, nt_scan(down[::-1], WINDOW - 1, obs, False))


def nt_pointer(obs, params, rng):
    words = carray(address(obs, -WINDOW), (WINDOW,))
    return nt_act(obs, rng, nt_scan(words, WINDOW, obs, False))


def nt_strided_writer(obs, params, rng):
    down = np.lib.stride_tricks.as_strided(obs, shape=(WINDOW,), strides=(-8,))
    nt_scan(down[::-1], WINDOW - 1, obs, True)
    return nt_honest_rule(obs)


def nt_pointer_writer(obs, params, rng):
    nt_scan(carray(address(obs, -WINDOW), (WINDOW,)), WINDOW, obs, True)
    return nt_honest_rule(obs)


@njit(cache=True)
def nt_seek(obs, word):
    """The seed search: the next card of the game whose agent stream at secret 0 starts with
    ``word`` (the stream's first word, before the agent draws from it), or -1."""
    seat, n = obs[nt.SEAT], obs[nt.N_PLAYERS]
    state = np.zeros(nt.STATE_SIZE, np.int64)
    for seed in range(SEEDS):
        for index in range(INDICES):
            key = game_key(np.uint64(seed), index)
            if agent_stream(key, np.uint64(0), seat) == word:
                nt.deal_keyed(NT_RULES[n - 3], key, obs[nt.FIRST], state)
                pos = state[nt.N_CARDS] - obs[nt.CARDS_LEFT] - 1
                if pos >= 0 and state[nt.DECK + pos] == obs[nt.CARD]:
                    return state[nt.DECK + pos + 1] if obs[nt.CARDS_LEFT] > 0 else -2
    return -1


def nt_seeds(obs, params, rng):
    return nt_act(obs, rng, nt_seek(obs, rng[0]))


def frames_state(obs, size, check):
    """A live state found in the Python frames of this thread (plain Python): the next card
    by ``check``, or -1."""
    frame = sys._current_frames()[threading.get_ident()]
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if isinstance(value, np.ndarray) and value.dtype == np.int64 and value.size == size:
                found = check(value, obs)
                if found != -1:
                    return found
        frame = frame.f_back
    return -1


def nt_objmode(obs, params, rng):
    with numba.objmode(card="int64"):
        card = frames_state(obs, nt.STATE_SIZE, nt_next)
    return nt_act(obs, rng, card)


def nt_frames(obs, params, rng):
    return int(nt_act(obs, rng, frames_state(obs, nt.STATE_SIZE, nt_next)))


# ---- Gift of Tulips -------------------------------------------------------------------


@njit(cache=True)
def tu_next(s, o):
    """The next card of the draw pile if ``s`` is consistent with ``o``; -1 if not, -2 if it
    is but the pile is empty."""
    for slot in (tu.N_PLAYERS, tu.PHASE, tu.DECK_LEFT, tu.N_DECISIONS, tu.LEGAL, tu.DRAWN):
        if s[slot] != o[slot]:
            return -1
    top, cards = s[tu.TOP], s[tu.DECK_N]
    if top < 0 or cards > 192 or top > cards or cards - top != o[tu.DECK_LEFT]:
        return -1
    for i in range(cards):
        if s[tu.DECK + i] < 0 or s[tu.DECK + i] > 11:
            return -1
    return s[tu.DECK + top] if top < cards else -2


@njit(cache=True)
def tu_act(obs, rng, card):
    """The highest legal action iff the next card is an odd type, else the lowest; a coin
    flip between the two when it is unknown."""
    legal = obs[tu.LEGAL]
    low, high = -1, -1
    for action in range(63):
        if (legal >> action) & 1:
            high = action
            if low < 0:
                low = action
    if card == -1:
        return high if next_below(rng, 2) == 1 else low
    return high if card % 2 == 1 else low


@njit(cache=True)
def tu_lowest(obs):
    legal = obs[tu.LEGAL]
    for action in range(63):
        if (legal >> action) & 1:
            return action
    return 0


@njit(cache=True)
def tu_scan(words, base, obs, write):
    """As ``nt_scan``, for a Tulips state; a writer adds 50 keeping points to its seat."""
    size = tu.STATE_SIZE
    for d in range(-base, -size):
        if words[base + d] != obs[0] or words[base + d + tu.LEGAL] != obs[tu.LEGAL]:
            continue
        card = tu_next(words[base + d : base + d + size], obs)
        if card != -1:
            if write:
                words[base + d + tu.KEEP_POINTS + obs[tu.SEAT]] += 50
            return card
    return -1


def tu_blind(obs, params, rng):
    return tu_act(obs, rng, -1)


def tu_honest(obs, params, rng):
    return tu_lowest(obs)


def tu_strided(obs, params, rng):
    down = np.lib.stride_tricks.as_strided(obs, shape=(WINDOW,), strides=(-8,))
    return tu_act(obs, rng, tu_scan(down[::-1], WINDOW - 1, obs, False))


def tu_pointer(obs, params, rng):
    words = carray(address(obs, -WINDOW), (WINDOW,))
    return tu_act(obs, rng, tu_scan(words, WINDOW, obs, False))


def tu_strided_writer(obs, params, rng):
    down = np.lib.stride_tricks.as_strided(obs, shape=(WINDOW,), strides=(-8,))
    tu_scan(down[::-1], WINDOW - 1, obs, True)
    return tu_lowest(obs)


def tu_pointer_writer(obs, params, rng):
    tu_scan(carray(address(obs, -WINDOW), (WINDOW,)), WINDOW, obs, True)
    return tu_lowest(obs)


@njit(cache=True)
def tu_seek(obs, word):
    """The Tulips seed search (see ``nt_seek``)."""
    seat, n = obs[tu.SEAT], obs[tu.N_PLAYERS]
    state = np.zeros(tu.STATE_SIZE, np.int64)
    for seed in range(SEEDS):
        for index in range(INDICES):
            key = game_key(np.uint64(seed), index)
            if agent_stream(key, np.uint64(0), seat) == word:
                tu.deal_keyed(TU_RULES[n - 2], key, obs[tu.FIRST], state)
                top = state[tu.DECK_N] - obs[tu.DECK_LEFT]
                return state[tu.DECK + top] if obs[tu.DECK_LEFT] > 0 else -2
    return -1


def tu_seeds(obs, params, rng):
    return tu_act(obs, rng, tu_seek(obs, rng[0]))


def tu_objmode(obs, params, rng):
    with numba.objmode(card="int64"):
        card = frames_state(obs, tu.STATE_SIZE, tu_next)
    return tu_act(obs, rng, card)


def tu_frames(obs, params, rng):
    return int(tu_act(obs, rng, frames_state(obs, tu.STATE_SIZE, tu_next)))


READERS = ("strided", "pointer", "objmode", "frames", "seeds")
WRITERS = ("strided_writer", "pointer_writer")
for prefix, game in (("nt", "geschenkt"), ("tu", "tulips")):
    for technique in (*READERS, *WRITERS, "blind", "honest"):
        name = f"{prefix}_{technique}"
        define(game, name, globals()[name], compiled=technique != "frames")

"""The No Thanks! observation as a float32 tensor for learning agents, and the legal mask.

Built from the observation alone (``engine.observe``), so it holds only what the seat may know.
Seats are in turn order starting with the observing seat (relative seat ``r`` is seat
``(seat + r) % n``), so one network serves every seat. ``R`` is the number of card numbers in
play (``highest_card - lowest_card + 1``, 33 by default) and card ``c`` is index
``c - lowest_card``. Length ``2 R + 2 + n (R + 3)``: 212 for 4 players by default.

==============  ==========  ==================================================================
block           size        meaning
==============  ==========  ==================================================================
``card``        R           one-hot: the face-up card (all 0 once the game is over)
``pot``         1           chips on the face-up card
``cards_left``  1           face-down cards still in the stack
``unseen``      R           1 for each card neither taken nor face up (the stack and the box)
``chips``       n           chips of each relative seat; -1 where the rules hide them
``hands``       n * R       1 for each card in each relative seat's hand
``turn``        n           one-hot: the relative seat to act
``position``    n           one-hot: the observing seat's place in the turn order (0: first)
==============  ==========  ==================================================================
"""

import numpy as np
from numba import njit

from geschenkt_sim.engine import (
    HIDDEN_CHIPS,
    O_CARD,
    O_CARDS_LEFT,
    O_CHIPS,
    O_FIRST,
    O_HANDS,
    O_HIGHEST,
    O_LOWEST,
    O_N_PLAYERS,
    O_POT,
    O_SEAT,
    O_TURN,
    O_UNSEEN,
)

BLOCKS = ("card", "pot", "cards_left", "unseen", "chips", "hands", "turn", "position")


def tensor_size(rules) -> int:
    """Length of the tensor under ``rules``."""
    cards, n = rules.highest_card - rules.lowest_card + 1, rules.n_players
    return 2 * cards + 2 + n * (cards + 3)


def tensor_bounds(rules) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest value of every entry (for an environment's observation space)."""
    size, cards, n = tensor_size(rules), rules.highest_card - rules.lowest_card + 1, rules.n_players
    low, high = np.zeros(size, np.float32), np.ones(size, np.float32)
    chips = n * rules.chips
    high[cards] = chips  # pot
    high[cards + 1] = cards  # cards left
    first = 2 * cards + 2
    low[first : first + n] = HIDDEN_CHIPS
    high[first : first + n] = chips
    return low, high


@njit(cache=True)
def encode(obs, out):
    """Write the tensor of observation ``obs`` into ``out`` (float32, ``tensor_size`` long)."""
    lowest, cards = obs[O_LOWEST], obs[O_HIGHEST] - obs[O_LOWEST] + 1
    n, me = obs[O_N_PLAYERS], obs[O_SEAT]
    out[:] = 0.0
    if obs[O_CARD] >= 0:
        out[obs[O_CARD] - lowest] = 1.0
    out[cards] = obs[O_POT]
    out[cards + 1] = obs[O_CARDS_LEFT]
    _bits(obs[O_UNSEEN], lowest, cards, out, cards + 2)
    chips, hands = 2 * cards + 2, 2 * cards + 2 + n
    for r in range(n):
        seat = (me + r) % n
        out[chips + r] = obs[O_CHIPS + seat]
        _bits(obs[O_HANDS + seat], lowest, cards, out, hands + r * cards)
    turn = hands + n * cards
    out[turn + (obs[O_TURN] - me) % n] = 1.0
    out[turn + n + (me - obs[O_FIRST]) % n] = 1.0


@njit(cache=True)
def _bits(mask, lowest, cards, out, at):
    for k in range(cards):
        out[at + k] = (mask >> (lowest + k)) & 1

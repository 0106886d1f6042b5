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

Ranges (``tensor_bounds``: each entry's true range under the rules; ``C`` is every chip of the
game, ``n`` times the chips per player, 44 for 4 players by default):

==============  ==================================================================
block           range
==============  ==================================================================
``card``        0..1; always 0 for a card the rules always remove (tactical: 10, 20, 30)
``pot``         0..C: every seat passes until none has a chip left
``cards_left``  0..cards played (24 by default): the whole stack before the first card is
                turned up (explicit chance, ``deal_open``); under it afterwards
``unseen``      0..1; always 1 for a card the rules always remove
``chips``       0..C: the seat that then takes the card has them all; the other seats'
                entries always -1 where the rules hide their chips
``hands``       0..1; always 0 for a card the rules always remove
``turn``        0..1
``position``    0..1
==============  ==================================================================
"""

import numpy as np
from numba import njit

from geschenkt_sim.engine import (
    HIDDEN_CHIPS,
)
from geschenkt_sim.state import (
    CARD,
    CARDS_LEFT,
    CHIPS,
    FIRST,
    HANDS,
    HIGHEST,
    LOWEST,
    N_PLAYERS,
    POT,
    SEAT,
    TURN,
    UNSEEN,
)
from giftsim.bits import lowest_bit

BLOCKS = ("card", "pot", "cards_left", "unseen", "chips", "hands", "turn", "position")


def tensor_size(rules) -> int:
    """Length of the tensor under ``rules``."""
    cards, n = rules.highest_card - rules.lowest_card + 1, rules.n_players
    return 2 * cards + 2 + n * (cards + 3)


def block_sizes(rules) -> list[tuple[str, int]]:
    """Each block of the layout and its length under ``rules``, in order."""
    cards, n = rules.highest_card - rules.lowest_card + 1, rules.n_players
    sizes = (cards, 1, 1, cards, n, n * cards, n, n)
    return list(zip(BLOCKS, sizes, strict=True))


def tensor_bounds(rules) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest value of every entry under ``rules`` (for an environment's
    observation space), each the entry's true range (module docstring, "Ranges")."""
    size, cards, n = tensor_size(rules), rules.highest_card - rules.lowest_card + 1, rules.n_players
    low, high = np.zeros(size, np.float32), np.ones(size, np.float32)
    chips = n * rules.chips  # every chip of the game: on one card, or in one seat's hands
    high[cards] = chips  # pot
    high[cards + 1] = rules.n_cards  # cards left: the whole stack before the first turn-up
    first = 2 * cards + 2  # the chips block
    high[first : first + n] = chips
    if not rules.chips_visible:  # the others' chips always read HIDDEN_CHIPS
        low[first + 1 : first + n] = high[first + 1 : first + n] = HIDDEN_CHIPS
    for c in rules.forced_removed:  # never face up or taken, always unseen
        k = c - rules.lowest_card
        high[k] = 0.0
        low[cards + 2 + k] = 1.0
        high[first + n + k : first + n + n * cards : cards] = 0.0
    return low, high


@njit(cache=True)
def encode(obs, out):
    """Write the tensor of observation ``obs`` into ``out`` (float32, ``tensor_size`` long)."""
    lowest, cards = obs[LOWEST], obs[HIGHEST] - obs[LOWEST] + 1
    n, me = obs[N_PLAYERS], obs[SEAT]
    out[:] = 0.0
    if obs[CARD] >= 0:
        out[obs[CARD] - lowest] = 1.0
    out[cards] = obs[POT]
    out[cards + 1] = obs[CARDS_LEFT]
    _bits(obs[UNSEEN], lowest, cards, out, cards + 2)
    chips, hands = 2 * cards + 2, 2 * cards + 2 + n
    for r in range(n):
        seat = (me + r) % n
        out[chips + r] = obs[CHIPS + seat]
        _bits(obs[HANDS + seat], lowest, cards, out, hands + r * cards)
    turn = hands + n * cards
    out[turn + (obs[TURN] - me) % n] = 1.0
    out[turn + n + (me - obs[FIRST]) % n] = 1.0


@njit(cache=True)
def _bits(mask, lowest, cards, out, at):
    """1.0 at ``out[at + k]`` for each card ``lowest + k`` in ``mask`` (``out`` is zeroed):
    only the set bits are visited, a few per mask, not all ``cards``."""
    held = (mask >> lowest) & ((np.int64(1) << cards) - 1)
    while held != 0:
        out[at + lowest_bit(held)] = 1.0
        held &= held - 1

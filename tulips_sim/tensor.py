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
"""

import numpy as np
from numba import njit

from tulips_sim.engine import (
    O_BOUQUET,
    O_DECK_LEFT,
    O_DRAWN,
    O_FACE_UP,
    O_FIRST,
    O_GIVE_POINTS,
    O_HAND,
    O_KEEP_POINTS,
    O_N_PLAYERS,
    O_OWN_SECRET,
    O_PHASE,
    O_RANK,
    O_SEAT,
    O_SECRET_SIZE,
    O_TOTALS,
    O_TURN,
    O_USED_KIND,
)
from tulips_sim.rules import MAX_DECK, N_RANKS, N_TYPES, N_VARIETIES

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
_BOUND = 4 * MAX_DECK  # above any count, festival total or seat's points


def tensor_size(rules) -> int:
    """Length of the tensor under ``rules``."""
    return _FIXED + _PER_SEAT * rules.n_players


def tensor_bounds(rules) -> tuple[np.ndarray, np.ndarray]:
    """Lowest and highest value of every entry (for an environment's observation space): 0 and
    a bound above any count, total or points a deck allows."""
    size = tensor_size(rules)
    return np.zeros(size, np.float32), np.full(size, _BOUND, np.float32)


@njit(cache=True)
def encode(obs, out):
    """Write the tensor of observation ``obs`` into ``out`` (float32, ``tensor_size`` long)."""
    n, me = obs[O_N_PLAYERS], obs[O_SEAT]
    out[:] = 0.0
    out[obs[O_PHASE]] = 1.0
    if obs[O_USED_KIND] >= 0:
        out[4 + obs[O_USED_KIND]] = 1.0
    out[7] = obs[O_DECK_LEFT]
    out[8] = obs[O_SECRET_SIZE]
    at = 9
    for v in range(N_VARIETIES):
        out[at + v * N_RANKS + obs[O_RANK + v] - 1] = 1.0
        out[at + N_VARIETIES * N_RANKS + v] = obs[O_TOTALS + v]
    at += N_VARIETIES * N_RANKS + N_VARIETIES
    for t in range(N_TYPES):
        out[at + t] = obs[O_FACE_UP + t]
        out[at + 4 * N_TYPES + t] = obs[O_OWN_SECRET + t]
    _one_hot(obs[O_DRAWN], out, at + N_TYPES)
    _one_hot(obs[O_HAND], out, at + 2 * N_TYPES)
    _one_hot(obs[O_HAND + 1], out, at + 3 * N_TYPES)
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
            out[at + r * N_TYPES + t] = obs[O_BOUQUET + seat * N_TYPES + t]
        points = at + n * N_TYPES + 2 * r
        out[points] = obs[O_GIVE_POINTS + seat]
        out[points + 1] = obs[O_KEEP_POINTS + seat]
    turn = at + n * (N_TYPES + 2)
    if obs[O_TURN] >= 0:
        out[turn + (obs[O_TURN] - me) % n] = 1.0
    out[turn + n + (me - obs[O_FIRST]) % n] = 1.0

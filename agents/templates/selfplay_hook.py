"""The self-play recorder, a hook of the game loop: what a learned evaluator trains on
(``giftsim train``).

At every decision an agent is asked, the acting seat's *afterstate* (``after``: what it knows
right after its action, before the next chance event) is turned into its features
(``features``) and kept as one row, with the game and the seat it belongs to, so that the
trainer can pair it with that seat's share of the win. With probability ``explore`` the
recorder overrides any seat's choice with a uniformly random legal action (from the game's
``EXPLORE_STREAM``, which no agent sees), so that every action's afterstates are seen.

The hook value is ``(explore, per_game, feats, owners, seats, rows, chance)``: ``per_game`` the
most decisions a match can have (the loop stops before one that might not fit in ``feats``),
``seats`` the bit mask of the seats whose decisions are kept, ``rows`` (one int) the rows
written so far, ``chance`` (one word) the explore stream of the game being played. An owner row
is (game in the block, seat, decisions made before this one).
"""

import numpy as np
from numba import njit

from giftsim.bits import lowest_bit, popcount
from giftsim.rng import EXPLORE_STREAM, next_below, next_float, stream_from

from .game import DECISIONS, OBS_SIZE, STATE_SIZE, after, features, n_features, observe
from .no_hook import acted, ended  # noqa: F401  (the loop imports them from here)

GAME_COLUMN, SEAT_COLUMN, STAGE_COLUMN = 0, 1, 2  # an owner row: game in block, seat, decision
EXPLORE, PER_GAME, FEATS, OWNERS, SEATS, ROWS, CHANCE = range(7)  # slots of the hook value


def feature_width(players: int) -> int:
    """Columns of a recorded row at ``players`` seats."""
    return int(n_features(players))


@njit(cache=True)
def has_room(hook):
    return hook[ROWS][0] + hook[PER_GAME] <= hook[FEATS].shape[0]


@njit(cache=True)
def started(hook, state, key):
    hook[CHANCE][0] = stream_from(key, EXPLORE_STREAM)


@njit(cache=True)
def decided(hook, state, seat, action, mask, g):
    """Explore (a random legal action instead, with probability ``explore``), and record the
    afterstate of the action played when ``seat`` is kept."""
    chance = hook[CHANCE]
    if hook[EXPLORE] > 0.0 and next_float(chance) < hook[EXPLORE]:
        action = _random_legal(mask, chance)
    if (hook[SEATS] >> seat) & 1:
        _record(state, seat, action, chance, hook, g)
    return action


@njit(cache=True)
def _random_legal(mask, chance):
    for _ in range(next_below(chance, popcount(mask))):
        mask &= mask - 1
    return lowest_bit(mask)


@njit(cache=True)
def _record(state, seat, action, chance, hook, g):
    """Append the acting seat's afterstate features of ``action`` as the next row."""
    feats, owners, rows = hook[FEATS], hook[OWNERS], hook[ROWS]
    obs, after_obs = np.empty(OBS_SIZE, np.int64), np.empty(OBS_SIZE, np.int64)
    world = np.empty(STATE_SIZE, np.int64)
    x = np.empty(feats.shape[1], np.float64)
    observe(state, seat, obs)
    after(obs, action, chance, world, after_obs)
    features(after_obs, x)
    row = rows[0]
    feats[row] = x
    owners[row, GAME_COLUMN], owners[row, SEAT_COLUMN] = g, seat
    owners[row, STAGE_COLUMN] = state[DECISIONS]
    rows[0] = row + 1

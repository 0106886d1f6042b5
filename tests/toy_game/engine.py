"""Hidden Pile's state, deal, verbs and scoring: the compiled kernels of ``giftsim.game``.

State layout (``STATE_SIZE`` int64 slots). The first ``OBS_SIZE`` slots are the observation of
seat ``SEAT``, ``OWN_SECRET`` filled for it; the rest is hidden from every seat.

=============  ===============  ===========================================================
slot           size             meaning
=============  ===============  ===========================================================
``N_PLAYERS``  1                seats in this game
``TURN``       1                seat to act
``SEAT``       1                the seat being shown the state
``FIRST``      1                seat that acted first
``N_DECISIONS`` 1               decisions made so far
``TAKEN``      1                stones taken so far
``LOSER``      1                seat that emptied the pile (-1 while the game runs)
``MIN_PILE``   1                rules: smallest possible pile
``BIG_LEFT``   ``MAX_PLAYERS``  takes of three stones each seat has left
``OWN_SECRET`` 1                private: the observing seat's secret
``PILE``       1                hidden: stones in the pile at the deal
``SECRETS``    ``MAX_PLAYERS``  hidden: every seat's secret
``CHANCE``     1                hidden: the chance event pending (0 unless ``deal_open``)
``STEP``       1                hidden, explicit chance: secrets dealt so far
``LARGEST``    1                hidden, explicit chance: rules: largest possible pile
``DEALT``      2 + ``MAX_PLAYERS``  hidden, explicit chance: the deal's pile, first seat and
                                secrets (the outcomes ``next_outcome`` gives)
=============  ===============  ===========================================================

Explicit chance (``deal_open``): the pile (seen by nobody), each seat's secret (seen by that
seat) and a drawn first seat (seen by all) are chance events, each outcome weight 1; play has
no chance, so ``apply_action`` is unchanged.
"""

import numpy as np
from numba import njit

from giftsim.bits import share_out
from giftsim.rng import DEAL_STREAM, below_keyed, stream_from
from tests.toy_game.rules import (
    ACTION_NAMES,
    MAX_PILE,
    MAX_PLAYERS,
    N_SECRETS,
    R_BIG_TAKES,
    R_FIRST_PLAYER,
    R_MAX_PILE,
    R_MIN_PILE,
    R_N_PLAYERS,
    RANDOM_FIRST,
    TAKE3,
)

N_PLAYERS, TURN, SEAT, FIRST, N_DECISIONS, TAKEN, LOSER, MIN_PILE = range(8)
BIG_LEFT = 8
OWN_SECRET = BIG_LEFT + MAX_PLAYERS
OBS_SIZE = OWN_SECRET + 1
PILE = OBS_SIZE
SECRETS = PILE + 1
CHANCE = SECRETS + MAX_PLAYERS
STEP = CHANCE + 1
LARGEST = STEP + 1
DEALT = LARGEST + 1  # pile, first seat, secrets
STATE_SIZE = DEALT + 2 + MAX_PLAYERS

NO_CHANCE, PILE_SIZE, SECRET, FIRST_SEAT = range(4)  # values of CHANCE
KINDS = ("pile", "secret", "first seat")
MAX_OUTCOMES = MAX_PILE


@njit
def deal_keyed(rules_vec, game, first_player, state):
    """Deal the pile, the secrets and (if ``RANDOM_FIRST``) the first seat from key ``game``."""
    key = stream_from(game, DEAL_STREAM)
    low, n = rules_vec[R_MIN_PILE], rules_vec[R_N_PLAYERS]
    pile, key = below_keyed(key, rules_vec[R_MAX_PILE] - low + 1)
    secrets = np.zeros(n, np.int64)
    for p in range(n):
        secrets[p], key = below_keyed(key, N_SECRETS)
    if first_player == RANDOM_FIRST:
        first_player = rules_vec[R_FIRST_PLAYER]
    if first_player == RANDOM_FIRST:
        first_player, key = below_keyed(key, n)
    set_deal(rules_vec, low + pile, secrets, first_player, state)


@njit
def set_deal(rules_vec, pile, secrets, first_player, state):
    """Fill ``state`` with the start of a game with a given pile, secrets and first seat."""
    state[:] = 0
    state[N_PLAYERS] = rules_vec[R_N_PLAYERS]
    state[TURN] = state[SEAT] = state[FIRST] = first_player
    state[LOSER] = -1
    state[MIN_PILE] = rules_vec[R_MIN_PILE]
    state[PILE] = pile
    for p in range(secrets.shape[0]):
        state[BIG_LEFT + p] = rules_vec[R_BIG_TAKES]
        state[SECRETS + p] = secrets[p]


@njit
def deal_open(rules_vec, game, first_player, state):
    """``deal_keyed`` with explicit chance: the same deal, each part of it a chance event."""
    deal_keyed(rules_vec, game, first_player, state)
    state[DEALT], state[DEALT + 1] = state[PILE], state[FIRST]
    for p in range(state[N_PLAYERS]):
        state[DEALT + 2 + p] = state[SECRETS + p]
        state[SECRETS + p] = 0
    state[LARGEST], state[PILE], state[STEP] = rules_vec[R_MAX_PILE], 0, 0
    state[CHANCE] = PILE_SIZE
    if first_player == RANDOM_FIRST and rules_vec[R_FIRST_PLAYER] == RANDOM_FIRST:
        state[TURN] = state[SEAT] = state[FIRST] = -1


@njit
def chance_pending(state):
    return state[CHANCE]


@njit
def chance_outcomes(state, weights):
    """Weight 1 for each pile size (outcome: stones above the smallest), secret or seat."""
    kind = state[CHANCE]
    if kind == PILE_SIZE:
        count = state[LARGEST] - state[MIN_PILE] + 1
    else:
        count = N_SECRETS if kind == SECRET else state[N_PLAYERS]
    for k in range(count):
        weights[k] = 1
    return count


@njit
def next_outcome(state):
    kind = state[CHANCE]
    if kind == PILE_SIZE:
        return state[DEALT] - state[MIN_PILE]
    return state[DEALT + 2 + state[STEP]] if kind == SECRET else state[DEALT + 1]


@njit
def chance_observers(state):
    """Nobody sees the pile, a seat its own secret, everyone the first seat."""
    kind = state[CHANCE]
    if kind == PILE_SIZE:
        return np.int64(0)
    if kind == SECRET:
        return np.int64(1) << state[STEP]
    return (np.int64(1) << state[N_PLAYERS]) - 1


@njit
def apply_chance(state, outcome):
    kind = state[CHANCE]
    if kind == PILE_SIZE:
        state[PILE] = state[MIN_PILE] + outcome
        state[CHANCE] = SECRET
    elif kind == SECRET:
        state[SECRETS + state[STEP]] = outcome
        state[STEP] += 1
        if state[STEP] == state[N_PLAYERS]:
            state[CHANCE] = FIRST_SEAT if state[FIRST] < 0 else NO_CHANCE
    else:
        state[TURN] = state[SEAT] = state[FIRST] = outcome
        state[CHANCE] = NO_CHANCE


@njit
def public_action(state, action):
    """Every seat sees every take."""
    return action


def chance_text(kind: int, outcome: int) -> str:
    return f"{KINDS[kind - 1]} {outcome}"


def public_text(code: int) -> str:
    return ACTION_NAMES[code]


def chance_events(rules) -> int:
    return rules.n_players + 2


@njit
def begin(state):
    """Open the game after the deal (nothing to do)."""


@njit
def is_over(state):
    return state[LOSER] >= 0


@njit
def legal_mask(state):
    """Take one or two always, three while the seat has big takes left (0 once over)."""
    if is_over(state):
        return np.int64(0)
    return np.int64(3) | (np.int64(state[BIG_LEFT + state[TURN]] > 0) << TAKE3)


@njit
def apply_action(state, action):
    """The seat to act takes ``action + 1`` stones; emptying the pile loses."""
    seat = state[TURN]
    state[N_DECISIONS] += 1
    state[TAKEN] += action + 1
    if action == TAKE3:
        state[BIG_LEFT + seat] -= 1
    if state[TAKEN] >= state[PILE]:
        state[LOSER] = seat
    else:
        state[TURN] = (seat + 1) % state[N_PLAYERS]


@njit
def show_turn(state):
    """Never: a seat's secret lies past the public slots, so ``observe`` writes every view."""
    return False


@njit
def observe(state, seat, obs):
    """Write what ``seat`` may know into ``obs``: the public slots and its own secret."""
    for i in range(OBS_SIZE):
        obs[i] = state[i]
    obs[SEAT] = seat
    obs[OWN_SECRET] = state[SECRETS + seat]


@njit
def scores(state, out):
    """0 for the seat that emptied the pile, 1 + secret for every other seat."""
    for p in range(state[N_PLAYERS]):
        out[p] = 0 if p == state[LOSER] else 1 + state[SECRETS + p]


@njit
def winner_mask(state):
    """Bit mask of the seats with the highest score."""
    out = np.zeros(MAX_PLAYERS, np.int64)
    scores(state, out)
    best = out[: state[N_PLAYERS]].max()
    mask = np.int64(0)
    for p in range(state[N_PLAYERS]):
        if out[p] == best:
            mask |= np.int64(1) << p
    return mask


@njit
def rewards(state, out):
    """Each seat's share of the win: ties split, summing to 1."""
    share_out(winner_mask(state), state[N_PLAYERS], out)


@njit
def result_row(state, n, rounds, r, out, g):
    """Row ``g``: scores per seat, first seat, decisions, winners' bit mask (no matches: the
    round arguments are 1 and 0)."""
    scores(state, out[g])
    out[g, n] = state[FIRST]
    out[g, n + 1] = state[N_DECISIONS]
    out[g, n + 2] = winner_mask(state)


def finish_key(blocks: np.ndarray) -> np.ndarray:
    """Each seat's place in the finishing order from its result blocks: the score, higher
    better (equal keys tie, as in ``winner_mask``)."""
    return blocks[:, 0]


@njit
def encode(obs, out):
    """The tensor for learning agents: the observation's slots as float32."""
    for i in range(OBS_SIZE):
        out[i] = obs[i]


def tensor_size(rules) -> int:
    return OBS_SIZE


def tensor_bounds(rules):
    """Every slot is a count, a seat, a flag or -1 (none yet): well inside [-1, 100]."""
    return np.full(OBS_SIZE, -1, np.float32), np.full(OBS_SIZE, 100, np.float32)

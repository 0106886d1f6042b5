"""Self-play games that record what a learned evaluator trains on (``giftsim train``).

The game loop of ``loop.py`` with a recorder: at every decision an agent is asked, the acting
seat's *afterstate* (``learned.after``: what it knows right after its action, before the next
chance event) is turned into its features (``learned.features``) and kept as one row, with the
game and the seat it belongs to, so that the trainer can pair it with that seat's share of the
win. With probability ``explore`` the recorder overrides any seat's choice with a uniformly
random legal action (from the game's ``EXPLORE_STREAM``, which no agent sees), so that every
action's afterstates are seen. The text is the same in every game's agents
(``agents/tulips/selfplay.py``); only the imports differ.
"""

import numpy as np
from numba import njit

from agents.common.block import recorded_block
from agents.geschenkt.learned import after, features, n_features
from geschenkt_sim.engine import (
    OBS_SIZE,
    apply_action,
    begin,
    is_over,
    legal_mask,
    observe,
    show_turn,
)
from geschenkt_sim.game import GAME
from geschenkt_sim.rules import MAX_PLAYERS, R_N_PLAYERS
from geschenkt_sim.scoring import result_row
from geschenkt_sim.state import N_DECISIONS, STATE_SIZE, TURN, deal_keyed
from giftsim.bits import lowest_bit, popcount
from giftsim.contract import MAX_PARAMS, SCRATCH_WORK, address, first_seat
from giftsim.rng import EXPLORE_STREAM, agent_stream, game_key, next_below, next_float, stream_from

GAME_COLUMN, SEAT_COLUMN, STAGE_COLUMN = 0, 1, 2  # an owner row: game in block, seat, decision


@njit(cache=True)
def _random_legal(mask, chance):
    for _ in range(next_below(chance, popcount(mask))):
        mask &= mask - 1
    return lowest_bit(mask)


@njit(cache=True)
def _record(state, seat, action, chance, rows, feats, owners, g):
    """Append the acting seat's afterstate features of ``action`` as row ``rows``."""
    obs, after_obs = np.empty(OBS_SIZE, np.int64), np.empty(OBS_SIZE, np.int64)
    world = np.empty(STATE_SIZE, np.int64)
    x = np.empty(feats.shape[1], np.float64)
    observe(state, seat, obs)
    after(obs, action, chance, world, after_obs)
    features(after_obs, x)
    feats[rows] = x
    owners[rows, GAME_COLUMN], owners[rows, SEAT_COLUMN] = g, seat
    owners[rows, STAGE_COLUMN] = state[N_DECISIONS]


@njit(cache=True)
def play_recorded(rules_vec, root_seed, secret, first_index, policy, entries, params, out, rec):
    """Play games from ``first_index`` on as ``loop.play_games`` does, recording afterstates
    into ``rec = (explore, per_game, feats, owners, seats)`` (``seats``: the bit mask of the
    seats whose decisions are kept); stop before a game that might not fit in ``feats``
    (``per_game``: the most decisions a game can have). Returns ``(bad, games,
    rows)``: ``bad`` -1 or the game (in this block) where an agent chose an illegal action,
    the games played and the rows recorded."""
    explore, per_game, feats, owners, seats = rec
    n = rules_vec[R_N_PLAYERS]
    state = np.zeros(STATE_SIZE, np.int64)
    obs = np.zeros(OBS_SIZE, np.int64)
    shown, live = address(obs, 0), address(state, 0)
    stride = OBS_SIZE + STATE_SIZE + SCRATCH_WORK
    scratch = np.zeros(MAX_PLAYERS * stride, np.int64)
    rngs = np.zeros(MAX_PLAYERS, np.uint64)
    chance = np.zeros(1, np.uint64)
    flat_params = params.ravel()
    rows = 0
    for g in range(out.shape[0]):
        if rows + per_game > feats.shape[0]:
            return -1, g, rows
        game_index = first_index + g
        key = game_key(root_seed, game_index)
        deal_keyed(rules_vec, key, first_seat(policy, game_index, n), state)
        begin(state)
        for s in range(n):
            rngs[s] = agent_stream(key, secret, s)
        chance[0] = stream_from(key, EXPLORE_STREAM)
        while not is_over(state):
            mask = legal_mask(state)
            if mask & (mask - 1) == 0:
                action = lowest_bit(mask)
            else:
                seat, view = state[TURN], live
                if not show_turn(state):
                    observe(state, seat, obs)
                    view = shown
                row, own = address(flat_params, seat * MAX_PARAMS), seat * stride
                action = entries[seat](view, row, address(rngs, seat), address(scratch, own))
                if action < 0 or action > 62 or not (mask >> action) & 1:
                    return g, g, rows
                if explore > 0.0 and next_float(chance) < explore:
                    action = _random_legal(mask, chance)
                if (seats >> seat) & 1:
                    _record(state, seat, action, chance, rows, feats, owners, g)
                    rows += 1
            apply_action(state, action)
        result_row(state, n, 1, 0, out, g)
    return -1, out.shape[0], rows


def record_block(rules, agents, root_seed, first_index, n_games, explore, seats=-1, secret=0):
    """Play games ``first_index ..`` of ``root_seed`` recording the afterstates of the seats
    in the bit mask ``seats`` (-1: all); returns ``(rows, feats, owners)``: result rows as
    ``play_block``'s, float32 features and int64 owners (game index, seat, decision number)
    per recorded decision."""
    width = n_features(rules.n_players)
    return recorded_block(
        GAME,
        play_recorded,
        width,
        rules,
        agents,
        root_seed,
        first_index,
        n_games,
        (explore, seats),
        secret,
    )

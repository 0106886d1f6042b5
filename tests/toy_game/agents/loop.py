"""Whole Hidden Pile games, every agent's decisions included, in one compiled loop: the text of
``agents/geschenkt/loop.py`` with this game's verbs (not cached on disk: ``tests/`` is outside
the cache key)."""

import numpy as np
from numba import njit

from agents.common.block import run_block
from giftsim.bits import lowest_bit
from giftsim.contract import MAX_PARAMS, SCRATCH_WORK, address, first_seat
from giftsim.rng import agent_stream, game_key
from tests.toy_game.engine import (
    OBS_SIZE,
    STATE_SIZE,
    TURN,
    apply_action,
    begin,
    deal_keyed,
    is_over,
    legal_mask,
    observe,
    result_row,
    show_turn,
)
from tests.toy_game.game import GAME
from tests.toy_game.rules import MAX_PLAYERS, R_N_PLAYERS


@njit
def play_games(rules_vec, root_seed, secret, first_index, policy, entries, params, out):
    """Play ``out.shape[0]`` games from ``first_index`` on; return -1, or the index (in this
    block) of a game where an agent chose an illegal action. ``out`` rows: ``result_row``."""
    n = rules_vec[R_N_PLAYERS]
    state = np.zeros(STATE_SIZE, np.int64)
    obs = np.zeros(OBS_SIZE, np.int64)
    shown, live = address(obs, 0), address(state, 0)
    stride = (
        OBS_SIZE + STATE_SIZE + SCRATCH_WORK
    )  # a seat's scratch row: a user agent's copy, then zeros
    scratch = np.zeros(MAX_PLAYERS * stride, np.int64)
    rngs = np.zeros(MAX_PLAYERS, np.uint64)
    flat_params = params.ravel()
    for g in range(out.shape[0]):
        game_index = first_index + g
        key = game_key(root_seed, game_index)
        deal_keyed(rules_vec, key, first_seat(policy, game_index, n), state)
        begin(state)
        for s in range(n):
            rngs[s] = agent_stream(key, secret, s)
        while not is_over(state):
            mask = legal_mask(state)
            if mask & (mask - 1) == 0:  # one legal action: nobody is asked
                action = lowest_bit(mask)
            else:
                seat, view = state[TURN], live
                if not show_turn(state):
                    observe(state, seat, obs)
                    view = shown
                row, own = address(flat_params, seat * MAX_PARAMS), seat * stride
                action = entries[seat](view, row, address(rngs, seat), address(scratch, own))
                if action < 0 or action > 62 or not (mask >> action) & 1:
                    return g
            apply_action(state, action)
        result_row(state, n, 1, 0, out, g)
    return -1


def play_block(rules, agents, root_seed, first_index, n_games, first_player="rotate", secret=0):
    """Play games ``first_index .. first_index + n_games - 1`` of ``root_seed``, one agent per
    seat; int64 rows ``(n_games, n_players + 3)``: scores per seat, first player, decisions,
    winners.
    ``first_player``: ``"rotate"`` (game i starts at seat i mod n), ``"random"`` or a seat."""
    return run_block(
        GAME, play_games, rules, agents, root_seed, first_index, n_games, first_player, secret
    )

"""Whole Gift of Tulips games, every agent's decisions included, in one compiled loop.

As in ``agents/geschenkt/loop.py``: agents are called through their pointer entries, one per
seat, so the loop compiles once for any mix. The seat to act is shown the observation prefix
of the live state, whose private view the engine keeps filled for that seat.
"""

import numpy as np
from numba import njit

from agents.base import Agent
from agents.common.block import run_block
from giftsim.contract import MAX_PARAMS, address, first_seat
from giftsim.rng import AGENT_STREAM, game_key, stream_from
from tulips_sim.engine import apply_action, begin, is_legal, is_over
from tulips_sim.rules import MAX_PLAYERS, N_VARIETIES, R_N_PLAYERS, Rules
from tulips_sim.state import (
    BQ_COUNT,
    FIRST,
    GIVE_POINTS,
    KEEP_POINTS,
    MAJORITY_PTS,
    N_DECISIONS,
    STATE_SIZE,
    TURN,
    deal_keyed,
)

# Result columns per game, in blocks of n_players: score, give, keep, majority, bouquet cards;
# then the first player and the number of decisions.
BLOCKS = ("score", "give", "keep", "majority", "cards")


@njit(cache=True)
def _record(state, n, out, g):
    """Write a finished game's results into row ``g`` of ``out`` (layout ``BLOCKS``); the row
    is indexed in place, since a row view per game costs more than the game's bookkeeping."""
    for p in range(n):
        give, keep = state[GIVE_POINTS + p], state[KEEP_POINTS + p]
        majority = state[MAJORITY_PTS + p]
        cards = 0
        for v in range(N_VARIETIES):
            cards += state[BQ_COUNT + p * N_VARIETIES + v]
        out[g, p] = give + keep + majority
        out[g, n + p] = give
        out[g, 2 * n + p] = keep
        out[g, 3 * n + p] = majority
        out[g, 4 * n + p] = cards
    out[g, 5 * n] = state[FIRST]
    out[g, 5 * n + 1] = state[N_DECISIONS]


@njit(cache=True)
def _play(rules_vec, root_seed, first_index, policy, entries, params, out):
    """Play ``out.shape[0]`` games from ``first_index`` on; return -1, or the index (in this
    block) of a game where an agent chose an illegal action."""
    n = rules_vec[R_N_PLAYERS]
    state = np.zeros(STATE_SIZE, np.int64)
    obs = address(state, 0)
    rngs = np.zeros(MAX_PLAYERS, np.uint64)
    flat_params = params.ravel()
    for g in range(out.shape[0]):
        game_index = first_index + g
        key = game_key(root_seed, game_index)
        deal_keyed(rules_vec, key, first_seat(policy, game_index, n), state)
        begin(state)
        for s in range(n):
            rngs[s] = stream_from(key, AGENT_STREAM + s)
        while not is_over(state):
            seat = state[TURN]
            row = address(flat_params, seat * MAX_PARAMS)
            action = entries[seat](obs, row, address(rngs, seat))
            if not is_legal(state, action):
                return g
            apply_action(state, action)
        _record(state, n, out, g)
    return -1


def play_block(
    rules: Rules,
    agents: list[Agent],
    root_seed: int,
    first_index: int,
    n_games: int,
    first_player="rotate",
) -> np.ndarray:
    """Play games ``first_index .. first_index + n_games - 1`` of ``root_seed``, one agent per seat.

    Returns int64 ``(n_games, 5 * n_players + 2)`` laid out as ``BLOCKS``, then first player
    and decisions.
    """
    n = rules.n_players
    width = 5 * n + 2
    return run_block(
        _play, MAX_PLAYERS, width, rules, agents, root_seed, first_index, n_games, first_player
    )

"""Whole No Thanks! games, every agent's decisions included, in one compiled loop.

Agents are called through their pointer entries (``giftsim.contract``), one per seat in a tuple
of ``MAX_PLAYERS`` (padded), so the loop is compiled once, cached on disk, and never recompiled
for another pairing, seating or user-defined agent. With chips visible (the default) the seat
to act is shown the public prefix of the live state itself; with chips hidden, a masked copy.
"""

import numpy as np
from numba import njit

from agents.base import Agent
from agents.common.block import run_block
from geschenkt_sim.engine import OBS_SIZE, apply_action, is_forced, is_legal, is_over, observe
from geschenkt_sim.rules import MAX_PLAYERS, R_CHIPS_VISIBLE, R_N_PLAYERS, R_ROUNDS, TAKE, Rules
from geschenkt_sim.scoring import score_hand
from geschenkt_sim.state import (
    CHIPS,
    FIRST,
    HANDS,
    N_DECISIONS,
    SEAT,
    STATE_SIZE,
    TURN,
    deal_keyed,
)
from giftsim.contract import MAX_PARAMS, address, first_seat
from giftsim.rng import AGENT_STREAM, game_key, stream_from


@njit(cache=True)
def _play(rules_vec, root_seed, first_index, policy, entries, params, out):
    """Play ``out.shape[0]`` matches from ``first_index`` on; return -1, or the index (in this
    block) of a match where an agent chose an illegal action. A match of ``R`` rounds is the
    games ``m * R .. m * R + R - 1`` (one game when ``R`` is 1). ``out`` rows: total scores per
    seat, first player of the first round, decisions, then with ``R > 1`` each round's scores."""
    n = rules_vec[R_N_PLAYERS]
    rounds = rules_vec[R_ROUNDS]
    state = np.zeros(STATE_SIZE, np.int64)
    masked = np.zeros(OBS_SIZE, np.int64)
    visible = rules_vec[R_CHIPS_VISIBLE] == 1
    obs = address(state, 0) if visible else address(masked, 0)
    rngs = np.zeros(MAX_PLAYERS, np.uint64)
    flat_params = params.ravel()
    for g in range(out.shape[0]):
        for r in range(rounds):
            game_index = (first_index + g) * rounds + r
            key = game_key(root_seed, game_index)
            deal_keyed(rules_vec, key, first_seat(policy, game_index, n), state)
            for s in range(n):
                rngs[s] = stream_from(key, AGENT_STREAM + s)
            while not is_over(state):
                action = TAKE  # a seat without chips must take: no agent is asked
                if not is_forced(state):
                    seat = state[TURN]
                    state[SEAT] = seat
                    if not visible:
                        observe(state, seat, masked)
                    row = address(flat_params, seat * MAX_PARAMS)
                    action = entries[seat](obs, row, address(rngs, seat))
                    if not is_legal(state, action):
                        return g
                apply_action(state, action)
            _record_round(state, n, rounds, r, out, g)
    return -1


@njit(cache=True)
def _record_round(state, n, rounds, r, out, g):
    """Add a finished round's scores and decisions to row ``g`` of ``out``."""
    if r == 0:
        for p in range(n):
            out[g, p] = 0
        out[g, n] = state[FIRST]
        out[g, n + 1] = 0
    for p in range(n):
        score = score_hand(state[HANDS + p], state[CHIPS + p])
        out[g, p] += score
        if rounds > 1:
            out[g, n + 2 + r * n + p] = score
    out[g, n + 1] += state[N_DECISIONS]


def play_block(
    rules: Rules,
    agents: list[Agent],
    root_seed: int,
    first_index: int,
    n_games: int,
    first_player="rotate",
) -> np.ndarray:
    """Play games ``first_index .. first_index + n_games - 1`` of ``root_seed``, one agent per seat
    (matches, when ``rules.rounds > 1``: match ``m`` is the games ``m * R .. m * R + R - 1``).

    Returns int64 ``(n_games, n_players + 2)``: scores per seat, first player, decisions; with
    ``R > 1`` rounds, match totals and then ``R`` blocks of per-round scores per seat.
    ``first_player``: ``"rotate"`` (game i starts at seat i mod n), ``"random"`` or a seat.
    """
    n = rules.n_players
    width = n + 2 + (rules.rounds * n if rules.rounds > 1 else 0)
    return run_block(
        _play, MAX_PLAYERS, width, rules, agents, root_seed, first_index, n_games, first_player
    )

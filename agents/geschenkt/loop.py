"""Whole No Thanks! games, every agent's decisions included, in one compiled loop.

Agents are called through their pointer entries (``giftsim.contract``), one per seat in a tuple
of ``MAX_PLAYERS`` (padded), so the loop is compiled once, cached on disk, and never recompiled
for another pairing, seating or user-defined agent. The loop is the same text in every game's
agents (``agents/tulips/loop.py``): it calls only the game's verbs (``giftsim.game``), imported
by name, since verbs passed as values would keep it out of Numba's on-disk cache.

Sealed agents (``giftsim.contract``): the seat to act is shown its observation where it lies,
the live state's public prefix, whenever ``show_turn`` says that prefix is its view (else a
copy ``observe`` writes); a built-in's entry views it read-only, a user agent's entry copies it
into the seat's own scratch row first. Every seat's random stream is ``agent_stream(key,
secret, seat)``, from which neither the game key nor the deal can be recovered. A seat with a
single legal action is not asked.

A row is a match of ``R`` rounds (the rule ``rounds``; one game when ``R`` is 1): match ``m`` is
the games ``m * R .. m * R + R - 1`` of the seed, and ``result_row`` adds each round in.
"""

import numpy as np
from numba import njit

from agents.common.block import run_block
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
from geschenkt_sim.rules import MAX_PLAYERS, R_N_PLAYERS, R_ROUNDS
from geschenkt_sim.scoring import result_row
from geschenkt_sim.state import STATE_SIZE, TURN, deal_keyed
from giftsim.bits import lowest_bit
from giftsim.contract import MAX_PARAMS, SCRATCH_WORK, address, first_seat
from giftsim.rng import agent_stream, game_key


@njit(cache=True)
def play_games(rules_vec, root_seed, secret, first_index, policy, entries, params, out):
    """Play ``out.shape[0]`` matches from ``first_index`` on; return -1, or the index (in this
    block) of a match where an agent chose an illegal action. ``out`` rows: ``result_row``."""
    n, rounds = rules_vec[R_N_PLAYERS], rules_vec[R_ROUNDS]
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
        for r in range(rounds):
            game_index = (first_index + g) * rounds + r
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
            result_row(state, n, rounds, r, out, g)
    return -1


def play_block(rules, agents, root_seed, first_index, n_games, first_player="rotate", secret=0):
    """Play games (matches, with ``rules.rounds > 1``) ``first_index .. first_index + n_games -
    1`` of ``root_seed``, one agent per seat; int64 rows ``GAME.row_width(rules)`` wide: scores
    per seat, first player, decisions, winners' mask, then each round's scores in a match.
    ``first_player``: ``"rotate"`` (game i starts at seat i mod n), ``"random"`` or a seat."""
    return run_block(
        GAME, play_games, rules, agents, root_seed, first_index, n_games, first_player, secret
    )

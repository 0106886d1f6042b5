"""Whole games, every agent's decisions included, in one compiled loop.

Agents are called through their pointer entries (``giftsim.contract``), given as an array of
their addresses, one row per seat of ``MAX_PLAYERS`` (padded; ``agents.kernels.entries``), so
the loop is compiled once per game, cached on disk, and never recompiled for another pairing,
seating or user-defined agent.

Sealed agents (``giftsim.contract``): the seat to act is shown its observation where it lies,
the live state's public prefix, whenever ``show_turn`` says that prefix is its view (else a
copy ``observe`` writes); a built-in's entry views it read-only, a user agent's entry copies it
into the seat's own scratch row first. Every seat's random stream is ``agent_stream(key,
secret, seat)``, from which neither the game key nor the deal can be recovered. A seat with a
single legal action is not asked.

A row is a match of ``R`` rounds (the rules vector's ``ROUNDS_SLOT``; one game when ``R`` is 1
or the game has no matches): match ``m`` is the games ``m * R .. m * R + R - 1`` of the seed,
and ``result_row`` adds each round in.

The hook (the marked import below; ``agents.drivers.generate.driver(..., hook=...)``) sees
every game and action: the plain loop's hooks do nothing and compile away; the self-play
recorder and the event recorder are variants of this text. So is the loop of a table where
every seat plays one built-in family (the marked ``ask`` import: ``ask_entry.py``), which calls
that family's entry directly instead of through the seat's addresses.
"""

import numpy as np
from numba import njit

from giftsim.bits import lowest_bit
from giftsim.contract import MAX_PARAMS, address, first_seat, scratch_size
from giftsim.game import N_PLAYERS
from giftsim.rng import agent_stream, game_key

from .ask_entry import ask
from .game import (
    MAX_PLAYERS,
    OBS_SIZE,
    ROUNDS_SLOT,
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
from .no_hook import acted, decided, ended, has_room, started

SCRATCH_STRIDE = scratch_size(OBS_SIZE, STATE_SIZE)  # a seat's row: a user agent's copy, zeros


@njit(cache=True)
def play_games(rules_vec, root_seed, secret, first_index, policy, entries, params, out, hook):
    """Play ``out.shape[0]`` matches from ``first_index`` on into ``out`` (rows as
    ``result_row``); return the matches played (fewer when the hook has no room for the next),
    or ``-1 - g`` when an agent chose an illegal action in match ``g`` of this block. One
    integer, not a pair: a tuple returned from inside the loop cost a quarter of its speed
    (No Thanks! 4 greedy players, 0.46M against 0.63M games per second)."""
    n = rules_vec[N_PLAYERS]
    rounds = rules_vec[ROUNDS_SLOT] if ROUNDS_SLOT >= 0 else 1
    state = np.zeros(STATE_SIZE, np.int64)
    obs = np.zeros(OBS_SIZE, np.int64)
    shown, live = address(obs, 0), address(state, 0)
    scratch = np.zeros(MAX_PLAYERS * SCRATCH_STRIDE, np.int64)
    rngs = np.zeros(MAX_PLAYERS, np.uint64)
    flat_params, flat_entries = params.ravel(), entries.ravel()
    for g in range(out.shape[0]):
        if not has_room(hook):
            return g
        for r in range(rounds):
            game_index = (first_index + g) * rounds + r
            key = game_key(root_seed, game_index)
            deal_keyed(rules_vec, key, first_seat(policy, game_index, n), state)
            begin(state)
            for s in range(n):
                rngs[s] = agent_stream(key, secret, s)
            started(hook, state, key)
            while not is_over(state):
                mask = legal_mask(state)
                if mask & (mask - 1) == 0:  # one legal action: nobody is asked
                    action = lowest_bit(mask)
                else:
                    seat, view = state[TURN], live
                    if not show_turn(state):
                        observe(state, seat, obs)
                        view = shown
                    row, own = address(flat_params, seat * MAX_PARAMS), seat * SCRATCH_STRIDE
                    action = ask(
                        flat_entries, seat, view, row, address(rngs, seat), address(scratch, own)
                    )
                    if action < 0 or action > 62 or not (mask >> action) & 1:
                        return -1 - g
                    action = decided(hook, state, seat, action, mask, g)
                acted(hook, state, action, g)
                apply_action(state, action)
            ended(hook, state, g)
            result_row(state, n, rounds, r, out, g)
    return out.shape[0]

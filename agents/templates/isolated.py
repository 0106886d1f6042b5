"""The game loop with isolated seats (``agents.drivers.isolated``): many games in flight, the
trusted seats played here exactly as in ``loop.py``, each game stopped where an isolated seat
must decide, so that one round trip to that seat's process serves the pending decisions of
every game in flight.

A *slot* plays matches one after another (the block's next match when it finishes one); a
match is ``R`` rounds as in ``loop.py`` (game indices ``m * R .. m * R + R - 1``), so every
game is the one the plain loop plays with the same agents. Its row (int64):

==========  ==  =========================================================================
slot        at  meaning
==========  ==  =========================================================================
``S_MATCH``  0  the match (row of ``out``) being played; -1 before the first, and once the
                block has no match left for the slot
``S_ROUND``  1  its round
``S_WAIT``   2  the isolated seat whose answer the slot waits for, -1 none
``S_OUT``    3  bit mask of the seats that forfeited the current game
``S_MASK``   4  the legal actions' mask of the decision the slot waits for
==========  ==  =========================================================================

An isolated seat is shown a copy of its observation (``observe`` into the slot's row of
``rows``), and its answer arrives in ``answers``: the action, or minus a fault code
(``agents.isolation.FAULTS``). A fault, or an illegal action, forfeits the game for that seat
(its code kept in ``forfeits``, the first of the match): for the rest of the game it plays
the lowest legal action without being asked; it is asked again from the next game on.
"""

import numpy as np
from numba import njit

from agents.isolation import ILLEGAL
from agents.kernels.entries import entry_at
from giftsim.bits import lowest_bit
from giftsim.contract import MAX_PARAMS, address, first_seat
from giftsim.game import N_PLAYERS
from giftsim.rng import agent_stream, game_key

from .game import (
    MAX_PLAYERS,
    OBS_SIZE,
    ROUNDS_SLOT,
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
from .loop import SCRATCH_STRIDE

CALL_RULES = True  # the rules' step verbs are called here, not copied in (giftsim.inlining)

S_MATCH, S_ROUND, S_WAIT, S_OUT, S_MASK = 0, 1, 2, 3, 4
SLOT_WIDTH = 5
# The block's settings (int64): its first match, the first-player policy, the isolated seats'
# bit mask, and the next match a slot takes.
B_FIRST, B_POLICY, B_ISOLATED, B_CURSOR = 0, 1, 2, 3


@njit(cache=True)
def advance(
    rules_vec, block, keys, entries, params, out, slots, states, rngs, rows, answers, forfeits
):
    """Apply the answers of the slots that wait, then play every slot on until it waits for
    an isolated seat again or the block has no match left for it. ``block``: the settings
    above; ``keys``: the root seed and the secret; ``entries``: the trusted seats' entry
    addresses (``agents.kernels.entries.entry_addresses``). Returns ``(bad, waiting)``: ``bad``
    -1, or the match where a trusted agent chose an illegal action; ``waiting``: how many
    slots wait for an answer (0: the block is done)."""
    scratch = np.zeros(MAX_PLAYERS * SCRATCH_STRIDE, np.int64)
    obs = np.zeros(OBS_SIZE, np.int64)
    waiting = 0
    for i in range(slots.shape[0]):
        slot, state, streams = slots[i], states[i], rngs[i]
        if slot[S_WAIT] >= 0:
            _answer(slot, state, answers[i], forfeits)
        elif slot[S_MATCH] < 0 and not _next_match(
            rules_vec, block, keys, out, slot, state, streams
        ):
            continue
        bad = _play(
            rules_vec,
            block,
            keys,
            entries,
            params,
            out,
            slot,
            state,
            streams,
            rows[i],
            scratch,
            obs,
        )
        if bad >= 0:
            return bad, waiting
        waiting += slot[S_WAIT] >= 0
    return -1, waiting


@njit(cache=True)
def _answer(slot, state, answer, forfeits):
    """Apply an isolated seat's answer: its action, or the lowest legal action when it
    faulted (``answer`` < 0) or chose an illegal one, which forfeits the game."""
    seat, mask = slot[S_WAIT], legal_mask(state)
    action, code = answer, 0
    if answer < 0:
        code = -answer
    elif answer > 62 or not (mask >> answer) & 1:
        code = ILLEGAL
    if code != 0:
        if forfeits[slot[S_MATCH], seat] == 0:
            forfeits[slot[S_MATCH], seat] = code
        slot[S_OUT] |= np.int64(1) << seat
        action = lowest_bit(mask)
    slot[S_WAIT] = -1
    apply_action(state, action)


@njit(cache=True)
def _next_match(rules_vec, block, keys, out, slot, state, streams):
    """Give the slot the block's next match (dealt), or False when none is left."""
    if block[B_CURSOR] >= out.shape[0]:
        slot[S_MATCH] = -1
        return False
    slot[S_MATCH], slot[S_ROUND] = block[B_CURSOR], 0
    block[B_CURSOR] += 1
    _deal(rules_vec, block, keys, slot, state, streams)
    return True


@njit(cache=True)
def _deal(rules_vec, block, keys, slot, state, streams):
    """Deal the slot's current game (round ``S_ROUND`` of match ``S_MATCH``) and start its
    seats' streams, as ``loop.py`` does."""
    n, rounds = rules_vec[N_PLAYERS], _rounds(rules_vec)
    game_index = (block[B_FIRST] + slot[S_MATCH]) * rounds + slot[S_ROUND]
    key = game_key(keys[0], game_index)
    deal_keyed(rules_vec, key, first_seat(block[B_POLICY], game_index, n), state)
    begin(state)
    for s in range(n):
        streams[s] = agent_stream(key, keys[1], s)
    slot[S_OUT] = 0


@njit(cache=True)
def _rounds(rules_vec):
    return rules_vec[ROUNDS_SLOT] if ROUNDS_SLOT >= 0 else 1


@njit(cache=True)
def _play(rules_vec, block, keys, entries, params, out, slot, state, streams, row, scratch, obs):
    """Play the slot on (next rounds and matches included) until an isolated seat that has
    not forfeited the game must decide (its observation then in ``row``, ``S_WAIT`` set) or
    no match is left; return -1, or the match where a trusted agent chose an illegal action."""
    n, rounds, isolated = rules_vec[N_PLAYERS], _rounds(rules_vec), block[B_ISOLATED]
    shown, live, flat_params = address(obs, 0), address(state, 0), params.ravel()
    while True:
        if is_over(state):
            result_row(state, n, rounds, slot[S_ROUND], out, slot[S_MATCH])
            slot[S_ROUND] += 1
            if slot[S_ROUND] < rounds:
                _deal(rules_vec, block, keys, slot, state, streams)
            elif not _next_match(rules_vec, block, keys, out, slot, state, streams):
                return -1
            continue
        mask = legal_mask(state)
        seat = state[TURN]
        if mask & (mask - 1) == 0:  # one legal action: nobody is asked
            action = lowest_bit(mask)
        elif (isolated >> seat) & 1:
            if not (slot[S_OUT] >> seat) & 1:
                observe(state, seat, row)
                slot[S_WAIT], slot[S_MASK] = seat, mask
                return -1
            action = lowest_bit(mask)  # a seat that forfeited the game
        else:
            view = live
            if not show_turn(state):
                observe(state, seat, obs)
                view = shown
            entry = entry_at(entries[seat, 0], entries[seat, 1], entries[seat, 2])
            own = address(scratch, seat * SCRATCH_STRIDE)
            action = entry(
                view, address(flat_params, seat * MAX_PARAMS), address(streams, seat), own
            )
            if action < 0 or action > 62 or not (mask >> action) & 1:
                return slot[S_MATCH]
        apply_action(state, action)

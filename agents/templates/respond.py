"""The rollout responder: a lower bound on how much a field of agents can be exploited.

Each game of a block is played twice from the same deal (``deal_keyed`` with the game's key,
every seat's agent on the same stream): once by the field alone (the agents of ``entries`` in
every seat), and once with the seat ``seat`` played by the *responder*. At each decision of
that seat with more than one legal action, the responder draws ``rollouts`` worlds consistent
with its own observation (the search verb ``world``; it sees nothing else) and, for each
legal action, applies it to the world and plays the game to the end with the field's agents
in every seat, its own seat's agent included (rollouts of the field's policy: Bertsekas'
rollout algorithm, one policy-improvement step). Every action is valued on the same worlds
and the same agent streams (common random numbers), so that the comparison of two actions
carries only the noise of where they differ. It plays what its seat's agent would play,
unless another action's rollouts beat that action's by more than ``margin`` standard errors
of their paired differences (then the one that beats it most): against a strong field most
differences are noise, and following the noise would lose what the agent's choice is worth;
against a weak one, a margin keeps too many of its mistakes (``margin`` 0: the best mean).

The responder is a strategy of its seat (it reads only its observation and its own stream;
the rollouts' agent streams are drawn from that stream, never the game's), so its mean gain
over the field's own share in that seat estimates what one strategy gains, a lower bound of
the field's exploitability from that seat.

Row ``g`` of ``out``: the responder's share of the win, the field's share in the same seat
on the same deal, and the decisions at which the responder rolled out.
"""

import numpy as np
from numba import njit

from agents.kernels.entries import entry_at
from giftsim.bits import lowest_bit
from giftsim.contract import MAX_PARAMS, address, first_seat
from giftsim.game import N_PLAYERS
from giftsim.rng import agent_stream, game_key, next_u64

from .game import (
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBS_SIZE,
    STATE_SIZE,
    TURN,
    apply_action,
    begin,
    deal_keyed,
    is_over,
    legal_mask,
    observe,
    rewards,
    show_turn,
    world,
)
from .loop import SCRATCH_STRIDE

CALL_RULES = True  # the rules' step verbs are called here, not copied in (giftsim.inlining)
WORLD_STREAM = MAX_PLAYERS  # the stream number of a rollout's world (seats use 0 .. n-1)
SHARE, FIELD_SHARE, ROLLED = 0, 1, 2  # the columns of a row of ``out``


@njit(cache=True)
def respond_games(
    rules_vec, root_seed, secret, first_index, policy, entries, params, seat, search, out
):
    """Play games ``first_index ..`` of ``root_seed`` into ``out`` (module docstring); return
    -1, or the game (in this block) where an agent chose an illegal action. ``search`` is
    ``(rollouts, margin)``."""
    state = np.zeros(STATE_SIZE, np.int64)
    streams = np.zeros(MAX_PLAYERS, np.uint64)
    shares = np.zeros(MAX_PLAYERS, np.float64)
    flat = params.ravel()
    work = (np.zeros(OBS_SIZE, np.int64), np.zeros(MAX_PLAYERS * SCRATCH_STRIDE, np.int64))
    for g in range(out.shape[0]):
        key = game_key(root_seed, first_index + g)
        _deal(rules_vec, key, secret, policy, first_index + g, state, streams)
        if not _play_to_end(state, entries, flat, streams, work):
            return g
        rewards(state, shares)
        out[g, FIELD_SHARE] = shares[seat]
        _deal(rules_vec, key, secret, policy, first_index + g, state, streams)
        rolled = _responded(state, seat, entries, flat, streams, search, secret, work)
        if rolled < 0:
            return g
        rewards(state, shares)
        out[g, SHARE], out[g, ROLLED] = shares[seat], rolled
    return -1


@njit(cache=True)
def _deal(rules_vec, key, secret, policy, index, state, streams):
    """Deal the game of ``key`` and set every seat's agent stream, as the game loop does."""
    n = rules_vec[N_PLAYERS]
    deal_keyed(rules_vec, key, first_seat(policy, index, n), state)
    begin(state)
    for s in range(n):
        streams[s] = agent_stream(key, secret, s)


@njit(cache=True)
def _responded(state, seat, entries, flat, streams, search, secret, work):
    """Play ``state`` to the end with ``seat`` played by the responder; return the decisions
    it rolled out at, or -1 if an agent chose an illegal action."""
    rolled = 0
    while not is_over(state):
        mask = legal_mask(state)
        if state[TURN] == seat and mask & (mask - 1) != 0:
            action = _rollout_choice(state, seat, entries, flat, streams, search, secret, work)
            rolled += 1
        else:
            action = _ask(state, entries, flat, streams, work)
        if action < 0:
            return -1
        apply_action(state, action)
    return rolled


@njit(cache=True)
def _rollout_choice(state, seat, entries, flat, streams, search, secret, work):
    """The responder's action at ``state`` (module docstring), or -1 if an agent chose an
    illegal action (its own seat's agent, asked for the default, included)."""
    obs = np.zeros(OBS_SIZE, np.int64)
    observe(state, seat, obs)
    mask, own = legal_mask(state), _ask(state, entries, flat, streams, work)
    if own < 0:
        return -1
    rollouts, margin = search
    base = next_u64(streams[seat : seat + 1])
    drawn, keys = np.zeros(STATE_SIZE, np.int64), np.zeros(MAX_PLAYERS, np.uint64)
    value = np.zeros(NUM_ACTIONS, np.float64)
    sums, squares = np.zeros(NUM_ACTIONS, np.float64), np.zeros(NUM_ACTIONS, np.float64)
    for r in range(rollouts):
        for action in range(NUM_ACTIONS):
            if (mask >> action) & 1:
                key = base + np.uint64(r)
                value[action] = _rollout(
                    obs, action, seat, entries, flat, key, secret, drawn, keys, work
                )
                if value[action] < 0:
                    return -1
        for action in range(NUM_ACTIONS):  # differences from the agent's own action
            sums[action] += value[action] - value[own]
            squares[action] += (value[action] - value[own]) ** 2
    return _chosen(mask, own, sums, squares, rollouts, margin)


@njit(cache=True)
def _chosen(mask, own, sums, squares, rollouts, margin):
    """The action of the largest mean gain over ``own`` among those whose gain exceeds
    ``margin`` standard errors (the paired rollouts' differences), else ``own``."""
    best, top = own, 0.0
    for action in range(sums.shape[0]):
        mean = sums[action] / rollouts
        spread = max(squares[action] / rollouts - mean * mean, 0.0)
        clear = mean > margin * np.sqrt(spread / max(rollouts - 1, 1))
        if (mask >> action) & 1 and clear and mean > top:
            best, top = action, mean
    return best


@njit(cache=True)
def _rollout(obs, action, seat, entries, flat, key, secret, drawn, streams, work):
    """``seat``'s share of the win when ``action`` is applied to the world drawn (into
    ``drawn``) from ``obs`` with stream ``key`` and the field plays on (agent streams keyed by
    ``key``, in ``streams``); -1 if an agent chose an illegal action."""
    streams[0] = agent_stream(key, secret, WORLD_STREAM)
    world(obs, streams, drawn)
    apply_action(drawn, action)
    for s in range(drawn[N_PLAYERS]):
        streams[s] = agent_stream(key, secret, s)
    if not _play_to_end(drawn, entries, flat, streams, work):
        return -1.0
    shares = np.zeros(MAX_PLAYERS, np.float64)
    rewards(drawn, shares)
    return shares[seat]


@njit(cache=True)
def _play_to_end(state, entries, flat, streams, work):
    """Play ``state`` to the end with the field's agents; False if one chose an illegal
    action."""
    while not is_over(state):
        action = _ask(state, entries, flat, streams, work)
        if action < 0:
            return False
        apply_action(state, action)
    return True


@njit(cache=True)
def _ask(state, entries, flat, streams, work):
    """The action of the seat to act by its agent (not asked with one legal action), as the
    game loop shows it (its observation, its parameter row, its stream, its scratch row of
    ``work``: an observation buffer and the seats' scratch rows), or -1 if the agent chose an
    illegal action."""
    mask = legal_mask(state)
    if mask & (mask - 1) == 0:
        return lowest_bit(mask)
    seat, (obs, scratch) = state[TURN], work
    view = address(state, 0)
    if not show_turn(state):
        observe(state, seat, obs)
        view = address(obs, 0)
    row, own = address(flat, seat * MAX_PARAMS), address(scratch, seat * SCRATCH_STRIDE)
    entry = entry_at(entries[seat, 0], entries[seat, 1], entries[seat, 2])
    action = entry(view, row, address(streams, seat), own)
    if action < 0 or action > 62 or not (mask >> action) & 1:
        return -1
    return action

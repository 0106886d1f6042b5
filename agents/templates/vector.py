"""The vector environment's kernels (``experiments.envs.vector``): many games (lanes) stepped
in one compiled call, the learner's actions in, every other seat's decisions made here by
compiled giftsim agents until the learner must act again or the episode ends.

The lane bookkeeping is in ``agents/kernels/lanes.py``. Opponents are called through their
pointer entries exactly as in the game loop (``loop.py``: sealed observations,
``agent_stream(key, secret, seat)`` per seat), so an episode is the game the slow path plays
with the same actions. A seat with one legal action, the learner's included, is not asked.

The helpers a lane runs at every step are inlined into the two kernels (``inline="always"``):
a call between compiled functions passes every array as a struct and counts its references,
which cost about as much as the lane's game itself. The rules' step verbs are called, not
copied into each call site (``CALL_RULES``; LLVM still inlines them where it pays): the copies
doubled the Tulips kernels' cold compile (measurements: ``docs/perf/README.md``).
"""

import numpy as np
from numba import njit

from agents.kernels.entries import entry_at
from agents.kernels.lanes import (
    CURRENT,
    KEY_SECRET,
    KEY_SEED,
    L_ID,
    L_INDEX,
    L_LOGGED,
    L_NEXT,
    L_SEAT,
    L_SKIPPED,
    LANE_STRIDE,
    LEARNER_ILLEGAL,
    LOG_FULL,
    MAX_SKIPPED,
    NO_DECISION,
    OK,
    OPPONENT_ILLEGAL,
    RUN_FIRST,
    RUN_LEARNER,
    RUN_RECORD,
    keep_finished,
    learner_seat,
    log_action,
    opponent,
    write_mask,
)
from agents.kernels.search import lead
from giftsim.bits import lowest_bit
from giftsim.contract import MAX_PARAMS, address, first_seat
from giftsim.game import N_PLAYERS
from giftsim.rng import agent_stream, game_key

from .game import (
    LOWER_WINS,
    MAX_PLAYERS,
    OBS_SIZE,
    STATE_SIZE,
    TURN,
    apply_action,
    begin,
    deal_keyed,
    encode,
    is_over,
    legal_mask,
    observe,
    rewards,
    scores,
    show_turn,
)
from .loop import SCRATCH_STRIDE

CALL_RULES = True  # the rules' step verbs are called here, not copied in (giftsim.inlining)


@njit(cache=True)
def reset_lanes(rules_vec, keys, run, entries, params, lanes, states, rngs, logs, out):
    """Begin every lane's next episode and play it to the learner's first decision; write the
    learner's observation tensors and masks into ``out`` (its first two arrays). Returns
    ``(-1, OK)`` or ``(lane, problem)`` (``agents.kernels.lanes``)."""
    work = _work(params)
    for i in range(lanes.shape[0]):
        problem = _next_episode(
            rules_vec, keys, run, entries, params, i, lanes, states, rngs, logs, work
        )
        if problem != OK:
            return i, problem
        _show(lanes[i], states[i], work, out[0][i], out[1][i])
    return -1, OK


@njit(cache=True)
def step_lanes(rules_vec, keys, run, entries, params, lanes, states, rngs, logs, actions, out):
    """Apply each lane's learner action, play on to the learner's next decision, and write
    ``out`` = (tensors, masks, reward shares, dones, final tensors, score leads); a finished
    lane writes its reward, lead and final tensor, then begins its next episode. Returns as
    :func:`reset_lanes`."""
    tensors, masks, shares, dones, finals, leads = out
    work = _work(params)
    record, n = run[RUN_RECORD], rules_vec[N_PLAYERS]
    for i in range(lanes.shape[0]):
        lane, state, action = lanes[i], states[i], actions[i]
        if action < 0 or action > 62 or not (legal_mask(state) >> action) & 1:
            return i, LEARNER_ILLEGAL
        if not log_action(record, lane, logs[i], STATE_SIZE, action):
            return i, LOG_FULL
        apply_action(state, action)
        asked = _advance(n, record, entries, lane, state, rngs[i], logs[i], work)
        if asked < 0:
            return i, -asked
        dones[i] = asked == 0
        if asked == 0:
            _finish(n, lane, state, work, shares, leads, finals[i], i)
            keep_finished(record, lane, logs[i], STATE_SIZE)
            problem = _next_episode(
                rules_vec, keys, run, entries, params, i, lanes, states, rngs, logs, work
            )
            if problem != OK:
                return i, problem
        _show(lane, state, work, tensors[i], masks[i])
    return -1, OK


@njit(cache=True)
def _work(params):
    """Scratch of one call: an observation, the opponents' scratch rows, scores and shares,
    and the opponents' parameter rows as one flat array (made once per call, not per lane)."""
    obs = np.zeros(OBS_SIZE, np.int64)
    scratch = np.zeros(MAX_PLAYERS * SCRATCH_STRIDE, np.int64)
    points, share = np.zeros(MAX_PLAYERS, np.int64), np.zeros(MAX_PLAYERS, np.float64)
    return obs, scratch, points, share, params.ravel()


@njit(cache=True, inline="always")
def _next_episode(rules_vec, keys, run, entries, params, i, lanes, states, rngs, logs, work):
    """Deal lane ``i``'s next episode and play to the learner's first decision (an episode
    that ends before it is counted in ``L_SKIPPED`` and the next one dealt; ``NO_DECISION``
    after ``MAX_SKIPPED`` in a row, rules under which the learner may never choose)."""
    lane, state, streams, log = lanes[i], states[i], rngs[i], logs[i]
    n, record = rules_vec[N_PLAYERS], run[RUN_RECORD]
    skipped = 0
    while True:
        k = lane[L_NEXT]
        lane[L_NEXT] = k + 1
        index = lane[L_ID] * LANE_STRIDE + k
        key = game_key(keys[KEY_SEED], index)
        deal_keyed(rules_vec, key, first_seat(run[RUN_FIRST], index, n), state)
        begin(state)
        for s in range(n):
            streams[s] = agent_stream(key, keys[KEY_SECRET], s)
        lane[L_INDEX], lane[L_LOGGED] = index, 0
        lane[L_SEAT] = learner_seat(run[RUN_LEARNER], lane[L_ID], k, state[TURN], n)
        if record != 0:
            log[CURRENT, :STATE_SIZE] = state
        asked = _advance(n, record, entries, lane, state, streams, log, work)
        if asked != 0:
            return OK if asked > 0 else -asked
        lane[L_SKIPPED] += 1
        skipped += 1
        if skipped == MAX_SKIPPED:
            return NO_DECISION


@njit(cache=True, inline="always")
def _advance(n, record, entries, lane, state, streams, log, work):
    """Play the opponents' decisions and every forced move until the learner must choose (1)
    or the game is over (0); ``-problem`` when an opponent breaks the contract."""
    obs, scratch = work[0], work[1]
    shown, live, flat_params = address(obs, 0), address(state, 0), work[4]
    learner = lane[L_SEAT]
    while not is_over(state):
        mask = legal_mask(state)
        if mask & (mask - 1) == 0:  # one legal action: nobody is asked
            action = lowest_bit(mask)
        else:
            seat, view = state[TURN], live
            if seat == learner:
                return 1
            if not show_turn(state):
                observe(state, seat, obs)
                view = shown
            j = opponent(seat, learner, n)
            row, own = address(flat_params, j * MAX_PARAMS), address(scratch, j * SCRATCH_STRIDE)
            entry = entry_at(entries[j, 0], entries[j, 1], entries[j, 2])
            action = entry(view, row, address(streams, seat), own)
            if action < 0 or action > 62 or not (mask >> action) & 1:
                return -OPPONENT_ILLEGAL
        if not log_action(record, lane, log, STATE_SIZE, action):
            return -LOG_FULL
        apply_action(state, action)
    return 0


@njit(cache=True, inline="always")
def _finish(n, lane, state, work, shares, leads, final, i):
    """The learner's share of the win, score lead and final observation tensor."""
    obs, points, share = work[0], work[2], work[3]
    seat = lane[L_SEAT]
    rewards(state, share)
    scores(state, points)
    shares[i] = share[seat]
    leads[i] = lead(points, seat, n, LOWER_WINS)
    observe(state, seat, obs)
    encode(obs, final)


@njit(cache=True, inline="always")
def _show(lane, state, work, tensor, mask_row):
    """The learner's observation tensor and legal mask, at its decision."""
    obs = work[0]
    observe(state, lane[L_SEAT], obs)
    encode(obs, tensor)
    write_mask(legal_mask(state), mask_row)

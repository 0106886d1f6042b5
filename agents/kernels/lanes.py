"""What every game's vector-environment kernel shares (``agents/<game>/vector.py``): the slots
of a lane's bookkeeping row, the run settings, and the game-agnostic arithmetic of a lane.

A *lane* is one game slot of the vector environment (``experiments.envs.vector``): it plays
episode after episode. Lane ``i``'s ``k``-th episode is game ``i * LANE_STRIDE + k`` of the
run's seed, so a lane's games do not depend on how many lanes run beside it.

Lane row (int64, one per lane):

==================  ====  ==================================================================
slot                at    meaning
==================  ====  ==================================================================
``L_ID``            0     the lane's number ``i``
``L_NEXT``          1     ``k`` of the next episode the lane begins
``L_INDEX``         2     game index of the episode being played
``L_SEAT``          3     the learner's seat in it
``L_LOGGED``        4     actions logged so far in it (with ``RUN_RECORD``)
``L_DONE_INDEX``    5     game index of the lane's last finished episode
``L_DONE_SEAT``     6     the learner's seat in it
``L_DONE_LOGGED``   7     its number of actions (with ``RUN_RECORD``)
``L_SKIPPED``       8     episodes that ended before the learner was asked anything
==================  ====  ==================================================================

Run settings (int64): ``RUN_FIRST`` the first-player policy (``giftsim.contract``),
``RUN_LEARNER`` a fixed learner seat or ``LEARNER_ROTATE``, ``RUN_RECORD`` 1 to log every
action. Keys (uint64): ``KEY_SEED`` the root seed, ``KEY_SECRET`` the agents' streams' secret.
A lane's log (with ``RUN_RECORD``) holds two rows, the episode being played and the last
finished one, each the start state (``state_size`` slots) then the actions.
"""

import numpy as np
from numba import njit

L_ID, L_NEXT, L_INDEX, L_SEAT, L_LOGGED = 0, 1, 2, 3, 4
L_DONE_INDEX, L_DONE_SEAT, L_DONE_LOGGED, L_SKIPPED = 5, 6, 7, 8
LANE_SLOTS = 9
RUN_FIRST, RUN_LEARNER, RUN_RECORD = 0, 1, 2
RUN_SLOTS = 3
KEY_SEED, KEY_SECRET = 0, 1
LEARNER_ROTATE = -2
LANE_STRIDE = 1 << 32  # episodes per lane before its game indices would meet the next lane's
CURRENT, FINISHED = 0, 1  # the two rows of a lane's log
# step results: (-1, OK) or (lane, who broke the contract; NO_DECISION: the rules, whose games
# end before the learner has a choice MAX_SKIPPED times in a row, so a lane would deal forever)
OK, LEARNER_ILLEGAL, OPPONENT_ILLEGAL, LOG_FULL, NO_DECISION = 0, 1, 2, 3, 4
MAX_SKIPPED = 1_000


@njit(cache=True)
def learner_seat(policy, lane, k, first, n):
    """The learner's seat in lane ``lane``'s ``k``-th episode, whose first player is ``first``:
    a fixed seat, or with ``LEARNER_ROTATE`` the ``(lane + k) mod n``-th to play, so that each
    lane's learner moves one place along the turn order every episode."""
    if policy == LEARNER_ROTATE:
        return (first + lane + k) % n
    return policy


@njit(cache=True)
def opponent(seat, learner, n):
    """Which opponent (0 .. n - 2) plays ``seat``: opponent ``j`` sits ``j + 1`` seats after
    the learner."""
    return (seat - learner - 1) % n


@njit(cache=True)
def write_mask(mask, row):
    """The int64 legal mask as a row of booleans, one per action id."""
    for a in range(row.shape[0]):
        row[a] = (mask >> a) & 1


@njit(cache=True)
def log_action(record, lane, log, base, action):
    """Append ``action`` to the lane's current log; False when the log is full."""
    if record == 0:
        return True
    at = base + lane[L_LOGGED]
    if at >= log.shape[1]:
        return False
    log[CURRENT, at] = action
    lane[L_LOGGED] += 1
    return True


@njit(cache=True)
def keep_finished(record, lane, log, base):
    """Remember the episode just finished (its index, learner seat and log: ``base`` start
    slots, then the actions) before the lane begins the next one."""
    lane[L_DONE_INDEX], lane[L_DONE_SEAT] = lane[L_INDEX], lane[L_SEAT]
    if record != 0:
        lane[L_DONE_LOGGED] = lane[L_LOGGED]
        end = base + lane[L_LOGGED]
        log[FINISHED, :end] = log[CURRENT, :end]


def empty_lanes(n_envs: int) -> np.ndarray:
    """Lane rows for ``n_envs`` lanes, numbered ``0 ..``, at their first episode."""
    lanes = np.zeros((n_envs, LANE_SLOTS), np.int64)
    lanes[:, L_ID] = np.arange(n_envs)
    return lanes


def lane_game_index(lane: int, episode: int) -> int:
    """The game index (under the run's seed) of lane ``lane``'s ``episode``-th episode."""
    return lane * LANE_STRIDE + episode

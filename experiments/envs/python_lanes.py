"""The vector environment's lanes stepped from Python: the slow path that lets opponents be
Python (``experiments.envs.vector``).

:class:`PythonLanes` has the two calls of a game's compiled vector kernels
(``agents/templates/vector.py``: ``reset_lanes`` and ``step_lanes``, same arguments, same lane
rows, logs and outputs), so an environment runs on either and plays the same games. Its
opponents may be what the compiled kernels cannot call:

* a giftsim agent (compiled or plain Python), asked as the slow path asks it
  (``agents/drivers/slow.py``: its ``decide`` on a copy of its seat's observation, its
  parameter row, its own stream);
* a Python callable ``policy(tensors, masks) -> actions`` over a batch: ``tensors`` float32
  ``(B, tensor_size)`` (``Game.encode`` of each deciding seat's observation), ``masks`` bool
  ``(B, num_actions)`` (``Game.legal_mask``), ``actions`` B integer action ids. Every lane
  where that opponent is to act is asked in one call, so a network runs once per round of
  decisions, not once per lane; a lane's games do not depend on the number of lanes as long as
  the policy's answer for a row depends on that row alone.

Each call is Python work per decision (the compiled kernels do none): use it for opponents
that must be Python, and compiled agents or networks in giftsim's format otherwise.
"""

import numpy as np

from agents.base import Agent
from agents.kernels.lanes import (
    KEY_SECRET,
    KEY_SEED,
    L_ID,
    L_INDEX,
    L_LOGGED,
    L_NEXT,
    L_SEAT,
    L_SKIPPED,
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
    lane_game_index,
    learner_seat,
    log_action,
    opponent,
    write_mask,
)
from agents.kernels.search import lead
from giftsim.contract import first_seat
from giftsim.rng import agent_stream, game_key

LEARNER, OVER = -1, -2  # what a lane waits for, besides an opponent's number


class PythonLanes:
    """The lanes of a vector environment of ``game`` under ``rules`` against ``opponents``
    (opponent ``j``: an :class:`~agents.base.Agent` or a batched Python callable), stepped in
    Python; ``reset_lanes`` and ``step_lanes`` as the compiled kernels'."""

    def __init__(self, game, rules, opponents):
        self.game, self.n, self.opponents = game, rules.n_players, list(opponents)
        self.size = game.tensor_size(rules)
        self._obs = np.zeros(game.obs_size, np.int64)
        self._scores = np.zeros(game.max_players, np.int64)
        self._shares = np.zeros(game.max_players, np.float64)

    def reset_lanes(self, rules_vec, keys, run, entries, params, lanes, states, rngs, logs, out):
        """Begin every lane's next episode, play to the learner's first decision, and write
        its tensors and masks into ``out[0]``, ``out[1]``; ``(-1, OK)`` or ``(lane, problem)``."""
        self._bind(rules_vec, keys, run, params, lanes, states, rngs, logs, None)
        for i in range(lanes.shape[0]):
            self._next_episode(i)
        return self._settle(range(lanes.shape[0]), out)

    def step_lanes(
        self, rules_vec, keys, run, entries, params, lanes, states, rngs, logs, actions, out
    ):
        """Apply each lane's learner action, play on to its next decision (a finished lane
        writes its reward, lead and final tensor and begins its next episode), and write
        ``out`` = (tensors, masks, shares, dones, finals, leads)."""
        self._bind(rules_vec, keys, run, params, lanes, states, rngs, logs, out)
        out[3][:] = False
        game = self.game
        for i in range(lanes.shape[0]):
            action = actions[i]
            if not 0 <= action < game.num_actions or not (game.legal_mask(states[i]) >> action) & 1:
                return i, LEARNER_ILLEGAL
            if not self._apply(i, action):
                return i, LOG_FULL
            self.fresh[i] = False
        return self._settle(range(lanes.shape[0]), out)

    def _bind(self, rules_vec, keys, run, params, lanes, states, rngs, logs, out) -> None:
        self.rules_vec, self.keys, self.run, self.params = rules_vec, keys, run, params
        self.lanes, self.states, self.rngs, self.logs, self.out = lanes, states, rngs, logs, out
        if not hasattr(self, "fresh") or self.fresh.shape[0] != lanes.shape[0]:
            self.fresh = np.ones(lanes.shape[0], np.bool_)
            self.in_row = np.zeros(lanes.shape[0], np.int64)  # skipped since the learner chose

    def _settle(self, todo, out):
        """Play the lanes ``todo`` on until each waits for the learner; then show it."""
        waiting = list(todo)
        while waiting:
            asked: dict[int, list[int]] = {}
            for i in waiting:
                who = self._play_agents(i)
                if who < LEARNER:
                    return i, -who - 2
                if who >= 0:
                    asked.setdefault(who, []).append(i)
            for j, where in asked.items():
                problem = self._ask_batch(j, where)
                if problem is not None:
                    return problem
            waiting = [i for where in asked.values() for i in where]
        for i in todo:
            self._show(i, out[0][i], out[1][i])
        return -1, OK

    def _play_agents(self, i: int) -> int:
        """Play lane ``i``'s forced moves and agents' decisions (episodes ending on the way
        finish and the next begins) until the learner must choose (``LEARNER``) or a Python
        callable must (its opponent number); ``-problem - 2`` when something breaks
        (``NO_DECISION``: ``MAX_SKIPPED`` episodes in a row without a learner's choice)."""
        game, state = self.game, self.states[i]
        while True:
            if game.is_over(state):
                self._end_episode(i)
                if self.in_row[i] >= MAX_SKIPPED:
                    self.in_row[i] = 0  # counted afresh by the next call, as compiled lanes do
                    return -NO_DECISION - 2
                continue
            mask = int(game.legal_mask(state))
            if mask & (mask - 1) == 0:  # one legal action: nobody is asked
                action = mask.bit_length() - 1
            else:
                seat = int(state[game.turn_slot])
                if seat == self.lanes[i, L_SEAT]:
                    self.in_row[i] = 0
                    return LEARNER
                j = int(opponent(seat, self.lanes[i, L_SEAT], self.n))
                if not isinstance(self.opponents[j], Agent):
                    return j
                action = self._decide(i, j, seat)
                if not 0 <= action < game.num_actions or not (mask >> action) & 1:
                    return -OPPONENT_ILLEGAL - 2
            if not self._apply(i, action):
                return -LOG_FULL - 2

    def _decide(self, i: int, j: int, seat: int) -> int:
        """Opponent ``j``'s (an agent's) action for ``seat`` of lane ``i``, as the slow path
        asks it: a fresh copy of its observation, its parameter row, its own stream."""
        obs = np.zeros(self.game.obs_size, np.int64)
        self.game.observe(self.states[i], seat, obs)
        stream = self.rngs[i, seat : seat + 1]
        return self.opponents[j].family.ask(obs, self.params[j], stream)

    def _ask_batch(self, j: int, where: list[int]):
        """Ask the Python callable opponent ``j`` for every lane of ``where`` at once."""
        tensors = np.zeros((len(where), self.size), np.float32)
        masks = np.zeros((len(where), self.game.num_actions), np.bool_)
        for row, i in enumerate(where):
            state = self.states[i]
            self.game.observe(state, int(state[self.game.turn_slot]), self._obs)
            self.game.encode(self._obs, tensors[row])
            write_mask(self.game.legal_mask(state), masks[row])
        actions = np.asarray(self.opponents[j](tensors, masks))
        if actions.shape != (len(where),) or actions.dtype.kind not in "iu":
            raise ValueError(
                f"a Python opponent answers one action id per lane asked, an int array of shape "
                f"({len(where)},); got shape {actions.shape}, dtype {actions.dtype}"
            )
        for row, i in enumerate(where):
            action = int(actions[row])
            if not 0 <= action < self.game.num_actions or not masks[row, action]:
                return i, OPPONENT_ILLEGAL
            if not self._apply(i, action):
                return i, LOG_FULL
        return None

    def _apply(self, i: int, action: int) -> bool:
        record = self.run[RUN_RECORD]
        if not log_action(record, self.lanes[i], self.logs[i], self.game.state_size, action):
            return False
        self.game.apply_action(self.states[i], action)
        return True

    def _end_episode(self, i: int) -> None:
        """A lane's episode is over: write its reward, lead and final tensor if the learner
        played in it (else count it skipped), then begin the lane's next episode."""
        lane = self.lanes[i]
        if self.fresh[i]:
            lane[L_SKIPPED] += 1
            self.in_row[i] += 1
        else:
            self._finish(i)
            keep_finished(self.run[RUN_RECORD], lane, self.logs[i], self.game.state_size)
        self._next_episode(i)

    def _finish(self, i: int) -> None:
        game, state, seat = self.game, self.states[i], int(self.lanes[i, L_SEAT])
        _, _, shares, dones, finals, leads = self.out
        game.rewards(state, self._shares)
        game.scores(state, self._scores)
        shares[i], dones[i] = self._shares[seat], True
        leads[i] = lead(self._scores, seat, self.n, game.lower_wins)
        game.observe(state, seat, self._obs)
        game.encode(self._obs, finals[i])

    def _next_episode(self, i: int) -> None:
        """Deal lane ``i``'s next episode (``lane_game_index``), as the kernels."""
        game, lane, state = self.game, self.lanes[i], self.states[i]
        k = int(lane[L_NEXT])
        lane[L_NEXT] = k + 1
        index = lane_game_index(int(lane[L_ID]), k)
        key = np.uint64(game_key(self.keys[KEY_SEED], index))
        first = first_seat(self.run[RUN_FIRST], index, self.n)
        game.deal_keyed(self.rules_vec, key, first, state)
        game.begin(state)
        for s in range(self.n):
            self.rngs[i, s] = agent_stream(key, self.keys[KEY_SECRET], s)
        lane[L_INDEX], lane[L_LOGGED] = index, 0
        turn = state[game.turn_slot]
        lane[L_SEAT] = learner_seat(self.run[RUN_LEARNER], lane[L_ID], k, turn, self.n)
        if self.run[RUN_RECORD]:
            self.logs[i, 0, : game.state_size] = state
        self.fresh[i] = True

    def _show(self, i: int, tensor, mask_row) -> None:
        state = self.states[i]
        self.game.observe(state, int(self.lanes[i, L_SEAT]), self._obs)
        self.game.encode(self._obs, tensor)
        write_mask(self.game.legal_mask(state), mask_row)

"""The slow path: one No Thanks! game stepped from Python, so plain-Python agents can play.

A seat is a configured :class:`~agents.base.Agent` (its compiled function is called from
Python with the same observation, parameters and random stream as in the fast loop, so the
game is identical) or any callable ``player(obs, legal) -> action``: a person at a terminal, a
neural network. Both see only the observation of their own seat.
"""

from dataclasses import dataclass

import numpy as np

from agents.base import Agent
from geschenkt_sim.engine import OBS_SIZE, apply_action, is_forced, is_legal, is_over, observe
from geschenkt_sim.engine import legal_actions as legal_of
from geschenkt_sim.rules import TAKE, Rules
from geschenkt_sim.scoring import scores
from geschenkt_sim.state import STATE_SIZE, TURN, deal
from giftsim.contract import first_policy, first_seat
from giftsim.rng import AGENT_STREAM, stream_seed


@dataclass
class PlayedGame:
    """A finished game: its start state, the actions in order, and the final state."""

    start: np.ndarray
    actions: list[int]
    final: np.ndarray
    scores: list[int]


def play_slow(rules: Rules, players, root_seed: int, game_index: int, first_player="rotate"):
    """Play one game with any mix of compiled agents and Python callables."""
    state = np.zeros(STATE_SIZE, np.int64)
    policy = first_policy(first_player, rules.n_players)
    deal(
        rules.to_array(),
        np.uint64(root_seed),
        game_index,
        first_seat(policy, game_index, rules.n_players),
        state,
    )
    start = state.copy()
    rngs = [
        np.array([stream_seed(np.uint64(root_seed), game_index, AGENT_STREAM + s)], np.uint64)
        for s in range(rules.n_players)
    ]
    actions = []
    while not is_over(state):
        action = TAKE if is_forced(state) else _ask(players, state, rngs)
        if not is_legal(state, action):
            raise ValueError(f"seat {state[TURN]} chose illegal action {action!r}")
        actions.append(int(action))
        apply_action(state, action)
    out = np.zeros(rules.n_players, np.int64)
    scores(state, out)
    return PlayedGame(start, actions, state, [int(s) for s in out])


def _ask(players, state, rngs) -> int:
    seat = int(state[TURN])
    obs = np.zeros(OBS_SIZE, np.int64)
    observe(state, seat, obs)
    player = players[seat]
    if isinstance(player, Agent):
        return int(player.family.decide(obs, player.param_row(), rngs[seat]))
    return int(player(obs, [int(a) for a in legal_of(state)]))

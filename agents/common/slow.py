"""The slow path: one game stepped from Python, so plain-Python players can join in.

A seat is a configured :class:`~agents.base.Agent` (its compiled ``decide`` is called from
Python with the same observation, parameters and random stream as in the fast loop, so the game
is the same as there) or any callable ``player(obs, legal) -> action``: a person at a terminal,
a neural network. Both see only their own seat's observation. A seat with a single legal move
is not asked, as in the fast loops.
"""

from dataclasses import dataclass

import numpy as np

from agents.base import Agent
from giftsim.contract import first_policy, first_seat
from giftsim.rng import AGENT_STREAM, check_seed, game_key, stream_from


@dataclass(frozen=True)
class Kernels:
    """The compiled verbs of one game that the slow path steps through."""

    deal: object  # deal_keyed(rules_vec, key, first_player, state)
    begin: object  # begin(state): open the game after the deal
    is_over: object
    legal_actions: object
    apply_action: object
    observe: object
    scores: object  # scores(state, out)
    state_size: int
    obs_size: int
    turn_slot: int


def kernels_of(state, engine, scores) -> Kernels:
    """The slow-path verbs of a game from its ``state`` and ``engine`` modules."""
    return Kernels(
        state.deal_keyed,
        engine.begin,
        engine.is_over,
        engine.legal_actions,
        engine.apply_action,
        engine.observe,
        scores,
        state.STATE_SIZE,
        engine.OBS_SIZE,
        state.TURN,
    )


class Stopped(Exception):
    """Raised by a Python player to end the game early; ``play_slow`` then sets ``played``
    to the game so far (its final state is where it stopped, its scores empty)."""

    played: "PlayedGame | None" = None


@dataclass
class PlayedGame:
    """A finished game: its start state, the actions in order, and the final state."""

    start: np.ndarray
    actions: list[int]
    final: np.ndarray
    scores: list[int]


def play_slow(
    kernels: Kernels, rules, players, root_seed: int, game_index: int, first_player="rotate"
) -> PlayedGame:
    """Play one game with any mix of compiled agents and Python callables."""
    check_seed(root_seed, game_index)
    n = rules.n_players
    state = np.zeros(kernels.state_size, np.int64)
    key = np.uint64(game_key(np.uint64(root_seed), game_index))
    first = first_seat(first_policy(first_player, n), game_index, n)
    kernels.deal(rules.to_array(), key, first, state)
    kernels.begin(state)
    start = state.copy()
    rngs = [np.array([stream_from(key, AGENT_STREAM + s)], np.uint64) for s in range(n)]
    actions = []
    while not kernels.is_over(state):
        legal = [int(a) for a in kernels.legal_actions(state)]
        try:
            action = legal[0] if len(legal) == 1 else _ask(kernels, players, state, rngs, legal)
        except Stopped as stop:
            stop.played = PlayedGame(start, actions, state, [])
            raise
        if action not in legal:
            raise ValueError(f"seat {state[kernels.turn_slot]} chose illegal action {action!r}")
        actions.append(action)
        kernels.apply_action(state, action)
    out = np.zeros(n, np.int64)
    kernels.scores(state, out)
    return PlayedGame(start, actions, state, [int(s) for s in out])


def _ask(kernels: Kernels, players, state, rngs, legal) -> int:
    seat = int(state[kernels.turn_slot])
    obs = np.zeros(kernels.obs_size, np.int64)
    kernels.observe(state, seat, obs)
    player = players[seat]
    if isinstance(player, Agent):
        return int(player.family.decide(obs, player.param_row(), rngs[seat]))
    return int(player(obs, legal))

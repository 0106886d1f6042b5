"""The slow path: games stepped from Python, so plain-Python players can join in.

A seat is a configured :class:`~agents.base.Agent` (its ``decide`` is called from Python with
the same observation, parameters and random stream as in the fast loop, so the game is the same
as there; a plain-Python family plays here only), any callable ``player(obs, legal) ->
action`` (a person at a terminal, a neural network), or a player with a method
``with_stream(obs, rng, legal)`` that also gets its seat's random stream (an isolated agent,
``agents.drivers.isolated.IsolatedSeat``). Each is shown a fresh copy of its own seat's
observation. A seat with a single legal action is not asked, as in the fast loops.
"""

from dataclasses import dataclass

import numpy as np

from agents.base import Agent
from agents.drivers.block import AgentError, announce, chose_illegal
from giftsim.contract import first_policy, first_seat
from giftsim.game import Game, rounds_of
from giftsim.rng import agent_stream, check_secret, check_seed, game_key


class Stopped(Exception):
    """Raised by a Python player to end the game early; ``play_slow`` then sets ``played``
    to the game so far (its final state is where it stopped, its scores empty). A
    ``KeyboardInterrupt`` during a game carries ``played`` the same way."""

    played: "PlayedGame | None" = None


@dataclass
class PlayedGame:
    """A finished game: its start state, the actions in order, and the final state."""

    start: np.ndarray
    actions: list[int]
    final: np.ndarray
    scores: list[int]


def play_slow(
    game: Game, rules, players, root_seed: int, game_index: int, first_player="rotate", secret=0
) -> PlayedGame:
    """Play one game with any mix of agents and Python callables."""
    check_secret(secret)
    announce(f"the {game.title} engine", game.apply_action, players, slow=True)
    state, key = deal(game, rules, root_seed, game_index, first_player)
    start = state.copy()
    rngs = seat_streams(key, rules.n_players, secret)
    actions = []
    try:
        while not game.is_over(state):
            legal = game.legal_actions(state)
            action = legal[0] if len(legal) == 1 else ask(game, players, state, rngs, legal)
            if action not in legal:
                seat = int(state[game.turn_slot])
                who = getattr(players[seat], "spec", "a Python player")
                raise chose_illegal(seat, who, action, legal)
            actions.append(action)
            game.apply_action(state, action)
    except (Stopped, KeyboardInterrupt) as stop:  # Ctrl-C too: the game so far can be kept
        stop.played = PlayedGame(start, actions, state, [])
        raise
    out = np.zeros(rules.n_players, np.int64)
    game.scores(state, out)
    return PlayedGame(start, actions, state, [int(s) for s in out])


def play_block_slow(
    game: Game, rules, agents, root_seed, first_index, n_games, first_player="rotate", secret=0
) -> np.ndarray:
    """The rows of the fast loop's ``play_block``, game by game through the slow path (match
    ``m`` of ``R`` rounds: the games ``m * R .. m * R + R - 1``, as in the fast loop)."""
    n, rounds = rules.n_players, rounds_of(rules)
    out = np.zeros((n_games, game.row_width(rules)), np.int64)
    for g in range(n_games):
        for r in range(rounds):
            index = (first_index + g) * rounds + r
            played = play_slow(game, rules, agents, root_seed, index, first_player, secret)
            game.result_row(played.final, n, rounds, r, out, g)
    return out


def deal(game: Game, rules, root_seed: int, game_index: int, first_player="rotate"):
    """The state of game ``game_index`` of seed ``root_seed``, dealt and begun, and its key."""
    check_seed(root_seed, game_index)
    n = rules.n_players
    state = np.zeros(game.state_size, np.int64)
    key = np.uint64(game_key(np.uint64(root_seed), game_index))
    first = first_seat(first_policy(first_player, n), game_index, n)
    game.deal_keyed(rules.to_array(), key, first, state)
    game.begin(state)
    return state, key


def seat_streams(key, n_players: int, secret=0) -> list[np.ndarray]:
    """Every seat's agent stream in the game with key ``key``, as the fast loop starts them."""
    secret = np.uint64(secret)
    return [np.array([agent_stream(key, secret, s)], np.uint64) for s in range(n_players)]


def ask(game: Game, players, state, rngs, legal) -> int:
    """The action of the seat to act: its agent's ``decide`` on a fresh copy of its observation
    with its own stream, or its Python player's answer."""
    seat = int(state[game.turn_slot])
    obs = np.zeros(game.obs_size, np.int64)
    game.observe(state, seat, obs)
    player = players[seat]
    streamed = getattr(player, "with_stream", None)
    if streamed is not None:  # an isolated seat draws from its seat's stream in its process
        return int(streamed(obs, rngs[seat], legal))
    if not isinstance(player, Agent):
        return int(player(obs, legal))
    try:
        return player.family.ask(obs, player.param_row(len(players)), rngs[seat])
    except IndexError:  # a bounds-checked user agent read past its observation
        raise AgentError(f"an agent ({player.spec}) read outside its observation") from None

"""What the experiments need of a game: its ``Game`` record, and blocks of games played fast or
slow.

A block is played by the game's compiled loop when every seat's agent is compiled, and game by
game through the slow path when one is plain Python; both give the same rows for the same
agents (a contract test checks it).
"""

from agents.drivers import block, isolated
from agents.drivers.block import IllegalActionError
from agents.drivers.slow import PlayedGame, play_block_slow
from agents.drivers.slow import play_slow as _play_slow
from giftsim.game import GAMES, TAIL, Game, load_game

__all__ = [
    "GAMES",
    "TAIL",
    "Game",
    "PlayedGame",
    "play_block",
    "play_block_isolated",
    "play_slow",
]


def play_block(
    game: str, rules, agents, seed, first_index, n_games, first_player="rotate", secret=0
):
    """Result rows of games ``first_index ..`` (``Game.row_width`` columns, ``TAIL`` last).
    Agents of untrusted modules play isolated, with the default limits (forfeits are lost
    here: :func:`play_block_isolated` returns them)."""
    if any(getattr(agent.family, "untrusted", False) for agent in agents):
        return play_block_isolated(
            game, rules, agents, seed, first_index, n_games, first_player, secret
        )[0]
    if all(agent.family.compiled for agent in agents):
        where = (seed, first_index, n_games, first_player, secret)
        try:
            return block.play_block(load_game(game), rules, agents, *where)
        except IllegalActionError as error:
            raise _pinned(error, load_game(game), rules, agents, where) from None
    return play_block_slow(
        load_game(game), rules, agents, seed, first_index, n_games, first_player, secret
    )


def _pinned(error, definition: Game, rules, agents, where) -> IllegalActionError:
    """The compiled loop's illegal action, its game played again through the slow path,
    which names the seat, its agent, the action and the legal ones (the loop says only which
    game); ``error`` itself if the slow path plays that game legally."""
    seed, _, _, first_player, secret = where
    index = error.game_index
    try:
        play_block_slow(definition, rules, agents, seed, index, 1, first_player, secret)
    except IllegalActionError as found:
        return IllegalActionError(f"game {index}: {found}; check the agent's code and parameters")
    return error


def play_block_isolated(
    game: str,
    rules,
    agents,
    seed,
    first_index,
    n_games,
    first_player="rotate",
    secret=0,
    isolation=None,
):
    """``(rows, forfeits, explained)``: :func:`play_block`'s rows of the same games with the
    agents that ``isolation`` covers (``agents.isolation.Isolation``, or its dict) each playing
    from a process of its own; each seat's forfeit code per row (``agents.isolation.FAULTS``);
    and for each seat and fault code the first row that forfeits with it and the fault's
    explanation (``agents.drivers.isolated.Explained``)."""
    from agents.isolation import Isolation

    return isolated.play_block(
        load_game(game),
        rules,
        agents,
        seed,
        first_index,
        n_games,
        first_player,
        secret,
        Isolation.of(isolation) or Isolation(),
    )


def play_slow(game: str, rules, players, seed, game_index, first_player="rotate", secret=0):
    """One game through the slow path, with any mix of agents and Python callables."""
    return _play_slow(load_game(game), rules, players, seed, game_index, first_player, secret)

"""Hidden Pile's built-in agents and its compiled game loop (``Game.agents``)."""

from agents.base import Family
from tests.toy_game.agents import random_agent, steady
from tests.toy_game.agents.loop import play_block, play_games

BUILTINS = (
    Family.of_module("random", "toy", random_agent),
    Family.of_module("steady", "toy", steady),
)
__all__ = ["BUILTINS", "play_block", "play_games"]

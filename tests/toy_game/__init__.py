"""Hidden Pile, a toy third game: shows that a game is one registration line plus its folder.

``register_game("toy", "tests.toy_game")`` (``tests/conftest.py``) adds it to the list of games.
"""

from tests.toy_game.game import GAME

__all__ = ["GAME"]

"""``giftsim play``: a person at the terminal against the bots, in either game.

The person's seat is a Python callable in the slow path (``agents.drivers.slow``), so the bots
play exactly the game they play in the compiled loop. Everything shown to the person is built
from that seat's observations, and the bots' moves only from what the table may see.
"""

from experiments.play.screen import InputEnded
from experiments.play.session import run

__all__ = ["InputEnded", "run"]

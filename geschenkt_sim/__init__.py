"""No Thanks! (Geschenkt ... ist noch zu teuer!): rules, array state, compiled engine, records."""

import giftsim  # noqa: F401  (sets the Numba cache folder before any kernel compiles)
from geschenkt_sim.game import GAME
from geschenkt_sim.rules import Rules

__all__ = ["GAME", "Rules"]

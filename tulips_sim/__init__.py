"""Gift of Tulips: rules, array state, compiled engine, records."""

import giftsim  # noqa: F401  (sets the Numba cache folder before any kernel compiles)
from tulips_sim.game import GAME
from tulips_sim.rules import Rules

__all__ = ["GAME", "Rules"]

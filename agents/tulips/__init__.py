"""Built-in Gift of Tulips agents, one module per family, registered here."""

from agents.base import Family
from agents.common.slow import kernels_of
from agents.registry import register
from agents.tulips import flatmc, greedy, hoarder, ismcts, planner, random_agent, tuned
from tulips_sim import engine, scoring, state
from tulips_sim.engine import O_SIZE as OBS_SIZE

RANDOM = register(Family.of_module("random", "tulips", random_agent), builtin=True)
GREEDY = register(Family.of_module("greedy", "tulips", greedy), builtin=True)
PLANNER = register(Family.of_module("planner", "tulips", planner), builtin=True)
HOARDER = register(Family.of_module("hoarder", "tulips", hoarder), builtin=True)
TUNED = tuple(
    register(HOARDER.tuned(name, params), builtin=True) for name, params in tuned.TUNED.items()
)
FLATMC = register(Family.of_module("flatmc", "tulips", flatmc), builtin=True)
ISMCTS = register(Family.of_module("ismcts", "tulips", ismcts), builtin=True)
BUILTINS = (RANDOM, GREEDY, PLANNER, HOARDER, *TUNED, FLATMC, ISMCTS)
KERNELS = kernels_of(state, engine, scoring.final_scores)
__all__ = ["BUILTINS", "KERNELS", "OBS_SIZE"]

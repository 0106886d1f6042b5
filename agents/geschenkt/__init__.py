"""Built-in No Thanks! agents, one module per family, registered here."""

from agents.base import Family
from agents.common.slow import kernels_of
from agents.geschenkt import flatmc, greedy, ismcts, random_agent, sniper, tuned
from agents.registry import register
from geschenkt_sim import engine, scoring, state
from geschenkt_sim.engine import OBS_SIZE

RANDOM = register(Family.of_module("random", "geschenkt", random_agent), builtin=True)
GREEDY = register(Family.of_module("greedy", "geschenkt", greedy), builtin=True)
SNIPER = register(Family.of_module("sniper", "geschenkt", sniper), builtin=True)
TUNED = tuple(
    register(SNIPER.tuned(name, params), builtin=True) for name, params in tuned.TUNED.items()
)
FLATMC = register(Family.of_module("flatmc", "geschenkt", flatmc), builtin=True)
ISMCTS = register(Family.of_module("ismcts", "geschenkt", ismcts), builtin=True)
BUILTINS = (RANDOM, GREEDY, SNIPER, *TUNED, FLATMC, ISMCTS)
KERNELS = kernels_of(state, engine, scoring.scores)
__all__ = ["BUILTINS", "KERNELS", "OBS_SIZE"]

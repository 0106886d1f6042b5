"""Built-in Gift of Tulips agents, one module per family, registered here."""

from agents.base import Family
from agents.common.slow import Kernels
from agents.registry import register
from agents.tulips import greedy, hoarder, planner, random_agent
from tulips_sim import engine, scoring, state
from tulips_sim.engine import O_SIZE as OBS_SIZE


def _family(name, module) -> Family:
    doc = module.decide.__doc__
    return Family(name, "tulips", module.decide, module.decider, module.PARAMS, doc)


RANDOM = register(_family("random", random_agent), builtin=True)
GREEDY = register(_family("greedy", greedy), builtin=True)
PLANNER = register(_family("planner", planner), builtin=True)
HOARDER = register(_family("hoarder", hoarder), builtin=True)
BUILTINS = (RANDOM, GREEDY, PLANNER, HOARDER)
KERNELS = Kernels(
    state.deal_keyed,
    engine.begin,
    engine.is_over,
    engine.legal_actions,
    engine.apply_action,
    engine.observe,
    scoring.final_scores,
    state.STATE_SIZE,
    OBS_SIZE,
    state.TURN,
)
__all__ = ["BUILTINS", "KERNELS", "OBS_SIZE"]

"""Built-in No Thanks! agents, one module per family, registered here."""

from agents.base import Family
from agents.common.slow import Kernels
from agents.geschenkt import greedy, random_agent, sniper
from agents.registry import register
from geschenkt_sim import engine, scoring, state
from geschenkt_sim.engine import OBS_SIZE


def _family(name, module) -> Family:
    doc = module.decide.__doc__
    return Family(name, "geschenkt", module.decide, module.decider, module.PARAMS, doc)


RANDOM = register(_family("random", random_agent), builtin=True)
GREEDY = register(_family("greedy", greedy), builtin=True)
SNIPER = register(_family("sniper", sniper), builtin=True)
BUILTINS = (RANDOM, GREEDY, SNIPER)
KERNELS = Kernels(
    state.deal_keyed,
    engine.begin,
    engine.is_over,
    engine.legal_actions,
    engine.apply_action,
    engine.observe,
    scoring.scores,
    state.STATE_SIZE,
    OBS_SIZE,
    state.TURN,
)
__all__ = ["BUILTINS", "KERNELS", "OBS_SIZE"]

"""Built-in No Thanks! agents, registered in the order of the compiled switch in ``loop.py``."""

from agents.base import Family
from agents.geschenkt import greedy, random_agent, sniper
from agents.registry import register

RANDOM = register(
    Family(
        "random", "geschenkt", random_agent.decide, random_agent.PARAMS, random_agent.decide.__doc__
    ),
    builtin=True,
)
GREEDY = register(
    Family("greedy", "geschenkt", greedy.decide, greedy.PARAMS, greedy.decide.__doc__),
    builtin=True,
)
SNIPER = register(
    Family("sniper", "geschenkt", sniper.decide, sniper.PARAMS, sniper.decide.__doc__),
    builtin=True,
)
BUILTINS = (RANDOM, GREEDY, SNIPER)

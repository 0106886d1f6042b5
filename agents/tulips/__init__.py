"""Built-in Gift of Tulips agents, one module per family, and the compiled game loop
(``play_games``, run by ``play_block``).

``BUILTINS`` lists the families; the registry (``agents.registry``) reads it the first time
Gift of Tulips agents are asked for. Nothing here compiles on import.
"""

from agents.base import Family
from agents.tulips import (
    flatmc,
    flatmc_net,
    greedy,
    hoarder,
    ismcts,
    ismcts_net,
    learned,
    planner,
    random_agent,
    tuned,
)
from agents.tulips.loop import play_block, play_games

RANDOM = Family.of_module("random", "tulips", random_agent)
GREEDY = Family.of_module("greedy", "tulips", greedy)
PLANNER = Family.of_module("planner", "tulips", planner)
HOARDER = Family.of_module("hoarder", "tulips", hoarder)
TUNED = tuple(HOARDER.tuned(name, params) for name, params in tuned.TUNED.items())
FLATMC = Family.of_module("flatmc", "tulips", flatmc)
ISMCTS = Family.of_module("ismcts", "tulips", ismcts)
LEARNED = Family.of_module("learned", "tulips", learned)
FLATMC_NET = Family.of_module("flatmc_net", "tulips", flatmc_net)
ISMCTS_NET = Family.of_module("ismcts_net", "tulips", ismcts_net)
BUILTINS = (
    *(RANDOM, GREEDY, PLANNER, HOARDER, *TUNED),
    *(FLATMC, ISMCTS, LEARNED, FLATMC_NET, ISMCTS_NET),
)
__all__ = ["BUILTINS", "play_block", "play_games"]

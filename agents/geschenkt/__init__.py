"""Built-in No Thanks! agents, one module per family, and the compiled game loop
(``play_games``, run by ``play_block``).

``BUILTINS`` lists the families; the registry (``agents.registry``) reads it the first time No
Thanks! agents are asked for. Nothing here compiles on import.
"""

from agents.base import Family
from agents.geschenkt import (
    flatmc,
    flatmc_net,
    greedy,
    ismcts,
    ismcts_net,
    learned,
    random_agent,
    sniper,
    solved,
    tuned,
)
from agents.geschenkt.loop import play_block, play_games

RANDOM = Family.of_module("random", "geschenkt", random_agent)
GREEDY = Family.of_module("greedy", "geschenkt", greedy)
SNIPER = Family.of_module("sniper", "geschenkt", sniper)
TUNED = tuple(SNIPER.tuned(name, params) for name, params in tuned.TUNED.items())
FLATMC = Family.of_module("flatmc", "geschenkt", flatmc)
ISMCTS = Family.of_module("ismcts", "geschenkt", ismcts)
LEARNED = Family.of_module("learned", "geschenkt", learned)
FLATMC_NET = Family.of_module("flatmc_net", "geschenkt", flatmc_net)
ISMCTS_NET = Family.of_module("ismcts_net", "geschenkt", ismcts_net)
SOLVED = Family.of_module("solved", "geschenkt", solved)  # plays a table: solved:table=FILE
BUILTINS = (RANDOM, GREEDY, SNIPER, *TUNED, FLATMC, ISMCTS, LEARNED, FLATMC_NET, ISMCTS_NET, SOLVED)
__all__ = ["BUILTINS", "play_block", "play_games"]

"""A user's agents module: ``giftsim tournament geschenkt --agents-module
docs/examples/my_agents.py --agents pot_hunter,sniper``. Each ``define`` adds a family that then
plays like the built-ins, compiled, in every backend."""

from agents.base import Range
from agents.registry import define
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.state import (
    CHIPS,
    POT,
    SEAT,
)

K = 0  # the slot of the parameter k


def pot_hunter(obs, params, rng):
    """Takes once the pot reaches ``k`` chips; takes when out of chips."""
    if obs[CHIPS + obs[SEAT]] == 0:
        return TAKE
    return TAKE if obs[POT] >= params[K] else PASS


define("geschenkt", "pot_hunter", pot_hunter, {"k": 8}, ranges={"k": Range(0, 100)})

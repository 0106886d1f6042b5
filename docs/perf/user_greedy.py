"""A greedy-like user agent for the isolation measurements (``docs/perf/isolation_cost.py``):
``greedy``'s rule, written by a user and given as an untrusted module, so that it plays from a
process of its own (``--untrusted-module docs/perf/user_greedy.py``)."""

from agents.registry import define
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.scoring import take_delta
from geschenkt_sim.state import CARD, CHIPS, HANDS, POT, SEAT


def user_greedy(obs, params, rng):
    """Take iff the change in own card points from taking, minus the chips on it, is <= 0;
    take when out of chips."""
    seat = obs[SEAT]
    if obs[CHIPS + seat] == 0:
        return TAKE
    return TAKE if take_delta(obs[HANDS + seat], obs[CARD]) - obs[POT] <= 0 else PASS


define("geschenkt", "user_greedy", user_greedy)

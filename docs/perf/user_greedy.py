"""A greedy-like user agent for the isolation measurements (``docs/perf/isolation_cost.py``):
``greedy``'s rule, written by a user and given as an untrusted module, so that it plays from a
process of its own (``--untrusted-module docs/perf/user_greedy.py``)."""

from agents.registry import define
from geschenkt_sim.engine import O_CARD, O_CHIPS, O_HANDS, O_POT, O_SEAT
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.scoring import take_delta


def user_greedy(obs, params, rng):
    """Take iff the change in own card points from taking, minus the chips on it, is <= 0;
    take when out of chips."""
    seat = obs[O_SEAT]
    if obs[O_CHIPS + seat] == 0:
        return TAKE
    return TAKE if take_delta(obs[O_HANDS + seat], obs[O_CARD]) - obs[O_POT] <= 0 else PASS


define("geschenkt", "user_greedy", user_greedy)

"""``sniper``: values chips by scarcity, milks cards that only it wants, snipes contested runs."""

from numba import njit

from agents.base import ANY
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.scoring import take_delta
from geschenkt_sim.state import (
    CARD,
    CARDS_LEFT,
    CHIPS,
    HANDS,
    N_PLAYERS,
    N_REMOVED,
    POT,
    SEAT,
    UNSEEN,
)

PARAMS = {"T": 0.0, "scarcity": 6.0, "milk": 6.0, "run": 3.0, "reserve": 2.0}
RANGES = {key: ANY for key in PARAMS}
T, SCARCITY, MILK, RUN, RESERVE = (
    list(PARAMS).index(k) for k in ("T", "scarcity", "milk", "run", "reserve")
)


@njit(cache=True)
def _wanted_by_other(obs, seat, card, pot):
    """True if another seat would gladly take the card now: it fits that seat's runs, or the
    seat has no chip left and must take it."""
    for p in range(obs[N_PLAYERS]):
        if p == seat:
            continue
        if obs[CHIPS + p] == 0 or take_delta(obs[HANDS + p], card) - pot < card // 2:
            return True
    return False


@njit(cache=True)
def _run_hope(obs, card, params):
    """Expected worth of the card's unseen neighbours, which could extend a run later."""
    unseen = obs[UNSEEN]
    n_unseen = 0
    for c in (card - 1, card + 1):
        n_unseen += (unseen >> c) & 1
    in_stack = obs[CARDS_LEFT] / max(obs[CARDS_LEFT] + obs[N_REMOVED], 1)
    return params[RUN] * n_unseen * in_stack


@njit(cache=True)
def decide(obs, params, rng):
    """Weigh the card's points against the chips on it, each chip worth ``1 + SCARCITY / (chips
    + 1)``: chips grow dear as they run out. A card that extends an own run is milked (passed,
    letting the pot grow) while nobody else wants it, the pot is under ``MILK`` and more than
    ``RESERVE`` chips remain; otherwise it is taken at once. Other cards are taken when their
    cost, less the hope of runs with unseen neighbours (``RUN``), is at most ``T``.
    """
    seat = obs[SEAT]
    chips = obs[CHIPS + seat]
    if chips == 0:
        return TAKE
    card = obs[CARD]
    pot = obs[POT]
    delta = take_delta(obs[HANDS + seat], card)
    if delta < card:
        milk = pot < params[MILK] and chips > params[RESERVE]
        return PASS if milk and not _wanted_by_other(obs, seat, card, pot) else TAKE
    worth = 1.0 + params[SCARCITY] / (chips + 1)
    cost = delta - pot * worth - _run_hope(obs, card, params)
    return TAKE if cost <= params[T] else PASS

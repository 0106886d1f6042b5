"""``hoarder`` as it was before ``race``, ``follow`` and ``pick`` joined its parameters,
kept verbatim (without its loop entry) so a test can hold today's ``hoarder`` at its defaults
to exactly these decisions."""

from numba import njit

from agents.tulips.features import immediate_points, is_legal, slot_now
from giftsim.rng import next_below
from tulips_sim.engine import O_BQ_COUNT, O_DRAWN, O_HAND, O_N_PLAYERS, O_RANK, O_SEAT
from tulips_sim.rules import (
    FESTIVAL,
    GIVE,
    KEEP,
    N_RANKS,
    N_VARIETIES,
    SECRET,
    SETUP_FIRST,
    SETUP_SECOND,
)
from tulips_sim.scoring import slot_of
from tulips_sim.state import variety_of

HOARD, CLIMB, HIDE, SECOND, FEED = 0, 1, 2, 3, 4


@njit(cache=True)
def _receiver(obs, seat, variety, rng):
    """The rival holding fewest cards of ``variety`` (uniform among equals)."""
    best, fewest, ties = -1, 1_000_000, 0
    for q in range(obs[O_N_PLAYERS]):
        count = obs[O_BQ_COUNT + q * N_VARIETIES + variety]
        if q == seat:
            continue
        if count < fewest:
            best, fewest, ties = q, count, 1
        elif count == fewest:
            ties += 1
            if next_below(rng, ties) == 0:
                best = q
    return best


@njit(cache=True)
def _leads(obs, seat, card):
    """Whether ``seat`` would be first in the card's variety with the card in its bouquet."""
    return slot_of(obs, variety_of(card), seat, seat, card) == 0


@njit(cache=True)
def _value(obs, params, seat, action, card):
    """Points now, plus ``hoard`` (``second``) for keeping a card of a top-three variety that
    leaves me first (second) in its majority, less ``feed`` for a gift that leaves the
    receiver first in a top-three variety; adding a card of a variety I lead face up is worth
    ``climb`` times (4 - its festival rank); hiding a card in the secret festival is worth
    ``hide``."""
    points = float(immediate_points(obs, action, card))
    variety = variety_of(card)
    if action == KEEP and obs[O_RANK + variety] <= 3:
        slot = slot_of(obs, variety, seat, seat, card)
        if slot == 0:
            points += params[HOARD]
        elif slot == 1:
            points += params[SECOND]
    elif action == FESTIVAL and slot_now(obs, variety, seat) == 0:
        points += params[CLIMB] * (N_RANKS - obs[O_RANK + variety])
    elif action == SECRET:
        points += params[HIDE]
    elif action >= GIVE and obs[O_RANK + variety] <= 3 and _leads(obs, action - GIVE, card):
        points -= params[FEED]
    return points


@njit(cache=True)
def decide(obs, params, rng):
    """Like greedy, take the most points now, but give only to the rival with the fewest cards of
    that variety, value keeping a card of a top-three variety that leaves me leading its
    majority at ``hoard`` extra points, value adding a card of a variety I lead face up at
    ``climb`` times (4 - its festival rank), hiding a card at ``hide``, keeping a card that
    leaves me second at ``second`` and a gift that leaves its receiver first at ``-feed``. At
    setup, bouquet the card of the higher-ranked variety."""
    seat = obs[O_SEAT]
    if is_legal(obs, SETUP_FIRST):
        first, second = obs[O_HAND], obs[O_HAND + 1]
        better_second = obs[O_RANK + variety_of(second)] < obs[O_RANK + variety_of(first)]
        return SETUP_SECOND if better_second else SETUP_FIRST
    card = obs[O_DRAWN]
    gift = GIVE + _receiver(obs, seat, variety_of(card), rng)
    best, best_value = SECRET, -1e18
    for action in (KEEP, gift, FESTIVAL, SECRET):
        if is_legal(obs, action):
            value = _value(obs, params, seat, action, card)
            if value > best_value:
                best, best_value = action, value
    return best


PARAMS = {"hoard": 3.0, "climb": 1.0, "hide": 0.0, "second": 0.0, "feed": 0.0}

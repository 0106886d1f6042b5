"""``hoarder``: scores like greedy but never feeds a rival's majority, and hoards its own.

Its last three parameters (``race``, ``follow`` and ``pick``, all 0 by default) are off at
their defaults, where ``hoarder`` decides exactly as it did before they existed (a test holds
it to that), which keeps it fast as the search agents' rollout policy. ``follow`` values the
turn's second card: on the first draw, an action that uses up giving leaves only keeping or
adding for the second card, which is worth less on average than a gift.
"""

import numpy as np
from numba import njit

from agents.base import ANY
from agents.tulips.features import (
    all_standings,
    immediate_points,
    is_legal,
    lead_after_card,
    lead_now,
    margin_after_add,
    slot_now,
    unseen,
)
from giftsim.rng import next_below
from tulips_sim.engine import (
    kind_of,
)
from tulips_sim.rules import (
    FESTIVAL,
    GIVE,
    KEEP,
    N_RANKS,
    N_TYPES,
    N_VARIETIES,
    SECRET,
    SETUP_FIRST,
    SETUP_SECOND,
)
from tulips_sim.scoring import slot_of
from tulips_sim.state import (
    BQ_COUNT,
    DRAWN,
    FIRST_DRAW,
    HAND,
    N_PLAYERS,
    PHASE,
    RANK,
    SEAT,
    variety_of,
)

PARAMS = {
    "hoard": 3.0,
    "climb": 1.0,
    "hide": 0.0,
    "second": 0.0,
    "feed": 0.0,
    "race": 0.0,
    "follow": 0.0,
    "pick": 0.0,
}
RANGES = {key: ANY for key in PARAMS}
HOARD, CLIMB, HIDE, SECOND, FEED, RACE, FOLLOW, PICK = (
    list(PARAMS).index(k)
    for k in ("hoard", "climb", "hide", "second", "feed", "race", "follow", "pick")
)
_NO_STANDINGS = (0, 0, 0, 0, 0, 0)  # stand-in when neither ``race`` nor ``pick`` reads them
_NO_FOLLOW_UPS = (0.0, 0.0, 0.0)  # stand-in when ``follow`` is off (or nothing is unseen)


@njit(cache=True)
def _fewest_holder(obs, seat, variety, rng):
    """The rival holding fewest cards of ``variety`` (uniform among equals)."""
    best, fewest, ties = -1, 1_000_000, 0
    for q in range(obs[N_PLAYERS]):
        count = obs[BQ_COUNT + q * N_VARIETIES + variety]
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
def _receiver(obs, params, seat, card, standings, rng):
    """The rival holding fewest cards of the card's variety, less ``pick`` times my margin once
    it holds the card (uniform among equals; without ``pick``, :func:`_fewest_holder`)."""
    if params[PICK] == 0.0:
        return _fewest_holder(obs, seat, variety_of(card), rng)
    best, top, ties = -1, -1e18, 0
    for q in range(obs[N_PLAYERS]):
        if q == seat:
            continue
        score = params[PICK] * lead_after_card(obs, seat, q, card, standings)
        score -= obs[BQ_COUNT + q * N_VARIETIES + variety_of(card)]
        if score > top:
            best, top, ties = q, score, 1
        elif score == top:
            ties += 1
            if next_below(rng, ties) == 0:
                best = q
    return best


@njit(cache=True)
def _race(obs, seat, action, card, standings):
    """How much resolving ``card`` with ``action`` widens my margin (secret: not at all)."""
    if action == SECRET:
        return 0
    if action == FESTIVAL:
        after = margin_after_add(obs, seat, card)
    else:
        receiver = seat if action == KEEP else action - GIVE
        after = lead_after_card(obs, seat, receiver, card, standings)
    return after - lead_now(obs, seat, standings)


@njit(cache=True)
def _fewest(obs, seat, variety):
    """The first rival holding fewest cards of ``variety`` (no random tie-break)."""
    best, fewest = -1, 1_000_000
    for q in range(obs[N_PLAYERS]):
        count = obs[BQ_COUNT + q * N_VARIETIES + variety]
        if q != seat and count < fewest:
            best, fewest = q, count
    return best


@njit(cache=True)
def _follow_ups(obs, params, seat):
    """For each kind used on the turn's first card (indexed by ``KIND_KEEP``, ``KIND_GIVE``,
    ``KIND_ADD``), the expected value (``_value``) of the best action of another kind on the
    second card, drawn from the cards I have not seen. One pass over the card types."""
    after_keep, after_give, after_add, weight = 0.0, 0.0, 0.0, 0
    for card in range(N_TYPES):
        copies = unseen(obs, card)
        if copies <= 0:
            continue
        gift = GIVE + _fewest(obs, seat, variety_of(card))
        keep = _value(obs, params, seat, np.int64(KEEP), card)  # int64: one compile (features)
        give = _value(obs, params, seat, gift, card)
        add = max(
            _value(obs, params, seat, np.int64(FESTIVAL), card),
            _value(obs, params, seat, np.int64(SECRET), card),
        )
        after_keep += copies * max(give, add)
        after_give += copies * max(keep, add)
        after_add += copies * max(keep, give)
        weight += copies
    if weight == 0:
        return _NO_FOLLOW_UPS
    return after_keep / weight, after_give / weight, after_add / weight


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
    if action == KEEP and obs[RANK + variety] <= 3:
        slot = slot_of(obs, variety, seat, seat, card)
        if slot == 0:
            points += params[HOARD]
        elif slot == 1:
            points += params[SECOND]
    elif action == FESTIVAL and slot_now(obs, variety, seat) == 0:
        points += params[CLIMB] * (N_RANKS - obs[RANK + variety])
    elif action == SECRET:
        points += params[HIDE]
    elif action >= GIVE and obs[RANK + variety] <= 3 and _leads(obs, action - GIVE, card):
        points -= params[FEED]
    return points


@njit(cache=True)
def _best_now(obs, params, seat, card, rng):
    """The action of highest ``_value`` for ``card`` (``race``, ``follow`` and ``pick`` off: the
    fast path of the search agents' playouts: Tulips ``flatmc`` decides in 7.2 ms with it, 8.7
    ms through :func:`_best_ahead` with all three at 0)."""
    gift = GIVE + _fewest_holder(obs, seat, variety_of(card), rng)
    best, best_value = SECRET, -1e18
    for action in (KEEP, gift, FESTIVAL, SECRET):
        if is_legal(obs, action):
            value = _value(obs, params, seat, action, card)
            if value > best_value:
                best, best_value = action, value
    return best


@njit(cache=True)
def _best_ahead(obs, params, seat, card, rng):
    """As :func:`_best_now`, with the ``race`` and ``follow`` terms and the ``pick`` receiver;
    what each needs is computed only when it is on."""
    race = params[RACE]
    follow = params[FOLLOW] if obs[PHASE] == FIRST_DRAW else 0.0
    standings = all_standings(obs) if race != 0.0 or params[PICK] != 0.0 else _NO_STANDINGS
    gift = GIVE + _receiver(obs, params, seat, card, standings, rng)
    follow_ups = _follow_ups(obs, params, seat) if follow != 0.0 else _NO_FOLLOW_UPS
    best, best_value = SECRET, -1e18
    for action in (KEEP, gift, FESTIVAL, SECRET):
        if is_legal(obs, action):
            value = _value(obs, params, seat, action, card)
            if race != 0.0:
                value += race * _race(obs, seat, action, card, standings)
            if follow != 0.0:
                value += follow * follow_ups[kind_of(action)]
            if value > best_value:
                best, best_value = action, value
    return best


@njit(cache=True, inline="always")
def decide(obs, params, rng):
    """Like greedy, take the most points now, but give only to the rival with the fewest cards of
    that variety, value keeping a card of a top-three variety that leaves me leading its
    majority at ``hoard`` extra points, value adding a card of a variety I lead face up at
    ``climb`` times (4 - its festival rank), hiding a card at ``hide``, keeping a card that
    leaves me second at ``second`` and a gift that leaves its receiver first at ``-feed``. Add
    ``race`` times the change in my margin (my points so far plus majority points if the game
    ended now, minus the best rival's) and, on the turn's first draw, ``follow`` times the
    expected value of the best action left for the second card (of another kind, on a card
    drawn from those I have not seen); choose a gift's receiver by fewest cards less ``pick``
    times my margin after the gift. At setup, bouquet the card of the higher-ranked variety."""
    seat = obs[SEAT]
    if is_legal(obs, SETUP_FIRST):
        first, second = obs[HAND], obs[HAND + 1]
        better_second = obs[RANK + variety_of(second)] < obs[RANK + variety_of(first)]
        return SETUP_SECOND if better_second else SETUP_FIRST
    card = obs[DRAWN]
    if params[RACE] == 0.0 and params[FOLLOW] == 0.0 and params[PICK] == 0.0:
        return _best_now(obs, params, seat, card, rng)
    return _best_ahead(obs, params, seat, card, rng)

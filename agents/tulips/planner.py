"""``planner``: points now plus the change in the majority race, one action ahead."""

from numba import njit

from agents.base import ANY
from agents.tulips.features import (
    all_points,
    immediate_points,
    is_legal,
    lead_after_add,
    lead_after_card,
    lead_now,
)
from giftsim.rng import next_below
from tulips_sim.rules import FESTIVAL, GIVE, KEEP, NUM_ACTIONS, SECRET, SETUP_FIRST, SETUP_SECOND
from tulips_sim.state import (
    DRAWN,
    HAND,
    SEAT,
)

PARAMS = {"race": 0.6, "secret": 1.0}
RANGES = {key: ANY for key in PARAMS}
W_RACE, W_SECRET = (list(PARAMS).index(k) for k in ("race", "secret"))


@njit(cache=True)
def _lead_after(obs, seat, action, card, base, points):
    """My majority lead after resolving ``card`` with ``action`` (secret: unchanged)."""
    if action == KEEP:
        return lead_after_card(obs, seat, seat, card, points)
    if action == FESTIVAL:
        return lead_after_add(obs, seat, card)
    if action == SECRET:
        return base
    return lead_after_card(obs, seat, action - GIVE, card, points)


@njit(cache=True)
def decide(obs, params, rng):
    """Score every legal action by the points it scores now plus ``race`` times how much it
    widens my lead in the majority race (majority points if the game ended now, mine minus
    the best rival's), counting a face-up festival card's rerank and a gift's boost to its
    receiver; a card hidden in the secret festival is worth ``secret``. At setup, bouquet the
    card that leads the race better."""
    seat = obs[SEAT]
    points = all_points(obs)
    if is_legal(obs, SETUP_FIRST):
        first = lead_after_card(obs, seat, seat, obs[HAND], points)
        second = lead_after_card(obs, seat, seat, obs[HAND + 1], points)
        return SETUP_FIRST if first >= second else SETUP_SECOND
    card = obs[DRAWN]
    base = lead_now(obs, seat, points)
    best, best_value, ties = -1, -1e18, 0
    for action in range(NUM_ACTIONS):
        if not is_legal(obs, action):
            continue
        race = _lead_after(obs, seat, action, card, base, points) - base
        bonus = params[W_SECRET] if action == SECRET else 0.0
        value = immediate_points(obs, action, card) + params[W_RACE] * race + bonus
        if value > best_value:
            best, best_value, ties = action, value, 1
        elif value == best_value:
            ties += 1  # uniform among equals, so no receiver of gifts is favoured
            if next_below(rng, ties) == 0:
                best = action
    return best

"""``greedy``: the most points right now."""

from numba import njit

from agents.tulips.features import immediate_points, is_legal
from giftsim.bits import lowest_bit
from giftsim.rng import next_below
from tulips_sim.rules import SETUP_FIRST, SETUP_SECOND
from tulips_sim.state import (
    DRAWN,
    HAND,
    LEGAL,
    value_of,
)


@njit(cache=True, inline="always")
def decide(obs, params, rng):
    """Take the legal action that scores the most points now, picking uniformly among equally
    good ones (so no receiver of gifts is favoured). At setup, put the higher card in the
    bouquet (the first one on equal values)."""
    if is_legal(obs, SETUP_FIRST):
        higher_second = value_of(obs[HAND + 1]) > value_of(obs[HAND])
        return SETUP_SECOND if higher_second else SETUP_FIRST
    card = obs[DRAWN]
    best, best_points, ties = -1, -1, 0
    legal = obs[LEGAL]
    while legal != 0:  # the legal actions, lowest first
        action = lowest_bit(legal)
        legal &= legal - 1
        points = immediate_points(obs, action, card)
        if points > best_points:
            best, best_points, ties = action, points, 1
        elif points == best_points:
            ties += 1  # reservoir sampling: each tied action is kept with chance 1/ties
            if next_below(rng, ties) == 0:
                best = action
    return best


PARAMS = {}
RANGES = {}

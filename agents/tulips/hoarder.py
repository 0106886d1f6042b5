"""``hoarder``: keeps what it can win, gives away what helps nobody, pushes its own colours."""

import numpy as np
from numba import njit

from agents.tulips.features import is_legal, variety_slots
from giftsim.contract import DECIDER_SIG, as_arrays
from tulips_sim.engine import O_BQ_COUNT, O_DRAWN, O_HAND, O_N_PLAYERS, O_RANK, O_SEAT, O_SIZE
from tulips_sim.rules import FESTIVAL, GIVE, KEEP, MAX_PLAYERS, N_VARIETIES, SECRET, SETUP_FIRST
from tulips_sim.state import variety_of


@njit(cache=True)
def _weakest_rival(obs, seat, variety):
    """The other seat with the fewest cards of ``variety`` (lowest seat on ties)."""
    best, fewest = -1, 1_000_000
    for q in range(obs[O_N_PLAYERS]):
        count = obs[O_BQ_COUNT + q * N_VARIETIES + variety]
        if q != seat and count < fewest:
            best, fewest = q, count
    return best


@njit(cache=True)
def _wish(obs, seat, card):
    """Preferred actions for ``card``, best first, as four action ids."""
    variety = variety_of(card)
    rank = obs[O_RANK + variety]
    mine = obs[O_BQ_COUNT + seat * N_VARIETIES + variety]
    gift = GIVE + _weakest_rival(obs, seat, variety)
    slots = np.empty(MAX_PLAYERS, np.int64)
    variety_slots(obs, variety, seat, card, slots)
    winnable = slots[seat] == 0
    if rank <= 3 and winnable:
        return KEEP, gift, FESTIVAL, SECRET
    if rank <= 2:
        return gift, KEEP, SECRET, FESTIVAL
    if mine > 0:
        return FESTIVAL, KEEP, gift, SECRET
    return KEEP, SECRET, gift, FESTIVAL


@njit(cache=True)
def decide(obs, params, rng):
    """Keep a card whose variety ranks in the top three when keeping it puts me first in
    that variety; give a top-two card I cannot win to the rival holding fewest of it; add a
    card of a colour I collect face up to push it up the festival; otherwise keep (keeping
    low-ranked colours still pays) or hide it. At setup, bouquet the card of the
    higher-ranked variety."""
    seat = obs[O_SEAT]
    if is_legal(obs, SETUP_FIRST):
        first, second = obs[O_HAND], obs[O_HAND + 1]
        better_second = obs[O_RANK + variety_of(second)] < obs[O_RANK + variety_of(first)]
        return SETUP_FIRST + 1 if better_second else SETUP_FIRST
    card = obs[O_DRAWN]
    choice = SECRET
    for action in _wish(obs, seat, card)[::-1]:  # the wish list names every action kind
        if is_legal(obs, action):
            choice = action
    return choice


PARAMS = {}


@njit(DECIDER_SIG, cache=True)
def decider(obs, params, rng):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``)."""
    o, p, r = as_arrays(obs, params, rng, O_SIZE)
    return decide(o, p, r)

"""Gift of Tulips for the search agents: worlds drawn from one seat's observation, and the verbs.

The cards a seat has not seen are the whole deck (``COPIES`` of every value per variety) less
the face-up festival, every bouquet, its own secret cards, the card it holds and its dealt pair.
A world shuffles that multiset and deals it out to the hidden places: the draw pile
(``DECK_LEFT`` cards), the other seats' secret cards, during the setup the others' dealt or
chosen cards, and the removed cards. Which other seat owns a secret card is drawn at random (it
changes nothing but that seat's private view); the end-game reveal gets a fresh random stream.
"""

import numpy as np
from numba import njit

from agents.kernels.search import fingerprint
from agents.tulips import greedy, hoarder, planner, random_agent
from agents.tulips.features import all_standings
from agents.tulips.tuned import TUNED
from giftsim.contract import MAX_PARAMS, readonly
from giftsim.rng import next_below, next_u64, shuffle
from tulips_sim.engine import (
    is_over,
)
from tulips_sim.rules import MAX_DECK, MAX_PLAYERS, N_TYPES
from tulips_sim.scoring import final_scores
from tulips_sim.state import (
    BOUQUET,
    COPIES,
    DEALT,
    DECK,
    DECK_LEFT,
    DECK_N,
    DRAWN,
    FACE_UP,
    HAND,
    MAJORITY_PTS,
    N_PLAYERS,
    OBS_SIZE,
    OWN_SECRET,
    PENDING,
    PHASE,
    PILE,
    REMOVED,
    REVEAL_KEY,
    SEAT,
    SECRET_SIZE,
    SECRETS,
    SETUP,
    SETUP_OPEN,
    TOP,
    TURN,
)

CALL_RULES = True  # the rules' step verbs are called here, not copied in (giftsim.inlining)

# Default policies of the playouts, by the number in a search agent's ``policy`` parameter.
# "tuned" is hoarder with the tuned built-in's parameters for the player count, or for the
# count that shares its festival cards (3 players: ``tuned4p``, 5 players: ``tuned6p``), less
# ``race`` and ``pick``: they weigh little (their tuned values are small) and would make the
# playouts several times slower.
POLICIES = ("random", "greedy", "hoarder", "planner", "tuned")
LEAD_SCALE = 30.0  # points: a typical spread of final scores
NET_MIX = 0.5  # ismcts_net's weight of the network's value against the playout's end
_MODULES = (random_agent, greedy, hoarder, planner)
_POLICY_PARAMS = np.zeros((len(POLICIES), MAX_PARAMS), np.float64)
for _row, _module in enumerate(_MODULES):
    _POLICY_PARAMS[_row, : len(_module.PARAMS)] = list(_module.PARAMS.values())
_TUNED_PARAMS = np.zeros((MAX_PLAYERS + 1, MAX_PARAMS), np.float64)
for _n in range(2, MAX_PLAYERS + 1):
    _values = TUNED[f"tuned{_n + _n % 2}p"]
    _TUNED_PARAMS[_n, : len(_values)] = list(_values.values())
    _TUNED_PARAMS[_n, [hoarder.RACE, hoarder.PICK]] = 0.0


@njit(cache=True)
def unseen_of(obs, t):
    """Copies of card type ``t`` the observing seat has not seen."""
    count = obs[COPIES + t] - obs[FACE_UP + t] - obs[OWN_SECRET + t]
    for p in range(obs[N_PLAYERS]):
        count -= obs[BOUQUET + p * N_TYPES + t]
    if obs[DRAWN] == t:
        count -= 1
    if obs[PHASE] == SETUP:
        for k in range(2):
            if obs[HAND + k] == t:
                count -= 1
    return count


@njit(cache=True)
def world(obs, rng, state):
    """Fill ``state`` with a random world consistent with ``obs`` (see the module docstring).
    Allocates nothing: the unseen cards are shuffled where the draw pile lies (its first
    ``DECK_LEFT`` cards are the pile; the rest, which is never drawn, the other hidden
    places' cards)."""
    for i in range(OBS_SIZE):  # an explicit loop: a slice copy allocates views here
        state[i] = obs[i]
    cards = _shuffled(obs, rng, state[DECK : DECK + MAX_DECK])
    used = _fill_pile(obs, state)
    used = _fill_secrets(obs, rng, cards, used, state)
    used = _fill_setup(obs, cards, used, state)
    for t in range(N_TYPES):
        state[REMOVED + t] = 0
    for k in range(used, cards.shape[0]):
        state[REMOVED + cards[k]] += 1
    state[REVEAL_KEY] = np.int64(next_u64(rng))
    for p in range(MAX_PLAYERS):
        state[MAJORITY_PTS + p] = 0


@njit(cache=True)
def _shuffled(obs, rng, cards):
    """The unseen cards, shuffled, in the first slots of ``cards`` (returned: those slots)."""
    n = 0
    for t in range(N_TYPES):
        for _ in range(unseen_of(obs, t)):
            cards[n] = t
            n += 1
    shuffle(cards[:n], rng)
    return cards[:n]


@njit(cache=True)
def _fill_pile(obs, state):
    """The draw pile: the first ``DECK_LEFT`` unseen cards (shuffled in place at ``DECK``)."""
    left = obs[DECK_LEFT]
    state[TOP], state[DECK_N] = 0, left
    return left


@njit(cache=True)
def _fill_secrets(obs, rng, cards, used, state):
    """The secret festival: own cards as known, the others' drawn from ``cards``, in a random
    pile order; each other card goes to a random other seat."""
    n, seat, size = obs[N_PLAYERS], obs[SEAT], obs[SECRET_SIZE]
    for i in range(n * N_TYPES):
        state[SECRETS + i] = 0
    k = 0
    for t in range(N_TYPES):
        for _ in range(obs[OWN_SECRET + t]):
            state[PILE + k] = t
            state[SECRETS + seat * N_TYPES + t] += 1
            k += 1
    while k < size:
        other = next_below(rng, n - 1)
        other = other if other < seat else other + 1
        state[PILE + k] = cards[used]
        state[SECRETS + other * N_TYPES + cards[used]] += 1
        used += 1
        k += 1
    shuffle(state[PILE : PILE + size], rng)
    return used


@njit(cache=True)
def _fill_setup(obs, cards, used, state):
    """During the setup (seats choose in order 0, 1, ...): the choices of the seats before the
    one to act, and the dealt pairs of the seats after it. Under ``setup="in_turn"`` the
    earlier seats' choices are already face up in their bouquets."""
    if obs[PHASE] != SETUP:
        return used
    seat = obs[SEAT]
    for p in range(obs[N_PLAYERS]):
        if p < seat and obs[SETUP_OPEN]:
            state[PENDING + p] = 0  # chosen: the card is in its bouquet already
        elif p < seat:
            state[PENDING + p] = cards[used]
            state[DEALT + 2 * p] = cards[used]
            state[DEALT + 2 * p + 1] = -1
            used += 1
        elif p > seat:
            state[PENDING + p] = -1
            state[DEALT + 2 * p] = cards[used]
            state[DEALT + 2 * p + 1] = cards[used + 1]
            used += 2
        else:
            state[PENDING + p] = -1
            state[DEALT + 2 * p] = obs[HAND]
            state[DEALT + 2 * p + 1] = obs[HAND + 1]
    return used


@njit(cache=True)
def policy_action(state, policy, rng):
    """The default policy's action for the seat to act (the state's prefix is its view)."""
    obs = readonly(state[:OBS_SIZE])  # typed as the entries show it: one compilation
    if policy == 0:
        return random_agent.decide(obs, _POLICY_PARAMS[0], rng)
    if policy == 1:
        return greedy.decide(obs, _POLICY_PARAMS[1], rng)
    if policy == 2:
        return hoarder.decide(obs, _POLICY_PARAMS[2], rng)
    if policy == 3:
        return planner.decide(obs, _POLICY_PARAMS[3], rng)
    return hoarder.decide(obs, _TUNED_PARAMS[obs[N_PLAYERS]], rng)


@njit(cache=True)
def standings(state, out):
    """Every seat's score as it stands: the final scores once the game is over, else the
    points scored plus the majority points the face-up festival pays now (public)."""
    if is_over(state):
        final_scores(state, out)
        return
    standing = all_standings(readonly(state[:OBS_SIZE]))  # as agents read it: one compile
    for p in range(state[N_PLAYERS]):
        out[p] = standing[p]


@njit(cache=True)
def view_key(state, observer):
    """The search key of the decision of the seat to act (the state's prefix is its view): for
    ``observer``, its whole view; for another seat, its view less its secret festival cards,
    which a world samples afresh each time (its drawn card stays: it decides the move)."""
    if state[TURN] == observer:
        return fingerprint(state[:OBS_SIZE])
    return fingerprint(state[:OWN_SECRET])

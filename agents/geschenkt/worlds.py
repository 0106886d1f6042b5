"""No Thanks! for the search agents: worlds drawn from one seat's observation, and the verbs.

A world keeps the observation's public slots and fills the hidden ones: the unseen cards (the
stack and the removed cards together, ``UNSEEN``) are shuffled and the first ``CARDS_LEFT``
of them become the stack; when chips are hidden, the chips neither the seat's own nor on the
card (``TOTAL_CHIPS`` less those) are dealt one by one to random opponents.
"""

import numpy as np
from numba import njit

from agents.geschenkt import greedy, random_agent, sniper
from agents.geschenkt.tuned import TUNED
from agents.kernels.search import fingerprint
from geschenkt_sim.engine import (
    OBS_SIZE,
    observe,
)
from geschenkt_sim.rules import MAX_CARD, MAX_PLAYERS, TAKE
from geschenkt_sim.scoring import scores
from geschenkt_sim.state import (
    CARD,
    CARDS_LEFT,
    CHIPS,
    CHIPS_VISIBLE,
    DECK,
    N_CARDS,
    N_PLAYERS,
    POS,
    POT,
    REMOVED,
    SEAT,
    TOTAL_CHIPS,
    TURN,
    UNSEEN,
)
from giftsim.contract import MAX_PARAMS, readonly
from giftsim.rng import next_below, shuffle

# Default policies of the playouts, by the number in a search agent's ``policy`` parameter.
# "tuned" is sniper with the tuned built-in's parameters for the game's player count (sniper's
# own where there is none); "greedy or tuned" tosses a coin between the two at every decision.
POLICIES = ("random", "greedy", "sniper", "tuned", "greedy or tuned")
LEAD_SCALE = 40.0  # points: a typical spread of final scores
NET_MIX = 0.75  # ismcts_net's weight of the network's value against the playout's end
_POLICY_PARAMS = np.zeros((len(POLICIES), MAX_PARAMS), np.float64)
for _row, _module in enumerate((random_agent, greedy, sniper)):
    _POLICY_PARAMS[_row, : len(_module.PARAMS)] = list(_module.PARAMS.values())
_TUNED_PARAMS = np.tile(_POLICY_PARAMS[2], (MAX_PLAYERS + 1, 1))
for _name, _values in TUNED.items():
    _TUNED_PARAMS[int(_name[5:-1]), : len(_values)] = list(_values.values())


@njit(cache=True)
def world(obs, rng, state):
    """Fill ``state`` with a random world consistent with ``obs`` (see the module docstring)."""
    state[:OBS_SIZE] = obs
    unseen = np.empty(MAX_CARD + 1, np.int64)
    n = 0
    for c in range(MAX_CARD + 1):
        if (obs[UNSEEN] >> c) & 1:
            unseen[n] = c
            n += 1
    shuffle(unseen[:n], rng)
    stack = obs[CARDS_LEFT]
    state[DECK] = obs[CARD]
    state[DECK + 1 : DECK + 1 + stack] = unseen[:stack]
    state[POS], state[N_CARDS], state[REMOVED] = 0, stack + 1, 0
    for k in range(stack, n):
        state[REMOVED] |= np.int64(1) << unseen[k]
    if not obs[CHIPS_VISIBLE]:
        _deal_hidden_chips(obs, rng, state)


@njit(cache=True)
def _deal_hidden_chips(obs, rng, state):
    n, seat = obs[N_PLAYERS], obs[SEAT]
    free = obs[TOTAL_CHIPS] - obs[CHIPS + seat] - obs[POT]
    for p in range(n):
        if p != seat:
            state[CHIPS + p] = 0
    for _ in range(free):
        other = next_below(rng, n - 1)
        state[CHIPS + (other if other < seat else other + 1)] += 1


@njit(cache=True)
def policy_action(state, policy, rng):
    """The default policy's action for the seat to act, shown the state's public prefix."""
    seat = state[TURN]
    state[SEAT] = seat
    if state[CHIPS + seat] == 0:
        return TAKE
    obs = readonly(state[:OBS_SIZE])  # typed as the entries show it: one compilation
    if policy == 0:
        return random_agent.decide(obs, _POLICY_PARAMS[0], rng)
    if policy == 1:
        return greedy.decide(obs, _POLICY_PARAMS[1], rng)
    if policy == 2:
        return sniper.decide(obs, _POLICY_PARAMS[2], rng)
    if policy == 4 and next_below(rng, 2) == 0:
        return greedy.decide(obs, _POLICY_PARAMS[1], rng)
    return sniper.decide(obs, _TUNED_PARAMS[state[N_PLAYERS]], rng)


@njit(cache=True)
def standings(state, out):
    """Every seat's score as it stands (card points less chips), into ``out[:n]``."""
    scores(state, out)


@njit(cache=True)
def view_key(state, observer):
    """The search key of the decision of the seat to act, told apart by what ``observer`` sees:
    its own view (sampled hidden chips stay hidden, so the key depends on no sampled chip)."""
    view = np.empty(OBS_SIZE, np.int64)
    observe(state, observer, view)
    return fingerprint(view)

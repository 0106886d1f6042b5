"""``flatmc_net``: flat Monte Carlo with the learned value, where its playouts stop or (``leaf`` 1)
over the afterstates of the root's actions."""

import numpy as np
from numba import njit

from agents.base import Choice, Range
from agents.common.net import weights_of
from agents.common.search import (
    ITERS,
    POLICY,
    best_of,
    least_of,
    only_action,
    search_ranges,
)
from agents.tulips import learned
from agents.tulips.leaf import (
    MAX_DEPTH,
    NET_POLICIES,
    after_shares,
    new_space,
    play_to_end,
    truncated_value,
)
from agents.tulips.worlds import values, world
from giftsim.bits import popcount
from giftsim.contract import as_arrays
from tulips_sim.engine import O_SIZE, apply_action, legal_mask
from tulips_sim.rules import MAX_PLAYERS, NUM_ACTIONS
from tulips_sim.scoring import rewards
from tulips_sim.state import N_PLAYERS, STATE_SIZE, TURN

n_features = learned.n_features  # reads a network: ``flatmc_net:net=FILE``


@njit(cache=True)
def decide(obs, params, rng):
    """Try each legal action in ``iters`` / (legal actions) worlds drawn from what this seat may
    know, with the default policy ``policy`` (0 random, 1 greedy, 2 hoarder, 3 planner, 4 tuned
    hoarder, 5 the learned one-ply agent) in the playouts, and take the action of the highest
    mean value; the network is the agent's ``net`` (default: the shipped one). ``leaf`` says
    where the network's value enters:

    - 1: each action's afterstate for this seat, valued once a decision, weighs ``mix``
      against the playouts' share of the win at the end (:func:`_decide_own`); ``top`` above
      0 spends the playouts on the ``top`` actions the network values most only;
    - 0: the playouts stop after ``depth`` plies and the world reached is valued by the
      network (each seat's share from its own view, the true shares once the game is over;
      ``depth`` 0 values the world right after the action); with ``mix`` below 1 they play on
      to the end and take ``mix`` times that value plus the rest times the true shares
      (``agents/tulips/leaf.py``).

    Either way ``margin`` times the score lead where the playout ends is added.
    """
    state = np.empty(STATE_SIZE, np.int64)
    world(obs, rng, state)
    seat, mask = state[TURN], legal_mask(state)
    if only_action(mask) >= 0:
        return only_action(mask)
    space, depth, mix = new_space(state[N_PLAYERS]), int(params[DEPTH]), params[MIX_AT]
    if int(params[LEAF]) == OWN:
        return _decide_own(obs, params, rng, state, mask, space)
    totals = np.zeros(NUM_ACTIONS, np.float64)
    for _ in range(max(int(params[ITERS]) // popcount(mask), 1)):
        for action in range(NUM_ACTIONS):
            if (mask >> action) & 1:
                world(obs, rng, state)
                apply_action(state, action)
                totals[action] += truncated_value(state, params, depth, mix, seat, rng, space)
    return best_of(totals, mask)


@njit(cache=True)
def _decide_own(obs, params, rng, state, mask, space):
    """The ``leaf`` 1 search (``depth`` unused): each legal action's value is ``mix`` times the
    network's share of the seat's afterstate (:func:`leaf.after_shares`: one world for all
    actions, as ``learned`` values them, once a decision) plus the mean over its worlds of the
    rest times the share at the end of a full playout and ``margin`` times the score lead
    there. With ``top`` above 0 the playouts go to the ``top`` actions the network values most
    only. The network costs a few evaluations a decision, not one per world."""
    seat, net, mix, policy = state[TURN], weights_of(params), params[MIX_AT], int(params[POLICY])
    totals, end, shares = np.zeros(NUM_ACTIONS), np.empty(MAX_PLAYERS), np.empty(MAX_PLAYERS)
    prior, top = np.zeros(NUM_ACTIONS), int(params[TOP])
    if mix > 0.0 or top > 0:  # else flatmc's search, on flatmc's stream
        after_shares(state, net, rng, space, prior)
    while 0 < top < popcount(mask):
        mask &= ~(np.int64(1) << least_of(prior, mask))
    if only_action(mask) >= 0:
        return only_action(mask)
    rounds = max(int(params[ITERS]) // popcount(mask), 1)
    for action in range(NUM_ACTIONS):
        totals[action] = rounds * mix * prior[action]
    for _ in range(rounds):
        for action in range(NUM_ACTIONS):
            if (mask >> action) & 1:
                world(obs, rng, state)
                apply_action(state, action)
                play_to_end(state, policy, params, rng, space)
                values(state, params, end)
                rewards(state, shares)
                totals[action] += end[seat] - mix * shares[seat]
    return best_of(totals, mask)


SEARCH = {"iters": 1500.0, "policy": 2.0, "margin": 0.5}  # flatmc's, at flatmc's time
# Against flatmc at 2 players (150 deals, seed 21): leaf 1 with mix 0.75 won 0.568 [0.518,
# 0.619] (0.5: 0.543); leaf 0 (900 iterations for the same time) with mix 0.75 0.550, 0.5
# 0.482, 0.65 / 0.85 0.543 / 0.553. The network's address rides in slot 7 (NET_SLOT).
SEATS, OWN = 0, 1  # leaf: every seat's share from its own view after ``depth`` plies; own only
PARAMS = {**SEARCH, "depth": 0.0, "mix": 0.75, "leaf": 1.0, "top": 0.0}
RANGES = {
    **search_ranges(SEARCH, len(NET_POLICIES)),
    "depth": Range(0, MAX_DEPTH, True),
    "mix": Range(0.0, 1.0),
    "leaf": Choice((float(SEATS), float(OWN))),
    "top": Range(0, NUM_ACTIONS, True),
}
DEPTH, MIX_AT, LEAF, TOP = (list(PARAMS).index(k) for k in ("depth", "mix", "leaf", "top"))


@njit(cache=True)
def decider(obs, params, rng, scratch):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``)."""
    o, p, r = as_arrays(obs, params, rng, O_SIZE)
    return decide(o, p, r)

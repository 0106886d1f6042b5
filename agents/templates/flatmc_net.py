"""``flatmc_net``: flat Monte Carlo with the learned value, where its playouts stop or (``leaf`` 1)
over the afterstates of the root's actions."""

import numpy as np
from numba import njit

from agents.base import Choice, Range, search_ranges
from agents.kernels.net import weights_of
from agents.kernels.search import ITERS, POLICY, best_of, least_of, only_action
from giftsim.bits import popcount
from giftsim.contract import as_arrays
from giftsim.game import N_PLAYERS

from .game import (
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBS_SIZE,
    STATE_SIZE,
    TURN,
    apply_action,
    legal_mask,
    rewards,
    world,
)
from .leaf import (
    MAX_DEPTH,
    NET_POLICIES,
    after_shares,
    new_space,
    play_to_end_net,
    truncated_value,
)
from .playouts import values

CALL_RULES = True  # the rules' step verbs are called here, not copied in (giftsim.inlining)


@njit(cache=True)
def decide(obs, params, rng):
    """Try each legal action in ``iters`` / (legal actions) worlds drawn from what this seat may
    know, with the default policy ``policy`` in the playouts (the game's search policies, then
    the learned one-ply agent), and take the action of the highest mean value; the network is
    the agent's ``net`` (default: the shipped one). ``leaf`` says where the network's value
    enters:

    - 1: each action's afterstate for this seat, valued once a decision, weighs ``mix``
      against the playouts' share of the win at the end (:func:`_decide_own`); ``top`` above
      0 spends the playouts on the ``top`` actions the network values most only;
    - 0: the playouts stop after ``depth`` plies and the world reached is valued by the
      network (each seat's share from its own view, the true shares once the game is over;
      ``depth`` 0 values the world right after the action); with ``mix`` below 1 they play on
      to the end and take ``mix`` times that value plus the rest times the true shares
      (``leaf.py``).

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
                play_to_end_net(state, policy, params, rng, space)
                values(state, params, end)
                rewards(state, shares)
                totals[action] += end[seat] - mix * shares[seat]
    return best_of(totals, mask)


SEATS, OWN = 0, 1  # leaf: every seat's share from its own view after ``depth`` plies; own only
NAMES = ("iters", "policy", "margin", "depth", "mix", "leaf", "top")  # the network: NET_SLOT
DEPTH, MIX_AT, LEAF, TOP = (NAMES.index(k) for k in ("depth", "mix", "leaf", "top"))


def ranges() -> dict:
    """The valid values of ``flatmc_net``'s parameters."""
    return {
        **search_ranges(dict.fromkeys(NAMES[:3]), len(NET_POLICIES)),
        "depth": Range(0, MAX_DEPTH, True),
        "mix": Range(0.0, 1.0),
        "leaf": Choice((float(SEATS), float(OWN))),
        "top": Range(0, NUM_ACTIONS, True),
    }


@njit(cache=True)
def decider(obs, params, rng, scratch):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``)."""
    o, p, r = as_arrays(obs, params, rng, OBS_SIZE)
    return decide(o, p, r)

"""``flatmc``: flat Monte Carlo over sampled worlds; ``flatmc_net``: the same search with the
learned value, where its playouts stop or (``leaf`` 1) over the afterstates of the root's
actions (this text with its leaf line importing ``leaf.py`` instead of ``no_net.py``:
``agents.drivers.generate``)."""

import numpy as np
from numba import njit

from agents.base import search_ranges
from agents.kernels.search import ITERS, OWN_LEAF, SEARCH_PARAMS, best_of, only_action
from giftsim.bits import popcount
from giftsim.contract import as_arrays
from giftsim.game import N_PLAYERS

from .game import NUM_ACTIONS, OBS_SIZE, STATE_SIZE, TURN, apply_action, legal_mask, world
from .no_net import FLATMC_RANGES, PLAYOUT_POLICIES, new_space, own_leaf_search, truncated_value

CALL_RULES = True  # the rules' step verbs are called here, not copied in (giftsim.inlining)


@njit(cache=True)
def decide(obs, params, rng):
    """Try each legal action in ``iters`` / (legal actions) worlds drawn from what this seat may
    know, play each out with the default policy ``policy``, and take the action of the
    highest mean value (share of the win plus ``margin`` times the score lead).

    ``flatmc_net``: the playouts' default policies are the game's search policies, then the
    learned one-ply agent; the network is the agent's ``net`` (default: the shipped one).
    ``leaf`` says where the network's value enters:

    - 1: each action's afterstate for this seat, valued once a decision, weighs ``mix``
      against the playouts' share of the win at the end; ``top`` above 0 spends the playouts
      on the ``top`` actions the network values most only (``leaf.py``);
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
    if int(params[LEAF]) == OWN_LEAF:
        return own_leaf_search(obs, params, rng, state, mask, space, mix, int(params[TOP]))
    totals = np.zeros(NUM_ACTIONS, np.float64)
    for _ in range(max(int(params[ITERS]) // popcount(mask), 1)):
        for action in range(NUM_ACTIONS):
            if (mask >> action) & 1:
                world(obs, rng, state)
                apply_action(state, action)
                totals[action] += truncated_value(state, params, depth, mix, seat, rng, space)
    return best_of(totals, mask)


NAMES = (*SEARCH_PARAMS[:3], *FLATMC_RANGES)  # a network's address rides in slot 7 (NET_SLOT)
DEPTH, MIX_AT, LEAF, TOP = range(3, 7)  # ``flatmc_net``'s (slots that read 0 without it)


def ranges() -> dict:
    """The valid values of the search's parameters."""
    return {**search_ranges(dict.fromkeys(NAMES[:3]), len(PLAYOUT_POLICIES)), **FLATMC_RANGES}


@njit(cache=True)
def decider(obs, params, rng, scratch):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``)."""
    o, p, r = as_arrays(obs, params, rng, OBS_SIZE)
    return decide(o, p, r)

"""``ismcts``: information-set Monte Carlo tree search over sampled worlds."""

import numpy as np
from numba import njit

from agents.base import search_ranges
from agents.kernels.search import (
    CLOSED,
    ITERS,
    NO_CHILD,
    POLICY,
    SEARCH_PARAMS,
    any_open,
    backup,
    new_tree,
    only_action,
    open_walks,
    root_choice,
    select,
    step_in,
    take_edge,
)
from giftsim.contract import as_arrays
from giftsim.game import N_PLAYERS

from .game import (
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBS_SIZE,
    POLICIES,
    STATE_SIZE,
    TURN,
    apply_action,
    is_over,
    legal_mask,
    policy_action,
    view_key,
    world,
)
from .playouts import play_to_end, values

CALL_RULES = True  # the rules' step verbs are called here, not copied in (giftsim.inlining)


@njit(cache=True)
def decide(obs, params, rng):
    """Search ``iters`` worlds drawn from what this seat may know with ISMCTS over
    information sets (UCB1 with availability counts, exploration ``explore``). With ``others``
    1 every seat searches in its own tree (multiple-observer ISMCTS; a node is what this seat
    can tell of the decision); with 0 only this seat does and the others play the default
    policy. Outside the trees every seat plays the default policy ``policy``. Value: share of
    the win plus ``margin`` times the score lead. A node chooses only after ``expand`` walks
    have reached it (before, the default policy does). Take the most visited action.
    """
    state = np.empty(STATE_SIZE, np.int64)
    world(obs, rng, state)
    observer, root_legal = state[TURN], legal_mask(state)
    if only_action(root_legal) >= 0:
        return only_action(root_legal)
    players = state[N_PLAYERS]
    tree, used, path = new_tree(NUM_ACTIONS, players, params)
    at, via = np.empty(players, np.int64), np.empty(players, np.int64)
    values_now = np.empty(MAX_PLAYERS, np.float64)
    for _ in range(max(int(params[ITERS]), 1)):
        world(obs, rng, state)
        open_walks(at, via, observer, params)
        depth = _walk(tree, used, path, at, via, state, params, observer, rng)
        play_to_end(state, int(params[POLICY]), rng)
        values(state, params, values_now)
        backup(tree, path, depth, values_now)
    return root_choice(tree, root_legal)


@njit(cache=True)
def _walk(tree, used, path, at, via, state, params, observer, rng):
    """Play one world while any seat's walk is in the tree: a seat in the tree chooses there,
    the others play the default policy; record the tree's ``(node, action, seat)`` steps in
    ``path`` and return how many."""
    depth = 0
    while any_open(at) and not is_over(state):
        seat = state[TURN]
        node = NO_CHILD
        if at[seat] != CLOSED:
            node = step_in(tree, used, at, via, seat, view_key(state, observer), params)
        if node == NO_CHILD:
            action = policy_action(state, int(params[POLICY]), rng)
        else:
            action, _ = select(tree, node, legal_mask(state), params, rng)
            depth = take_edge(path, depth, at, via, seat, node, action)
        apply_action(state, action)
    return depth


NAMES = SEARCH_PARAMS[:6]


def ranges() -> dict:
    """The valid values of ``ismcts``'s parameters."""
    return search_ranges(dict.fromkeys(NAMES), len(POLICIES))


@njit(cache=True)
def decider(obs, params, rng, scratch):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``)."""
    o, p, r = as_arrays(obs, params, rng, OBS_SIZE)
    return decide(o, p, r)

"""``ismcts``: information-set Monte Carlo tree search over sampled worlds; ``ismcts_net``: the
same search whose walks end at the learned network (this text with its leaf line importing
``leaf.py`` instead of ``no_net.py``: ``agents.drivers.generate``)."""

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
    NET_MIX,
    NUM_ACTIONS,
    OBS_SIZE,
    STATE_SIZE,
    TURN,
    apply_action,
    is_over,
    legal_mask,
    policy_action,
    view_key,
    world,
)
from .no_net import (
    ISMCTS_RANGES,
    LEARNED,
    PLAYOUT_POLICIES,
    learned_action,
    new_space,
    truncated_values,
)

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

    ``ismcts_net``: a walk leaving the trees plays ``depth`` plies of the default policy (the
    game's search policies, then the learned one-ply agent), the world reached is valued by the
    network (each seat's share from its own view, the true shares once the game is over), and
    that value, weighted by the game's ``NET_MIX``, is mixed with the true shares at the end of
    the playout continued from there (``leaf.py``), plus ``margin`` times the score lead. The
    network is the agent's ``net`` (default: the shipped one).
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
    space, depth = new_space(players), int(params[DEPTH])
    for _ in range(max(int(params[ITERS]), 1)):
        world(obs, rng, state)
        open_walks(at, via, observer, params)
        steps = _walk(tree, used, path, at, via, state, params, observer, rng, space)
        truncated_values(state, params, depth, NET_MIX, rng, space, values_now)
        backup(tree, path, steps, values_now)
    return root_choice(tree, root_legal)


@njit(cache=True)
def _walk(tree, used, path, at, via, state, params, observer, rng, space):
    """Play one world while any seat's walk is in the tree: a seat in the tree chooses there,
    the others play the default policy (the learned one-ply agent, in the work space
    ``space``, when it is ``LEARNED``); record the tree's ``(node, action, seat)`` steps in
    ``path`` and return how many."""
    steps, policy = 0, int(params[POLICY])
    while any_open(at) and not is_over(state):
        seat = state[TURN]
        node = NO_CHILD
        if at[seat] != CLOSED:
            node = step_in(tree, used, at, via, seat, view_key(state, observer), params)
        if node == NO_CHILD and policy != LEARNED:
            action = policy_action(state, policy, rng)
        elif node == NO_CHILD:
            action = learned_action(state, params, rng, space)
        else:
            action, _ = select(tree, node, legal_mask(state), params, rng)
            steps = take_edge(path, steps, at, via, seat, node, action)
        apply_action(state, action)
    return steps


NAMES = (*SEARCH_PARAMS, *ISMCTS_RANGES)  # a network's address rides in slot 7 (``NET_SLOT``)
DEPTH = len(SEARCH_PARAMS)  # ``ismcts_net``'s ``depth`` (a slot that reads 0 without it)


def ranges() -> dict:
    """The valid values of the search's parameters."""
    return {**search_ranges(dict.fromkeys(SEARCH_PARAMS), len(PLAYOUT_POLICIES)), **ISMCTS_RANGES}


@njit(cache=True)
def decider(obs, params, rng, scratch):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``)."""
    o, p, r = as_arrays(obs, params, rng, OBS_SIZE)
    return decide(o, p, r)

"""``ismcts``: information-set Monte Carlo tree search over sampled worlds."""

import numpy as np
from numba import njit

from agents.common.search import (
    ITERS,
    POLICY,
    backup,
    enter,
    new_tree,
    only_action,
    ripe,
    root_choice,
    select,
)
from agents.tulips.worlds import legal, others_play, playout, world
from giftsim.contract import DECIDER_SIG, as_arrays
from tulips_sim.engine import O_SIZE, apply_action, is_over
from tulips_sim.rules import NUM_ACTIONS
from tulips_sim.state import STATE_SIZE, TURN


@njit(cache=True)
def decide(obs, params, rng):
    """Search ``iters`` worlds drawn from what this seat may know (the pile, the removed cards and
    the others' secret cards) with one tree over this seat's information sets (ISMCTS: UCB1 with
    availability counts, exploration ``explore``); the other seats, and every seat after the
    tree, play the default policy ``policy`` (0 random, 1 greedy, 2 hoarder, 3 planner). Value:
    share of the win plus ``margin`` times the score lead. The tree chooses at a node only after
    ``expand`` walks have reached it (before, the default policy does). Take the most visited
    action.
    """
    state = np.empty(STATE_SIZE, np.int64)
    world(obs, rng, state)
    observer, root_legal = state[TURN], legal(state)
    if only_action(root_legal) >= 0:
        return only_action(root_legal)
    iters = max(int(params[ITERS]), 1)
    tree, used, path = new_tree(iters, NUM_ACTIONS)
    for _ in range(iters):
        world(obs, rng, state)
        depth = _descend(tree, used, path, state, params, observer, rng)
        backup(tree, path, depth, playout(state, params, observer, rng))
    return root_choice(tree, root_legal)


@njit(cache=True)
def _descend(tree, used, path, state, params, observer, rng):
    """Walk the tree in one world down to a new node, the others playing the default policy
    in between; record the observer's ``(node, action)`` steps in ``path``, return how many."""
    policy = int(params[POLICY])
    node, depth = 0, 0
    others_play(state, observer, policy, rng)
    while node >= 0 and not is_over(state) and ripe(tree, node, params):
        action, untried = select(tree, node, legal(state), params, rng)
        path[depth, 0], path[depth, 1] = node, action
        depth += 1
        apply_action(state, action)
        node = enter(tree, used, node, action, others_play(state, observer, policy, rng))
        if untried:
            break
    return depth


PARAMS = {"iters": 1250.0, "policy": 2.0, "margin": 0.5, "explore": 0.7, "expand": 30.0}


@njit(DECIDER_SIG, cache=True)
def decider(obs, params, rng):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``)."""
    o, p, r = as_arrays(obs, params, rng, O_SIZE)
    return decide(o, p, r)

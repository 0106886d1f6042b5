"""Monte Carlo search for either game: flat Monte Carlo and single-observer ISMCTS.

Both search from one seat's observation only. Each iteration draws a *world* (a full state
consistent with what the seat may know: a determinization) and plays it to the end with a
default policy, so hidden cards and chips are never read, only sampled.

A game takes part through a tuple of compiled verbs, ``GAME``, built in ``agents/<game>/``:

=================================  =================================================================
verb                               meaning
=================================  =================================================================
``n_actions``                      number of action ids (legal sets are bit masks below ``2**n``)
``obs_size``                       the observation is the state's first ``obs_size`` slots when
                                   the seat to act is shown it (as in the fast loops)
``world(obs, rng, state)``         fill ``state`` with a random world consistent with ``obs``
``legal(state)``                   bit mask of the legal actions of the seat to act
``to_act(state)``                  the seat to act
``is_over(state)``                 whether the game has ended
``step(state, action)``            apply ``action`` in place
``policy_action(state, p, rng)``   the default policy ``p``'s action for the seat to act
``rewards(state, out)``            each seat's result in [0, 1]: its share of the win
=================================  =================================================================

ISMCTS (after Cowling, Powley and Whitehouse 2012) keeps one tree over the searching seat's
information sets: a node is what that seat sees when it is next to act (the fingerprint of its
observation), so worlds that differ only in what it cannot see share a node. The other seats
are modelled by the default policy, inside the tree as in the playouts, so every edge is the
searcher's own choice, scored by its share of the win. Selection is UCB1 with *availability*
counts, since an action legal in one world may not be in another.

The functions taking ``game`` are compiled into each agent's cached ``decide`` but are not
cached on their own: Numba cannot reload a cached function whose arguments are functions.
"""

import numpy as np
from numba import njit

from giftsim.bits import popcount
from giftsim.rng import mix64, next_below

# Parameter slots shared by the search agents' parameter rows.
ITERS, POLICY, EXPLORE = 0, 1, 2
NO_CHILD = -1


@njit(cache=True)
def _new_tree(max_nodes, n_actions):
    """Edge statistics per (node, action) and child lists; rows are cleared when used."""
    visits = np.empty((max_nodes, n_actions), np.float64)
    wins = np.empty((max_nodes, n_actions), np.float64)
    avail = np.empty((max_nodes, n_actions), np.float64)
    first = np.empty((max_nodes, n_actions), np.int64)
    sibling = np.empty(max_nodes, np.int64)
    seen = np.empty(max_nodes, np.int64)
    return visits, wins, avail, first, sibling, seen


@njit(cache=True)
def _open_node(tree, node, seen_key):
    visits, wins, avail, first, sibling, seen = tree
    visits[node] = 0.0
    wins[node] = 0.0
    avail[node] = 0.0
    first[node] = NO_CHILD
    sibling[node] = NO_CHILD
    seen[node] = seen_key


@njit(cache=True)
def _child(tree, node, action, seen_key):
    """The child reached from ``node`` by ``action`` when the searcher saw ``seen_key``."""
    _, _, _, first, sibling, seen = tree
    child = first[node, action]
    while child != NO_CHILD and seen[child] != seen_key:
        child = sibling[child]
    return child


@njit(cache=True)
def _add_child(tree, node, action, seen_key, child):
    _open_node(tree, child, seen_key)
    tree[4][child] = tree[3][node, action]
    tree[3][node, action] = child


@njit(cache=True)
def _random_bit(mask, rng):
    """The index of a uniformly chosen set bit of ``mask`` (not zero)."""
    for _ in range(next_below(rng, popcount(mask))):
        mask &= mask - 1
    return popcount((mask & -mask) - 1)


@njit(cache=True)
def _select(tree, node, legal, explore, rng):
    """An untried legal action if any (chosen at random), else the UCB1 choice; counts one
    more availability for every legal action. Returns ``(action, untried)``."""
    visits, wins, avail, _, _, _ = tree
    untried = np.int64(0)
    best, best_value = -1, -1.0
    mask = legal
    while mask:
        a = popcount((mask & -mask) - 1)
        mask &= mask - 1
        avail[node, a] += 1.0
        if visits[node, a] == 0.0:
            untried |= np.int64(1) << a
            continue
        value = wins[node, a] / visits[node, a]
        value += explore * np.sqrt(np.log(avail[node, a]) / visits[node, a])
        if value > best_value:
            best, best_value = a, value
    if untried:
        return _random_bit(untried, rng), True
    return best, False


@njit  # not cached on its own: see the module docstring
def playout(game, state, policy, rng, out):
    """Play ``state`` to the end with the default policy; the seats' rewards into ``out``."""
    is_over, step, policy_action, rewards = game[5], game[6], game[7], game[8]
    while not is_over(state):
        step(state, policy_action(state, policy, rng))
    rewards(state, out)


@njit  # not cached on its own: see the module docstring
def _others_play(game, state, observer, policy, rng):
    """Let the other seats play the default policy until ``observer`` is to act or the game
    ends; return the fingerprint of what ``observer`` then sees (0 at the end)."""
    obs_size, _, _, to_act, is_over, step, policy_action, _ = game[1:]
    while not is_over(state) and to_act(state) != observer:
        step(state, policy_action(state, policy, rng))
    if is_over(state):
        return np.uint64(0)
    return fingerprint(state[:obs_size])


@njit(cache=True)
def fingerprint(view):
    """A 64-bit hash of an observation: the key of an information set."""
    h = np.uint64(0)
    for i in range(view.shape[0]):
        h = mix64(h ^ np.uint64(view[i]))
    return h


@njit  # not cached on its own: see the module docstring
def _descend(game, tree, used, state, params, observer, rng, path):
    """Walk the tree in one world, adding at most one node (``used[0]`` counts the nodes);
    record the ``(node, action)`` of each of the observer's decisions in ``path`` and return
    their number. The others play the default policy in between."""
    legal, step, policy = game[3], game[6], int(params[POLICY])
    node, depth = 0, 0
    _others_play(game, state, observer, policy, rng)
    while not game[5](state):
        action, untried = _select(tree, node, legal(state), params[EXPLORE], rng)
        path[depth, 0], path[depth, 1] = node, action
        depth += 1
        step(state, action)
        key = np.int64(_others_play(game, state, observer, policy, rng))
        child = _child(tree, node, action, key)
        if child == NO_CHILD:
            if used[0] < tree[5].shape[0]:
                _add_child(tree, node, action, key, used[0])
                used[0] += 1
            break
        node = child
        if untried:
            break
    return depth


@njit  # not cached on its own: see the module docstring
def ismcts(game, obs, params, rng, state):
    """The root action with the most visits after ``params[ITERS]`` iterations."""
    n_actions, _, world, legal, to_act = game[:5]
    iters = max(int(params[ITERS]), 1)
    tree = _new_tree(iters + 1, n_actions)
    _open_node(tree, 0, 0)
    used = np.ones(1, np.int64)
    path = np.empty((iters + 1, 2), np.int64)
    reward = np.empty(16, np.float64)
    world(obs, rng, state)
    observer, root_legal = to_act(state), legal(state)
    if popcount(root_legal) == 1:
        return popcount((root_legal & -root_legal) - 1)
    for _ in range(iters):
        world(obs, rng, state)
        depth = _descend(game, tree, used, state, params, observer, rng, path)
        playout(game, state, int(params[POLICY]), rng, reward)
        for d in range(depth):
            tree[0][path[d, 0], path[d, 1]] += 1.0
            tree[1][path[d, 0], path[d, 1]] += reward[observer]
    return _most_visited(tree[0][0], root_legal)


@njit(cache=True)
def _most_visited(visits, legal):
    best, most = -1, -1.0
    for a in range(visits.shape[0]):
        if (legal >> a) & 1 and visits[a] > most:
            best, most = a, visits[a]
    return best


@njit  # not cached on its own: see the module docstring
def flat_mc(game, obs, params, rng, state):
    """Spread ``params[ITERS]`` playouts evenly over the legal actions; return the one with
    the highest mean reward for the seat to act."""
    n_actions, _, world, legal, to_act, _, step = game[:7]
    world(obs, rng, state)
    mask, seat = legal(state), to_act(state)
    n_legal = popcount(mask)
    if n_legal == 1:
        return popcount((mask & -mask) - 1)
    totals = np.zeros(n_actions, np.float64)
    reward = np.empty(16, np.float64)
    rounds = max(int(params[ITERS]) // n_legal, 1)
    for _ in range(rounds):
        for a in range(n_actions):
            if (mask >> a) & 1:
                world(obs, rng, state)
                step(state, a)
                playout(game, state, int(params[POLICY]), rng, reward)
                totals[a] += reward[seat]
    return _most_visited(totals, mask)

"""Monte Carlo search shared by both games: the ISMCTS tree, and the verbs a game provides.

Flat Monte Carlo and ISMCTS search from one seat's observation only. Each iteration draws a
*world* (a full state consistent with what the seat may know: a determinization) and plays it
to the end with a default policy, so hidden cards and chips are never read, only sampled.

ISMCTS (after Cowling, Powley and Whitehouse 2012) keeps a tree over the searching seat's
information sets: a node is what that seat sees when it is to act (the :func:`fingerprint` of
its view), so worlds that differ only in what it cannot see share a node. Each edge is scored
by the share of the win of the seat that chose it (plus ``margin`` times its score lead).
Selection is UCB1 with *availability* counts, since an action legal in one world may not be in
another; a node chooses only once ``expand`` walks have reached it, before that the default
policy does.

The other seats are modelled in one of two ways (``others``). With 0 (single observer) they
play the default policy throughout, so every edge of the tree is the searcher's own choice.
With 1 (multiple observers) every other seat searches too, in its own part of the tree (its
root is node ``1 + seat``), keyed by what the searcher can tell of that seat's decision
(``view_key``); it follows the default policy only outside its tree. A field of searching
players then meets a model of searching players rather than of the heuristic.

The drivers (``agents/templates/flatmc.py``, ``ismcts.py`` and their ``_net`` variants) are
short loops over a game's search verbs (``agents/templates/game.py``: ``world``,
``policy_action``, ``view_key``), the playouts of ``agents/templates/playouts.py`` and the tree
below.
"""

import numpy as np
from numba import njit

from giftsim.bits import popcount
from giftsim.rng import mix64, next_below

# Search agents' parameters in slot order (``flatmc`` takes the first three), named once.
SEARCH_PARAMS = ("iters", "policy", "margin", "explore", "expand", "others")
ITERS, POLICY, MARGIN, EXPLORE, EXPAND, OTHERS = (SEARCH_PARAMS.index(k) for k in SEARCH_PARAMS)
MAX_ITERS = 10_000_000
# ``flatmc_net``'s ``leaf``: every seat's share from its own view after ``depth`` plies, or the
# afterstates of the root's actions valued for the searcher only (``agents/templates/leaf.py``).
SEATS_LEAF, OWN_LEAF = 0, 1
NO_CHILD = -1
CLOSED = -1  # a seat's walk has left the tree: the default policy plays it from here
AT_ROOT = -2  # the seat's next decision is the root (the searcher's decision now)
NODE, ACTION, OWNER = 0, 1, 2  # columns of a walk's path: the edge taken and whose it is
# Slots of the tree tuple: per (node, action) visits, value sums, availability counts and first
# child; per node its next sibling, the key of what the searcher saw on the way in, and how
# often a walk reached it.
VISITS, VALUES, AVAIL, FIRST, SIBLING, SEEN, REACHED = 0, 1, 2, 3, 4, 5, 6
ALWAYS = 1 << 62  # the root is always ripe
_WORD, _SHIFT = np.uint64(0x9E3779B97F4A7C15), np.uint64(29)  # fingerprint mixing


@njit(cache=True)
def _new_tree(max_nodes, n_actions):
    """Edge statistics per (node, action) and child lists; rows are cleared when used."""
    visits = np.empty((max_nodes, n_actions), np.float64)
    wins = np.empty((max_nodes, n_actions), np.float64)
    avail = np.empty((max_nodes, n_actions), np.float64)
    first = np.empty((max_nodes, n_actions), np.int64)
    sibling = np.empty(max_nodes, np.int64)
    seen = np.empty(max_nodes, np.int64)
    reached = np.empty(max_nodes, np.int64)
    return visits, wins, avail, first, sibling, seen, reached


@njit(cache=True)
def _open_node(tree, node, seen_key):
    visits, wins, avail, first, sibling, seen, reached = tree
    reached[node] = 0
    visits[node] = 0.0
    wins[node] = 0.0
    avail[node] = 0.0
    first[node] = NO_CHILD
    sibling[node] = NO_CHILD
    seen[node] = seen_key


@njit(cache=True)
def _child(tree, node, action, seen_key):
    """The child reached from ``node`` by ``action`` when the searcher saw ``seen_key``."""
    first, sibling, seen = tree[FIRST], tree[SIBLING], tree[SEEN]
    child = first[node, action]
    while child != NO_CHILD and seen[child] != seen_key:
        child = sibling[child]
    return child


@njit(cache=True)
def _add_child(tree, node, action, seen_key, child):
    _open_node(tree, child, seen_key)
    tree[SIBLING][child] = tree[FIRST][node, action]
    tree[FIRST][node, action] = child


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
    visits, wins, avail = tree[VISITS], tree[VALUES], tree[AVAIL]
    untried = np.int64(0)
    best, best_value = -1, -np.inf  # values can be negative: a score lead can be
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


@njit(cache=True)
def fingerprint(view):
    """A 64-bit hash of an observation: the key of an information set (never 0). One multiply
    per word, scrambled once at the end: keys are only compared among a node's children."""
    h = np.uint64(len(view))
    for i in range(view.shape[0]):
        h = (h ^ np.uint64(view[i])) * _WORD
        h ^= h >> _SHIFT
    return np.int64(mix64(h) | np.uint64(1))


@njit(cache=True)
def new_tree(n_actions, players, params):
    """A tree with room for a new node per iteration and searching seat (every seat with
    ``params[OTHERS]`` set, else the searcher alone), its root and the other seats' roots open;
    returns ``(tree, used, path)``: ``used[0]`` counts the nodes, ``path`` holds one
    iteration's ``(node, action, seat)`` steps. Node 0 is the root, the searcher's decision now;
    node ``1 + p`` is seat ``p``'s root (when the others search too): its children, under
    action 0, are the first decisions of ``p`` that walks meet."""
    searching = players if params[OTHERS] > 0 else 1
    size = max(int(params[ITERS]), 1) * searching + players + 1
    tree = _new_tree(size, n_actions)
    for node in range(players + 1):
        _open_node(tree, node, 0)
        tree[REACHED][node] = ALWAYS
    return tree, np.full(1, players + 1, np.int64), np.empty((size, 3), np.int64)


@njit(cache=True)
def open_walks(at, via, observer, params):
    """Start one iteration's walks: the searcher's at the root, and when ``params[OTHERS]`` is
    set every other seat's at its own root (multiple-observer ISMCTS: the others choose by
    their own statistics in the tree); else the others play the default policy throughout."""
    for p in range(at.shape[0]):
        at[p], via[p] = (1 + p, 0) if params[OTHERS] > 0 else (CLOSED, 0)
    at[observer] = AT_ROOT


@njit(cache=True)
def step_in(tree, used, at, via, seat, key, params):
    """The node where ``seat``, seeing ``key``, decides now, or ``NO_CHILD`` when its walk
    leaves the tree here: at a node met for the first time (added, when there is room), or at
    one too seldom reached to choose there (see :func:`ripe`); the walk is then closed."""
    node = 0 if at[seat] == AT_ROOT else enter(tree, used, at[seat], via[seat], key)
    if node >= 0 and ripe(tree, node, params):
        return node
    at[seat] = CLOSED
    return NO_CHILD


@njit(cache=True)
def take_edge(path, depth, at, via, seat, node, action):
    """Record ``seat`` choosing ``action`` at ``node``; returns the path's new length."""
    path[depth, NODE], path[depth, ACTION], path[depth, OWNER] = node, action, seat
    at[seat], via[seat] = node, action
    return depth + 1


@njit(cache=True)
def any_open(at):
    for p in range(at.shape[0]):
        if at[p] != CLOSED:
            return True
    return False


@njit(cache=True)
def select(tree, node, legal, params, rng):
    """:func:`_select` with the exploration constant of a parameter row."""
    return _select(tree, node, legal, params[EXPLORE], rng)


@njit(cache=True)
def ripe(tree, node, params):
    """Count a walk reaching ``node``; true once more than ``params[EXPAND]`` walks have: only
    then does the tree choose there (before, the default policy does, in the playout: a
    choice made from a handful of samples would play worse than the policy)."""
    tree[REACHED][node] += 1
    return tree[REACHED][node] > params[EXPAND]


@njit(cache=True)
def enter(tree, used, node, action, key):
    """The child of ``node`` by ``action`` with key ``key``, or ``NO_CHILD`` after adding it
    (when there is room): the walk stops at a new node."""
    child = _child(tree, node, action, key)
    if child == NO_CHILD and used[0] < tree[SEEN].shape[0]:
        _add_child(tree, node, action, key, used[0])
        used[0] += 1
    return child


@njit(cache=True)
def backup(tree, path, depth, values):
    """Count one visit on every edge of the path, and the value of the edge's seat."""
    for d in range(depth):
        node, action = path[d, NODE], path[d, ACTION]
        tree[VISITS][node, action] += 1.0
        tree[VALUES][node, action] += values[path[d, OWNER]]


@njit(cache=True)
def lead(scores, seat, n, lower_wins):
    """The seat's score lead over the best other seat (positive when ahead; scores where
    lower wins count the other way)."""
    sign = -1 if lower_wins else 1
    best = -(1 << 62)
    for p in range(n):
        if p != seat:
            best = max(best, sign * scores[p])
    return sign * scores[seat] - best


@njit(cache=True)
def best_of(scores, legal):
    """The legal action with the highest score (the lowest id on ties)."""
    best, top = -1, -np.inf
    for a in range(scores.shape[0]):
        if (legal >> a) & 1 and scores[a] > top:
            best, top = a, scores[a]
    return best


@njit(cache=True)
def least_of(scores, legal):
    """The legal action with the lowest score (the highest id on ties: what :func:`best_of`
    would choose last)."""
    least, bottom = -1, np.inf
    for a in range(scores.shape[0] - 1, -1, -1):
        if (legal >> a) & 1 and scores[a] < bottom:
            least, bottom = a, scores[a]
    return least


@njit(cache=True)
def root_choice(tree, legal):
    """The most visited legal action at the root."""
    return best_of(tree[VISITS][0], legal)


@njit(cache=True)
def only_action(legal):
    """The action of a one-action mask, else -1."""
    return popcount((legal & -legal) - 1) if popcount(legal) == 1 else -1

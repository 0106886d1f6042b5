"""The learned value as the leaf of a search (``flatmc_net``, ``ismcts_net``).

A search agent that reads a network stops its playouts after ``depth`` plies and values the
world it reached by the network, from each seat's own observation of it (:func:`leaf_values`):
the seat to act gets the value of its best afterstate (the action ``learned`` would choose),
every other seat the value of its own last afterstate in the playout's last ``RECENT_ROUNDS``
rounds (the network was trained on afterstates: a view in which the seat two ahead is to act
is outside what it saw), else of its view as it stands; a finished game its true shares.
The shares are then scaled to sum to 1 (``NORMALISE``): each seat's estimate comes from a
different view, and the mover's is a maximum, so unscaled they need not. With ``mix`` below
1 the playout then goes on to the end, and the value is ``mix`` times the leaf's plus the
rest times the true shares at the end (AlphaGo mixed its value network and rollouts so).

The ``_net`` families are the search templates with their leaf line importing this module
instead of ``no_net.py`` (``agents.drivers.generate``): the names both define are what the
searches ask of a leaf. ``depth`` is a parameter of each family (slot 6 of ``ismcts_net``, 3
of ``flatmc_net``: each takes a prefix of the search parameters, then this module's), passed
in here. The playouts' default policy is one of the game's search policies or, as policy
``LEARNED`` (the number after them), the learned one-ply agent itself.

What differs between games comes from its verbs: an afterstate (``after``; the afterstates of
one decision share what ``after_world`` draws, a sampled world where the game needs one, as
``learned`` values them) and a score lead before the end (``standings``).

Work space (``space``, allocated once per decision by :func:`new_space`): a seat's view, an
afterstate, two states (a drawn world and a copy), two feature vectors and the hidden layer,
the seats' recent afterstate values and the afterstates' logits. A view or an afterstate is
written here and passed on read-only (``giftsim.contract.readonly``), as an agent is shown its
observation: the game's features and afterstates then compile once for both.
"""

import numpy as np
from numba import njit

from agents.base import Choice, Range
from agents.kernels import search
from agents.kernels.net import MAX_HIDDEN, first_layer, output, shift, weights_of
from agents.kernels.search import ITERS, MARGIN, POLICY, best_of, lead, least_of, only_action
from giftsim.bits import popcount
from giftsim.contract import readonly
from giftsim.game import N_PLAYERS

from .game import (
    LEAD_SCALE,
    LOWER_WINS,
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBS_SIZE,
    POLICIES,
    STATE_SIZE,
    TURN,
    after,
    after_of,
    after_world,
    apply_action,
    choose,
    features,
    is_over,
    legal_mask,
    n_features,
    observe,
    policy_action,
    rewards,
    standings,
    world,
)
from .playouts import values

CALL_RULES = True  # the rules' step verbs are called here, not copied in (giftsim.inlining)

PLAYOUT_POLICIES = (*POLICIES, "learned")  # the game's search policies, then the learned agent
LEARNED = len(POLICIES)  # the policy number of the learned one-ply agent
MAX_DEPTH = 1000  # more plies than any game has: a full playout
ISMCTS_RANGES = {"depth": Range(0, MAX_DEPTH, True)}  # the parameters ismcts_net adds
FLATMC_RANGES = {  # and flatmc_net, in the slots flatmc reads them from (DEPTH, MIX_AT, ...)
    "depth": Range(0, MAX_DEPTH, True),
    "mix": Range(0.0, 1.0),
    "leaf": Choice((float(search.SEATS_LEAF), float(search.OWN_LEAF))),
    "top": Range(0, NUM_ACTIONS, True),
}
NORMALISE = True  # scale the seats' estimated shares to sum to 1 (see the module docstring)
VIEW, AFTER, WORLD, WORK, RECENT, LOGITS = range(6)  # the work space's arrays (docstring)
RECENT_ROUNDS = 2  # afterstates valued in a playout's last RECENT_ROUNDS * players plies
NOT_YET = -1.0  # in RECENT: the seat has not acted in this playout's last plies


@njit(cache=True)
def new_space(players):
    """Work space for :func:`leaf_values` and :func:`learned_action` at ``players`` seats."""
    size = n_features(players)
    view, after_state = np.empty(OBS_SIZE, np.int64), np.empty(OBS_SIZE, np.int64)
    worlds, recent = np.empty(2 * STATE_SIZE, np.int64), np.full(MAX_PLAYERS, NOT_YET)
    work, logits = np.empty(2 * size + MAX_HIDDEN, np.float32), np.empty(NUM_ACTIONS)
    return view, after_state, worlds, work, recent, logits


@njit(cache=True)
def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


@njit(cache=True)
def _view_value(view, net, x, h):
    """The network's share for the seat whose observation ``view`` is, as it stands."""
    features(view, x)
    first_layer(net, x, h)
    return _sigmoid(output(net, h))


@njit(cache=True)
def _after_logits(view, mask, net, rng, space):
    """The network's logit of each afterstate among the legal actions of ``mask`` into
    ``space[LOGITS]``, all from one ``after_world`` draw (common random numbers, as
    ``learned`` values them); each afterstate's hidden layer is shifted from the one before
    (they differ in a few inputs)."""
    after_state, work, logits = space[AFTER], space[WORK], space[LOGITS]
    drawn, world_ = space[WORLD][:STATE_SIZE], space[WORLD][STATE_SIZE:]
    size = n_features(view[N_PLAYERS])
    x_old, x_new, h = work[:size], work[size : 2 * size], work[2 * size :]
    after_world(view, rng, drawn)
    after_shown = readonly(after_state)  # once: a read-only view costs a reference count
    first = True
    for action in range(NUM_ACTIONS):
        if not (mask >> action) & 1:
            continue
        after_of(view, drawn, action, world_, after_state)
        features(after_shown, x_new)
        if first:
            first_layer(net, x_new, h)
            first = False
        else:
            shift(net, x_old, x_new, h)
        logits[action] = output(net, h)
        x_old[:] = x_new


@njit(cache=True)
def _best_after(view, mask, net, rng, space):
    """The network's share of the best afterstate among the legal actions of ``mask``."""
    _after_logits(view, mask, net, rng, space)
    best = -np.inf
    for action in range(NUM_ACTIONS):
        if (mask >> action) & 1:
            best = max(best, space[LOGITS][action])
    return _sigmoid(best)


@njit(cache=True)
def after_shares(state, net, rng, space, out):
    """The network's share of each legal action's afterstate for the seat to act in ``state``
    (a world; read through that seat's view only), into ``out[action]``."""
    view = space[VIEW]
    observe(state, state[TURN], view)
    mask = legal_mask(state)
    _after_logits(readonly(view), mask, net, rng, space)
    for action in range(NUM_ACTIONS):
        if (mask >> action) & 1:
            out[action] = _sigmoid(space[LOGITS][action])


@njit(cache=True)
def after_value(state, action, net, rng, space):
    """The network's share of the afterstate of ``action`` for the seat to act in ``state``."""
    view, after_state, work = space[VIEW], space[AFTER], space[WORK]
    size = n_features(state[N_PLAYERS])
    observe(state, state[TURN], view)
    after(readonly(view), action, rng, space[WORLD][:STATE_SIZE], after_state)
    return _view_value(readonly(after_state), net, work[:size], work[2 * size :])


@njit(cache=True)
def leaf_values_in(state, net, out, rng, space):
    """:func:`leaf_values` with its work space given (``new_space``) and a random stream for
    games whose afterstates sample. A seat other than the mover with a value in
    ``space[RECENT]`` (its last afterstate in the playout) gets that value."""
    if is_over(state):
        rewards(state, out)
        return
    view, work = space[VIEW], space[WORK]
    shown = readonly(view)  # what each seat's observation, written into view, is read through
    size = n_features(state[N_PLAYERS])
    total = 0.0
    for p in range(state[N_PLAYERS]):
        observe(state, p, view)
        if p == state[TURN]:
            out[p] = _best_after(shown, legal_mask(state), net, rng, space)
        elif space[RECENT][p] != NOT_YET:
            out[p] = space[RECENT][p]
        else:
            out[p] = _view_value(shown, net, work[:size], work[2 * size :])
        total += out[p]
    if NORMALISE:
        for p in range(state[N_PLAYERS]):
            out[p] /= total


@njit(cache=True)
def leaf_values(state, net, out):
    """Every seat's estimated share of the win in ``state`` (a world), into ``out[:n]``, each
    from its own observation (module docstring); a finished game's true shares."""
    rng = np.ones(1, np.uint64)
    leaf_values_in(state, net, out, rng, new_space(state[N_PLAYERS]))  # RECENT: none yet


@njit(cache=True)
def learned_action(state, params, rng, space):
    """The learned one-ply agent's action for the seat to act (the network of ``params``, the
    work space ``space``): the default policy ``LEARNED``. A search asks
    ``worlds.policy_action`` for the others itself, in its own loop: a call that may reach this
    one costs more than a hand-made policy's decision (the arrays it passes are counted), so
    the branch is taken before it."""
    view = space[VIEW]
    observe(state, state[TURN], view)
    return choose(readonly(view), params, rng, space[WORLD], space[AFTER], space[WORK])


@njit(cache=True)
def _add_margin(state, params, out):
    """Add ``params[MARGIN]`` times each seat's score lead (the standings now, the final
    scores once over) to ``out``."""
    if params[MARGIN] == 0.0:
        return
    n = state[N_PLAYERS]
    now = np.zeros(MAX_PLAYERS, np.int64)
    standings(state, now)
    for p in range(n):
        out[p] += params[MARGIN] * lead(now, p, n, LOWER_WINS) / LEAD_SCALE


@njit(cache=True)
def truncated_values(state, params, depth, mix, rng, space, out):
    """Play ``depth`` plies of the default policy (fewer if the game ends), then write
    every seat's value into ``out``: its leaf value (with ``mix`` below 1, mixed with the
    playout's end) plus ``margin`` times its score lead."""
    policy, net, recent = int(params[POLICY]), weights_of(params), space[RECENT]
    recent[:] = NOT_YET
    for ply in range(depth):
        if is_over(state):
            break
        if policy != LEARNED:  # branched here: a call through the learned path costs a lot
            action = policy_action(state, policy, rng)
        else:
            action = learned_action(state, params, rng, space)
        if depth - ply <= RECENT_ROUNDS * state[N_PLAYERS]:
            recent[state[TURN]] = after_value(state, action, net, rng, space)
        apply_action(state, action)
    leaf_values_in(state, net, out, rng, space)
    if mix < 1.0 and not is_over(state):
        _mix_with_end(state, policy, params, mix, rng, space, out)
    _add_margin(state, params, out)


@njit(cache=True)
def play_to_end_net(state, policy, params, rng, space):
    """Play ``state`` to the end with the default policy number ``policy`` (``LEARNED``: the
    learned one-ply agent of ``params``'s network, in the work space ``space``)."""
    while not is_over(state):
        if policy != LEARNED:
            action = policy_action(state, policy, rng)
        else:
            action = learned_action(state, params, rng, space)
        apply_action(state, action)


@njit(cache=True)
def own_leaf_search(obs, params, rng, state, mask, space, mix, top):
    """``flatmc_net``'s ``leaf`` 1 search (``depth`` unused; ``state`` a world drawn from
    ``obs``, ``mask`` its legal actions): each legal action's value is ``mix`` times the
    network's share of the seat's afterstate (:func:`after_shares`: one world for all actions,
    as ``learned`` values them, once a decision) plus the mean over its worlds of the rest
    times the share at the end of a full playout and ``margin`` times the score lead there.
    With ``top`` above 0 the playouts go to the ``top`` actions the network values most only.
    The network costs a few evaluations a decision, not one per world."""
    seat, net, policy = state[TURN], weights_of(params), int(params[POLICY])
    totals, end, shares = np.zeros(NUM_ACTIONS), np.empty(MAX_PLAYERS), np.empty(MAX_PLAYERS)
    prior = np.zeros(NUM_ACTIONS)
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


@njit(cache=True)
def _mix_with_end(state, policy, params, mix, rng, space, out):
    """Play on to the end and mix: ``mix`` times the leaf value plus the rest times the
    true shares at the end (as AlphaGo mixed its value network with its rollouts)."""
    play_to_end_net(state, policy, params, rng, space)
    end = np.empty(MAX_PLAYERS, np.float64)
    rewards(state, end)
    for p in range(state[N_PLAYERS]):
        out[p] = mix * out[p] + (1.0 - mix) * end[p]


@njit(cache=True)
def truncated_value(state, params, depth, mix, seat, rng, space):
    """One seat's value after a truncated playout (:func:`truncated_values`)."""
    out = np.empty(MAX_PLAYERS, np.float64)
    truncated_values(state, params, depth, mix, rng, space, out)
    return out[seat]

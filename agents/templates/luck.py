"""Whole games with their luck measured: the game loop on explicit chance, with an AIVAT-style
correction at every chance event and at every decision whose probabilities are known.

The game is dealt by ``deal_open`` and every chance event is resolved with ``next_outcome``,
so it is the game the plain loop (``loop.py``) plays, action for action. Before each event is
resolved, every seat's *value* ``V`` is computed after each possible outcome, and the
correction of the event is ``V(after the outcome dealt) - sum_o w(o) V(after o) / sum_o w(o)``
with the event's weights ``w`` (``chance_outcomes``). The outcome dealt is drawn by those
weights given everything before it, so the correction has mean zero whatever ``V`` is, as long
as ``V`` does not read the cards still face down (AIVAT: Burch, Schmid, Moravcik, Morrill and
Bowling, 2018). At a decision of a seat whose agent exposes its action probabilities ``pi``
(a *prober*, below), the correction is ``V(after the action taken) - sum_a pi(a) V(after a)``,
zero mean for the same reason. A seat's win share minus the sum of its corrections has the
win share's expectation and, when ``V`` tracks the game, a smaller variance.

The value (:func:`values`): every seat's estimated share of the win, each read from that
seat's own observation by the network ``net`` (the ``learned`` evaluator's features and
``agents.kernels.net``): the seat to act gets the value of its best afterstate (``leaf.py``'s
``after_shares``; no seat acts while a chance event is pending), every other seat the value of
its view as it stands; the estimates are scaled to sum to 1; a finished game gives the true
shares. Afterstates that sample a world (Tulips) draw it from a fixed stream, so ``V`` is a
function of the observations alone. A seat that does not see an event's outcome
(``chance_observers``) has the same view after every outcome, so its estimate is computed
once per event; an event nobody sees (a card removed unseen) has correction 0 and is skipped.

Probers: ``probers[seat](obs, params, out)`` writes the probability of each action id of the
seat's agent into ``out`` and returns True, or returns False (probabilities unknown: no
decision correction); it is asked only for the seats of the bit mask ``known``, with a copy of
the observation written by ``observe``.

Output ``luck[g, k, s]``: seat ``s``'s corrections in game ``g`` summed by kind: ``k`` 0 the
decisions, ``k`` the chance events of kind ``k`` (``Game.chance_kinds[k - 1]``).
"""

import numpy as np
from numba import njit

from agents.kernels.entries import entry_at
from agents.kernels.net import first_layer, output
from giftsim.bits import lowest_bit
from giftsim.contract import MAX_PARAMS, address, first_seat
from giftsim.game import N_PLAYERS
from giftsim.rng import agent_stream, game_key

from .game import (
    MAX_CHANCE_OUTCOMES,
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBS_SIZE,
    STATE_SIZE,
    TURN,
    apply_action,
    apply_chance,
    begin,
    chance_observers,
    chance_outcomes,
    chance_pending,
    deal_open,
    features,
    is_over,
    legal_mask,
    n_features,
    next_outcome,
    observe,
    result_row,
    rewards,
    show_turn,
)
from .leaf import VIEW, WORK, after_shares, new_space
from .loop import SCRATCH_STRIDE

CALL_RULES = True  # the rules' step verbs are called here, not copied in (giftsim.inlining)

DECISIONS = 0  # luck[g, DECISIONS]: the decisions' corrections; chance events of kind k at k
VALUE_STREAM = 0x1234567  # the fixed stream from which afterstates that sample draw a world
# The work space (work_space): a state to resolve outcomes in; the unscaled values, the values
# after one outcome, their weighted sum and those after the outcome dealt (one per seat); the
# event's weights; a prober's probabilities; the afterstates' shares; an observation for the
# prober; the value stream; leaf.new_space.
COPY, RAW, AFTER, MEAN, DEALT, WEIGHTS, PROBS, SHARES, OBS, RNG, SPACE = range(11)


@njit(cache=True)
def work_space(players):
    """The work space of the corrections (the layout above ``work_space``)."""
    raw, after = np.zeros(MAX_PLAYERS), np.zeros(MAX_PLAYERS)
    mean, dealt = np.zeros(MAX_PLAYERS), np.zeros(MAX_PLAYERS)
    probs, shares = np.zeros(NUM_ACTIONS), np.zeros(NUM_ACTIONS)
    weights = np.zeros(MAX_CHANCE_OUTCOMES, np.int64)
    rng, view = np.zeros(1, np.uint64), np.zeros(OBS_SIZE, np.int64)
    copy = np.zeros(STATE_SIZE, np.int64)
    return copy, raw, after, mean, dealt, weights, probs, shares, view, rng, new_space(players)


@njit(cache=True)
def play_luck(rules_vec, root_seed, secret, first_index, policy, entries, params, probers, known,
              net, out, luck):  # fmt: skip
    """Play ``out.shape[0]`` single games from ``first_index`` on into ``out`` (rows as
    ``result_row``), adding their corrections into ``luck`` (module docstring); return -1, or
    the game (in this block) where an agent chose an illegal action."""
    n = rules_vec[N_PLAYERS]
    state = np.zeros(STATE_SIZE, np.int64)
    obs = np.zeros(OBS_SIZE, np.int64)
    shown, live = address(obs, 0), address(state, 0)
    scratch = np.zeros(MAX_PLAYERS * SCRATCH_STRIDE, np.int64)
    rngs = np.zeros(MAX_PLAYERS, np.uint64)
    flat_params = params.ravel()
    work = work_space(n)
    for g in range(out.shape[0]):
        game_index = first_index + g
        key = game_key(root_seed, game_index)
        deal_open(rules_vec, key, first_seat(policy, game_index, n), state)
        begin(state)
        for s in range(n):
            rngs[s] = agent_stream(key, secret, s)
        while not is_over(state):
            kind = chance_pending(state)
            if kind:
                chance_luck(state, net, work, luck[g, kind])
                apply_chance(state, next_outcome(state))
                continue
            mask = legal_mask(state)
            if mask & (mask - 1) == 0:  # one legal action: nobody is asked
                apply_action(state, lowest_bit(mask))
                continue
            seat, view = state[TURN], live
            if not show_turn(state):
                observe(state, seat, obs)
                view = shown
            row, own = address(flat_params, seat * MAX_PARAMS), seat * SCRATCH_STRIDE
            entry = entry_at(entries[seat, 0], entries[seat, 1], entries[seat, 2])
            action = entry(view, row, address(rngs, seat), address(scratch, own))
            if action < 0 or action > 62 or not (mask >> action) & 1:
                return g
            if (known >> seat) & 1:
                observe(state, seat, work[OBS])
                if probers[seat](work[OBS], params[seat], work[PROBS]):
                    decision_luck(state, action, mask, net, work, luck[g, DECISIONS])
            apply_action(state, action)
        result_row(state, n, 1, 0, out, g)
    return -1


@njit(cache=True)
def chance_luck(state, net, work, into):
    """Add the pending chance event's correction of every seat to ``into[:n]``: its value
    after the outcome dealt less the weighted mean of its values after every outcome."""
    seen = chance_observers(state)
    if seen == 0:  # every view is the same after every outcome: the correction is 0
        return
    weights, copy, after, mean = work[WEIGHTS], work[COPY], work[AFTER], work[MEAN]
    n, dealt, count = state[N_PLAYERS], next_outcome(state), chance_outcomes(state, weights)
    mean[:n] = 0.0
    total, seats = 0.0, (np.int64(1) << n) - 1
    for o in range(count):
        if weights[o] <= 0:
            continue
        copy[:] = state
        apply_chance(copy, o)
        values(copy, net, seats, work, after)
        seats = seen  # the others' views are the same after every outcome: kept in RAW
        for p in range(n):
            mean[p] += weights[o] * after[p]
        total += weights[o]
        if o == dealt:
            work[DEALT][:n] = after[:n]
    for p in range(n):
        into[p] += work[DEALT][p] - mean[p] / total


@njit(cache=True)
def decision_luck(state, action, mask, net, work, into):
    """Add the correction of the decision ``action`` (its agent's probabilities in
    ``work[PROBS]``) of every seat to ``into[:n]``: its value after the action taken less
    the mean of its values after every action, weighted by their probabilities."""
    probs, copy, after, mean = work[PROBS], work[COPY], work[AFTER], work[MEAN]
    n, seats = state[N_PLAYERS], (np.int64(1) << state[N_PLAYERS]) - 1
    mean[:n] = 0.0
    total = 0.0
    for a in range(NUM_ACTIONS):
        if not (mask >> a) & 1 or (probs[a] <= 0.0 and a != action):
            continue
        copy[:] = state
        apply_action(copy, a)
        values(copy, net, seats, work, after)
        for p in range(n):
            mean[p] += probs[a] * after[p]
        total += probs[a]
        if a == action:
            work[DEALT][:n] = after[:n]
    for p in range(n):
        into[p] += work[DEALT][p] - mean[p] / total


@njit(cache=True)
def values(state, net, seats, work, out):
    """Every seat's value in ``state`` into ``out[:n]`` (module docstring): the network's
    estimates scaled to sum to 1, a finished game's true shares. Only the seats of the bit
    mask ``seats`` are valued again; the others keep their estimates in ``work[RAW]``."""
    n, raw = state[N_PLAYERS], work[RAW]
    if is_over(state):
        rewards(state, out)
        return
    mover = -1 if chance_pending(state) else state[TURN]
    total = 0.0
    for p in range(n):
        if (seats >> p) & 1:
            mover_ = p == mover
            raw[p] = mover_value(state, net, work) if mover_ else view_value(state, p, net, work)
        total += raw[p]
    for p in range(n):
        out[p] = raw[p] / total


@njit(cache=True)
def mover_value(state, net, work):
    """The network's share of the best afterstate of the seat to act (``leaf.after_shares``:
    its own view only; a world it samples is drawn from the fixed value stream)."""
    shares, mask = work[SHARES], legal_mask(state)
    work[RNG][0] = VALUE_STREAM
    after_shares(state, net, work[RNG], work[SPACE], shares)
    best = 0.0
    for a in range(NUM_ACTIONS):
        if (mask >> a) & 1:
            best = max(best, shares[a])
    return best


@njit(cache=True)
def view_value(state, seat, net, work):
    """The network's share for ``seat`` from its view of ``state`` as it stands."""
    view, floats = work[SPACE][VIEW], work[SPACE][WORK]
    size = n_features(state[N_PLAYERS])
    observe(state, seat, view)
    features(view, floats[:size])
    hidden = floats[2 * size :]
    first_layer(net, floats[:size], hidden)
    return 1.0 / (1.0 + np.exp(-output(net, hidden)))

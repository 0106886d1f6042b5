"""``learned``: one-ply search over afterstates valued by a trained network.

The *afterstate* of an action is what the acting seat knows right after resolving its card,
before the next card is drawn. It is made by the engine, not by rules written again here: a
world consistent with the observation is sampled (``worlds.world``), the action is applied to
it (``engine.apply_action``) and the acting seat observes the result (``engine.observe``).
The card drawn right after the action (the seat's own second card after its first action, the
next seat's first card after its second action, the first turn's card after the last setup
choice) is then hidden: ``DRAWN`` is "no card" and ``DECK_LEFT`` counts it as still in the
pile. So the coming card is not sampled: the network, trained on such afterstates
(``giftsim train``), values it in expectation.

Two afterstates do depend on the sampled world (chance by sampling): an action that ends the
game (the pile is empty at the draw after it) turns up the secret festival cards, so the
festival (``FACE_UP``, ``TOTALS``, ``ORDER``, ``RANK``) holds the sampled world's
secret cards of the other seats and a sampled reveal; and the last setup choice under
``setup="simultaneous"`` lays every seat's setup card in its bouquet, so the other seats'
bouquets hold the sampled world's choices (the reveal, too, draws on a fresh random stream of
the world). One decision draws one world from the agent's stream and applies each action to a
copy of it (common random numbers; two states of work space, in the seat's scratch row).

An afterstate never holds a drawn card, so the features have no block for one. They are read
off the observation alone; ``unseen`` counts the cards in the pile, the removed ones and the
other seats' secret cards together, as the seat cannot tell them apart.

Features (``F = 7 n + 26``: 40, 47, 54, 61, 68 for 2..6 players; seats relative to the
observer: relative seat ``r`` is seat ``(seat + r) % n``). *Majority points* are those a seat
would score if the game ended now (``features.points_now``); its *standing* adds the giving and
keeping points it has scored.

================  ======  ==============================================================
feature           size    meaning
================  ======  ==============================================================
``scored``        n       giving + keeping points so far / 50
``majority``      n       majority points now / 30
``turn``          n       1 for the seat to act (none once the game is over)
``bouquet``       4 n     bouquet cards of variety ``v`` at ``(3 + v) n + r``, / 8
``phase``         4       one-hot: setup, first draw, second draw, over
``used``          3       one-hot: kind of this turn's first action (keep, give, add)
``deck_left``     1       cards left to draw / 72
``secret_size``   1       cards in the secret festival / 20
``margin``        1       (own standing - best rival's standing) / 30
``totals``        4       festival total per variety / 40
``rank``          4       (4 - festival rank) / 3 per variety: 1 for 1st, 0 for 4th or absent
``own_secret``    4       value of own secret festival cards per variety / 12
``unseen``        4       cards per variety the seat has not seen / 24
================  ======  ==============================================================
"""

import numpy as np
from numba import njit

from agents.kernels.net import MAX_HIDDEN, first_layer, output, shift, weights_of, work_rows
from agents.tulips.features import NO_CARD, NO_SEAT, pay, scored_so_far
from agents.tulips.worlds import unseen_of, world
from giftsim.contract import as_arrays, readonly
from tulips_sim.engine import (
    apply_action,
    observe,
)
from tulips_sim.rules import MIN_VALUE, N_RANKS, N_VALUES, N_VARIETIES, NUM_ACTIONS
from tulips_sim.scoring import STRENGTH_SCALE, strength
from tulips_sim.state import (
    BQ_COUNT,
    DECK_LEFT,
    DENSE,
    DRAWN,
    FIRST_DRAW,
    LEGAL,
    N_PLAYERS,
    OBS_SIZE,
    OWN_SECRET,
    PHASE,
    RANK,
    SEAT,
    SECOND_DRAW,
    SECRET_SIZE,
    STATE_SIZE,
    TOTALS,
    TURN,
    USED_KIND,
    ZERO_WINS,
    card_type,
)

CALL_RULES = True  # the rules' step verbs are called here, not copied in (giftsim.inlining)

PARAMS: dict[str, float] = {}
RANGES: dict[str, object] = {}
# positions in the feature vector: per-seat blocks, each n long (BOUQUET_AT is 4 blocks)
SCORED_AT, MAJORITY_AT, TURN_AT, BOUQUET_AT = range(4)
PHASE_AT, USED_AT, DECK_LEFT_AT, SECRET_SIZE_AT, MARGIN_AT = 0, 4, 7, 8, 9  # then these, after 7 n
TOTALS_AT, RANK_AT, OWN_SECRET_AT, UNSEEN_AT = 10, 14, 18, 22  # each 4 long (one per variety)
PER_SEAT, GLOBAL = 3 + N_VARIETIES, 26
WORK_INTS = 2 * STATE_SIZE + OBS_SIZE  # a decision's int64 work space: two states, an observation


@njit(cache=True)
def n_features(players):
    """Length of the feature vector at ``players`` seats."""
    return PER_SEAT * players + GLOBAL


@njit(cache=True)
def after(obs, action, rng, world_, out):
    """Write into ``out`` the acting seat's afterstate of ``action`` (module docstring): a
    world drawn from ``obs`` with ``rng`` into ``world_`` (a state-sized work array), the action
    applied to it, observed by the seat, the card drawn after the action hidden."""
    world(obs, rng, world_)
    resolve(world_, action, obs[SEAT], out)


@njit(cache=True)
def after_world(obs, rng, drawn):
    """What the afterstates of one decision share: one world drawn from ``obs`` into
    ``drawn`` (common random numbers, as :func:`choose` values them)."""
    world(obs, rng, drawn)


@njit(cache=True)
def after_of(obs, drawn, action, world_, out):
    """The afterstate of ``action`` in a copy (``world_``) of the world ``drawn``."""
    world_[:] = drawn
    resolve(world_, action, obs[SEAT], out)


@njit(cache=True)
def resolve(world_, action, seat, out):
    """Apply ``action`` to ``world_`` and write ``seat``'s afterstate into ``out``."""
    apply_action(world_, action)
    observe(world_, seat, out)
    if world_[PHASE] in (FIRST_DRAW, SECOND_DRAW):  # a card was turned up after the action
        out[DRAWN] = NO_CARD
        out[DECK_LEFT] += 1


@njit(cache=True)
def _majorities(obs, out, at):
    """Add every seat's majority points now (``features.points_now``) to ``out[at + r]``,
    ``r`` its relative seat: per paying variety one pass finds the three best strengths and
    how many seats hold each, a second reads off each seat's slot (dense ranking: the
    strengths above it; competition: the seats above it)."""
    n, seat = obs[N_PLAYERS], obs[SEAT]
    for v in range(N_VARIETIES):
        rank = obs[RANK + v]
        if rank >= N_RANKS:
            continue
        b1, b2, b3, c1, c2 = -1, -1, -1, 0, 0
        for p in range(n):
            s = strength(obs, p, v, NO_SEAT, NO_CARD)
            if s > b1:
                b1, b2, b3, c1, c2 = s, b1, b2, 1, c1
            elif s == b1:
                c1 += 1
            elif s > b2:
                b2, b3, c2 = s, b2, 1
            elif s == b2:
                c2 += 1
            elif s > b3:
                b3 = s
        for p in range(n):
            s = strength(obs, p, v, NO_SEAT, NO_CARD)
            if s < STRENGTH_SCALE and not obs[ZERO_WINS]:
                continue
            if s == b1:
                slot = 0
            elif s == b2:
                slot = 1 if obs[DENSE] else c1
            elif s == b3:
                slot = 2 if obs[DENSE] else c1 + c2
            else:
                continue
            r = p - seat if p >= seat else p - seat + n
            out[at + r] += pay(obs, rank, slot)


@njit(cache=True)
def _seats(obs, out):
    """The per-seat blocks; returns the observer's standing less the best rival's."""
    n, seat = obs[N_PLAYERS], obs[SEAT]
    for r in range(n):
        out[MAJORITY_AT * n + r] = 0.0
    _majorities(obs, out, MAJORITY_AT * n)
    own, best = 0.0, -1e9
    for r in range(n):
        p = seat + r if seat + r < n else seat + r - n
        scored = scored_so_far(obs, p)
        out[SCORED_AT * n + r] = scored / 50.0
        out[TURN_AT * n + r] = 1.0 if p == obs[TURN] else 0.0
        for v in range(N_VARIETIES):
            out[(BOUQUET_AT + v) * n + r] = obs[BQ_COUNT + p * N_VARIETIES + v] / 8.0
        standing = scored + out[MAJORITY_AT * n + r]
        out[MAJORITY_AT * n + r] /= 30.0
        if r == 0:
            own = standing
        else:
            best = max(best, standing)
    return own - best


@njit(cache=True)
def _varieties(obs, out, g):
    """The festival, own secret cards and unseen cards per variety, from ``out[g]`` on."""
    for v in range(N_VARIETIES):
        out[g + TOTALS_AT + v] = obs[TOTALS + v] / 40.0
        out[g + RANK_AT + v] = (N_RANKS - obs[RANK + v]) / 3.0
        own, hidden = 0, 0
        for value in range(MIN_VALUE, MIN_VALUE + N_VALUES):
            t = card_type(v, value)
            own += obs[OWN_SECRET + t] * value
            hidden += unseen_of(obs, t)
        out[g + OWN_SECRET_AT + v] = own / 12.0
        out[g + UNSEEN_AT + v] = hidden / 24.0


@njit(cache=True)
def features(obs, out):
    """Write the observing seat's features (module docstring) into ``out[:n_features(n)]``."""
    margin = _seats(obs, out)
    g = PER_SEAT * obs[N_PLAYERS]
    for i in range(4):
        out[g + PHASE_AT + i] = 1.0 if obs[PHASE] == i else 0.0
    for i in range(3):
        out[g + USED_AT + i] = 1.0 if obs[USED_KIND] == i else 0.0
    out[g + DECK_LEFT_AT] = obs[DECK_LEFT] / 72.0
    out[g + SECRET_SIZE_AT] = obs[SECRET_SIZE] / 20.0
    out[g + MARGIN_AT] = margin / 30.0
    _varieties(obs, out, g)


@njit(cache=True)
def choose(obs, params, rng, worlds, work, x):
    """:func:`decide` with its work space given: ``worlds`` two states, ``work`` an
    observation, ``x`` room for two feature vectors and the hidden layer. One world is drawn
    and every action is applied to a copy of it; the hidden layer is shifted from one action's
    features to the next (``net.shift``), not recomputed."""
    net, size, seat = weights_of(params), n_features(obs[N_PLAYERS]), obs[SEAT]
    drawn, world_ = worlds[:STATE_SIZE], worlds[STATE_SIZE:]
    x_from, x_to, h = x[:size], x[size : 2 * size], x[2 * size :]
    world(obs, rng, drawn)
    shown = readonly(work)  # the afterstates read as the searches' leaf reads them: one compile
    mask, best, best_value = obs[LEGAL], -1, 0.0
    for action in range(NUM_ACTIONS):
        if not (mask >> action) & 1:
            continue
        for i in range(STATE_SIZE):
            world_[i] = drawn[i]
        resolve(world_, action, seat, work)
        features(shown, x_to)
        if best < 0:
            first_layer(net, x_to, h)
        else:
            shift(net, x_from, x_to, h)
        value = output(net, h)
        if best < 0 or value > best_value:
            best, best_value = action, value
        x_from, x_to = x_to, x_from
    return best


@njit(cache=True)
def decide(obs, params, rng):
    """Take the action whose afterstate (the card resolved, the next card still face down)
    the network values most; the lowest action id on ties.

    The network is the agent's ``net`` (by default the shipped one for the player count).
    """
    worlds, work = np.empty(2 * STATE_SIZE, np.int64), np.empty(OBS_SIZE, np.int64)
    x = np.empty(2 * n_features(obs[N_PLAYERS]) + MAX_HIDDEN, np.float32)
    return choose(obs, params, rng, worlds, work, x)


@njit(cache=True)
def decider(obs, params, rng, scratch):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``), its work space in
    the seat's scratch row."""
    o, p, r = as_arrays(obs, params, rng, OBS_SIZE)
    floats = 2 * n_features(o[N_PLAYERS]) + MAX_HIDDEN
    ints, x = work_rows(scratch, WORK_INTS, floats)
    return choose(o, p, r, ints[: 2 * STATE_SIZE], ints[2 * STATE_SIZE :], x)


def _majority_probe(players: int, points: int = 5):
    """What ``points`` more majority points (if the game ended now) are worth, by cards left
    to draw in bins of 8: ``(change, stage, stage name)`` of ``experiments.probes.nudge``."""
    first, own_majority = PER_SEAT * players, MAJORITY_AT * players  # relative seat 0's points

    def change(x):
        x[:, own_majority] += points / 30.0  # features are points / 30
        x[:, first + MARGIN_AT] += points / 30.0  # and its margin over the best rival too

    def stage(x):
        return (np.rint(x[:, first + DECK_LEFT_AT] * 72) // 8 * 8).astype(int)

    return change, stage, "cards_left"


PROBES = {"majority": _majority_probe}  # experiments.probes.value_probe

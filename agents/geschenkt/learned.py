"""``learned``: one-ply search over afterstates valued by a trained network.

The *afterstate* of an action is what the acting seat knows right after it, before the next
chance event: after a pass the pot has one more chip and the next seat is to act on the same
card; after a take the card and its chips are the seat's and the next card is not turned up
yet (``CARD`` is ``NO_CARD``; it is also ``NO_CARD`` when the take ended the game). So the
card to come is not sampled: the network, trained on such afterstates (``giftsim train``),
values it in expectation.

Features (``F = 5 n + 5``, seats relative to the observer: relative seat ``r`` is seat
``(seat + r) % n``; chips hidden by the rules are estimated as the others' mean):

================  ======  ==============================================================
feature           size    meaning
================  ======  ==============================================================
``chips``         n       chips / 10
``points``        n       card points (lowest card of each run) / 40
``cost``          n       points added by taking the face-up card, minus the pot, / 10
                          (0 with no face-up card)
``fits``          n       unseen cards next to the seat's runs / 5
``turn``          n       1 for the seat to act
``card_known``    1       1 if a card is face up
``card``          1       face-up card / 35
``pot``           1       chips on it / 10
``cards_left``    1       face-down cards left / 24
``lead``          1       (best other score - own score) / 20, scores being points - chips
================  ======  ==============================================================
"""

import numpy as np
from numba import njit

from agents.kernels.net import MAX_HIDDEN, first_layer, output, shift, weights_of, work_rows
from geschenkt_sim.engine import (
    HIDDEN_CHIPS,
    OBS_SIZE,
)
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.scoring import card_points, take_delta
from geschenkt_sim.state import (
    CARD,
    CARDS_LEFT,
    CHIPS,
    HANDS,
    N_DECISIONS,
    N_PLAYERS,
    POT,
    SEAT,
    TOTAL_CHIPS,
    TURN,
    UNSEEN,
)
from giftsim.bits import popcount
from giftsim.contract import as_arrays, readonly

NO_CARD = -1
PARAMS: dict[str, float] = {}
RANGES: dict[str, object] = {}
# positions in the feature vector: per-seat blocks, each n long, in this order, then the globals
CHIPS_AT, POINTS_AT, COST_AT, FITS_AT, TURN_AT = range(5)
CARD_KNOWN_AT, CARD_AT, POT_AT, CARDS_LEFT_AT, LEAD_AT = range(5)  # after the 5 n per-seat ones
PER_SEAT, GLOBAL = 5, 5


@njit(cache=True)
def n_features(players):
    """Length of the feature vector at ``players`` seats."""
    return PER_SEAT * players + GLOBAL


@njit(cache=True)
def after(obs, action, rng, world, out):
    """Write into ``out`` the acting seat's afterstate of ``action`` (module docstring). It
    follows from the observation alone: ``rng`` and ``world`` (a state-sized work array, for
    games whose afterstates need a sampled world) are not used."""
    out[:OBS_SIZE] = obs[:OBS_SIZE]
    seat = obs[TURN]
    out[N_DECISIONS] += 1
    if action == PASS:
        out[CHIPS + seat] -= 1
        out[POT] += 1
        out[TURN] = seat + 1 if seat + 1 < obs[N_PLAYERS] else 0
        return
    out[HANDS + seat] |= np.int64(1) << obs[CARD]
    out[CHIPS + seat] += obs[POT]
    out[POT] = 0
    out[CARD] = NO_CARD


@njit(cache=True)
def after_world(obs, rng, drawn):
    """What the afterstates of one decision share: nothing (they follow from the
    observation alone)."""


@njit(cache=True)
def after_of(obs, drawn, action, world, out):
    """The afterstate of ``action`` (:func:`after`)."""
    after(obs, action, None, None, out)


@njit(cache=True)
def _chips(obs, p, hidden_mean):
    chips = obs[CHIPS + p]
    return hidden_mean if chips == HIDDEN_CHIPS else float(chips)


@njit(cache=True)
def _hidden_mean(obs):
    """The mean chips of the seats whose chips the rules hide (0 if none are hidden)."""
    n, known, hidden = obs[N_PLAYERS], 0, 0
    for p in range(n):
        if obs[CHIPS + p] == HIDDEN_CHIPS:
            hidden += 1
        else:
            known += obs[CHIPS + p]
    free = obs[TOTAL_CHIPS] - known - obs[POT]
    return free / hidden if hidden else 0.0


@njit(cache=True)
def features(obs, out):
    """Write the observing seat's features (module docstring) into ``out[:n_features(n)]``."""
    n, seat, card, pot = obs[N_PLAYERS], obs[SEAT], obs[CARD], obs[POT]
    mean, unseen = _hidden_mean(obs), obs[UNSEEN]
    best_other = np.inf
    own = 0.0
    for r in range(n):
        p = seat + r if seat + r < n else seat + r - n
        hand = obs[HANDS + p]
        chips, points = _chips(obs, p, mean), card_points(hand)
        cost = take_delta(hand, card) - pot if card != NO_CARD else 0
        near = ((hand << 1) | (hand >> 1)) & ~hand & unseen
        out[CHIPS_AT * n + r] = chips / 10.0
        out[POINTS_AT * n + r] = points / 40.0
        out[COST_AT * n + r] = cost / 10.0
        out[FITS_AT * n + r] = popcount(near) / 5.0
        out[TURN_AT * n + r] = 1.0 if p == obs[TURN] else 0.0
        score = points - chips
        if r == 0:
            own = score
        elif score < best_other:
            best_other = score
    g = PER_SEAT * n
    out[g + CARD_KNOWN_AT] = 1.0 if card != NO_CARD else 0.0
    out[g + CARD_AT] = max(card, 0) / 35.0
    out[g + POT_AT] = pot / 10.0
    out[g + CARDS_LEFT_AT] = obs[CARDS_LEFT] / 24.0
    out[g + LEAD_AT] = (best_other - own) / 20.0


@njit(cache=True)
def choose(obs, params, rng, worlds, work, x):
    """:func:`decide` with its work space given: ``work`` an observation, ``x`` room for two
    feature vectors and the hidden layer (``rng`` and ``worlds`` are not used: no world is
    drawn). The afterstates differ in a few features, so the
    hidden layer of the pass is shifted to the take's (``net.shift``) rather than recomputed."""
    if obs[CHIPS + obs[SEAT]] == 0:
        return TAKE
    net, size = weights_of(params), n_features(obs[N_PLAYERS])
    x_pass, x_take, h = x[:size], x[size : 2 * size], x[2 * size :]
    shown = readonly(work)  # the afterstates read as the searches' leaf reads them: one compile
    after(obs, np.int64(PASS), None, None, work)  # an int64 action, not one compile per literal
    features(shown, x_pass)
    after(obs, np.int64(TAKE), None, None, work)
    features(shown, x_take)
    first_layer(net, x_pass, h)
    passing = output(net, h)
    shift(net, x_pass, x_take, h)
    return TAKE if output(net, h) > passing else PASS


@njit(cache=True)
def decide(obs, params, rng):
    """Take the card iff the network values the afterstate of taking it (the card and its
    chips, the next card still face down) above that of passing. Takes when out of chips.

    The network is the agent's ``net`` (by default the shipped one for the player count).
    """
    work = np.empty(OBS_SIZE, np.int64)
    x = np.empty(2 * n_features(obs[N_PLAYERS]) + MAX_HIDDEN, np.float32)
    return choose(obs, params, rng, None, work, x)


@njit(cache=True)
def decider(obs, params, rng, scratch):
    """Entry of ``decide`` for the compiled loop (see ``giftsim.contract``), its work space in
    the seat's scratch row."""
    o, p, r = as_arrays(obs, params, rng, OBS_SIZE)
    work, x = work_rows(scratch, OBS_SIZE, 2 * n_features(o[N_PLAYERS]) + MAX_HIDDEN)
    return choose(o, p, r, None, work, x)


def _chip_probe(players: int):
    """What one more chip in the seat's own stack is worth, by cards left in the stack:
    ``(change, stage, stage name)`` of ``experiments.probes.nudge``."""
    first, own_chips = PER_SEAT * players, CHIPS_AT * players  # globals; relative seat 0's chips

    def change(x):
        x[:, own_chips] += 0.1  # features are chips / 10
        x[:, first + LEAD_AT] += 0.05  # and its score is one point lower: lead / 20

    def stage(x):
        return np.rint(x[:, first + CARDS_LEFT_AT] * 24).astype(int)

    return change, stage, "cards_left"


PROBES = {"chip": _chip_probe}  # experiments.probes.value_probe

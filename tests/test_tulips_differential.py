"""The compiled Tulips engine against the plain-Python reference, state by state."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.kits import tulips_twin as reference_for
from tests.strategies import tulips_rules
from tulips_sim.engine import (
    O_BOUQUET,
    O_DECK_LEFT,
    O_DRAWN,
    O_GIVE_POINTS,
    O_HAND,
    O_KEEP_POINTS,
    O_ORDER,
    O_OWN_SECRET,
    O_PHASE,
    O_SECRET_SIZE,
    O_TOTALS,
    O_TURN,
    O_USED_KIND,
    apply_action,
    begin,
    is_over,
    legal_actions,
    observe,
)
from tulips_sim.rules import N_TYPES
from tulips_sim.scoring import final_scores
from tulips_sim.state import (
    MAJORITY_PTS,
    OBS_SIZE,
    card_of,
    deal,
    new_state,
)

PHASES = ("setup", "first", "second", "over")
KINDS = {-1: None, 0: "keep", 1: "give", 2: "add"}


def counts(row):
    """4x3 counts table from 12 counts by card type."""
    return [[int(row[v * 3 + k]) for k in range(3)] for v in range(4)]


def card_or_none(card):
    return None if card < 0 else card_of(card)


def engine_view(state, seat, n):
    obs = np.zeros(OBS_SIZE, np.int64)
    observe(state, seat, obs)
    hand = [card_of(c) for c in obs[O_HAND : O_HAND + 2]] if obs[O_HAND] >= 0 else None
    return {
        "seat": seat,
        "n_players": n,
        "phase": PHASES[obs[O_PHASE]],
        "current_player": int(obs[O_TURN]),
        "festival_order": [int(v) for v in obs[O_ORDER : O_ORDER + 4] if v >= 0],
        "totals": [int(t) for t in obs[O_TOTALS : O_TOTALS + 4]],
        "bouquets": [counts(obs[O_BOUQUET + s * N_TYPES :]) for s in range(n)],
        "give_points": [int(x) for x in obs[O_GIVE_POINTS : O_GIVE_POINTS + n]],
        "keep_points": [int(x) for x in obs[O_KEEP_POINTS : O_KEEP_POINTS + n]],
        "deck_size": int(obs[O_DECK_LEFT]),
        "secret_size": int(obs[O_SECRET_SIZE]),
        "drawn": card_or_none(obs[O_DRAWN]),
        "hand": hand,
        "own_secret": counts(obs[O_OWN_SECRET:]),
        "used_kind": KINDS[int(obs[O_USED_KIND])],
    }


@settings(max_examples=120, deadline=None)
@given(tulips_rules(), st.integers(0, 2**32), st.data())
def test_engine_matches_reference_at_every_step(rules, seed, data):
    n = rules.n_players
    state = new_state()
    deal(rules.to_array(), seed, 0, -1, state)
    begin(state)
    start = state.copy()
    views, legals, actions = [], [], []
    while True:
        views.append([engine_view(state, seat, n) for seat in range(n)])
        legal = [int(a) for a in legal_actions(state)]
        legals.append(legal)
        if not legal:
            break
        action = data.draw(st.sampled_from(legal))
        actions.append(action)
        apply_action(state, action)
    assert is_over(state)
    ref = reference_for(rules, start, state)
    for step, action in enumerate([*actions, None]):
        assert ref.legal_actions() == legals[step], f"legal actions at step {step}"
        for seat in range(n):
            assert ref.observation(seat) == views[step][seat], f"seat {seat} at step {step}"
        if action is not None:
            ref.apply(action)
    out = np.zeros(n, np.int64)
    final_scores(state, out)
    assert list(out) == ref.scores()
    assert [int(m) for m in state[MAJORITY_PTS : MAJORITY_PTS + n]] == ref.majority_points()

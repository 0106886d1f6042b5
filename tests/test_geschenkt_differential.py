"""The compiled engine against the plain-Python reference, state by state."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from geschenkt_sim import reference
from geschenkt_sim.engine import (
    OBS_SIZE,
    apply_action,
    is_over,
    legal_actions,
    observe,
)
from geschenkt_sim.scoring import scores
from geschenkt_sim.state import (
    CARD,
    CARDS_LEFT,
    CHIPS,
    HANDS,
    N_DECISIONS,
    N_PLAYERS,
    POT,
    SEAT,
    TURN,
    UNSEEN,
    cards_of,
    new_state,
    set_deal,
)
from tests.strategies import geschenkt_deals


def engine_view(state, seat, n):
    """The engine's observation in the reference's terms."""
    obs = np.zeros(OBS_SIZE, np.int64)
    observe(state, seat, obs)
    return {
        "seat": int(obs[SEAT]),
        "n_players": int(obs[N_PLAYERS]),
        "current_player": -1 if is_over(state) else int(obs[TURN]),
        "card": int(obs[CARD]),
        "pot": int(obs[POT]),
        "cards_left": int(obs[CARDS_LEFT]),
        "chips": [int(c) for c in obs[CHIPS : CHIPS + n]],
        "hands": [cards_of(h) for h in obs[HANDS : HANDS + n]],
        "unseen": cards_of(obs[UNSEEN]),
        "n_decisions": int(obs[N_DECISIONS]),
    }


def start(rules, deck, removed, first):
    state = new_state()
    set_deal(rules.to_array(), np.array(deck, np.int64), sum(1 << c for c in removed), first, state)
    return state


@settings(max_examples=150, deadline=None)
@given(geschenkt_deals(), st.data())
def test_engine_matches_reference_at_every_step(deal, data):
    rules, deck, removed, first = deal
    state = start(rules, deck, removed, first)
    ref = reference.ReferenceGame(rules, deck, removed, first)
    n = rules.n_players
    while True:
        for seat in range(n):
            assert engine_view(state, seat, n) == ref.observation(seat)
        legal = [int(a) for a in legal_actions(state)]
        assert legal == ref.legal_actions()
        if not legal:
            break
        action = data.draw(st.sampled_from(legal))
        apply_action(state, action)
        ref.apply(action)
    assert is_over(state) and ref.is_over()
    out = np.zeros(n, np.int64)
    scores(state, out)
    assert list(out) == ref.scores()

"""Invariants over whole games played by every built-in agent: conservation and bounds."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.registry import builtins, parse_list
from experiments.games import play_slow
from geschenkt_sim.state import CHIPS, HANDS, N_CARDS, POT
from tests.strategies import geschenkt_rules

SPECS = [f.name for f in builtins("geschenkt") if not f.table]  # solved: tests/test_solve.py


@settings(max_examples=40, deadline=None)
@given(geschenkt_rules(), st.integers(0, 2**32), st.data())
def test_chips_conserved_and_every_card_ends_in_a_hand(rules, seed, data):
    specs = [data.draw(st.sampled_from(SPECS)) for _ in range(rules.n_players)]
    game = play_slow("geschenkt", rules, parse_list(specs, "geschenkt"), seed, 0)
    final, n = game.final, rules.n_players
    assert final[CHIPS : CHIPS + n].sum() + final[POT] == n * rules.chips
    assert final[POT] == 0
    hands = final[HANDS : HANDS + n]
    assert sum(bin(int(h)).count("1") for h in hands) == final[N_CARDS] == rules.n_cards
    assert np.bitwise_or.reduce(hands) & game.start[HANDS] == 0
    assert len(game.actions) <= rules.max_decisions
    assert game.actions.count(1) == rules.n_cards


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_batch_games_respect_the_length_bound(n):
    from experiments.batch import play
    from geschenkt_sim.rules import MAX_DECISIONS, N_PLAYED, Rules

    rules = Rules(n_players=n)
    assert rules.n_cards == N_PLAYED and rules.max_decisions <= MAX_DECISIONS
    for mix in (["random"] * n, ["random:p=0.05"] * n):
        frame = play("geschenkt", mix, 2000, seed=3)
        assert frame.n_decisions.min() >= N_PLAYED
        assert frame.n_decisions.max() <= rules.max_decisions

"""The compiled Tulips engine against the plain-Python reference, state by state."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.kits import deal_of, reference_for
from tests.strategies import tulips_rules
from tulips_sim import reference
from tulips_sim import rules as rules_module
from tulips_sim.engine import (
    apply_action,
    begin,
    is_over,
    legal_actions,
    observe,
)
from tulips_sim.record import RecordError, make_record, replay
from tulips_sim.rules import N_TYPES, Rules
from tulips_sim.scoring import final_scores
from tulips_sim.state import (
    BOUQUET,
    DECK_LEFT,
    DRAWN,
    GIVE_POINTS,
    HAND,
    KEEP_POINTS,
    MAJORITY_PTS,
    OBS_SIZE,
    ORDER,
    OWN_SECRET,
    PHASE,
    SECRET_SIZE,
    SEED_DRAWS,
    SEED_N,
    START,
    TOTALS,
    TURN,
    USED_KIND,
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
    hand = [card_of(c) for c in obs[HAND : HAND + 2]] if obs[HAND] >= 0 else None
    return {
        "seat": seat,
        "n_players": n,
        "phase": PHASES[obs[PHASE]],
        "current_player": int(obs[TURN]),
        "festival_order": [int(v) for v in obs[ORDER : ORDER + 4] if v >= 0],
        "totals": [int(t) for t in obs[TOTALS : TOTALS + 4]],
        "bouquets": [counts(obs[BOUQUET + s * N_TYPES :]) for s in range(n)],
        "give_points": [int(x) for x in obs[GIVE_POINTS : GIVE_POINTS + n]],
        "keep_points": [int(x) for x in obs[KEEP_POINTS : KEEP_POINTS + n]],
        "deck_size": int(obs[DECK_LEFT]),
        "secret_size": int(obs[SECRET_SIZE]),
        "drawn": card_or_none(obs[DRAWN]),
        "hand": hand,
        "own_secret": counts(obs[OWN_SECRET:]),
        "used_kind": KINDS[int(obs[USED_KIND])],
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
    assert ref.festival_start == (card_of(start[START]), card_of(start[START + 1]))
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


def random_game(rules, seed):
    """A game of uniformly random legal actions: (start state, actions, final state)."""
    state = new_state()
    deal(rules.to_array(), seed, 0, -1, state)
    begin(state)
    start, actions = state.copy(), []
    rng = np.random.default_rng(seed)
    while not is_over(state):
        legal = legal_actions(state)
        actions.append(int(legal[rng.integers(len(legal))]))
        apply_action(state, actions[-1])
    return start, actions, state


def twin_agrees(rules, seed) -> bool:
    """Whether the twin, dealt the engine's recorded draws, scores the game as the engine."""
    start, actions, final = random_game(rules, seed)
    try:
        ref = reference_for(rules, start, final)
    except ValueError:  # the twin refuses a deal that is not the deck of the rules
        return False
    for action in actions:
        ref.apply(action)
    out = np.zeros(rules.n_players, np.int64)
    final_scores(final, out)
    return ref.scores() == [int(x) for x in out]


# Wrong tables of record in tulips_sim.rules: (table, entry, wrong value) patched together.
WRONG_TABLES = [
    # 4-player games scored with the 5-6 player table and three majorities
    [("MAJORITY_BY_PLAYERS", 4, rules_module.MAJORITY_5_6P), ("SLOTS_BY_PLAYERS", 4, 3)],
    [("REMOVED_BY_PLAYERS", 4, 7)],  # one card too many removed
    [("MAJORITY_BY_PLAYERS", 4, rules_module.MAJORITY_2P)],  # 2-player points at 4
]


@pytest.mark.parametrize("wrong", WRONG_TABLES)
def test_a_wrong_table_of_the_engine_is_caught_by_the_twin(monkeypatch, wrong):
    rules = Rules(n_players=4)
    assert all(twin_agrees(rules, seed) for seed in range(4))
    for table, key, value in wrong:
        monkeypatch.setitem(getattr(rules_module, table), key, value)
    assert not all(twin_agrees(rules, seed) for seed in range(4))


def test_a_wrong_deck_make_up_of_the_engine_is_caught_by_the_twin(monkeypatch):
    monkeypatch.setattr(rules_module, "BASE_COPIES", (6, 6, 7))
    assert not twin_agrees(Rules(n_players=4), 0)


def equal_seeding_seeds(rules, wanted: int) -> list[int]:
    """Seeds whose festival seeding turned up two cards of equal value (about a third do)."""
    found = []
    for seed in range(200):
        state = new_state()
        deal(rules.to_array(), seed, 0, -1, state)
        draws = [card_of(c) for c in state[SEED_DRAWS : SEED_DRAWS + state[SEED_N]]]
        if draws[0][1] == draws[-1][1]:
            found.append(seed)
        if len(found) == wanted:
            break
    assert len(found) == wanted
    return found


_SEED_FESTIVAL = reference.seed_festival


def flipped_seed_festival(seeding, seeding_tie="first_drawn", start_order=None):
    """A mutated seeding rule: on equal values the *second*-drawn card goes 1st."""
    first, second = _SEED_FESTIVAL(seeding, seeding_tie, start_order)
    if first[1] == second[1]:
        return second, first
    return first, second


def test_the_seeding_tie_rule_is_checked_from_the_recorded_draws(monkeypatch):
    rules = Rules(n_players=4)
    seeds = equal_seeding_seeds(rules, 3)
    assert all(twin_agrees(rules, seed) for seed in seeds)
    for seed in seeds:
        start, _, final = random_game(rules, seed)
        draws = deal_of(rules, start, final).seeding
        recorded = (card_of(start[START]), card_of(start[START + 1]))
        assert reference.seed_festival(draws) == recorded == (draws[0], draws[-1])
        assert flipped_seed_festival(draws) != recorded
    monkeypatch.setattr(reference, "seed_festival", flipped_seed_festival)
    assert not any(twin_agrees(rules, seed) for seed in seeds)  # the mutated twin disagrees


def test_a_record_with_the_seeding_tie_broken_is_refused():
    rules = Rules(n_players=4)
    seed = equal_seeding_seeds(rules, 1)[0]
    start, actions, _ = random_game(rules, seed)
    record = make_record(rules, start, actions, {})
    assert record["festival_start"] == [record["seeding"][0], record["seeding"][-1]]
    replay(record)
    record["festival_start"].reverse()
    with pytest.raises(RecordError, match="on equal values the first-drawn card goes 1st"):
        replay(record)

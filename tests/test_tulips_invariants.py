"""Tulips invariants over whole games: every card in one place, two kinds a turn, fairness."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.registry import builtins, parse_list
from experiments.batch import field, play
from experiments.games import play_slow
from giftsim.rng import next_below
from tests.strategies import assert_same_decisions, quick, random_walk, tulips_rules
from tulips_sim import engine
from tulips_sim.engine import (
    apply_action,
    begin,
    is_over,
    kind_of,
    legal_actions,
    observe,
)
from tulips_sim.rules import N_TYPES, SETUP_FIRST, Rules
from tulips_sim.state import (
    BOUQUET,
    DEALT,
    DECK,
    DECK_N,
    DRAWN,
    FACE_UP,
    OBS_SIZE,
    PENDING,
    PHASE,
    PILE,
    REMOVED,
    SECRET_SIZE,
    SECRETS,
    SETUP,
    SETUP_OPEN,
    TOP,
    TURN,
    deal,
    new_state,
)

SPECS = [quick(f).spec for f in builtins("tulips")]


def places(state, n, deck_size):
    """Card counts per type in every place a card can be (the draw pile with the cards the
    game end leaves undrawn)."""
    counts = np.zeros(N_TYPES, np.int64)
    counts += state[REMOVED : REMOVED + N_TYPES]
    counts += state[FACE_UP : FACE_UP + N_TYPES]
    for c in state[DECK + state[TOP] : DECK + deck_size]:
        counts[c] += 1
    if state[DRAWN] >= 0:
        counts[state[DRAWN]] += 1
    for p in range(n):
        counts += state[BOUQUET + p * N_TYPES : BOUQUET + (p + 1) * N_TYPES]
    revealed = np.zeros(N_TYPES, np.int64)
    for c in state[PILE : PILE + state[SECRET_SIZE]]:
        revealed[c] += 1
    counts += revealed
    if state[PHASE] == SETUP:
        for p in range(n):
            if state[PENDING + p] < 0:  # still holding its dealt pair
                counts[state[DEALT + 2 * p]] += 1
                counts[state[DEALT + 2 * p + 1]] += 1
            elif not state[SETUP_OPEN]:  # in_turn: the chosen card is in the bouquet
                counts[state[PENDING + p]] += 1
    return counts


@settings(max_examples=60, deadline=None)
@given(tulips_rules(), st.integers(0, 2**32))
def test_every_card_is_in_exactly_one_place_at_all_times(rules, seed):
    n = rules.n_players
    state = new_state()
    deal(rules.to_array(), seed, 0, -1, state)
    begin(state)
    expected = list(rules.copies_by_type)
    rng = np.array([seed], np.uint64)
    revealed_once = False
    while True:
        counts = places(state, n, rules.deck_size)
        if is_over(state):  # revealed secret cards are counted face up and in the pile
            counts -= _revealed_counts(state)
            revealed_once = True
        assert list(counts) == expected
        if is_over(state):
            break
        legal = legal_actions(state)
        apply_action(state, legal[next_below(rng, len(legal))])
    assert revealed_once


def _revealed_counts(state):
    from tulips_sim.state import N_REVEALED, REVEALED

    out = np.zeros(N_TYPES, np.int64)
    for i in range(min(state[N_REVEALED], state[SECRET_SIZE])):
        out[state[REVEALED + i]] += 1
    return out


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**32), st.data())
def test_each_turn_uses_two_different_kinds(n, seed, data):
    specs = [data.draw(st.sampled_from(SPECS)) for _ in range(n)]
    game = play_slow("tulips", Rules(n_players=n), parse_list(specs, "tulips"), seed, 0)
    turns = [a for a in game.actions if a < SETUP_FIRST]
    assert len(turns) == Rules(n_players=n).turn_cards
    for first, second in zip(turns[::2], turns[1::2], strict=True):
        assert kind_of(first) != kind_of(second)


def hide_differently(state, seat, seed):
    """The same view for ``seat`` with the unseen cards dealt differently: the draw pile and
    the removed cards shuffled together, and other seats' setup secrets swapped."""
    other = state.copy()
    n_types = N_TYPES
    pile = [int(c) for c in state[DECK + state[TOP] : DECK + state[DECK_N]]]
    removed = [t for t in range(n_types) for _ in range(state[REMOVED + t])]
    unseen = np.array(pile + removed, np.int64)
    np.random.default_rng(seed).shuffle(unseen)
    other[DECK + state[TOP] : DECK + state[DECK_N]] = unseen[: len(pile)]
    other[REMOVED : REMOVED + n_types] = np.bincount(unseen[len(pile) :], minlength=n_types)
    rivals = [p for p in range(int(state[0])) if p != seat]
    if len(rivals) >= 2 and state[PHASE] != SETUP:
        a, b = rivals[0], rivals[1]
        ca, cb = int(state[PILE + a]), int(state[PILE + b])
        other[PILE + a], other[PILE + b] = cb, ca
        for who, old, new in ((a, ca, cb), (b, cb, ca)):
            other[SECRETS + who * n_types + old] -= 1
            other[SECRETS + who * n_types + new] += 1
    return other


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2**31), st.integers(0, 80))
def test_no_builtin_agent_sees_what_its_seat_may_not_know(n, seed, steps):
    state = new_state()
    deal(Rules(n_players=n).to_array(), seed, 0, -1, state)
    begin(state)
    if random_walk(state, engine, steps, seed):
        return
    seat = int(state[TURN])
    other = hide_differently(state, seat, seed)
    a, b = np.zeros(OBS_SIZE, np.int64), np.zeros(OBS_SIZE, np.int64)
    observe(state, seat, a)
    observe(other, seat, b)
    assert np.array_equal(a, b)
    assert_same_decisions(builtins("tulips"), a, b, n)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("n", [2, 4, 6])
def test_builtin_agents_choose_only_legal_actions(spec, n):
    family = spec.split(":")[0]
    games = {"planner": 400, "flatmc": 8, "ismcts": 8}.get(family.removesuffix("_net"), 2000)
    frame = play("tulips", [spec] * n, games, seed=8)
    assert (frame.n_decisions == n + Rules(n_players=n).turn_cards).all()


@pytest.mark.parametrize("spec", ["hoarder", "planner"])
def test_heuristics_beat_greedy_in_seat_rotated_four_player_games(spec):
    result = field("tulips", spec, "greedy", 4, 1500 if spec == "planner" else 5000, seed=5)
    assert result["ci95"][0] > result["fair"]


def test_greedy_favours_no_seat():
    frame = play("tulips", ["greedy"] * 4, 20_000, seed=1)
    shares = [frame[f"win_{s}"].mean() for s in range(4)]
    assert max(shares) - min(shares) < 0.03


@settings(max_examples=40, deadline=None)
@given(tulips_rules(), st.integers(0, 2**32))
def test_the_live_state_shows_the_seat_to_act_exactly_its_observation(rules, seed):
    """The fast loop hands agents the state's observation prefix: it must always equal
    observe(state, seat to act), secret adds and setup included."""
    state = new_state()
    deal(rules.to_array(), seed, 0, -1, state)
    begin(state)
    rng = np.array([seed], np.uint64)
    obs = np.zeros(OBS_SIZE, np.int64)
    while not is_over(state):
        observe(state, int(state[TURN]), obs)
        assert np.array_equal(state[:OBS_SIZE], obs)
        legal = legal_actions(state)
        apply_action(state, legal[next_below(rng, len(legal))])

"""Search agents (flat Monte Carlo, ISMCTS) and tuning: worlds drawn only from what a seat may
know, reproducible decisions, strength, and the tuned built-ins."""

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import registry
from agents.base import Choice, Range
from agents.drivers.generate import driver
from agents.geschenkt import worlds as nt_worlds
from agents.registry import families, parse
from agents.roster import roster
from agents.tulips import worlds as tu_worlds
from experiments import tune as tune_module
from experiments.batch import field, play
from experiments.cli import main
from experiments.ladder import ladder, markdown, steps
from experiments.tune import tune
from geschenkt_sim import engine as nt_engine
from geschenkt_sim import rules as nt_rules
from geschenkt_sim import state as nt_state
from geschenkt_sim.rules import Rules as NtRules
from tests.strategies import random_walk
from tulips_sim import engine as tu_engine
from tulips_sim import state as tu_state
from tulips_sim.rules import N_TYPES
from tulips_sim.rules import Rules as TuRules

DOCS = Path(__file__).resolve().parents[1] / "docs" / "tuned"


def nt_position(seed, n, steps, visible):
    """A No Thanks! state after a random walk, or None when the game ended."""
    state = nt_state.new_state()
    nt_state.deal(NtRules(n_players=n, chips_visible=visible).to_array(), seed, 0, -1, state)
    return None if random_walk(state, nt_engine, steps, seed) else state


def tu_position(seed, n, steps):
    state = tu_state.new_state()
    tu_state.deal(TuRules(n_players=n).to_array(), seed, 0, -1, state)
    tu_engine.begin(state)
    return None if random_walk(state, tu_engine, steps, seed) else state


def world_of(engine, state_module, worlds, state, seed):
    """The seat to act's observation of ``state`` and a world drawn from it; asserts that the
    world shows that seat exactly the same observation."""
    seat = int(state[state_module.TURN])
    obs = np.zeros(engine.OBS_SIZE, np.int64)
    engine.observe(state, seat, obs)
    world = state_module.new_state()
    worlds.world(obs, np.array([seed], np.uint64), world)
    again = np.zeros_like(obs)
    engine.observe(world, seat, again)
    assert np.array_equal(again, obs)
    return obs, world


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 7), st.integers(0, 150), st.booleans())
def test_no_thanks_worlds_show_the_seat_its_own_view(seed, n, steps, visible):
    state = nt_position(seed, n, steps, visible)
    if state is None:
        return
    obs, world = world_of(nt_engine, nt_state, nt_worlds, state, seed)
    stack = world[nt_state.DECK + 1 : nt_state.DECK + world[nt_state.N_CARDS]]
    assert sum(1 << int(c) for c in stack) | world[nt_state.REMOVED] == obs[nt_state.UNSEEN]
    chips = world[nt_state.CHIPS : nt_state.CHIPS + n].sum() + world[nt_state.POT]
    assert chips == obs[nt_state.TOTAL_CHIPS]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([2, 3, 4, 5, 6]), st.integers(0, 120))
def test_tulips_worlds_show_the_seat_its_own_view_and_keep_every_card(seed, n, steps):
    state = tu_position(seed, n, steps)
    if state is None:
        return
    _, world = world_of(tu_engine, tu_state, tu_worlds, state, seed)
    assert np.array_equal(card_places(world, n), card_places(state, n))


def card_places(state, n):
    """Cards per type in the pile, removed, secret, face up, bouquets, hands and dealt pairs."""
    counts = state[tu_state.REMOVED : tu_state.REMOVED + N_TYPES].copy()
    counts += state[tu_state.FACE_UP : tu_state.FACE_UP + N_TYPES]
    for c in state[tu_state.DECK + state[tu_state.TOP] : tu_state.DECK + state[tu_state.DECK_N]]:
        counts[c] += 1
    for p in range(n):
        counts += state[tu_state.BOUQUET + p * N_TYPES : tu_state.BOUQUET + (p + 1) * N_TYPES]
        counts += state[tu_state.SECRETS + p * N_TYPES : tu_state.SECRETS + (p + 1) * N_TYPES]
    if state[tu_state.DRAWN] >= 0:
        counts[state[tu_state.DRAWN]] += 1
    if state[tu_state.PHASE] == tu_state.SETUP:
        for p in range(n):
            chosen = state[tu_state.PENDING + p]
            pair = (
                [chosen]
                if chosen >= 0
                else state[tu_state.DEALT + 2 * p : tu_state.DEALT + 2 * p + 2]
            )
            for c in pair:
                counts[c] += 1
    assert (counts == state[tu_state.COPIES + np.arange(N_TYPES)]).all()
    return counts


@pytest.mark.parametrize("game", ["geschenkt", "tulips"])
@pytest.mark.parametrize("family", ["flatmc", "ismcts"])
def test_search_games_do_not_depend_on_how_they_are_split(game, family):
    agents = [f"{family}:iters=30", "greedy", "greedy"]
    whole = play(game, agents, 6, seed=3)
    halves = [play(game, agents, 3, seed=3, first_index=i) for i in (0, 3)]
    for column in ("score_0", "score_1", "score_2"):
        assert list(whole[column]) == [*halves[0][column], *halves[1][column]]


def test_ismcts_beats_two_greedy_players_in_three_player_no_thanks():
    result = field("geschenkt", "ismcts:iters=150", "greedy", 3, 40, seed=11)
    assert result["ci95"][0] > result["fair"]


def test_ismcts_beats_three_greedy_players_in_four_player_tulips():
    result = field("tulips", "ismcts:iters=100", "greedy", 4, 30, seed=11)
    assert result["ci95"][0] > result["fair"]


@pytest.mark.parametrize("path", sorted(DOCS.glob("*.json")), ids=lambda p: p.stem)
def test_tuned_builtins_carry_the_parameters_their_tuning_run_wrote(path):
    run = json.loads(path.read_text())
    name = f"tuned{run['players']}p"
    agent = parse(name, run["game"])
    assert agent.params == pytest.approx(run["params"])
    assert run["family"] in {f.name for f in families(run["game"])}
    assert run["command"].startswith(f"giftsim tune {run['game']} --family {run['family']}")


def test_tuning_is_reproducible_and_reports_an_interval():
    a = tune(
        "geschenkt", "sniper", 3, "greedy", games=40, generations=2, popsize=4, final_games=200
    )
    b = tune(
        "geschenkt", "sniper", 3, "greedy", games=40, generations=2, popsize=4, final_games=200
    )
    assert a.params == b.params and a.win_share == b.win_share
    assert a.ci95[0] <= a.win_share <= a.ci95[1]
    assert len(a.history) == 2 and set(a.params) == set(parse("sniper", "geschenkt").params)


def _threshold(obs, params, rng):
    """Take when the pot holds at least ``chips`` chips (a whole number), else pass."""
    return nt_rules.TAKE if obs[nt_state.POT] >= params[0] else nt_rules.PASS


def test_tuning_keeps_every_candidate_in_its_parameters_ranges(monkeypatch):
    """CMA-ES searches the real line: a whole-number parameter is played rounded, one with an
    interval at its nearest edge, a choice at its nearest value (a search's ``iters`` came out
    as 1037.7191 and stopped ``giftsim tune`` with an error about a value nobody typed). With
    a wide step most candidates fall outside the ranges; any played as drawn would raise."""
    monkeypatch.setattr(registry, "_FAMILIES", {g: dict(t) for g, t in registry._FAMILIES.items()})
    ranges = {"chips": Range(0, 6, integer=True), "lean": Range(0.0, 0.01)}
    registry.define("geschenkt", "threshold", _threshold, {"chips": 3, "lean": 0.0}, None, ranges)
    result = tune(
        "geschenkt",
        "threshold",
        3,
        "greedy",
        games=10,
        generations=2,
        popsize=6,
        sigma=2.0,
        final_games=20,
    )
    assert float(result.params["chips"]).is_integer() and 0 <= result.params["chips"] <= 6
    assert 0.0 <= result.params["lean"] <= 0.01
    assert tune_module._into(Range(1, 10, integer=True), 1037.7191) == 10.0
    assert tune_module._into(Range(1, 10_000, integer=True), 1037.5001) == 1038.0
    assert tune_module._into(Range(0.0, 1.0), -0.2) == 0.0
    assert tune_module._into(Choice((0.0, 1.0)), 0.7) == 1.0


def test_tuning_a_family_without_two_parameters_is_refused(capsys):
    assert (
        main(["tune", "geschenkt", "--family", "greedy", "--players", "3", "--field", "greedy"])
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "CMA-ES tunes two or more" in err


def test_ladder_steps_pair_each_rung_with_the_one_below():
    todo = steps("geschenkt", games=100, search_games=5, players=(3, 4))
    assert [(n, lower, upper) for _, n, lower, upper, _ in todo[:3]] == [
        (3, "random", "greedy"),
        (3, "greedy", "sniper"),
        (3, "sniper", "tuned3p"),
    ]
    ladder_ = roster("geschenkt").ladder
    assert len(todo) == 2 * (len(ladder_.rungs) - 1 + len(ladder_.branches))
    assert (4, "tuned4p", "learned") in [(n, lower, upper) for _, n, lower, upper, _ in todo]
    deals = {upper: d for _, n, _, upper, d in todo if n == 4}
    assert deals["tuned4p"] == 100 and deals["ismcts"] == 5
    assert deals["flatmc"] == 4 * 5  # against heuristics only its own seat searches


def test_ladder_table_is_written_with_its_command():
    table = ladder(["geschenkt"], n_games=300, search_games=0, workers=1)
    assert set(table.upper) == {"greedy", "sniper", "tuned3p", "tuned4p", "tuned5p", "learned"}
    assert table.shown.all()  # random < greedy < sniper < tuned < learned, even on 300 deals
    text = markdown(table, ["ladder", "--games", "300"])
    assert "`giftsim ladder --games 300`" in text
    assert text.count("| `greedy` | `random` |") == len(roster("geschenkt").ladder.players)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.integers(3, 6), st.integers(0, 100))
def test_no_thanks_search_keys_do_not_depend_on_sampled_hidden_chips(seed, n, steps):
    state = nt_position(seed, n, steps, visible=False)
    if state is None:
        return
    seat = int(state[nt_state.TURN])
    obs = np.zeros(nt_engine.OBS_SIZE, np.int64)
    nt_engine.observe(state, seat, obs)
    keys = set()
    for k in range(8):
        world = nt_state.new_state()
        nt_worlds.world(obs, np.array([k], np.uint64), world)
        keys.add(nt_worlds.view_key(world, seat))
    assert keys == {nt_worlds.view_key(state, seat)}


@pytest.mark.parametrize("game", ["geschenkt", "tulips"])
def test_search_values_at_margin_zero_are_the_games_rewards(game):
    """The search judges a world's end by the game's own ``rewards`` verb: at margin 0 a
    world's values are the shares of the win, and the margin adds the score lead only."""
    from experiments.games import play_slow
    from giftsim.game import load_game

    definition = load_game(game)
    family = {"geschenkt": "sniper", "tulips": "hoarder"}[game]
    for index in range(30):
        played = play_slow(game, definition.rules(n_players=4), [parse(family, game)] * 4, 2, index)
        shares, values = np.zeros(4), np.zeros(definition.max_players)
        definition.rewards(played.final, shares)
        params = np.zeros(8)  # margin 0
        driver(game, "playouts").values(played.final, params, values)
        assert np.allclose(values[:4], shares)
        assert shares.sum() == pytest.approx(1.0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 6), st.integers(1, 60))
def test_tulips_search_keys_of_other_seats_ignore_their_sampled_secret_cards(seed, n, steps):
    state = tu_position(seed, n, steps)
    if state is None:
        return
    seat = int(state[tu_state.TURN])
    other = (seat + 1) % n
    changed = state.copy()
    changed[tu_state.OWN_SECRET : tu_engine.OBS_SIZE] += 1  # the acting seat's secret cards
    assert tu_worlds.view_key(changed, other) == tu_worlds.view_key(state, other)
    assert tu_worlds.view_key(changed, seat) != tu_worlds.view_key(state, seat)
    drawn = state.copy()
    drawn[tu_state.DRAWN] = (state[tu_state.DRAWN] + 1) % N_TYPES
    assert tu_worlds.view_key(drawn, other) != tu_worlds.view_key(state, other)


@pytest.mark.parametrize("game", ["geschenkt", "tulips"])
def test_search_trees_of_every_seat_record_only_their_own_choices(game):
    """Multiple-observer ISMCTS: every walk starts with the searcher's choice at the root,
    each tree node is chosen at by one seat only, and the other seats search too."""
    from agents.kernels import search

    ismcts = driver(game, "ismcts")
    n, iters = 4, 300
    state = nt_position(5, n, 3, True) if game == "geschenkt" else tu_position(5, n, 3)
    observer = int(state[ismcts.TURN])
    params = parse(f"ismcts:iters={iters}:others=1", game).param_row()
    tree, used, path = search.new_tree(ismcts.NUM_ACTIONS, n, params)
    at, via = np.empty(n, np.int64), np.empty(n, np.int64)
    owners, rng = {}, np.array([3], np.uint64)
    for _ in range(iters):
        search.open_walks(at, via, observer, params)
        walk = (tree, used, path, at, via, state.copy(), params, observer, rng, None)
        steps = ismcts._walk(*walk)  # no work space: no network
        assert (path[0, search.NODE], path[0, search.OWNER]) == (0, observer)
        for d in range(steps):
            node, seat = int(path[d, search.NODE]), int(path[d, search.OWNER])
            assert owners.setdefault(node, seat) == seat
    assert set(owners.values()) - {observer}  # the others chose in their own trees


@pytest.mark.parametrize(
    ("n", "tuned"), [(2, "tuned2p"), (3, "tuned4p"), (4, "tuned4p"), (5, "tuned6p"), (6, "tuned6p")]
)
def test_tulips_tuned_playout_policy_is_the_tuned_builtin_less_race_and_pick(n, tuned):
    from agents.tulips import hoarder
    from agents.tulips.tuned import TUNED

    row = tu_worlds._TUNED_PARAMS[n]
    expected = dict(TUNED[tuned], race=0.0, pick=0.0)
    assert list(row[: len(expected)]) == list(expected.values())
    assert list(expected) == list(hoarder.PARAMS)

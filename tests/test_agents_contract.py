"""Every agent: legal actions only, no peeking at hidden cards, specs, user-defined agents."""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from numba.core.event import install_recorder

from agents.drivers.block import IllegalActionError
from agents.drivers.generate import driver
from agents.registry import builtins, define, parse
from experiments.batch import by_agent, play
from geschenkt_sim import engine
from geschenkt_sim.engine import OBS_SIZE, observe
from geschenkt_sim.rules import MAX_PLAYERS, TAKE, Rules
from geschenkt_sim.state import DECK, N_CARDS, POS, REMOVED, TURN, cards_of, deal, new_state
from tests.strategies import assert_same_decisions, quick, random_walk

BUILTINS = [f for f in builtins("geschenkt") if not f.table]  # solved: tests/test_solve.py


def hide_differently(state, seed):
    """The same public state with the unseen cards dealt differently between stack and box."""
    other = state.copy()
    pos, n_cards = int(state[POS]), int(state[N_CARDS])
    rest = [int(c) for c in state[DECK + pos + 1 : DECK + n_cards]]
    before = np.array(rest + cards_of(state[REMOVED]), np.int64)
    unseen = before.copy()
    np.random.default_rng(seed).shuffle(unseen)
    if np.array_equal(unseen[: len(rest)], before[: len(rest)]):
        unseen = np.roll(unseen, 1)  # the unseen cards are distinct: a roll changes the stack
    other[DECK + pos + 1 : DECK + n_cards] = unseen[: len(rest)]
    other[REMOVED] = sum(1 << int(c) for c in unseen[len(rest) :])
    return other


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 7), st.integers(0, 150), st.booleans())
@example(seed=294539, n=7, steps=0, visible=False)  # the seat to act: seat 1's asking failed
def test_no_builtin_agent_sees_the_stack_or_the_removed_cards(seed, n, steps, visible):
    from geschenkt_sim.rules import Rules

    rules = Rules(n_players=n, chips_visible=visible)
    state = new_state()
    deal(rules.to_array(), seed, 0, -1, state)
    if random_walk(state, engine, steps, seed):
        return
    other = hide_differently(state, seed)
    assert not np.array_equal(other, state) or int(state[N_CARDS]) - int(state[POS]) <= 1
    for seat in range(n):
        a, b = np.zeros(OBS_SIZE, np.int64), np.zeros(OBS_SIZE, np.int64)
        observe(state, seat, a)
        observe(other, seat, b)
        assert np.array_equal(a, b)
        # An agent is asked at its own turn only: another seat's legal actions can depend on
        # hidden chips, so a search would sample worlds where its first action is illegal.
        if seat == int(state[TURN]):
            assert_same_decisions(BUILTINS, a, b, n)


def test_hidden_chips_read_minus_one_for_opponents_only():
    from geschenkt_sim.engine import CHIPS
    from geschenkt_sim.rules import Rules

    state = new_state()
    deal(Rules(n_players=4, chips_visible=False).to_array(), 1, 0, 0, state)
    obs = np.zeros(OBS_SIZE, np.int64)
    observe(state, 2, obs)
    assert list(obs[CHIPS : CHIPS + 4]) == [-1, -1, 11, -1]


@pytest.mark.parametrize("family", BUILTINS, ids=lambda f: f.name)
def test_builtin_agents_choose_only_legal_actions(family):
    games = 3000 if "iters" not in family.defaults else 20  # search agents are slow
    frame = play("geschenkt", [quick(family)] * 5, games, seed=8)  # illegal moves would raise
    assert len(frame) == games


def test_agents_are_documented_and_named_by_specs():
    for family in BUILTINS:
        assert family.summary
        assert parse(family.name, "geschenkt").spec == family.name
    assert parse("greedy:T=-3", "geschenkt").params == {"T": -3.0}
    assert parse("random:p=0.3", "geschenkt").spec == "random:p=0.3"


BAD_SPECS = [
    ("gready", "unknown agent 'gready' for geschenkt (valid: random, greedy, sniper"),
    ("greedy:X=1", "agent 'greedy' has no parameter 'X' (valid: T)"),
    ("learned:X=1", "agent 'learned' has no parameter 'X' (valid: net=FILE)"),
    ("flatmc_net:X=1", "(valid: iters, policy, margin, depth, mix, leaf, top, net=FILE)"),
    ("greedy:T", "must look like key=value"),
    ("random:p=lots", "parameter 'p' in 'random:p=lots' must be a number"),
]


@pytest.mark.parametrize(("spec", "message"), BAD_SPECS)
def test_bad_specs_list_the_valid_choices(spec, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse(spec, "geschenkt")


def always_take(obs, params, rng):
    """Always takes the card."""
    return TAKE


def test_user_agent_runs_in_the_compiled_loop_without_recompiling():
    family = define("geschenkt", "taker", always_take, {"unused": 1.0})
    play("geschenkt", ["greedy", "sniper", "greedy", "greedy"], 10)  # the loop of pointers
    play_games = driver("geschenkt", "loop").play_games
    compiled = len(play_games.signatures)
    frame = play("geschenkt", ["taker", "greedy", "sniper", "random"], 500, seed=2)
    for mix in (["taker"] * 3, ["random", "taker", "greedy", "sniper", "taker", "greedy"]):
        play("geschenkt", mix, 50)
    assert len(play_games.signatures) == compiled == 1
    assert family.summary == "Always takes the card."
    # A seat that always takes never passes: it ends with its 11 chips plus nothing.
    assert (frame.n_decisions >= 24).all()
    assert by_agent(frame).loc["taker", "win_share"] < 0.05


@pytest.mark.parametrize("spec", ["greedy", "sniper", "taker"])
def test_a_decision_asked_from_python_runs_the_code_the_loop_compiled(spec):
    """The slow path, the environments and ``bench`` ask an agent through ``Family.ask``: it
    runs the ``decide`` its loop entry compiled (a built-in's observation read-only, a user
    agent's its own copy), so nothing compiles a second time, and the array it is shown and
    the parameter row stay writable for their owner."""
    define("geschenkt", "taker", always_take, {"unused": 1.0})
    agent = parse(spec, "geschenkt")
    agent.family.entry()
    state, obs, row = new_state(), np.zeros(OBS_SIZE, np.int64), agent.param_row(4)
    deal(Rules(n_players=4).to_array(), 5, 0, 0, state)
    observe(state, int(state[TURN]), obs)
    with install_recorder("numba:compile") as compiled:  # a cache load is not a compile
        action = agent.family.ask(obs, row, np.ones(1, np.uint64))
    assert action in (0, 1)
    assert compiled.buffer == []
    assert obs.flags.writeable and row.flags.writeable


def test_user_agent_with_illegal_moves_is_reported():
    """The compiled loop says which game; the game played again says which seat, agent and
    action (it said "an agent (greedy, sniper, confused) chose an illegal action")."""

    def confused(obs, params, rng):
        return 7

    define("geschenkt", "confused", confused)
    with pytest.raises(IllegalActionError, match=r"^game 0: seat 0 \(confused\) chose"):
        play("geschenkt", ["confused"] * 3, 5)
    says = r"^game 1: seat 2 \(confused\) chose illegal action 7 \(legal: \[0, 1\]\); check"
    with pytest.raises(IllegalActionError, match=says):
        play("geschenkt", ["greedy", "sniper", "confused"], 5, first_index=1)


def test_user_agent_that_does_not_compile_is_a_clear_error():
    def broken(obs, params, rng):
        return "take"

    with pytest.raises(ValueError, match="does not compile"):
        define("geschenkt", "broken", broken)


def test_sniper_beats_greedy_in_seat_rotated_four_player_games():
    frame = play("geschenkt", ["sniper", "greedy", "greedy", "greedy"], 20_000, seed=21)
    table = by_agent(frame)
    assert table.loc["sniper", "ci_low"] > 0.25 and table.loc["sniper", "deals"] == 20_000


def test_illegal_seat_counts_are_refused():
    with pytest.raises(ValueError, match=r"n_players must be in 2\.\.7"):
        play("geschenkt", ["greedy"] * (MAX_PLAYERS + 1), 1)


def test_the_agents_command_lists_the_file_parameters(capsys):
    """``giftsim agents`` names ``net=`` and ``table=`` where a family takes them (they were
    missing from its list, and ``learned:foo=1`` said "valid: none")."""
    from experiments.cli import main

    assert main(["agents", "geschenkt"]) == 0
    listing = capsys.readouterr().out
    learned = listing.split("  learned [built-in]")[1].split("\n  ")[0:3]
    assert any(line.strip().startswith("net = FILE") for line in learned)
    solved = listing.split("  solved [built-in]")[1].split("\n  ")[0:2]
    assert any(line.strip().startswith("table = FILE") for line in solved)
    greedy = listing.split("  greedy [built-in]")[1].split("\n  sniper")[0]
    assert "net = FILE" not in greedy and "table = FILE" not in greedy

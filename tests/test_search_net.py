"""Search agents that value their playouts' leaves by the learned network (``flatmc_net``,
``ismcts_net``) in both games: the leaf value, the truncated playout, and the network they
read."""

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from agents.drivers.generate import driver
from agents.kernels import net
from agents.kernels.search import least_of
from agents.registry import parse
from agents.roster import roster
from experiments.batch import field
from experiments.bench import positions
from geschenkt_sim import engine as nt_engine
from geschenkt_sim import scoring as nt_scoring
from geschenkt_sim import state as nt_state
from geschenkt_sim.rules import MAX_PLAYERS
from geschenkt_sim.rules import Rules as NtRules
from giftsim.contract import read_only
from tests.strategies import random_walk
from tulips_sim import engine as tu_engine
from tulips_sim import scoring as tu_scoring
from tulips_sim import state as tu_state
from tulips_sim.rules import Rules as TuRules

GAMES = {
    "geschenkt": SimpleNamespace(
        leaf=driver("geschenkt", "leaf"),
        engine=nt_engine,
        scoring=nt_scoring,
        state=nt_state,
        rules=NtRules,
    ),
    "tulips": SimpleNamespace(
        leaf=driver("tulips", "leaf"),
        engine=tu_engine,
        scoring=tu_scoring,
        state=tu_state,
        rules=TuRules,
    ),
}
PLAYER_COUNTS = {"geschenkt": (3, 5), "tulips": (2, 4)}
CASES = [(game, n) for game, counts in PLAYER_COUNTS.items() for n in counts]


def position(game, seed, n, steps):
    """A state of ``game`` after ``steps`` random legal actions."""
    g = GAMES[game]
    state = g.state.new_state()
    g.state.deal(g.rules(n_players=n).to_array(), seed, 0, -1, state)
    if game == "tulips":
        g.engine.begin(state)
    random_walk(state, g.engine, steps, seed)
    return state


def network(game, n):
    """The shipped network, read-only as the searches read it (the kernels they compiled)."""
    return read_only(parse("flatmc_net", game).network(n))


@pytest.mark.parametrize(("game", "n"), CASES)
def test_the_leaf_value_of_a_finished_game_is_its_true_shares(game, n):
    g = GAMES[game]
    for seed in range(4):
        state = position(game, seed, n, 10_000)
        assert g.engine.is_over(state)
        out, truth = np.full(MAX_PLAYERS, -1.0), np.zeros(MAX_PLAYERS)
        g.leaf.leaf_values(state, network(game, n), out)
        g.scoring.rewards(state, truth)
        assert np.array_equal(out[:n], truth[:n])


@pytest.mark.parametrize(("game", "n"), CASES)
def test_leaf_values_are_shares_that_sum_to_one(game, n):
    g = GAMES[game]
    state = position(game, 3, n, 12)
    assert not g.engine.is_over(state)
    out = np.zeros(MAX_PLAYERS)
    g.leaf.leaf_values(state, network(game, n), out)
    assert ((out[:n] > 0) & (out[:n] < 1)).all()
    if g.leaf.NORMALISE:
        assert out[:n].sum() == pytest.approx(1.0)


def test_no_thanks_leaf_values_read_each_seats_view_only():
    state = position("geschenkt", 3, 3, 12)
    assert state[nt_state.CARDS_LEFT] >= 2
    out = np.zeros(MAX_PLAYERS)
    driver("geschenkt", "leaf").leaf_values(state, network("geschenkt", 3), out)
    swapped = state.copy()  # the order of the face-down cards: no seat sees it
    at = nt_state.DECK + state[nt_state.POS] + 1
    swapped[at], swapped[at + 1] = state[at + 1], state[at]
    again = np.zeros(MAX_PLAYERS)
    driver("geschenkt", "leaf").leaf_values(swapped, network("geschenkt", 3), again)
    assert np.array_equal(out, again)


@pytest.mark.parametrize(("game", "n"), [("geschenkt", 3), ("tulips", 2), ("tulips", 4)])
@pytest.mark.parametrize("mix", [0.5, 0.25])
def test_a_truncated_playout_mixes_the_leaf_value_with_the_end(game, n, mix):
    g = GAMES[game]
    agent = parse("ismcts_net:margin=0", game)
    row, space = read_only(agent.param_row(n)), g.leaf.new_space(n)
    start = position(game, 5, n, 4)
    at_leaf, truth = np.zeros(MAX_PLAYERS), np.zeros(MAX_PLAYERS)
    g.leaf.leaf_values(start, network(game, n), at_leaf)
    state, out = start.copy(), np.zeros(MAX_PLAYERS)
    g.leaf.truncated_values(state, row, 0, mix, np.ones(1, np.uint64), space, out)
    g.scoring.rewards(state, truth)
    assert g.engine.is_over(state)  # played on to the end for the mix
    assert np.allclose(out[:n], mix * at_leaf[:n] + (1 - mix) * truth[:n])
    state = start.copy()
    g.leaf.truncated_values(state, row, 0, 1.0, np.ones(1, np.uint64), space, out)
    assert np.array_equal(state, start) and np.allclose(out[:n], at_leaf[:n])  # the leaf alone
    g.leaf.truncated_values(state, row, 7, mix, np.ones(1, np.uint64), space, out)
    assert (space[g.leaf.RECENT][:n] != g.leaf.NOT_YET).any()  # the last plies' afterstates
    state = start.copy()
    g.leaf.truncated_values(state, row, g.leaf.MAX_DEPTH, mix, np.ones(1, np.uint64), space, out)
    g.scoring.rewards(state, truth)
    assert np.array_equal(out[:n], truth[:n])  # a game over within depth: its true shares


@pytest.mark.parametrize("game", ["geschenkt", "tulips"])
@pytest.mark.parametrize("name", ["flatmc_net", "ismcts_net"])
def test_search_with_the_learned_value_reads_the_network_it_is_given(game, name):
    agent = parse(f"{name}:net=agents/{game}/nets/4p.npz", game)
    absolute = str(Path(f"agents/{game}/nets/4p.npz").resolve())  # workers need not share cwd
    assert agent.file == absolute and agent.spec.endswith(f"net={absolute}")
    with pytest.raises(ValueError, match="for 4 players, not 3"):
        agent.param_row(3)


@pytest.mark.parametrize("game", ["geschenkt", "tulips"])
def test_every_shipped_network_carries_the_command_that_made_it(game):
    """Each ``nets/*.npz`` has its ``.json`` beside it: a ``giftsim train`` command for the
    game and the player count of the file's name, the same record as the file's own meta."""
    files = sorted(roster(game).nets.glob("*.npz"))
    assert len(files) >= 3 and {p.stem for p in files} >= {"3p", "4p", "5p"}
    for path in files:
        record = json.loads(path.with_suffix(".json").read_text())
        players = int(path.stem.split("p")[0])
        assert record["players"] == players and record["game"] == game, path
        assert record["command"].startswith(f"giftsim train {game} --players {players} "), path
        meta = net.read(path)[1]
        assert meta["command"] == record["command"], path
        assert meta["confirmed"] == record["confirmed"], path  # its score on fresh deals
        low, high = record["confirmed"]["ci_low"], record["confirmed"]["ci_high"]
        assert 0 <= low < record["confirmed"]["win_share"] < high <= 1, path


@pytest.mark.parametrize(
    ("game", "n", "spec"),
    [
        ("geschenkt", 3, "flatmc_net:iters=30:depth=3"),
        ("geschenkt", 3, "ismcts_net:iters=40:policy=5"),
        ("tulips", 2, "flatmc_net:iters=40:leaf=0:depth=4"),
        ("tulips", 2, "flatmc_net:iters=40"),
        ("tulips", 2, "ismcts_net:iters=40:policy=5"),
    ],
)
def test_search_with_the_learned_value_beats_random(game, n, spec):
    result = field(game, spec, "random", n, 8, seed=3)
    assert result["ci95"][0] > result["fair"]


OWN_CASES = [("geschenkt", 3), ("geschenkt", 5), ("tulips", 2), ("tulips", 4)]


def decisions(game, n, games):
    """Observations of a seat at decisions with a choice, in games of the tuned agent; in Tulips
    those where no action can end the game (the only afterstates that depend on the sampled
    world)."""
    seen = positions(game, n, "tuned4p" if game == "tulips" else "tuned3p", games)
    if game == "tulips":
        return [o for o in seen if o[tu_state.DECK_LEFT] > 2]
    return seen


def assert_same_choices(first, second, n, observations):
    """The two agents choose alike at every observation, each given the same random stream."""
    first_row, second_row = first.param_row(n), second.param_row(n)
    for k, obs in enumerate(observations):
        a = first.family.ask(obs, first_row, np.array([k + 1], np.uint64))
        assert a == second.family.ask(obs, second_row, np.array([k + 1], np.uint64))


@pytest.mark.parametrize(("game", "n"), OWN_CASES)
def test_flatmc_net_on_its_own_leaf_with_no_weight_on_it_is_flatmc(game, n):
    """``leaf=1`` with ``mix=0``: the network drops out, and on the same random stream every
    choice is ``flatmc``'s (the same worlds, the same playouts; both games' defaults share the
    playout policy and margin)."""
    own = parse("flatmc_net:leaf=1:mix=0:iters=60", game)
    flat = parse("flatmc:iters=60", game)
    observations = decisions(game, n, 1)[:12]
    assert len(observations) == 12
    assert_same_choices(own, flat, n, observations)


@pytest.mark.parametrize(("game", "n"), [("geschenkt", 3), ("tulips", 2)])
@pytest.mark.parametrize("policy", ["", ":policy=5"])
def test_flatmc_net_on_its_own_leaf_plays_out_as_the_full_depth_leaf_does(game, n, policy):
    """``leaf=1`` with ``mix=0`` plays every world to the end with the default policy, the
    learned agent (``policy=5``) too, as ``leaf=0`` with a depth past the end does: on the same
    random stream the two choose alike."""
    own = parse(f"flatmc_net:leaf=1:mix=0:iters=20{policy}", game)
    deep = parse(f"flatmc_net:leaf=0:depth=1000:iters=20{policy}", game)
    observations = decisions(game, n, 1)[:8]
    assert len(observations) == 8
    assert_same_choices(own, deep, n, observations)


@pytest.mark.parametrize(
    ("prior", "legal", "least"),
    [
        ([0.2, 0.2], 0b11, 1),
        ([0.1, 0.2], 0b11, 0),
        ([0.3, 0.1, 0.1, 0.5], 0b1111, 2),
        ([0.3, 0.1, 0.1, 0.5], 0b1011, 1),
        ([0.3, 0.1, 0.1, 0.5, 0.0], 0b01111, 2),  # action 4 not legal
    ],
)
def test_top_drops_the_action_valued_least_the_highest_id_on_ties(prior, legal, least):
    """``top`` keeps what ``best_of`` would choose, so it drops the highest id among equals."""
    assert least_of(np.array(prior), legal) == least


@pytest.mark.parametrize(("game", "n"), OWN_CASES)
@pytest.mark.parametrize("own", ["mix=1:margin=0", "mix=0:top=1"])
def test_flatmc_net_on_its_own_leaf_led_by_the_network_alone_is_learned(game, n, own):
    """``leaf=1`` with ``mix=1`` and no margin values each action by the network's share of the
    seat's afterstate alone; with ``top=1`` it keeps only the action the network values most.
    Either way the choice is ``learned``'s."""
    agent, one_ply = parse(f"flatmc_net:leaf=1:{own}:iters=30", game), parse("learned", game)
    row, one_row = agent.param_row(n), one_ply.param_row(n)
    observations = decisions(game, n, 2)
    assert len(observations) > 20
    chosen = set()
    for k, obs in enumerate(observations):
        a = agent.family.ask(obs, row, np.array([k + 1], np.uint64))
        assert a == one_ply.family.ask(obs, one_row, np.array([k + 7], np.uint64))
        chosen.add(a)
    assert len(chosen) > 1  # not one action everywhere

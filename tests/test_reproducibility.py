"""A game is a pure function of (root seed, game index, rules, agents)."""

import numpy as np
import pytest

import geschenkt_sim.state
import tulips_sim.state
from agents.registry import parse_list
from experiments.batch import play
from experiments.games import play_slow
from giftsim.game import load_game

MIX = ["sniper", "random", "greedy:T=-2", "random:p=0.3"]
FIRST_SLOT = {"geschenkt": geschenkt_sim.state.FIRST, "tulips": tulips_sim.state.FIRST}
MIXES = {"geschenkt": MIX, "tulips": ["hoarder", "random", "greedy", "planner"]}


@pytest.mark.parametrize("game", sorted(MIXES))
def test_blocks_of_any_size_give_the_same_games(game):
    whole = play(game, MIXES[game], 600, seed=11, as_frame=False)
    pieces = [
        play(game, MIXES[game], size, seed=11, first_index=start, as_frame=False)
        for start, size in [(0, 1), (1, 199), (200, 350), (550, 50)]
    ]
    assert np.array_equal(whole, np.concatenate(pieces))


def test_game_index_not_position_decides_the_game():
    one = play("geschenkt", MIX, 1, seed=5, first_index=123, as_frame=False)
    many = play("geschenkt", MIX, 200, seed=5, as_frame=False)
    assert np.array_equal(one[0], many[123])


def test_seeds_differ_and_repeat():
    a = play("geschenkt", MIX, 300, seed=1, as_frame=False)
    b = play("geschenkt", MIX, 300, seed=2, as_frame=False)
    assert not np.array_equal(a, b)
    assert np.array_equal(a, play("geschenkt", MIX, 300, seed=1, as_frame=False))


def test_global_numpy_random_state_is_neither_used_nor_touched():
    np.random.seed(0)
    before = np.random.get_state()[1].copy()
    a = play("geschenkt", MIX, 100, seed=9, as_frame=False)
    assert np.array_equal(np.random.get_state()[1], before)
    np.random.seed(12345)
    assert np.array_equal(a, play("geschenkt", MIX, 100, seed=9, as_frame=False))


@pytest.mark.parametrize("first_player", ["rotate", "random", 2])
@pytest.mark.parametrize("game", sorted(MIXES))
def test_slow_path_plays_the_same_games_as_the_compiled_loop(game, first_player):
    definition = load_game(game)
    rules = definition.rules(n_players=4)
    agents = parse_list(MIXES[game], game)
    fast = play(game, agents, 30, seed=4, first_player=first_player, as_frame=False)
    tail = len(definition.blocks) * 4
    for i in range(30):
        played = play_slow(definition.name, rules, agents, 4, i, first_player)
        assert played.scores == list(fast[i, :4])
        assert len(played.actions) == fast[i, tail + 1]
        assert played.start[FIRST_SLOT[game]] == fast[i, tail]


def test_first_player_policies():
    rot = play("geschenkt", ["greedy"] * 3, 9, first_player="rotate")
    assert list(rot.first_player) == [0, 1, 2] * 3
    fixed = play("geschenkt", ["greedy"] * 3, 9, first_player=1)
    assert set(fixed.first_player) == {1}
    rand = play("geschenkt", ["greedy"] * 3, 300, first_player="random")
    assert set(rand.first_player) == {0, 1, 2}

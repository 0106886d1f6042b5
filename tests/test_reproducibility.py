"""A game is a pure function of (root seed, game index, rules, agents)."""

import numpy as np
import pytest

from agents.geschenkt.slow import play_slow
from agents.registry import parse_list
from experiments.batch import play
from geschenkt_sim.rules import Rules
from geschenkt_sim.state import FIRST

MIX = ["sniper", "random", "greedy:T=-2", "random:p=0.3"]


def test_blocks_of_any_size_give_the_same_games():
    whole = play("geschenkt", MIX, 600, seed=11, as_frame=False)
    pieces = [
        play("geschenkt", MIX, size, seed=11, first_index=start, as_frame=False)
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
def test_slow_path_plays_the_same_games_as_the_compiled_loop(first_player):
    rules = Rules(n_players=4)
    agents = parse_list(MIX, "geschenkt")
    fast = play("geschenkt", agents, 30, seed=4, first_player=first_player, as_frame=False)
    for i in range(30):
        game = play_slow(rules, agents, 4, i, first_player)
        assert game.scores == list(fast[i, :4])
        assert len(game.actions) == fast[i, 5]
        assert game.start[FIRST] == fast[i, 4]


def test_first_player_policies():
    rot = play("geschenkt", ["greedy"] * 3, 9, first_player="rotate")
    assert list(rot.first_player) == [0, 1, 2] * 3
    fixed = play("geschenkt", ["greedy"] * 3, 9, first_player=1)
    assert set(fixed.first_player) == {1}
    rand = play("geschenkt", ["greedy"] * 3, 300, first_player="random")
    assert set(rand.first_player) == {0, 1, 2}

"""The single-agent Gymnasium environment of every game of the list (the toy game included):
Gymnasium's own checker, the same games as the engine's slow path, rewards, illegal actions."""

import re

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agents.drivers.slow import play_slow
from agents.registry import parse
from experiments.envs.gym_env import GiftsimEnv
from giftsim.game import GAMES, load_game
from tests.env_helpers import BOT, choose, readme_snippet

NAMES = list(GAMES)


@pytest.mark.parametrize("name", NAMES)
def test_gymnasium_check_env_passes(name):
    env = GiftsimEnv(name, learner_seat=1, opponents=BOT[name], render_mode="ansi")
    check_env(env, skip_render_check=False)


def play(env, seed=None):
    """One episode with the deterministic learner ``choose``: its rewards and last info."""
    observation, info = env.reset(seed=seed)
    rewards, over = [], False
    while not over:
        legal = list(np.flatnonzero(info["action_mask"]))
        observation, reward, over, truncated, info = env.step(choose(observation, legal))
        assert not truncated and env.observation_space.contains(observation)
        rewards.append(reward)
    return rewards, info


@pytest.mark.parametrize("name", NAMES)
def test_episodes_are_the_engines_games(name):
    """Episode i after reset(seed=S) is play_slow's game i of S with the same seats."""
    game = load_game(name)
    env = GiftsimEnv(name, players=3, learner_seat=2, opponents=[BOT[name], "random"])
    size = game.tensor_size(env.table.rules)

    def slow_player(obs, legal):
        tensor = np.empty(size, np.float32)
        game.encode(obs, tensor)
        return choose(tensor, legal)

    seats = [parse(BOT[name], name), parse("random", name), slow_player]
    for index in range(3):
        rewards, info = play(env, seed=21 if index == 0 else None)
        assert info["game_index"] == index and not info["action_mask"].any()
        played = play_slow(game, env.table.rules, seats, 21, index, "random")
        assert np.array_equal(env.table.state, played.final)
        shares = np.zeros(3)
        game.rewards(played.final, shares)
        assert rewards[:-1] == [0.0] * (len(rewards) - 1) and rewards[-1] == shares[2]


def test_margin_adds_the_score_lead_over_the_best_other_seat():
    plain = GiftsimEnv("geschenkt", players=4, opponents="greedy")
    margin = GiftsimEnv("geschenkt", players=4, opponents="greedy", margin=0.01)
    for seed in range(3):
        share, _ = play(plain, seed)
        total, _ = play(margin, seed)
        scores = margin.table.scores()
        lead = scores[1:].min() - scores[0]  # No Thanks!: lower wins
        assert total[-1] == pytest.approx(share[-1] + 0.01 * lead)
    tulips = GiftsimEnv("tulips", players=3, opponents="greedy", margin=0.5)
    total, _ = play(tulips, 5)
    scores = tulips.table.scores()  # Gift of Tulips: higher wins
    share = tulips.table.rewards()[0]
    assert total[-1] == pytest.approx(share + 0.5 * (scores[0] - scores[1:].max()))


def test_an_illegal_action_ends_the_episode_as_a_loss():
    env = GiftsimEnv("geschenkt", players=3, opponents="greedy")
    _, info = env.reset(seed=1)
    assert info["action_mask"].tolist() == [1, 1]
    _, reward, over, truncated, info = env.step(7)
    assert (reward, over, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    _, info = env.reset()
    assert info["game_index"] == 1 and "illegal_action" not in info


def test_reset_with_a_seed_replays_and_without_one_moves_on():
    env = GiftsimEnv("tulips", players=4, opponents="greedy")
    first, _ = env.reset(seed=9)
    second, _ = env.reset()
    again, _ = env.reset(seed=9)
    assert np.array_equal(first, again) and not np.array_equal(first, second)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"game": "chess"}, "valid: geschenkt"),
        ({"learner_seat": 4}, "0..3"),
        ({"opponents": ["greedy", "random"]}, "one per other seat (3)"),
        ({"opponents": "nosuchagent"}, "valid: "),
        ({"rule": ["variant=odd"]}, "variant"),
        ({"render_mode": "human"}, "'ansi'"),
    ],
)
def test_bad_arguments_name_the_problem(kwargs, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        GiftsimEnv(**{"game": "geschenkt", "players": 4, **kwargs})


def test_readme_gymnasium_snippet_runs():
    namespace = {}
    exec(readme_snippet("experiments.envs.gym_env"), namespace)
    assert namespace["done"] and namespace["reward"] in (0.0, 1 / 4, 1 / 3, 1 / 2, 1.0)

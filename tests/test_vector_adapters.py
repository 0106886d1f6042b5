"""The compiled vector environment behind Gymnasium's ``VectorEnv`` and Stable-Baselines3's
``VecEnv``: what they return is the vector environment's (scaled where asked), in each
library's layout, masks included; sb3-contrib's MaskablePPO trains on the SB3 one."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from experiments.envs.gym_env import GiftsimEnv
from experiments.envs.gym_vector import GiftsimVectorEnv
from experiments.envs.vector import VectorEnv
from experiments.policy import tensor_scale
from giftsim.game import load_game

KWARGS = dict(n_envs=6, players=4, opponents="greedy", seed=9, margin=0.01)


def _plain(name):
    return VectorEnv(name, 6, 4, "rotate", "greedy", seed=9, margin=0.01)


@pytest.mark.parametrize("name, scale", [("geschenkt", False), ("tulips", True)])
def test_the_gymnasium_vector_env_is_the_vector_env_in_gymnasiums_layout(name, scale):
    game = load_game(name)
    envs, plain = GiftsimVectorEnv(name, scale=scale, **KWARGS), _plain(name)
    factor = 1 / tensor_scale(game, plain.rules) if scale else 1
    obs, infos = envs.reset(seed=9)
    want, mask = plain.reset(seed=9)
    assert np.allclose(obs, want * factor) and np.array_equal(infos["action_mask"], mask)
    assert envs.observation_space.contains(obs) and envs.metadata["autoreset_mode"].value
    rng, finished = np.random.default_rng(1), 0
    for _ in range(80):
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        assert envs.action_space.contains(actions)
        obs, rewards, terms, truncs, infos = envs.step(actions)
        want, mask, want_rewards, dones, info = plain.step(actions)
        assert np.allclose(obs, want * factor) and envs.observation_space.contains(obs)
        assert np.array_equal(rewards, want_rewards) and np.array_equal(terms, dones)
        assert not truncs.any() and np.array_equal(envs.action_masks(), mask)
        if dones.any():
            finished += dones.sum()
            assert np.array_equal(infos["_final_obs"], dones)
            for i in np.flatnonzero(dones):
                assert np.allclose(infos["final_obs"][i], info["final_obs"][i] * factor)
                assert infos["final_info"]["game_index"][i] == info["game_index"][i]
            assert all(infos["final_obs"][i] is None for i in np.flatnonzero(~dones))
    assert finished >= 6


def test_the_gymnasium_vector_env_draws_a_seed_when_none_is_given():
    """Gymnasium's convention: reset() with no seed ever given plays a random seed (it played
    seed 0 every time); reset(seed=S), a seed given to the constructor and later resets as
    before."""
    drawn = [GiftsimVectorEnv("geschenkt", n_envs=2, players=3) for _ in range(2)]
    for envs in drawn:
        envs.reset()
    assert drawn[0].env.seed != drawn[1].env.seed
    seed = drawn[0].env.seed
    obs, _ = drawn[0].reset()  # the next episodes under the same seed
    assert drawn[0].env.seed == seed
    again = GiftsimVectorEnv("geschenkt", n_envs=2, players=3, seed=seed)
    again.reset()
    assert np.array_equal(again.reset()[0], obs)
    given = GiftsimVectorEnv("geschenkt", n_envs=2, players=3, seed=9)
    given.reset()
    assert given.env.seed == 9


def test_the_gymnasium_env_scaled_passes_the_checker_inside_unit_bounds():
    env = GiftsimEnv("tulips", players=5, opponents="greedy", scale=True)
    check_env(env, skip_render_check=True)
    plain = GiftsimEnv("tulips", players=5, opponents="greedy")
    obs, _ = env.reset(seed=4)
    want, _ = plain.reset(seed=4)
    assert np.allclose(obs, want / tensor_scale(load_game("tulips"), plain.table.rules))
    assert env.observation_space.low.min() >= -1 and env.observation_space.high.max() <= 1


def test_the_sb3_vec_env_is_the_vector_env_in_sb3s_layout():
    pytest.importorskip("stable_baselines3", reason="needs stable-baselines3 (and torch)")
    from experiments.envs.sb3_vec import GiftsimVecEnv

    venv, plain = GiftsimVecEnv("geschenkt", **KWARGS), _plain("geschenkt")
    venv.seed(9)
    obs = venv.reset()
    want, mask = plain.reset(seed=9)
    assert np.array_equal(obs, want) and np.array_equal(venv.env_method("action_masks"), mask)
    rng, finished = np.random.default_rng(2), 0
    for _ in range(80):
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        venv.step_async(actions)
        obs, rewards, dones, infos = venv.step_wait()
        want, mask, want_rewards, want_dones, info = plain.step(actions)
        assert np.array_equal(obs, want) and np.array_equal(rewards, want_rewards)
        assert np.array_equal(dones, want_dones) and len(infos) == 6
        assert np.array_equal(venv.env_method("action_masks", indices=[1, 3]), mask[[1, 3]])
        for i, lane in enumerate(infos):
            assert ("terminal_observation" in lane) == dones[i]
            if dones[i]:
                assert np.array_equal(lane["terminal_observation"], info["final_obs"][i])
                assert lane["game_index"] == info["game_index"][i]
        finished += dones.sum()
    assert finished >= 6 and venv.get_attr("render_mode") == [None] * 6


def test_the_sb3_vec_env_draws_a_seed_when_none_is_given():
    """SB3's convention (and Gymnasium's): the first reset() with no seed given to seed() or
    the constructor plays a random seed (it played seed 0 every time); seed(S) and a seed
    given to the constructor are played."""
    pytest.importorskip("stable_baselines3", reason="needs stable-baselines3 (and torch)")
    from experiments.envs.sb3_vec import GiftsimVecEnv

    drawn = [GiftsimVecEnv("geschenkt", n_envs=2, players=3) for _ in range(2)]
    for venv in drawn:
        venv.reset()
    assert drawn[0].env.seed != drawn[1].env.seed
    seed = drawn[0].env.seed
    obs = drawn[0].reset()  # the next episodes under the same seed
    assert drawn[0].env.seed == seed
    again = GiftsimVecEnv("geschenkt", n_envs=2, players=3, seed=seed)
    again.reset()
    assert np.array_equal(again.reset(), obs)
    given = GiftsimVecEnv("geschenkt", n_envs=2, players=3, seed=9)
    given.reset()
    assert given.env.seed == 9
    told = GiftsimVecEnv("geschenkt", n_envs=2, players=3)
    told.seed(11)
    told.reset()
    assert told.env.seed == 11


def test_maskable_ppo_trains_on_the_sb3_vec_env_without_a_wrapper():
    pytest.importorskip("sb3_contrib", reason="needs sb3-contrib (and torch)")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import is_masking_supported

    from experiments.envs.sb3_vec import GiftsimVecEnv

    venv = GiftsimVecEnv("tulips", n_envs=8, players=3, opponents="greedy", scale=True)
    assert is_masking_supported(venv)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=1)
    model.learn(256)
    assert model.num_timesteps >= 256


def test_the_speed_table_has_one_row_per_interface_and_a_column_per_game():
    """``python -m experiments.envs.speed`` at 5% of its work (figures are not asserted:
    tests never time)."""
    from experiments.envs import speed

    text = speed.table(["geschenkt"], repeats=1, quick=True)
    lines = text.splitlines()
    assert lines[0].startswith("| learner steps/s, one core | No Thanks!, 4 players |")
    labels = [line.split(" | ")[0].strip("| ") for line in lines[2:]]
    assert labels[0] == "kernel" and "Gymnasium GiftsimEnv" in labels
    assert any(label.startswith("SB3 VecEnv") for label in labels)
    assert all(
        any(c.isdigit() for c in line.split(" | ")[1]) for line in lines[2:] if "SB3" not in line
    )


def test_sb3s_env_checker_passes_on_the_gymnasium_env():
    checker = pytest.importorskip("stable_baselines3.common.env_checker", reason="needs SB3")
    for name in ("geschenkt", "tulips"):
        checker.check_env(GiftsimEnv(name, players=4, opponents="greedy", scale=True))


def test_a_trained_policy_is_an_opponent_of_the_vector_env():
    """A plain-Python agent (``from_policy``'s) plays opponent seats through the slow path; its
    episodes are records that replay."""
    from experiments.policy import from_policy

    game = load_game("geschenkt")
    from_policy("geschenkt", "adapter_test_policy", lambda x, mask: x[:2], players=3)
    env = VectorEnv("geschenkt", 4, 3, "rotate", ["adapter_test_policy", "greedy"], record=True)
    _, mask = env.reset()
    for _ in range(60):
        _, mask, *_ = env.step(mask.argmax(axis=1))
    assert env.slow and env.records()
    for record in env.records():
        assert "adapter_test_policy" in record["agents"] and game.replay(record)

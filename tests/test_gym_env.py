"""The single-agent Gymnasium environment of every game of the list (the toy game included):
Gymnasium's own checker, the same games as the engine's slow path, rewards, illegal actions."""

import json
import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agents.drivers.slow import play_slow
from agents.registry import parse
from experiments.cli import main
from experiments.envs.gym_env import GiftsimEnv, register
from experiments.envs.table import EnvError
from giftsim.game import GAMES, load_game
from tests.env_helpers import BOT, NO_CHOICE, choose, deadline, readme_snippet

NAMES = list(GAMES)


@pytest.mark.parametrize("name", NAMES)
def test_gymnasium_check_env_passes(name):
    """Made from its registered id, so that the checker also tries the render modes."""
    made = gym.make(register(name), learner_seat=1, opponents=BOT[name], render_mode="ansi")
    assert made.unwrapped.spec.id == f"giftsim/{name}-v0"
    check_env(made.unwrapped, skip_render_check=False)


@pytest.mark.parametrize("name", NAMES)
def test_the_registered_id_plays_the_episodes_of_the_class(name):
    made = gym.make(register(name), players=3, learner_seat=2, opponents=BOT[name])
    assert isinstance(made.unwrapped, GiftsimEnv)
    direct = GiftsimEnv(name, players=3, learner_seat=2, opponents=BOT[name])
    for seed in (0, 41):
        (got, got_info), (want, want_info) = play(made, seed), play(direct, seed)
        assert got == want and got_info["game_index"] == want_info["game_index"]
        assert made.unwrapped.table.state.tobytes() == direct.table.state.tobytes()


def test_make_vec_of_an_id_is_the_compiled_vector_environment():
    from experiments.envs.gym_vector import GiftsimVectorEnv

    envs = gym.make_vec(register("tulips"), num_envs=5, players=4, opponents="greedy")
    direct = GiftsimVectorEnv("tulips", n_envs=5, players=4, opponents="greedy")
    assert isinstance(envs, GiftsimVectorEnv) and envs.num_envs == 5
    (got, got_info), (want, want_info) = envs.reset(seed=9), direct.reset(seed=9)
    assert np.array_equal(got, want) and np.array_equal(
        got_info["action_mask"], want_info["action_mask"]
    )


def test_an_id_with_the_module_prefix_needs_no_import_first():
    code = (
        "import gymnasium; env = gymnasium.make('experiments.envs.gym_env:giftsim/geschenkt-v0',"
        " players=4); print(env.unwrapped.spec.id, env.reset(seed=1)[0].shape)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.startswith("giftsim/geschenkt-v0 (")


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
    assert not info["action_mask"].any() and not env.action_masks().any()  # the episode is over
    with pytest.raises(EnvError, match="reset"):
        env.step(0)
    _, info = env.reset()
    assert info["game_index"] == 1 and "illegal_action" not in info


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
@pytest.mark.parametrize("players", [2, 4, 6])
@pytest.mark.parametrize("margin", [0.0, 0.01, -0.5, 2.0])
def test_the_default_illegal_reward_is_below_every_legal_outcome(name, players, margin):
    """A share is at least 0 and a score lead at least -(high - low) (``Game.score_range``):
    an illegal move must pay less than the worst legal game, or a learner learns to make it."""
    env = GiftsimEnv(name, players=players, opponents="greedy", margin=margin)
    low, high = load_game(name).score_range(env.table.rules)
    assert env.illegal_reward < -abs(margin) * (high - low)


def test_the_default_illegal_reward_is_below_the_margin_rewards_played():
    """The review's case: at 4 players, margin 0.01, greedy opponents, -1 paid better than
    most lost games."""
    env = GiftsimEnv("geschenkt", players=4, opponents="greedy", margin=0.01)
    finals = [play(env, 3 if index == 0 else None)[0][-1] for index in range(20)]
    assert min(finals) < -1 and env.illegal_reward < min(finals)
    env.reset(seed=1)
    assert env.step(env.action_space.n)[1] == env.illegal_reward  # no action id: illegal


def test_a_margin_without_a_score_range_needs_an_illegal_reward():
    with pytest.raises(EnvError, match="give illegal_reward"):
        GiftsimEnv("toy", players=3, margin=0.1)
    assert GiftsimEnv("toy", players=3, margin=0.1, illegal_reward=-9).illegal_reward == -9
    assert GiftsimEnv("toy", players=3).illegal_reward == -1


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
    assert isinstance(namespace["made"].unwrapped, GiftsimEnv)
    assert namespace["lanes"].num_envs == 256 and namespace["lanes"].env.n_envs == 256


@pytest.mark.parametrize("name", NAMES)
def test_action_masks_are_the_legal_actions_at_every_step(name):
    """``action_masks()`` (sb3-contrib's convention) and ``info["action_mask"]`` are the legal
    actions of the state at every decision of the learner, and all False once it is over."""
    game = load_game(name)
    env = GiftsimEnv(name, players=3, learner_seat=1, opponents=BOT[name])
    steps = 0
    for index in range(4):
        observation, info = env.reset(seed=3 if index == 0 else None)
        over = False
        while not over:
            legal = game.legal_actions(env.table.state)
            masks = env.action_masks()
            assert masks.dtype == np.bool_ and masks.shape == (game.num_actions,)
            assert np.flatnonzero(masks).tolist() == legal
            assert np.array_equal(info["action_mask"].astype(bool), masks)
            observation, _, over, _, info = env.step(choose(observation, legal))
            steps += 1
        assert not env.action_masks().any() and not info["action_mask"].any()
    assert steps >= 4


def test_action_masks_are_what_sb3_contrib_reads():
    """MaskablePPO finds the masks without a wrapper (skipped without sb3-contrib)."""
    maskable = pytest.importorskip("sb3_contrib.common.maskable.utils", reason="needs sb3-contrib")
    env = GiftsimEnv("geschenkt", players=4, opponents="greedy")
    env.reset(seed=1)
    assert maskable.is_masking_supported(env)
    assert np.array_equal(maskable.get_action_masks(env), env.action_masks())


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_records_are_the_episodes_and_replay(name, tmp_path):
    """With record=True each finished episode is a record that replays (``giftsim replay``)
    and is the slow path's game of the same seed and index."""
    game = load_game(name)
    env = GiftsimEnv(name, players=3, learner_seat=0, opponents=BOT[name], record=True)
    size = game.tensor_size(env.table.rules)

    def slow_player(obs, legal):
        tensor = np.empty(size, np.float32)
        game.encode(obs, tensor)
        return choose(tensor, legal)

    for index in range(3):
        play(env, seed=5 if index == 0 else None)
    records = env.records()
    assert [r["game_index"] for r in records] == [0, 1, 2]
    seats = [slow_player] + [parse(BOT[name], name)] * 2
    for record in records:
        assert record["agents"] == ["learner", BOT[name], BOT[name]] and record["seed"] == 5
        played = play_slow(game, env.table.rules, seats, 5, record["game_index"], "random")
        expected = game.make_record(env.table.rules, played.start, played.actions, {})
        assert {k: v for k, v in record.items() if k in expected} == expected
        path = tmp_path / f"{record['game_index']}.json"
        path.write_text(json.dumps(record))
        assert main(["replay", str(path)]) == 0
    env.reset(seed=5)
    assert env.records() == []
    with pytest.raises(EnvError, match="record=True"):
        GiftsimEnv(name).records()


def test_rules_that_leave_the_learner_no_turn_raise_instead_of_dealing_forever():
    """Seat 0 takes every card of a game without chips before seat 1 (the learner) acts: each
    game is skipped, and after 1,000 in a row reset raises."""
    env = GiftsimEnv("geschenkt", players=2, learner_seat=1, opponents="greedy", rule=NO_CHOICE)
    with deadline(60), pytest.raises(EnvError, match="no decision in 1,000 games in a row"):
        env.reset(seed=1)


def test_skipped_games_move_the_indices_as_the_reference_says():
    """docs/environments.md says which game an episode is, skips included: here seat 0 (random,
    one chip, two cards) often takes both before the learner acts, so indices jump (and the
    vector environment's lanes number their games apart)."""
    rule = ["chips_per_player=1", "first_player=0", "lowest_card=3", "highest_card=5"]
    env = GiftsimEnv(
        "geschenkt", 2, learner_seat=1, opponents="random", rule=[*rule, "n_removed=1"]
    )
    indices = [env.reset(seed=4 if k == 0 else None)[1]["game_index"] for k in range(12)]
    assert indices != list(range(12)) and indices == sorted(set(indices))
    doc = (Path(__file__).resolve().parents[1] / "docs" / "environments.md").read_text()
    assert "episode `k` is game `k` only while none was skipped" in doc
    assert "lane `l`'s `k`-th episode is game `l * 2**32 + k`" in doc


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_the_rules_first_player_is_the_default_and_a_contradiction_is_refused(name):
    """``rule=["first_player=2"]`` plays seat 2 first in every episode; ``"rotate"`` or
    another seat given beside it is refused rather than played against the records' rules."""
    env = GiftsimEnv(name, players=3, opponents=BOT[name], rule=["first_player=2"], record=True)
    for index in range(4):
        play(env, seed=9 if index == 0 else None)
    assert {r["first_player"] for r in env.records()} == {2}
    for given in ["rotate", 0]:
        with pytest.raises(EnvError, match=f"first_player={given!r} contradicts the rules'"):
            GiftsimEnv(name, players=3, rule=["first_player=2"], first_player=given)

"""The PettingZoo AEC environment of every game of the list (the toy game included): PettingZoo's
own conformance tests, the same games as the engine's slow path, and its documented choices."""

import functools
import re

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from agents.drivers.slow import play_slow
from agents.registry import parse
from experiments.envs.pettingzoo_env import env, raw_env
from experiments.envs.table import EnvError
from giftsim.game import GAMES, load_game
from tests.env_helpers import BOT, NO_CHOICE, choose, deadline, readme_snippet

NAMES = list(GAMES)
CYCLES = 60  # cycles of every agent: more than one whole game of each game


@pytest.mark.parametrize("name", NAMES)
def test_pettingzoo_api_test_passes(name):
    api_test(env(game=name, render_mode="ansi"), num_cycles=CYCLES)


@pytest.mark.parametrize("name", NAMES)
def test_pettingzoo_api_test_passes_with_giftsim_opponents(name):
    aec = env(game=name, players=3, opponents={"player_1": BOT[name]})
    assert aec.possible_agents == ["player_0", "player_2"]
    api_test(aec, num_cycles=CYCLES)


@pytest.mark.parametrize("name", NAMES)
def test_pettingzoo_scaled_passes_the_api_test_inside_unit_bounds(name):
    """``scale=True``, as every environment takes it (docs/environments.md): the tensor
    divided by ``tensor_scale``, the space's bounds too (it was a TypeError here)."""
    from experiments.policy import tensor_scale

    scaled = env(game=name, players=4, scale=True)
    api_test(scaled, num_cycles=CYCLES)
    plain = env(game=name, players=4)
    scaled.reset(seed=4)
    plain.reset(seed=4)
    factor = tensor_scale(load_game(name), scaled.unwrapped.table.rules)
    want = plain.observe("player_1")["observation"] / factor
    assert np.allclose(scaled.observe("player_1")["observation"], want)
    space = scaled.observation_space("player_0")["observation"]
    assert space.low.min() >= -1 and space.high.max() <= 1


@pytest.mark.parametrize("name", NAMES)
def test_pettingzoo_seed_test_passes(name):
    seed_test(functools.partial(env, game=name), num_cycles=CYCLES)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("first_player", ["random", "rotate"])
def test_episodes_are_the_engines_games(name, first_player):
    """Episode i after reset(seed=S) is play_slow's game i of S: same deal, same bot streams,
    same final state, scores and shares of the win."""
    game = load_game(name)
    opponents = {"player_1": BOT[name], "player_2": "random"}
    aec = raw_env(game=name, players=4, opponents=opponents, first_player=first_player)
    rules = aec.table.rules
    size = game.tensor_size(rules)

    def slow_player(obs, legal):
        tensor = np.empty(size, np.float32)
        game.encode(obs, tensor)
        return choose(tensor, legal)

    seats = [slow_player, parse(BOT[name], name), parse("random", name), slow_player]
    for index in range(3):
        if index == 0:
            aec.reset(seed=11)
        else:
            aec.reset()
        assert aec.index == index
        rewards = {a: 0.0 for a in aec.possible_agents}
        for agent in aec.agent_iter():
            observation, reward, termination, _, _ = aec.last()
            rewards[agent] += reward
            legal = list(np.flatnonzero(observation["action_mask"]))
            aec.step(None if termination else choose(observation["observation"], legal))
        played = play_slow(game, rules, seats, 11, index, first_player)
        assert np.array_equal(aec.table.state, played.final)
        assert aec.table.scores().tolist() == played.scores
        shares = np.zeros(rules.n_players)
        game.rewards(played.final, shares)
        assert rewards == {"player_0": shares[0], "player_3": shares[3]}


@pytest.mark.parametrize("name", NAMES)
def test_observation_is_observe_and_encode_and_mask_only_for_the_agent_to_act(name):
    game = load_game(name)
    aec = raw_env(game=name)
    aec.reset(seed=3)
    while not aec.table.over():
        seat = int(aec.table.state[game.turn_slot])
        for agent in aec.agents:
            other = int(agent.split("_")[1])
            obs = np.zeros(game.obs_size, np.int64)
            game.observe(aec.table.state, other, obs)
            expected = np.empty(game.tensor_size(aec.table.rules), np.float32)
            game.encode(obs, expected)
            seen = aec.observe(agent)
            assert np.array_equal(seen["observation"], expected)
            bits = int(game.legal_mask(aec.table.state)) if other == seat else 0
            assert seen["action_mask"].tolist() == [
                (bits >> a) & 1 for a in range(game.num_actions)
            ]
        aec.step(game.legal_actions(aec.table.state)[-1])


def test_rules_and_players_are_configurable():
    aec = raw_env(game="geschenkt", players=5, rule=["chips_per_player=7", "n_removed=4"])
    aec.reset(seed=1)
    assert aec.possible_agents == [f"player_{s}" for s in range(5)]
    assert aec.table.rules.chips_per_player == 7 and aec.table.rules.n_removed == 4
    tulips = load_game("tulips")
    rules = tulips.rules(n_players=3)
    aec = raw_env(game="tulips", rules=rules)
    size = tulips.tensor_size(rules)
    assert aec.observation_space("player_2")["observation"].shape == (size,)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"game": "chess"}, "valid: geschenkt"),
        ({"opponents": {"player_9": "greedy"}}, "valid: player_0"),
        ({"opponents": {"player_1": "nosuchagent"}}, "valid: "),
        ({"players": 4, "rules": load_game("geschenkt").rules(n_players=3)}, "not both"),
        ({"rule": ["rounds=3"]}, "rounds must be 1"),
        ({"first_player": "last"}, "'rotate', 'random'"),
        ({"rule": ["first_player=2"], "first_player": "rotate"}, "contradicts the rules'"),
        ({"render_mode": "rgb_array"}, "None, 'ansi' or 'human'"),
        ({"players": 2, "opponents": {"player_0": "greedy", "player_1": "greedy"}}, "learner"),
    ],
)
def test_bad_arguments_name_the_problem(kwargs, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        raw_env(**{"game": "geschenkt", **kwargs})


def test_illegal_actions_raise_unwrapped_and_lose_wrapped():
    aec = raw_env(game="geschenkt")
    aec.reset(seed=2)
    with pytest.raises(ValueError, match="illegal action 5"):
        aec.step(5)
    wrapped = env(game="geschenkt", players=3)
    wrapped.reset(seed=2)
    while int(wrapped.unwrapped.table.game.legal_mask(wrapped.unwrapped.table.state)) == 3:
        wrapped.step(0)  # pass until a seat has no chip left: then passing is illegal
    offender = wrapped.agent_selection
    wrapped.step(0)
    assert all(wrapped.terminations.values()) and wrapped.infos[offender]["illegal_action"]
    assert wrapped.rewards[offender] == -1 and sum(wrapped.rewards.values()) == -1
    assert wrapped.last()[1] == -1  # the offender is still the agent to see its reward
    wrapped.step(None)
    assert offender not in wrapped.agents


def test_render_is_the_public_text_of_the_seat_to_act():
    aec = raw_env(game="geschenkt", render_mode="ansi")
    aec.reset(seed=4)
    text = aec.render()
    assert text.startswith(f"No Thanks!: seat {aec.agent_selection[-1]} to act")
    assert "face-up card" in text
    assert raw_env(game="geschenkt").render() is None
    while aec.agents:  # to the end: no face-up card (it read "face-up card -1 with 0 chips")
        aec.step(None if aec.terminations[aec.agent_selection] else 1)
    end = aec.render().splitlines()
    assert end[:2] == ["No Thanks!: game over", "every card taken"]


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_pettingzoo_render_test_passes(name, capsys):
    """Every render mode, ``"human"`` too (it was refused): it prints the ``"ansi"`` text."""
    render_test(functools.partial(env, game=name, players=3))
    aec = env(game=name, players=3, render_mode="human")
    aec.reset(seed=4)
    capsys.readouterr()
    assert aec.render() is None
    printed = capsys.readouterr().out
    ansi = env(game=name, players=3, render_mode="ansi")
    ansi.reset(seed=4)
    assert printed == ansi.render() + "\n"


def test_readme_pettingzoo_snippet_runs():
    namespace = {}
    exec(readme_snippet("experiments.envs.pettingzoo_env"), namespace)
    aec = namespace["aec"]
    assert not aec.agents and aec.unwrapped.table.over()


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_records_are_the_games_played_and_replay(name):
    """With record=True every finished game is kept as a record that replays and is the slow
    path's game of the same seed and index with the same choices; reset(seed) starts over."""
    game = load_game(name)
    aec = raw_env(game=name, players=3, opponents={"player_2": "greedy"}, record=True)
    choices = []  # per game, the learners' actions where they had a choice
    for index in range(3):
        aec.reset(seed=8 if index == 0 else None)
        chosen = []
        for _ in aec.agent_iter():
            observation, _, termination, _, _ = aec.last()
            if termination:
                aec.step(None)
                continue
            legal = list(np.flatnonzero(observation["action_mask"]))
            action = int(choose(observation["observation"], legal))
            chosen += [action] if len(legal) > 1 else []
            aec.step(action)
        choices.append(chosen)
    records = aec.records()
    assert [r["game_index"] for r in records] == [0, 1, 2]
    for record, chosen in zip(records, choices, strict=True):
        assert record["agents"] == ["learner", "learner", "greedy"] and record["seed"] == 8
        assert game.replay(record)  # raises on any wrong entry
        script = iter(chosen)
        seats = [lambda obs, legal, script=script: next(script)] * 2 + [parse("greedy", name)]
        played = play_slow(game, aec.table.rules, seats, 8, record["game_index"], "random")
        expected = game.make_record(aec.table.rules, played.start, played.actions, {})
        assert {k: v for k, v in record.items() if k in expected} == expected
    aec.reset(seed=8)
    assert aec.records() == []


def test_rules_that_leave_the_learners_no_turn_raise_instead_of_dealing_forever():
    """The bot at seat 0 takes every card of a game without chips: player_1 never acts."""
    aec = env("geschenkt", players=2, opponents={"player_0": "greedy"}, rule=NO_CHOICE)
    with deadline(60), pytest.raises(EnvError, match="no decision in 1,000 games in a row"):
        aec.reset(seed=1)

"""Trained policies as agents (``experiments.policy``): the legal mask read from an
observation is the engine's at every decision, and a NumPy policy over the tensor and the
mask plays as an agent in tournaments, the command line and ``giftsim play``."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from agents.drivers.slow import deal, play_slow
from agents.registry import parse
from experiments.batch import field
from experiments.policy import _action, from_policy, observed_mask, tensor_scale
from giftsim.game import load_game

RULES = [
    ("geschenkt", 3, []),
    ("geschenkt", 5, ["chips_visible=false"]),
    ("geschenkt", 4, ["variant=tactical", "chips_per_player=2"]),
    ("tulips", 2, []),
    ("tulips", 4, ["setup=in_turn", "game_end=deck_out"]),
    ("tulips", 6, ["game_end=full_turns"]),
]


@pytest.mark.parametrize("name, players, pairs", RULES)
def test_the_mask_of_an_observation_is_the_legal_mask_at_every_state(name, players, pairs):
    game = load_game(name)
    rules = game.rules.from_pairs(pairs, players)
    rng = np.random.default_rng(players)
    obs, checked = np.zeros(game.obs_size, np.int64), 0
    for index in range(30):
        state, _ = deal(game, rules, 17, index, "random")
        while not game.is_over(state):
            game.observe(state, int(state[game.turn_slot]), obs)
            legal = game.legal_actions(state)
            assert np.flatnonzero(observed_mask(game, obs)).tolist() == legal
            game.apply_action(state, int(rng.choice(legal)))
            checked += 1
    assert checked > 1000


def _linear(name, players, seed=0):
    """A NumPy linear policy over the tensor: one score per action."""
    game = load_game(name)
    size = game.tensor_size(game.rules(n_players=players))
    weights = np.random.default_rng(seed).normal(size=(size, game.num_actions))
    return weights, lambda x, mask: x @ weights


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_a_numpy_policy_chooses_the_best_legal_score_of_its_seats_tensor(name):
    """Every decision of the agent is the highest-scoring legal action of the tensor the
    engine gives its seat, in games it plays through the slow path."""
    game = load_game(name)
    weights, policy = _linear(name, 3)
    agent = parse(from_policy(name, f"policy_test_{name}", policy, players=3).name, name)
    rules = game.rules(n_players=3)
    seen = []

    def seat0(obs, legal):  # asks the agent and checks its answer from the engine's view
        tensor = np.zeros(game.tensor_size(rules), np.float32)
        game.encode(obs, tensor)
        scores = tensor @ weights
        best = max(legal, key=lambda a: scores[a])
        action = int(agent.family.decide(obs.copy(), agent.param_row(3), None))
        seen.append(action == best)
        return action

    for index in range(5):
        play_slow(game, rules, [seat0, parse("greedy", name), agent], 3, index)
    assert len(seen) > 20 and all(seen)


def test_scale_divides_the_tensor_into_unit_bounds_and_answers_may_be_ids():
    game = load_game("tulips")
    rules = game.rules(n_players=4)
    seen = []

    def first_legal(x, mask):
        seen.append(np.abs(x).max())
        return int(np.flatnonzero(mask)[0]), None  # an id, in SB3's (action, state) form

    from_policy("tulips", "policy_test_scaled", first_legal, players=4, scale=True)
    field("tulips", "policy_test_scaled", "greedy", 4, 2, seed=5)
    assert seen and max(seen) <= 1.0
    assert tensor_scale(game, rules).min() >= 1.0


def test_a_policy_answer_is_an_id_or_scores_of_which_the_best_legal_wins():
    mask = np.array([False, True, True])
    assert _action(2, mask) == 2 and _action(np.array([1]), mask) == 1
    assert _action(np.array([9.0, 1.0, 3.0]), mask) == 2  # action 0 is not legal
    assert _action((np.array([[0.1, 0.5, 0.4]]), None), mask) == 1
    with pytest.raises(ValueError, match="3 scores"):
        _action(np.zeros(5), mask)


def test_a_policy_plays_at_its_player_count_only():
    _, policy = _linear("geschenkt", 4)
    from_policy("geschenkt", "policy_test_4p", policy, players=4)
    with pytest.raises(ValueError, match="plays 4-player games, not 3"):
        field("geschenkt", "policy_test_4p", "greedy", 3, 2)


def test_a_torch_module_is_a_policy():
    torch = pytest.importorskip("torch", reason="needs torch (optional: see the README)")
    game = load_game("geschenkt")
    size = game.tensor_size(game.rules(n_players=3))
    module = torch.nn.Linear(size, game.num_actions)
    family = from_policy("geschenkt", "policy_test_torch", module, players=3)
    result = field("geschenkt", family.name, "greedy", 3, 4, seed=2)
    assert 0.0 <= result["win_share"] <= 1.0 and result["games"] == 12


AGENTS_FILE = """
import numpy as np
from experiments.policy import from_policy

weights = np.random.default_rng(1).normal(size=(GAME_SIZE, 2))
from_policy("geschenkt", "file_policy", lambda x, mask: x @ weights, players=3)
"""


def test_the_command_line_plays_a_policy_from_an_agents_module(tmp_path, monkeypatch, capsys):
    game = load_game("geschenkt")
    size = game.tensor_size(game.rules(n_players=3))
    path = tmp_path / "policies.py"
    path.write_text(textwrap.dedent(AGENTS_FILE).replace("GAME_SIZE", str(size)))
    command = "tournament geschenkt --design field --candidate file_policy --baseline greedy"
    argv = [*command.split(), "--players", "3", "--games", "12", "--quiet", "--workers", "2"]
    done = subprocess.run(
        [sys.executable, "-m", "experiments.cli", *argv, "--agents-module", str(path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "file_policy" in done.stdout
    from tests.test_play import play

    args = ("geschenkt", "--players", "3", "--vs", "file_policy,greedy", "--seed", "3")
    record = ["--record", str(tmp_path / "game.json"), "--agents-module", str(path)]
    code, out, err = play(monkeypatch, capsys, *args, *record)
    assert code == 0, err
    assert "game over" in out

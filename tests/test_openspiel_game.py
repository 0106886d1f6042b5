"""The OpenSpiel Python games of ``experiments/envs/openspiel_game.py``: OpenSpiel's own
``random_sim_test`` on every game of ``GAMES`` (the toy game included), deal ``i`` being
giftsim's game ``i``, the observer's tensors, an OpenSpiel bot against giftsim agents through
``evaluate_bots``, and alpha-rank over giftsim agents wrapped as bots."""

import re
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots, mcts
from open_spiel.python.egt import alpharank

from agents.registry import parse_list
from experiments import batch
from experiments.envs import openspiel_game as og
from experiments.games import play_slow
from giftsim.game import GAMES, load_game

NAMES = list(GAMES)
AGENT = {"geschenkt": "greedy", "tulips": "greedy", "toy": "steady"}


def players_of(name: str) -> int:
    return 4 if 4 in load_game(name).players else min(load_game(name).players)


@pytest.mark.parametrize("name", NAMES)
def test_random_sim_test(name):
    """OpenSpiel's API consistency check: legal actions, chance outcomes, clones,
    (de)serialisation, tensors and strings at every state of random games."""
    game = og.load(name, players=players_of(name))
    pyspiel.random_sim_test(game, num_sims=4, serialize=True, verbose=False)


@pytest.mark.parametrize("name", NAMES)
def test_deal_is_giftsim_game_and_bots_play_as_giftsim(name):
    """A table of GiftsimBots plays the deal chance picks exactly as giftsim's slow path plays
    that game index: same actions, and the returns are giftsim's shares of the win."""
    n = players_of(name)
    game = og.load(name, players=n, seed=11)
    specs = ["random", AGENT[name]] + ["random"] * (n - 2)
    for draw in range(3):
        bots = [og.GiftsimBot(game, seat, spec) for seat, spec in enumerate(specs)]
        state = game.new_initial_state()
        returns = evaluate_bots.evaluate_bots(state, bots, np.random.default_rng(draw))
        deal, actions = state.history()[0], state.history()[1:]
        ent = load_game(name)
        played = play_slow(name, ent.rules(n_players=n), parse_list(specs, name), 11, deal)
        assert actions == played.actions
        shares = np.zeros(ent.max_players)
        ent.rewards(played.final, shares)
        assert returns == pytest.approx(list(shares[:n]))
        assert sum(returns) == pytest.approx(1.0)


@pytest.mark.parametrize("name", NAMES)
def test_observer_views(name):
    """The observation view is Game.encode of the seat's observe; the information state adds
    the seat's own decisions one-hot, in order; the strings name the seat."""
    n = players_of(name)
    game = og.load(name, players=n)
    ent = load_game(name)
    state = game.new_initial_state()
    state.apply_action(7)
    rng = np.random.default_rng(0)
    for _ in range(6):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    rules = ent.rules(n_players=n)
    size = ent.tensor_size(rules)
    for seat in range(n):
        expected = np.zeros(size, np.float32)
        ent.encode(state.view(seat), expected)
        obs = np.asarray(state.observation_tensor(seat))
        assert list(obs[:n]) == [float(s == seat) for s in range(n)]
        np.testing.assert_array_equal(obs[n:], expected)
        info = np.asarray(state.information_state_tensor(seat))
        np.testing.assert_array_equal(info[: n + size], obs)
        history = info[n + size :].reshape(-1, ent.num_actions)
        own = state.own_actions[seat]
        assert history.sum() == len(own)
        assert [int(np.argmax(row)) for row in history[: len(own)]] == own
        assert state.observation_string(seat).startswith(f"p{seat} ")


def test_bad_parameters_are_one_line_errors():
    with pytest.raises(ValueError, match=r"players must be one of \[2, 3, 4, 5, 6, 7\]"):
        og.load("geschenkt", players=9)
    with pytest.raises(ValueError, match="deals must be at least 1"):
        og.load("tulips", deals=0)
    with pytest.raises(ValueError, match="valid"):
        og.load("geschenkt", rules="colour=red")


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_mcts_bot_against_giftsim_agents(name):
    """OpenSpiel's Python MCTSBot (it searches the true state: an integration check, not a fair
    opponent) plays seat 0 against giftsim agents through evaluate_bots."""
    game = og.load(name, players=3, deals=64)
    rng = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    searcher = mcts.MCTSBot(game, 1.4, 6, evaluator, random_state=rng)
    bots = [searcher, og.GiftsimBot(game, 1, "greedy"), og.GiftsimBot(game, 2, "random")]
    state = game.new_initial_state()
    returns = evaluate_bots.evaluate_bots(state, bots, np.random.default_rng(1))
    assert state.is_terminal()
    assert sum(returns) == pytest.approx(1.0)
    winners = [r for r in returns if r > 0]
    assert all(r == pytest.approx(1 / len(winners)) for r in winners)


def payoff_tables(population, n_players, n_games):
    """Alpha-rank's payoff tables of an ``n_players`` game over ``population``, one population
    per seat (OpenSpiel's single-population alpha-rank takes two-player games only): table
    ``k`` at ``(i, j, ..)`` is seat ``k``'s mean win share when the seats play agents
    ``i, j, ..``, from giftsim's batch play (first seat rotating)."""
    shape = (len(population),) * n_players
    tables = [np.zeros(shape) for _ in range(n_players)]
    for profile in np.ndindex(*shape):
        seats = [population[i] for i in profile]
        frame = batch.play("geschenkt", seats, n_games, seed=5)
        for k in range(n_players):
            tables[k][profile] = frame[f"win_{k}"].mean()
    return tables


def test_alpharank_puts_most_mass_on_the_strongest_agent():
    """Alpha-rank over random, greedy and sniper for No Thanks! (3 players), from giftsim
    tournaments: in every seat's population the agent with the most wins in the three-way
    table (the project's batch play) gets the most mass, over half of it."""
    population, n = ["random", "greedy", "sniper"], 3
    tables = payoff_tables(population, n, 400)
    _, _, pi, _, _ = alpharank.compute(tables, alpha=10.0)
    mass = np.zeros((n, len(population)))  # each seat's marginal mass per agent
    for profile, p in zip(np.ndindex(*(len(population),) * n), pi, strict=True):
        for k, i in enumerate(profile):
            mass[k, i] += p
    mixed = batch.by_agent(batch.play("geschenkt", population, 3000, seed=6))["win_share"]
    for k in range(n):
        assert population[int(np.argmax(mass[k]))] == mixed.idxmax()
        assert mass[k].max() > 0.5


def test_readme_snippet_runs(capsys):
    """The README's OpenSpiel snippet runs as written and prints the seats' shares of the win."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    snippet = next(block for block in blocks if "openspiel_game" in block)
    exec(compile(snippet, "README.md", "exec"), {})
    shares = [float(x) for x in capsys.readouterr().out.strip().strip("[]").split(",")]
    assert len(shares) == 3 and sum(shares) == pytest.approx(1.0)


def test_bot_refuses_another_seats_turn():
    game = og.load("geschenkt", players=3)
    state = game.new_initial_state()
    state.apply_action(0)  # deal 0: seat 0 acts first
    with pytest.raises(ValueError, match="bot of seat 2 was asked at seat 0's turn"):
        og.GiftsimBot(game, 2, "greedy").step(state)

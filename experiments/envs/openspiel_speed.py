"""Speed of the OpenSpiel games through OpenSpiel's own tools, beside OpenSpiel's Kuhn poker in
the same process (the floor of a Python game there)::

    python -m experiments.envs.openspiel_speed              # 4 players, 5 s a figure
    python -m experiments.envs.openspiel_speed --seconds 20

``evaluate_bots``: whole games per second, every seat ``pyspiel.make_uniform_random_bot``
(chance nodes sampled by ``evaluate_bots``). ``rl_environment``: steps per second of
``rl_environment.Environment`` (chance events sampled inside), every seat's decision random
from the time step's legal actions as a learner's would be, once with its default time steps
(every seat's information-state tensor) and once with observation tensors. Each figure is
timed after one warm-up game, so that compilation is not timed.
"""

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python import rl_environment
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
from open_spiel.python.games import kuhn_poker  # noqa: F401  (registers python_kuhn_poker)

from experiments.envs import openspiel_game as og


def games_per_second(game, seconds: float) -> float:
    """``evaluate_bots`` games per second with uniform random bots."""
    n, rng = game.num_players(), np.random.default_rng(0)
    bots = [pyspiel.make_uniform_random_bot(p, 1000 + p) for p in range(n)]
    evaluate_bots(game.new_initial_state(), bots, rng)
    games, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        evaluate_bots(game.new_initial_state(), bots, rng)
        games += 1
    return games / (time.perf_counter() - start)


def steps_per_second(game, seconds: float, observation_type=None) -> float:
    """``rl_environment`` steps per second, random legal decisions."""
    env = rl_environment.Environment(game, observation_type=observation_type, seed=0)
    rng, step = np.random.default_rng(0), env.reset()
    steps, start = 0, None
    while start is None or time.perf_counter() - start < seconds:
        if step.last():
            step = env.reset()
            start = start or time.perf_counter()  # the first game warms up
            continue
        legal = step.observations["legal_actions"][step.observations["current_player"]]
        step = env.step([legal[rng.integers(len(legal))]])
        steps += start is not None
    return steps / (time.perf_counter() - start)


def rows(players: int, seconds: float):
    """``(game, evaluate_bots games/s, rl_environment steps/s: information state,
    observation)`` per game."""
    games = {f"{name}, {players} players": og.load(name, players=players) for name in og.GAMES}
    games["python_kuhn_poker, 2 players"] = pyspiel.load_game("python_kuhn_poker")
    observation = rl_environment.ObservationType.OBSERVATION
    for label, game in games.items():
        info = steps_per_second(game, seconds)
        yield (
            label,
            games_per_second(game, seconds),
            info,
            steps_per_second(game, seconds, observation),
        )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0, help="time per figure")
    args = parser.parse_args(argv)
    print("| game | evaluate_bots, random bots | rl_environment, information state | observation |")
    print("|---|---|---|---|")
    for label, games, info, obs in rows(args.players, args.seconds):
        print(f"| {label} | {games:,.0f} games/s | {info:,.0f} steps/s | {obs:,.0f} steps/s |")


if __name__ == "__main__":
    main()

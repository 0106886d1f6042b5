"""Steps per second of the Python environments under random legal actions (the figures of the
README's "Learning environments")::

    python -m experiments.envs.speed            # every game, at its bench table's players
    python -m experiments.envs.speed --steps 2000

Each figure counts the learner's decisions (PettingZoo: every agent's, dead steps not counted;
Gymnasium: the learner seat's, the bots' moves inside its steps), episodes reset as they end,
after a short warm-up so that compilation is not timed.
"""

import argparse
import time

import numpy as np

from agents.roster import roster
from giftsim.game import GAMES


def aec_steps_per_second(game: str, players: int = 4, steps: int = 50_000, seed: int = 0) -> float:
    """PettingZoo ``env()`` (the wrapped AEC environment), random legal actions for every seat."""
    from experiments.envs.pettingzoo_env import env

    aec, rng, done = env(game=game, players=players), np.random.default_rng(seed), 0
    aec.reset(seed=seed)
    start = time.perf_counter()
    while done < steps:
        for _ in aec.agent_iter():
            observation, _, termination, _, _ = aec.last()
            if termination:
                aec.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            aec.step(int(legal[rng.integers(len(legal))]))
            done += 1
        aec.reset()
    return done / (time.perf_counter() - start)


def gym_steps_per_second(
    game: str, players: int = 4, opponents="greedy", steps: int = 20_000, seed: int = 0
) -> float:
    """Gymnasium ``GiftsimEnv``, learner at seat 0 with random legal actions."""
    from experiments.envs.gym_env import GiftsimEnv

    env = GiftsimEnv(game, players=players, opponents=opponents)
    _, info = env.reset(seed=seed)
    rng, start = np.random.default_rng(seed), time.perf_counter()
    for _ in range(steps):
        legal = np.flatnonzero(info["action_mask"])
        _, _, over, _, info = env.step(int(legal[rng.integers(len(legal))]))
        if over:
            _, info = env.reset()
    return steps / (time.perf_counter() - start)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=50_000, help="decisions timed per figure")
    parser.add_argument("--players", type=int, help="seats (default: each game's bench table)")
    args = parser.parse_args(argv)
    for game in GAMES:
        players, opponent = roster(game).bench.vector
        players = args.players or players
        aec_steps_per_second(game, players, 200)  # warm-up: compile, first calls
        gym_steps_per_second(game, players, opponent, steps=200)
        aec = aec_steps_per_second(game, players, args.steps)
        gym = gym_steps_per_second(game, players, opponent, steps=args.steps)
        print(
            f"{game}, {players} players: PettingZoo AEC {aec:,.0f} steps/s; "
            f"Gymnasium vs {players - 1} {opponent} {gym:,.0f} learner steps/s"
        )


if __name__ == "__main__":
    main()

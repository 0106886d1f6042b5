"""``giftsim bench``: games per second on one core, search speed, and start-up times.

What is timed for each game comes from its roster (``agents.roster.Bench``): its mixes (one
agent in every seat) at its player counts, and its search agents on the positions of its
search field. The rate is measured in this process after a warm-up game, on one core (the
compiled loop is single-threaded). Search speed is the time per decision of the search agents
at their default settings, and their simulations (playouts to the end) per second, over the
decisions of seat 0 in games of the search field. Start-up is the wall time of a fresh
interpreter that imports giftsim and plays one game of every mix: "cold" with an empty Numba
cache, "warm" with the cache that run filled.
"""

import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd
from tqdm import tqdm

from agents.registry import parse
from agents.roster import roster
from experiments.batch import play
from experiments.games import entry, play_slow
from giftsim.game import GAMES

SLOW = {"planner": 10, "learned": 4}  # measure slow mixes on fewer games


def rate(
    game: str, spec: str, n_players: int, n_games: int, repeats: int = 3, options=None
) -> float:
    """Games per second of an all-``spec`` table of ``n_players``: the best of ``repeats``
    timed runs after a warm-up (the usual way to read throughput on a shared machine).
    ``options``: rule options besides ``n_players`` (default: the rules of record)."""
    agents = [spec] * n_players
    rules = entry(game).rules(n_players=n_players, **(options or {}))
    play(game, agents, 1, rules=rules, as_frame=False)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        play(game, agents, n_games, rules=rules, seed=1, as_frame=False)
        best = min(best, time.perf_counter() - start)
    return n_games / best


def rates(game: str, n_games: int, options=None) -> pd.DataFrame:
    """Games/s per core for each mix (rows) and player count (columns), under the rule
    ``options`` (default: the rules of record)."""
    bench = roster(game).bench
    table = {
        f"all-{spec}": {
            n: rate(game, spec, n, n_games // SLOW.get(spec, 1), options=options)
            for n in bench.players
        }
        for spec in bench.mixes
    }
    return pd.DataFrame(table).T.rename_axis("mix").rename(columns=lambda n: f"{n}p")


def vector_rate(
    game: str, opponents: str = "greedy", n_players: int = 4, n_envs: int = 256, steps: int = 400
) -> float:
    """Learner steps per second of the vector environment (``experiments.envs.vector``) on one
    core: one learner seat against ``opponents``, random legal learner actions drawn in NumPy
    outside the kernel, ``n_envs`` lanes, new arrays every step; best of three runs of
    ``steps`` steps after a warm-up."""
    from experiments.envs.vector import VectorEnv

    env = VectorEnv(game, n_envs, n_players, "rotate", opponents=opponents, seed=1)
    rng = np.random.default_rng(1)
    _, mask = env.reset()
    best = float("inf")
    for timed in (False, True, True, True):
        start = time.perf_counter()
        for _ in range(steps if timed else 10):
            _, mask, *_ = env.step((rng.random(mask.shape) * mask).argmax(axis=1))
        if timed:
            best = min(best, time.perf_counter() - start)
    return n_envs * steps / best


def positions(game: str, n_players: int, spec: str, n_games: int) -> list[np.ndarray]:
    """Observations of seat 0 at its decisions with a choice, in games of ``spec`` players."""
    ent, agent = entry(game), parse(spec, game)
    seen = []

    def seat0(obs, legal):
        seen.append(obs.copy())
        row, rng = agent.param_row(n_players), np.array([len(seen)], np.uint64)
        return int(agent.family.decide(obs, row, rng))

    for i in range(n_games):
        players = [seat0] + [agent] * (n_players - 1)
        play_slow(game, ent.rules(n_players=n_players), players, 1, i)
    return seen


def search_speed(game: str, n_games: int = 4) -> pd.DataFrame:
    """Milliseconds per decision and playouts per second of each search agent (defaults; an
    empty table for a game without search agents)."""
    kit = roster(game)
    if not kit.search:
        return pd.DataFrame()
    n_players, spec = kit.bench.search_players, kit.bench.search_field
    observations = positions(game, n_players, spec, n_games)
    rows = []
    for name in kit.search:
        agent = parse(name, game)
        row, rng = agent.param_row(n_players), np.array([1], np.uint64)
        agent.family.decide(observations[0], row, rng)  # compile or load
        start = time.perf_counter()
        for obs in observations:
            agent.family.decide(obs, row, rng)
        per = (time.perf_counter() - start) / len(observations)
        rows.append(
            {
                "agent": agent.spec,
                "players": n_players,
                "iterations": int(agent.params["iters"]),
                "ms/decision": round(per * 1e3, 2),
                "playouts/s": round(agent.params["iters"] / per),
                "decisions": len(observations),
            }
        )
    return pd.DataFrame(rows).set_index("agent")


def probe() -> None:
    """What a start-up does: import and play one game of every mix and player count."""
    for game in GAMES:
        bench = roster(game).bench
        for spec in bench.mixes:
            for n in bench.players:
                play(game, [spec] * n, 1, as_frame=False)


def startup_times(progress: bool = False) -> tuple[float, float]:
    """Seconds for a cold (empty cache) and a warm (filled cache) start-up probe; ``progress``:
    a bar on stderr (the cold probe compiles every kernel, about a minute)."""
    with (
        tempfile.TemporaryDirectory() as cache,
        tqdm(
            total=2, unit="probe", desc="start-up probes (cold compiles)", disable=not progress
        ) as bar,
    ):
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        cold = _timed_probe(env)
        bar.update(1)
        warm = _timed_probe(env)
        bar.update(1)
    return cold, warm


def _timed_probe(env: dict) -> float:
    start = time.perf_counter()
    command = [sys.executable, "-c", "from experiments.bench import probe; probe()"]
    subprocess.run(command, env=env, check=True, capture_output=True)
    return time.perf_counter() - start

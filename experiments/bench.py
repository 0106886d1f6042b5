"""``giftsim bench``: games per second on one core, and cold and warm start-up times.

The rate is measured in this process after a warm-up game, on one core (the compiled loop is
single-threaded). Start-up is the wall time of a fresh interpreter that imports giftsim and
plays one game of every mix: "cold" with an empty Numba cache, "warm" with the cache that run
filled.
"""

import os
import subprocess
import sys
import tempfile
import time

import pandas as pd

from experiments.batch import play
from experiments.games import entry

MIXES = {
    "geschenkt": ("random", "greedy", "sniper"),
    "tulips": ("random", "greedy", "hoarder", "planner"),
}
PLAYERS = {"geschenkt": (3, 4, 5), "tulips": (2, 3, 4, 5, 6)}
SLOW = {"planner": 10}  # measure slow mixes on fewer games


def rate(game: str, spec: str, n_players: int, n_games: int, repeats: int = 3) -> float:
    """Games per second of an all-``spec`` table of ``n_players``: the best of ``repeats``
    timed runs after a warm-up (the usual way to read throughput on a shared machine)."""
    agents = [spec] * n_players
    play(game, agents, 1, as_frame=False)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        play(game, agents, n_games, seed=1, as_frame=False)
        best = min(best, time.perf_counter() - start)
    return n_games / best


def rates(game: str, n_games: int) -> pd.DataFrame:
    """Games/s per core for each mix (rows) and player count (columns)."""
    table = {
        f"all-{spec}": {n: rate(game, spec, n, n_games // SLOW.get(spec, 1)) for n in PLAYERS[game]}
        for spec in MIXES[game]
    }
    return pd.DataFrame(table).T.rename_axis("mix").rename(columns=lambda n: f"{n}p")


def probe() -> None:
    """What a start-up does: import and play one game of every mix and player count."""
    for game, mixes in MIXES.items():
        entry(game)
        for spec in mixes:
            for n in PLAYERS[game]:
                play(game, [spec] * n, 1, as_frame=False)


def startup_times() -> tuple[float, float]:
    """Seconds for a cold (empty cache) and a warm (filled cache) start-up probe."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        cold = _timed_probe(env)
        warm = _timed_probe(env)
    return cold, warm


def _timed_probe(env: dict) -> float:
    start = time.perf_counter()
    command = [sys.executable, "-c", "from experiments.bench import probe; probe()"]
    subprocess.run(command, env=env, check=True, capture_output=True)
    return time.perf_counter() - start

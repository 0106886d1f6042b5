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
import platform
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

import giftsim
from agents.registry import parse
from agents.roster import roster
from experiments.batch import play
from experiments.games import play_slow
from giftsim import files
from giftsim.game import GAMES, load_game

SLOW = {"planner": 10, "learned": 4}  # measure slow mixes on fewer games
TOOLCHAIN = ("numpy", "numba", "llvmlite")  # libraries whose versions the rates depend on


def rate(
    game: str, spec: str, n_players: int, n_games: int, repeats: int = 3, options=None
) -> float:
    """Games per second of an all-``spec`` table of ``n_players``: the best of ``repeats``
    timed runs after a warm-up (the usual way to read throughput on a shared machine).
    ``options``: rule options besides ``n_players`` (default: the rules of record)."""
    agents = [spec] * n_players
    rules = load_game(game).rules(n_players=n_players, **(options or {}))
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
) -> tuple[float, float]:
    """Learner steps and episodes per second of the vector environment
    (``experiments.envs.vector``) on one core: one learner seat against ``opponents``, random
    legal learner actions drawn in NumPy outside the kernel, ``n_envs`` lanes, the
    environment's own output buffers (``copy=False``); best of three runs of ``steps`` steps
    after a warm-up (``experiments.envs.speed``, the method of the README's table)."""
    from experiments.envs.speed import vector_steps
    from experiments.envs.vector import VectorEnv

    env = VectorEnv(game, n_envs, n_players, "rotate", opponents, seed=1, copy=False)
    return vector_steps(env, steps, 3)


def kernel_rate(game: str, opponents: str = "greedy", n_players: int = 4, n_games=50_000):
    """Games per second of the compiled loop on the vector environment's table: a ``random``
    seat (the learner's stand-in) and ``opponents`` at the others."""
    from experiments.envs.speed import kernel_games

    return kernel_games(game, n_players, opponents, n_games, 3)


def positions(game: str, n_players: int, spec: str, n_games: int) -> list[np.ndarray]:
    """Observations of seat 0 at its decisions with a choice, in games of ``spec`` players."""
    definition, agent = load_game(game), parse(spec, game)
    seen = []

    def seat0(obs, legal):
        seen.append(obs.copy())
        row, rng = agent.param_row(n_players), np.array([len(seen)], np.uint64)
        return agent.family.ask(obs, row, rng)

    for i in range(n_games):
        players = [seat0] + [agent] * (n_players - 1)
        play_slow(game, definition.rules(n_players=n_players), players, 1, i)
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
        agent.family.ask(observations[0], row, rng)  # compile or load
        start = time.perf_counter()
        for obs in observations:
            agent.family.ask(obs, row, rng)
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


# ``giftsim bench --markdown FILE``: the speed section a document embeds (the README's), between
# two marks; writing it again replaces only the text between them.
BEGIN = "<!-- giftsim bench --markdown: begin (written by the command; edit outside the marks) -->"
END = "<!-- giftsim bench --markdown: end -->"


def markdown(rates_by_game: dict, vector: dict, startup, about: dict) -> str:
    """The speed section: when and how it was measured (``about``: date, command, giftsim,
    git, cores, load, rules), games per second on one core by game and mix (rows) and player
    count (columns, from ``rates_by_game``: a :func:`rates` frame per game), the vector
    environment's learner steps per second (``vector``: game -> (rate, players, opponents))
    and, if measured, the start-up times ``(cold, warm)``."""
    lines = [_measured(about), "", *_rate_table(rates_by_game), ""]
    parts = [
        f"{load_game(game).title} {rate:,.0f} ({players} players, the others `{opponents}`)"
        for game, (rate, players, opponents) in vector.items()
    ]
    lines.append(
        "Vector environment (learner steps per second on one core, a learner with random legal "
        f"actions, 256 lanes): {'; '.join(parts)}."
    )
    if startup is not None:
        cold, warm = startup
        lines += [
            "",
            f"Start-up (a fresh interpreter imports giftsim and plays one game of every mix): "
            f"cold {cold:.1f} s (empty Numba cache), warm {warm:.1f} s.",
        ]
    return "\n".join(lines)


def _measured(about: dict) -> str:
    where = [f"giftsim {about['giftsim']}", f"git {about.get('git') or 'unknown'}"]
    where += [f"{name} {version}" for name, version in about.get("toolchain", {}).items()]
    where.append(f"{about['cores']} cores")
    if about.get("load") is not None:
        where.append(f"load average {about['load']:.1f} at the start")
    rules = f"; rules {about['rules']}" if about.get("rules") else ""
    return (
        f"Measured on {about['date']} with `{about['command']}` ({', '.join(where)}{rules}): "
        "games per second on one core."
    )


def _rate_table(rates_by_game: dict) -> list[str]:
    """One markdown table: a row per game and mix, a column per player count of any game."""
    counts = sorted({c for frame in rates_by_game.values() for c in frame.columns}, key=_count)
    lines = ["| game, mix | " + " | ".join(counts) + " |", "|---" * (len(counts) + 1) + "|"]
    for game, frame in rates_by_game.items():
        for mix, row in frame.iterrows():
            cells = [f"{row[c]:,.0f}" if c in row.index else "" for c in counts]
            lines.append(f"| {load_game(game).title}, {mix} | " + " | ".join(cells) + " |")
    return lines


def _count(column: str) -> int:
    return int(column.rstrip("p"))


def about(command: str, rules: str = "") -> dict:
    """When and where a bench runs, for :func:`markdown`: the rates depend on the compiler
    (``toolchain``: Python's, NumPy's, Numba's and llvmlite's versions) as on the machine."""
    from experiments.manifest import git_revision, library_versions

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    revision, versions = git_revision(), library_versions()
    return {
        "date": date.today().isoformat(),
        "command": command,
        "giftsim": giftsim.__version__,
        "git": revision[:7] if revision else None,
        "toolchain": {"Python": platform.python_version()} | {n: versions[n] for n in TOOLCHAIN},
        "cores": os.cpu_count(),
        "load": load,
        "rules": rules,
    }


def check_target(path, force: bool) -> Path:
    """``path`` may take the speed section: new, or holding the marks (its section is
    replaced), or any file with ``force``; a one-line ValueError otherwise."""
    path = Path(path)
    text = path.read_text() if path.is_file() else ""
    counts = (text.count(BEGIN), text.count(END))
    if counts != (0, 0) and (counts != (1, 1) or _marks(text) is None):
        raise ValueError(
            f"--markdown {path} has {counts[0]} begin and {counts[1]} end marks of a giftsim "
            "bench section (one of each, begin first, or none); mend them and run again (not "
            "even --force replaces a file with damaged marks: its text outside them is kept)"
        )
    return files.check_new(path, force or _marks(text) is not None, "--markdown")


def embed(path, section: str, force: bool = False) -> Path:
    """Write ``section`` between the marks of ``path`` (the rest of the file kept), or as a
    new file (or, with ``force``, in place of a file without marks)."""
    path = check_target(path, force)
    text = path.read_text() if path.is_file() else ""
    span = _marks(text)
    block = f"{BEGIN}\n{section}\n{END}"
    if span is None:
        return files.write_text(path, block + "\n", force, "--markdown")
    start, stop = span
    return files.write_text(path, text[:start] + block + text[stop:], True, "--markdown")


def _marks(text: str):
    """The span from the begin mark to the end of the end mark, or None."""
    start = text.find(BEGIN)
    stop = text.find(END, start + 1)
    return None if start < 0 or stop < 0 else (start, stop + len(END))


def section_of(text: str) -> str:
    """The text between the marks (a document's embedded speed section)."""
    span = _marks(text)
    if span is None:
        raise ValueError("no giftsim bench section (its marks) in the text")
    return text[span[0] + len(BEGIN) : span[1] - len(END)].strip()

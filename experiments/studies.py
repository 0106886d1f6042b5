"""Whole studies in one call each, for notebooks: a seat study of several agents (each with its
own number of games), a tournament as a long table, and candidates against fields.

They only wire ``schedule``, ``runner``, ``batch`` and ``results`` together; every number with
its interval comes from ``stats``, every figure from ``plots``. Games run in this process (the
serial backend) unless ``options`` for ``runner.run`` say otherwise.
"""

import pandas as pd

from agents.registry import builtins
from experiments.batch import field
from experiments.games import entry
from experiments.results import long_table, summary_of
from experiments.runner import run
from experiments.schedule import join, mirror

SERIAL = {"backend": "serial", "progress": False}


def scaled(games, scale: float, minimum: int = 1):
    """Game counts (an int, or a dict of them) times ``scale``, rounded, at least ``minimum``:
    how the notebooks size every study from one parameter (``GIFTSIM_SCALE``)."""
    if isinstance(games, dict):
        return {key: scaled(n, scale, minimum) for key, n in games.items()}
    return max(minimum, round(games * scale))


def describe(table: pd.DataFrame, template: str) -> str:
    """One line per row of ``table``: ``template`` formatted with the row's index levels and
    columns by name, e.g. ``"{agent}: {win_share:.1%}"``; so prose quotes computed numbers."""
    rows = table.reset_index().to_dict("records")
    return "\n".join(template.format(**row) for row in rows)


def builtin_specs(game: str, slow: dict[str, str], skip=()) -> tuple[list[str], list[str]]:
    """The game's built-in agents as specs, split in two: the fast ones by name, and those
    named in ``slow`` (name -> spec, e.g. ``{"ismcts": "ismcts:iters=200"}``) by that spec;
    the families named in ``skip`` are left out, and those that play from a table file
    (``solved``: a table solves one small variant)."""
    names = [f.name for f in builtins(game) if f.name not in skip and not f.table]
    return [n for n in names if n not in slow], [slow[n] for n in names if n in slow]


def seat_study(game: str, agents: dict[str, int], players=None, seed=0, rules=None, **options):
    """Mirror tables (every seat the same agent) of each spec of ``agents`` at every player
    count, ``agents[spec]`` games per count, as one experiment. ``players`` defaults to every
    count the engine accepts; ``rules``: options besides ``n_players``. Returns the
    per-(job, seat, position) sums of ``results.summary_of``, for ``stats.summary_seat_table``
    and its kin."""
    players = players or entry(game).players
    designs = [mirror(game, [spec], players, n, seed, rules) for spec, n in agents.items()]
    frame, _, _ = run(join(*designs), summary_only=True, **{**SERIAL, **options})
    return summary_of(frame, True)


def tournament(jobs, **options) -> pd.DataFrame:
    """Play the jobs of a design; the long table (``results.long_table``) of every game."""
    frame, _, _ = run(jobs, **{**SERIAL, **options})
    return long_table(frame)


def field_table(game, candidates: dict[str, int], baselines, n_players, seed=0, rules=None):
    """Each spec of ``candidates`` against ``n_players - 1`` copies of each baseline, in every
    seat on ``candidates[spec]`` duplicate deals (``batch.field``); never against itself.
    ``rules``: options besides ``n_players``, as in ``schedule``. One row per (baseline,
    candidate): ``games``, ``win_share`` with a 95% interval over deals (``ci_low``,
    ``ci_high``, clipped to [0, 1]) and ``fair``."""
    rows = [
        _field_row(game, spec, base, n_players, n, seed, rules)
        for base in baselines
        for spec, n in candidates.items()
        if spec != base
    ]
    return pd.DataFrame(rows).set_index(["baseline", "candidate"])


def _field_row(game, candidate, baseline, n_players, n_games, seed, rules) -> dict:
    made = entry(game).rules(n_players=n_players, **(rules or {}))
    result = field(game, candidate, baseline, n_players, n_games, seed, made)
    low, high = result["ci95"]
    return {
        "baseline": baseline,
        "candidate": candidate,
        "games": result["games"],
        "win_share": result["win_share"],
        "ci_low": max(low, 0.0),
        "ci_high": min(high, 1.0),
        "fair": result["fair"],
    }

"""Experiments with isolated agents (``agents.isolation``): marking jobs, the secret they
play under, forfeit columns and the forfeit table of a report.

A run in which any agent is isolated plays under a random secret unless one is given: its
jobs (and so the manifest) keep it, so the run replays from its folder. Results gain one
column per seat:

=================  ========================================================================
column             meaning
=================  ========================================================================
``forfeit_<s>``    int8: 0, or the code of seat ``s``'s forfeit of the game (the first in a
                   match): 1 raised, 2 crashed, 3 timeout, 4 memory, 5 illegal action,
                   6 not an integer, 7 no start (``agents.isolation.FAULTS``). A forfeited
                   seat's ``win_<s>`` is 0 and the game's winners are the best of the
                   others; its ``score_<s>`` is the score its seat ended with, the lowest
                   legal action played for it after the fault
=================  ========================================================================

Streaming summaries (``--summary-only``) gain ``forfeits``, per (job, seat, position).
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from agents.isolation import FAULTS, Isolation

if TYPE_CHECKING:  # pandas only where the tables are made: the CLI parses options without it
    import pandas as pd

MANY = 5  # reasons shown per agent before the rest are counted together


def isolate(jobs, isolation: Isolation, secret: int | None = None) -> list:
    """``jobs`` with ``isolation``, and ``secret`` (a fresh random one when None)."""
    secret = secrets.randbits(64) if secret is None else secret
    return [replace(job, isolation=isolation.as_dict(), secret=secret) for job in jobs]


def from_options(isolate: str | None, untrusted: dict, limits, families) -> Isolation | None:
    """The command line's isolation: ``isolate`` (``--isolate``: comma-separated family
    names), ``untrusted`` (each ``--untrusted-module`` with the families it defined),
    ``limits`` (seconds per decision, MiB per process); None when nothing is isolated. Each
    name, and each module, must concern an agent of the run (``families``: those of its
    agents), else a one-line ValueError."""
    playing = {f.name for f in families}
    valid = ", ".join(sorted(playing))
    names = [name.strip() for name in (isolate or "").split(",") if name.strip()]
    if isolate is not None and not names:
        raise ValueError(f"--isolate takes agent names separated by commas, got {isolate!r}")
    for name in names:
        if name not in playing:
            raise ValueError(
                f"--isolate names {name!r}, which plays nowhere in this run (agents: {valid})"
            )
    for target, defined in untrusted.items():
        if not playing & {f.name for f in defined}:
            offered = ", ".join(f.name for f in defined)
            raise ValueError(
                f"--untrusted-module {target} defines no agent of this run (it defines "
                f"{offered}; the run's agents: {valid})"
            )
    names += [f.name for defined in untrusted.values() for f in defined if f.name in playing]
    if not names:
        return None
    return Isolation(tuple(dict.fromkeys(names)), *limits)


def check_start(isolation: Isolation | None, game: str, tables) -> None:
    """Start each isolated agent of ``tables`` (each table a run plays: its player count and
    the specs of the agents at it) once, here, before a run: a run's process that does not
    start forfeits its games (so that a run goes on), which for an agent that never starts
    (say, a memory limit too small to load its libraries) would be a whole run of forfeits;
    this says why in one line (``ValueError``) instead. Each agent starts at the player count
    of the first table it sits at, and its process is kept for this process's blocks at that
    count."""
    if isolation is None:
        return
    from agents.drivers.isolated import WIDTH
    from agents.isolation.host import Sandbox
    from agents.registry import parse

    first_count = {}
    for players, specs in tables:
        for spec in specs:
            first_count.setdefault(spec, players)
    for spec, players in first_count.items():
        agent = parse(spec, game)
        if isolation.covers(agent.family):
            box = Sandbox(game, agent, players, WIDTH, isolation)
            try:
                box.start()
            finally:
                box.close()


def with_forfeits(frame: pd.DataFrame, forfeits: np.ndarray) -> pd.DataFrame:
    """Add the ``forfeit_<s>`` columns (in place) and return the frame."""
    for s in range(forfeits.shape[1]):
        frame[f"forfeit_{s}"] = forfeits[:, s].astype(np.int8)
    return frame


def forfeit_table(long: pd.DataFrame) -> pd.DataFrame:
    """Per agent: the games it played, those it forfeited, their share and a count by reason
    (from a long table with a ``forfeit`` column: ``experiments.results.long_table``)."""
    codes = long["forfeit"].to_numpy()
    import pandas as pd

    reasons = pd.Series([FAULTS[c] if 0 < c < len(FAULTS) else "" for c in codes])
    table = (
        long.assign(lost=codes != 0, reason=reasons.to_numpy())
        .groupby("agent")
        .agg(games=("lost", "size"), forfeits=("lost", "sum"))
    )
    table["share"] = table.forfeits / table.games
    table["reasons"] = [
        _reasons(reasons[(long.agent == agent).to_numpy() & (codes != 0)]) for agent in table.index
    ]
    return table


def forfeit_sums_table(sums: pd.DataFrame) -> pd.DataFrame:
    """Per agent: games and forfeits from streaming sums (which keep no reasons)."""
    table = sums.groupby("agent").agg(games=("games", "sum"), forfeits=("forfeits", "sum"))
    table["share"] = table.forfeits / table.games
    return table


def _reasons(reasons: pd.Series) -> str:
    counts = reasons.value_counts()
    shown = [f"{name} {count}" for name, count in counts.iloc[:MANY].items()]
    return ", ".join(shown) or "-"

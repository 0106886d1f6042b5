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

Why an agent forfeited is kept beside the codes, bounded: each chunk keeps, for each seat and
fault code, the number of its forfeits and the explanation of the first (by game index; cut to
``EXPLANATION`` characters), as fault records (:func:`fault_records`), JSON in the metadata of
its parquet file under the key ``giftsim.faults`` (``experiments.results.load_faults``), a
summary chunk as a chunk of rows. A record is a dict:

=================  ========================================================================
key                meaning
=================  ========================================================================
``agent``          the agent's spec
``code``           the fault code (``agents.isolation.FAULTS``)
``forfeits``       the games (matches) of the chunk that seat forfeited with that code
``job``            the job of the first of them
``game_index``     its game index
``seat``           its seat
``explanation``    what the agent's process said, or what the run saw (``ValueError
                   (bot.py:12): ...``, ``no answer in 1 s``), at most ``EXPLANATION`` characters
=================  ========================================================================

A run's records are merged per agent and code (:func:`merged_faults`): the forfeits added up,
the explanation of the first game in (job, game index, seat) order, so the table is the same
whatever the backend, workers and chunk size, and after a resume. The Python API's frames keep
the merged records in ``frame.attrs["faults"]``; :func:`fault_table` makes them a table.
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from agents.isolation import FAULTS, Isolation
from experiments.words import count_of, repeated

if TYPE_CHECKING:  # pandas only where the tables are made: the CLI parses options without it
    import pandas as pd

MANY = 5  # reasons shown per agent before the rest are counted together
EXPLANATION = 300  # characters of a fault's explanation kept (the rest is cut, with "...")
FAULTS_KEY = b"giftsim.faults"  # a chunk file's metadata key of its fault records
ORDER = ("job", "game_index", "seat")  # which forfeit of an agent and code is the first


def isolate(jobs, isolation: Isolation, secret: int | None = None) -> list:
    """``jobs`` with ``isolation`` (:func:`check_covers`: of the agents of all the jobs), and
    ``secret`` (a fresh random one when None)."""
    from agents.registry import parse

    seated = {(job.game, spec) for job in jobs for spec in job.agents}
    check_covers(isolation, [parse(spec, game) for game, spec in sorted(seated)])
    secret = secrets.randbits(64) if secret is None else secret
    return [replace(job, isolation=isolation.as_dict(), secret=secret) for job in jobs]


def secured(jobs, secret: int | None = None, isolation=None) -> list:
    """``jobs`` under ``secret`` and with ``isolation`` (an ``Isolation``, its dict, or None):
    the secret is 0 unless given, and random unless given when an agent is isolated
    (:func:`isolate`)."""
    isolation = Isolation.of(isolation)
    if isolation is None:
        return [replace(job, secret=secret or 0) for job in jobs]
    return isolate(jobs, isolation, secret)


def check_covers(isolation: Isolation, agents) -> None:
    """The check of ``isolation`` against ``agents`` (of a table, or of a run's jobs): each
    name it gives plays there, and it covers a seat (else nothing would be isolated while the
    results' ``forfeit_s`` columns said otherwise); a one-line ValueError."""
    playing = {agent.family.name for agent in agents}
    check_playing(isolation.agents, playing, "isolation", "here")
    if not any(isolation.covers(agent.family) for agent in agents):
        raise ValueError(f"isolation covers no agent here: name some of {_listed(playing)}")


def check_playing(names, playing: set, by: str, where: str) -> None:
    """Each of ``names`` (given ``by`` an option or the API) is the name of an agent in
    ``playing`` (the families that play ``where``), else a one-line ValueError naming them."""
    for name in names:
        if name not in playing:
            raise ValueError(
                f"{by} names {name!r}, which plays nowhere {where} (agents: {_listed(playing)})"
            )


def _listed(playing: set) -> str:
    return ", ".join(sorted(playing))


def from_options(isolate: str | None, untrusted: dict, limits, families) -> Isolation | None:
    """The command line's isolation: ``isolate`` (``--isolate``: comma-separated family
    names), ``untrusted`` (each ``--untrusted-module`` with the families it defined),
    ``limits`` (seconds per decision, MiB per process); None when nothing is isolated. Each
    name, and each module, must concern an agent of the run (``families``: those of its
    agents), else a one-line ValueError."""
    playing = {f.name for f in families}
    names = [name.strip() for name in (isolate or "").split(",") if name.strip()]
    if isolate is not None and not names:
        raise ValueError(f"--isolate takes agent names separated by commas, got {isolate!r}")
    if twice := repeated(names):
        raise ValueError(f"--isolate names {twice[0]} twice; name each agent once")
    check_playing(names, playing, "--isolate", "in this run")
    for target, defined in untrusted.items():
        if not playing & {f.name for f in defined}:
            offered = ", ".join(f.name for f in defined)
            raise ValueError(
                f"--untrusted-module {target} defines no agent of this run (it defines "
                f"{offered}; the run's agents: {_listed(playing)})"
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
    of the first table it sits at (``host.start_together``), and its process is kept for this
    process's blocks at that count."""
    if isolation is None:
        return
    from agents.drivers.isolated import WIDTH
    from agents.isolation.host import Sandbox, start_together
    from agents.registry import parse

    first_count = {}
    for players, specs in tables:
        for spec in specs:
            first_count.setdefault(spec, players)
    agents = {spec: parse(spec, game) for spec in first_count}
    isolated = [spec for spec, agent in agents.items() if isolation.covers(agent.family)]
    boxes = []
    try:
        for spec in isolated:
            boxes.append(Sandbox(game, agents[spec], first_count[spec], WIDTH, isolation))
        start_together(boxes)
    finally:
        for box in boxes:
            box.close()


def forfeit_columns(forfeits: np.ndarray) -> dict:
    """The ``forfeit_<s>`` columns of a block's forfeit codes, by name."""
    return {f"forfeit_{s}": forfeits[:, s].astype(np.int8) for s in range(forfeits.shape[1])}


def with_forfeits(frame: pd.DataFrame, forfeits: np.ndarray) -> pd.DataFrame:
    """Add the ``forfeit_<s>`` columns (in place) and return the frame."""
    for name, values in forfeit_columns(forfeits).items():
        frame[name] = values
    return frame


SEAT_GAMES = "(seat_games: an agent's games, counted once for each seat it held in a game)"


def forfeit_table(long: pd.DataFrame) -> pd.DataFrame:
    """Per agent: ``seat_games``, the games it played counted once per seat it held (each
    seat forfeits on its own), ``forfeits``, their ``share`` and a count by reason (from a
    long table with a ``forfeit`` column: ``experiments.results.long_table``)."""
    codes = long["forfeit"].to_numpy()
    import pandas as pd

    reasons = pd.Series([FAULTS[c] if 0 < c < len(FAULTS) else "" for c in codes])
    table = (
        long.assign(lost=codes != 0, reason=reasons.to_numpy())
        .groupby("agent")
        .agg(seat_games=("lost", "size"), forfeits=("lost", "sum"))
    )
    table["share"] = table.forfeits / table.seat_games
    table["reasons"] = [
        _reasons(reasons[(long.agent == agent).to_numpy() & (codes != 0)]) for agent in table.index
    ]
    every_seat = long.assign(lost=codes != 0).groupby(["job", "game_index"]).lost.all()
    table.attrs["note"] = _note(int(every_seat.sum()), len(every_seat))
    return table


def forfeit_sums_table(sums: pd.DataFrame) -> pd.DataFrame:
    """Per agent: seat games and forfeits, as ``forfeit_table``, from streaming sums (which
    keep no reasons)."""
    table = sums.groupby("agent").agg(seat_games=("games", "sum"), forfeits=("forfeits", "sum"))
    table["share"] = table.forfeits / table.seat_games
    games = int(sums.loc[sums.seat == 0, "games"].sum())
    won = round(float(sums["win_sum"].sum()))  # a game with a winner shares out a whole win
    table.attrs["note"] = _note(games - won, games)
    return table


def _note(no_winner: int, games: int) -> str:
    """The forfeits table's note: what seat games are, and the games no seat won."""
    if not no_winner:
        return SEAT_GAMES
    return (
        f"{SEAT_GAMES}; {count_of(no_winner, 'game')} of {games:,} had no winner: every seat "
        "forfeited, so each seat's win share of them is 0 and the win shares of a table add up "
        "to less than 1"
    )


def _reasons(reasons: pd.Series) -> str:
    counts = reasons.value_counts()
    shown = [f"{name} {count}" for name, count in counts.iloc[:MANY].items()]
    return ", ".join(shown) or "-"


def fault_records(explained: dict, forfeits: np.ndarray, agents, job: int, first: int) -> list:
    """The fault records (module docstring) of a block of games ``first ..`` of ``job``:
    ``forfeits``, its codes per row and seat, and ``explained``, the first explanation of each
    seat and code (``agents.drivers.isolated.Explained``); ``agents``: one per seat."""
    records = []
    for seat, code in sorted({(int(s), int(c)) for s, c in zip(*_faulted(forfeits), strict=True)}):
        rows = np.flatnonzero(forfeits[:, seat] == code)
        records.append(
            {
                "agent": getattr(agents[seat], "spec", str(agents[seat])),
                "code": code,
                "forfeits": len(rows),
                "job": int(job),
                "game_index": int(first) + int(rows[0]),
                "seat": seat,
                "explanation": cut(explained.get((seat, code), (0, ""))[1]),
            }
        )
    return records


def _faulted(forfeits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The seats and codes of every forfeit of a block."""
    rows, seats = np.nonzero(forfeits)
    return seats, forfeits[rows, seats]


def cut(text: str) -> str:
    """``text``, at most ``EXPLANATION`` characters (its end cut, with ``...``)."""
    return text if len(text) <= EXPLANATION else text[: EXPLANATION - 3] + "..."


def merged_faults(records) -> list:
    """Fault records merged per agent and code: their forfeits added up, the rest of the
    first (``ORDER``); by agent, then code. Merged records merge again to themselves."""
    merged = {}
    for record in sorted(records, key=lambda r: tuple(r[key] for key in ORDER)):
        key = (record["agent"], record["code"])
        if key in merged:
            merged[key]["forfeits"] += record["forfeits"]
        else:
            merged[key] = dict(record)
    return [merged[key] for key in sorted(merged)]


def fault_table(records) -> pd.DataFrame:
    """Per agent and reason (``FAULTS``): its forfeits, where the first was (job, game index,
    seat) and its explanation, from fault records (merged here)."""
    import pandas as pd

    columns = ["agent", "reason", "forfeits", *ORDER, "explanation"]
    rows = [{**r, "reason": FAULTS[r["code"]]} for r in merged_faults(records)]
    return pd.DataFrame(rows, columns=columns).set_index("agent")

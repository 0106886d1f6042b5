"""The gauntlet: each agent of a list against several fields, per player count (a population
evaluation), so that every strength claim can name the field it was measured in.

A *field* fills the other seats of a table: from a *pool* of agents (each game's roster names
its own in ``agents.roster.Gauntlet``: all ``greedy``, all the tuned agent of the player count,
a mixed pool), or with the agent's own copies (``self``, a mirror). One (player count, agent,
field) is a *cell*:

- a pool of one agent B: the agent against ``n - 1`` copies of B in every seat on duplicate
  deals, which is the field design (``schedule.field_design``) itself: the same seatings on
  the same deals, so the same games and the same numbers;
- a pool of m agents: the ``n - 1`` other seats hold every member ``(n - 1) // m`` times and
  the members of an r-subset (r = ``(n - 1) % m``) once more, one table for each of the
  C(m, r) subsets, so every member holds the same share of the other seats and no member two
  seats more than another at a table. Every distinct seat order of each table is played; the
  orders fall into rotation classes (a cyclic order in each of its rotations: the agent in
  every seat), each class a seating group on duplicate deals of its own, so a deal is ``n``
  games as in the other fields and no seat order is fixed by a listing;
- ``self``: every seat the agent. Its win share is the fair share 1/n by construction, so the
  cell reports the turn-order gap among the copies instead (the last position's win share
  minus the first's, ``stats.seat_gap``). A cell whose pool is the agent alone is that mirror:
  it is not played, and its table cell says so.

Each cell plays ``ceil(deals / groups)`` deals in each of its seating groups (``deals`` in all
for a pool of one agent and for ``self``), from game index 0 on the run's seed, so the cells
share their deals (paired across agents and fields). Its figures come from
``experiments.stats`` on the cell's own games: the win share with its 95% interval with the
deal as unit, stratified by seating group. Two agents in one field are compared by their
paired difference on the deals both cells played (``comparisons``: every two agents in every
field, with Holm's correction over all of them), so "A is ahead of B in field F" is a test,
not two intervals read side by side. Agents, fields and player counts are put in
canonical order before jobs are numbered, so any order of the lists gives the same jobs, the
same experiment (``--resume``) and the same numbers; tables and plots show them as listed.

Agents may play isolated (``agents.isolation.Isolation``: each from a process of its own, a
fault forfeiting the game; ``experiments.isolation``): the jobs then carry the isolation and
the run's secret, random unless given, and an isolated agent plays exactly the games it plays
in process under that secret, so the cells are the same. Their forfeits and why are tables
of the whole run beside the gauntlet's (``giftsim gauntlet``, ``report`` and gauntlet.md).
"""

import math
from dataclasses import dataclass
from datetime import date
from itertools import combinations
from pathlib import Path

import pandas as pd

from agents.registry import parse
from agents.roster import roster
from experiments import manifest as manifest_io
from experiments import stats
from experiments.blocks import deal_codes, deal_strata
from experiments.isolation import secured
from experiments.results import load_faults, long_table, read_chunks
from experiments.runner import run
from experiments.schedule import Job, arrangements, join, rotations, seating_groups
from experiments.words import count_of, repeated
from giftsim import files
from giftsim.checks import is_whole
from giftsim.game import load_game

SELF = "self"  # the field of an agent's own copies, in every game
TEMPLATE = "{n}"  # stands for the player count in agent specs and pools
SERIAL = {"backend": "serial", "progress": False}
NOT_YET = "not played yet"  # the kind of a cell an unfinished run holds no game of


@dataclass(frozen=True)
class Cell:
    """One agent against one field at one player count: its jobs (numbers in the run's job
    list; none for a pool of the agent alone) and its deals."""

    n_players: int
    agent: str  # canonical spec
    name: str  # the agent as listed (``{n}`` unfilled)
    field: str  # the field's name as listed
    pool: tuple[str, ...]  # canonical specs, sorted; () for the agent's own copies
    jobs: tuple[int, ...]
    deals: int


@dataclass(frozen=True)
class Plan:
    """A gauntlet's jobs and cells; ``agents``, ``fields`` and ``players`` as listed (the
    order tables and plots show), ``notes``: what was left out at a player count and why;
    ``caveat``: why claims on the seed are exploratory (its results were looked at before
    the run, ``ladder.USED``), fixed when the plan is made."""

    game: str
    jobs: list[Job]
    cells: list[Cell]
    agents: tuple[str, ...]
    fields: tuple[str, ...]
    players: tuple[int, ...]
    deals: int
    seed: int
    notes: tuple[str, ...] = ()
    caveat: str = ""

    def record(self) -> dict:
        """The plan as JSON-ready data (kept in the results folder's manifest)."""
        cells = [{**vars(c), "pool": list(c.pool), "jobs": list(c.jobs)} for c in self.cells]
        return {
            "agents": list(self.agents),
            "fields": list(self.fields),
            "players": list(self.players),
            "deals": self.deals,
            "seed": self.seed,
            "notes": list(self.notes),
            "caveat": self.caveat,
            "cells": cells,
        }

    @classmethod
    def from_record(cls, game: str, jobs: list[Job], record: dict) -> "Plan":
        cells = [
            Cell(**{**c, "pool": tuple(c["pool"]), "jobs": tuple(c["jobs"])})
            for c in record["cells"]
        ]
        listed = (tuple(record[k]) for k in ("agents", "fields", "players"))
        notes, caveat = tuple(record["notes"]), record.get("caveat", "")
        return cls(game, jobs, cells, *listed, record["deals"], record["seed"], notes, caveat)


# ---- the design ---------------------------------------------------------------------------


def plan(
    game: str,
    agents=None,
    fields=None,
    players=None,
    deals: int = 1000,
    seed: int = 0,
    rules=None,
    secret: int | None = None,
    isolation=None,
) -> Plan:
    """The gauntlet of ``agents`` against ``fields`` at each of ``players`` (each default:
    the game's roster, ``agents.roster.Gauntlet``), about ``deals`` deals per cell. A field
    is a name of the roster's gauntlet, ``self``, an agent spec (copies of it) or specs
    joined by ``+`` (a pool); ``{n}`` in a spec stands for the player count. An agent or
    field that does not exist at some player count is left out there (``Plan.notes``); one
    that exists at none is a one-line ValueError, as are a player count the game does not
    take and a field that names no agent. The jobs carry ``secret`` and ``isolation``
    (``experiments.isolation.secured``)."""
    agents, fields, players = _listed(game, agents, fields, players)
    if not is_whole(deals) or deals < 1:
        raise ValueError(f"--deals must be a whole number >= 1, got {deals!r}")
    notes: list[str] = []
    agent_specs = _resolve(game, agents, players, _member, "agent", notes)
    pools = _resolve(game, fields, players, _pool, "field", notes)
    parts, cells = [], []
    for n in players:
        listed = {spec: name for name, spec in agent_specs[n].items()}
        for agent in sorted(listed):
            for field in sorted(pools[n]):
                made = _cell_jobs(game, agent, pools[n][field], n, deals, seed, rules)
                parts.append(made[0])
                cells.append((n, agent, listed[agent], field, pools[n][field], made))
    jobs, cells = _numbered(parts, cells)
    if not jobs:
        raise ValueError(
            "every cell is an agent against a field of its own copies alone, which a gauntlet "
            "does not play (a mirror: `giftsim seats`); name a field with another agent"
        )
    jobs = secured(jobs, secret, isolation)
    caveat = _seed_caveat(seed)
    return Plan(game, jobs, cells, agents, fields, players, deals, seed, tuple(notes), caveat)


def _listed(game, agents, fields, players):
    """The lists of a run: given, or the roster's; player counts checked and sorted."""
    defaults = roster(game).gauntlet
    if defaults is None and (agents is None or fields is None or players is None):
        raise ValueError(
            f"{game}'s roster has no gauntlet settings (agents.roster.Gauntlet): name the "
            "agents, the fields and the player counts"
        )
    agents = _words(agents if agents is not None else defaults.agents, "--agents", "agent")
    fields = _words(fields if fields is not None else defaults.fields, "--fields", "field")
    players = players if players is not None else defaults.players
    players = tuple([players] if is_whole(players) else players)
    definition = load_game(game)
    for n in players:
        definition.check_players(n, "--players")
    if not players:
        raise ValueError("--players names no player count")
    return agents, fields, tuple(sorted(set(players)))


def _words(items, option: str, kind: str) -> tuple[str, ...]:
    """A list from a comma-separated string or a sequence; each item once."""
    words = [w.strip() for w in (items.split(",") if isinstance(items, str) else items)]
    words = [w for w in words if w]
    if not words:
        raise ValueError(f"{option} names no {kind}")
    if twice := repeated(words):
        raise ValueError(f"{kind} {twice[0]!r} is listed twice; list each {kind} once")
    return tuple(words)


def _resolve(game, names, players, resolve, kind: str, notes: list) -> dict:
    """Per player count, ``{name: resolve(game, name, n)}`` of the names that exist there; a
    note for each left out, and the first reason as a ValueError for a name that exists at
    none of ``players``."""
    out = {n: {} for n in players}
    for name in names:
        errors = {}
        for n in players:
            try:
                out[n][name] = resolve(game, name, n)
            except ValueError as error:
                errors[n] = str(error)
        if len(errors) == len(players):
            raise ValueError(_nowhere(game, name, players, resolve, kind, errors[players[0]]))
        notes += [f"{kind} {name}: left out at {n} players ({why})" for n, why in errors.items()]
    _check_distinct(out, kind)
    return out


def _nowhere(game, name, players, resolve, kind: str, why: str) -> str:
    """Why ``name`` is at none of ``players``: the first reason, and the player counts where
    it exists if there are any (a ``{n}`` agent such as ``tuned{n}p`` of the default lists)."""
    there = []
    for n in load_game(game).players:
        try:
            resolve(game, name, n)
            there.append(n)
        except ValueError:
            pass
    if not there:
        return why
    asked = ", ".join(map(str, players))
    where = ", ".join(map(str, there))
    return (
        f"{kind} {name!r} exists at {where} players, not at {asked}: choose --players among "
        f"those, or name the {kind}s (--{kind}s) ({why})"
    )


def _check_distinct(specs: dict, kind: str) -> None:
    """Two listed agents (or fields) that are one agent (one field) at a player count are an
    error: the second would play the first's games again under another name."""
    for n, by_name in specs.items():
        seen: dict = {}
        for name, spec in by_name.items():
            if spec in seen:
                what = spec if kind == "agent" else _pool_words(spec, n, short=True)
                raise ValueError(
                    f"{kind}s {seen[spec]!r} and {name!r} are both {what} at {n} players; "
                    f"list each {kind} once"
                )
            seen[spec] = name


def _member(game: str, spec: str, n: int) -> str:
    """The canonical spec of ``spec`` at ``n`` players (``{n}`` replaced), checked there (an
    agent that reads a network needs one for ``n`` seats)."""
    agent = parse(spec.replace(TEMPLATE, str(n)), game)
    agent.param_row(n)
    return agent.spec


def _pool(game: str, name: str, n: int) -> tuple[str, ...]:
    """A field's pool at ``n`` players, sorted: the roster's, or the agents of ``name``
    (joined by ``+``); () for the agent's own copies."""
    named = roster(game).gauntlet.fields if roster(game).gauntlet else {}
    if name == SELF:
        return ()
    members = named[name] if name in named else tuple(name.split("+"))
    if name in named and not members:
        return ()
    if any(not m.strip() for m in members):
        raise ValueError(f"field {name!r} names no agent in one of its places; {_FIELD_HELP}")
    try:
        pool = [_member(game, m.strip(), n) for m in members]
    except ValueError as error:
        if name in named:
            raise
        known = ", ".join(dict.fromkeys([*named, SELF]))  # the roster may name self too
        raise ValueError(
            f"field {name!r} is not a field of {game}'s gauntlet ({known}) nor agents joined "
            f"by '+': {error}"
        ) from None
    if len(set(pool)) < len(pool):
        raise ValueError(f"field {name!r} names an agent twice; {_FIELD_HELP}")
    return tuple(sorted(pool))


_FIELD_HELP = "a field is a name of the game's gauntlet, 'self', or agents joined by '+'"


def tables(agent: str, pool: tuple[str, ...], n: int) -> list[tuple[str, ...]]:
    """The tables (sorted multisets of ``n`` specs) of ``agent`` against a field of ``pool``:
    every member ``(n - 1) // m`` times and each r-subset once more (see the module
    docstring); the agent's own copies for an empty pool."""
    if not pool:
        return [(agent,) * n]
    q, r = divmod(n - 1, len(pool))
    return [tuple(sorted((agent, *pool * q, *extra))) for extra in combinations(pool, r)]


def orbits(table: tuple[str, ...]) -> list[list[tuple[str, ...]]]:
    """Every distinct seat order of a table, in rotation classes: each class one cyclic order
    in its distinct rotations (a seating group of the gauntlet)."""
    out, seen = [], set()
    for seating in arrangements(table):
        if seating not in seen:
            turns = rotations(seating)
            seen.update(turns)
            out.append(turns)
    return out


def _cell_jobs(game, agent, pool, n, deals, seed, rules):
    """``(jobs, deals)`` of one cell: no jobs for a pool of the agent alone (its mirror)."""
    if pool == (agent,):
        return [], 0
    groups = [orbit for table in tables(agent, pool, n) for orbit in orbits(table)]
    per = math.ceil(deals / len(groups))
    return seating_groups(game, groups, per, seed, rules, "gauntlet"), per * len(groups)


def _numbered(parts, cells):
    """The run's job list (``schedule.join``: jobs renumbered, game indices kept) and the
    cells with their job numbers in it."""
    jobs = join(*(p for p in parts if p))
    out, start = [], 0
    for n, agent, name, field, pool, (made, deals) in cells:
        numbers = tuple(range(start, start + len(made)))
        start += len(made)
        out.append(Cell(n, agent, name, field, pool, numbers, deals))
    return jobs, out


# ---- running and reading ------------------------------------------------------------------


def gauntlet(
    game: str,
    agents=None,
    fields=None,
    players=None,
    deals: int = 1000,
    seed: int = 0,
    rules=None,
    out=None,
    command: str = "",
    secret: int | None = None,
    isolation=None,
    **options,
):
    """Plan (``plan``) and play a gauntlet, then compute its table (``table``); returns
    ``(plan, table)``. ``out``: a results folder (manifest and parquet chunks, resumable with
    ``resume=True``; ``report`` writes its markdown and plots); ``isolation``
    (``agents.isolation.Isolation``): agents that play each from a process of their own,
    under ``secret`` (0 unless given; random unless given when an agent is isolated; the
    table keeps why they forfeited, :func:`table`); ``options`` go to
    ``runner.run`` (default: serial, no progress bar)."""
    made = plan(game, agents, fields, players, deals, seed, rules, secret, isolation)
    frame, _, _ = play(made, out, command, **{**SERIAL, **options})
    return made, table(made, out if out is not None else frame)


def play(made: Plan, out=None, command: str = "", **options):
    """Play a plan's jobs with ``runner.run`` (into ``out`` if given, with the plan and
    ``command`` in its manifest): ``(rows or None, seconds, games played now)``; the rows of
    a run with isolated agents keep why they forfeited in ``attrs["faults"]``."""
    meta = {"gauntlet": made.record(), "command": command}
    return run(made.jobs, out=out, meta=meta, **options)


def plan_line(made: Plan) -> str:
    """One line: the cells, seatings and games a gauntlet plays, and what it leaves out."""
    games = sum(job.n_games for job in made.jobs)
    played = sum(1 for cell in made.cells if cell.jobs)
    counts = ", ".join(map(str, sorted({cell.n_players for cell in made.cells})))
    line = (
        f"gauntlet: {count_of(played, 'cell')} (agent x field) at {counts} players, about "
        f"{count_of(made.deals, 'deal')} each: {count_of(len(made.jobs), 'seating')}, "
        f"{count_of(games, 'game')}"
    )
    return "\n".join([line, *made.notes])


def cell_rows(source, jobs) -> pd.DataFrame:
    """The per-game rows of some jobs: from a frame of rows, or read from a results folder
    (their chunk files only; ``source`` may be a :func:`chunks` of the folder, read once)."""
    if isinstance(source, pd.DataFrame):
        return source[source["job"].isin(jobs)]
    manifest, by_job = source if isinstance(source, tuple) else chunks(source)
    files = [path for j in jobs for path in by_job.get(j, [])]
    if not files:
        return pd.DataFrame()
    return read_chunks(files, [manifest] * len(files))


def chunks(folder) -> tuple[dict, dict]:
    """A results folder's manifest and its chunk files by job (each checked once)."""
    manifest, by_job = manifest_io.read(Path(folder)), {}
    for path in manifest_io.chunk_files(folder, manifest):
        by_job.setdefault(manifest_io.chunk_place(path.name)[0], []).append(path)
    return manifest, by_job


COLUMNS = (
    "pool",
    "kind",
    "win_share",
    "ci_low",
    "ci_high",
    "fair",
    "gap",
    "gap_low",
    "gap_high",
    "deals",
    "games",
    "seatings",
    "forfeits",
)


def table(made: Plan, source) -> pd.DataFrame:
    """One row per cell, indexed by (n_players, agent, field), sorted: ``pool`` (its agents,
    ``+``-joined; ``own copies``), ``kind`` (``field``; ``mirror`` for own copies;
    ``its own field`` for a pool of the agent alone, not played; ``not played yet`` for a cell
    an unfinished run holds no game of), ``win_share`` with its 95%
    interval by deal (``ci_low``, ``ci_high``: ``stats.win_share`` on the cell's games),
    ``fair`` (1/n), for mirrors the turn-order ``gap`` (last position minus first) with its
    interval, the ``deals``, ``games`` and ``seatings`` played, and ``forfeits``: the cell's
    games in which an isolated agent forfeited (0 when nothing is isolated), shown beside
    the cell's figure (it moves the share). ``source``: the rows of the
    run, or its results folder. With isolated agents, why they forfeited (their fault records,
    ``experiments.isolation``) is in ``attrs["faults"]``, as in the rows of ``runner.run``
    (``experiments.isolation.fault_table`` makes it a table)."""
    faults = _faults(source)
    source = source if isinstance(source, pd.DataFrame) else chunks(source)
    rows = [_cell_row(cell, cell_rows(source, cell.jobs)) for cell in made.cells]
    frame = pd.DataFrame(rows).set_index(["n_players", "agent", "field"]).sort_index()
    frame = frame.reindex(columns=list(COLUMNS))  # a run of mirrors alone has no share columns
    if faults is not None:
        frame.attrs["faults"] = faults
    return frame


def _faults(source) -> list | None:
    """The fault records of a run's rows or results folder; None when nothing is isolated."""
    if isinstance(source, pd.DataFrame):
        return source.attrs.get("faults")
    return load_faults(source)


def _cell_row(cell: Cell, rows: pd.DataFrame) -> dict:
    head = {
        "n_players": cell.n_players,
        "agent": cell.agent,
        "field": cell.field,
        "pool": "+".join(cell.pool) or "own copies",
        "fair": 1 / cell.n_players,
        "games": len(rows),
        "seatings": len(cell.jobs),
        "forfeits": 0,
    }
    if not cell.jobs:
        return head | {"kind": "its own field", "deals": 0}
    if rows.empty:  # an unfinished run (its tables say so)
        return head | {"kind": NOT_YET, "deals": 0}
    long = long_table(rows)
    head["forfeits"] = _forfeits(long)
    if cell.pool:
        share = stats.win_share(long).loc[cell.agent]
        columns = ("win_share", "ci_low", "ci_high", "deals")
        return head | {"kind": "field"} | {c: share[c] for c in columns}
    gap = stats.seat_gap(long, column="position").iloc[0]
    found = {"gap": gap["gap"], "gap_low": gap["ci_low"], "gap_high": gap["ci_high"]}
    return head | {"kind": "mirror", "deals": gap["deals"]} | found


def _forfeits(long: pd.DataFrame) -> int:
    """The games in which a seat forfeited (an isolated agent that broke loses the game it
    forfeits, which its table shares out among the others)."""
    if "forfeit" not in long:
        return 0
    return int((long.groupby(["job", "game_index"])["forfeit"].max() != 0).sum())


# ---- paired comparisons -------------------------------------------------------------------

PAIR_COLUMNS = ("difference", "se", "ci_low", "ci_high", "deals", "p_value", "p_holm", "shown")
ALPHA = 0.05  # family-wise, two-sided, over every comparison of the run (Holm)


def comparisons(made: Plan, source) -> pd.DataFrame:
    """Every two agents of a field at each player count, on the deals their cells share (the
    cells start at game 0 on one seed): ``difference``, the win share of the agent listed
    first less the other's, its standard error ``se`` and 95% interval with the deal as unit
    (paired: one difference per deal, stratified by the two cells' seating groups;
    ``stats.gap_interval``), ``deals``, the two-sided ``p_value`` that agrees with the interval
    (``stats.gap_test``),
    ``p_holm`` (Holm's, over every comparison of the run) and ``shown`` (``p_holm`` below
    ``ALPHA``: an edge the run shows, family-wise). Indexed by (n_players, field, first,
    second); only fields both agents were played in (not ``self``, not an agent's own)."""
    source = source if isinstance(source, pd.DataFrame) else chunks(source)
    played = [c for c in made.cells if c.pool and c.jobs]
    per_deal = {
        (c.n_players, c.agent, c.field): _deal_wins(c, cell_rows(source, c.jobs)) for c in played
    }
    rows = []
    for n in made.players:
        for field in listed_fields(made, n):
            for first, second in combinations(listed_agents(made, n), 2):
                a, b = per_deal.get((n, first, field)), per_deal.get((n, second, field))
                if a is not None and b is not None and not a.empty and not b.empty:
                    keys = {"n_players": n, "field": field, "first": first, "second": second}
                    rows.append(keys | _paired(a, b))
    index = ["n_players", "field", "first", "second"]
    table = pd.DataFrame(rows, columns=[*index, *PAIR_COLUMNS[:-2]])
    table["p_holm"] = stats.holm_adjusted(table["p_value"])
    table["shown"] = table["p_holm"] < ALPHA
    return table.set_index(index)


def _deal_wins(cell: Cell, rows: pd.DataFrame) -> pd.DataFrame:
    """Per deal of a cell (its game index: one seed, so the same deal in every cell): the
    agent's wins (ties split), its seats and the deal's seating group (``stratum``)."""
    if rows.empty:
        return pd.DataFrame(columns=["wins", "seats", "stratum"])
    long = long_table(rows)
    deal = deal_codes(long)
    mine = long.assign(stratum=deal_strata(long, deal)[deal])
    mine = mine[mine["agent"] == cell.agent]
    return mine.groupby("game_index").agg(
        wins=("win", "sum"), seats=("win", "size"), stratum=("stratum", "first")
    )


def _paired(a: pd.DataFrame, b: pd.DataFrame) -> dict:
    """The difference of two cells' win shares on their common deals, each share the ratio
    of its wins to its seats as the cells' tables compute it, with the linearised paired
    error: per deal ``u = (wins_a - share_a seats_a) / seats_a_total - (same for b)``,
    summed over deals within the pair of seating groups."""
    both = a.merge(b, "inner", left_index=True, right_index=True, suffixes=("_a", "_b"))
    share_a = both["wins_a"].sum() / both["seats_a"].sum()
    share_b = both["wins_b"].sum() / both["seats_b"].sum()
    deals = len(both)
    spread = (both["wins_a"] - share_a * both["seats_a"]) / both["seats_a"].sum()
    spread -= (both["wins_b"] - share_b * both["seats_b"]) / both["seats_b"].sum()
    frame = pd.DataFrame(
        {
            "value": share_a - share_b + deals * spread.to_numpy(float),
            "one": 1.0,
            "all": 0,
            "deal": range(deals),
            "stratum": both["stratum_a"].astype(str) + "/" + both["stratum_b"].astype(str),
        }
    )
    found = stats.clustered_mean(frame, "value", "one", "all", "deal", stratum="stratum").iloc[0]
    gap, se, free = found["mean"], found["se"], found["df"]
    low, high = stats.gap_interval(gap, se, deals, stats.quantile(free))
    test = stats.gap_test(gap, se, deals, free)
    found = {"difference": gap, "se": se, "ci_low": low, "ci_high": high, "deals": deals}
    return found | {"p_value": test["p_value"]}


# ---- what a person reads ------------------------------------------------------------------


def listed_agents(made: Plan, n: int) -> list[str]:
    """The agents' specs at ``n`` players in the order listed."""
    names = {c.agent: c.name for c in made.cells if c.n_players == n}
    return sorted(names, key=lambda spec: made.agents.index(names[spec]))


def listed_fields(made: Plan, n: int) -> list[str]:
    """The fields at ``n`` players in the order listed."""
    present = {c.field for c in made.cells if c.n_players == n}
    return [f for f in made.fields if f in present]


def display(made: Plan, found: pd.DataFrame, n: int) -> pd.DataFrame:
    """One player count's table as text, agents (rows) by fields (columns) in the order
    listed: each agent's win share with its interval; against its own copies the turn-order
    gap. Cells on fewer than ``stats.FEW_DEALS`` deals are marked with a dagger."""
    part = found.xs(n, level="n_players")
    agents, fields = listed_agents(made, n), listed_fields(made, n)
    shown = SELF in fields
    text = {f: [_cell_text(part.loc[(a, f)], shown) for a in agents] for f in fields}
    return pd.DataFrame(text, index=pd.Index(agents, name="agent"))


def display_pairs(made: Plan, pairs: pd.DataFrame, n: int) -> pd.DataFrame:
    """One player count's paired comparisons as text, one row per two agents (in the order
    listed: the first's win share less the second's), one column per field they were
    compared in; "shown" where Holm's correction over the run keeps the edge."""
    part = pairs.xs(n, level="n_players")
    fields = [f for f in listed_fields(made, n) if f in part.index.get_level_values("field")]
    agents = listed_agents(made, n)
    labels, text = [], {field: [] for field in fields}
    for first, second in combinations(agents, 2):
        labels.append(f"{first} - {second}")
        for field in fields:
            key = (field, first, second)
            text[field].append(_pair_text(part.loc[key]) if key in part.index else "")
    return pd.DataFrame(text, index=pd.Index(labels, name="first - second"))


def _pair_text(row) -> str:
    few = " †" if stats.too_few(row["deals"]) else ""
    shown = " shown" if row["shown"] else ""
    interval = _ends(row["ci_low"], row["ci_high"], "+")
    return f"{_round(row['difference']):+.3f} {interval}{shown}{few}"


def pairs_words(pairs: pd.DataFrame) -> str:
    """How to read :func:`display_pairs`, with the number of comparisons corrected for (a
    difference on one deal has no p-value and is not one of them)."""
    tested = int(pairs["p_value"].notna().sum())
    return (
        "Paired differences: the first agent's win share less the second's in each field, on "
        "the deals both played, with its 95% interval by deal; `shown` where the edge holds "
        f"after Holm's correction over the run's {count_of(tested, 'comparison')} (family-wise "
        f"{ALPHA:.0%}, two-sided). A difference not shown is not a tie: it lies in its interval. "
        "A blank: one of the two is the field (its own field)."
    )


def _cell_text(row, self_shown: bool) -> str:
    few = " †" if stats.too_few(row["deals"]) else ""
    if row.get("forfeits", 0) > 0:
        few += f" ({count_of(int(row['forfeits']), 'game')} forfeited)"
    if row["kind"] == "field":
        return f"{row['win_share']:.3f} {_ends(row['ci_low'], row['ci_high'], '')}{few}"
    if row["kind"] == "mirror":
        return f"gap {_round(row['gap']):+.3f} {_ends(row['gap_low'], row['gap_high'], '+')}{few}"
    if row["kind"] == NOT_YET:
        return "no games yet (--resume)"
    if self_shown:
        return "its own field (see self)"
    return "its own field (its copies: the field self, not asked for here)"


def _ends(low: float, high: float, sign: str) -> str:
    """``[low, high]``, or "(no interval)" where one deal leaves no spread to estimate."""
    if math.isnan(low) or math.isnan(high):
        return "(no interval)"
    return f"[{_round(low):{sign}.3f}, {_round(high):{sign}.3f}]"


def _round(value: float) -> float:
    """``value`` at the 3 decimals shown, a negative zero made 0 ("-0.000" reads as below)."""
    return round(value, 3) + 0.0


def field_words(made: Plan, n: int, short: bool = False) -> dict[str, str]:
    """What fills the other seats in each field at ``n`` players, in words (``short``: for a
    plot's title)."""
    pools = {c.field: c.pool for c in made.cells if c.n_players == n}
    return {name: _pool_words(pools[name], n, short) for name in listed_fields(made, n)}


def _pool_words(pool: tuple[str, ...], n: int, short: bool) -> str:
    if not pool:
        return "own copies" if short else "the agent's own copies in every seat (a mirror)"
    if len(pool) == 1:
        return f"{n - 1} x {pool[0]}"
    members = ", ".join(pool)
    if short:
        return f"{members} in equal shares of the seats"
    return f"{members} in equal shares of the other seats, every seat order played"


def deal_range(found: pd.DataFrame, n: int) -> str:
    """Deals per cell at ``n`` players: one number, or the range."""
    played = found.xs(n, level="n_players")["deals"]
    played = played[played > 0]
    if played.empty:
        return "0"
    low, high = int(played.min()), int(played.max())
    return f"{low:,}" if low == high else f"{low:,}-{high:,}"


def deals_text(found: pd.DataFrame, n: int) -> str:
    """Deals per cell at ``n`` players with the noun: "1 deal", "400 deals", "398-400 deals"."""
    count = deal_range(found, n)
    return f"{count} deal" if count == "1" else f"{count} deals"


def _counts(made: Plan, found: pd.DataFrame) -> list[int]:
    """The player counts with cells in the table."""
    present = set(found.index.get_level_values("n_players"))
    return [n for n in made.players if n in present]


def markdown(
    made: Plan,
    found: pd.DataFrame,
    command: str,
    when: str,
    images=None,
    unfinished="",
    sections=None,
    pairs=None,
) -> str:
    """The gauntlet as markdown: the warning of an incomplete folder (``unfinished``), the
    command and date, how to read it, then per player count the fields in words, the table
    and its plot (``images``: file name per player count) and paired comparisons (``pairs``,
    :func:`comparisons`), then ``sections`` (a heading to
    its markdown text: the forfeits of isolated agents and why)."""
    name = load_game(made.game).title
    lines = [f"# Gauntlet: {name}", "", *([f"**{unfinished}**", ""] if unfinished else [])]
    lines += [f"Written by `{command}` on {when}." if command else f"Written on {when}.", ""]
    lines += _reading(made)
    for n in _counts(made, found):
        lines += [f"## {name}, {n} players", ""]
        lines += [f"- `{field}`: {words}" for field, words in field_words(made, n).items()]
        lines += ["", f"Deals per cell: {deal_range(found, n)}.", ""]
        lines += [display(made, found, n).to_markdown(), ""]
        if pairs is not None and n in pairs.index.get_level_values("n_players"):
            lines += [pairs_words(pairs), "", display_pairs(made, pairs, n).to_markdown(), ""]
        if images and n in images:
            lines += [f"![{name}, {n} players]({images[n]})", ""]
    for heading, text in (sections or {}).items():
        lines += [f"## {heading}", "", text, ""]
    if made.notes:
        lines += ["Left out:", "", *[f"- {note}" for note in made.notes], ""]
    return "\n".join(lines)


def _reading(made: Plan) -> list[str]:
    return [
        "Each cell: the agent's win share (ties split) against the field of its column, the",
        "agent in every seat on duplicate deals, with its 95% interval with the deal as unit,",
        "stratified by seating group (`experiments.gauntlet`); the fair share is 1/players.",
        "Against its own copies (`self`) an agent's share is the fair share by construction,",
        "so that column gives the turn-order gap among the copies instead (the last position's",
        "win share minus the first's, with its interval); a field of the agent alone is that",
        f"mirror and is not played again. † marks a cell on fewer than {stats.FEW_DEALS} deals.",
        f"Seed {made.seed}: every cell's deals start at game 0, so the cells share deals.",
        *([made.caveat] if made.caveat else []),
        "",
    ]


def _seed_caveat(seed: int) -> str:
    """A line for a seed whose results were looked at before (``ladder.USED``): a claim made
    on its deals is exploratory. Empty for a fresh seed."""
    from experiments.ladder import USED

    if seed not in USED:
        return ""
    return f"Results on seed {seed} were looked at before ({USED[seed]}): read as exploratory."


def title(made: Plan, found: pd.DataFrame, n: int) -> str:
    """A plot's title: the game, the player count, the fields, the deals per cell and the
    games played at that count (and those planned, where the run is unfinished)."""
    fields = "; ".join(f"{k}: {v}" for k, v in field_words(made, n, short=True).items())
    part = found.xs(n, level="n_players")
    games = int(part["games"].sum())
    planned = sum(made.jobs[j].n_games for c in made.cells if c.n_players == n for j in c.jobs)
    unfinished = f" of {planned:,} planned: unfinished" if games < planned else ""
    what = (
        "win share of each agent in each field"
        if part["kind"].eq("field").any()
        else ("turn-order gap of each agent among its own copies")
    )
    return (
        f"{load_game(made.game).title}, {n} players: {what} (95% intervals by deal), "
        f"{deals_text(found, n)} per cell, {games:,} games{unfinished}\nfields: {fields}"
    )


def chart_data(made: Plan, found: pd.DataFrame, n: int) -> pd.DataFrame:
    """One player count's rows for ``plots.gauntlet_chart``, agents and fields as ordered
    categoricals in the order listed."""
    part = found.xs(n, level="n_players").reset_index()
    part["agent"] = pd.Categorical(part["agent"], listed_agents(made, n), ordered=True)
    part["field"] = pd.Categorical(part["field"], listed_fields(made, n), ordered=True)
    return part.sort_values(["field", "agent"]).reset_index(drop=True)


def image_name(made: Plan, n: int) -> str:
    """The file name of a player count's plot."""
    return f"gauntlet-{made.game}-{n}p.png"


def check_files(made: Plan, folder, force: bool = False) -> None:
    """The gauntlet's markdown and plots may be written into ``folder``: each is new or the
    file giftsim last wrote there (``giftsim.files.check_own``), or ``force``."""
    for name in ["gauntlet.md", *(image_name(made, n) for n in made.players)]:
        files.check_own(Path(folder) / name, force)


def report(
    made: Plan,
    found: pd.DataFrame,
    folder,
    command: str,
    when=None,
    unfinished="",
    force=False,
    sections=None,
    pairs=None,
) -> list[Path]:
    """Write ``gauntlet.md`` (opening with ``unfinished``, the warning of an incomplete folder,
    if any; with ``sections``, :func:`markdown`'s; with the paired comparisons ``pairs``, by
    default :func:`comparisons` of the folder's games) and one PNG per player count
    (:func:`image_name`) into ``folder`` (a results folder: nothing outside it), each through
    ``giftsim.files.write_own``; returns the files written."""
    from experiments import plots  # matplotlib only when drawing

    folder = Path(folder)
    images = {n: image_name(made, n) for n in _counts(made, found)}
    for n, name in images.items():
        figure = plots.gauntlet_chart(chart_data(made, found, n), title(made, found, n))
        plots.save_png(figure, folder / name, force)
        plots.plt.close(figure)
    when = when or date.today().isoformat()
    pairs = comparisons(made, folder) if pairs is None else pairs
    text = markdown(made, found, command, when, images, unfinished, sections, pairs)
    files.write_own(folder / "gauntlet.md", lambda path: path.write_text(text + "\n"), force)
    return [folder / "gauntlet.md", *(folder / name for name in images.values())]


# The terminal's word on a cell (gauntlet.md says it in its opening paragraph) and on the self
# column.
CELL = (
    "  cell: the agent's win share (ties split) against the field of its column, the agent in "
    "every seat, with its 95% interval by deal; fair share {fair}"
)
SELF_CELL = ": the cell is the turn-order gap, the last position's win share minus the first's"


def print_tables(made: Plan, found: pd.DataFrame, pairs=None) -> None:
    """Each player count's table to the terminal, with the fields in words, and its paired
    comparisons (``pairs``, :func:`comparisons`) if given."""
    title = load_game(made.game).title
    for n in _counts(made, found):
        print(f"\n== {title}, {n} players ({deals_text(found, n)} per cell)")
        print(CELL.format(fair=f"1/{n} = {1 / n:.3f}"))
        for name, words in field_words(made, n).items():
            print(f"  {name}: {words}{SELF_CELL * (name == SELF)}")
        print(display(made, found, n).to_string())
        if pairs is not None and n in pairs.index.get_level_values("n_players"):
            print(f"\n{pairs_words(pairs)}")
            print(display_pairs(made, pairs, n).to_string())
    if found["deals"].between(1, stats.FEW_DEALS - 1).any():
        print(f"† fewer than {stats.FEW_DEALS} deals: the interval's coverage is not assured")
    if made.caveat:
        print(made.caveat)

"""What a report needs of a results folder, read one chunk at a time.

A folder of per-game rows can hold millions of games; no table or figure of ``giftsim report``
needs them all at once. Each chunk becomes sums that add up over chunks, and every table and
figure follows from the sums:

| field  | summed per                            | gives                                      |
|--------|---------------------------------------|--------------------------------------------|
| sums   | job, seat, turn position              | turn-order advantage and test, seat plots  |
| deals  | deal, agent                           | win share and mean score (deal as unit)    |
| pairs  | deal, agent, opponent                 | head to head (``stats.deal_pairwise_table``) |
| events | deal, finishing-order pattern         | ratings (``ratings.deal_ratings``)         |
| scores | player count, agent, position, score  | score box plots (``plots.score_boxes_of``) |
| rounds | (matches of several rounds) rows      | the per-round tables                       |

Chunks are read in batches of consecutive ones of up to ``BATCH_GAMES`` games, summed as one
(a round-robin writes a chunk per seating: thousands of a few games each, whose per-chunk
costs took minutes where the games took seconds). Memory grows with the deals (and the
distinct scores), not with the games: every ``COLLAPSE`` batches the parts read so far are
summed into one. A folder kept as summaries only
(``--summary-only``) has ``sums`` alone. The same sums of one frame in memory
(``of_frame``) give the same tables, so there is one code path.
"""

import ctypes
import os
from itertools import pairwise
from pathlib import Path
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np
import pandas as pd
from joblib import Parallel, cpu_count, delayed
from tqdm import tqdm

from experiments import manifest as manifest_io
from experiments import ratings, stats
from experiments.results import (
    add_deal_sums,
    chunk_plan,
    deal_sums,
    long_table,
    manifest_jobs,
    read_chunks,
    round_table,
    strata_column,
    summaries,
    summary_of,
)
from experiments.schedule import design_strata, rows_per_deal, score_ranges

BATCH_GAMES = 50_000  # chunks read and summed together, up to this many games in all
COLLAPSE = 8  # batches read between two summings of the parts
FIELDS = ("sums", "deals", "pairs", "events", "scores", "rounds")  # every field of a Digest
BY_DEAL = ("deals", "pairs")  # fields that grow with the deals, their sums sorted by deal first
DEAL_BITS = 4  # those fields are held in 2**DEAL_BITS shares by the top bits of the deal
HELD_ROWS = 100_000  # a share is summed once it holds this many rows not yet summed
AGENT_COLUMNS = ("agent", "opponent", "chosen")  # columns of the sums that name agents
GAME_CODE = 1 << 40  # rows without deal seeds: game (job, index) -> job * GAME_CODE + index


class Digest(NamedTuple):
    """A results folder's sums (see the module table); None where the folder has no rows."""

    game: str
    mixed: bool  # some table seats two different agents (else a mirror study)
    sums: pd.DataFrame
    deals: pd.DataFrame | None = None
    pairs: pd.DataFrame | None = None
    events: pd.DataFrame | None = None
    scores: pd.DataFrame | None = None
    rounds: pd.DataFrame | None = None
    score_range: dict | None = None  # per player count, a seat's score range (match)
    round_range: dict | None = None  # the same of one round


def score_counts(long: pd.DataFrame) -> pd.DataFrame:
    """How often each score occurred, per (n_players, agent, position, score): ``count``.
    Scores are whole numbers, so these counts hold a distribution in little memory and add up
    over chunks of games (``add_score_counts``). The scores are float64 whatever the rows
    held (chunks of several player counts read together have float columns: the seats a
    smaller table lacks), so the sums do not depend on which chunks were read together."""
    keys = ["n_players", "agent", "position", "score"]
    if "position" not in long.columns:
        long = long.assign(position=stats.turn_position(long))
    counts = long.groupby(keys, observed=True, sort=True).size().rename("count").reset_index()
    return counts.astype({"score": np.float64})


def add_score_counts(parts) -> pd.DataFrame:
    frame = pd.concat(parts, ignore_index=True)
    keys = ["n_players", "agent", "position", "score"]
    return frame.groupby(keys, as_index=False, sort=True, observed=True)["count"].sum()


ADD = {  # field -> how its parts add up
    "sums": lambda parts: summary_of(pd.concat(parts, ignore_index=True), True),
    "deals": add_deal_sums,
    "pairs": stats.add_pair_sums,
    "events": ratings.add_rating_events,
    "scores": add_score_counts,
    "rounds": lambda parts: pd.concat(parts, ignore_index=True),
}


def of_folder(
    folder, progress: bool = False, workers: int | None = 1, fields=FIELDS, label="report"
) -> Digest:
    """The digest of a results folder, its chunks read a batch at a time (a progress bar on
    stderr with ``progress``, its text starting with ``label``) by ``workers`` processes
    (None: one per core; 1: this one); ``fields``: the sums wanted (all by default; the
    others None). The batches are fixed by the files and summed in their order whatever the
    workers, so the sums never depend on them. The workers get absolute paths: a reused
    worker keeps the working folder it started in."""
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise ValueError(f"no such sums: {sorted(unknown)}; choose from {', '.join(FIELDS)}")
    folder = Path(folder).resolve()
    manifest = manifest_io.read(folder)
    files = manifest_io.chunk_files(folder, manifest)
    if not files:
        raise ValueError(f"{folder} holds no results yet")
    jobs, game, only = manifest_jobs(manifest), manifest["game"], manifest["summary_only"]
    run = _Run(jobs, game, only, *_agents(jobs), design_strata(jobs), tuple(fields))
    batches = _batches(files, manifest)
    count = min(workers or cpu_count(), len(batches))  # one batch: no processes
    if count == 1:
        parts = (_batch_parts(batch, run, [manifest] * len(batch)) for batch in batches)
    else:
        tasks = (
            delayed(_batch_parts)(batch, run, [chunk_plan(manifest, path) for path in batch])
            for batch in batches
        )
        parts = Parallel(n_jobs=count, return_as="generator")(tasks)
    text = f"{label}: reading results"
    with tqdm(total=len(files), desc=text, unit="chunk", disable=not progress) as bar:
        summed = _with_deal_rows(_summed(_counted(parts, batches, bar), run), jobs)
    release_memory()
    return summed


def _batches(files: list[Path], manifest: dict) -> list[list[Path]]:
    """The chunk files in runs of consecutive ones of at most ``BATCH_GAMES`` games in all
    (a larger chunk alone), by the games their manifest plans for them, and of jobs with the
    same columns (:func:`_columns`): the sums of a run never depend on how it was cut."""
    size, jobs = manifest["chunk_size"], manifest["jobs"]
    batches, games, columns = [], 0, None
    for path in files:
        job, start = manifest_io.chunk_place(path.name)
        count = min(size, jobs[job]["n_games"] - start)
        if batches and games + count <= BATCH_GAMES and _columns(jobs[job]) == columns:
            batches[-1].append(path)
            games += count
        else:
            batches.append([path])
            games, columns = count, _columns(jobs[job])
    return batches


def _columns(job: dict) -> tuple[bool, bool]:
    """Whether a job's rows have forfeit codes (isolated agents) and luck corrections: a
    chunk without them read with one that has them would give its rows NaN there."""
    return bool(job.get("isolation")), bool(job.get("luck"))


def _counted(parts, batches: list[list[Path]], bar):
    """``parts`` as they come, the bar moved by each one's chunks."""
    for batch, part in zip(batches, parts, strict=True):
        bar.update(len(batch))
        yield part


def release_memory() -> None:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``). pandas frees
    many blocks of a few megabytes, which glibc keeps in the heap rather than unmapping, and
    the next table's temporaries stack on them: trimming between a report's phases lowers its
    peak (the demo's No Thanks! seat study: 0.83-0.86 GB of private memory to 0.77-0.79). A
    no-op where the C library has no ``malloc_trim``."""
    trim = getattr(_LIBC, "malloc_trim", None)
    if trim is not None:
        trim(0)


def _libc():
    """The C library this process already runs on (POSIX), or None."""
    if os.name != "posix":
        return None
    try:
        return ctypes.CDLL(None)
    except OSError:
        return None


_LIBC = _libc()


def of_frame(frame: pd.DataFrame, summary_only: bool, game: str, jobs=None, rows=50_000):
    """The digest of rows (or summaries) in memory, ``rows`` at a time as if they were chunks
    of a folder. ``jobs``: the run's jobs (``schedule.Job``), for the strata of its deals and
    the bounds of summaries; without them the jobs are read off the rows, each its own
    stratum."""
    known = jobs is not None
    jobs = jobs if known else ([] if summary_only else _row_jobs(frame))
    own = {j.job: _own_stratum(j.job) for j in jobs if j is not None}
    strata = design_strata(jobs) if known else own
    run = _Run(jobs, game, summary_only, *_agents(jobs), strata)
    pieces = (frame.iloc[start : start + rows] for start in range(0, max(len(frame), 1), rows))
    summed = _summed((_parts(piece, run) for piece in pieces), run)
    return _with_deal_rows(summed, jobs) if known else summed


class _Run(NamedTuple):
    """What reading a run's chunks needs to know of it."""

    jobs: list
    game: str
    summary_only: bool
    names: list[str]  # every agent, sorted
    mixed: bool
    strata: dict  # schedule.design_strata of the jobs
    fields: tuple = FIELDS  # the sums wanted


def _own_stratum(job: int):
    """A job's ``design_strata`` entry when it is its own stratum: from game index 0 on."""
    return (np.zeros(1, np.int64), np.array([job], np.int64))


def _with_deal_rows(summed: Digest, jobs) -> Digest:
    """The sums with ``deal_rows`` (``schedule.rows_per_deal``), which bound the intervals of
    tables from summaries, and the score ranges of the jobs' rules, which bound those of mean
    scores."""
    sums = summed.sums.merge(rows_per_deal(jobs), on=["job", "seat"], how="left")
    ranges = score_ranges(jobs), score_ranges(jobs, per_round=True)
    return summed._replace(sums=sums, score_range=ranges[0], round_range=ranges[1])


def _agents(jobs) -> tuple[list[str], bool]:
    """Every agent of the jobs, sorted, and whether some table seats two different ones."""
    seated = [job for job in jobs if job is not None]
    names = sorted({agent for job in seated for agent in job.agents})
    return names, any(len(set(job.agents)) > 1 for job in seated)


def _row_jobs(frame: pd.DataFrame) -> list:
    """Per job of per-game rows, what ``results.summary`` needs: number, agents, players."""
    seats = sorted(int(c.split("_")[1]) for c in frame.columns if c.startswith("agent_"))
    jobs = {}
    for job, rows in frame.groupby("job", sort=True):
        first = rows.iloc[0]
        agents = tuple(str(first[f"agent_{s}"]) for s in seats if pd.notna(first[f"agent_{s}"]))
        jobs[int(job)] = SimpleNamespace(job=int(job), agents=agents, n_players=len(agents))
    return [jobs.get(j) for j in range(max(jobs) + 1)]


def _summed(parts, run: _Run) -> Digest:
    """The ``Digest`` of per-chunk parts, summed every ``COLLAPSE`` chunks and at the end.
    Fields that grow with the deals (``BY_DEAL``) are held in ``2**DEAL_BITS`` shares by the
    top bits of the deal, a share summed on its own once it holds ``HELD_ROWS`` rows not yet
    summed: a summing then needs memory for one share, not for every deal read so far. Their
    sums are sorted by deal first, so the shares joined in order are the sums of the whole."""
    held: dict[str, list[list]] = {}  # field -> its shares -> its sum so far and new parts
    for number, chunk in enumerate(parts, 1):
        for field, part in chunk.items():
            if field in BY_DEAL:
                _hold_shares(held.setdefault(field, _no_shares()), _shares(part), ADD[field])
            else:
                held.setdefault(field, [[]])[0].append(part)
        if number % COLLAPSE == 0:
            for field, shares in held.items():
                if field not in BY_DEAL:
                    _collapse(shares, ADD[field])
    summed = {}
    for field, shares in held.items():
        _collapse(shares, ADD[field])
        whole = pd.concat([share[0] for share in shares], ignore_index=True)
        shares.clear()
        summed[field] = _named(whole)
        del whole
    mixed = _mixed_sums(summed["sums"]) if run.summary_only else run.mixed
    return Digest(run.game, mixed, **summed)


def _no_shares() -> list[list]:
    return [[] for _ in range(2**DEAL_BITS)]


def _hold_shares(shares: list[list], pieces: list[pd.DataFrame], add) -> None:
    """Add a chunk's ``pieces`` to their ``shares``; sum a share that holds ``HELD_ROWS`` new
    rows."""
    for share, piece in zip(shares, pieces, strict=True):
        if share and piece.empty:
            continue
        share.append(piece)
        if sum(len(p) for p in share[1:]) >= HELD_ROWS:
            share[:] = [add(share)]


def _collapse(shares: list[list], add) -> None:
    """Sum each share's parts into one, a share at a time (its parts are let go as it is)."""
    for i, share in enumerate(shares):
        shares[i] = [add(share)]


def _shares(part: pd.DataFrame) -> list[pd.DataFrame]:
    """``part``'s rows in ``2**DEAL_BITS`` shares by the top bits of their deal."""
    top = (part["deal"].to_numpy(np.uint64) >> np.uint64(64 - DEAL_BITS)).astype(np.int64)
    order = np.argsort(top, kind="stable")
    bounds = np.searchsorted(top[order], np.arange(2**DEAL_BITS + 1))
    return [part.take(order[a:b]) for a, b in pairwise(bounds)]  # frames of their own: a
    # slice would keep the whole chunk alive while any share holds it


def _mixed_sums(sums: pd.DataFrame) -> bool:
    return bool((sums.groupby("job").agent.nunique() > 1).any())


def _batch_parts(paths: list[Path], run: _Run, plans: list[dict]) -> dict:
    """``_parts`` of chunk files read as one (in a worker process, ``plans`` are their
    ``chunk_plan``; in this one, the manifest)."""
    return _parts(read_chunks(paths, plans), run)


def _parts(chunk, run: _Run) -> dict:
    """The sums of a chunk (or of chunks read as one) per field of ``run.fields`` (``sums``
    always)."""
    if run.summary_only:
        return {"sums": chunk}
    if "deal_seed" not in chunk.columns:  # rows of batch.play: every game its own deal
        code = chunk["job"].to_numpy(np.uint64) * GAME_CODE + chunk["game_index"].to_numpy()
        chunk = chunk.assign(deal_seed=code.astype(np.uint64))
    wanted = set(run.fields)
    parts = {"sums": summaries(chunk, run.jobs)}
    if "deals" in wanted:
        parts["deals"] = deal_sums(chunk, run.strata)
    if wanted & {"scores", "pairs", "events"}:
        long = long_table(chunk, run.game)
        long["stratum"] = strata_column(long, run.strata)
        if "scores" in wanted:
            parts["scores"] = score_counts(long)
        if run.mixed and "pairs" in wanted:
            parts["pairs"] = stats.pair_sums(long)
        if run.mixed and "events" in wanted:
            parts["events"] = ratings.rating_events(long, names=run.names)
    rounds = round_table(chunk, run.game) if "rounds" in wanted else pd.DataFrame()
    if not rounds.empty:
        parts["rounds"] = rounds
    return {field: _coded(part, run.names) for field, part in parts.items()}


def _named(part: pd.DataFrame) -> pd.DataFrame:
    """``part`` with its agent columns as text again (tables index by name, not category)."""
    columns = [c for c in AGENT_COLUMNS if c in part.columns]
    return part.assign(**{c: _text(part[c]) for c in columns})


def _text(values: pd.Series) -> pd.Series:
    """``values.astype(str)``; categories without a missing value as their names taken by
    code (``astype`` first makes an object per row: 0.3 GB for a demo's seat study)."""
    if not isinstance(values.dtype, pd.CategoricalDtype) or (values.cat.codes < 0).any():
        return values.astype(str)
    names = pd.array(np.asarray(values.cat.categories, dtype=object).astype(str), dtype="str")
    return pd.Series(names.take(values.cat.codes.to_numpy()), index=values.index)


def _coded(part: pd.DataFrame, names) -> pd.DataFrame:
    """``part`` with its agent columns as categories of ``names`` (one byte a row instead of a
    string, and no string objects to fragment memory)."""
    coded = {}
    for column in (c for c in AGENT_COLUMNS if c in part.columns):
        values = part[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            coded[column] = values.cat.set_categories(names)
        else:
            coded[column] = pd.Categorical(values.to_numpy(), categories=names)
    return part.assign(**coded)

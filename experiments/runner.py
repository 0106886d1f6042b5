"""One runner for every backend: serial, local processes (joblib/loky) or a Dask cluster.

Jobs are cut into chunks of game indices; a chunk is a pure function of its job and indices,
so the results are the same game for game whatever the backend, the number of workers or the
chunk size. With an output folder each worker writes its chunk as a parquet file, atomically
(a temporary name, then a rename), so a run killed at any moment (even ``kill -9``) resumes with
``resume=True`` without losing or duplicating a game. ``summary_only`` keeps per-chunk
aggregates instead of per-game rows, so memory and disk do not grow with the number of games.
"""

import contextlib
import ctypes
import json
import logging
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from joblib import Parallel, delayed, parallel_config
from tqdm import tqdm

from agents.drivers.block import announce, announce_loop
from agents.drivers.generate import driver
from agents.isolation.host import end_idle
from agents.registry import parse, parse_list
from experiments import manifest as manifest_io
from experiments.batch import frame_columns
from experiments.games import play_block, play_block_isolated
from experiments.isolation import FAULTS_KEY, fault_records, forfeit_columns, merged_faults
from experiments.luck import luck_rows
from experiments.results import frame_of_tables, summary
from experiments.schedule import Job
from giftsim.checks import is_whole
from giftsim.game import load_game
from giftsim.rng import game_keys

BACKENDS = ("serial", "processes", "dask")
MAX_CHUNKS = 1_000_000  # chunks (tasks, files) in a run: each is held in memory while planning
MAX_CHUNK_SIZE = 2_000_000  # games per chunk: its rows (a few hundred bytes a game) are in memory
TASK_CHUNKS = 64  # chunks in one task of a worker, at most (runner.batches)
TASK_GAMES = 10_000  # games in one task of several chunks, at most (a larger chunk goes alone)
TASKS_PER_WORKER = 8  # tasks a worker, at least, where there are chunks enough


@dataclass(frozen=True)
class Chunk:
    """Games ``start .. start + size - 1`` of a job, with its agents parsed once, here: user
    agents travel to worker processes with the chunk (pickled by definition), so a worker
    need not have imported the code that defined them."""

    job: Job
    start: int  # offset in the job's games
    size: int
    agents: tuple = ()

    @property
    def name(self) -> str:
        return manifest_io.chunk_name(self.job.job, self.start)


def chunks_of(jobs: list[Job], chunk_size: int) -> list[Chunk]:
    """The chunks of the jobs, their agents parsed and checked against the jobs' rules (a
    policy table of another variant is refused here, before a folder is written)."""
    if chunk_size < 1:
        raise ValueError(f"--chunk-size must be at least 1, got {chunk_size}")
    largest = max((min(chunk_size, job.n_games) for job in jobs), default=0)
    if largest > MAX_CHUNK_SIZE:
        raise ValueError(
            f"a chunk of {largest:,} games is too large (its rows are held in memory); "
            f"--chunk-size at most {MAX_CHUNK_SIZE:,}"
        )
    count = sum(-(-job.n_games // chunk_size) for job in jobs)
    if count > MAX_CHUNKS:
        games = sum(job.n_games for job in jobs)
        raise ValueError(
            f"{games:,} games in chunks of {chunk_size:,} make {count:,} chunks; at most "
            f"{MAX_CHUNKS:,} in a run (fewer games or a larger --chunk-size)"
        )
    seated = _seated_agents(jobs)
    return [
        Chunk(job, start, min(chunk_size, job.n_games - start), agents)
        for job, agents in zip(jobs, seated, strict=True)
        for start in range(0, job.n_games, chunk_size)
    ]


def _seated_agents(jobs: list[Job]) -> list[tuple]:
    """Each job's agents, parsed once per game and spec and checked once per rules: a
    round-robin seats the same few agents thousands of times."""
    parsed: dict = {}
    checked: set = set()
    seated = []
    for job in jobs:
        agents = []
        for spec in job.agents:
            if (job.game, spec) not in parsed:
                parsed[job.game, spec] = parse(spec, job.game)
            agents.append(parsed[job.game, spec])
        rules = job.make_rules()
        for spec, agent in zip(job.agents, agents, strict=True):
            if (job.game, spec, rules) not in checked:
                agent.check_rules(rules)
                checked.add((job.game, spec, rules))
        seated.append(tuple(agents))
    return seated


def rows(chunk: Chunk) -> pa.Table:
    """Per-game rows of a chunk, as its file holds them (an Arrow table; ``to_pandas()``
    gives the frame): job, game index, deal seed, first player, decisions, and per seat the
    agent, score (and the game's other result blocks) and win share; with isolated agents
    also each seat's forfeit code (``forfeit_s``) and, in the table's metadata
    (``experiments.isolation.FAULTS_KEY``), the chunk's fault records
    (``experiments.isolation.fault_records``); for a job with ``luck``, per seat ``luck_s``,
    the sum of its corrections (``experiments.luck``)."""
    job = chunk.job
    agents = list(chunk.agents) or parse_list(list(job.agents), job.game)
    first = job.first_index + chunk.start
    where = (job.seed, first, chunk.size, job.first_player, job.secret)
    luck, faults = {}, None
    if job.isolation:
        raw, forfeits, explained = play_block_isolated(
            job.game, job.make_rules(), agents, *where, job.isolation
        )
    elif job.luck:
        raw, luck = luck_rows(job.game, job.make_rules(), agents, *where, job.luck)
    else:
        raw = play_block(job.game, job.make_rules(), agents, *where)
    seeds = np.zeros(chunk.size, np.uint64)
    game_keys(np.uint64(job.seed), first, seeds)
    columns = frame_columns(load_game(job.game), raw, agents, first)
    index = columns.pop("game_index")
    columns = {
        "job": np.full(chunk.size, job.job, np.int32),
        "game_index": index,
        "deal_seed": seeds,
    } | columns
    if job.isolation:
        columns |= forfeit_columns(forfeits)
        faults = fault_records(explained, forfeits, agents, job.job, first)
    return _with_faults(_table_of(columns | luck), faults)


def play_chunk(chunk: Chunk, folder: str | None, summary_only: bool, owner: int | None = None):
    """Play a chunk; write it to ``folder`` (atomically) or return it. Returns games played.

    ``owner`` is the pid of the run's process when the chunk runs in a local worker: the
    worker then ends as soon as that process does (killed or not), and never writes a chunk
    for a run that is gone."""
    _follow(owner)
    part = rows(chunk)
    if summary_only:  # a summary chunk keeps its fault records as a chunk of rows does
        part = arrow_table(summary(part.to_pandas(), chunk.job), _faults_of(part))
    if folder is None:
        return chunk.size, part
    path = Path(folder) / chunk.name
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        _write(part, temporary)
    except OSError as error:  # pyarrow's message (a full disk) does not name the file
        temporary.unlink(missing_ok=True)
        reason = error.strerror or str(error).strip().splitlines()[0]
        raise OSError(f"cannot write {path}: {reason}") from None
    if _orphaned(owner):
        temporary.unlink(missing_ok=True)
        os._exit(1)
    os.replace(temporary, path)
    return chunk.size, None


_PR_SET_PDEATHSIG = 1  # Linux prctl option: a signal for this process when its parent dies
_bound_to_parent = False


def _follow(owner: int | None) -> None:
    """In a local worker of ``owner``: exit if it is gone, and have the kernel kill this
    process when it goes (Linux; elsewhere the check before each write remains)."""
    global _bound_to_parent
    if owner is None or owner == os.getpid():
        return
    if not _bound_to_parent:
        _bound_to_parent = True
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if _orphaned(owner):  # it died before the binding above
        os._exit(1)


def _orphaned(owner: int | None) -> bool:
    """True in a worker whose run's process has ended (the worker was handed to another)."""
    return owner is not None and owner != os.getpid() and os.getppid() != owner


def _write(table: pa.Table, path: Path) -> None:
    """Parquet without column statistics and with dictionaries only for the agent names: a
    third of pandas' default write time for these all-numeric rows (the fault records travel
    in the table's metadata)."""
    names = [c for c in table.column_names if c.startswith("agent")]
    pq.write_table(table, path, write_statistics=False, use_dictionary=names or False)


def _with_faults(table: pa.Table, faults) -> pa.Table:
    """``table`` with the fault records ``faults`` in its metadata (None: as it is)."""
    if faults is None:
        return table
    metadata = {**(table.schema.metadata or {}), FAULTS_KEY: json.dumps(faults).encode()}
    return table.replace_schema_metadata(metadata)


def _faults_of(table: pa.Table):
    """The fault records in a table's metadata, or None when it has none."""
    text = (table.schema.metadata or {}).get(FAULTS_KEY)
    return None if text is None else json.loads(text)


def _all_faults(tables: list[pa.Table]):
    """The fault records of all ``tables`` in order, or None when none of them has any."""
    faults = [_faults_of(table) for table in tables]
    if all(f is None for f in faults):
        return None
    return [record for f in faults if f for record in f]


_SCHEMAS: dict = {}  # Arrow schemas (with pandas' metadata) by layout of columns


def arrow_table(frame: pd.DataFrame, faults=None) -> pa.Table:
    """``pa.Table.from_pandas(frame, preserve_index=False)``, the same table (and ``faults``,
    fault records, in its metadata), made as :func:`_table_of` makes it."""
    return _with_faults(
        _table_of({name: frame[name].array for name in frame.columns}, frame), faults
    )


def _table_of(columns: dict, frame: pd.DataFrame | None = None) -> pa.Table:
    """The Arrow table of ``pd.DataFrame(columns)`` (``frame``, if made already) without the
    frame: its schema and pandas metadata made once for each layout of columns (names and
    types). Pandas and Arrow work them out afresh for each frame, and building the frame
    cost as much again: most of a small chunk's time (a round-robin plays thousands)."""
    layout = tuple((name, _kind(column.dtype)) for name, column in columns.items())
    if layout not in _SCHEMAS:
        frame = pd.DataFrame(columns) if frame is None else frame
        _SCHEMAS[layout] = pa.Table.from_pandas(frame, preserve_index=False).schema
    schema = _SCHEMAS[layout]
    try:
        arrays = [_arrow(c, field.type) for c, field in zip(columns.values(), schema, strict=True)]
        return pa.Table.from_arrays(arrays, schema=schema)
    except (pa.ArrowException, TypeError, ValueError):  # a column Arrow types otherwise
        frame = pd.DataFrame(columns) if frame is None else frame
        return pa.Table.from_pandas(frame, preserve_index=False)


def _kind(dtype) -> tuple:
    """What of a column's type its Arrow type and pandas metadata depend on."""
    if isinstance(dtype, np.dtype):  # the common case first, and the quickest to tell
        return (dtype,)
    if isinstance(dtype, pd.CategoricalDtype):  # not the names: they are the data
        return ("category", len(dtype.categories), dtype.ordered, str(dtype.categories.dtype))
    return (str(dtype),)


def _arrow(column, kind: pa.DataType) -> pa.Array:
    if isinstance(column, np.ndarray):
        return pa.array(column, kind)
    if isinstance(column, pd.Categorical):
        values = pa.array(np.asarray(column.categories, dtype=object), kind.value_type)
        return pa.DictionaryArray.from_arrays(pa.array(column.codes, kind.index_type), values)
    return pa.array(np.asarray(column), kind)


def warm_up(chunks: list[Chunk], owner: int | None = None) -> None:
    """Compile (or load from the Numba cache) every loop and agent the chunks need, by playing
    one game of each set of agents (``owner``: as for :func:`play_chunk`)."""
    _follow(owner)
    for chunk in _first_of_each_seating(chunks):
        rows(Chunk(chunk.job, 0, 1, chunk.agents))


def _first_of_each_seating(chunks: list[Chunk]) -> list[Chunk]:
    """A chunk of each game and set of agents: the compiled loop takes agents in any order
    (no recompilation for any pairing), so a round-robin's arrangements of one set warm up
    once, not once each (a 7-player round-robin of 4 agents has 16,380)."""
    return list({(c.job.game, frozenset(c.job.agents)): c for c in reversed(chunks)}.values())


def run(
    jobs: list[Job],
    out=None,
    backend="processes",
    workers=None,
    chunk_size=50_000,
    resume=False,
    summary_only=False,
    scheduler=None,
    progress=True,
    meta=None,
    intro="",
):
    """Play every job. With ``out`` (a folder) chunks are written there and a manifest ties the
    folder to this experiment; without, the rows (or summaries) are returned as a DataFrame,
    with isolated agents their merged fault records in ``attrs["faults"]``
    (``experiments.isolation``).
    ``intro``: a line printed once every option is checked, as play begins (a command's plan
    of seatings: above an error it would read as a run that began).
    Returns ``(frame or None, seconds, games played now)``."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r} (valid: {', '.join(BACKENDS)})")
    if backend == "dask" and scheduler is None:
        raise ValueError("the dask backend needs --scheduler tcp://HOST:PORT")
    if workers is not None and not (is_whole(workers) and workers >= 1):
        raise ValueError(f"workers must be a whole number >= 1, got {workers!r}")
    if not jobs:
        raise ValueError("the design has no seatings to play")
    todo = chunks_of(jobs, chunk_size)  # checks every agent against its rules
    folder = None if out is None else Path(out).resolve()  # absolute: a worker process
    # (reused from an earlier run) may not share our cwd
    held = (
        contextlib.nullcontext()
        if folder is None
        else manifest_io.prepared(folder, jobs, chunk_size, summary_only, resume, meta)
    )
    with held:
        todo = _to_play(todo, folder)
        if intro:
            print(intro, flush=True)
        start_workers(todo, backend, workers)
        start = time.perf_counter()
        try:
            where = None if folder is None else str(folder)
            parts, played = _dispatch(
                todo, where, summary_only, backend, workers, scheduler, progress
            )
        finally:
            end_idle()  # isolated agents' templates kept by this process (agents.isolation.host)
    seconds = time.perf_counter() - start
    if folder is not None:
        return None, seconds, played
    return _merged(parts), seconds, played


def _to_play(todo: list[Chunk], folder: Path | None) -> list[Chunk]:
    """The chunks ``todo`` less those already in ``folder``."""
    if folder is None:
        return todo
    done = {p.name for p in manifest_io.chunk_files(folder, manifest_io.read(folder))}
    return [c for c in todo if c.name not in done]


def _merged(parts: list[pa.Table]) -> pd.DataFrame:
    """The chunks' rows (or summaries) in order, as ``pd.concat`` of each one's frame would
    give them (``experiments.results.frame_of_tables``), with isolated agents' merged fault
    records."""
    faults = _all_faults(parts)
    frame = _ordered(frame_of_tables(parts) if parts else pd.DataFrame())
    if faults is not None:
        frame.attrs["faults"] = merged_faults(faults)
    return frame


def _ordered(frame: pd.DataFrame) -> pd.DataFrame:
    keys = ["job", "game_index"] if "game_index" in frame else ["job", "seat"]
    return frame.sort_values(keys, kind="stable").reset_index(drop=True) if len(frame) else frame


def _dispatch(todo, folder, summary_only, backend, workers, scheduler, progress):
    """Play the chunks ``todo``: ``(parts, games played)``, the rows (or summaries) of the
    chunks kept in memory in the chunks' order, however the workers finish."""
    total = sum(c.size for c in todo)
    parts, played = [], 0
    bar = tqdm(total=total, unit="game", unit_scale=True, disable=not progress, smoothing=0.1)
    with bar:
        for at, size, part in _results(todo, folder, summary_only, backend, workers, scheduler):
            played += size
            bar.update(size)
            if part is not None:
                parts.append((at, part))
    return [part for _, part in sorted(parts, key=lambda item: item[0])], played


def _results(todo, folder, summary_only, backend, workers, scheduler):
    """``(place, games, rows or None)``: each chunk's place in ``todo`` (or that of the first
    of a task's chunks sent as one table) and its results, in the order they finish."""
    if backend == "serial":
        for at, chunk in enumerate(todo):
            yield at, *play_chunk(chunk, folder, summary_only)
        return
    owner = os.getpid() if backend == "processes" else None  # local workers follow this one
    tasks, at = [], 0
    for batch in batches(todo, workers or os.cpu_count() or 1):
        tasks.append(delayed(play_chunks)(batch, folder, summary_only, owner, at))
        at += len(batch)
    if backend == "processes":
        done = Parallel(n_jobs=workers or -1, return_as="generator_unordered")(tasks)
    else:
        done = _on_dask(tasks, scheduler, workers)
    for results in done:
        yield from results


def batches(chunks: list[Chunk], workers: int) -> list[list[Chunk]]:
    """The chunks cut into tasks of consecutive chunks: at most ``TASK_CHUNKS`` chunks and
    ``TASK_GAMES`` games each (a larger chunk alone), and ``TASKS_PER_WORKER`` tasks a worker
    or more, so that the workers stay busy to the end. A task of its own for each of a
    round-robin's small chunks cost more to send and collect than the chunk cost to play."""
    per = max(1, min(TASK_CHUNKS, len(chunks) // (TASKS_PER_WORKER * workers)))
    tasks, task, games = [], [], 0
    for chunk in chunks:
        if task and (len(task) == per or games + chunk.size > TASK_GAMES):
            tasks.append(task)
            task, games = [], 0
        task.append(chunk)
        games += chunk.size
    return [*tasks, task] if task else tasks


def play_chunks(chunks: list[Chunk], folder, summary_only: bool, owner=None, at: int = 0):
    """One task of a worker: :func:`play_chunk` of each chunk, in order, each result as
    ``(place, games, rows or None)`` with ``at`` the first chunk's place in the run. Rows kept
    in memory come back as one table (each table carries its columns' pandas metadata, about
    12 kB, as long to send as a small chunk to play)."""
    done = [play_chunk(chunk, folder, summary_only, owner) for chunk in chunks]
    if folder is None and len(done) > 1:
        try:
            return [(at, sum(size for size, _ in done), _joined([part for _, part in done]))]
        except pa.ArrowException:  # chunks of other columns or types: sent one by one
            pass
    return [(at + k, size, part) for k, (size, part) in enumerate(done)]


def _joined(parts: list[pa.Table]) -> pa.Table:
    """Tables of chunks as one, with all their fault records (if any has them), each column
    in one piece: a table of many pieces took 50 times as long to send."""
    joined = pa.concat_tables(parts).combine_chunks()
    metadata = {k: v for k, v in (joined.schema.metadata or {}).items() if k != FAULTS_KEY}
    return _with_faults(joined.replace_schema_metadata(metadata), _all_faults(parts))


def start_workers(chunks: list[Chunk], backend: str, workers) -> None:
    """Compile (or load) every loop the jobs need where the games will run, before the
    clock starts: in this process for the serial backend and for a cluster (whose workers
    then find a filled cache), in each local worker process otherwise, so that no task pays
    for start-up or compilation and this process keeps no compiled code it does not run.
    What is not in the cache yet compiles once, in one worker; the others then load it."""
    firsts = _first_of_each_seating(chunks)
    cold = [_announce(chunk) for chunk in firsts]
    count = (workers or os.cpu_count() or 1) if backend == "processes" else 1
    if count == 1:
        warm_up(chunks)
        return
    owner = os.getpid()
    with Parallel(n_jobs=count) as parallel:
        if any(cold):
            parallel([delayed(warm_up)(firsts, owner)])
        parallel(delayed(warm_up)(firsts, owner) for _ in range(count))


def _announce(chunk: Chunk) -> bool:
    """The first-run line for the loop (and luck estimator) of a chunk's agents; True if any
    of them is not in the cache yet."""
    game, agents = load_game(chunk.job.game), list(chunk.agents)
    cold = announce_loop(game, agents)
    if chunk.job.luck:
        label = f"the {game.title} luck estimator"
        cold |= announce(label, driver(game.name, "luck").play_luck, agents)
    return cold


def _on_dask(tasks, scheduler, workers):
    from distributed import Client

    hushed: dict = {}
    try:
        with Client(scheduler), parallel_config(backend="dask"):
            try:
                yield from Parallel(n_jobs=workers or -1, return_as="generator_unordered")(tasks)
            except BaseException:  # a stop (or an error): the client closes with tasks in flight
                hushed = _hush_dask()
                raise
    finally:
        for logger, level in hushed.items():
            logger.setLevel(level)


def _hush_dask() -> dict:
    """Silence what distributed and tornado log while the client closes with tasks in flight
    (a traceback for each, "Stream is closed", printed before the stop's own line); returns
    each logger's level before, to be set back once the client is closed (a notebook's later
    runs log as before). The stop or the error that ends the run is reported by its caller."""
    hushed = {}
    for name in list(logging.root.manager.loggerDict):  # distributed sets some levels itself
        if name.split(".")[0] in ("distributed", "tornado"):
            logger = logging.getLogger(name)
            hushed[logger] = logger.level
            logger.setLevel(logging.CRITICAL + 1)
    return hushed

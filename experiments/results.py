"""Results folders as tidy tables: per-game rows (wide), their long form, summaries."""

from pathlib import Path

import numpy as np
import pandas as pd

from experiments import manifest as manifest_io

AGAIN = "delete it and run the same command again with --resume, which plays its games again"
THREADED_ROWS = 10_000  # rows from which a chunk file is read on several threads


def read_chunk(path, columns=None, manifest=None) -> pd.DataFrame:
    """One chunk file of a results folder (``columns``: only those); a file that cannot be
    read as one (damaged, cut short, another kind of file) is a one-line ValueError that says
    how to get its games back. With the folder's ``manifest``, also one for a chunk whose
    rows are not the games its name says (:func:`check_chunk`)."""
    from pyarrow import ArrowException

    try:
        read = columns if columns is None or manifest is None else _with_checked(path, columns)
        frame = pd.read_parquet(path, columns=read)
    except (ArrowException, ValueError, OSError) as error:
        raise _unreadable(path, error) from None
    if manifest is not None:
        check_chunk(Path(path), frame, manifest)
    return frame if columns is None else frame[columns]


def read_chunks(paths, manifests) -> pd.DataFrame:
    """Chunk files read as one frame: ``pd.concat`` of their :func:`read_chunk` with each
    file's manifest (or ``chunk_plan``), the same errors and the same frame, made by joining
    the files as Arrow tables and converting once (a round-robin writes thousands of small
    chunks: pandas took 5 ms a file to read, check and join them, Arrow under 1 ms)."""
    import pyarrow.parquet as pq
    from pyarrow import ArrowException

    tables = []
    for path, manifest in zip(paths, manifests, strict=True):
        try:
            file = pq.ParquetFile(path)  # threads pay for large files only (0.2 ms a file)
            table = file.read(use_threads=file.metadata.num_rows > THREADED_ROWS)
        except (ArrowException, ValueError, OSError) as error:
            raise _unreadable(path, error) from None
        check_chunk(Path(path), table, manifest)
        tables.append(table)
    return frame_of_tables(tables)


def frame_of_tables(tables) -> pd.DataFrame:
    """Chunks' Arrow tables as one frame: the frame of ``pd.concat`` of each table's
    ``to_pandas()``, made by joining the tables and converting once."""
    import pyarrow as pa
    from pyarrow import ArrowException

    try:
        joined = pa.concat_tables(tables)
    except ArrowException:  # tables of other columns or types: pandas joins them
        return pd.concat([table.to_pandas() for table in tables], ignore_index=True)
    frame = joined.to_pandas()
    for name, dtype in frame.dtypes.items():  # pandas joins chunks of other agents in a
        if isinstance(dtype, pd.CategoricalDtype) and len(dtype.categories) > 1:  # seat as
            frame[name] = frame[name].astype("str")  # strings; Arrow as categories
    return frame


def _unreadable(path, error) -> ValueError:
    reason = str(error).splitlines()[0] if str(error) else type(error).__name__
    return ValueError(f"results chunk {path} cannot be read ({reason}): {AGAIN}")


def _with_checked(path, columns) -> list:
    """``columns`` and those of the file that :func:`check_chunk` reads."""
    import pyarrow.parquet as pq

    checked = ("job", "game_index", "deal_seed", "games", "seat", "agent")
    names = pq.read_schema(path).names
    extra = [c for c in names if c in checked or c.startswith("agent_")]
    return list(dict.fromkeys([*columns, *extra]))


def chunk_plan(manifest: dict, path) -> dict:
    """What :func:`check_chunk` needs of a manifest for the chunk file ``path``: its job
    alone (a small thing to send to a worker process, where the manifest may be large)."""
    number = (manifest_io.chunk_place(Path(path).name) or (-1, 0))[0]
    jobs = manifest["jobs"]
    plan = {key: manifest[key] for key in ("chunk_size", "summary_only")}
    return plan | {"jobs": {number: jobs[number]} if 0 <= number < len(jobs) else {}}


def check_chunk(path: Path, frame: pd.DataFrame, manifest: dict) -> None:
    """A one-line ValueError unless ``frame`` (the chunk file ``path`` of a folder with this
    manifest, or its :func:`chunk_plan`) holds the games its name says: its job's agents in
    their seats, that chunk's game indices and deals of the job's seed (per-game rows), or
    that many games in each seat (summaries). Rules are not in the rows: a chunk of the same
    agents and deals under other rules is not told apart."""
    number, start = manifest_io.chunk_place(path.name) or (-1, 0)
    jobs = manifest["jobs"]  # a list, or a chunk_plan's {number: job}: indexed, not copied
    if isinstance(jobs, dict):
        job = jobs.get(number)
    else:
        job = jobs[number] if 0 <= number < len(jobs) else None
    if job is None:
        raise ValueError(f"results chunk {path} is not a chunk of its folder's plan; {AGAIN}")
    size = min(manifest["chunk_size"], job["n_games"] - start)
    first = job["first_index"] + start
    names = list(frame.column_names if hasattr(frame, "column_names") else frame.columns)
    ok = "job" in names and bool((_values(frame, "job") == number).all())
    if manifest["summary_only"]:
        ok = ok and _summary_is(frame, names, job["agents"], size)
    else:
        ok = ok and _rows_are(frame, names, job, first, size)
    if not ok:
        raise ValueError(
            f"results chunk {path} does not hold the games its name says (job {number}: "
            f"{', '.join(job['agents'])}, games {first}..{first + size - 1} of seed "
            f"{job['seed']}): it is another experiment's or damaged; {AGAIN}"
        )


def _values(frame, name: str) -> np.ndarray:
    """A column of a frame or an Arrow table as a NumPy array (names, for agents)."""
    return frame[name].to_numpy()


def _rows_are(frame, names: list, job: dict, first: int, size: int) -> bool:
    """Per-game rows: ``size`` games from index ``first``, the deals of the job's seed, the
    job's agents seat by seat and no other seat."""
    from giftsim.rng import game_keys

    if len(frame) != size or "game_index" not in names or "deal_seed" not in names:
        return False
    keys = np.empty(size, np.uint64)
    game_keys(np.uint64(job["seed"]), first, keys)
    if not (_values(frame, "game_index") == np.arange(first, first + size)).all():
        return False
    if not (_values(frame, "deal_seed") == keys).all():
        return False
    agents = job["agents"]
    if sum(c.startswith("agent_") for c in names) != len(agents):
        return False
    return all(_all_is(frame, f"agent_{s}", a) for s, a in enumerate(agents))


def _all_is(frame, name: str, value: str) -> bool:
    """Whether every row of a column of a frame or an Arrow table is ``value``; a column of
    categories (Arrow: dictionaries) by the names its rows use, not name by name."""
    column = frame[name]
    if isinstance(column, pd.Series) and isinstance(column.dtype, pd.CategoricalDtype):
        pieces = [(column.cat.categories.to_numpy(), column.cat.codes.to_numpy())]
    elif all(hasattr(piece, "dictionary") for piece in getattr(column, "chunks", [None])):
        pieces = [
            (p.dictionary.to_numpy(zero_copy_only=False), p.indices.to_numpy())
            for p in column.chunks
            if p.null_count == 0
        ]
        if len(pieces) < column.num_chunks:  # a missing name
            return False
    else:
        return bool((column.to_numpy() == value).all())
    for names, codes in pieces:
        used = np.flatnonzero(np.bincount(codes.astype(np.int64) + 1, minlength=len(names) + 1))
        if used.size and (used[0] == 0 or not (names[used - 1] == value).all()):
            return False  # a missing name (code -1), or another name
    return True


def _summary_is(frame, names: list, agents: list, size: int) -> bool:
    """Summary rows: each seat's agent, and ``size`` games in every seat."""
    if not {"seat", "agent", "games"} <= set(names):
        return False
    seats = _values(frame, "seat")
    if ((seats < 0) | (seats >= len(agents))).any():
        return False
    if not (_values(frame, "agent").astype(str) == np.asarray(agents)[seats]).all():
        return False
    present = np.unique(seats)
    per_seat = np.bincount(seats, _values(frame, "games"), len(agents))[present]
    return len(present) == len(agents) and bool((per_seat == size).all())


def load(folder) -> tuple[dict, pd.DataFrame]:
    """The manifest and every chunk of a results folder, in job and game order."""
    folder = Path(folder)
    manifest = manifest_io.read(folder)
    files = manifest_io.chunk_files(folder, manifest)
    if not files:
        return manifest, pd.DataFrame()
    frame = read_chunks(files, [manifest] * len(files))
    keys = ["job", "seat"] if manifest["summary_only"] else ["job", "game_index"]
    return manifest, frame.sort_values(keys, kind="stable").reset_index(drop=True)


def long_table(frame: pd.DataFrame, game: str | None = None) -> pd.DataFrame:
    """One row per (game, seat): job, game_index, n_players, seat, agent, first, position
    (place in the turn order, 0 = first player), score, win, plus the game's other per-seat
    blocks (e.g. give, keep, majority, cards for Tulips); ``deal`` (the deal seed, shared by
    the rotations of a seating on duplicate deals) when the rows carry it, and with ``game``
    ``finish``, the game's own key of the finishing order (higher finishes better)."""
    seats = sorted(int(c.split("_")[1]) for c in frame.columns if c.startswith("agent_"))
    blocks = sorted({c.rsplit("_", 1)[0] for c in frame.columns if c.endswith("_0")} - {"agent"})
    parts = []
    for s in seats:
        present = frame[f"agent_{s}"].notna()
        rows = frame[present]
        part = pd.DataFrame(
            {
                "job": rows.job.to_numpy() if "job" in rows else 0,  # batch.play: one job
                "game_index": rows.game_index.to_numpy(),
                "n_players": _n_players(rows, seats),
                "seat": s,
                "agent": rows[f"agent_{s}"].astype(str).to_numpy(),
                "first": (rows.first_player == s).to_numpy(),
            }
        )
        part["position"] = (s - rows.first_player.to_numpy()) % part["n_players"].to_numpy()
        if "deal_seed" in rows:
            part["deal"] = rows["deal_seed"].to_numpy()
        for block in blocks:
            part[block] = rows[f"{block}_{s}"].to_numpy()
        parts.append(part)
    long = pd.concat(parts, ignore_index=True)
    return long if game is None else long.assign(finish=finish_key(long, game))


def round_table(frame: pd.DataFrame, game: str) -> pd.DataFrame:
    """One row per (match, round, seat) of a run of matches of several rounds (No Thanks!'s
    ``rounds``; rows carry ``round1_s`` .. columns): the ``long_table`` columns with ``round``
    (1, 2, ..), that round's ``score`` and ``win``, the seat's share of the round (the game's
    own ``finish_key`` on the round's scores: ties share). Empty for single games."""
    columns = [c for c in frame.columns if c.startswith("round")]
    rounds = sorted({int(c[len("round") :].split("_")[0]) for c in columns})
    if not rounds:
        return pd.DataFrame()
    seats = sorted(int(c.split("_")[1]) for c in frame.columns if c.startswith("agent_"))
    parts = []
    for r in rounds:
        scores = {f"score_{s}": frame[f"round{r}_{s}"] for s in seats}
        part = long_table(frame.drop(columns=columns).assign(**scores))
        parts.append(part.assign(round=r))
    table = pd.concat(parts, ignore_index=True)
    return table.assign(win=_shares(table, game))


def _shares(table: pd.DataFrame, game: str) -> np.ndarray:
    """Each row's share of its (job, game, round)'s win: the rows with the best finishing key
    share one win."""
    from giftsim.game import load_game

    blocks = np.column_stack([table["score"].to_numpy(np.int64)] * len(load_game(game).blocks))
    key = pd.Series(load_game(game).finish_key(blocks), index=table.index)
    group = [table.job, table.game_index, table["round"]]
    best = key == key.groupby(group).transform("max")
    return (best / best.groupby(group).transform("sum")).to_numpy()


def finish_key(long: pd.DataFrame, game: str) -> np.ndarray:
    """Each row's key in its game's finishing order, higher finishing better: the game's own
    ``finish_key`` of the row's blocks, so ties in it are ties for the win."""
    from giftsim.game import load_game

    definition = load_game(game)
    raw = np.column_stack([long[block].to_numpy(np.int64) for block in definition.blocks])
    return definition.finish_key(raw).astype(float)


DEAL_KEYS = ["deal", "stratum", "agent", "n_players", "position"]


def deal_sums(frame: pd.DataFrame, strata: dict) -> pd.DataFrame:
    """Per (deal, stratum, agent, n_players, position) sums of per-game rows (which carry
    ``deal_seed``): ``seats`` (rows of the agent at that turn position on the deal),
    ``win_sum``, ``score_sum`` (and ``adjusted_sum``, the win less the luck, where the rows
    carry ``luck_s``). ``strata``: ``schedule.design_strata`` of the run's jobs. The
    tables of ``experiments.stats.deal_win_share``, ``deal_mean_score`` and
    ``deal_seat_advantage`` (and its gap and test) follow from them."""
    seats = sorted(int(c.split("_")[1]) for c in frame.columns if c.startswith("agent_"))
    n = _n_players(frame, seats)
    stratum = strata_column(frame, strata)
    first = frame["first_player"].to_numpy().astype(np.int64)
    parts = [
        pd.DataFrame(
            {
                "deal": frame["deal_seed"].to_numpy(),
                "stratum": stratum,
                "agent": frame[f"agent_{s}"].astype(str).to_numpy(),
                "n_players": n.astype(np.int8),
                "position": ((s - first) % n).astype(np.int8),
                "seats": np.ones(len(frame), np.int32),
                "win_sum": frame[f"win_{s}"].to_numpy(float),
                "score_sum": frame[f"score_{s}"].to_numpy(float),
                **_adjusted(frame, s),
            }
        )[frame[f"agent_{s}"].notna().to_numpy()]
        for s in seats
    ]
    return add_deal_sums(parts)


def _adjusted(frame: pd.DataFrame, s: int) -> dict:
    """``adjusted_sum``, seat ``s``'s win less its luck (``experiments.luck``), where the rows
    carry ``luck_s``."""
    if f"luck_{s}" not in frame:
        return {}
    return {"adjusted_sum": (frame[f"win_{s}"] - frame[f"luck_{s}"]).to_numpy(float)}


def strata_column(frame: pd.DataFrame, strata: dict) -> np.ndarray:
    """Each row's stratum (``schedule.stratum_of``), from its job and game index."""
    from experiments.schedule import stratum_of

    out = np.zeros(len(frame), np.int64)
    index = frame["game_index"].to_numpy()
    for job, rows in frame.groupby("job", sort=False).indices.items():
        out[rows] = stratum_of(strata, job, index[rows])
    return out


def add_deal_sums(parts) -> pd.DataFrame:
    """Several ``deal_sums`` frames as one (a deal spread over chunks is summed), sorted by
    the keys. The keys are packed into one integer per row and summed with ``np.bincount``
    (a pandas groupby over the five keys is several times slower). Each column keeps its
    type (agents as categories stay categories), and the result is not copied into blocks:
    a demo's seat study holds 3.6M of these rows."""
    frame = pd.concat(parts, ignore_index=True)
    packed, levels = np.zeros(len(frame), np.int64), []
    for key in DEAL_KEYS:
        codes, values = pd.factorize(frame[key], sort=True)
        packed = packed * len(values) + codes
        levels.append(values)
    rows, index = np.unique(packed, return_inverse=True)
    del packed
    out = {}
    for key, values in zip(DEAL_KEYS[::-1], levels[::-1], strict=True):
        rows, code = np.divmod(rows, len(values))
        out[key] = _take(values, code, frame[key].dtype)
    out = {key: out[key] for key in DEAL_KEYS}
    for column in frame.columns.difference(DEAL_KEYS, sort=False):
        total = np.bincount(index, frame[column].to_numpy(float), len(out["deal"]))
        out[column] = total.astype(frame[column].dtype)
    return pd.DataFrame(out, copy=False)


def _take(values, code: np.ndarray, dtype):
    """``values[code]`` as a column of ``dtype`` (categories stay categories)."""
    if isinstance(dtype, pd.CategoricalDtype):
        return pd.Categorical.from_codes(np.asarray(values.codes)[code], dtype=dtype)
    taken = np.asarray(values)[code]
    if isinstance(dtype, np.dtype):
        return taken.astype(dtype, copy=False)
    return pd.array(taken, dtype=dtype)


def manifest_jobs(manifest: dict) -> list:
    """The jobs of a manifest (``experiments.schedule.Job``)."""
    from experiments.schedule import Job

    return [Job(**{**job, "agents": tuple(job["agents"])}) for job in manifest["jobs"]]


def _n_players(rows: pd.DataFrame, seats: list[int]) -> np.ndarray:
    return sum(rows[f"agent_{s}"].notna().to_numpy().astype(np.int64) for s in seats)


def summary(frame: pd.DataFrame, job) -> pd.DataFrame:
    """Streaming aggregates of a chunk's rows, per seat and place in the turn order (position
    0 = first player): sums from which win shares, mean scores, their intervals and the
    turn-order advantage follow. One table built at once (a round-robin of thousands of
    seatings makes one a seating)."""
    n = job.n_players
    seat = np.arange(n)
    first = frame.first_player.to_numpy().astype(np.int64)
    key = (seat[:, None] * n + (seat[:, None] - first) % n).ravel()  # seat-major cells

    def total(weights=None):
        if weights is not None:
            weights = np.broadcast_to(weights, (n, len(frame))).ravel()
        return np.bincount(key, weights, n * n)

    def by_seat(column: str, dtype=None):
        return np.stack([frame[f"{column}_{s}"].to_numpy(dtype) for s in seat])

    win, score = by_seat("win"), by_seat("score", np.float64)
    sums = {
        "job": np.full(n * n, job.job),
        "n_players": np.full(n * n, n),
        "seat": np.repeat(seat, n),
        "position": np.tile(seat, n),
        "agent": np.repeat(np.array(job.agents, dtype=object), n),
        "games": total(),
        "win_sum": total(win),
        "win_sq": total(win * win),
        "score_sum": total(score),
        "score_sq": total(score * score),
        "decisions_sum": total(frame.n_decisions.to_numpy(np.float64)).astype(np.int64),
    }
    if "forfeit_0" in frame:  # isolated agents: the games each seat forfeited
        sums["forfeits"] = total((by_seat("forfeit") != 0).astype(np.float64)).astype(np.int64)
    return pd.DataFrame(sums)


def summaries(frame: pd.DataFrame, jobs) -> pd.DataFrame:
    """``summary`` of the rows of many jobs at once (``jobs``: every job, by number): the same
    rows, job by job, with one pass per seat instead of one per job, which matters when a
    design has thousands of small jobs (a round-robin of every arrangement)."""
    present, local = np.unique(frame["job"].to_numpy(np.int64), return_inverse=True)
    sizes = np.array([jobs[j].n_players for j in present], np.int64)
    width, n = int(sizes.max()), sizes[local]
    first = frame.first_player.to_numpy().astype(np.int64)
    decisions = frame.n_decisions.to_numpy().astype(np.float64)
    cell_job, cell_position = np.divmod(np.arange(len(present) * width), width)
    parts = []
    for s in range(width):
        kept = n > s
        key = local[kept] * width + (s - first[kept]) % n[kept]
        win = frame[f"win_{s}"].to_numpy()[kept]
        score = frame[f"score_{s}"].to_numpy(np.float64)[kept]

        def total(weights=None, key=key):
            return np.bincount(key, weights, len(present) * width)

        valid = (cell_position < sizes[cell_job]) & (sizes[cell_job] > s)
        jobs_here = present[cell_job[valid]]
        sums = {
            "job": jobs_here,
            "n_players": sizes[cell_job[valid]],
            "seat": s,
            "position": cell_position[valid],
            "agent": [jobs[j].agents[s] for j in jobs_here],
            "games": total()[valid],
            "win_sum": total(win)[valid],
            "win_sq": total(win * win)[valid],
            "score_sum": total(score)[valid],
            "score_sq": total(score * score)[valid],
            "decisions_sum": total(decisions[kept])[valid].astype(np.int64),
        }
        if f"forfeit_{s}" in frame:  # isolated agents: the games each seat forfeited
            lost = (frame[f"forfeit_{s}"].to_numpy()[kept] != 0).astype(np.float64)
            sums["forfeits"] = total(lost)[valid].astype(np.int64)
        parts.append(pd.DataFrame(sums))
    out = pd.concat(parts, ignore_index=True)
    return out.sort_values(["job", "seat", "position"], kind="stable", ignore_index=True)


def summary_of(frame: pd.DataFrame, summary_only: bool, jobs=None) -> pd.DataFrame:
    """Per (job, seat, position) sums: chunk summaries added up, or computed from rows of
    the given jobs (``experiments.schedule.Job``)."""
    if not summary_only:
        frame = summaries(frame, jobs)
    keys = ["job", "n_players", "seat", "position", "agent"]
    return frame.groupby(keys, as_index=False, sort=True).sum(numeric_only=True)


def load_faults(folder) -> list | None:
    """The fault records of a results folder's chunks (``experiments.isolation``), merged per
    agent and code; None unless every chunk keeps them (no agent isolated, or chunks written
    before chunks kept them: the records of the others would count part of the forfeits).
    Only each file's metadata is read."""
    import json

    import pyarrow.parquet as pq
    from pyarrow import ArrowException

    from experiments.isolation import FAULTS_KEY, merged_faults

    folder = Path(folder)
    manifest = manifest_io.read(folder)
    if not any(job.get("isolation") for job in manifest["jobs"]):
        return None  # no chunk to open
    records = []
    for path in manifest_io.chunk_files(folder, manifest):
        try:
            text = (pq.read_schema(path).metadata or {}).get(FAULTS_KEY)
            if text is None:
                return None
            records += json.loads(text)
        except (ArrowException, OSError, ValueError) as error:
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            raise ValueError(f"results chunk {path} cannot be read ({reason}): {AGAIN}") from None
    return merged_faults(records)

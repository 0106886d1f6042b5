"""The runner: the same games whatever the backend, workers or chunks; resume; manifests."""

import os
import shutil
import signal
import subprocess
import sys
import time

import distributed
import numpy as np
import pandas as pd
import pytest

from experiments.results import load, load_faults, summary_of
from experiments.runner import run
from experiments.schedule import field_design, mirror, round_robin


@pytest.fixture(scope="module")
def jobs():
    return field_design("geschenkt", "sniper", "greedy", 3, 3000, seed=9)


@pytest.fixture(scope="module")
def reference(jobs):
    frame, _, _ = run(jobs, backend="serial", chunk_size=3000, progress=False)
    return frame


def test_designs_fix_every_seed_and_seating_before_dispatch():
    rr = round_robin("geschenkt", ["random", "greedy", "sniper"], 3, 10, seed=4)
    assert len(rr) == 3**3 - 3  # every distinct arrangement of the 7 multisets (6 x 3 + 6)
    assert {j.seed for j in rr} == {4}
    by_group = {}
    for j in rr:
        by_group.setdefault(j.group, set()).add(j.first_index)
    assert all(len(firsts) == 1 for firsts in by_group.values())  # duplicate deals
    assert len({j.first_index for j in mirror("geschenkt", ["greedy"], [3, 4], 10)}) == 2


@pytest.mark.parametrize(
    ("backend", "workers", "chunk"),
    [("serial", 1, 700), ("processes", 1, 3000), ("processes", 2, 1234)],
)
def test_same_games_for_any_backend_workers_and_chunks(jobs, reference, backend, workers, chunk):
    frame, _, played = run(jobs, backend=backend, workers=workers, chunk_size=chunk, progress=False)
    assert played == 9000
    pd.testing.assert_frame_equal(frame, reference)


def test_same_games_on_a_dask_cluster(jobs, reference):
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        frame, _, _ = run(
            jobs,
            backend="dask",
            scheduler=cluster.scheduler_address,
            chunk_size=1000,
            progress=False,
        )
    pd.testing.assert_frame_equal(frame, reference)


def _fails(n: int) -> int:
    raise ValueError(f"task {n} fails")


def test_a_failed_dask_run_leaves_the_logging_of_distributed_as_it_found_it():
    """A run on a cluster that ends early silences distributed's logs only while its client
    closes (tests/test_cli_robust.py: the stop is one line); a notebook's later runs log as
    before."""
    import logging

    from joblib import delayed

    from experiments.runner import _on_dask

    names = ["distributed", "distributed.client", "tornado.application"]
    logging.getLogger("distributed.client").setLevel(logging.INFO)
    before = {name: logging.getLogger(name).level for name in names}
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        tasks = (delayed(_fails)(n) for n in range(4))
        with pytest.raises(ValueError, match="fails"):
            list(_on_dask(tasks, cluster.scheduler_address, 1))
    assert {name: logging.getLogger(name).level for name in names} == before


def test_duplicate_deals_repeat_the_deals_in_every_rotation(reference):
    seeds = reference.groupby("job").deal_seed.apply(tuple)
    assert seeds.nunique() == 1


def test_rows_in_a_folder_equal_rows_in_memory(jobs, reference, tmp_path):
    run(jobs, out=tmp_path / "r", backend="serial", chunk_size=1000, progress=False)
    manifest, frame = load(tmp_path / "r")
    pd.testing.assert_frame_equal(frame, reference)
    assert manifest["design"] == "field" and manifest["versions"]["numba"]
    assert len(manifest["jobs"]) == 3 and manifest["seed"] == 9
    assert manifest["rules"][0]["n_players"] == 3 and manifest["rules"][0]["chips_per_player"] == 11
    assert manifest["agents"] == ["greedy", "sniper"] and manifest["git_revision"]


def test_summary_only_keeps_the_sums_of_the_rows(jobs, reference, tmp_path):
    run(
        jobs,
        out=tmp_path / "s",
        backend="serial",
        chunk_size=1000,
        summary_only=True,
        progress=False,
    )
    manifest, sums = load(tmp_path / "s")
    assert manifest["summary_only"] and len(sums) == 9 * 3 * 3  # chunks x seats x positions
    pd.testing.assert_frame_equal(
        summary_of(sums, True), summary_of(reference, False, jobs), check_dtype=False
    )
    assert summary_of(sums, True).games.sum() == 9000 * 3  # every game counted once per seat


def test_a_folder_of_another_experiment_is_refused(jobs, tmp_path):
    run(jobs, out=tmp_path / "x", backend="serial", progress=False)
    other = field_design("geschenkt", "random", "greedy", 3, 3000, seed=9)
    with pytest.raises(ValueError, match="holds another experiment"):
        run(other, out=tmp_path / "x", backend="serial", resume=True, progress=False)
    with pytest.raises(ValueError, match="add --resume"):
        run(jobs, out=tmp_path / "x", backend="serial", progress=False)


@pytest.mark.parametrize("workers", ["2", 0, 1.5])
def test_workers_that_are_not_a_count_are_one_line(jobs, workers):
    """``run(jobs, workers="2")`` was a TypeError from a comparison of str and int."""
    with pytest.raises(ValueError, match=f"^workers must be a whole number >= 1, got {workers!r}$"):
        run(jobs, workers=workers, progress=False)


def giftsim(*args):
    return [sys.executable, "-m", "experiments.cli", *args]


def test_resume_after_kill_9_loses_and_duplicates_no_game(tmp_path):
    out = tmp_path / "killed"
    command = giftsim(
        "tournament",
        "geschenkt",
        "--design",
        "mirror",
        "--agents",
        "sniper",
        "--players",
        "4",
        "--games",
        "200000",
        "--chunk-size",
        "10000",
        "--backend",
        "serial",
        "--seed",
        "5",
        "--quiet",
        "--out",
        str(out),
    )
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while len(list(out.glob("chunk-*.parquet"))) < 3 and time.time() < deadline:
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    written = len(list(out.glob("chunk-*.parquet")))
    assert 3 <= written < 20  # interrupted part-way
    done = subprocess.run([*command, "--resume"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    _, resumed = load(out)
    fresh, _, _ = run(
        mirror("geschenkt", ["sniper"], [4], 200_000, seed=5),
        backend="serial",
        chunk_size=50_000,
        progress=False,
    )
    assert len(resumed) == 200_000
    assert np.array_equal(resumed.game_index.to_numpy(), np.arange(200_000))
    pd.testing.assert_frame_equal(resumed, fresh, check_exact=True)  # every value, not to 1e-5


def test_the_report_of_an_unfinished_folder_says_how_much_is_missing(tmp_path, capsys):
    """A folder with a chunk missing (a run cut short, a file lost) still reports, but says in
    the terminal and in summary.md how many of the planned games it holds; a whole folder has
    no such line."""
    from experiments.cli import main

    out = tmp_path / "rr"
    args = ["tournament", "geschenkt", "--agents", "greedy,sniper,random", "--players", "3"]
    assert main([*args, "--games", "20", "--backend", "serial", "--quiet", "--out", str(out)]) == 0
    assert main(["report", str(out), "--quiet"]) == 0
    assert "incomplete" not in capsys.readouterr().out
    assert "incomplete" not in (out / "summary.md").read_text()
    chunk = sorted(out.glob("chunk-*.parquet"))[0]
    kept = chunk.read_bytes()
    chunk.unlink()
    assert main(["report", str(out), "--quiet"]) == 0
    line = f"warning: incomplete: {out} holds 460 of the 480 games its run plans"
    assert line in capsys.readouterr().out and line in (out / "summary.md").read_text()
    chunk.write_bytes(kept)
    assert main(["report", str(out), "--quiet"]) == 0
    assert "incomplete" not in capsys.readouterr().out


@pytest.mark.parametrize("summary_only", [False, True])
def test_a_damaged_chunk_is_one_line_and_resume_plays_it_again(tmp_path, capsys, summary_only):
    """A chunk cut short (a disk fault, a copy stopped half-way) is named in one line that says
    how to get its games back, in ``report`` and at the end of a ``--resume``d run; deleting
    it and resuming plays exactly its games again."""
    from experiments.cli import main

    out = tmp_path / "rr"
    args = ["tournament", "tulips", "--agents", "greedy,random", "--players", "3", "--games"]
    args += ["12", "--backend", "serial", "--quiet", "--out", str(out)]
    args += ["--summary-only"] if summary_only else []
    assert main(args) == 0
    capsys.readouterr()
    assert main(["report", str(out), "--quiet"]) == 0
    before = capsys.readouterr().out
    chunk = sorted(out.glob("chunk-*.parquet"))[2]
    kept = chunk.read_bytes()
    chunk.write_bytes(kept[: len(kept) // 2])
    for command in (["report", str(out), "--quiet"], [*args, "--resume"]):
        assert main(command) == 2
        error = capsys.readouterr().err.strip()
        assert error.count("\n") == 0 and f"results chunk {chunk} cannot be read" in error
        assert "delete it and run the same command again with --resume" in error
    chunk.unlink()
    assert main([*args, "--resume"]) == 0
    assert chunk.read_bytes() == kept  # the same games, written alike
    capsys.readouterr()
    assert main(["report", str(out), "--quiet"]) == 0
    assert capsys.readouterr().out == before


def test_cli_tournament_seats_and_report(tmp_path):
    out = tmp_path / "rr"
    done = subprocess.run(
        giftsim(
            "tournament",
            "tulips",
            "--design",
            "round-robin",
            "--agents",
            "random,greedy",
            "--players",
            "3",
            "--games",
            "300",
            "--backend",
            "serial",
            "--quiet",
            "--out",
            str(out),
        ),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "win share by agent" in done.stdout and "turn-order test" in done.stdout
    method = "95% intervals with the deal as unit (600 deals"  # 2 seating groups of 300
    assert method in done.stdout
    done = subprocess.run(giftsim("report", str(out)), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "== ratings among this run's agents" in done.stdout  # a strength names its field
    assert (out / "summary.md").exists()
    assert {p.name for p in out.glob("*.png")} >= {"win_rate_heatmap.png", "ratings.png"}
    assert method in done.stdout and method in (out / "summary.md").read_text()  # as above
    assert "Holm's correction over the 1 turn-order tests" in (out / "summary.md").read_text()
    done = subprocess.run(
        giftsim("seats", "geschenkt", "--agents", "greedy", "--players", "3,9", "--quiet"),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "--players must be in 2..7 for No Thanks!, got 9" in done.stderr
    done = subprocess.run(giftsim("report", str(tmp_path)), capture_output=True, text=True)
    assert done.returncode == 2 and "not a giftsim results folder" in done.stderr


RUN_ERRORS = [
    (["seats", "geschenkt", "--players", ""], "--players takes whole numbers"),
    (
        ["seats", "geschenkt", "--workers", "0"],
        "argument --workers: worker processes are a whole number >= 1",
    ),
    (["seats", "geschenkt", "--backend", "dask"], "the dask backend needs --scheduler"),
    (["seats", "geschenkt", "--games", "-5"], "a seating plays at least one game"),
    (["tournament", "geschenkt", "--design", "field"], "needs --candidate and --baseline"),
    (["tournament", "geschenkt", "--agents", "greedy"], "at least two different agents"),
    (["tournament", "geschenkt", "--agents", "greedy,random,greedy:T=0"], "greedy is listed twice"),
    (["seats", "geschenkt", "--seed", "-1"], "a seed is a whole number in 0.."),
]


@pytest.mark.parametrize(("args", "message"), RUN_ERRORS)
def test_run_errors_are_one_line_and_leave_no_folder(tmp_path, args, message):
    out = tmp_path / "never"
    done = subprocess.run(
        giftsim(*args, "--quiet", "--out", str(out)), capture_output=True, text=True
    )
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not (out / "manifest.json").exists()


def test_a_half_written_manifest_is_never_left(tmp_path, jobs):
    run(jobs, out=tmp_path / "m", backend="serial", progress=False)
    assert not list((tmp_path / "m").glob(".*.tmp"))
    (tmp_path / "m" / "manifest.json").write_text('{"experiment": ')
    with pytest.raises(ValueError, match="is not a readable manifest"):
        load(tmp_path / "m")


def test_warm_up_plays_each_set_of_agents_once_not_each_arrangement():
    from experiments.runner import _first_of_each_seating, chunks_of

    jobs = round_robin("geschenkt", ["greedy", "sniper", "random"], 4, 2, seed=1)
    firsts = _first_of_each_seating(chunks_of(jobs, 50_000))
    assert len(jobs) == 3**4 - 3
    sets = sorted(sorted(set(c.job.agents)) for c in firsts)
    pairs = [["greedy", "random"], ["greedy", "sniper"], ["random", "sniper"]]
    assert sets == sorted([*pairs, ["greedy", "random", "sniper"]])


def test_summaries_of_many_jobs_at_once_equal_each_jobs_summary():
    from experiments.results import summaries, summary
    from experiments.schedule import join

    jobs = join(
        round_robin("tulips", ["random", "greedy", "hoarder"], 4, 3, seed=5),
        round_robin("tulips", ["greedy", "hoarder"], 3, 4, seed=6),
    )
    frame, _, _ = run(jobs, backend="serial", progress=False)
    each = [summary(rows, jobs[int(j)]) for j, rows in frame.groupby("job", sort=True)]
    pd.testing.assert_frame_equal(summaries(frame, jobs), pd.concat(each, ignore_index=True))
    part = frame[frame["job"].isin([2, 80])]  # some jobs only, of both player counts
    each = [summary(rows, jobs[int(j)]) for j, rows in part.groupby("job", sort=True)]
    pd.testing.assert_frame_equal(summaries(part, jobs), pd.concat(each, ignore_index=True))
    lost = np.random.default_rng(7).integers(0, 3, (len(frame), 4)).astype(np.int8)
    for s in range(4):  # isolated agents' forfeits (the 3-player jobs have none in seat 3)
        frame[f"forfeit_{s}"] = lost[:, s]
    each = [summary(rows, jobs[int(j)]) for j, rows in frame.groupby("job", sort=True)]
    assert all("forfeits" in one for one in each)
    pd.testing.assert_frame_equal(summaries(frame, jobs), pd.concat(each, ignore_index=True))


def _small_designs() -> dict:
    """Designs of small chunks of every kind of row, by name: ``(jobs, summary_only)``."""
    from dataclasses import replace

    from agents.isolation import Isolation

    rr = round_robin("geschenkt", ["random", "greedy", "sniper"], 4, 6, seed=2)
    luck = [replace(j, luck="shipped") for j in field_design("tulips", "random", "greedy", 3, 4)]
    isolated = [
        replace(j, isolation=Isolation(agents=("random",)), secret=3)
        for j in round_robin("geschenkt", ["random", "greedy"], 3, 3, seed=2)
    ]
    return {
        "rows": (rr, False),
        "summaries": (rr, True),
        "mirror": (mirror("tulips", ["greedy", "random"], [3, 4], 5, seed=2), False),
        "luck": (luck, False),
        "isolated": (isolated, False),
        "isolated summaries": (isolated, True),
    }


@pytest.fixture(scope="module")
def small_folders(tmp_path_factory):
    """Results folders of small chunks of every kind of row: a round-robin's rows, its
    summaries, a mirror of two player counts, luck-adjusted rows and isolated agents' rows
    and summaries."""
    folders = {}
    for name, (jobs, summary_only) in _small_designs().items():
        folder = folders[name] = tmp_path_factory.mktemp(name.replace(" ", "_"))
        run(jobs, folder, "serial", chunk_size=2, summary_only=summary_only, progress=False)
    return folders


def test_a_run_in_memory_gives_the_frame_of_its_folder(small_folders):
    """A run in memory joins its chunks' Arrow tables and converts them once: the frame read
    back from the folder of the same run (types and fault records included), for every kind
    of row."""
    for name, (jobs, summary_only) in _small_designs().items():
        frame, _, _ = run(jobs, backend="serial", chunk_size=2, summary_only=summary_only)
        _, stored = load(small_folders[name])
        pd.testing.assert_frame_equal(frame, stored)
        assert list(frame.dtypes) == list(stored.dtypes), name
        assert frame.attrs.get("faults") == load_faults(small_folders[name]), name
        assert ("faults" in frame.attrs) == name.startswith("isolated"), name


def test_chunks_read_as_one_are_pandas_concat_of_each_chunk(small_folders, tmp_path):
    """``read_chunks`` joins the files as Arrow tables: the frame (types included) of
    ``pd.concat`` of each file's ``read_chunk``, for every kind of row and any run of files."""
    from experiments import manifest as manifest_io
    from experiments.results import chunk_plan, read_chunk, read_chunks

    for name, made in small_folders.items():
        folder = shutil.copytree(made, tmp_path / name)  # its files are spoilt below
        manifest = manifest_io.read(folder)
        files = manifest_io.chunk_files(folder, manifest)
        assert len(files) > 4, name
        for batch in (files, files[:1], files[1:4]):
            plans = [chunk_plan(manifest, path) for path in batch]
            joined = read_chunks(batch, plans)
            each = [read_chunk(p, manifest=plan) for p, plan in zip(batch, plans, strict=True)]
            pd.testing.assert_frame_equal(joined, pd.concat(each, ignore_index=True))
            assert list(joined.dtypes) == list(pd.concat(each, ignore_index=True).dtypes)
        moved = files[2].with_name(files[3].name + ".x")  # a chunk under another's name
        files[3].rename(moved)
        files[2].rename(files[3])
        with pytest.raises(ValueError, match="does not hold the games its name says"):
            read_chunks(files[3:4], [manifest])
        if "summaries" not in name:  # a chunk whose seat 0 is another agent's, in one row
            frame = read_chunk(files[4])
            names = [*frame["agent_0"].cat.categories, "intruder"]
            frame["agent_0"] = frame["agent_0"].cat.set_categories(names)
            frame.loc[len(frame) - 1, "agent_0"] = "intruder"
            frame.to_parquet(files[4])
            with pytest.raises(ValueError, match="does not hold the games its name says"):
                read_chunks(files[4:5], [manifest])
            with pytest.raises(ValueError, match="does not hold the games its name says"):
                read_chunk(files[4], manifest=manifest)
        files[1].write_bytes(b"not a parquet file")
        with pytest.raises(ValueError, match=f"results chunk {files[1]} cannot be read"):
            read_chunks(files[:2], [manifest] * 2)


def test_a_chunk_is_written_as_the_table_pandas_makes_of_it(small_folders):
    """``runner.arrow_table`` reuses a schema per layout of columns: the table and its
    pandas metadata equal ``pa.Table.from_pandas`` for every kind of row."""
    import pyarrow as pa

    from experiments import manifest as manifest_io
    from experiments.results import read_chunk
    from experiments.runner import arrow_table

    for name, folder in small_folders.items():
        files = manifest_io.chunk_files(folder, manifest_io.read(folder))
        for path in files[:6]:
            frame = read_chunk(path)
            for part in (frame, frame.iloc[:0]):
                made = arrow_table(part)
                reference = pa.Table.from_pandas(part, preserve_index=False)
                assert made.equals(reference), name
                assert made.schema.equals(reference.schema, check_metadata=True), name


def test_tasks_hold_consecutive_chunks_and_leave_every_worker_busy():
    """``batches`` cuts the chunks, in order, into tasks of at most ``TASK_CHUNKS`` chunks and
    ``TASK_GAMES`` games (a larger chunk alone), and at least ``TASKS_PER_WORKER`` tasks a
    worker where there are chunks enough."""
    from types import SimpleNamespace

    from experiments.runner import TASK_CHUNKS, TASK_GAMES, TASKS_PER_WORKER, batches

    for n_chunks in (1, 7, 100, 1_000, 20_000):
        for workers in (1, 2, 8):
            for size in (1, 500, 3_000, 50_000):
                chunks = [SimpleNamespace(size=size, n=k) for k in range(n_chunks)]
                tasks = batches(chunks, workers)
                assert [c for task in tasks for c in task] == chunks
                assert max(len(task) for task in tasks) <= TASK_CHUNKS
                assert len(tasks) >= min(n_chunks, TASKS_PER_WORKER * workers)
                for task in tasks:
                    assert len(task) == 1 or sum(c.size for c in task) <= TASK_GAMES


def test_a_task_sends_its_chunks_as_one_table_with_every_fault_record():
    """A worker's task of in-memory chunks comes back as one table whose rows and fault
    records are those of its chunks, one after the other; written chunks come back one by
    one, without rows."""
    import pyarrow as pa

    from experiments.runner import _faults_of, chunks_of, play_chunk, play_chunks

    designs = _small_designs()
    for name in ("isolated", "rows"):
        jobs, summary_only = designs[name]
        chunks = chunks_of(jobs, 2)[:9]
        each = [play_chunk(chunk, None, summary_only) for chunk in chunks]
        ((at, size, table),) = play_chunks(chunks, None, summary_only, at=5)
        assert at == 5 and size == sum(s for s, _ in each)
        joined = pa.concat_tables([part for _, part in each])
        pd.testing.assert_frame_equal(table.to_pandas(), joined.to_pandas())
        assert all(column.num_chunks == 1 for column in table.columns)
        expected = [_faults_of(part) for _, part in each]
        if name == "isolated":
            assert _faults_of(table) == [r for f in expected for r in f]
        else:
            assert _faults_of(table) is None and expected == [None] * len(chunks)


def test_a_run_on_worker_processes_gives_the_frame_of_a_serial_run():
    """Tasks of several chunks (a round-robin of many small chunks, rows and summaries): the
    frame a serial run gives, row for row, whichever task finishes first (summaries have no
    game index to sort by: the chunks' results are put in the chunks' order)."""
    for name in ("rows", "summaries"):
        jobs, summary_only = _small_designs()[name]
        options = {"chunk_size": 2, "summary_only": summary_only, "progress": False}
        serial, _, _ = run(jobs, backend="serial", **options)
        parallel, _, _ = run(jobs, backend="processes", workers=2, **options)
        pd.testing.assert_frame_equal(parallel, serial)

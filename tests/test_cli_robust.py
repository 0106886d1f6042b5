"""The command line never shows a traceback and never loses work: bad input is one line with
exit status 2; a killed run leaves no worker writing and a folder that resumes."""

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest

from agents.registry import define
from experiments import cli, stopping
from experiments.cli import main
from experiments.manifest import MANIFEST, TEMPORARY
from experiments.results import load
from geschenkt_sim.rules import TAKE

TUNE = ["tune", "geschenkt", "--family", "sniper", "--players", "4", "--field", "greedy"]
QUICK = ["--backend", "serial", "--quiet", "--games", "10"]
SMALL = ["--rule", "highest_card=8", "--rule", "n_removed=2", "--rule", "chips_per_player=2"]

SOLVE = ["solve", "geschenkt", "--players", "2", *SMALL, "--quiet"]
BOUND = ["bound", "geschenkt", "--players", "3", "--target", "greedy", "--deals", "4", "--quiet"]
ONE_LINE_ERRORS = [
    (["play", "geschenkt", "--force"], "--force replaces an existing --record file: give --reco"),
    (
        ["tournament", "geschenkt", "--agents", "greedy,sniper", "--isolate", "greedy,greedy"],
        "--isolate names greedy twice; name each agent once",
    ),
    (["demo", "--out", ""], "argument --out: an empty name; name a folder"),
    (["tournament", "geschenkt", *QUICK, "--out", " "], "argument --out: an empty name; name a"),
    (["gauntlet", "tulips", "--deals", "2", "--out", ""], "argument --out: an empty name"),
    (["record", "geschenkt", "--out", ""], "argument --out: an empty name; name a file"),
    (["record", "geschenkt", "--out", "-", "--force"], "--force replaces an existing --out file"),
    (["play", "geschenkt", "--record", " "], "argument --record: an empty name; name a file"),
    ([*SOLVE, "--out", ""], "argument --out: an empty name; name a folder"),
    ([*TUNE, "--json", ""], "argument --json: an empty name; name a file"),
    ([*BOUND, "--seed", "-1"], "argument --seed: a seed is a whole number in 0..2**64-1"),
    ([*BOUND, "--seed", "99999999999999999999999"], "in 0..2**64-1, got '99999999999999999999999'"),
    (
        [*SOLVE, "--exploit", "random", "--seed", str(2**63)],
        "a seed is a whole number in 0..2**63-1",
    ),
    ([*SOLVE, "--seed", "-1"], "argument --seed: a seed is a whole number in 0..2**63-1"),
    ([*SOLVE, "--memory", "inf"], "argument --memory: a positive number of GB, got 'inf'"),
    ([*SOLVE, "--memory", "nan"], "argument --memory: a positive number of GB, got 'nan'"),
    ([*SOLVE, "--memory", "-1"], "argument --memory: a positive number of GB, got '-1'"),
    ([*TUNE, "--seed", "-1"], "argument --seed: a seed is a whole number in 0.."),
    (
        ["tournament", "tulips", "--agents", "planner:race=nan,greedy", *QUICK],
        "agent 'planner': parameter race=nan is out of range (valid: any finite number)",
    ),
    (
        ["tournament", "tulips", "--agents", "planner:race=inf,greedy", *QUICK],
        "parameter race=inf is out of range (valid: any finite number)",
    ),
    ([*TUNE, "--games", "0"], "--games: deals played in memory are a whole number in 2.."),
    ([*TUNE, "--popsize", "0"], "--popsize must be at least 2, got 0"),
    ([*TUNE, "--final-games", "0"], "--final-games: deals played in memory are a whole number"),
    ([*TUNE, "--sigma", "nan"], "sigma must be a positive number"),
    (
        [*TUNE, "--sigma", "1e300"],
        "sigma must be a positive number of parameter scales, at most 10",
    ),
    (["tournament", "geschenkt", "--workers", "1000"], "worker processes on this machine are 1 to"),
    (
        [*TUNE, "--seed", str(2**64 - 1)],
        "a seed is a whole number in 0..18,446,744,069,414,584,319",
    ),
    (
        ["train", "geschenkt", "--players", "3", "--out", "n.npz", "--seed", str(2**64 - 1)],
        "seed + 2**41",
    ),
    (["ladder", "--games", "0", "--search-games", "0"], "the ladder has no step to play"),
    (
        ["ladder", "--games", "-5"],
        "--games: deals played in memory are a whole number in 0..10,000,000 (more: giftsim",
    ),
    (["demo", "--scale", "-1"], "--scale must be a positive fraction of the full size, at most"),
    (["demo", "--scale", "nan"], "--scale must be a positive fraction"),
    (
        [
            "solve",
            "geschenkt",
            "--players",
            "3",
            "--rule",
            "lowest_card=1",
            "--rule",
            "highest_card=40",
            "--rule",
            "n_removed=2",
            "--out",
            "big",
        ],
        "3 players, cards 1..40 (2 removed, 38 played), 11 chips each does not fit",
    ),
    (
        ["solve", "geschenkt", *SMALL, "--rule", "chips_visible=false", "--out", "x"],
        "the exact solver needs chips_visible=true",
    ),
    (
        ["solve", "geschenkt", *SMALL, "--rule", "rounds=4", "--out", "x"],
        "the exact solver solves single games (rounds=1), not rounds=4",
    ),
    (["solve", "tulips", "--out", "x"], "the exact solver models No Thanks! (geschenkt) only"),
    (["solve", "geschenkt", "--players", "8"], "--players must be in 2..7 for No Thanks!, got 8"),
    (["solve", "geschenkt", *SMALL, "--exploit", "solved"], "--exploit solved (this solve's"),
    (
        ["solve", "geschenkt", *SMALL, "--exploit", "solved:table=no.parquet", "--out", "x"],
        "no.parquet': no such file",
    ),
    (
        ["demo", "--scale", "0.0001", "--workers", "0"],
        "argument --workers: worker processes are a whole number >= 1",
    ),
    (  # argparse keeps the last: the run would not be the one the first value says
        ["tournament", "geschenkt", "--games", "10", "--games", "20", "--backend", "serial"],
        "argument --games: given twice (10 and 20); give it once",
    ),
    (
        ["gauntlet", "geschenkt", "--players", "4", "--deals", "2", "--players", "2"],
        "argument --players: given twice (4 and 2); give it once",
    ),
    (["tournament", "geschenkt", "--players", "3,", *QUICK], "got '3,'"),
    (["tournament", "geschenkt", "--players", "3,,4", *QUICK], "got '3,,4'"),
]


def one_line_error(capsys, args) -> str:
    """Run ``giftsim ARGS`` in this process; it must fail with one line and status 2 (a
    value the parser refuses ends in argparse's SystemExit, as on the command line)."""
    try:
        code = main(args)
    except SystemExit as stop:
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


@pytest.mark.parametrize(("args", "message"), ONE_LINE_ERRORS)
def test_bad_sizes_and_parameters_are_one_line(capsys, tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)  # nothing may be written, not even by ladder or demo
    assert message in one_line_error(capsys, args)
    assert not list(tmp_path.iterdir())


def test_a_policy_table_of_another_variant_is_one_line_and_nothing_is_written(capsys, tmp_path):
    """A table solved for cards 3..8 is refused by a solve of another deck, by a tournament,
    a record or a game at the terminal under other rules or player count, and a file that is
    no table is named as such; nothing is written."""
    from experiments.solving import solve_variant
    from geschenkt_sim.rules import Rules

    rules = Rules(n_players=2, highest_card=8, n_removed=2, chips_per_player=2)
    solve_variant(rules, tmp_path / "t", progress=False)
    table = f"solved:table={tmp_path / 't' / 'policy.parquet'}"
    other = ["--rule", "highest_card=9", "--rule", "n_removed=2", "--rule", "chips_per_player=2"]
    out = tmp_path / "o"
    cases = [
        (
            ["solve", "geschenkt", *other, "--exploit", table, "--out", str(out)],
            "was solved for 2 players, cards 3..8 (2 removed, 4 played), 2 chips each, not for "
            "2 players, cards 3..9",
        ),
        (
            [
                "tournament",
                "geschenkt",
                "--agents",
                f"{table},greedy",
                "--players",
                "2",
                *other,
                *QUICK,
                "--out",
                str(out),
            ],
            "was solved for 2 players, cards 3..8",
        ),
        (
            [
                "tournament",
                "geschenkt",
                "--agents",
                f"{table},greedy",
                "--players",
                "3",
                *SMALL,
                *QUICK,
                "--out",
                str(out),
            ],
            "is for 2 players, not 3",
        ),
        (
            [
                "tournament",
                "geschenkt",
                "--agents",
                f"{table},greedy",
                "--players",
                "2",
                *SMALL,
                "--rule",
                "chips_visible=false",
                *QUICK,
                "--out",
                str(out),
            ],
            "chips_visible=true",
        ),
    ]
    record = ["record", "geschenkt", "--players", "2", "--agents", f"{table},greedy", *other]
    cases.append(([*record, "--out", str(out)], "was solved for 2 players, cards 3..8"))
    play = ["play", "geschenkt", "--players", "2", "--vs", table, *other, "--record", str(out)]
    cases.append((play, "was solved for 2 players, cards 3..8"))  # before the first question
    (tmp_path / "text.parquet").write_text("not a table")
    bad = f"solved:table={tmp_path / 'text.parquet'}"
    cases.append(
        (
            ["solve", "geschenkt", *SMALL, "--exploit", bad, "--out", str(out)],
            "is not a giftsim policy table",
        )
    )
    for args, message in cases:
        assert message in one_line_error(capsys, args)
        assert not out.exists()


def test_solve_refuses_a_folder_that_holds_files(capsys, tmp_path):
    (tmp_path / "old.txt").write_text("keep me")
    err = one_line_error(capsys, ["solve", "geschenkt", *SMALL, "--out", str(tmp_path)])
    assert "is not empty" in err and [p.name for p in tmp_path.iterdir()] == ["old.txt"]


def test_solve_checks_its_exploit_step_before_it_solves_or_writes(capsys, tmp_path):
    """The exploit step's memory and agents are checked before the solve: a variant whose
    solve fits 1.5 GB but whose exploitability does not was solved (10 s) and written, then
    refused; the message names the sum compared (arrays and the interpreter's share), and a
    network of another player count is refused before anything is solved."""
    out = tmp_path / "o"
    deck = ["--rule", "highest_card=14", "--rule", "n_removed=3", "--rule", "chips_per_player=4"]
    solve = ["solve", "geschenkt", "--players", "2", *deck, "--quiet", "--out", str(out)]
    for memory in ("1.5", "3"):
        err = one_line_error(capsys, [*solve, "--memory", memory, "--exploit", "greedy"])
        assert (
            "needs 3.11 GB (2.51 GB of arrays and 0.6 GB for the interpreter and Numba) and "
            f"{memory} GB is available"
        ) in err
        assert not out.exists()
    responder = Path(__file__).resolve().parent.parent / "docs/responders/geschenkt-3p-greedy.npz"
    net = f"learned:net={responder}"
    err = one_line_error(
        capsys, ["solve", "geschenkt", *SMALL, "--exploit", net, "--out", str(out)]
    )
    assert "is for 3 players, not 2" in err and not out.exists()


def test_an_agent_that_breaks_the_rules_is_one_line(capsys):
    def cheater(obs, params, rng):
        """Answers 7, which is no action at all."""
        return TAKE + 6

    define("geschenkt", "cheater_for_cli_test", cheater)
    err = one_line_error(
        capsys, ["tournament", "geschenkt", "--agents", "cheater_for_cli_test,greedy", *QUICK]
    )
    assert "seat 0 (cheater_for_cli_test) chose illegal action 7 (legal: [0, 1])" in err
    assert "check the agent's code and parameters" in err


def test_every_command_reads_a_list_of_agents_as_batch_play_does(capsys, tmp_path):
    """A blank item of a comma list (a typing slip) is dropped everywhere, as ``batch.play``
    drops it (``registry.spec_list``): ``tournament`` refused it as "unknown agent ''"."""
    tables = []
    for agents in ("greedy,,random", " greedy , random"):
        main(["tournament", "geschenkt", "--agents", agents, "--out", str(tmp_path / agents)])
        tables.append(load(tmp_path / agents)[1])
        capsys.readouterr()
    pd.testing.assert_frame_equal(*tables)
    assert list(tables[0]["agent_0"].unique()) == ["greedy", "random"]


def test_replay_of_deeply_nested_json_is_one_line(capsys, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000)
    assert "its JSON nests too deeply" in one_line_error(capsys, ["replay", str(path)])


def test_resume_into_a_folder_whose_manifest_is_not_an_object(capsys, tmp_path):
    (tmp_path / MANIFEST).write_text("[1,2]")
    args = ["seats", "geschenkt", "--players", "3", *QUICK, "--out", str(tmp_path), "--resume"]
    assert "is not a giftsim manifest (not a JSON object)" in one_line_error(capsys, args)
    assert "not a JSON object" in one_line_error(capsys, ["report", str(tmp_path)])


def test_report_of_a_manifest_without_its_keys(capsys, tmp_path):
    (tmp_path / MANIFEST).write_text(json.dumps({"summary_only": False, "game": "tulips"}))
    err = one_line_error(capsys, ["report", str(tmp_path)])
    assert "it lacks experiment, design, seed, jobs, versions" in err


@pytest.mark.parametrize(
    ("key", "value"), [("n_games", "x"), ("first_index", -1), ("agents", "greedy"), ("seed", None)]
)
def test_report_and_resume_of_a_manifest_with_a_damaged_job(capsys, tmp_path, key, value):
    """A job's number made text by hand: an internal error (TypeError), exit status 1."""
    folder = tmp_path / "r"
    assert seats_into(capsys, folder) == 0
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["jobs"][0][key] = value
    (folder / MANIFEST).write_text(json.dumps(manifest))
    assert "is damaged: job 0 lacks one of" in one_line_error(capsys, ["report", str(folder)])
    resume = ["seats", "geschenkt", "--players", "3", *QUICK, "--out", str(folder), "--resume"]
    assert "is damaged: job 0 lacks one of" in one_line_error(capsys, resume)


def seats_into(capsys, folder, *extra) -> int:
    code = main(["seats", "geschenkt", "--players", "3", *QUICK, "--out", str(folder), *extra])
    capsys.readouterr()
    return code


def test_a_kill_before_the_manifest_rename_leaves_a_folder_that_resumes(capsys, tmp_path):
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / TEMPORARY).write_text('{"experiment": "half')  # killed mid-write, not renamed
    assert seats_into(capsys, folder, "--resume") == 0
    assert (folder / MANIFEST).exists() and not (folder / TEMPORARY).exists()
    _, frame = load(folder)
    assert len(frame) == 10


def test_demo_never_touches_another_experiments_folder(capsys, tmp_path):
    other = tmp_path / "geschenkt-seats"  # the name of a demo study
    assert seats_into(capsys, other) == 0
    before = {p.name: p.stat().st_mtime_ns for p in other.iterdir()}
    err = one_line_error(capsys, ["demo", "--scale", "0.0001", "--out", str(tmp_path)])
    assert f"{other} holds another experiment" in err
    assert {p.name: p.stat().st_mtime_ns for p in other.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["geschenkt-seats"]  # nothing played


def test_demo_never_writes_into_a_results_folder(capsys, tmp_path):
    """A tournament's folder is no place for the demo's studies and findings.md."""
    assert seats_into(capsys, tmp_path / "run") == 0
    before = sorted(p.name for p in (tmp_path / "run").iterdir())
    err = one_line_error(capsys, ["demo", "--scale", "0.0001", "--out", str(tmp_path / "run")])
    assert "holds the results of another experiment (manifest.json)" in err
    assert sorted(p.name for p in (tmp_path / "run").iterdir()) == before


def test_demo_adds_to_no_folder_holding_other_files(capsys, tmp_path):
    """Refused in one line, nothing written; a hidden file (.DS_Store, giftsim's record of
    what it wrote) is no obstacle (the README test runs the demo twice into its folder)."""
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "src").mkdir()
    (tmp_path / ".DS_Store").write_text("")
    err = one_line_error(capsys, ["demo", "--scale", "0.0001", "--out", str(tmp_path)])
    assert "holds what the demo did not write (notes.txt, src)" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == [".DS_Store", "notes.txt", "src"]


def tournament_into(out: Path, games: int, chunk_size: int, workers: int) -> list[str]:
    """The command line of a No Thanks! tournament of ``games`` per seating into ``out``."""
    command = [sys.executable, "-m", "experiments.cli", "tournament", "geschenkt"]
    command += ["--agents", "greedy,random", "--players", "3", "--games", str(games)]
    command += ["--chunk-size", str(chunk_size), "--workers", str(workers), "--quiet"]
    return [*command, "--out", str(out)]


def started(
    command: list[str], out: Path, chunks: int, keep_ctrl_c: bool = False
) -> subprocess.Popen:
    """``command`` running, once it has written ``chunks`` chunks into ``out``; the test
    fails, saying why, when the run ends first or has not written them in 120 s. With
    ``keep_ctrl_c`` it takes Ctrl-C as from a terminal (a background job, as make test in CI,
    starts with it ignored)."""
    restore = (lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)) if keep_ctrl_c else None
    run = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=restore,
    )
    deadline = time.time() + 120
    while _chunks(out) < chunks:
        ended = run.poll() is not None  # then count again: it may have written them meanwhile
        if (ended and _chunks(out) < chunks) or time.time() > deadline:
            run.kill()
            err = run.communicate()[1]
            pytest.fail(f"{chunks} chunks not written (status {run.returncode}): {err[-2000:]}")
        time.sleep(0.05)
    return run


def _chunks(out: Path) -> int:
    return len(list(out.glob("chunk-*.parquet")))


LOST = {  # what a library made of the stop's exception, and the line it leaves before the stop's
    "type error": (TypeError("_get_jit_address() missing 1 required positional argument"), ""),
    "user error": (
        ValueError("chunk x.parquet is damaged: remove it"),
        "giftsim tournament: error: chunk x.parquet is damaged: remove it\n",
    ),
    "swallowed": (None, ""),
}


@pytest.mark.parametrize("lost", LOST)
@pytest.mark.parametrize(
    ("signum", "how"), [(signal.SIGTERM, "terminated"), (signal.SIGINT, "interrupted")]
)
def test_a_stop_whose_exception_a_library_lost_still_ends_as_a_stop(
    signum, how, lost, tmp_path, monkeypatch, capsys
):
    """A stop signal that lands in Python code called from a library's C code (Numba's
    dispatch typing the agents' entries) can come out as another exception (a run ended
    with "internal error: TypeError: _get_jit_address() missing 1 required positional
    argument") or none (the library caught it and returned): it still ends as that stop,
    status 128 + signal, the way to go on said; a user error's own line comes first."""
    error, before = LOST[lost]

    def run_and_lose_the_stop(args):
        args.out.mkdir()
        (args.out / "manifest.json").write_text("{}")  # the run has begun: it can resume
        try:
            os.kill(os.getpid(), signum)
            time.sleep(5)  # the handler raises here
        except KeyboardInterrupt:
            if error is not None:
                raise error from None
        return 0

    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    monkeypatch.setattr(cli, "_tournament", run_and_lose_the_stop)
    monkeypatch.setattr(signal, "getsignal", lambda s: signal.default_int_handler)  # as in a
    # terminal, whatever the test runner set
    out = tmp_path / "lost"
    code = main(["tournament", "geschenkt", "--agents", "greedy,random", "--out", str(out)])
    err = capsys.readouterr().err.strip()
    assert (code, err) == (
        128 + signum,
        f"{before}giftsim tournament: {how}; the same command with --resume continues from {out}",
    )
    monkeypatch.undo()
    assert {s: signal.getsignal(s) for s in handlers} == handlers  # the handlers put back


def test_a_second_ctrl_c_while_the_first_is_said_is_no_traceback(monkeypatch, capsys):
    """``timeout -s INT`` and an impatient hand send two: the second, arriving while the
    first's line is made, is noted, and the command ends with that one line and 130."""

    def stopped(args):
        raise KeyboardInterrupt

    said = cli._after_interrupt

    def second(args):
        signal.raise_signal(signal.SIGINT)
        return said(args)

    monkeypatch.setattr(cli, "_replay", stopped)
    monkeypatch.setattr(cli, "_after_interrupt", second)
    line = "giftsim replay: interrupted; nothing was kept (this command has no --resume)"
    found = signal.getsignal(signal.SIGINT)
    try:  # a terminal's Ctrl-C, and a background job's (ignored): each put back after
        for handler in (signal.default_int_handler, signal.SIG_IGN):
            signal.signal(signal.SIGINT, handler)
            assert main(["replay", "game.json"]) == 130
            assert capsys.readouterr().err.strip().splitlines() == [line]
            assert signal.getsignal(signal.SIGINT) is handler
    finally:
        signal.signal(signal.SIGINT, found)


def test_sigterm_stops_a_run_as_ctrl_c_does_and_it_resumes(tmp_path):
    """``kill`` (a batch system's time limit) ends a run with one line saying how to go on
    and status 143, its chunks kept; the resume then finishes it (it ended with no word and
    a pool's warning)."""
    out = tmp_path / "termed"
    command = tournament_into(out, games=60000, chunk_size=5000, workers=2)
    run = started(command, out, chunks=2)
    run.send_signal(signal.SIGTERM)
    err = run.communicate(timeout=60)[1]
    assert run.returncode == 143, err
    assert err.strip() == (
        f"giftsim tournament: terminated; the same command with --resume continues from {out}"
    )
    resumes_in_full(command, out)


def resumes_in_full(command: list[str], out: Path) -> None:
    """The run stopped part-way (at least 2 chunks kept, not all) and ``command --resume``
    finishes it, every planned game once."""
    kept = _chunks(out)
    done = subprocess.run([*command, "--resume"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    manifest, rows = load(out)
    planned = sum(job["n_games"] for job in manifest["jobs"])
    assert 2 <= kept < _chunks(out)  # stopped part-way
    assert len(rows.drop_duplicates(["job", "game_index"])) == len(rows) == planned


def test_ctrl_c_on_a_dask_cluster_is_one_line_and_the_run_resumes(tmp_path):
    """A run on a cluster stopped with Ctrl-C: one line and status 130, its chunks kept, and
    the resume finishes it (the client closing with tasks in flight printed a traceback of
    distributed's for each, some 90 lines, before the stop's line)."""
    distributed = pytest.importorskip("distributed")
    out = tmp_path / "on-a-cluster"
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        command = tournament_into(out, games=60000, chunk_size=2500, workers=2)
        command += ["--backend", "dask", "--scheduler", cluster.scheduler_address]
        run = started(command, out, chunks=2, keep_ctrl_c=True)
        run.send_signal(signal.SIGINT)
        err = run.communicate(timeout=60)[1]
        assert run.returncode == 130, err
        assert err.strip() == (
            f"giftsim tournament: interrupted; the same command with --resume continues from {out}"
        )
        resumes_in_full(command, out)


RUNS_ON = """
import signal, sys, time
from experiments import cli, stopping

stopping.STOP_LIMIT = float(sys.argv[2])  # the watchdog reads it when a stop comes
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal: a background job
# (make test in CI) starts with Ctrl-C ignored

def run_on(args):  # a library that loses the stop's exception and runs on
    args.out.mkdir()
    (args.out / "manifest.json").write_text("{}")  # the run has begun: it can resume
    end, said = time.monotonic() + 60, False
    while True:
        try:
            if not said:  # in the try: the stop may come as soon as it is said
                said = True
                print("started", file=sys.stderr, flush=True)
            while time.monotonic() < end:
                time.sleep(0.05)
            return 0
        except KeyboardInterrupt:
            pass

cli._tournament = run_on
sys.argv = ["giftsim", "tournament", "geschenkt", "--agents", "greedy,random", "--out", sys.argv[1]]
sys.exit(cli.entry())
"""


def started_script(script: str, out, limit: float) -> subprocess.Popen:
    """A console-command script (``RUNS_ON``, ``HOLDS``) run with its output path and watchdog
    limit, once it has said "started" on stderr (the rest of which the caller reads)."""
    run = subprocess.Popen(
        [sys.executable, "-c", script, str(out), str(limit)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert run.stderr.readline() == "started\n"
    return run


@pytest.mark.parametrize(
    ("signum", "how"), [(signal.SIGINT, "interrupted"), (signal.SIGTERM, "terminated")]
)
def test_a_stop_that_a_library_loses_still_ends_the_run_soon(tmp_path, signum, how):
    """A stop raised inside a library that loses it (Numba while compiling: a cold ``giftsim
    bench`` stopped 9 s in ran on for 165 s) or in native code that holds on to it: the
    console command's watchdog ends the run ``STOP_LIMIT`` seconds after the stop, with the
    stop's line and status. The limit is 1.5 s here (5 s in the command): the test waits it."""
    limit = 1.5
    out = tmp_path / "r"
    run = started_script(RUNS_ON, out, limit)
    stopped = time.monotonic()
    run.send_signal(signum)
    err = run.communicate(timeout=60)[1]
    waited = time.monotonic() - stopped
    assert run.returncode == 128 + signum, err
    assert err.strip() == (
        f"giftsim tournament: {how}; the same command with --resume continues from {out}"
    )
    assert limit - 0.5 < waited < limit + 3, f"the stop took {waited:.1f} s"


HOLDS = """
import signal, sys, time
from pathlib import Path
from experiments import cli, stopping

OUT, stopping.STOP_LIMIT = Path(sys.argv[1]), float(sys.argv[2])
signal.signal(signal.SIGINT, signal.default_int_handler)

def writes(args):  # files written as one step, for longer than the watchdog's limit
    with stopping.held_stops():
        print("started", file=sys.stderr, flush=True)
        time.sleep(3 * stopping.STOP_LIMIT)
        OUT.write_text("written")
    return 0

cli._tournament = writes
sys.argv = ["giftsim", "tournament", "geschenkt", "--agents", "greedy,random"]
sys.exit(cli.entry())
"""


def test_the_watchdog_waits_for_a_block_that_holds_the_stops(tmp_path):
    """Ctrl-C while a command writes its files as one step (``train``'s outputs and their
    checksums) ends it once the step is done, however long the step takes: the watchdog
    ended it mid-step after ``STOP_LIMIT`` seconds, leaving files the run had not recorded."""
    limit, out = 0.5, tmp_path / "written.txt"
    run = started_script(HOLDS, out, limit)
    run.send_signal(signal.SIGINT)
    err = run.communicate(timeout=60)[1]
    assert run.returncode == 130, err
    assert out.read_text() == "written"
    assert err.strip() == "giftsim tournament: interrupted; without --out nothing was kept"


def test_held_stops_end_as_the_stop_held_and_let_the_blocks_error_go_on():
    before = stopping.stop_on_signals()
    try:
        with pytest.raises(stopping.Terminated), stopping.held_stops():  # SIGTERM's, first or not
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGTERM)
            assert stopping.RELEASED[0] == math.inf
        assert stopping.RELEASED[0] <= time.monotonic()
        with pytest.raises(ValueError, match="the block's own"), stopping.held_stops():
            signal.raise_signal(signal.SIGINT)
            raise ValueError("the block's own")
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def test_a_second_run_into_a_folder_being_played_into_is_refused(tmp_path):
    """A ``--resume`` started while a run still plays into its folder is refused in one line
    and touches no file (two runs played every chunk twice and removed each other's
    unfinished chunks); the first run plays on, each game once."""
    out = tmp_path / "busy"
    command = tournament_into(out, games=5_000_000, chunk_size=20000, workers=1)
    first = started(command, out, chunks=1)
    try:
        before = {p.name for p in out.iterdir() if not p.name.endswith(".tmp")}
        again = [*command, "--resume"]
        second = subprocess.run(again, capture_output=True, text=True, timeout=120)
        assert first.poll() is None, "the first run ended before the second began: play more"
    finally:
        first.send_signal(signal.SIGTERM)  # also when an assertion above fails: no stray run
    assert second.returncode == 2, second.stderr
    assert second.stderr.strip() == (
        f"giftsim tournament: error: --out {out} is being played into by another run now; "
        "wait until it ends (then --resume plays what it left) or choose another folder"
    )
    assert first.wait(timeout=60) == 143, first.stderr.read()
    assert before <= {p.name for p in out.iterdir()}  # nothing of the first run removed
    chunks = sorted(out.glob("chunk-*.parquet"))
    rows = pd.concat([pd.read_parquet(p, columns=["job", "game_index"]) for p in chunks])
    assert len(chunks) >= 2 and len(rows) == 20000 * len(chunks)
    assert not rows.duplicated().any()


def test_a_new_folder_held_by_another_run_is_refused_and_free_once_it_ends(capsys, tmp_path):
    """The lock is the process's: a run whose process ended (killed) leaves it free."""
    out = tmp_path / "new"
    out.mkdir()
    (out / TEMPORARY).write_text('{"experiment": "half')  # the holder's manifest, being written
    hold = "import sys; from pathlib import Path; from giftsim.files import held\n"
    hold += "with held(Path(sys.argv[1])):\n    print('held', flush=True); sys.stdin.read()"
    holder = subprocess.Popen(
        [sys.executable, "-c", hold, str(out)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert holder.stdout.readline() == b"held\n"
    err = one_line_error(
        capsys, ["seats", "geschenkt", "--players", "3", *QUICK, "--out", str(out)]
    )
    assert "is being played into by another run now" in err
    assert sorted(p.name for p in out.iterdir()) == [".giftsim-run.lock", TEMPORARY]
    holder.kill()
    holder.wait(timeout=30)
    assert seats_into(capsys, out) == 0
    assert len(load(out)[1]) == 10


def test_a_file_system_without_locks_plays_unguarded(capsys, tmp_path, monkeypatch):
    """Some network and FUSE file systems refuse ``flock`` (not as a lock held elsewhere): the
    run plays as it did before there was a lock, not a traceback."""
    import errno
    import fcntl

    def refuse(handle, operation):
        raise OSError(errno.EOPNOTSUPP, "Operation not supported")

    monkeypatch.setattr(fcntl, "flock", refuse)
    assert seats_into(capsys, tmp_path / "nolocks") == 0
    assert len(load(tmp_path / "nolocks")[1]) == 10
    assert main(["report", str(tmp_path / "nolocks")]) == 0  # its files' record: no lock
    assert (tmp_path / "nolocks" / "summary.md").is_file()


def test_a_finished_run_in_a_folder_it_may_not_write_resumes_unguarded(capsys, tmp_path):
    """An archived or another user's finished run: ``--resume`` reads it (nothing to play)
    though its lock file cannot be made there."""
    import os as real_os

    from giftsim import files

    assert seats_into(capsys, tmp_path / "done") == 0
    (tmp_path / "done" / files.RUN_LOCK).unlink()
    opened = real_os.open

    def read_only(path, flags, *mode):
        if str(path).endswith(files.RUN_LOCK):
            raise PermissionError(13, "Permission denied", str(path))
        return opened(path, flags, *mode)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(files.os, "open", read_only)
        code = main(
            [
                "seats",
                "geschenkt",
                "--players",
                "3",
                *QUICK,
                "--out",
                str(tmp_path / "done"),
                "--resume",
            ]
        )
    assert code == 0, capsys.readouterr().err
    assert "nothing left to play" in capsys.readouterr().out


def test_killing_the_main_process_stops_its_workers(tmp_path):
    out = tmp_path / "killed"
    command = [
        sys.executable,
        "-m",
        "experiments.cli",
        *("tournament", "geschenkt", "--design", "mirror", "--agents", "sniper"),
        *("--players", "4", "--games", "3000000", "--chunk-size", "20000"),
        *("--workers", "2", "--quiet", "--out", str(out)),
    ]
    main_process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while len(list(out.glob("chunk-*.parquet"))) < 2 and time.time() < deadline:
        time.sleep(0.05)
    children = psutil.Process(main_process.pid).children()
    workers = [p for p in children if any("LokyProcess" in a for a in p.cmdline())]
    os.kill(main_process.pid, signal.SIGKILL)  # the main process only
    main_process.wait()
    written = sorted(p.name for p in out.iterdir())
    time.sleep(3)  # before the fix the workers went on writing a chunk every ~0.5 s
    assert len(workers) == 2
    assert not any(w.is_running() and w.status() != psutil.STATUS_ZOMBIE for w in workers)
    assert sorted(p.name for p in out.iterdir()) == written


# Isolated agents (agents.isolation): an option naming no agent of the run, a limit of zero
# or less, a module that cannot be imported in its own process. ``BAD`` is a folder of bad
# modules; ``{bad}`` in an argument stands for it.
RUN = ["tournament", "geschenkt", "--agents", "greedy,random", *QUICK]
GAUNTLET = ["gauntlet", "geschenkt", "--agents", "greedy", "--fields", "random", "--players", "3"]
GAUNTLET += ["--deals", "2", "--backend", "serial", "--quiet"]
ISOLATION_ERRORS = [
    (
        [*RUN, "--isolate", "sniper"],
        "--isolate names 'sniper', which plays nowhere in this run (agents: greedy, random)",
    ),
    ([*RUN, "--isolate", ","], "--isolate takes agent names separated by commas, got ','"),
    ([*RUN, "--isolate", "random", "--time-limit", "0"], "--time-limit must be a positive number"),
    ([*RUN, "--time-limit", "-1"], "at most 86,400 (a day), got -1"),
    ([*RUN, "--time-limit", "nan"], "--time-limit must be a positive number of seconds, at most"),
    ([*RUN, "--time-limit", "1e12"], "at most 86,400 (a day), got 1e+12"),
    ([*RUN, "--memory-limit", "0"], "--memory-limit must be a positive number of MiB, at most"),
    ([*RUN, "--memory-limit", "-5"], "at most 16,777,216 (16 TiB), got -5"),
    ([*RUN, "--memory-limit", "99999999999999999999"], "(16 TiB), got 99999999999999999999"),
    (
        [*RUN, "--untrusted-module", "{bad}/nowhere.py"],
        "untrusted module '{bad}/nowhere.py': no such .py file",
    ),
    (
        [*RUN, "--untrusted-module", "{bad}/broken.py"],
        "untrusted module 'broken.py' cannot be imported in its own process: "
        "ModuleNotFoundError (broken.py:1): No module named 'no_such_package'",
    ),
    (
        [*RUN, "--untrusted-module", "{bad}/needs_key.py"],
        "untrusted module 'needs_key.py' cannot be imported in its own process: "
        "KeyError (needs_key.py:2): 'GIFTSIM_BOT_KEY'",
    ),
    (
        [*RUN, "--untrusted-module", "{bad}/unused.py"],
        "--untrusted-module {bad}/unused.py defines no agent of this run (it defines unused_bot",
    ),
    (  # a trusted module whose own import fails: exit status 1 and "internal error" before
        [*RUN, "--agents-module", "{bad}/broken.py"],
        "agents module '{bad}/broken.py' failed: it imports 'no_such_package', which Python "
        "cannot find",
    ),
    (  # a file that imports its own name: no module of that name is on the path
        [*RUN, "--agents-module", "{bad}/selfish.py"],
        "agents module '{bad}/selfish.py' failed: it imports 'selfish', which Python cannot",
    ),
    (
        [*RUN, "--agents-module", "{bad}/no_plugin.py"],
        "agents module '{bad}/no_plugin.py' failed: no plugin here",
    ),
    (
        [*RUN, "--agents-module", "{bad}/raises.py"],
        "agents module '{bad}/raises.py' failed: ValueError: a bot's own complaint",
    ),
    (  # its code would run in this process: refused before either loads it
        [*RUN, "--agents-module", "{bad}/unused.py", "--untrusted-module", "{bad}/unused.py"],
        "unused.py is given as --agents-module and as --untrusted-module: its code would run",
    ),
    (
        [*GAUNTLET, "--time-limit", "5"],
        "--time-limit and --memory-limit apply to isolated agents: add --isolate or "
        "--untrusted-module",
    ),
    ([*GAUNTLET, "--memory-limit", "2048"], "apply to isolated agents: add --isolate or"),
    (
        [*GAUNTLET, "--isolate", "sniper"],
        "--isolate names 'sniper', which plays nowhere in this run (agents: greedy, random)",
    ),
    ([*GAUNTLET, "--isolate", "greedy", "--time-limit", "0"], "--time-limit must be a positive"),
    (
        ["record", "geschenkt", "--players", "3", "--isolate", "sniper"],
        "--isolate names 'sniper', which plays nowhere in this run (agents: greedy)",
    ),
    (
        ["play", "geschenkt", "--players", "3", "--isolate", "random", "--seed", "1"],
        "--isolate names 'random', which plays nowhere in this run (agents: greedy)",
    ),
]
BAD_MODULES = {
    "broken.py": "import no_such_package\n",
    # importable here (the test sets the key), not in an agent's process: no parent variable
    "needs_key.py": "import os\nKEY = os.environ['GIFTSIM_BOT_KEY']\n",
    "selfish.py": "import selfish\n",
    "no_plugin.py": "raise ModuleNotFoundError('no plugin here')\n",
    "raises.py": 'raise ValueError("a bot\'s own complaint")\n',
    "unused.py": "from agents.registry import define\n"
    "define('geschenkt', 'unused_bot', lambda obs, params, rng: 0)\n",
}


@pytest.mark.parametrize(("args", "message"), ISOLATION_ERRORS)
def test_bad_isolation_options_are_one_line_and_write_nothing(
    capsys, tmp_path, monkeypatch, args, message
):
    bad = tmp_path / "bad"
    bad.mkdir()
    for name, text in BAD_MODULES.items():
        (bad / name).write_text(text)
    monkeypatch.setenv("GIFTSIM_BOT_KEY", "only in the parent")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    out = ["--out", str(work / "run")] if args[0] in ("tournament", "gauntlet") else []
    args = [a.replace("{bad}", str(bad)) for a in args]
    err = one_line_error(capsys, [*args, *out])
    assert message.replace("{bad}", str(bad)) in err
    assert not list(work.iterdir())


@pytest.mark.parametrize(
    "args",
    [
        ["play", "geschenkt", "--agents", "greedy"],  # would have been --agents-module
        ["tournament", "geschenkt", "--game", "5"],  # would have been --games
        ["record", "tulips", "--play", "4"],  # would have been --players
        ["tune", "geschenkt", "--fam", "sniper"],  # said --family was missing
        ["tournament", "--game", "5"],  # said '5' is no game
        ["record", "--play", "4", "tulips"],  # said '4' is no game
    ],
)
def test_an_abbreviated_option_is_refused_not_read_as_another(capsys, args):
    """The unknown option is the error said, not what argparse missed or misread because
    of it (a required option, or its value read as the game)."""
    with pytest.raises(SystemExit) as stop:
        main(args)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1
    typed = next(word for word in args if word.startswith("--"))
    assert f"error: unrecognized arguments: {typed} " in err
    assert err.endswith(f"(see giftsim {args[0]} --help)\n")


def test_a_missing_file_named_only_by_its_path_says_what_is_wrong():
    from experiments import cli

    assert cli._first(FileNotFoundError("run/chunk-0.parquet")) == (
        "no such file or folder: run/chunk-0.parquet"
    )
    assert cli._first(FileNotFoundError(2, "No such file or directory", "x")) == (
        "x: no such file or directory"  # not "[Errno 2] No such file or directory: 'x'"
    )


def test_written_files_have_the_modes_of_the_users_umask(tmp_path, capsys):
    """A file giftsim writes (through a temporary file, then a rename) is readable as any file
    the user makes: 0644 under umask 022, 0600 under 077; mkstemp's own 0600 would lock others
    out of shared results."""
    for mask, mode in ((0o022, 0o644), (0o077, 0o600)):
        old = os.umask(mask)
        try:
            out = tmp_path / f"g{mask:o}.json"
            assert main(["record", "geschenkt", "--players", "3", "--out", str(out)]) == 0
        finally:
            os.umask(old)
        assert out.stat().st_mode & 0o777 == mode
    capsys.readouterr()


def test_demo_help_states_its_size_and_floor(capsys):
    """``demo --help`` gives the full size per game and the floor of 10 games a seating, and
    the demo's plan keeps to both."""
    from pathlib import Path

    from experiments.commands import _demo_plan

    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "2.1M No Thanks! and 0.55M Tulips games" in text
    assert "every seating plays at least 10 games" in text
    full, tiny = {}, {}
    for totals, scale in ((full, 1.0), (tiny, 1e-6)):
        for (game, _), _, jobs, _ in _demo_plan(Path("unused"), scale, 1):
            totals[game] = totals.get(game, 0) + sum(job.n_games for job in jobs)
            assert scale == 1.0 or {job.n_games for job in jobs} == {10}
    assert round(full["geschenkt"] / 1e5) == 21 and round(full["tulips"] / 1e4) == 55


@pytest.mark.parametrize(
    "args, hint",
    [
        (["ladder", "geschenkt"], "--game geschenkt; see giftsim ladder --help)"),
        (["ladder", "--game", "tulips", "geschenkt"], "(see giftsim ladder --help)"),
        (["tournament", "geschenkt", "tulips"], "(see giftsim tournament --help)"),
        (["bench", "extra"], "(see giftsim bench --help)"),
    ],
)
def test_a_stray_argument_is_refused_by_its_command_with_the_option_it_may_mean(capsys, args, hint):
    with pytest.raises(SystemExit) as stop:
        main(args)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1
    assert err.startswith(f"giftsim {args[0]}: error: unrecognized arguments: {args[-1]} (")
    assert err.rstrip().endswith(hint)


def test_a_count_of_one_agent_is_singular(capsys):
    assert main(["record", "geschenkt", "--players", "3", "--agents", "greedy"]) == 2
    assert capsys.readouterr().err == (
        "giftsim record: error: --agents names 1 agent for 3 players\n"
    )


@pytest.mark.parametrize("summary", [False, True])
def test_a_chunk_that_is_not_of_its_experiment_is_refused_not_counted(capsys, tmp_path, summary):
    """A stray chunk in a results folder (a copy under another chunk's name or a name of no
    chunk, another job's or another experiment's chunk in one's place) is named in one line
    by report and --resume, not counted as games of the folder's experiment."""
    import shutil

    base = ["tournament", "geschenkt", "--agents", "random,greedy", "--players", "3"]
    base += ["--backend", "serial", "--quiet", "--chunk-size", "5", "--games", "10"]
    base += ["--summary-only"] * summary
    folder, other = tmp_path / "runs", tmp_path / "other"
    assert main([*base, "--out", str(folder)]) == 0
    assert main([*base, "--seed", "9", "--out", str(other)]) == 0
    chunks = sorted(folder.glob("chunk-*.parquet"))  # job 0 from 0 and 5, job 1 from 0, ...
    pristine = load(folder)[1]
    stray, alien = "is not a chunk of its experiment", "does not hold the games its name says"
    cases = [
        (folder / "chunk-00099-000000000000.parquet", chunks[0], stray),
        (folder / "chunk-00000-000000000003.parquet", chunks[0], stray),
        (folder / "chunk-old.parquet", chunks[0], stray),
        (chunks[1], chunks[2], alien),  # job 1's games under job 0's name
    ]
    if not summary:  # a summary names no deals: another seed's sums look alike
        cases.append((chunks[1], other / chunks[1].name, alien))
    swapped = tmp_path / "swapped"  # the same seed and games, another agent
    assert main([*base[:3], "random,sniper", *base[4:], "--out", str(swapped)]) == 0
    cases.append((chunks[0], swapped / chunks[0].name, alien))
    for target, source, message in cases:
        kept = target.read_bytes() if target.exists() else None
        shutil.copyfile(source, target)
        for argv in (["report", str(folder), "--quiet"], [*base, "--out", str(folder), "--resume"]):
            capsys.readouterr()
            assert main(argv) == 2, (target.name, argv[0])
            err = capsys.readouterr().err
            assert message in err and target.name in err and len(err.strip().splitlines()) == 1
        if kept is None:
            target.unlink()
        else:
            target.write_bytes(kept)
    assert load(folder)[1].equals(pristine)  # each case undone: the folder reads as before


@pytest.mark.parametrize("drawn", [["--secret", "random"], ["--isolate", "greedy"]])
def test_a_run_with_a_drawn_secret_resumes_with_the_same_command(capsys, tmp_path, drawn):
    """A secret drawn at random (``--secret random``, or isolated agents without --secret) is
    one secret for the whole run, and ``--resume`` continues with it: the games left are
    played as they would have been, none lost or played twice."""
    argv = ["tournament", "geschenkt", "--agents", "random,greedy", "--players", "3"]
    argv += ["--backend", "serial", "--quiet", "--chunk-size", "5", "--games", "10", *drawn]
    folder = tmp_path / "runs"
    assert main([*argv, "--out", str(folder)]) == 0
    jobs = json.loads((folder / MANIFEST).read_text())["jobs"]
    assert len({job["secret"] for job in jobs}) == 1 and jobs[0]["secret"] != 0
    whole = load(folder)[1]
    for chunk in sorted(folder.glob("chunk-*.parquet"))[::2]:  # as if interrupted
        chunk.unlink()
    capsys.readouterr()
    assert main([*argv, "--out", str(folder)]) == 2  # the same experiment: not "another"
    assert "already holds this experiment; add --resume" in capsys.readouterr().err
    assert main([*argv, "--out", str(folder), "--resume"]) == 0
    assert load(folder)[1].equals(whole)


def test_a_run_whose_network_file_changed_does_not_resume(capsys, tmp_path):
    """The folder keeps the SHA-256 of the files its agents read: a network replaced between
    an interruption and --resume would mix two agents' games under one name."""
    shipped = Path(__file__).parents[1] / "agents" / "geschenkt" / "nets"
    network = tmp_path / "me.npz"
    network.write_bytes((shipped / "3p.npz").read_bytes())
    argv = ["tournament", "geschenkt", "--agents", f"greedy,learned:net={network}"]
    argv += ["--players", "3", "--backend", "serial", "--quiet", "--chunk-size", "5"]
    argv += ["--games", "10", "--out", str(tmp_path / "runs")]
    assert main(argv) == 0
    recorded = json.loads((tmp_path / "runs" / MANIFEST).read_text())["inputs"]
    assert list(recorded) == [str(network.resolve())]
    next((tmp_path / "runs").glob("chunk-*.parquet")).unlink()  # as if interrupted
    network.write_bytes((shipped / "3p.npz").read_bytes() + b"\0")  # not the same file
    capsys.readouterr()
    assert main([*argv, "--resume"]) == 2
    err = capsys.readouterr().err
    assert f"{network.resolve()} is not the file the run in" in err
    network.write_bytes((shipped / "3p.npz").read_bytes())  # restored: it resumes
    assert main([*argv, "--resume"]) == 0


@pytest.mark.parametrize("key", ["version", "code"])
def test_a_run_begun_by_another_giftsim_does_not_resume(capsys, tmp_path, key):
    """Another version, or other code under the same version (0.1.0 until a release), may
    play other games from the same seeds: a folder must not mix them."""
    argv = ["tournament", "geschenkt", "--agents", "random,greedy", "--players", "3"]
    argv += ["--backend", "serial", "--quiet", "--chunk-size", "5", "--games", "10"]
    argv += ["--out", str(tmp_path / "runs")]
    assert main(argv) == 0
    path = tmp_path / "runs" / MANIFEST
    manifest = json.loads(path.read_text())
    assert main([*argv, "--resume"]) == 0  # the same code: it resumes
    if key == "version":
        manifest["versions"]["giftsim"] = "0.0.1"
    else:
        manifest["code"] = "0" * len(manifest["code"])  # as if the engine had changed
    path.write_text(json.dumps(manifest))
    next((tmp_path / "runs").glob("chunk-*.parquet")).unlink()  # as if interrupted
    capsys.readouterr()
    assert main([*argv, "--resume"]) == 2
    said = {"version": "was begun by giftsim 0.0.1, this is", "code": "by other giftsim code"}
    assert said[key] in capsys.readouterr().err


def test_secret_random_does_not_take_over_a_run_without_a_drawn_secret(capsys, tmp_path):
    argv = ["tournament", "geschenkt", "--agents", "random,greedy", "--players", "3"]
    argv += ["--backend", "serial", "--quiet", "--chunk-size", "5", "--games", "10"]
    folder = tmp_path / "runs"
    assert main([*argv, "--out", str(folder)]) == 0  # secret 0
    next(folder.glob("chunk-*.parquet")).unlink()
    capsys.readouterr()
    assert main([*argv, "--secret", "random", "--out", str(folder), "--resume"]) == 2
    assert "holds another experiment" in capsys.readouterr().err
    assert {job["secret"] for job in json.loads((folder / MANIFEST).read_text())["jobs"]} == {0}


def test_the_local_worker_cap_leaves_a_dask_cluster_alone():
    from types import SimpleNamespace

    from experiments.cli import CliError, _check_workers

    _check_workers(SimpleNamespace(workers=10_000, backend="dask"))  # the cluster's business
    with pytest.raises(CliError, match="worker processes on this machine are 1 to"):
        _check_workers(SimpleNamespace(workers=10_000, backend="processes"))


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["tournament", "geschenkt", "--out", "r"], "nothing was kept (the run had not begun)"),
        (["tournament", "geschenkt"], "without --out nothing was kept"),
        (
            ["train", "geschenkt", "--players", "3", "--out", "n.npz"],
            "nothing was kept (the run had not begun); the same command starts it",
        ),
        (["bound", "geschenkt", "--target", "greedy", "--out", "b.csv"], "the rows found are in"),
        (["demo"], "the studies written so far are kept; the same command again continues"),
        ([*TUNE], "nothing was kept (with --journal FILE the same command again would"),
        (["ladder"], "nothing was kept (with --journal FILE the same command again would"),
        (["ladder", "--journal", "j.csv"], "no score had finished (j.csv not written yet)"),
        ([*TUNE, "--journal", "j.csv"], "no score had finished (j.csv not written yet)"),
        ([*SOLVE, "--out", "s"], "anything finished is in s; a solve does not resume: run it"),
    ],
)
def test_an_interrupt_says_what_was_kept_and_how_to_go_on(capsys, monkeypatch, argv, said):
    """Ctrl-C: one line, exit 130, promising --resume only where the command has it."""
    from experiments import cli

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_check_together", interrupted)
    assert main(argv) == 130
    err = capsys.readouterr().err.strip()
    assert said in err and err.startswith(f"giftsim {argv[0]}: interrupted;")
    assert len(err.splitlines()) == 1


def test_the_console_command_ignores_ctrl_c_once_its_work_is_done():
    """After the last line a process pool may take seconds to shut down; an interrupt then
    printed loky's traceback under a finished run. The console entry ignores it."""
    import tomllib

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert project["project"]["scripts"]["giftsim"] == "experiments.cli:entry"
    code = (
        "import signal, sys; from experiments.cli import entry; sys.argv = ['giftsim', 'agents',"
        " 'geschenkt']; code = entry(); "
        "from experiments.stopping import quiet_exit; "
        "print(code, signal.getsignal(signal.SIGINT) is quiet_exit, file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stderr.strip().splitlines()[-1] == "0 True"


def test_an_interrupted_exploit_run_keeps_the_agents_it_finished(capsys, tmp_path, monkeypatch):
    """exploit.csv and exploit.md are written after every agent, so Ctrl-C during the second
    agent keeps the first one's rows (they were written only after the last agent)."""
    import pandas as pd

    from experiments import exploit

    real = exploit.exploitability

    def second_interrupted(rules, target, *args, **kwargs):
        if target.spec != "greedy":
            raise KeyboardInterrupt
        return real(rules, target, *args, **kwargs)

    monkeypatch.setattr(exploit, "exploitability", second_interrupted)
    out = tmp_path / "s"
    assert main([*SOLVE, "--no-tables", "--exploit", "greedy,random", "--out", str(out)]) == 130
    assert "anything finished is in" in capsys.readouterr().err
    assert set(pd.read_csv(out / "exploit.csv")["agent"]) == {"greedy"}
    assert "greedy" in (out / "exploit.md").read_text()


def test_a_chunk_that_cannot_be_written_is_named(capsys, tmp_path, monkeypatch):
    """pyarrow's error on a full disk names no file; the one line does."""
    from experiments import runner

    def full(table, path, **kwargs):
        Path(path).write_bytes(b"PAR1 half a chunk")
        raise OSError("[Errno 28] Error writing bytes to file. Detail: [errno 28] No space left")

    monkeypatch.setattr(runner.pq, "write_table", full)
    out = tmp_path / "runs"
    argv = ["tournament", "geschenkt", "--agents", "random,greedy", "--players", "3"]
    err = one_line_error(capsys, [*argv, *QUICK, "--out", str(out)])
    assert f"cannot write {out.resolve()}/chunk-00000-000000000000.parquet: " in err
    assert "No space left" in err and not list(out.glob(".*.tmp"))  # no partial file left


def test_report_of_a_folder_of_results_folders_names_them(capsys, tmp_path):
    """The demo's output folder holds one results folder per study: report names them rather
    than only saying it has no manifest."""
    for name in ("geschenkt-seats", "tulips-round-robin"):
        (tmp_path / name).mkdir()
        (tmp_path / name / MANIFEST).write_text("{}")
    err = one_line_error(capsys, ["report", str(tmp_path)])
    assert "not a giftsim results folder, but it holds 2: report one of them" in err
    assert f"giftsim report {tmp_path / 'geschenkt-seats'}" in err


def test_the_parser_s_cap_on_games_is_the_runner_s():
    """``--games`` is capped in the parser (which must not import the runner, for a quick
    ``--help``) at what the runner can hold: a million chunks of its largest size."""
    from experiments import arguments, runner

    assert arguments.MAX_RUN == runner.MAX_CHUNKS * runner.MAX_CHUNK_SIZE


def test_exact_exploitability_comes_with_95_percent_intervals(capsys, tmp_path):
    """exploit.csv gives each estimate a 95% interval beside its standard error (it gave the
    errors alone): +- 1.96 errors (cut to the figure's range) for an agent that randomises,
    the exact figure for one that does not, whose ``queries`` is empty (it read 2); the
    screen shows a figure per line, a seat per column, each with its interval (it printed a
    row of 20 columns); ``--queries`` with no agent that randomises says it had no use; an
    agent named twice is refused (it was computed twice)."""
    import numpy as np
    import pandas as pd

    out = tmp_path / "s"
    args = [*SOLVE, "--no-tables", "--exploit", "greedy,random", "--queries", "8"]
    assert main([*args, "--out", str(out)]) == 0
    table = pd.read_csv(out / "exploit.csv")
    printed = capsys.readouterr().out.split("\nrandom on ")[1].splitlines()
    assert printed[1].split() == ["seat", "0", "seat", "1", "mean"]
    figures = ("target_share", "best_response", "gain", "held_out", "gain_low")
    rows = table[table.agent == "random"]
    row = rows.iloc[0]
    for line, column in zip(printed[2:7], figures, strict=True):
        low, high = row[f"{column}_ci_low"], row[f"{column}_ci_high"]
        assert (
            line.startswith(f"{column} ") and f"{row[column]:.6f} [{low:.6f}, {high:.6f}]" in line
        )
        # the mean over seats, with the seats' mean error: it bounds the mean's, whatever
        # their correlation (the target's shares sum to 1: their mean is 1/2, no interval)
        mean, half = rows[column].mean(), 1.959964 * rows[f"{column}_se"].mean()
        if column == "target_share":
            assert line.endswith(f"{mean:.6f}") and abs(mean - 0.5) < 1e-9
        else:
            assert f"{mean:.6f} [{max(mean - half, -1.0):.6f}" in line.split("]")[-2] + "]"
    legend = " ".join(printed[7:])
    assert "Quote gain_low" in legend and "lower bound of the exploitability" in legend
    for column in ("target_share", "best_response", "gain", "held_out", "gain_low"):
        half, low = 1.959964 * table[f"{column}_se"], -1.0 if column == "gain_low" else 0.0
        low_end, high_end = (
            (table[column] - half).clip(lower=low),
            (table[column] + half).clip(upper=1),
        )
        assert np.allclose(table[f"{column}_ci_low"], low_end, atol=1e-6)
        assert np.allclose(table[f"{column}_ci_high"], high_end, atol=1e-6)
    greedy, rand = table[table.agent == "greedy"], table[table.agent == "random"]
    assert (greedy["gain_ci_low"] == greedy["gain"]).all() and greedy["queries"].isna().all()
    assert (rand["gain_ci_high"] > rand["gain_ci_low"]).all() and (rand["queries"] == 8).all()
    assert "_ci_low` and `_ci_high` their 95% intervals" in (out / "exploit.md").read_text()
    capsys.readouterr()
    assert main([*SOLVE, "--exploit", "greedy", "--queries", "8"]) == 0
    assert "--queries had no use: none of these agents randomises" in capsys.readouterr().out
    assert main([*SOLVE, "--exploit", "greedy,greedy"]) == 2
    assert "--exploit names greedy more than once" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("extra", "differs"),
    [
        (["--seed", "3"], "(differs in: seed)"),
        (["--chunk-size", "7"], "(differs in: the chunk size)"),
        (["--summary-only"], "(differs in: summaries only)"),
        (["--rule", "chips_per_player=9"], "(differs in: rules)"),
    ],
)
def test_a_refused_resume_says_what_differs(capsys, tmp_path, extra, differs):
    """A resume with another option is refused, naming what differs from the run it would
    join (it said only "holds another experiment")."""
    assert seats_into(capsys, tmp_path / "r") == 0
    err = one_line_error(
        capsys,
        [
            "seats",
            "geschenkt",
            "--players",
            "3",
            *QUICK,
            "--out",
            str(tmp_path / "r"),
            "--resume",
            *extra,
        ],
    )
    assert "holds another experiment" in err and differs in err


@pytest.mark.parametrize("name", [MANIFEST, "chunk-00000-000000000000.parquet"])
def test_force_never_replaces_a_file_of_a_run(capsys, tmp_path, name):
    """``record --force`` onto a results folder's manifest or chunk is refused: the run's
    games would be lost (the manifest was replaced by a game record and report failed)."""
    assert seats_into(capsys, tmp_path / "r") == 0
    target = tmp_path / "r" / name
    before = target.read_bytes()
    err = one_line_error(capsys, ["record", "geschenkt", "--out", str(target), "--force"])
    assert f"{target} is a file of the results in {tmp_path / 'r'}" in err
    assert target.read_bytes() == before


def test_a_plot_of_an_unfinished_run_does_not_claim_its_games_per_seating():
    """2,800 of 4,800 planned games: the title said "(200 per seating)", false for seatings
    that played none; it says the run is unfinished."""
    from experiments.commands import describe

    jobs = [{"agents": ["greedy", "random", "sniper"], "n_games": 200}] * 24
    manifest = {"game": "geschenkt", "design": "round-robin", "jobs": jobs}
    assert describe(manifest, 4_800).endswith("4,800 games (200 per seating)")
    unfinished = describe(manifest, 2_800).replace("\n", " ")  # a subject breaks long lines
    assert unfinished.endswith("2,800 games (of 4,800 planned: unfinished)")


def test_a_plot_of_a_field_names_its_candidate():
    """A field's title said "field of greedy, sniper" (names sorted): which was the candidate
    was not said; the candidate is the first seat of the unrotated seatings."""
    from dataclasses import asdict

    from experiments.commands import describe
    from experiments.schedule import field_design, seating_groups

    for candidate, baseline in (("sniper", "greedy"), ("greedy", "sniper")):
        jobs = [asdict(job) for job in field_design("geschenkt", candidate, baseline, 2, 10)]
        manifest = {"game": "geschenkt", "design": "field", "jobs": jobs}
        assert describe(manifest, 20).startswith(
            f"No Thanks!, {candidate} in a field of {baseline}, 2 players, 20 games"
        )
    groups = [[("greedy", "greedy", "sniper")], [("greedy", "greedy", "random")]]
    jobs = [asdict(job) for job in seating_groups("geschenkt", groups, 10)]  # no candidate
    manifest = {"game": "geschenkt", "design": "field", "jobs": jobs}
    assert describe(manifest, 60).startswith("No Thanks!, field of greedy, random, sniper, 3 ")


def test_exact_exploitability_intervals_stay_within_their_figures_range():
    """A share's interval stays in [0, 1], a best response's gain in [0, 1] and ``gain_low``
    (two shares measured apart) in [-1, 1], however large the error."""
    import pandas as pd

    from experiments.solving import with_intervals

    table = pd.DataFrame({"seat": [0], "target_share": [0.999], "target_share_se": [0.01]})
    table = table.assign(gain_low=[-0.998], gain_low_se=[0.01], best_response=[0.002])
    table = with_intervals(table.assign(best_response_se=[0.01], gain=[0.001], gain_se=[0.01]))
    assert table.loc[0, "target_share_ci_high"] == 1.0 and table.loc[0, "gain_low_ci_low"] == -1.0
    assert table.loc[0, "best_response_ci_low"] == 0.0 and table.loc[0, "gain_ci_low"] == 0.0
    assert 0.97 < table.loc[0, "target_share_ci_low"] < 0.99


def test_a_run_stopped_before_it_began_is_not_sent_to_resume(tmp_path, monkeypatch, capsys):
    """Stopped before its folder held a run, the advice was "--resume continues from OUT",
    which then refused: OUT holds no run. A train run is judged by its checkpoint."""
    from types import SimpleNamespace

    def stopped_at_once(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_tournament", stopped_at_once)
    out = tmp_path / "r"
    code = main(["tournament", "geschenkt", "--agents", "greedy,random", "--out", str(out)])
    assert (code, capsys.readouterr().err.strip()) == (
        130,
        "giftsim tournament: interrupted; nothing was kept (the run had not begun); the same "
        "command starts it",
    )
    network = tmp_path / "n.npz"
    train = SimpleNamespace(command="train", out=network, resume=False)
    assert cli._after_interrupt(train).startswith("nothing was kept")
    (tmp_path / "n.ckpt").mkdir()
    (tmp_path / "n.ckpt" / "progress.json").write_text("{}")
    assert cli._after_interrupt(train) == f"the same command with --resume continues from {network}"


def test_a_stop_lost_in_a_ctypes_callback_prints_no_traceback(tmp_path, monkeypatch, capsys):
    """Ctrl-C while Numba's LLVM calls back into Python (its object cache, during a first
    compilation) raised in a ctypes callback, where Python cannot raise it: it printed
    "Exception ignored on calling ctypes callback function" and a traceback above the stop's
    line. The stop still ends the command, with its one line."""
    import ctypes

    def run_through_a_callback(args):
        def callback():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the handler raises here, inside the callback

        ctypes.CFUNCTYPE(None)(callback)()
        return 0

    monkeypatch.setattr(cli, "_tournament", run_through_a_callback)
    monkeypatch.setattr(signal, "getsignal", lambda s: signal.default_int_handler)
    monkeypatch.setattr(sys, "unraisablehook", sys.__unraisablehook__)  # not pytest's
    out = tmp_path / "r"
    code = main(["tournament", "geschenkt", "--agents", "greedy,random", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 130 and err.strip().splitlines() == [
        "giftsim tournament: interrupted; nothing was kept (the run had not begun); the same "
        "command starts it"
    ], err

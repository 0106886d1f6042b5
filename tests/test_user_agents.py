"""User agents everywhere: defined in a file, a module or a test (as in a notebook), compiled or
plain Python, they play in every backend and on the command line, and give the same games."""

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from agents.base import Range
from agents.registry import compiling_later, define, load_module, parse
from experiments.runner import run
from experiments.schedule import field_design
from geschenkt_sim.rules import PASS, TAKE
from giftsim.rng import next_float

AGENTS_FILE = '''
"""Two user agents of the same rule: one compiled, one plain Python."""
from agents.registry import define
from geschenkt_sim.engine import CHIPS, POT, SEAT


def run_taker(obs, params, rng):
    """Take once the pot reaches ``pot``; take when out of chips."""
    seat = obs[SEAT]
    return 1 if obs[CHIPS + seat] == 0 or obs[POT] >= params[0] else 0


def py_rule(obs, params, rng):
    seat = int(obs[SEAT])
    return 1 if obs[CHIPS + seat] == 0 or obs[POT] >= params[0] else 0


define("geschenkt", "file_taker", run_taker, {"pot": 4})
define("geschenkt", "file_py_taker", py_rule, {"pot": 4}, compiled=False)
'''


@pytest.fixture(scope="module")
def agents_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("user") / "my_agents.py"
    path.write_text(AGENTS_FILE)
    names = {f.name for f in load_module(str(path))}
    assert names == {"file_taker", "file_py_taker"}
    return path


def _rows(candidate, backend, **options):
    jobs = field_design("geschenkt", candidate, "greedy", 3, 60, seed=4)
    frame, _, played = run(jobs, backend=backend, chunk_size=25, progress=False, **options)
    assert played == 180
    return frame.drop(columns=[c for c in frame.columns if c.startswith("agent_")])


@pytest.mark.parametrize("candidate", ["file_taker", "file_py_taker:pot=6"])
def test_a_file_agent_plays_alike_in_the_serial_and_process_backends(agents_file, candidate):
    serial = _rows(candidate, "serial")
    processes = _rows(candidate, "processes", workers=2)
    assert serial.equals(processes)


def test_a_plain_python_agent_plays_the_same_games_as_its_compiled_twin(agents_file):
    compiled = _rows("file_taker", "serial")
    plain = _rows("file_py_taker", "serial")
    assert compiled.equals(plain)


def test_a_file_agent_plays_on_a_dask_cluster(agents_file):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True) as cluster:
        remote = _rows("file_taker", "dask", scheduler=cluster.scheduler_address, workers=1)
    assert remote.equals(_rows("file_taker", "serial"))


def notebook_rule(obs, params, rng):
    return 1 if obs[3] >= 3 or obs[14 + obs[11]] == 0 else 0


define("geschenkt", "notebook_taker", notebook_rule)


def test_an_agent_defined_in_a_notebook_plays_in_worker_processes():
    assert _rows("notebook_taker", "processes", workers=2).equals(_rows("notebook_taker", "serial"))


@pytest.mark.parametrize(
    "command",
    [
        "tournament geschenkt --agents file_taker,greedy --players 3",
        "tournament geschenkt --design field --candidate file_py_taker --baseline greedy "
        "--players 3",
        "seats geschenkt --agents file_taker --players 3",
    ],
)
def test_the_command_line_loads_an_agents_module(agents_file, command, tmp_path):
    argv = [*command.split(), "--agents-module", str(agents_file), "--games", "20", "--quiet"]
    done = subprocess.run(
        [sys.executable, "-m", "experiments.cli", *argv, "--workers", "2"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "file_" in done.stdout


def test_a_record_of_a_file_agent_replays(agents_file, tmp_path):
    record = tmp_path / "g.json"
    base = [sys.executable, "-m", "experiments.cli"]
    command = "record geschenkt --players 3 --agents file_taker,greedy,file_py_taker --secret 7"
    made = subprocess.run(
        [*base, *command.split(), "--out", str(record), "--agents-module", str(agents_file)],
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    checked = subprocess.run([*base, "replay", str(record)], capture_output=True, text=True)
    assert checked.returncode == 0 and "record OK" in checked.stdout


def test_an_unknown_agents_module_is_one_line(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "experiments.cli", "agents", "--agents-module", "no/such.py"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "no such file" in done.stderr


def test_define_reports_numbas_own_explanation():
    table = {3: 1}

    def reads_a_dict(obs, params, rng):
        return table[obs[2]]

    with pytest.raises(ValueError, match="Untyped global name 'table'"):
        define("geschenkt", "reads_a_dict", reads_a_dict)


def test_a_decide_that_returns_a_fraction_is_refused_not_truncated():
    """The loop's entry returns int64: a float action would play its whole part (1.7 -> 1)."""

    def leans_to_take(obs, params, rng):
        return 0.5 + params[0]

    with pytest.raises(ValueError, match="returns float64, not a whole number"):
        define("geschenkt", "leans_to_take", leans_to_take, {"lean": 1.2})
    with compiling_later():  # an isolated agent's process compiles on first use
        family = define("geschenkt", "leans_to_take", leans_to_take, {"lean": 1.2})
    with pytest.raises(ValueError, match="returns float64, not a whole number"):
        family.entry()

    def takes(obs, params, rng):  # as the message says
        return int(0.5 + params[0])

    assert define("geschenkt", "leans_to_take", takes, {"lean": 1.2}).entry().signatures


@pytest.mark.parametrize(
    ("spec", "valid"),
    [
        ("random:p=2", "[0, 1]"),
        ("greedy:T=nan", "any finite number"),
        ("flatmc:iters=-5", "a whole number in [1, 10000000]"),
        ("flatmc:iters=2.5", "a whole number in [1, 10000000]"),
        ("flatmc:policy=9", "one of 0, 1, 2, 3, 4"),
        ("sniper:reserve=inf", "any finite number"),
    ],
)
def test_agent_parameters_outside_their_range_are_refused(spec, valid):
    with pytest.raises(ValueError, match="out of range") as error:
        parse(spec, "geschenkt")
    assert valid in str(error.value)


def test_planner_race_must_be_finite():
    for value in ("nan", "inf", "-inf"):
        with pytest.raises(ValueError, match="any finite number"):
            parse(f"planner:race={value}", "tulips")
    assert np.isfinite(parse("planner:race=0.9", "tulips").params["race"])


def test_a_redefined_notebook_agent_plays_its_new_code_in_reused_workers():
    """Worker processes outlive a run (joblib reuses them): after a notebook redefines an agent
    under the same name, the next run must play the new rule there, not the old one."""

    def takes_early(obs, params, rng):
        return 1

    def passes_while_it_can(obs, params, rng):
        return 1 if obs[14 + obs[11]] == 0 else 0

    define("geschenkt", "redefined_taker", takes_early)
    first = _rows("redefined_taker", "processes", workers=2)
    define("geschenkt", "redefined_taker", passes_while_it_can)
    second = _rows("redefined_taker", "processes", workers=2)
    assert not first.equals(second)
    assert second.equals(_rows("redefined_taker", "serial"))


def test_a_run_resumes_only_with_the_agents_module_it_began_with(tmp_path):
    """An agents file edited between an interruption and --resume would mix two versions'
    games under one name: the folder keeps the file's SHA-256 and refuses it."""
    agents_file = tmp_path / "edited_agents.py"
    agents_file.write_text(AGENTS_FILE.replace("file_", "edited_"))
    out = tmp_path / "runs"
    argv = [sys.executable, "-m", "experiments.cli", "tournament", "geschenkt", "--agents"]
    argv += ["edited_taker,greedy", "--players", "3", "--games", "10", "--chunk-size", "5"]
    argv += ["--backend", "serial", "--quiet", "--agents-module", str(agents_file)]
    argv += ["--out", str(out)]
    assert subprocess.run(argv, capture_output=True, text=True).returncode == 0
    next(out.glob("chunk-*.parquet")).unlink()  # as if interrupted
    agents_file.write_text(agents_file.read_text().replace('{"pot": 4}', '{"pot": 5}', 1))
    resumed = subprocess.run([*argv, "--resume"], capture_output=True, text=True)
    assert resumed.returncode == 2
    assert f"{agents_file.resolve()} is not the file the run in" in resumed.stderr


def test_define_warns_of_a_decide_that_draws_from_an_unkeyed_stream():
    """``np.random`` in ``decide`` compiles and plays, but its games differ from run to run
    (two runs of ``play(..., seed=1)`` gave different frames): ``define`` says so, naming
    the seat's own stream as the way; a decide that draws from ``rng`` is not warned of."""

    def coin(obs, params, rng):
        return TAKE if np.random.random() < 0.5 else PASS

    def keyed_coin(obs, params, rng):
        return TAKE if next_float(rng) < 0.5 else PASS

    with pytest.warns(UserWarning, match=r"'coin': decide uses `random`.*next_float\(rng\)"):
        define("geschenkt", "coin", coin, compiled=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        define("geschenkt", "keyed_coin", keyed_coin, compiled=False)


def test_a_range_for_no_parameter_is_refused():
    """A range keyed by a misspelt parameter was dropped and the parameter left unchecked."""

    def takes(obs, params, rng):
        return TAKE

    with pytest.raises(ValueError, match=r"^agent 'ranged': ranges names 'j', not a parameter"):
        define("geschenkt", "ranged", takes, {"k": 8.0}, ranges={"j": Range(0, 100)})

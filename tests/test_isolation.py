"""Isolated agents (``agents.isolation``): each plays from an OS process of its own and plays
exactly the games it plays in process; its faults forfeit games instead of stopping the run;
its process starts without the parent's state, secret, seeds or environment."""

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import distributed
import numpy as np
import pandas as pd
import pytest

from agents.drivers.generate import PRIVATE
from agents.drivers.isolated import WIDTH
from agents.isolation import (
    CRASHED,
    ILLEGAL,
    MAX_WARM_UP,
    MEMORY,
    NO_START,
    NOT_INTEGER,
    RAISED,
    TIMEOUT,
    Isolation,
    confine,
    host,
    keeper,
)
from agents.isolation.keeper import remove_folder
from agents.isolation.untrusted import load_untrusted
from agents.registry import compiling_later, define, parse_list
from experiments.batch import play
from experiments.cli import main
from experiments.games import play_block, play_block_isolated
from experiments.isolation import check_start, isolate
from experiments.manifest import read
from experiments.results import load
from experiments.runner import run
from experiments.schedule import Job, field_design
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.state import CHIPS, POT, SEAT
from giftsim import notice
from giftsim.game import load_game
from giftsim.rng import next_below
from tests.env_helpers import deadline
from tulips_sim.state import LEGAL

BOTS = Path(__file__).parent / "bots"
ROOT = Path(__file__).resolve().parent.parent  # the repository
SECRET = 0x5EC2E7


def pot5(obs, params, rng):
    """Take once 5 chips lie on the card (the faulty bots' rule when they do not fault)."""
    broke = obs[CHIPS + obs[SEAT]] == 0
    return TAKE if broke or obs[POT] >= 5 else PASS


def coin(obs, params, rng):
    """Take or pass at random, drawing from the seat's stream (the stream crosses)."""
    broke = obs[CHIPS + obs[SEAT]] == 0
    return TAKE if broke or next_below(rng, 2) == 1 else PASS


def tulips_coin(obs, params, rng):
    """A random legal action, drawn from the seat's stream."""
    legal, count = obs[LEGAL], 0
    for action in range(63):
        count += (legal >> action) & 1
    pick = next_below(rng, count)
    for action in range(63):
        if (legal >> action) & 1:
            if pick == 0:
                return action
            pick -= 1
    return 0


with compiling_later():  # each compiled when first played
    define("geschenkt", "iso_pot5", pot5)
    define("geschenkt", "iso_coin", coin)
    define("geschenkt", "iso_coin_py", coin, compiled=False)
    define("tulips", "iso_coin", tulips_coin)
    define("tulips", "iso_coin_py", tulips_coin, compiled=False)

MIXES = {
    "geschenkt": ["iso_coin", "greedy", "iso_coin_py", "random"],
    "tulips": ["iso_coin", "greedy", "iso_coin_py", "hoarder"],
}


@pytest.mark.parametrize("game", ["geschenkt", "tulips"])
def test_isolated_agents_play_the_games_they_play_in_process(game):
    """Built-in, compiled and plain-Python agents, each from its own process, against
    in-process seats: every game equal to the in-process game under the same secret."""
    rules, agents = load_game(game).rules(n_players=4), parse_list(MIXES[game], game)
    for isolated, games in ((("iso_coin", "greedy", "iso_coin_py"), 60), (("iso_coin",), 10)):
        # the trusted seats compiled: the loop; a trusted seat plain Python: the slow path
        where = (3, 20, games, "rotate", SECRET)
        rows, forfeits, _ = play_block_isolated(game, rules, agents, *where, Isolation(isolated))
        assert np.array_equal(rows, play_block(game, rules, agents, *where))
        assert not forfeits.any()


def test_an_isolated_agent_reads_the_network_its_spec_names(tmp_path):
    """A network outside giftsim's folders, named by ``net=``, is the one file beyond them
    its confined process may read: it plays the games it plays in process."""
    mine = tmp_path / "mine.npz"
    shutil.copy(ROOT / "docs" / "responders" / "geschenkt-3p-greedy.npz", mine)
    rules = load_game("geschenkt").rules(n_players=3)
    agents = parse_list([f"learned:net={mine}", "sniper", "greedy"], "geschenkt")
    where = (3, 0, 12, "rotate", SECRET)
    rows, forfeits, _ = play_block_isolated(
        "geschenkt", rules, agents, *where, Isolation(("learned",))
    )
    assert not forfeits.any()
    assert np.array_equal(rows, play_block("geschenkt", rules, agents, *where))


def test_isolated_matches_of_several_rounds_are_the_matches_in_process():
    rules = load_game("geschenkt").rules(n_players=3, rounds=3)
    agents = parse_list(["iso_coin", "sniper", "greedy"], "geschenkt")
    rows, *_ = play_block_isolated(
        "geschenkt", rules, agents, 1, 0, 30, "rotate", SECRET, Isolation(("iso_coin",))
    )
    assert np.array_equal(rows, play_block("geschenkt", rules, agents, 1, 0, 30, "rotate", SECRET))


def isolated_jobs(candidate: str, games: int):
    """A field of an isolated ``candidate`` against a built-in under a fixed secret, and the
    rows of the same jobs in process."""
    plain = field_design("geschenkt", candidate, "sniper", 3, games, seed=4)
    marked = Isolation((candidate,)).as_dict()
    isolated = [replace(j, secret=SECRET, isolation=marked) for j in plain]
    reference, _, _ = run(
        [replace(j, secret=SECRET) for j in plain], backend="serial", progress=False
    )
    return isolated, reference


def without_forfeits(frame: pd.DataFrame) -> pd.DataFrame:
    assert not frame.filter(like="forfeit_").to_numpy().any()
    return frame.drop(columns=[c for c in frame if c.startswith("forfeit_")])


def test_same_games_whatever_the_chunk_size():
    """A user agent isolated (sent to its process pickled by value), in blocks of 70."""
    isolated, reference = isolated_jobs("iso_coin", 300)
    frame, _, played = run(isolated, backend="serial", chunk_size=70, progress=False)
    assert played == 900
    pd.testing.assert_frame_equal(without_forfeits(frame), reference)


@pytest.fixture(scope="module")
def builtin_jobs():
    """A built-in isolated (``random``: it draws from its stream), so that worker processes
    start its process from the compiled cache."""
    return isolated_jobs("random", 300)


def test_same_games_with_worker_processes(builtin_jobs):
    isolated, reference = builtin_jobs
    frame, _, _ = run(isolated, backend="processes", workers=2, chunk_size=250, progress=False)
    pd.testing.assert_frame_equal(without_forfeits(frame), reference)


def test_same_games_on_a_dask_cluster(builtin_jobs):
    isolated, reference = builtin_jobs
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        frame, _, _ = run(
            isolated,
            backend="dask",
            scheduler=cluster.scheduler_address,
            chunk_size=300,
            progress=False,
        )
    pd.testing.assert_frame_equal(without_forfeits(frame), reference)


def test_a_run_with_isolated_agents_keeps_its_random_secret_and_replays(tmp_path):
    out = tmp_path / "run"
    args = ["tournament", "geschenkt", "--design", "field", "--candidate", "iso_coin"]
    args += ["--baseline", "greedy", "--players", "3", "--games", "20", "--backend", "serial"]
    assert main([*args, "--quiet", "--isolate", "iso_coin", "--out", str(out)]) == 0
    manifest = read(out)
    secrets = {job["secret"] for job in manifest["jobs"]}
    assert len(secrets) == 1 and secrets != {0}
    kept = [Job(**{**job, "agents": tuple(job["agents"])}) for job in manifest["jobs"]]
    assert {tuple(j.isolation["agents"]) for j in kept} == {("iso_coin",)}
    again, _, _ = run([replace(j, isolation={}) for j in kept], backend="serial", progress=False)
    _, frame = load(out)
    scores = [f"score_{s}" for s in range(3)]
    assert frame[scores].equals(again[scores])


def faulty_tables():
    """Two tables of the faulty bots (tests/bots/faulty.py, loaded untrusted) and what each
    seat forfeits: a bot faults at the first decision of a game, so in the games it begins
    (first player rotating: seat s in games s, s + 4, ..)."""
    return [
        (["raiser", "looper", "crasher", "greedy"], [RAISED, TIMEOUT, CRASHED, 0]),
        (["hog", "illegal", "fraction", "greedy"], [MEMORY, ILLEGAL, NOT_INTEGER, 0]),
    ]


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    load_untrusted(BOTS / "faulty.py", 600)
    return Isolation((), time_limit=0.4, memory_mb=600, warm_up=1.0)  # looper's warm-up: 1 s


@pytest.mark.parametrize(("table", "codes"), faulty_tables())
def test_every_fault_forfeits_its_game_and_the_other_games_stand(faulty, table, codes):
    rules, n_games = load_game("geschenkt").rules(n_players=4), 8
    agents = parse_list(table, "geschenkt")
    rows, forfeits, _ = play_block_isolated(
        "geschenkt", rules, agents, 1, 0, n_games, "rotate", SECRET, faulty
    )
    twins = parse_list(["iso_pot5"] * 3 + ["greedy"], "geschenkt")
    honest = play_block("geschenkt", rules, twins, 1, 0, n_games, "rotate", SECRET)
    begins = np.arange(n_games) % 4
    for g in range(n_games):
        expected = [codes[s] if s == begins[g] else 0 for s in range(4)]
        assert forfeits[g].tolist() == expected
        if not any(expected):
            assert np.array_equal(rows[g], honest[g])  # the other games are intact
        else:
            assert not (int(rows[g, -1]) >> int(begins[g])) & 1  # a forfeit never wins


def test_a_tournament_of_faulty_bots_finishes_and_report_counts_forfeits(faulty, tmp_path, capsys):
    out = tmp_path / "faults"
    args = [
        "tournament",
        "geschenkt",
        "--design",
        "round-robin",
        "--agents",
        "raiser,crasher,greedy",
    ]
    args += ["--players", "3", "--games", "2", "--backend", "serial"]
    args += ["--untrusted-module", str(BOTS / "faulty.py"), "--time-limit", "0.4"]
    assert main([*args, "--memory-limit", "600", "--quiet", "--out", str(out)]) == 0
    manifest, frame = load(out)
    assert len(frame) == len(manifest["jobs"]) * 2  # every chunk written
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    report = capsys.readouterr().out
    table = report.split("== forfeits by agent")[1].split("==")[0]
    lost = {line.split()[0]: line.split() for line in table.splitlines() if line[:1].isalpha()}
    codes = frame.filter(like="forfeit_").to_numpy()
    assert "raised" in " ".join(lost["raiser"]) and "crashed" in " ".join(lost["crasher"])
    assert int(lost["raiser"][2]) + int(lost["crasher"][2]) == int((codes != 0).sum()) > 0


RAISER_LINE = 1 + (BOTS / "faulty.py").read_text().splitlines().index(
    '        raise ValueError("the raiser raises")'
)
RAISER_SAYS = f"ValueError (faulty.py:{RAISER_LINE}): the raiser raises"  # its line named


def bot_said(box) -> str:
    """The message of the RuntimeError that ended a test bot's last decision (how these bots
    report what they saw), without its type and the place it was raised."""
    return re.sub(r"^RuntimeError( \([^()]*:\d+\))?: ", "", box.faults[-1][1])


def test_record_keeps_a_forfeit_and_replays(faulty, tmp_path, capsys):
    path = tmp_path / "r.json"
    args = ["record", "geschenkt", "--agents", "raiser,greedy,greedy", "--players", "3"]
    args += ["--untrusted-module", str(BOTS / "faulty.py"), "--out", str(path)]
    assert main(args) == 0
    assert f"seat 0 (raiser) forfeited round 0: raised: {RAISER_SAYS}" in capsys.readouterr().err
    made = json.loads(path.read_text())
    assert made["forfeits"] == [{"seat": 0, "round": 0, "reason": f"raised: {RAISER_SAYS}"}]
    assert made["secret"] > 0 and made["isolated"] == ["raiser"]
    assert main(["replay", str(path)]) == 0


SPY = """
import json, os, socket, stat, sys
from agents.registry import define


def kind(fd):
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return None
    kinds = ((stat.S_ISFIFO, "pipe"), (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "device"))
    return next((name for test, name in kinds if test(mode)), "file")


def tried(action):
    try:
        action()
        return "done"
    except OSError as error:
        return type(error).__name__


def spy(obs, params, rng):
    \"\"\"Reports what its process has and may do, in the message of the error it raises.\"\"\"
    seen = {
        "env": sorted(k for k in os.environ if not k.startswith("NUMBA_")),
        "argv": sys.argv[1:],
        "cwd": os.getcwd(),
        "files": sorted(os.listdir(".")),
        "fds": sorted({kind(fd) for fd in range(256)} - {None}),
        "secret": tried(lambda: open(SECRET_FILE).read()),
        "cmdline": tried(lambda: open(f"/proc/{HOST}/cmdline").read()),
        "tcp": tried(lambda: socket.create_connection(("127.0.0.1", PORT), timeout=5).close()),
        "signal": tried(lambda: os.kill(HOST, 0)),
        "cache": tried(lambda: open(os.environ["NUMBA_CACHE_DIR"] + "/planted.py", "w").close()),
        "udp": tried(lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()),
        "mptcp": tried(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262).close()),
        "unix": tried(lambda: socket.socket(socket.AF_UNIX).close()),
        "shadow": tried(lambda: open("/etc/shadow").read()),
        "mknod": tried(lambda: os.mknod("null", stat.S_IFCHR | 0o600, os.makedev(1, 3))),
    }
    raise RuntimeError(json.dumps(seen, separators=(",", ":")))


define("geschenkt", "spy", spy, compiled=False)
"""


def test_an_isolated_process_has_nothing_of_the_parents_and_reaches_nothing_else(
    tmp_path, monkeypatch
):
    """What an agent's process has: Numba's settings and a few fixed variables, no variable of
    the parent's (a secret in the parent's environment stays there), only its own pipe ends,
    devices and shared block open, an empty folder of its own, a command line of file numbers.
    And what it may do, confined by the kernel (``agents.isolation.confine``, Linux Landlock):
    no file outside its own places (a secret file the run's user can read, /etc/shadow), no
    write into Numba's cache folder (the run loads code from it), no device node, no other
    process's ``/proc`` folder (the run's command line), no socket (TCP, UDP, MPTCP, Unix), no
    signal to the run; each of which this process itself can do (as root here)."""
    secret = tmp_path / "secret.txt"
    secret.write_text("the run's secret")
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    module = tmp_path / "spy.py"
    header = f"SECRET_FILE = {str(secret)!r}\nHOST = {os.getpid()}\nPORT = {port}\n"
    module.write_text(header + SPY)
    monkeypatch.setenv("GIFTSIM_TEST_SECRET", "do-not-cross")
    load_untrusted(module)
    box = host.Sandbox("geschenkt", parse_list(["spy"], "geschenkt")[0], 3, 4, Isolation())
    try:
        box.start()
        box.rows[0], box.words[0] = 0, 1
        assert box.run(1).tolist() == [RAISED]
        seen = json.loads(bot_said(box))
    finally:
        box.close()
        host.end_idle()
        listener.close()
    assert set(seen["env"]) <= {"PATH", "LANG", "HOME", "TMPDIR", PRIVATE, *host.THREADS}
    assert seen["files"] == ["drivers", "spy.py"]  # written by itself: its module, its drivers
    assert len(seen["argv"]) == 2 and all(a.lstrip("-").isdigit() for a in seen["argv"])
    assert set(seen["fds"]) <= {"pipe", "device", "file"}, seen["fds"]  # file: the block
    assert Path(seen["cwd"]).name.startswith("giftsim-agent-") and not Path(seen["cwd"]).exists()
    assert secret.read_text() and Path(f"/proc/{os.getpid()}/cmdline").read_bytes()  # allowed here
    version = confine.abi()
    assert version >= 1 or sys.platform != "linux"  # Linux 5.13 and later have Landlock
    denied = {"secret": 1, "cmdline": 1, "cache": 1, "tcp": 4, "signal": 6}  # from which ABI
    denied |= dict.fromkeys(["udp", "mptcp", "unix", "shadow", "mknod"], 1)
    for attempt, since in denied.items():
        assert seen[attempt] == ("PermissionError" if version >= since else "done"), attempt


# A built-in isolated from the Python API (a family object: no spec parsed, so no roster built
# in this process) in a cache folder no process has filled: its process's first decision, and
# what it wrote in its own folder.
FIRST_DECISION = """
import json, os
import numpy as np
from agents.geschenkt import SNIPER
from agents.isolation import Isolation, host
from giftsim.game import load_game
game = load_game("geschenkt")
state = np.zeros(game.state_size, np.int64)
game.deal_keyed(game.rules(n_players=3).to_array(), np.uint64(0), 0, state)
game.begin(state)
box = host.Sandbox("geschenkt", SNIPER(), 3, 4, Isolation())
try:
    box.start()
    game.observe(state, int(state[game.turn_slot]), box.rows[0])
    box.words[0] = 1
    faults = box.run(1).tolist()
    print(json.dumps({
        "cached": box.message["cached"], "faults": faults, "action": int(box.actions[0]),
        "legal": [int(a) for a in game.legal_actions(state)],
        "written": os.listdir(box.kept.template.folder),
    }))
finally:
    box.close()
    host.end_idle()
"""


# The start of that built-in's process, by its own functions (``agents.isolation.child``: the
# agent loaded, its batch function made and called once without a decision), Numba saving
# nothing as in the confined process: the cache's hits and misses of the entry and ``serve``.
CHILD_START = """
import json, socket
from agents.isolation import protocol
from agents.isolation.child import _load, _server
from agents.isolation.confine import read_only_cache
from agents.isolation.serve import serve
from giftsim.game import load_game
read_only_cache()
start = {"game": "geschenkt", "spec": "sniper", "agent": None, "module": None, "path": [],
         "mode": "serve", "capacity": 4, "players": 3, "warm_up": 1.0}
agent, _ = _load(start)
fd = protocol.create(4, load_game("geschenkt").obs_size)
_server(start, agent, fd, socket.socketpair()[0])
counts = lambda d: [sum(d.stats.cache_hits.values()), sum(d.stats.cache_misses.values())]
print(json.dumps({"entry": counts(agent.family.decider), "serve": counts(serve)}))
"""


def test_an_isolated_builtin_loads_the_drivers_its_run_compiled_in_the_cache(tmp_path):
    """A built-in's process, which may not write Numba's cache folder, imports the drivers
    its run generated there and loads what the run compiled (``host.entry_cached``): it
    decides, legally, and writes nothing in its own folder (a user's agent's process writes
    its drivers there: the spy above), even for a family held without its game's roster,
    whose network searches' drivers the process's roster reads (the run writes them first).
    Its start, by the child's own functions, loads its entry and its batch function from the
    cache and compiles neither."""
    env = {k: v for k, v in os.environ.items() if k != PRIVATE}
    env["NUMBA_CACHE_DIR"] = str(tmp_path)

    def run(script: str) -> dict:
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    seen = run(FIRST_DECISION)
    assert seen["cached"] and seen["faults"] == [0] and seen["action"] in seen["legal"]
    assert seen["written"] == []
    assert run(CHILD_START) == {"entry": [1, 0], "serve": [1, 0]}


def test_a_run_whose_drivers_are_not_those_its_child_would_import_lets_the_child_compile(
    monkeypatch,
):
    """The child computes its drivers folder from the code as it finds it: a run that
    generated its drivers before the code changed (a notebook's kernel, a reused worker)
    does not tell it to read them from the cache, where it would have to write its own."""
    agent = parse_list(["greedy"], "geschenkt")[0]
    assert host.entry_cached(agent)
    monkeypatch.setattr(host, "folder_of", lambda game: Path("/drivers/of/other/code"))
    assert not host.entry_cached(agent)


def test_the_first_run_line_names_the_isolated_builtins_their_run_compiles(monkeypatch):
    """The run compiles an isolated built-in's entry (``host.entry_cached``), so a first-run
    line names that agent: the isolated loop's, beside the loop and the trusted seats, and
    the start's own (the command line's start check starts each agent before the loop); a
    user's agent compiles in its own process, unannounced."""
    said = []
    monkeypatch.setattr(notice, "compiling", lambda what: said.append([*what]) or False)
    rules = load_game("geschenkt").rules(n_players=3)
    agents = parse_list(["iso_coin", "greedy", "random"], "geschenkt")
    isolation = Isolation(("greedy", "iso_coin"))
    play_block_isolated("geschenkt", rules, agents, 3, 0, 2, "rotate", SECRET, isolation)
    loop = ["the No Thanks! loop with isolated seats", "agent greedy", "agent random"]
    assert said == [loop, ["agent greedy"]]


def test_an_agent_that_writes_its_parameters_does_not_compile():
    def counter(obs, params, rng):
        params[1] += 1
        return 0

    with pytest.raises(ValueError, match="decide does not compile"):
        define("geschenkt", "param_writer", counter)


def counting(obs, params, rng):
    """Plays differently after 150 decisions counted in its parameter row (if it kept)."""
    params[1] += 1
    return TAKE if params[1] > 150 or obs[CHIPS + obs[SEAT]] == 0 else PASS


define("geschenkt", "param_counter_py", counting, compiled=False)


@pytest.mark.parametrize("isolated", [False, True])
def test_a_plain_python_parameter_writer_plays_the_same_games_whatever_the_chunks(isolated):
    """Each decision gets a fresh copy of the parameter row, so the writes have no effect."""
    jobs = field_design("geschenkt", "param_counter_py", "greedy", 3, 30, seed=5)
    if isolated:
        jobs = [replace(j, isolation=Isolation(("param_counter_py",)).as_dict()) for j in jobs]
    whole, _, _ = run(jobs, backend="serial", chunk_size=30, progress=False)
    cut, _, _ = run(jobs, backend="serial", chunk_size=7, progress=False)
    pd.testing.assert_frame_equal(whole, cut)
    assert (whole.n_decisions > 0).all()
    assert os.environ.get("NUMBA_CACHE_DIR")  # the children load compiled code from it


def test_a_run_keeps_the_digest_of_its_untrusted_module_and_shipped_network(faulty):
    """The files a run reads besides giftsim's code are in its manifest's ``inputs``, so a
    changed one stops a --resume: here the untrusted module that defined an agent and the
    shipped network a ``learned`` without net= reads."""
    from agents.roster import roster
    from experiments.manifest import inputs
    from giftsim.files import digest

    jobs = field_design("geschenkt", "raiser", "learned", 3, 2, seed=1)
    found = inputs(jobs)
    module, shipped = (BOTS / "faulty.py").resolve(), roster("geschenkt").shipped(3).resolve()
    assert found == {str(module): digest(module), str(shipped): digest(shipped)}


def test_a_bot_that_fakes_progress_still_times_out():
    """``toggler`` moves the shared count of answered decisions back and forth without
    answering: only a count past every earlier one restarts the clock, so each of its
    decisions times out (the run had waited forever)."""
    load_untrusted(BOTS / "stallers.py", 600)
    rules = load_game("geschenkt").rules(n_players=3)
    agents = parse_list(["toggler", "greedy", "greedy"], "geschenkt")
    isolation = Isolation((), time_limit=0.3, memory_mb=600, warm_up=1.0)  # it never ends
    with deadline(120):
        _, forfeits, _ = play_block_isolated(
            "geschenkt", rules, agents, 1, 0, 3, "rotate", SECRET, isolation
        )
    assert forfeits[:, 0].tolist() == [TIMEOUT] * 3 and not forfeits[:, 1:].any()


def test_a_slow_first_decision_forfeits_the_same_games_whatever_the_blocks():
    """A fresh worker's first decision had 10 s more than the limit, so a bot slow at each
    game's first decision forfeited fewer games in smaller blocks; now a plain-Python agent
    warms up once in its template and every decision has the same limit."""
    load_untrusted(BOTS / "stallers.py", 600)
    rules = load_game("geschenkt").rules(n_players=2)
    agents = parse_list(["slowfirst", "greedy"], "geschenkt")
    isolation = Isolation((), time_limit=0.4, memory_mb=600)
    _, whole, _ = play_block_isolated(
        "geschenkt", rules, agents, 3, 0, 4, "rotate", SECRET, isolation
    )
    singles = [
        play_block_isolated("geschenkt", rules, agents, 3, g, 1, "rotate", SECRET, isolation)[1]
        for g in range(4)
    ]
    assert np.array_equal(whole, np.concatenate(singles))
    assert whole[:, 0].tolist() == [TIMEOUT, 0, TIMEOUT, 0]  # the games it begins


def test_an_honest_bot_whose_helper_compiles_late_in_a_game_does_not_forfeit():
    """A plain-Python bot's ``@njit`` helper, first called at a game's fourth decision,
    compiles once while its template warms up on a whole game, not in each worker against
    the time limit (each worker timed out compiling it and was killed: every game lost)."""
    load_untrusted(BOTS / "stallers.py", 600)
    rules = load_game("geschenkt").rules(n_players=3)
    agents = parse_list(["latejit", "greedy", "greedy"], "geschenkt")
    isolation = Isolation((), time_limit=0.2, memory_mb=600)
    where = (1, 0, 3, "rotate", SECRET, isolation)
    _, forfeits, _ = play_block_isolated("geschenkt", rules, agents, *where)
    assert not forfeits.any()
    brief = Isolation((), time_limit=0.2, memory_mb=600, warm_up=0.01)  # no time to compile
    _, forfeits, _ = play_block_isolated("geschenkt", rules, agents, *where[:-1], brief)
    assert forfeits[:, 0].tolist() == [TIMEOUT] * 3 and not forfeits[:, 1:].any()


WARM_UP_RANGE = f"must be a positive number of seconds, at most {MAX_WARM_UP:g}"


@pytest.mark.parametrize(
    ("limits", "says"),
    [
        ({"time_limit": 0}, "the time limit must be a positive number of seconds, got 0"),
        ({"time_limit": True}, "the time limit must be a positive number of seconds, got True"),
        ({"warm_up": float("nan")}, f"the warm-up {WARM_UP_RANGE}, got nan"),
        ({"warm_up": "10"}, f"the warm-up {WARM_UP_RANGE}, got '10'"),
        ({"warm_up": MAX_WARM_UP + 1}, f"the warm-up {WARM_UP_RANGE}, got {MAX_WARM_UP + 1}"),
        ({"memory_mb": 1.5}, "the memory limit must be a positive number of MiB, got 1.5"),
        ({"agents": "who"}, "agents must be family names, such as ('greedy',), got 'who'"),
        ({"agents": ("greedy", 3)}, "agents must be family names, such as ('greedy',), got ("),
    ],
)
def test_limits_out_of_their_range_are_refused(limits, says):
    with pytest.raises(ValueError, match=f"^{re.escape(says)}"):
        Isolation(**limits)


@pytest.mark.parametrize(
    ("names", "says"),
    [
        (
            ("greedi",),
            "isolation names 'greedi', which plays nowhere here (agents: greedy, random)",
        ),
        ((), "isolation covers no agent here: name some of greedy, random"),
    ],
)
def test_play_refuses_an_isolation_that_isolates_nothing_it_names(names, says):
    """``play(..., isolation=...)`` with a misspelt name, or none, played every seat in
    process while its frame had ``forfeit_s`` columns, as if isolated."""
    with pytest.raises(ValueError, match=f"^{re.escape(says)}$"):
        play("geschenkt", ["greedy", "random", "greedy"], 3, isolation=Isolation(names))
    jobs = field_design("geschenkt", "greedy", "random", 3, 2)  # the jobs of a run: the same
    with pytest.raises(ValueError, match=f"^{re.escape(says)}$"):
        isolate(jobs, Isolation(names))


def two_seats_against_greedy(tmp_path, name: str, source: str):
    """``(rules, agents, isolation)`` of a 2-player No Thanks! table: the bot ``name`` of the
    untrusted module ``source`` against ``greedy``, under a 0.4 s limit."""
    bot = tmp_path / f"{name}.py"
    bot.write_text(source)
    load_untrusted(bot, 600)
    agents = parse_list([name, "greedy"], "geschenkt")
    isolation = Isolation((), time_limit=0.4, memory_mb=600)
    return load_game("geschenkt").rules(n_players=2), agents, isolation


def test_a_process_that_does_not_start_forfeits_instead_of_ending_the_run(tmp_path):
    """A bot that imports for the check before a run (no shared block yet) and then fails in
    every process of its own: each block forfeits its decisions (``NO_START``) and the other
    seats' results stand, where the first block's start had ended the run."""
    rules, agents, isolation = two_seats_against_greedy(tmp_path, "nostart", NO_START_BOT)
    for first in (0, 2):
        rows, forfeits, _ = play_block_isolated(
            "geschenkt", rules, agents, 1, first, 2, "rotate", SECRET, isolation
        )
        assert forfeits[:, 0].tolist() == [NO_START, NO_START] and not forfeits[:, 1].any()
        assert (rows[:, -1] == 2).all()  # the other seat wins every game


NO_START_BOT = """
import sys
import time
from agents.registry import define

if sys.argv[2] != "-1":  # a process that serves decisions has a shared block
    raise RuntimeError("this bot never starts to play")


def nostart(obs, params, rng):
    return 0


define("geschenkt", "nostart", nostart, compiled=False)
"""


def test_the_next_block_gets_the_shared_memory_zeroed():
    """A block's agent process shares memory with the run, and the next block of the same
    agent reuses it: whatever was written there (spare header slots, old rows) is zeroed
    before the next block's processes see it."""
    agent = parse_list(["greedy"], "geschenkt")[0]
    isolation = Isolation(("greedy",))
    box = host.Sandbox("geschenkt", agent, 3, 4, isolation)
    box.start()
    box.block.header[5:] = 7  # where an agent could stash a note for its next block
    box.rows[:] = 9
    kept = box.kept
    box.close()
    again = host.Sandbox("geschenkt", agent, 3, 4, isolation)
    try:
        assert again.kept is kept  # the same template and memory, taken back from the pool
        assert not again.block.header.any() and not again.rows.any()
    finally:
        again.close()
        host.end_idle()


def test_the_start_check_starts_each_agent_at_the_player_count_it_plays():
    """A run's start check starts each isolated agent once, at the count of the first table
    it sits at, and that process is the one the run's first block of that count takes back
    (before, it started at the game's default count: a 3-player run started two)."""
    isolation = Isolation(("greedy",))
    host.end_idle()  # what earlier tests in this process kept
    check_start(isolation, "geschenkt", [(3, ("greedy", "random", "greedy")), (5, ("greedy",))])
    try:
        (key,) = host._POOL.idle  # one process: greedy, at 3 players
        agent = parse_list(["greedy"], "geschenkt")[0]
        box = host.Sandbox("geschenkt", agent, 3, WIDTH, isolation)
        assert box.key == key and not host._POOL.idle
        box.close()
    finally:
        host.end_idle()


@pytest.mark.parametrize(
    ("source", "said"),
    [
        (  # writes its own description of its agents, a wrong one, and leaves
            'import os, sys\nos.write(int(sys.argv[1]), b\'r[{"game": "geschenkt"}]\')\n'
            "os._exit(0)\n",
            "its process described its agents wrongly (KeyError: 'defaults')",
        ),
        ("import os, sys\nos.write(int(sys.argv[1]), b'r{{{')\nos._exit(0)\n", "is not JSON"),
        ("raise RuntimeError('\\x1b[2J\\x1b[31mclears your screen')\n", "?[2J?[31mclears your"),
    ],
    ids=["forged", "not-json", "escape-codes"],
)
def test_what_an_untrusted_module_says_comes_back_as_one_printable_line(tmp_path, source, said):
    """An untrusted module's process answers the check before a run itself: a forged answer
    is one line naming the module (it had been an internal error), and a terminal's escape
    codes in its words are shown as '?'."""
    bot = tmp_path / "liar.py"
    bot.write_text(source)
    with pytest.raises(ValueError) as raised:
        load_untrusted(bot, 600)
    message = str(raised.value)
    assert said in message and "liar.py'" in message
    assert len(message.splitlines()) == 1 and "\x1b" not in message


def test_an_untrusted_agent_may_not_take_the_name_of_another_files_agent(tmp_path):
    """An untrusted module that defines a name an agents module (or another untrusted file)
    defined already is refused in one line: it had replaced it silently, and the run's record
    named only the untrusted file."""
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    for path in (first, second):
        path.write_text(NO_START_BOT.replace("nostart", "twin_name"))
    load_untrusted(first, 600)
    load_untrusted(first, 600)  # the same file again: its own agent
    with pytest.raises(ValueError, match=r"defines geschenkt agent 'twin_name', which .*a\.py"):
        load_untrusted(second, 600)


def test_a_module_loaded_again_is_described_once_unless_it_changed(tmp_path, monkeypatch):
    """Loading an untrusted file again in one process (a notebook's cell run twice) reuses what
    its process described; the same file edited, or under another memory limit, is imported
    again in a process of its own."""
    asked = []
    ask = host._ask_child
    monkeypatch.setattr(host, "_DESCRIBED", {})  # what an earlier run of this test described
    monkeypatch.setattr(host, "_ask_child", lambda message: asked.append(message) or ask(message))
    bot = tmp_path / "again.py"
    bot.write_text(NO_START_BOT.replace("nostart", "again"))
    first = load_untrusted(bot, 600)
    assert load_untrusted(bot, 600) == first and len(asked) == 1
    load_untrusted(bot, 700)
    bot.write_text(bot.read_text().replace("import sys", "import sys  # edited"))
    load_untrusted(bot, 600)
    said = [(message["module"][1], message["memory_mb"]) for message in asked]
    assert said[1:] == [(said[0][0], 700), (bot.read_text(), 600)]


def test_a_template_that_names_another_process_as_its_worker_kills_nothing(tmp_path):
    """The worker's pid comes from the agent's process, whose code may replace ``os.fork``: a
    bot that names the run's own process as its worker had the run kill itself at the first
    fault or block end. Only a child of the template is ever killed; a lying template counts
    as one that does not start."""
    rules, agents, isolation = two_seats_against_greedy(tmp_path, "liar_fork", LIAR_FORK)
    where = (1, 0, 2, "rotate", SECRET, isolation)
    _, forfeits, _ = play_block_isolated("geschenkt", rules, agents, *where)
    assert forfeits[:, 0].tolist() == [NO_START, NO_START]  # and this process is alive


LIAR_FORK = """
import os, sys
from agents.registry import define

RUN = os.getppid()  # the process that started this one: the run
_fork = os.fork


def lying_fork():
    pid = _fork()
    return RUN if pid and sys._getframe(1).f_code.co_name == "_template" else pid


os.fork = lying_fork


def liar_fork(obs, params, rng):
    return 1


define("geschenkt", "liar_fork", liar_fork, compiled=False)
"""


def test_what_an_agent_starts_dies_with_its_processes_whatever_session_it_moved_to(tmp_path):
    """A bot's code may start processes that leave its worker's group and session (a child
    that calls ``setsid``, the grandchild of a double fork): killing the worker's group and
    the template's missed them, and they outlived the run. Each process that runs the bot
    (the warm-up's probe, the template, the worker) starts two such and says their pids; a
    fault kills all of them with the worker, and nothing of the bot is left at the end. Nor
    may a worker signal its template (Landlock ABI 6), whose end would hand its orphans to
    its keeper early."""
    _, agents, isolation = two_seats_against_greedy(tmp_path, "escaper", ESCAPER)
    box = host.Sandbox("geschenkt", agents[0], 2, 4, isolation)
    pids = []
    try:
        box.start()
        template = box.kept.template.pid
        box.rows[0], box.words[0] = 0, 1
        assert box.run(1).tolist() == [RAISED]
        signal, *said = bot_said(box).split()
        pids = [int(pid) for pid in said]
        assert signal == ("PermissionError" if confine.abi() >= 6 else "done")
        assert len(pids) == 6  # two each of the probe, the template and the worker
        assert not alive(pids)  # killed with the faulty worker
    finally:
        box.close()
        host.end_idle()
        for pid in alive(pids):  # this test's failure leaves nothing running
            os.kill(pid, 9)
    assert not alive([template])


@pytest.mark.parametrize("way", ["deserter", "unreaper", "sibling"])
def test_what_an_agent_starts_as_its_module_loads_dies_with_the_run(tmp_path, way):
    """Code that runs as a bot's module loads runs in the template, above which nothing of
    the bot used to be: a process it starts there outlived the run if the template then ended
    (``deserter``), stopped adopting orphans (``unreaper``) or started it as its sibling
    (``sibling``, ``CLONE_PARENT``). The template's keeper adopts each of them, and they die
    with the template (``tests/bots/orphans.py``)."""
    source = (BOTS / "orphans.py").read_text()
    _, agents, isolation = two_seats_against_greedy(tmp_path, way, source)
    box = host.Sandbox("geschenkt", agents[0], 2, 4, isolation)
    pids, left = [], []
    try:
        if way == "deserter":
            with pytest.raises(host.StartError, match="escaped") as caught:
                box.start()
            said = str(caught.value)
        else:
            box.start()
            box.rows[0], box.words[0] = 0, 1
            assert box.run(1).tolist() == [RAISED]
            said = box.faults[-1][1]
        pids = [int(said.rsplit("escaped ", 1)[1].split()[0])]
        assert pids[0] > 0
        if way != "deserter":
            assert not alive(pids)  # killed with the faulty worker
    finally:
        box.close()
        host.end_idle()
        left = alive(pids)
        for pid in left:  # this test's failure leaves nothing running
            os.kill(pid, 9)
    assert not left


def test_what_an_agent_starts_dies_when_the_run_is_killed(tmp_path):
    """A run killed outright (SIGKILL: it cleans nothing up) leaves nothing of an isolated
    agent running: its template and worker die with it, and what they started in sessions of
    their own, while deciding (``escaper``, here one that answers) or as the module loaded
    (``unreaper``), used to be left to init. The keeper is told by the kernel
    (``PR_SET_PDEATHSIG``), kills all below it and removes the agent's folder (it was left in
    the temporary folder)."""
    quiet = ESCAPER.replace('raise RuntimeError(signal_template() + " " + f.read())', "return 0")
    (tmp_path / "quiet_escaper.py").write_text(
        quiet.replace('"escaper", escaper', '"quiet", escaper')
    )
    (tmp_path / "unreaper.py").write_text((BOTS / "orphans.py").read_text())
    said = subprocess.run(
        [sys.executable, "-c", KILLED_RUN, str(tmp_path)], capture_output=True, text=True
    )
    assert said.returncode == -9, said.stderr
    lines = said.stdout.splitlines()
    folders = [Path(line.split(" ", 1)[1]) for line in lines if line.startswith("folder ")]
    pids = [int(word) for line in lines if not line.startswith("folder ") for word in line.split()]
    left = alive(pids)
    for pid in left:  # this test's failure leaves nothing running
        os.kill(pid, 9)
    assert len(pids) == 7 and not left  # the escaper's six and the unreaper's one
    end = time.monotonic() + 30.0  # milliseconds on an idle machine
    while any(folder.exists() for folder in folders) and time.monotonic() < end:
        time.sleep(0.05)
    assert len(folders) == 2 and not any(folder.exists() for folder in folders)


def test_a_keeper_whose_run_closed_its_pipe_without_a_word_removes_the_folder(tmp_path):
    """A run killed outright closes its files before the kernel gives its children to a new
    parent: the keeper sees its pipe end without the run's word (``Template.kill`` writes one)
    while its parent still reads as the run, and must take that as the run's death (it then
    left the folder: the killed-run test above failed so, now and then, on a loaded machine).
    Here the run lives on and closes the pipe unasked, as a dying run does."""
    folder = tmp_path / "agent"
    folder.mkdir()
    (folder / "written").write_text("by the agent")
    theirs, ours = os.pipe()
    command = [sys.executable, "-I", "-B", "-S", keeper.__file__, str(theirs), str(os.getpid())]
    started = subprocess.Popen(
        [*command, "/bin/sleep", "60"],  # the template: a process to kill
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        cwd=folder,
        pass_fds=[theirs],
    )
    os.close(theirs)
    template = int.from_bytes(started.stdout.read(8), "little")
    os.close(ours)
    assert started.wait(timeout=30) == 0
    started.stdout.close()
    assert not alive([template]) and not folder.exists()


def test_an_agent_folder_goes_however_deep_and_never_through_a_link(tmp_path):
    """An agent writes its folder: a tree deeper than Python's recursion limit made the
    run's cleanup raise (``shutil.rmtree``), and a link out of it must not be followed."""
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "file").write_text("the run's")
    folder = tmp_path / "agent"
    folder.mkdir()
    below = os.open(folder, os.O_RDONLY)
    for _ in range(sys.getrecursionlimit() + 200):  # one level below the other, by handle
        os.mkdir("d", dir_fd=below)
        deeper = os.open("d", os.O_RDONLY, dir_fd=below)
        os.close(below)
        below = deeper
    os.close(below)
    (folder / "out").symlink_to(kept, target_is_directory=True)
    remove_folder(str(folder))
    assert not folder.exists() and (kept / "file").read_text() == "the run's"


def test_an_agent_started_from_a_thread_that_ends_plays_on():
    """A seat started from a short-lived thread (a user's pool, a Dask task that secedes):
    the kernel sends the keeper its parent-death signal when the *thread* that started it
    ends, though the run lives on, and the keeper killed the agent's processes, so every later
    decision forfeited. The keeper now ends only when its parent changed."""
    host.end_idle()  # a template kept by an earlier test would not be started here
    agent = parse_list(["iso_pot5"], "geschenkt")[0]
    box = host.Sandbox("geschenkt", agent, 2, 4, Isolation(("iso_pot5",)))
    try:
        starter = threading.Thread(target=box.start)
        starter.start()
        starter.join()
        while os.path.exists(f"/proc/self/task/{starter.native_id}"):  # the thread has ended
            time.sleep(0.01)
        template, keeper = box.kept.template.pid, box.kept.template.process.pid
        time.sleep(0.5)  # the keeper's time to act on its signal
        for _ in range(3):
            box.rows[:4], box.words[:4] = 0, np.arange(1, 5, dtype=np.uint64)
            assert box.run(4).tolist() == [0] * 4 and not box.faults
            assert box.kept.template.pid == template and box.kept.template.alive()
        assert alive([template, keeper], wait=0) == [template, keeper]
    finally:
        box.close()
        host.end_idle()


KILLED_RUN = """
import os, sys
from agents.isolation import Isolation, host
from agents.isolation.untrusted import load_untrusted
from agents.registry import parse_list

boxes = []
for file, name in (("quiet_escaper", "quiet"), ("unreaper", "unreaper")):
    load_untrusted(os.path.join(sys.argv[1], file + ".py"), 600)
    agent = parse_list([name], "geschenkt")[0]
    box = host.Sandbox("geschenkt", agent, 2, 4, Isolation((), time_limit=1, memory_mb=600))
    box.start()  # the unreaper's process, started as its module loaded, lives until a fault
    if name == "quiet":
        box.rows[0], box.words[0] = 0, 1
        assert box.run(1).tolist() == [0]
    boxes.append(box)  # alive, with their templates, when the run is killed
    with open(os.path.join(box.kept.template.folder, "escaped")) as f:
        print(f.read(), flush=True)
    print("folder", box.kept.template.folder, flush=True)
os.kill(os.getpid(), 9)
"""


def alive(pids, wait: float = 5.0) -> list[int]:
    """Those of ``pids`` still running after up to ``wait`` seconds (a zombie has ended)."""
    end = time.monotonic() + wait
    while True:
        running = []
        for pid in pids:
            with contextlib.suppress(OSError):
                if Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] != b"Z":
                    running.append(pid)
        if not running or time.monotonic() > end:
            return running
        time.sleep(0.05)


ESCAPER = """
import os, time
from agents.registry import define

ESCAPED, TEMPLATE = set(), os.getpid()  # the module runs in the template


def escape():
    \"\"\"Start a process in a session of its own and the grandchild of a double fork, each
    sleeping long; note their pids in this process's folder.\"\"\"
    read, write = os.pipe()
    for double in (False, True):
        if os.fork() == 0:
            os.setsid()
            if not double or os.fork() == 0:
                os.write(write, f"{os.getpid()} ".encode())
                time.sleep(120)
            os._exit(0)
    os.close(write)
    said = b""
    while said.count(b" ") < 2:
        said += os.read(read, 64)
    os.close(read)
    with open("escaped", "ab") as f:
        f.write(said)


def signal_template():
    try:
        os.kill(TEMPLATE, 0)
        return "done"
    except OSError as error:
        return type(error).__name__


def escaper(obs, params, rng):
    if os.getpid() not in ESCAPED:
        ESCAPED.add(os.getpid())
        escape()
    with open("escaped") as f:
        raise RuntimeError(signal_template() + " " + f.read())


define("geschenkt", "escaper", escaper, compiled=False)
"""


def test_the_forfeit_tables_count_an_agent_once_per_seat_it_held():
    """Two games of three seats, ``bot`` in two seats of each: 4 seat games (the column was
    called ``games`` and read as 4 games), one forfeit in one seat."""
    from experiments.isolation import forfeit_sums_table, forfeit_table

    long = _long(["bot", "bot", "greedy"] * 2, [0, 0, 0, 1, 0, 0], [0, 0, 1, 0, 1, 0])
    for table in (forfeit_table(long), forfeit_sums_table(long)):
        assert table.loc["bot", ["seat_games", "forfeits"]].tolist() == [4, 1]
        assert table.loc["greedy", ["seat_games", "forfeits"]].tolist() == [2, 0]
        assert table.attrs["note"].endswith("once for each seat it held in a game)")


def _long(agents, forfeits, wins):
    """Games of three seats, one row a seat (a long table, and the sums of one game each)."""
    long = pd.DataFrame({"agent": agents, "forfeit": forfeits, "win_sum": wins, "games": 1})
    long["job"], long["game_index"] = 0, np.arange(len(long)) // 3
    long["seat"] = np.arange(len(long)) % 3
    return long.assign(forfeits=(long["forfeit"] != 0).astype(int))


def test_the_forfeit_tables_count_the_games_no_seat_won():
    """A game in which every seat forfeits has no winner: its win shares are 0 in every seat
    and a table's shares add up to less than 1 (a run of faulty bots printed turn-order
    shares of 0.20, 0.19 and 0.21 against a fair 0.3333 with no word of why)."""
    from experiments.isolation import forfeit_sums_table, forfeit_table

    long = _long(["bot", "bot", "bot"] * 2, [1, 2, 1, 0, 1, 0], [0, 0, 0, 0, 0.5, 0.5])
    for table in (forfeit_table(long), forfeit_sums_table(long)):
        assert "1 game of 2 had no winner: every seat forfeited" in table.attrs["note"]


class _Box:
    """A stand-in for ``host.Sandbox`` that notes when it is started and waited for."""

    def __init__(self, name: str, said: list):
        self.name, self.said = name, said

    def spawn(self):
        self.said.append(f"spawn {self.name}")

    def ready(self):
        self.said.append(f"ready {self.name}")

    def ready_or_forfeit(self):
        self.said.append(f"forfeit? {self.name}")


def test_agents_start_as_many_at_once_as_there_are_cores(monkeypatch):
    """Five isolated agents on two cores start in waves of two (each start's limits are its
    own): a wave is waited for before the next one starts."""
    monkeypatch.setattr(host.os, "sched_getaffinity", lambda pid: {0, 1})
    said = []
    host.start_together([_Box(str(k), said) for k in range(5)])
    assert said == [
        *("spawn 0", "spawn 1", "ready 0", "ready 1"),
        *("spawn 2", "spawn 3", "ready 2", "ready 3"),
        *("spawn 4", "ready 4"),
    ]
    said.clear()
    host.start_together([_Box(str(k), said) for k in range(2)], forfeit=True)
    assert said == ["spawn 0", "spawn 1", "forfeit? 0", "forfeit? 1"]

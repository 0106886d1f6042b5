"""The parent's side of an isolated agent: a :class:`Sandbox` per isolated seat.

A sandbox owns the shared block of its seat (``agents.isolation.protocol``), a *template*
process that loaded the agent (``agents.isolation.child``: a fresh interpreter with a scrubbed
environment, in a session of its own and an empty temporary folder; started by a *keeper*,
``agents.isolation.keeper``, below which all the agent's processes stay) and the *worker*
forked from it that decides. :meth:`Sandbox.run` sends a batch and returns a fault code per decision
(0: answered); a fault kills the worker, and the next decision goes to a fresh fork of the
template, so the run goes on whatever the agent does. A template that cannot fork (it died)
is started again once; if that fails too, every later decision of the block is forfeited at
once (``NO_START``), so that a broken agent never stalls a run.
"""

import atexit
import contextlib
import ctypes
import json
import os
import pickle
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from agents.base import agent_kernels
from agents.drivers.generate import PRIVATE, folder_of, package
from agents.isolation import (
    CRASHED,
    FAULTS,
    NO_START,
    RAISED,
    TIMEOUT,
    WARM_UP,
    Isolation,
    protocol,
)
from agents.isolation.child import FAILED, FORK, HOW
from agents.isolation.confine import package_folders
from agents.isolation.keeper import KILL_LIMIT, child_of, kill_below, remove_folder
from agents.isolation.protocol import H_COUNT, H_DONE, H_FAULT, H_FIRST, HEADER, printable
from agents.isolation.serve import serve
from agents.kernels.entries import entry_addresses
from agents.registry import builtins
from giftsim import notice
from giftsim.contract import MAX_PARAMS
from giftsim.game import GAMES, load_game

START_LIMIT = 120.0  # seconds for a template to import and compile its agent (a loaded machine)
ENOUGH_MB = 400  # address space a child needs to load Python, NumPy and Numba (it idles at ~400)
FORK_LIMIT = 10.0  # seconds for a template to fork a worker (milliseconds unless its agent stalls)
THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


class StartError(ValueError):
    """An isolated agent's process did not start (one line: why)."""


def environment(folder: str) -> dict:
    """A child's whole environment: no variable of the parent's but Numba's settings (its
    cache folder, so that built-ins load compiled), one thread per library, ``folder`` as
    home and temporary folder."""
    numba = {k: v for k, v in os.environ.items() if k.startswith("NUMBA_")}
    threads = dict.fromkeys(THREADS, "1")
    base = {"PATH": os.defpath, "LANG": "C.UTF-8", "HOME": folder, "TMPDIR": folder}
    return {**base, **numba, **threads}


def entry_cached(agent) -> bool:
    """Compile a built-in's entry here (or load it), into Numba's cache folder beside the
    drivers it is generated in, and the batch function its child calls it with (``serve``),
    and say whether this was done: its child then imports those drivers from that folder and
    loads both, from a folder it may not write, where it had generated and compiled its own
    copies at every start (1-17 s, ``docs/perf/README.md``). The game's roster is built here
    first, as the child builds it, so that every file the child's roster reads is written (a
    family held without it, ``agents.tulips.HOARDER``, leaves the network searches' drivers
    unwritten); the first-run line names the agent. A user's agent is compiled by its child
    alone, in the child's own folder; so is every agent of a process whose drivers are not in
    the cache folder (``PRIVATE``) or no longer in the folder the child computes (the code
    changed since this process generated them)."""
    family = getattr(agent, "family", None)
    if family is None or not family.builtin or not family.compiled or os.environ.get(PRIVATE):
        return False
    if Path(package(family.game).__path__[0]) != folder_of(family.game):
        return False
    builtins(family.game)
    notice.compiling(agent_kernels([agent]))
    row = entry_addresses([family.entry()])[0]
    header, ints, words = np.zeros(HEADER, np.int64), np.zeros(1, np.int64), np.zeros(1, np.uint64)
    serve(row, header, ints, words, ints, np.zeros(MAX_PARAMS), ints, 1)  # the header asks for
    return True  # no decision: this compiles (or loads) what the child loads


def start_message(
    game: str,
    agent,
    players: int,
    capacity: int,
    memory_mb: int,
    warm_up: float = WARM_UP,
    mode: str = "serve",
    cached: bool = False,
):
    """What a child is told (plain data, pickled): the game (and its package), the agent (the
    spec of a built-in, a pickle of a user family defined here, or an untrusted module's
    source and the spec), the table size, the batch capacity, the limits of its memory and of
    its warm-up (``Isolation``), this process's import path (absolute entries only: the
    child's folder is its own), the file its spec names (``net=``, ``table=``: the one
    file outside giftsim's packages the confined child may read) and whether its entry is in
    the cache (``cached``, :func:`entry_cached`: the child then imports the drivers there)."""
    family = getattr(agent, "family", None)
    module = getattr(family, "module", None) or None
    pickled = None
    if family is not None and not family.builtin and module is None:
        import cloudpickle

        pickled = cloudpickle.dumps(agent)
    return {
        "mode": mode,
        "game": game,
        "package": GAMES[game],
        "players": players,
        "spec": getattr(agent, "spec", None),
        "agent": pickled,
        "module": module,
        "path": [p for p in sys.path if p and os.path.isabs(p)],
        "capacity": capacity,
        "memory_mb": memory_mb,
        "warm_up": warm_up,
        "packages": package_folders(["giftsim", "agents", "experiments", *GAMES.values()])
        + ([] if pickled is None else _home_of(family.decide)),
        "files": [os.path.abspath(agent.file)] if getattr(agent, "file", "") else [],
        "cached": cached,
    }


def _home_of(decide) -> list[str]:
    """The folder a trusted ``decide`` pickled by value comes from (its top-level package's,
    or its module file's): what it imports is read from there in the confined child."""
    function = getattr(decide, "py_func", decide)
    module = sys.modules.get(getattr(function, "__module__", "") or "")
    name = getattr(module, "__name__", "")
    if "." in name or getattr(module, "__path__", None):
        return package_folders([name])
    where = getattr(module, "__file__", None)
    return [os.path.dirname(os.path.abspath(where))] if where else []


KEEPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keeper.py")


class Template:
    """The template process of an agent, below its keeper (``agents.isolation.keeper``):
    started, asked to fork workers, killed with all below the keeper."""

    def __init__(self, message: dict, block_fd: int = -1):
        self.folder = tempfile.mkdtemp(prefix="giftsim-agent-")
        self.control, theirs = socket.socketpair()
        keep, self.keep = os.pipe()
        command = [sys.executable, "-I", "-B", "-S", KEEPER, str(keep), str(os.getpid())]
        command += [sys.executable, "-I", "-B", "-m", "agents.isolation.child"]
        command += [str(theirs.fileno()), str(block_fd)]
        _DUMPABLE.hold()  # before the child runs any code
        self.process = subprocess.Popen(  # the keeper
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=self.folder,
            env=environment(self.folder),
            pass_fds=[theirs.fileno(), keep] + ([block_fd] if block_fd >= 0 else []),
            start_new_session=True,
        )
        theirs.close()
        os.close(keep)
        self._pid = None
        with contextlib.suppress(OSError):  # if it ended before reading, its answer says so
            self.process.stdin.write(pickle.dumps(message))
            self.process.stdin.close()

    @property
    def pid(self) -> int:
        """The template's pid, as its keeper said it (0 if it did not)."""
        if self._pid is None:
            try:
                said = _read(self.process.stdout.fileno(), START_LIMIT, 8)
            except (OSError, TimeoutError):
                said = b""
            self._pid = int.from_bytes(said, "little") if len(said) == 8 else 0
            self.process.stdout.close()
        return self._pid

    def alive(self) -> bool:
        """Whether the template lives (its keeper ends soon after it)."""
        return self.process.poll() is None and child_of(self.pid, self.process.pid)

    def answer(self, limit: float, everything: bool) -> tuple[bytes, bytes]:
        """Its first byte (``READY``, ``FAILED``, or b"" when it ended) and, after ``FAILED``
        or when ``everything``, all it sent until it closed; TimeoutError after ``limit``."""
        first = _read(self.control.fileno(), limit)
        if first == protocol.READY and not everything:
            return first, b""
        rest, deadline = b"", time.monotonic() + limit
        while first and (
            more := _read(self.control.fileno(), deadline - time.monotonic(), 1 << 16)
        ):
            rest += more
        return first, rest

    def fork(self) -> "Worker | None":
        """A fresh worker forked from the template (None if the template is gone)."""
        go_read, go = os.pipe()
        done, done_write = os.pipe()
        try:
            socket.send_fds(self.control, [FORK], [go_read, done_write])
            pid = int.from_bytes(_read(self.control.fileno(), FORK_LIMIT, 8), "little")
        except (OSError, TimeoutError):
            pid = 0
        finally:
            os.close(go_read)
            os.close(done_write)
        if pid <= 0 or not child_of(pid, self.pid):  # the agent's code may lie
            os.close(go)
            os.close(done)
            return None
        return Worker(pid, go, done, self)

    def ended(self) -> tuple[str, bool]:
        """How its last worker ended (it closed its pipe), in words, as the template says (the
        worker's parent: it reaps it): an exit status or a signal, 8 bytes, worded here; and
        whether the template still answers (False: it ended, or did not answer in time or as
        it should, and may be out of step with the run)."""
        try:
            self.control.sendall(HOW)
            said = _read(self.control.fileno(), FORK_LIMIT, 8)
        except TimeoutError:
            said = None
        except OSError:  # it ended (its socket closed)
            said = b""
        if said == b"":
            return "its process ended, and so did its template", False
        if said is None or len(said) != 8:
            return "its process ended (its template did not say how)", False
        return how_ended(int.from_bytes(said, "little", signed=True)), True

    def kill_below(self) -> None:
        """Kill every process below the keeper but the template: what its agent's code
        started, in whatever group or session, as the template loaded it or as a worker
        decided (the keeper adopts what leaves the template, the template what leaves a
        worker). Only while the keeper is this process's unreaped child: its pid then names
        it alone."""
        if self.process.poll() is None:
            kill_below(self.process.pid, spare=self.pid)

    def kill(self) -> None:
        """End the template and every process below its keeper (the keeper kills them and
        ends when told, or when this process dies); free its folder."""
        with contextlib.suppress(OSError):  # it ended already (its template ended)
            os.write(self.keep, b"e")
        os.close(self.keep)
        try:
            self.process.wait(KILL_LIMIT + 10)
        except subprocess.TimeoutExpired:  # not on a sane machine: kill what it would have
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGSTOP)
            kill_below(self.process.pid)
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.control.close()
        remove_folder(self.folder)
        _DUMPABLE.release()


class Worker:
    """A forked worker: its pid (and process group), its two pipe ends and its template."""

    def __init__(self, pid: int, go: int, done: int, template: Template):
        self.pid, self.go, self.done, self.template = pid, go, done, template

    def read(self, limit: float) -> bytes | None:
        """Its ``DONE`` byte, b"" if it ended, None if nothing came within ``limit``."""
        try:
            return _read(self.done, limit)
        except TimeoutError:
            return None

    def kill(self) -> None:
        """End the worker (only while it is still the template's child: its pid came from the
        agent's process, and may be reused) and all it started (the template reaps them). A
        template has one worker at a time: all else below it is what its agent started."""
        if child_of(self.pid, self.template.pid):
            for kill in (os.kill, os.killpg):  # os.kill: it may not have made its group yet
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    kill(self.pid, signal.SIGKILL)
        self.template.kill_below()
        os.close(self.go)
        os.close(self.done)


def how_ended(code: int) -> str:
    """A worker's end in words, from its template's answer (``os.waitstatus_to_exitcode``: the
    exit status, or minus the signal that killed it; anything else: it was not seen to end).
    The agent's code may make its template say anything: it is a number, worded here."""
    if -(2**7) < code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:  # a real-time signal, or none
            name = f"signal {-code}"
        return f"its process was killed by {name}"
    if 0 <= code < 2**8:
        return f"its process exited with status {code}"
    return "its process ended (its template did not see how)"


def memory_hint(memory_mb: int) -> str:
    """What to add to a start's failure when the memory limit is below ``ENOUGH_MB``."""
    if memory_mb >= ENOUGH_MB:
        return ""
    return (
        f" (the memory limit, {memory_mb} MiB, may be too small for Python, NumPy and Numba to "
        f"load: they need about {ENOUGH_MB} MiB; raise --memory-limit)"
    )


def _read(fd: int, limit: float, size: int = 1) -> bytes:
    """Up to ``size`` bytes (b"": closed); TimeoutError after ``limit`` seconds."""
    ready, _, _ = select.select([fd], [], [], max(limit, 0.0))
    if not ready:
        raise TimeoutError
    return os.read(fd, size)


class Kept:
    """What a process keeps of an isolated agent between blocks: its template and the shared
    block the template maps. A block forks its workers from it, so each block's decisions
    come from fresh copies of one clean process, which starts (imports, compiles) once."""

    def __init__(self, message: dict, obs_size: int):
        self.fd = protocol.create(message["capacity"], obs_size)
        self.block = protocol.Block(self.fd, message["capacity"], obs_size)
        self.template, self.ready = None, False

    def alive(self) -> bool:
        return self.template is not None and self.template.alive()

    def end(self) -> None:
        """Kill the template (it is started again when next needed)."""
        if self.template is not None:
            self.template.kill()
        self.template, self.ready = None, False

    def close(self) -> None:
        self.end()
        self.block.close()
        os.close(self.fd)


class _Pool:
    """Idle :class:`Kept` agents of this process, by start message, the least recently used
    ended first beyond ``KEEP``."""

    KEEP = 8

    def __init__(self):
        self.idle: dict[bytes, list[Kept]] = {}

    def take(self, key: bytes) -> "Kept | None":
        kept = self.idle.get(key, [])
        found = kept.pop() if kept else None
        if not kept:
            self.idle.pop(key, None)
        return found

    def give(self, key: bytes, kept: Kept) -> None:
        if not kept.alive():
            kept.close()
            return
        self.idle.setdefault(key, []).append(kept)
        self.idle[key] = self.idle.pop(key)  # most recently used last
        while sum(map(len, self.idle.values())) > self.KEEP:
            oldest = next(iter(self.idle))
            self.take(oldest).close()

    def clear(self) -> None:
        for key in list(self.idle):
            while (kept := self.take(key)) is not None:
                kept.close()


_POOL = _Pool()
atexit.register(_POOL.clear)


def end_idle() -> None:
    """End every idle template of this process (a run ends them when it is over)."""
    _POOL.clear()


class Sandbox:
    """An isolated seat: ``agent`` deciding from a process of its own, batches of up to
    ``capacity`` decisions of a ``players``-seat table, under ``isolation``'s limits.

    Fill ``rows[:k]`` (observations) and ``words[:k]`` (random words), call ``run(k)``; then
    ``actions[:k]`` and ``words[:k]`` hold the answers where the returned fault code is 0.
    ``faults`` lists every fault so far as ``(code, explanation)``. :meth:`close` ends the
    worker and gives the template back to this process's pool, for the next block."""

    def __init__(self, game: str, agent, players: int, capacity: int, isolation: Isolation):
        self.limit, obs_size = isolation.time_limit, load_game(game).obs_size
        self.message = start_message(
            game,
            agent,
            players,
            capacity,
            isolation.memory_mb,
            warm_up=isolation.warm_up,
            cached=entry_cached(agent),
        )
        self.key = pickle.dumps(self.message)
        self.kept = _POOL.take(self.key) or Kept(self.message, obs_size)
        self.block = self.kept.block
        self.block.clear()  # the kept block held the last block's rows and what its agent wrote
        self.rows, self.words, self.actions = self.block.rows, self.block.words, self.block.actions
        self.worker, self.broken, self.faults = None, "", []
        self.name = getattr(agent, "spec", str(agent))

    def start(self) -> None:
        """Start the agent's process; :class:`StartError` (one line) if it does not get ready."""
        self.spawn()
        self.ready()

    def spawn(self) -> None:
        """Start the template (unless kept alive) without waiting for it."""
        if not self.kept.alive():
            self.kept.end()
            self.kept.template = Template(self.message, self.kept.fd)

    def ready(self) -> None:
        """Wait for the template to be ready and fork the first worker; :class:`StartError`
        if it does not get ready."""
        first, rest = protocol.READY, b""
        if not self.kept.ready:
            try:
                first, rest = self.kept.template.answer(START_LIMIT, everything=False)
            except TimeoutError:
                first, rest = FAILED, f"not ready in {START_LIMIT:g} s".encode()
        self.kept.ready = first == protocol.READY
        self.worker = self.kept.template.fork() if self.kept.ready else None
        if self.worker is None:
            self.kept.end()
            why = printable(rest.decode(errors="replace")) or "its process ended while starting"
            why += memory_hint(self.message["memory_mb"])
            raise StartError(f"isolated agent {self.name!r} did not start: {why}")

    def ready_or_forfeit(self) -> None:
        """:meth:`ready`, except that a process that does not start forfeits every decision
        of the block (``NO_START``, its reason in ``faults``) instead of ending the run."""
        try:
            self.ready()
        except StartError as error:
            self.broken = str(error)
            self._note(NO_START, self.broken)

    def run(self, count: int) -> np.ndarray:
        """Decide rows ``0 .. count - 1``; the fault code of each (0: answered)."""
        faults = np.zeros(count, np.int8)
        first = 0
        while first < count:
            if self.worker is None and not self._restart():
                faults[first:] = NO_START
                break
            done, code = self._batch(first, count)
            if code:
                faults[done] = code
                self.discard()
            first = done + 1 if code else count
        return faults

    def discard(self, code: int = 0, message: str = "") -> None:
        """Kill the worker (the next decision goes to a fresh one); with ``code``, note a
        fault found here (an illegal action)."""
        if code:
            self.faults.append((code, message))
        if self.worker is not None:
            self.worker.kill()
            self.worker = None

    def _batch(self, first: int, count: int) -> tuple[int, int]:
        """Send rows ``first ..``; ``(rows answered up to, fault code or 0)``."""
        header = self.block.header
        header[H_FIRST], header[H_COUNT], header[H_DONE], header[H_FAULT] = first, count, first, 0
        try:
            os.write(self.worker.go, protocol.GO)
        except OSError:  # it died between batches
            return first, self._note(CRASHED, self._ended())
        seen, since = first, time.monotonic()
        while True:
            signal_byte = self.worker.read(self.limit / 4)
            done = int(min(max(header[H_DONE], first), count))
            if signal_byte == protocol.DONE and done == count:
                return done, 0
            done = min(done, count - 1)  # a fault's row: the agent may have counted it answered
            if signal_byte == protocol.DONE:
                code = int(header[H_FAULT])
                code = code if 0 < code < len(FAULTS) else RAISED
                return done, self._note(code, self.block.said())
            if signal_byte is not None:  # b"": the worker ended
                return done, self._note(CRASHED, self._ended())
            if done > seen:  # only a count past every earlier one is progress (the agent
                seen, since = done, time.monotonic()  # writes it: it may move it back)
            elif time.monotonic() - since > self.limit:
                return done, self._note(TIMEOUT, f"no answer in {self.limit:g} s")

    def _ended(self) -> str:
        """How the worker ended (it closed its pipe), as its template says; a template that
        ended or does not answer as it should is ended (started again when next needed)."""
        said, answers = self.kept.template.ended()
        if not answers:
            self.kept.end()
        return said

    def _note(self, code: int, message: str) -> int:
        self.faults.append((code, message))
        return code

    def _restart(self) -> bool:
        """A fresh worker from the template, or from a template started again."""
        if self.broken:
            return False
        self.worker = self.kept.template.fork() if self.kept.alive() else None
        if self.worker is not None:
            return True
        try:
            self.start()
        except StartError as error:
            self.broken = str(error)
            return False
        return True

    def close(self) -> None:
        """End the worker; keep the template for the next block of this process."""
        self.discard()
        self.rows = self.words = self.actions = self.block = None
        _POOL.give(self.key, self.kept)
        self.kept = None


def start_together(boxes, forfeit: bool = False) -> None:
    """Start the processes of ``boxes`` and wait until each is ready (:meth:`Sandbox.ready`;
    with ``forfeit``, :meth:`Sandbox.ready_or_forfeit`), as many side by side as this process
    has cores: each start has its own limits (``START_LIMIT``, ``Isolation.warm_up``), which
    more starts than cores would share."""
    boxes = list(boxes)
    at_once = len(os.sched_getaffinity(0))
    for first in range(0, len(boxes), at_once):
        wave = boxes[first : first + at_once]
        for box in wave:
            box.spawn()
        for box in wave:
            if forfeit:
                box.ready_or_forfeit()
            else:
                box.ready()


# What a child described, by its start message (the module, the memory limit, the paths).
_DESCRIBED: dict[bytes, str] = {}


def describe(name: str, text: str, memory_mb: int) -> list[dict]:
    """The agents an untrusted module's source defines, as a child of its own reports them
    (``agents.isolation.untrusted.describe``); a one-line ValueError if the module cannot be
    imported there. A process asks once for each start message (the same file loaded again,
    a notebook's cell run twice, starts no process)."""
    any_game = next(iter(GAMES))  # a module is described apart from any game
    message = start_message(any_game, None, 0, 0, memory_mb, mode="describe")
    message["module"] = (name, text)
    key = pickle.dumps(message)
    if key not in _DESCRIBED:
        _DESCRIBED[key] = json.dumps(_ask_child(message))
    return json.loads(_DESCRIBED[key])


def _ask_child(message: dict) -> list[dict]:
    """What a child started with the describe ``message`` reports (see :func:`describe`)."""
    name, memory_mb = message["module"][0], message["memory_mb"]
    template = Template(message)
    try:
        first, rest = template.answer(START_LIMIT, everything=True)
    except TimeoutError:
        first, rest = FAILED, f"no answer in {START_LIMIT:g} s".encode()
    finally:
        template.kill()
    if first != protocol.READY:
        why = printable(rest.decode(errors="replace")) or "its process ended while importing it"
        why += memory_hint(memory_mb)
        raise ValueError(f"untrusted module {name!r} cannot be imported in its own process: {why}")
    try:
        described = json.loads(rest)
    except ValueError as error:
        why = f"its process's answer is not JSON ({printable(str(error))})"
        raise ValueError(f"untrusted module {name!r}: {why}") from None
    if not (isinstance(described, list) and all(isinstance(d, dict) for d in described)):
        raise ValueError(f"untrusted module {name!r}: its process's answer is not a list of agents")
    return described


class _Dumpable:
    """While any child lives, this process is non-dumpable (Linux ``prctl``): a process of the
    same unprivileged user can then neither ``ptrace`` it nor read its ``/proc/PID/mem``."""

    def __init__(self):
        self.children, self.before = 0, None

    def hold(self) -> None:
        self.children += 1
        if self.children == 1:
            self.before = _prctl(3, 0)  # PR_GET_DUMPABLE
            _prctl(4, 0)  # PR_SET_DUMPABLE, 0

    def release(self) -> None:
        self.children -= 1
        if self.children == 0 and self.before is not None and self.before > 0:
            _prctl(4, self.before)


_DUMPABLE = _Dumpable()


def _prctl(option: int, value: int):
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux
        return None

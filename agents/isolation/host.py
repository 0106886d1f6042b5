"""The parent's side of an isolated agent: a :class:`Sandbox` per isolated seat.

A sandbox owns the shared block of its seat (``agents.isolation.protocol``) and the child
process that decides from it (``agents.isolation.child``). :meth:`Sandbox.run` sends a batch
and returns a fault code per decision (0: answered); a fault kills the child, and the next
decision goes to a fresh one, so the run goes on whatever the agent does. A child that cannot
be started again forfeits every later decision of the block at once (``NO_START``), so that a
broken agent never stalls a run.

Children start as fresh interpreters with a scrubbed environment (:func:`environment`), in a
session of their own (killed with everything they started), in an empty temporary folder.
"""

import contextlib
import ctypes
import os
import pickle
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

from agents.isolation import CRASHED, FAULTS, NO_START, RAISED, TIMEOUT, Isolation, protocol
from agents.isolation.child import FAILED
from agents.isolation.protocol import H_COUNT, H_DONE, H_FAULT, H_FIRST
from giftsim.game import GAMES, load_game

START_LIMIT = 120.0  # seconds for a child to import and compile its agent (a loaded machine)
THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


class StartError(ValueError):
    """An isolated agent's process did not start (one line: why)."""


def environment(folder: str) -> dict:
    """A child's whole environment: no variable of the parent's but Numba's settings (its
    cache folder, so that built-ins load compiled), one thread per library, ``folder`` as
    home and temporary folder."""
    numba = {k: v for k, v in os.environ.items() if k.startswith("NUMBA_")}
    threads = dict.fromkeys(THREADS, "1")
    return {
        "PATH": os.defpath,
        "LANG": "C.UTF-8",
        "HOME": folder,
        "TMPDIR": folder,
        **numba,
        **threads,
    }


def start_message(game: str, agent, players: int, capacity: int, memory_mb: int, mode="serve"):
    """What a child is told (plain data, pickled): the game (and its package), the agent (the
    spec of a built-in, a pickle of a user family defined here, or an untrusted module's
    source and the spec), the table size, the batch capacity and the memory limit, and this
    process's import path (absolute entries only: the child's folder is its own)."""
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
    }


class Child:
    """One child process: started, asked, killed. Without ``block_fd`` it only describes an
    untrusted module (``describe``)."""

    def __init__(self, message: dict, block_fd: int | None):
        self.describing = block_fd is None
        self.folder = tempfile.mkdtemp(prefix="giftsim-agent-")
        go_read, self.go = os.pipe()
        self.done, done_write = os.pipe()
        fds = (go_read, done_write, -1 if block_fd is None else block_fd)
        command = [sys.executable, "-I", "-m", "agents.isolation.child", *map(str, fds)]
        _DUMPABLE.hold()  # before the child runs any code
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=self.folder,
            env=environment(self.folder),
            pass_fds=[fd for fd in fds if fd >= 0],
            start_new_session=True,
        )
        os.close(go_read)
        os.close(done_write)
        try:
            self.process.stdin.write(pickle.dumps(message))
            self.process.stdin.close()
        except OSError:  # it ended before reading: the wait for its answer says so
            pass

    def answer(self, limit: float) -> tuple[bytes, bytes]:
        """The child's first byte (``READY``, ``FAILED``, or b"" when it ended) and, after
        ``FAILED`` or when describing, all it wrote until it exited; raises TimeoutError."""
        first = self.read(limit)
        if first == protocol.READY and not self.describing:
            return first, b""
        rest, deadline = b"", time.monotonic() + limit
        while first and (more := self.read(max(deadline - time.monotonic(), 0.01), 65536)):
            rest += more
        return first, rest

    def read(self, limit: float, size: int = 1) -> bytes:
        """Up to ``size`` bytes from the child (b"": it ended); TimeoutError after ``limit``."""
        ready, _, _ = select.select([self.done], [], [], limit)
        if not ready:
            raise TimeoutError
        return os.read(self.done, size)

    def kill(self) -> None:
        """End the child and everything it started; free its pipes and folder."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for fd in (self.go, self.done):
            os.close(fd)
        shutil.rmtree(self.folder, ignore_errors=True)
        self.process = None
        _DUMPABLE.release()


class Sandbox:
    """An isolated seat: ``agent`` deciding from a process of its own, batches of up to
    ``capacity`` decisions of a ``players``-seat table, under ``isolation``'s limits.

    Fill ``rows[:k]`` (observations) and ``words[:k]`` (random words), call ``run(k)``; then
    ``actions[:k]`` and ``words[:k]`` hold the answers where the returned fault code is 0."""

    def __init__(self, game: str, agent, players: int, capacity: int, isolation: Isolation):
        self.limit, obs_size = isolation.time_limit, load_game(game).obs_size
        self.fd = protocol.create(capacity, obs_size)
        self.block = protocol.Block(self.fd, capacity, obs_size)
        self.rows, self.words, self.actions = self.block.rows, self.block.words, self.block.actions
        self.message = start_message(game, agent, players, capacity, isolation.memory_mb)
        self.child, self.broken, self.faults = None, "", []  # faults: (code, message)
        self.name = getattr(agent, "spec", str(agent))

    def start(self) -> None:
        """Start the child; raise :class:`StartError` (one line) if it does not get ready."""
        self.spawn()
        self.ready()

    def spawn(self) -> None:
        """Start the child without waiting for it (several start side by side)."""
        self.child = Child(self.message, self.fd)

    def ready(self) -> None:
        """Wait for the spawned child to be ready; :class:`StartError` if it is not."""
        try:
            first, rest = self.child.answer(START_LIMIT)
        except TimeoutError:
            first, rest = FAILED, f"not ready in {START_LIMIT:g} s".encode()
        if first != protocol.READY:
            self.child.kill()
            self.child = None
            why = rest.decode(errors="replace") or "its process ended while starting"
            raise StartError(f"isolated agent {self.name!r} did not start: {why}")

    def run(self, count: int) -> np.ndarray:
        """Decide rows ``0 .. count - 1``; the fault code of each (0: answered)."""
        faults = np.zeros(count, np.int8)
        first = 0
        while first < count:
            if self.child is None and not self._restart():
                faults[first:] = NO_START
                break
            done, code = self._batch(first, count)
            if code:
                faults[done] = code
                self.child.kill()
                self.child = None
            first = done + 1 if code else count
        return faults

    def _batch(self, first: int, count: int) -> tuple[int, int]:
        """Send rows ``first ..``; ``(rows answered up to, fault code or 0)``."""
        header = self.block.header
        header[H_FIRST], header[H_COUNT], header[H_DONE], header[H_FAULT] = first, count, first, 0
        os.write(self.child.go, protocol.GO)
        seen, since = first, time.monotonic()
        while True:
            try:
                signal_byte = self.child.read(self.limit / 4)
            except TimeoutError:
                signal_byte = None
            done = int(min(max(header[H_DONE], first), count))
            if signal_byte == protocol.DONE:
                if done == count:
                    return done, 0
                code = int(header[H_FAULT])
                code = code if 0 < code < len(FAULTS) else RAISED
                return done, self._note(code, self.block.said())
            if signal_byte is not None:  # b"": the child ended
                return done, self._note(CRASHED, self._exit())
            if done != seen:
                seen, since = done, time.monotonic()
            elif time.monotonic() - since > self.limit:
                return done, self._note(TIMEOUT, f"no answer in {self.limit:g} s")

    def _note(self, code: int, message: str) -> int:
        self.faults.append((code, message))
        return code

    def _exit(self) -> str:
        status = self.child.process.wait()
        return f"signal {-status}" if status < 0 else f"exit status {status}"

    def _restart(self) -> bool:
        if self.broken:
            return False
        try:
            self.start()
        except StartError as error:
            self.broken = str(error)
            return False
        return True

    def close(self) -> None:
        if self.child is not None:
            self.child.kill()
            self.child = None
        self.rows = self.words = self.actions = None
        self.block.close()
        os.close(self.fd)


def describe(name: str, text: str, memory_mb: int) -> list[dict]:
    """The agents an untrusted module's source defines, as it reports them from a child of
    its own (``agents.isolation.untrusted.describe``); a one-line ValueError if the module
    cannot be imported there."""
    import json

    message = start_message("geschenkt", None, 0, 0, memory_mb, mode="describe")
    message["module"] = (name, text)
    child = Child(message, None)
    try:
        first, rest = child.answer(START_LIMIT)
    except TimeoutError:
        first, rest = FAILED, f"no answer in {START_LIMIT:g} s".encode()
    finally:
        child.kill()
    if first != protocol.READY:
        why = rest.decode(errors="replace") or "its process ended while importing it"
        raise ValueError(f"untrusted module {name!r} cannot be imported in its own process: {why}")
    return json.loads(rest)


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

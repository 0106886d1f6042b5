"""The isolated agent's process: ``python -I -m agents.isolation.child CONTROL BLOCK``.

Started by ``agents.isolation.host``, through its keeper (``agents.isolation.keeper``, its
parent), with two file descriptors (``CONTROL``, its end of a socket pair with the run;
``BLOCK``, the shared block of ``agents.isolation.protocol``, or -1) and its start message
on stdin: a pickle of plain data (the game, the agent, the limits; see
``host.start_message``). It limits its own address space, asks to die with its parent and
to adopt its descendants' orphans before it imports anything, loads the agent, compiles what
it will run, and answers ``READY`` on ``CONTROL`` (or ``FAILED`` and the reason).

It then serves as a *template*: for each pair of pipe ends the parent sends (``FORK``, with
``GO`` to read and ``DONE`` to write) it forks a *worker*, a copy of itself as it stands, which
decides each batch it is sent, one byte each way, until the parent closes ``GO`` or kills it,
and answers the worker's pid (8 bytes). So a worker killed after a fault is replaced in
milliseconds by another copy of the same clean process, never by one that ran the faulty
decision. Asked ``HOW`` (a worker closed its ``DONE`` pipe: it crashed or exited), it reaps
that worker, its child, and answers how it ended: 8 bytes, signed, the exit status, or minus
the signal that killed it (``os.waitstatus_to_exitcode``), or ``UNSEEN`` if it saw no end
within ``GRACE`` seconds. In ``describe`` mode it only loads an untrusted module and writes
what agents it defines (as JSON after ``READY``).
"""

import contextlib
import ctypes
import importlib.util
import json
import os
import pickle
import resource
import signal
import socket
import sys
import time
import types

from agents.isolation import explain

FAILED = b"x"
FORK, HOW = b"f", b"w"  # what the parent asks a template: a worker; how the last one ended
UNSEEN = 1 << 16  # the answer to HOW when the worker was not seen to end (no exit status)
GRACE = 1.0  # seconds a template waits for its worker's end (it closed its pipe: milliseconds)
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def main(argv) -> None:
    control = socket.socket(fileno=int(argv[1]))
    block_fd = int(argv[2])
    start = pickle.loads(sys.stdin.buffer.read())
    os.close(0)
    _limit(start["memory_mb"])
    _die_with_parent()
    _keep_orphans()
    from agents.drivers.generate import PRIVATE
    from agents.isolation.confine import confine, package_folders, places, read_only_cache

    if not start["cached"]:  # it generates its drivers in its own folder (it may not write
        os.environ[PRIVATE] = os.getcwd()  # the cache's), and compiles them

    cache = os.environ.get("NUMBA_CACHE_DIR")
    ours = package_folders(["giftsim", "agents", start["package"]])  # where this process finds
    packages = start["packages"] + ours  # them, as well as the parent (its PYTHONPATH may differ)
    packages += start["files"]  # its own network or table, named by its spec
    if confine(places(packages, start["path"], cache, os.getcwd())):
        read_only_cache()
    try:
        agent, added = _load(start)
        if start["mode"] == "describe":
            control.sendall(b"r" + json.dumps(added).encode())
            return
        serve = _server(start, agent, block_fd, control)
    except BaseException as error:  # the agent's own code ran: anything may come out of it
        control.sendall(FAILED + explain(error).encode())
        return
    control.sendall(b"r")
    _template(control, serve)


def _limit(memory_mb: int) -> None:
    """Cap the process's address space (its memory limit) and leave no core files."""
    size = memory_mb << 20
    resource.setrlimit(resource.RLIMIT_AS, (size, size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _die_with_parent() -> None:
    """Linux: the kernel kills this process when its parent ends (a killed run leaves none)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def _keep_orphans() -> None:
    """Linux: a process this one's descendants start and leave (a double fork, a process
    whose parent ended) becomes this process's child, not init's: whatever group or session
    it moved to, it stays below the template, where the parent finds and kills it (what
    leaves the template, or is started while this is undone, stays below the keeper,
    ``agents.isolation.keeper``)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _template(control: socket.socket, serve) -> None:
    """Fork a worker for each pair of pipe ends the parent sends, and tell it the worker's
    pid; tell it how the last worker ended when asked."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # its children are reaped here, to see how
    children = _Children()
    while True:
        data, fds, _, _ = socket.recv_fds(control, 1, 2)
        children.reap()  # ended workers, and the orphans of the agent's processes adopted
        if data == HOW and not fds:
            control.sendall(children.ended().to_bytes(8, "little", signed=True))
            continue
        if not data or len(fds) != 2:
            return
        pid = os.fork()
        if pid == 0:
            _worker(control, fds, serve)
        children.worker, children.status = pid, None
        for fd in fds:
            os.close(fd)
        control.sendall(pid.to_bytes(8, "little"))


class _Children:
    """A template's ended children, reaped: the current worker (its pid) and its wait status
    once it ended (None before)."""

    def __init__(self):
        self.worker, self.status = 0, None

    def reap(self) -> None:
        with contextlib.suppress(ChildProcessError):  # no child left
            while (ended := os.waitpid(-1, os.WNOHANG))[0] > 0:
                if ended[0] == self.worker:
                    self.status = ended[1]

    def ended(self) -> int:
        """How the worker ended (``os.waitstatus_to_exitcode``), waiting up to ``GRACE``
        seconds for its end; ``UNSEEN`` if it did not end (or was reaped elsewhere)."""
        deadline = time.monotonic() + GRACE
        while self.status is None and self.worker > 0 and time.monotonic() < deadline:
            time.sleep(0.001)
            self.reap()
        return UNSEEN if self.status is None else os.waitstatus_to_exitcode(self.status)


def _worker(control: socket.socket, fds, serve) -> None:
    """A forked worker: decide each batch until ``GO`` closes; never returns."""
    code = 0
    try:
        from agents.isolation.confine import scope_signals

        os.setsid()  # its own group: the parent kills it with all it starts
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        control.close()
        scope_signals()  # before the agent's code: it may not kill the template
        _die_with_parent()
        go, done = fds
        while os.read(go, 1):
            serve()
            os.write(done, b"d")
    except BaseException:
        code = 1
    os._exit(code)


def _load(start: dict):
    """The agent to serve (None in describe mode) and the families an untrusted module added
    (descriptions, see ``untrusted.describe``)."""
    sys.path[:0] = start["path"]
    from agents.isolation.untrusted import describe
    from agents.registry import compiling_later, parse
    from giftsim.game import GAMES, register_game

    if start["game"] not in GAMES:
        register_game(start["game"], start["package"])
    added = []
    if start["module"] is not None:
        name, text = start["module"]
        path = os.path.join(os.getcwd(), name)
        with open(path, "w") as f:
            f.write(text)
        if start["mode"] == "describe":  # every agent compiled: errors show before a run
            return None, [describe(family) for family in _run_module(path)]
        with compiling_later():  # only the agent it serves is compiled (Family.entry)
            _run_module(path)
    if start["agent"] is not None:
        with compiling_later():
            agent = pickle.loads(start["agent"])
        _module_of(agent.family.decide)
        return agent, added
    return parse(start["spec"], start["game"]), added


def _run_module(path: str) -> list:
    """Run an untrusted module's source here; the families it defined. Its own exception
    propagates (``explain`` then names its line)."""
    from agents.registry import families, no_bytecode
    from giftsim.game import GAMES

    before = {(g, f.name): f for g in GAMES for f in families(g)}
    name = "giftsim_untrusted_" + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    with no_bytecode():
        spec.loader.exec_module(module)
    return [f for g in GAMES for f in families(g) if before.get((g, f.name)) is not f]


def _module_of(decide) -> None:
    """Give a ``decide`` pickled by value (its module is not importable here) a module under
    its module's name, holding its globals: Numba resolves the globals of an ``objmode``
    block through the module of the function."""
    function = getattr(decide, "py_func", decide)
    name = getattr(function, "__module__", None)
    if name and name not in sys.modules and hasattr(function, "__globals__"):
        module = types.ModuleType(name)
        module.__dict__.update(function.__globals__)
        sys.modules[name] = module


def _server(start: dict, agent, block_fd: int, control: socket.socket):
    """The function that decides one batch of the shared block (compiled or plain Python)."""
    import numpy as np

    from agents.isolation.protocol import Block
    from agents.isolation.serve import fault_of, python_server, serve
    from agents.kernels.entries import entry_addresses
    from giftsim.contract import scratch_size
    from giftsim.game import load_game

    game = load_game(start["game"])
    block = Block(block_fd, start["capacity"], game.obs_size)
    params = agent.param_row(start["players"])
    if not agent.family.compiled:
        _warm_up(agent.family.decide, game, start["players"], params, control, start["warm_up"])
        return python_server(agent.family.decide, block, params)
    entry = agent.family.entry()
    address = entry_addresses([entry])[0]
    scratch = np.zeros(scratch_size(game.obs_size, game.state_size), np.int64)
    arrays = (block.flat, block.words, block.actions, params, scratch, game.obs_size)
    serve(address, np.zeros_like(block.header), *arrays)  # no decision: compiles (or loads)

    def run():
        try:
            serve(address, block.header, *arrays)
        except BaseException as error:
            fault_of(error, block)

    run.keep = entry  # the entry stays alive while its address is used
    return run


def _warm_up(decide, game, players: int, params, control: socket.socket, limit: float) -> None:
    """Let a plain-Python ``decide`` compile what it compiles when first called (its
    ``@njit`` helpers) here, once, rather than in each worker against the time limit (which
    then forfeited a decision per fresh worker: more of them in smaller chunks). It plays a
    whole game in every seat (one fixed deal: the decisions of a game, early and late),
    first in a forked probe and here only if the probe finished within ``limit`` seconds
    (so a bot that faults there, say by crashing, does not take its template with it); its
    answers are dropped, and an error or an illegal answer is the lowest legal action."""
    import numpy as np

    def answer(obs, legal) -> int:
        with contextlib.suppress(Exception):
            action = int(decide(obs.copy(), params.copy(), np.zeros(1, np.uint64)))
            if action in legal:
                return action
        return legal[0]

    def play_once() -> None:  # the game's verbs alone (the drivers are a floor above)
        state, obs = np.zeros(game.state_size, np.int64), np.zeros(game.obs_size, np.int64)
        with contextlib.suppress(Exception):
            game.deal_keyed(game.rules(n_players=players).to_array(), np.uint64(0), 0, state)
            game.begin(state)
            while not game.is_over(state):
                legal = list(game.legal_actions(state))
                game.observe(state, int(state[game.turn_slot]), obs)
                game.apply_action(state, answer(obs, legal) if len(legal) > 1 else legal[0])

    pid = os.fork()
    if pid == 0:  # the probe: as a worker, without the template's end of the control socket
        code = 1  # it failed: the template does not warm up
        try:
            from agents.isolation.confine import scope_signals

            control.close()
            scope_signals()  # as a worker: it may not kill the template
            signal.setitimer(signal.ITIMER_REAL, limit)  # SIGALRM ends a probe stuck anywhere
            play_once()
            code = 0
        finally:
            os._exit(code)
    deadline = time.monotonic() + limit + 1
    while (ended := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    if ended[0] == 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    elif os.waitstatus_to_exitcode(ended[1]) == 0:
        play_once()


if __name__ == "__main__":
    main(sys.argv)

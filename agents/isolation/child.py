"""The isolated agent's process: ``python -I -m agents.isolation.child GO DONE BLOCK``.

Started by ``agents.isolation.host`` with three file descriptors (the ``GO`` pipe it reads,
the ``DONE`` pipe it writes, the shared ``BLOCK`` of ``agents.isolation.protocol``) and its
start message on stdin: a pickle of plain data (the game, the agent, the limits; see
``host.start_message``). It limits its own address space before it imports anything, loads the
agent, and answers ``READY`` on ``DONE`` (or ``FAILED`` and the reason); then it decides each
batch it is sent, one byte each way, until the parent closes ``GO``.

In ``describe`` mode it only loads an untrusted module and writes what agents it defines (as
JSON after ``READY``), so that the parent can list them without running the module's code.
"""

import json
import os
import pickle
import resource
import sys
import traceback

FAILED = b"x"


def main(argv) -> None:
    go, done, block_fd = (int(a) for a in argv[1:4])
    start = pickle.loads(sys.stdin.buffer.read())
    sys.stdin.close()
    _limit(start["memory_mb"])
    try:
        agent, added = _load(start)
        if start["mode"] == "describe":
            _answer(done, b"r" + json.dumps(added).encode())
            return
        serve = _server(start, agent, block_fd)
    except BaseException as error:  # the agent's own code ran: anything may come out of it
        _answer(done, FAILED + _reason(error).encode())
        return
    os.write(done, b"r")
    while os.read(go, 1):
        serve()
        os.write(done, b"d")


def _limit(memory_mb: int) -> None:
    """Cap the process's address space (its memory limit) and leave no core files."""
    size = memory_mb << 20
    resource.setrlimit(resource.RLIMIT_AS, (size, size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _load(start: dict):
    """The agent to serve (None in describe mode) and the families an untrusted module added
    (descriptions, see ``untrusted.describe``)."""
    sys.path[:0] = start["path"]
    from agents.isolation.untrusted import describe
    from agents.registry import load_module, parse
    from giftsim.game import GAMES, register_game

    if start["game"] not in GAMES:
        register_game(start["game"], start["package"])
    added = []
    if start["module"] is not None:
        name, text = start["module"]
        path = os.path.join(os.getcwd(), name)
        with open(path, "w") as f:
            f.write(text)
        added = [describe(family) for family in load_module(path)]
    if start["mode"] == "describe":
        return None, added
    if start["agent"] is not None:
        return pickle.loads(start["agent"]), added
    return parse(start["spec"], start["game"]), added


def _server(start: dict, agent, block_fd: int):
    """The function that decides one batch of the shared block (compiled or plain Python)."""
    import numpy as np

    from agents.isolation.protocol import Block
    from agents.isolation.serve import python_server, serve
    from agents.kernels.lanes import entry_addresses
    from giftsim.contract import SCRATCH_WORK
    from giftsim.game import load_game

    game = load_game(start["game"])
    block = Block(block_fd, start["capacity"], game.obs_size)
    params = agent.param_row(start["players"])
    if not agent.family.compiled:
        return python_server(agent.family.decide, block, params)
    entry = agent.family.entry()
    address = entry_addresses([entry])[0]
    scratch = np.zeros(game.obs_size + game.state_size + SCRATCH_WORK, np.int64)
    arrays = (block.header, block.flat, block.words, block.actions, params, scratch)
    serve(address, *arrays, game.obs_size)  # compiles (or loads) before the first batch

    def run():
        from agents.isolation.serve import fault_of

        try:
            serve(address, *arrays, game.obs_size)
        except BaseException as error:
            fault_of(error, block)

    run.keep = entry  # the entry stays alive while its address is used
    return run


def _reason(error: BaseException) -> str:
    """One line: the exception, and where in the agent's code it was raised."""
    frames = traceback.extract_tb(error.__traceback__)
    where = f" ({os.path.basename(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}{where}"


def _answer(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data) :]


if __name__ == "__main__":
    main(sys.argv)

"""A bot whose module, as it loads in its template (the process that imports the bot and forks
its workers), starts a process meant to outlive the run, in one of three ways. Copy this file
as ``deserter.py``, ``unreaper.py`` or ``sibling.py``: the file's name picks the way and names
the bot (``tests/test_isolation.py``).

* ``deserter``: starts a process, then ends the template (its start fails, saying the pid;
  the run reads that until the process, once the template has ended, closes the template's
  control socket): the process is left an orphan of the template;
* ``unreaper``: undoes the template's adoption of orphans (``PR_SET_CHILD_SUBREAPER`` 0),
  then leaves the grandchild of a double fork;
* ``sibling``: starts a process as the template's sibling (``clone`` with ``CLONE_PARENT``):
  a child of the template's parent.

Each process it starts moves to a session of its own and sleeps for a minute; its pid is
written in the file ``escaped`` of the bot's folder. ``unreaper`` and ``sibling`` then play:
each decision raises an error that says the pid. The module
does nothing of this in the check of an untrusted module before a run (a process with no
shared block: its second argument is -1).
"""

import ctypes
import os
import platform
import sys
import time

from agents.registry import define

WAY = __name__.rsplit("_", 1)[-1]  # the module's name: giftsim_untrusted_ and the file's
CLONE_PARENT, SIGCHLD = 0x8000, 17
SYS_CLONE = {"x86_64": 56, "aarch64": 220}
LIBC = ctypes.CDLL(None, use_errno=True)
READ, WRITE = os.pipe()
TEMPLATE, CONTROL = os.getpid(), int(sys.argv[1])


def linger(write: int) -> None:
    """In a started process: a session of its own, its pid said on ``write``, a minute's
    sleep, the end. It keeps the template's end of its control socket (the run reads the
    deserter's words until it closes) until the template has ended."""
    try:
        os.setsid()
        os.write(write, os.getpid().to_bytes(8, "little"))
        while os.getppid() == TEMPLATE and WAY == "deserter":
            time.sleep(0.001)
        os.close(CONTROL)
        time.sleep(60)
    finally:
        os._exit(0)


def start() -> None:
    """Start a process in this bot's way (in the started process: linger there)."""
    if WAY == "unreaper":
        LIBC.prctl(36, 0, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER, 0
        if os.fork() == 0:
            if os.fork() == 0:
                linger(WRITE)
            os._exit(0)
    elif WAY == "sibling":
        if LIBC.syscall(SYS_CLONE[platform.machine()], CLONE_PARENT | SIGCHLD, 0, 0, 0, 0) == 0:
            linger(WRITE)
    elif os.fork() == 0:  # the deserter
        linger(WRITE)


def escape() -> int:
    """Start a process in this bot's way; its pid, once it is in a session of its own."""
    start()
    said = b""
    while len(said) < 8:
        said += os.read(READ, 8 - len(said))
    return int.from_bytes(said, "little")


if sys.argv[2] != "-1":  # a process that serves decisions
    ESCAPED = escape()
    with open("escaped", "w") as f:  # in its own folder
        f.write(f"{ESCAPED}")
    if WAY == "deserter":  # its start fails with the pid, and the template ends
        os.write(CONTROL, f"xescaped {ESCAPED}".encode())
        os._exit(0)


def orphans(obs, params, rng):
    raise RuntimeError(f"escaped {ESCAPED}")


define("geschenkt", WAY, orphans, compiled=False)

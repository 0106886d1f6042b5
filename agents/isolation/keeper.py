"""The keeper of an isolated agent's template: ``python -I -B -S keeper.py KEEP HOST COMMAND...``.

A small process between the run and the template (``agents.isolation.child``) that runs no code
of the agent's and imports only the standard library (it is started as a script, without
``site``: a few milliseconds). It adopts orphans (``PR_SET_CHILD_SUBREAPER``) and starts the
template (``COMMAND``, fork and exec), so every process the agent's code starts stays below
it, whatever that code does while its module loads in the template: a process whose parent
(the template) ends, one whose template stopped adopting orphans, one started as the
template's sibling (``clone(CLONE_PARENT)``) are the keeper's children. The template, confined
by Landlock and scoped, cannot signal the keeper, which is outside its domain.

It writes the template's pid (8 bytes, little-endian) on its standard output, and when the
run says so (a byte on the pipe ``KEEP``), the run ends (``HOST``, the run's pid, dies: the
pipe's end closes without a byte, or this process is adopted) or the template ends, it kills
every process below itself and exits; when the run ended first, it also removes the agent's
folder (its working directory, which the run made and would have removed:
:func:`remove_folder`). A dying run's files close before its children are adopted: the end
of the pipe, not the parent, tells that it died (a keeper that looked at its parent then
still saw the run and left the folder). The run finds and kills what is below
the keeper with the same functions (:func:`kill_below`): a process is killed only through a
pidfd, after its parent was checked.

The kernel tells the keeper of the run's end with SIGTERM (``PR_SET_PDEATHSIG``), but it sends
that signal when the *thread* that started the keeper ends, though the run lives on (its other
threads adopt the keeper): a run that started an agent from a short-lived thread (a pool's, a
Dask task's that secedes) had its agent killed with that thread. So the signal only wakes the
keeper's loop (``signal.set_wakeup_fd``: its handler does nothing, nothing is raised in the
middle of the loop), which ends when its parent is no longer ``HOST``; the setting stays armed
for the next thread's end. The loop checks its parent at least once a second as well.
"""

import contextlib
import ctypes
import os
import select
import signal
import sys
import time

KILL_LIMIT = 2.0  # seconds to kill what an agent's processes started (milliseconds: they may fork)
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def parent(pid: int) -> int:
    """The parent of process ``pid`` (Linux: its ``/proc`` status); 0 if it is gone or has
    ended (a zombie: its parent reaps it)."""
    try:
        with open(f"/proc/{int(pid)}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError, ValueError, OverflowError):
        return 0
    return int(fields[1]) if len(fields) > 1 and fields[0] != b"Z" else 0


def child_of(pid: int, of: int) -> bool:
    """Whether process ``pid`` is a live child of process ``of`` (a pid above 0)."""
    return of > 0 and parent(pid) == of


def below(root: int) -> list[int]:
    """The live processes below ``root``, each after its parent (Linux: their ``/proc``)."""
    children: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):  # no /proc: nothing found
        for name in os.listdir("/proc"):
            if name.isdigit() and (up := parent(int(name))):
                children.setdefault(up, []).append(int(name))
    found, parents, seen = [], [root], {root}
    while parents:
        for child in children.get(parents.pop(), ()):
            if child not in seen:  # a pid reused while /proc was read: no loop
                seen.add(child)
                found.append(child)
                parents.append(child)
    return found


def kill_below(root: int, spare: int = 0) -> None:
    """SIGKILL every process below ``root`` but ``spare`` (not what is below ``spare``:
    nothing is spared there), in rounds until none is left (one may fork while the others
    die), for at most ``KILL_LIMIT`` seconds."""
    deadline = time.monotonic() + KILL_LIMIT
    while (found := [p for p in below(root) if p != spare]) and time.monotonic() < deadline:
        tree = {root, spare, *found} - {0}
        for pid in found:
            _kill_if_below(pid, tree)
        time.sleep(0.001)


def _kill_if_below(pid: int, tree: set[int]) -> None:
    """SIGKILL ``pid`` if its parent is in ``tree`` once a pidfd holds it: the signal goes
    to the process checked, never to one that took its number after it ended."""
    with contextlib.suppress(OSError):  # it ended
        handle = os.pidfd_open(pid)
        try:
            if parent(pid) in tree:
                signal.pidfd_send_signal(handle, signal.SIGKILL)
        finally:
            os.close(handle)


def remove_folder(path: str) -> None:
    """Remove an agent's folder and all in it, never through a link; a tree deeper than
    Python's recursion limit (an agent may make one: ``shutil.rmtree`` raises there) goes to
    ``rm -rf``."""
    import shutil  # here: the keeper's start imports no more than it needs

    try:
        shutil.rmtree(path, ignore_errors=True)
    except RecursionError:
        import subprocess

        subprocess.run(["rm", "-rf", "--", path], check=False, stderr=subprocess.DEVNULL)


def _woken(signum, frame) -> None:
    """SIGTERM (``PR_SET_PDEATHSIG``): the byte on the wakeup pipe wakes the loop, which
    checks whether the run lives."""


def _reap() -> None:
    """Reap every ended child (the template, adopted orphans): no zombie lingers."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass


def main(argv) -> None:
    keep, host, command = int(argv[1]), int(argv[2]), argv[3:]
    run_died = False
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])  # until it can kill what is below
    libc = ctypes.CDLL(None)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != host:  # the run ended before it could ask: nothing started
        return
    folder = os.getcwd()  # the agent's folder
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    os.set_inheritable(keep, False)
    null = os.open(os.devnull, os.O_RDWR)
    pid = os.fork()
    if pid == 0:  # the template: the standard input (its start message) and the fds passed
        try:
            os.dup2(null, 1)
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            os.execv(command[0], command)
        finally:
            os._exit(127)
    try:
        template = os.pidfd_open(pid)
        os.write(1, pid.to_bytes(8, "little"))
        for fd in (0, 1):  # the template's start message; the run's pipe
            os.dup2(null, fd)
        low = 3  # close the template's ends (control socket, shared block): the run sees
        for fd in sorted({keep, template}):  # the template's end when it ends
            os.closerange(low, fd)
            low = fd + 1
        os.closerange(low, os.sysconf("SC_OPEN_MAX"))
        woken, wake = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.set_wakeup_fd(wake)
        signal.signal(signal.SIGTERM, _woken)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
        while os.getppid() == host:  # else the run ended: this process was adopted
            ready, _, _ = select.select([template, keep, woken], [], [], 1.0)
            _reap()
            if keep in ready:  # the run's word, or the end of its pipe without one: it died
                run_died = not os.read(keep, 1)  # (its files close before this is adopted)
                return
            if template in ready:
                return
            with contextlib.suppress(BlockingIOError):  # SIGTERM: the loop checks the parent
                os.read(woken, 64)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # nothing stops the killing
        kill_below(os.getpid())
        _reap()
        if run_died or os.getppid() != host:  # the run is gone: no one else frees the folder
            remove_folder(folder)


if __name__ == "__main__":
    main(sys.argv)

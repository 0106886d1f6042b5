"""How a command stops: Ctrl-C and SIGTERM end it as one (:class:`Terminated`), and a
watchdog thread ends the process when a library loses the stop (:class:`Watchdog`)."""

import contextlib
import math
import os
import signal
import sys
import threading
import time


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill``, a batch system's time limit): the command stops as on Ctrl-C, what
    it wrote kept and the way to go on said, exit status 143."""


SIGNALLED: list[int] = []  # the stop signals this command received (main thread)
STOPS = (signal.SIGINT, signal.SIGTERM)  # what stops a command


def _on_signal(signum, frame):
    SIGNALLED.append(signum)
    raise Terminated if signum == signal.SIGTERM else KeyboardInterrupt


def stop_on_signals() -> dict:
    """Make SIGTERM stop the command as Ctrl-C does (:class:`Terminated`), both noted in
    :data:`SIGNALLED` (Ctrl-C where Python's own handler has it: not where it is ignored,
    as in a shell's background job); the handlers replaced, to put back (none off the main
    thread, where no handler can be set)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    taken = [signal.SIGTERM]
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        taken.append(signal.SIGINT)
    return {s: signal.signal(s, _on_signal) for s in taken}


def noted_only() -> None:
    """From now on a stop that :func:`stop_on_signals` took is only noted in
    :data:`SIGNALLED`: for a command already stopping, so that a second Ctrl-C while it says
    its line does not raise out of it (``timeout -s INT`` and an impatient hand both send
    two). The watchdog still ends a stop that hangs; the handlers :func:`stop_on_signals`
    replaced are put back by its caller, and no other is touched."""
    if threading.current_thread() is threading.main_thread():
        for signum in STOPS:
            if signal.getsignal(signum) is _on_signal:
                signal.signal(signum, lambda signum, frame: SIGNALLED.append(signum))


@contextlib.contextmanager
def held_stops():
    """Hold Ctrl-C and SIGTERM while the block runs (files written and recorded as one step,
    a second or so), then stop as they would have: at the block's end the handler in place
    before sees the signal held (SIGTERM if one of them was), unless the block raised, whose
    exception then goes on. The watchdog waits for the block (:data:`RELEASED`). Off the main
    thread, where no handler can be set, nothing is held."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    before = {s: signal.signal(s, lambda signum, frame: held.append(signum)) for s in STOPS}
    RELEASED[0] = math.inf
    try:
        yield
    finally:
        RELEASED[0] = time.monotonic()
        for signum, handler in before.items():
            signal.signal(signum, handler)
    if held:
        signal.raise_signal(signal.SIGTERM if signal.SIGTERM in held else held[0])


RELEASED = [0.0]  # when the last block holding the stops ended (time.monotonic); inf while held


def hush_lost_stops():
    """Keep Python from printing the stop's exception where it cannot be raised, such as in a
    ctypes callback (Numba's LLVM object cache calls one during a first compilation: Ctrl-C
    there printed "Exception ignored on calling ctypes callback function" and a traceback
    above the stop's line). Such a stop still ends the command: the main thread sees
    :data:`SIGNALLED`, or the :class:`Watchdog` ends it. Returns the hook before, to put back."""
    before = sys.unraisablehook

    def hook(unraisable):
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            before(unraisable)

    sys.unraisablehook = hook
    return before


STOP_LIMIT = 5.0  # seconds from a stop to the end of the process, past which the watchdog ends it


class Watchdog:
    """Ends the process on Ctrl-C or SIGTERM when the main thread does not. Python runs a
    signal's handler between bytecodes only, and a library may lose the exception it raises:
    a stop during a first Numba compilation took effect when an LLVM pass returned (seconds
    to a minute), or was lost in Numba's code and the command ran on to its end (a cold
    ``giftsim bench`` stopped 9 s in ended 165 s later). The C-level handler also writes the
    signal's number to a pipe (``signal.set_wakeup_fd``) that this thread reads (LLVM
    releases the GIL); if the command has not reached its stop's end (``Watchdog.stopping``) or
    returned :data:`STOP_LIMIT` seconds later, the thread prints the stop's line (what was
    kept, how to go on) and ends the process with its status. Nothing is lost that the stop
    would have kept: every file is written under a temporary name and renamed, and worker
    processes end with their parent. Only the console command has one (never a caller of
    :func:`main` in-process, such as the tests)."""

    stopping = threading.Event()  # set once the stop's line is said, or the command returned

    def __init__(self, say):
        self.say = say  # say(signum): prints the stop's line, returns the exit status

    def __enter__(self):
        Watchdog.stopping.clear()
        self.read, self.write = os.pipe()
        os.set_blocking(self.write, False)
        try:
            self.before = signal.set_wakeup_fd(self.write)
        except ValueError:  # not the main thread: no handler runs here anyway
            self.before = None
        threading.Thread(target=self._watch, daemon=True, name="giftsim-watchdog").start()
        os.register_at_fork(after_in_child=_no_wakeup)  # a forked child's signals are its own
        return self

    def __exit__(self, *exc) -> None:
        Watchdog.stopping.set()
        if self.before is not None:
            signal.set_wakeup_fd(self.before)
        os.close(self.write)  # the thread reads the end of the pipe and returns

    def _watch(self) -> None:
        while data := os.read(self.read, 1):
            signum = data[0]
            if signum in STOPS and not self._stopped_in_time():
                self._end(signum)
        os.close(self.read)

    def _stopped_in_time(self) -> bool:
        """Whether the command reaches its stop's end within :data:`STOP_LIMIT` seconds, a
        block that holds the stops (:func:`held_stops`, writing files) given its time and
        the limit counted again from its end."""
        while not self.stopping.wait(STOP_LIMIT):
            if time.monotonic() - RELEASED[0] >= STOP_LIMIT:
                return False
        return True

    def _end(self, signum: int) -> None:
        """The stop's line, as the main thread would have said it, and the process ends."""
        code = self.say(signum)
        sys.stderr.flush()
        os._exit(code)


def _no_wakeup() -> None:
    with contextlib.suppress(ValueError):  # not the child's main thread: none was set
        signal.set_wakeup_fd(-1)


def quiet_exit(signum, frame) -> None:
    """Ctrl-C after the command returned: end at once, without a traceback (a shutdown that
    hangs can still be stopped)."""
    os._exit(130)

"""Hypothesis profiles: fresh random examples while developing, a fixed set on CI; the toy
third game, registered for every test (the contract test runs on each game of the list); and
one compile of each kernel across the suite's worker processes (below)."""

import fcntl
import hashlib
import os
import tempfile
from pathlib import Path

from hypothesis import settings
from numba.core import caching, dispatcher
from numba.core.compiler_lock import global_compiler_lock

from giftsim.game import register_game

register_game("toy", "tests.toy_game")

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


# ---- one compile of each kernel across the suite's worker processes --------------------------
# pytest-xdist's workers share one Numba cache folder, and Numba has no lock between processes:
# on an empty cache (a clean clone, CI) both workers compiled the kernels every test needs at
# once. Each compile of a cached function now holds a file lock named by its cache index: the
# other worker waits for it and then loads what was saved. Numba's in-process compiler lock is
# taken first, so that two threads of one process never wait on each other's file lock.

_LOCKS = Path(tempfile.gettempdir()) / "giftsim-compile-locks"
_HELD: set = set()
_compile = dispatcher.Dispatcher.compile


def _compile_once(self, sig):
    if not isinstance(self._cache, caching.FunctionCache):
        return _compile(self, sig)
    index = self._cache._cache_file._index_path
    path = _LOCKS / (hashlib.sha1(index.encode()).hexdigest() + ".lock")
    with global_compiler_lock:
        if path in _HELD:  # a recursive compile of the same function
            return _compile(self, sig)
        _LOCKS.mkdir(exist_ok=True)
        with open(path, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            _HELD.add(path)
            try:
                return _compile(self, sig)
            finally:
                _HELD.discard(path)


dispatcher.Dispatcher.compile = _compile_once

"""The one line a first run prints while Numba compiles what it will run (``--quiet``: none).

Compiled code is cached on disk (``NUMBA_CACHE_DIR``, see ``giftsim/__init__``); only a run that
finds no cached copy of a kernel compiles it. :func:`compiling` is told, before a block of games
starts, which kernels it needs; if any has no copy in the cache it says so on stderr, once per
kernel and process, in the main process only (workers stay silent).
"""

import multiprocessing
import os
import sys

QUIET = False  # set by the command line's --quiet
_SAID: set[str] = set()


def cached(dispatcher) -> bool:
    """True if Numba's on-disk cache holds compiled code of ``dispatcher`` (or it is compiled
    in this process already)."""
    if dispatcher.signatures:
        return True
    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:  # not a cached dispatcher: it compiles every run
        return False


def compiling(what: dict[str, tuple[object, float]]) -> bool:
    """Say once that the kernels ``what`` (label -> (dispatcher, seconds it takes to compile,
    measured on a 2-core machine)) without a cached copy are being compiled, and about how
    long that takes: the sum over those kernels. True if any of them has no cached copy."""
    uncached = {label: seconds for label, (d, seconds) in what.items() if not cached(d)}
    missing = {label: seconds for label, seconds in uncached.items() if label not in _SAID}
    if QUIET or not missing or multiprocessing.parent_process() is not None:
        return bool(uncached)
    _SAID.update(missing)
    from tqdm import tqdm  # its write clears a progress bar on the screen, then redraws it

    tqdm.write(
        f"giftsim: compiling {', '.join(missing)} (first run only; about "
        f"{max(1, round(sum(missing.values())))} s, then cached)",
        file=sys.stderr,
    )
    return True

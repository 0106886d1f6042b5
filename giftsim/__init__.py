"""giftsim: shared low-level pieces of the two game packages.

This package sits *below* the engines (``geschenkt_sim``, ``tulips_sim``) and holds what they
all need and none owns: the ``Game`` record and the registry of games (``game.py``), the
counter-based random streams (``rng.py``), the agent contract (``contract.py``), the checks
shared by record replays, rule options, where step verbs are inlined, writing files without
losing any, small checks and bit helpers, the first-compile notice, and the Numba cache
location (below).

Numba's on-disk cache checks only the source file of each cached function, not the modules it
calls, so an edit to ``state.py`` could leave a stale compiled loop in ``agents/``. Importing
this package therefore points ``NUMBA_CACHE_DIR`` at a folder named by a hash of all kernel
sources (unless the user set the variable): any edit gets a fresh cache. Numba's cache does not
key its entries by the optimisation level either (``NUMBA_OPT``), so a level other than the
default gets a folder of its own: kernels compiled unoptimised to debug are never loaded by a
later run at full speed.
"""

import hashlib
import os
import sys
from pathlib import Path

__version__ = "0.1.0"


def source_hash(suffixes=(".py",)) -> str:
    """Short hash of every source file (by default Python; ``suffixes`` as ``*.py``) of the
    packages that hold compiled code: this package, the agents and every game of the list of
    games (``giftsim.game.GAMES``)."""
    from giftsim.game import packages

    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha1()
    for package in ("giftsim", "agents", *packages()):
        found = (p for p in (root / package).rglob("*") if p.suffix in suffixes and p.is_file())
        for path in sorted(found):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def cache_folder_name() -> str:
    """The Numba cache folder's name: the hash of the kernel sources, and the optimisation level
    where ``NUMBA_OPT`` sets one other than Numba's default (3; Numba takes a value it cannot
    read as the default)."""
    level = os.environ.get("NUMBA_OPT", "3")
    return f"numba-{source_hash()}" + (f"-opt{level}" if level in ("0", "1", "2", "max") else "")


def _set_cache_dir() -> None:
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "giftsim"
    os.environ["NUMBA_CACHE_DIR"] = str(base / cache_folder_name())
    if "numba" in sys.modules:
        from numba.core import config

        config.reload_config()


def _quiet_first_class_warning() -> None:
    """Agents are first-class Numba functions by design; the library's warning is noise (matched
    by its text, so that importing giftsim does not import Numba)."""
    import warnings

    warnings.filterwarnings("ignore", message="First-class function type feature is experimental")


_set_cache_dir()
_quiet_first_class_warning()

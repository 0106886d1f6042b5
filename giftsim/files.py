"""Writing files without losing any: every file giftsim writes goes through here.

A file is written under a temporary name in its own folder and then renamed into place, so a
reader (or a run killed half-way) sees the old file or the new one, never a part. A file that
is already there is never replaced unless the caller says so (``force``: the command line's
``--force``, or a file the same run wrote before): a new file takes its place by a hard link,
which fails if the name was taken meanwhile. Checks come first (:func:`check_new`), before a
long job starts, so that a name that cannot be written is reported before any work is done.
Every refusal is a one-line ``ValueError`` naming the file.
"""

import contextlib
import fcntl
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

MANIFEST = "manifest.json"  # the file that makes a folder a results folder (its run's plan)


def check_new(path, force: bool = False, what: str = "--out") -> Path:
    """``path`` as a Path, after checking that it can be written: not an existing file (unless
    ``force``) nor a folder nor anything but a regular file (a device such as ``/dev/null``,
    which a write replaces by a file), not a results folder's manifest or chunk (never, even with
    ``force``: they are its run's games), and inside a folder that exists or can be made and
    is writable. Creates nothing."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{what} {path} is a folder; name a file")
    if _of_a_run(path):
        raise ValueError(
            f"{what} {path} is a file of the results in {path.parent} (its run's games are "
            "never replaced, even with --force); choose another name"
        )
    if path.exists() and not path.is_file():  # a device, a pipe, a socket: not replaced
        raise ValueError(f"{what} {path} is not a regular file (a device or a pipe); name a file")
    if path.exists() and not force:
        raise ValueError(f"{what} {path} already exists; choose a new name or add --force")
    _check_folder(path.parent, what, path)
    return path


def _of_a_run(path: Path) -> bool:
    """``path`` is the manifest or a chunk file of a results folder."""
    if not (path.parent / MANIFEST).is_file():
        return False
    return path.name == MANIFEST or (path.name.startswith("chunk-") and path.suffix == ".parquet")


def _check_folder(folder: Path, what: str, path: Path) -> None:
    """The nearest existing folder above ``path`` must be a writable folder (tried by making
    and removing a temporary file there, which is what the write will do)."""
    existing = folder
    while not existing.exists():
        if existing.is_symlink() or existing == existing.parent:
            break
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{what} {path}: {existing} is not a folder")
    try:
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".giftsim-check-"):
            pass
    except OSError as error:
        raise ValueError(f"{what} {path}: cannot write in {existing} ({error.strerror})") from None


def write_with(path, write: Callable[[Path], None], force: bool = False, what: str = "--out"):
    """Make ``path`` by ``write(temporary)`` (a file in the same folder), then move it into
    place: replacing an existing file only if ``force``, else refusing it in one line (also
    when the name was taken while ``write`` ran). Returns ``path``."""
    path = check_new(path, force, what)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(handle)
    temporary = Path(name)
    try:
        write(temporary)
        temporary.chmod(0o666 & ~_umask())  # as an open() would make it, not mkstemp's 0600
        _move(temporary, path, force, what)
    finally:
        temporary.unlink(missing_ok=True)
    return path


def _umask() -> int:
    """The process's umask (read by setting it, then set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _move(temporary: Path, path: Path, force: bool, what: str) -> None:
    if force:
        os.replace(temporary, path)
        return
    try:
        os.link(temporary, path)  # fails if the name exists: never replaces a file
    except FileExistsError:
        raise ValueError(f"{what} {path} appeared while it was written; nothing replaced") from None
    except OSError:  # a file system without hard links
        if path.exists():
            raise ValueError(f"{what} {path} already exists; nothing replaced") from None
        os.replace(temporary, path)


def write_text(path, text: str, force: bool = False, what: str = "--out") -> Path:
    """Write ``text`` to ``path`` as :func:`write_with` does."""
    return write_with(path, lambda p: p.write_text(text), force, what)


# A folder's record of the files giftsim wrote there (a report's, a gauntlet's, the demo's),
# so that a rewrite replaces only a file giftsim wrote and nobody changed since.
RECORD = ".giftsim-written.json"


def check_own(path, force: bool = False) -> Path:
    """``path`` may be (re)written by a command that keeps its files in its folder's record:
    new, or the file giftsim last wrote under that name (unchanged since), or with ``force``
    any file; else a one-line ValueError naming it. Creates nothing."""
    path = Path(path)
    if path.exists() and not force and not _written_here(path):
        raise ValueError(
            f"{path} is not the file giftsim last wrote there (edited since, or someone "
            "else's); move it away, or add --force to replace it"
        )
    return check_new(path, True, "the file")


def write_own(path, write: Callable[[Path], None], force: bool = False) -> Path:
    """Write ``path`` as :func:`write_with` does if :func:`check_own` allows it, and note its
    digest in the folder's record: check, write and record under a lock on the folder, so
    that two commands writing into one folder at once do not lose each other's record."""
    path = check_own(path, force)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path.parent):
        path = check_own(path, force)  # again: another command may have written it meanwhile
        write_with(path, write, True, "the file")
        record = _record(path.parent) | {path.name: digest(path)}
        write_text(path.parent / RECORD, json.dumps(record, indent=1, sort_keys=True), True)
    return path


@contextlib.contextmanager
def _locked(folder: Path):
    """An exclusive lock on ``folder`` (``flock`` of the folder itself: no lock file); none
    on a file system without locks."""
    handle = os.open(folder, os.O_RDONLY)
    try:
        _flock(handle, wait=True)
        yield
    finally:
        os.close(handle)  # releases the lock


def _flock(handle: int, wait: bool) -> bool:
    """Take an exclusive ``flock`` of the open file ``handle`` (``wait``: until it is free);
    False when another holds it and ``wait`` is not set. True, holding nothing, on a file
    system without locks (some network and FUSE file systems): what is locked there goes on
    unguarded."""
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    except OSError:
        pass
    return True


# The file a run holds locked while it plays into a results folder (:func:`held`).
RUN_LOCK = ".giftsim-run.lock"


@contextlib.contextmanager
def held(folder: Path):
    """Hold the results folder ``folder`` (made if new) for one run until the block ends, or
    the process does, however it ends: an exclusive ``flock`` of its :data:`RUN_LOCK` file
    (never removed: a lock file deleted while held no longer excludes anyone). A second run
    on the folder meanwhile, such as a ``--resume`` started while the first still plays, is
    refused in one line, before it touches a file: two runs would play the same games and
    remove each other's unfinished chunks. On a file system without locks, or in a folder
    this process may not write (a finished run's, resumed to read it), the run goes on
    unguarded, as before there was a lock. On NFS, Linux emulates ``flock`` with record
    locks: runs on different machines exclude each other, two runs in one process do not."""
    folder.mkdir(parents=True, exist_ok=True)
    handle = _lock_file(folder)
    if handle is None:
        yield folder
        return
    try:
        if not _flock(handle, wait=False):
            raise ValueError(
                f"--out {folder} is being played into by another run now; wait until it ends "
                "(then --resume plays what it left) or choose another folder"
            )
        yield folder
    finally:
        os.close(handle)  # releases the lock


def _lock_file(folder: Path) -> int | None:
    """An open handle of ``folder``'s :data:`RUN_LOCK` file, made if new; read-only where the
    folder may not be written and the file is there (``flock`` needs no write access); None
    where neither can be had."""
    for flags in (os.O_RDWR | os.O_CREAT, os.O_RDONLY):
        with contextlib.suppress(OSError):
            return os.open(folder / RUN_LOCK, flags, 0o666)
    return None


def start_record(folder) -> None:
    """Give ``folder`` an empty record if it has none: a folder giftsim makes keeps one from
    the start, so that a file someone else puts there is never taken for giftsim's own."""
    path = Path(folder) / RECORD
    if not path.exists():
        write_text(path, "{}", True, "the file")


def keeps_record(folder) -> bool:
    """Whether ``folder`` has a record of the files giftsim wrote there (a results folder
    made before giftsim kept records has none: its report's files are its own)."""
    return (Path(folder) / RECORD).is_file()


def _written_here(path: Path) -> bool:
    return path.is_file() and _record(path.parent).get(path.name) == digest(path)


def _record(folder: Path) -> dict:
    try:
        record = json.loads((folder / RECORD).read_text())
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def digest(path) -> str:
    """The SHA-256 of a file's bytes (to know a file again as one giftsim wrote)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def free_name(path) -> Path:
    """``path`` if no file has that name, else the first free ``stem-2.suffix``,
    ``stem-3.suffix``, ...: a default name that never replaces an earlier file."""
    first = candidate = Path(path)
    number = 1
    while candidate.exists():
        number += 1
        candidate = first.with_name(f"{first.stem}-{number}{first.suffix}")
    return candidate

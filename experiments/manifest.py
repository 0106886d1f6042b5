"""The manifest of a results folder: which experiment made it, with what, and how.

A folder belongs to one experiment (identified by a hash of its job list, chunk size and
kind of output); resuming into a folder of another experiment is refused with a message.
"""

import contextlib
import hashlib
import json
import os
import platform
import re
import subprocess
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

import giftsim
from experiments.schedule import Job, experiment_id
from giftsim.checks import is_whole
from giftsim.files import MANIFEST, RUN_LOCK, held, start_record

TEMPORARY = f".{MANIFEST}.tmp"  # written first, then renamed to MANIFEST
# What reading a folder needs from its manifest (``report``, ``load``, ``digest``).
LIBRARIES = ("numpy", "numba", "llvmlite", "scipy", "pandas", "pyarrow", "matplotlib")
REQUIRED = ("experiment", "game", "design", "seed", "summary_only", "jobs", "versions")


@contextlib.contextmanager
def prepared(
    folder: Path,
    jobs: list[Job],
    chunk_size: int,
    summary_only: bool,
    resume: bool,
    meta: dict | None,
):
    """Create ``folder`` with a manifest, or check it belongs to this experiment (resume), and
    hold it for this run until the block ends (``files.held``: a second run on it meanwhile
    is refused). Checked before anything is made, and again once held (another run may have
    written the manifest in between)."""
    check(folder, jobs, chunk_size, summary_only, resume)
    with held(folder):
        ident = check(folder, jobs, chunk_size, summary_only, resume)
        path = folder / MANIFEST
        if not path.exists():
            _write(path, ident, jobs, chunk_size, summary_only, meta or {})
            start_record(folder)  # a report replaces only the files giftsim wrote
        for stale in folder.glob(".chunk-*.tmp"):  # left by a killed run
            stale.unlink()
        yield folder


def check(folder: Path, jobs: list[Job], chunk_size: int, summary_only: bool, resume: bool) -> str:
    """The experiment id of ``jobs``; raises ValueError unless ``folder`` is new, empty, or
    holds this experiment and ``resume`` is set. Writes nothing."""
    if not jobs:
        raise ValueError("the design has no seatings to play")
    rules = json.dumps([j.make_rules().as_dict() for j in jobs], sort_keys=True, default=str)
    rules_id = hashlib.sha1(rules.encode()).hexdigest()[:8]  # defaults count, not just options
    kind = "summary" if summary_only else "rows"
    ident = f"{experiment_id(jobs)}-{rules_id}-{chunk_size}-{kind}"
    path = folder / MANIFEST
    if path.exists():
        old = _check_same(folder, path, ident, resume, (jobs, chunk_size, summary_only))
        _check_version(folder, old)
        _check_code(folder, old)
        _check_inputs(folder, old, jobs)
    elif folder.exists():
        _check_empty(folder)
    else:
        _check_parents(folder)
    return ident


def _check_parents(folder: Path) -> None:
    """The nearest existing folder above a new results folder must be a folder."""
    for parent in folder.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ValueError(f"--out {folder}: {parent} is a file, not a folder")
            return


def _check_empty(folder: Path) -> None:
    """A folder without a manifest may hold only a manifest's temporary file (a run killed
    before its rename: the manifest's write replaces it) and the lock file of a run
    (``files.held``). Removes nothing: a run that holds the folder may be writing it."""
    if not folder.is_dir():
        raise ValueError(f"{folder} is a file, not a results folder; choose a new --out")
    if any(p.name not in (TEMPORARY, RUN_LOCK) for p in folder.iterdir()):
        raise ValueError(f"{folder} is not empty and has no {MANIFEST}; choose a new --out")


def _differences(old: dict, jobs: list[Job], chunk_size: int, summary_only: bool) -> str:
    """What differs between the run of manifest ``old`` and ``jobs`` in a few words ("the
    chunk size, n_games"), or "" where that cannot be told (no list of jobs, or nothing that
    names a difference)."""
    seatings = old.get("jobs")
    if not isinstance(seatings, list):
        return ""
    found = []
    if old.get("chunk_size") != chunk_size:
        found.append("the chunk size")
    if old.get("summary_only") != summary_only:
        found.append("summaries only")
    if len(seatings) != len(jobs):
        found.append(f"the seatings ({len(seatings)} then, {len(jobs)} now)")
    new = json.loads(json.dumps([asdict(j) for j in jobs], default=str))
    keys = dict.fromkeys(k for job in new for k in job)
    for key in keys:
        pairs = zip(seatings, new, strict=False)  # a different count is said above
        if any(not isinstance(o, dict) or o.get(key) != n.get(key) for o, n in pairs):
            found.append(key)
    return ", ".join(found)


def _check_same(folder: Path, path: Path, ident: str, resume: bool, run: tuple) -> dict:
    """The manifest at ``path``, if it is this experiment's and ``resume`` is set; ``run``:
    its ``(jobs, chunk_size, summary_only)``, whose differences the refusal names."""
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError) as error:
        raise ValueError(f"{path} is not a readable manifest: {error}") from None
    if not isinstance(old, dict):
        raise ValueError(f"{path} is not a giftsim manifest (not a JSON object)")
    if old.get("experiment") != ident:
        differs = _differences(old, *run)
        what = f" (differs in: {differs})" if differs else ""
        raise ValueError(
            f"{folder} holds another experiment ({old.get('design', '?')}, id "
            f"{old.get('experiment', '?')}){what}; resume only with the command that began it "
            "(the same design, agents, games, seed, rules, chunk size and options), or choose "
            "another --out"
        )
    if not resume:
        raise ValueError(f"{folder} already holds this experiment; add --resume to continue it")
    return old


def _check_version(folder: Path, old: dict) -> None:
    """A run resumes only with the giftsim that began it: another version may play other
    games from the same seeds, and the folder would mix them."""
    versions = old.get("versions")
    began = versions.get("giftsim") if isinstance(versions, dict) else None
    if began is not None and began != giftsim.__version__:
        raise ValueError(
            f"{folder} was begun by giftsim {began}, this is {giftsim.__version__}, whose games "
            f"may differ; finish it with giftsim {began}, or choose another --out"
        )


def inputs(jobs: list[Job]) -> dict[str, str]:
    """The SHA-256 of every file the jobs read besides giftsim's code: the agents' networks
    (``net=``, or the shipped one they read without it) and ``table=`` files, the agents
    modules (``--agents-module``, ``--untrusted-module``) that defined them, and the luck
    estimator's value network."""
    from agents.registry import parse_list, source_file
    from giftsim.files import digest

    agents = [(job, a) for job in jobs for a in parse_list(list(job.agents), job.game)]
    paths = {a.file or _shipped(job, a) for job, a in agents} - {""}
    paths |= {source_file(job.game, a.family.name) for job, a in agents} - {""}
    paths |= {job.luck for job in jobs if job.luck and Path(job.luck).is_absolute()}
    paths |= {_shipped(job) for job in jobs if job.luck == "shipped"} - {""}
    return {path: digest(path) for path in sorted(paths) if Path(path).is_file()}


def _shipped(job: Job, agent=None) -> str:
    """The shipped network of the job's game and player count, as read by ``agent`` when it
    names no ``net=`` (none for a family without a network), or by a luck estimator; ""
    when there is none."""
    from agents.roster import roster

    if agent is not None and not agent.family.n_features:
        return ""
    try:
        return str(Path(roster(job.game).shipped(job.n_players)).resolve())
    except ValueError:  # no shipped network for this game or count
        return ""


def _check_code(folder: Path, old: dict) -> None:
    """A run resumes only with the code that began it (the version stays 0.1.0 between
    releases while the engine and agents change; a folder written before the digest was
    kept is not checked)."""
    if "code" in old and old["code"] != code_digest():
        raise ValueError(
            f"{folder} was begun by other giftsim code (its engines, rules or agents have "
            "changed since), whose games may differ from the same seeds; finish it with that "
            "code, or choose another --out"
        )


def code_digest() -> str:
    """The hash of the code that decides a run's games: every ``.py``, ``.npz`` and ``.json``
    file of ``giftsim``, ``agents`` and the games' packages (``giftsim.source_hash``)."""
    return giftsim.source_hash((".py", ".npz", ".json"))


def _check_inputs(folder: Path, manifest: dict, jobs: list[Job]) -> None:
    """A run resumes only with the files its agents read unchanged (a folder written before
    they were recorded is not checked)."""
    old = manifest.get("inputs")
    if not isinstance(old, dict):
        return
    changed = sorted(name for name, sha in inputs(jobs).items() if old.get(name) != sha)
    if changed:
        raise ValueError(
            f"{changed[0]} is not the file the run in {folder} began with (changed, or not "
            "read then), so its games would mix two agents; restore it, or choose another --out"
        )


def _write(path: Path, ident, jobs, chunk_size, summary_only, meta) -> None:
    manifest = {
        "experiment": ident,
        "game": jobs[0].game if jobs else None,
        "design": jobs[0].design if jobs else None,
        "seed": jobs[0].seed if jobs else None,
        "chunk_size": chunk_size,
        "summary_only": summary_only,
        "rules": [j.make_rules().as_dict() for j in _one_per_player_count(jobs)],
        "agents": sorted({spec for j in jobs for spec in j.agents}),
        "jobs": [asdict(j) for j in jobs],
        "inputs": inputs(jobs),
        "versions": _versions(),
        "code": code_digest(),
        "git_revision": git_revision(),
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        **meta,
    }
    temporary = path.with_name(TEMPORARY)
    temporary.write_text(json.dumps(manifest, indent=1, default=str))
    os.replace(temporary, path)  # a killed run never leaves half a manifest


def _one_per_player_count(jobs: list[Job]) -> list[Job]:
    seen = {}
    for job in jobs:
        seen.setdefault((job.n_players, str(sorted(job.rules.items()))), job)
    return list(seen.values())


CHUNK = re.compile(r"chunk-(\d{5,})-(\d{12})\.parquet")  # chunk_name's form


def chunk_name(job: int, start: int) -> str:
    """The file of a job's games from offset ``start`` on (``experiments.runner.Chunk``)."""
    return f"chunk-{job:05d}-{start:012d}.parquet"


def chunk_place(name: str) -> tuple[int, int] | None:
    """``(job, start)`` of a file named by :func:`chunk_name`, else None."""
    match = CHUNK.fullmatch(name)
    return None if match is None else (int(match[1]), int(match[2]))


def chunk_files(folder: Path, manifest: dict) -> list[Path]:
    """The chunk files of a results folder, in job and game order, each one its experiment
    writes (a job of its plan, at the start of one of that job's chunks); a one-line
    ValueError names any other ``chunk-*.parquet`` in it (a copy, a chunk of another chunk
    size or experiment), which would otherwise be counted as games of this one."""
    size, jobs = manifest.get("chunk_size"), manifest["jobs"]
    files = list(Path(folder).glob("chunk-*.parquet"))
    if files and not (isinstance(size, int) and size > 0):
        raise ValueError(f"{folder}/{MANIFEST} has no chunk size: not a giftsim results folder")
    placed = []
    for path in files:
        place = chunk_place(path.name)
        job, start = place if place is not None else (len(jobs), 0)
        if job >= len(jobs) or start % size or start >= jobs[job]["n_games"]:
            raise ValueError(
                f"{folder} holds {path.name}, which is not a chunk of its experiment (its "
                f"{len(jobs)} jobs in chunks of {size} games); move it out of the folder"
            )
        placed.append((job, start, path))
    return [path for *_, path in sorted(placed)]


def read(folder: Path) -> dict:
    path = Path(folder) / MANIFEST
    if not Path(folder).exists():
        raise ValueError(f"{folder}: no such folder")
    if not Path(folder).is_dir():
        raise ValueError(f"{folder} is a file, not a giftsim results folder")
    if not path.exists():
        raise ValueError(f"{folder} has no {MANIFEST}: not a giftsim results folder")
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError) as error:
        raise ValueError(f"{path} is not a readable manifest: {error}") from None
    if not isinstance(manifest, dict):
        raise ValueError(f"{path} is not a giftsim manifest (not a JSON object)")
    missing = [key for key in REQUIRED if key not in manifest]
    if missing:
        raise ValueError(f"{path} is not a giftsim manifest: it lacks {', '.join(missing)}")
    if not isinstance(manifest["jobs"], list) or not isinstance(manifest["versions"], dict):
        raise ValueError(f"{path} is not a giftsim manifest: bad 'jobs' or 'versions'")
    for number, job in enumerate(manifest["jobs"]):
        if not _job_is_whole(job):
            raise ValueError(
                f"{path} is damaged: job {number} lacks one of {', '.join(JOB_NUMBERS)} (whole "
                "numbers) or its agents (names); the folder's games cannot be read by it"
            )
    return manifest


JOB_NUMBERS = ("job", "seed", "n_games", "first_index")  # what reading a job's chunks needs


def _job_is_whole(job) -> bool:
    """Whether a manifest's job has what reading its chunks relies on, of the right types."""
    if not isinstance(job, dict) or not isinstance(job.get("agents"), list):
        return False
    numbers = [job.get(key) for key in JOB_NUMBERS]
    whole = all(is_whole(n) and n >= 0 for n in numbers)
    return whole and all(isinstance(agent, str) for agent in job["agents"])


def _versions() -> dict:
    """giftsim's, Python's and the numerical libraries' versions (a manifest's ``versions``)."""
    return {
        "giftsim": giftsim.__version__,
        "python": platform.python_version(),
        **library_versions(),
    }


def library_versions() -> dict[str, str]:
    """The installed version of each of ``LIBRARIES`` ("missing" if not installed): the same
    code and seeds can give other results with other versions (trained weights, the last bits
    of a fit), so a record says which made it."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in LIBRARIES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "missing"
    return found


def git_revision() -> str | None:
    """The commit giftsim's checkout is at (None outside a git checkout)."""
    root = Path(giftsim.__file__).resolve().parent.parent
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None

"""Notebooks whose stored outputs say which code made them, and the command that remakes them.

The *code* of a notebook's outputs, hashed file by file into its metadata:

| part                | files                                                                  |
|---------------------|------------------------------------------------------------------------|
| kernels and agents  | every ``.py``, ``.npz`` and ``.json`` file under ``giftsim``, ``agents`` |
|                     | and each game's package (rules, engines, agents, tuned parameters,     |
|                     | networks, the driver templates): any edit there changes every          |
|                     | notebook's hash; not the games' ``reference.py`` (``TWINS``: the       |
|                     | plain-Python twins of the tests, which no notebook number comes from)  |
| experiments         | the ``experiments`` modules the notebook's kernel had imported when its |
|                     | last cell finished (statistics, ratings, plots, studies, runner, ...)  |
| the notebook        | the source of its code cells (not its prose)                           |

``regenerate`` runs a notebook top to bottom in a fresh kernel at ``GIFTSIM_SCALE``, writes the
figures it gives the docs (``exported``), and stores its outputs with a ``giftsim`` block in its
metadata: ``revision`` (git, "+changes" when the hashed files differ from it), ``scale``,
``seconds``, ``python``, ``libraries`` (the versions of the numerical libraries,
``manifest.LIBRARIES``) and ``machine`` (the processor and the BLAS kernels, :func:`machine`):
the same code and seeds can train other weights with other versions or on another processor,
so a re-run that differs says why; ``files`` (path -> hash), ``cells`` and
``code_hash`` (all of them together). ``problems`` recomputes the hashes from the files as they
are now; ``tests/test_notebooks.py`` fails on a notebook whose stored outputs were made by other
code, at another scale, or not at all. From the repository root::

    make notebooks                # every notebook at full size, one progress line each
    make notebooks NB="00 02"     # some of them, by name or number
"""

import argparse
import base64
import contextlib
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "notebooks"
KEY = "giftsim"  # the notebook metadata block
DATA = (".py", ".npz", ".json")  # files of the kernel and agent packages that are hashed
TWINS = ("reference.py",)  # the plain-Python twins the tests check engines against: no number
PROBE = (  # appended for the run, then removed: the project modules the kernel imported
    "import json as _j, sys as _s\n"
    "_f = {getattr(m, '__file__', None) or '' for m in list(_s.modules.values())}\n"
    "print(_j.dumps(sorted(_f)))"
)


# ---- what is hashed ---------------------------------------------------------------------------


def packages() -> list[str]:
    """The packages hashed whole: ``giftsim``, ``agents`` and the shipped games' packages."""
    from giftsim.game import packages as games

    return sorted({"giftsim", "agents", *(p for p in games() if (ROOT / p).is_dir())})


def package_files(names) -> list[str]:
    """Every ``DATA`` file under the packages ``names``, as sorted paths from the root."""
    found = []
    for name in names:
        found += [p for p in (ROOT / name).rglob("*") if p.suffix in DATA and p.is_file()]
    kept = [p for p in found if "__pycache__" not in p.parts and p.name not in TWINS]
    return sorted(p.relative_to(ROOT).as_posix() for p in kept)


def experiment_modules(paths) -> list[str]:
    """Of the file paths a kernel had imported, the ``experiments`` modules of this checkout."""
    root = ROOT / "experiments"
    kept = [Path(p).resolve() for p in paths if p]
    return sorted(p.relative_to(ROOT).as_posix() for p in kept if p.is_relative_to(root))


def digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:16]


def cells_digest(notebook: dict) -> str:
    """The hash of a notebook's code cells (their sources, in order)."""
    sources = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    return digest("\0".join(sources).encode())


def code_record(notebook: dict, files) -> dict:
    """``files`` (path -> hash, as they are now; a missing file hashes as "missing"), ``cells``
    and ``code_hash`` over both."""
    hashes = {
        f: digest((ROOT / f).read_bytes()) if (ROOT / f).is_file() else "missing" for f in files
    }
    cells = cells_digest(notebook)
    whole = digest(json.dumps([sorted(hashes.items()), cells]).encode())
    return {"files": dict(sorted(hashes.items())), "cells": cells, "code_hash": whole}


# ---- checking --------------------------------------------------------------------------------


def problems(path: Path) -> list[str]:
    """Why the stored outputs of the notebook at ``path`` are not those of the code as it is now
    at full size (empty when they are)."""
    notebook = json.loads(Path(path).read_text())
    stored = notebook["metadata"].get(KEY)
    if stored is None:
        return ["no record of the code that made its outputs (never regenerated)"]
    found = []
    if stored.get("scale") != 1:
        found.append(f"its outputs are at GIFTSIM_SCALE={stored.get('scale')}, not 1")
    now = code_record(notebook, stored["files"])
    changed = [f for f, h in now["files"].items() if stored["files"].get(f) != h]
    if changed:
        found.append(f"code changed since its outputs were made: {', '.join(changed)}")
    if now["cells"] != stored["cells"]:
        found.append("its code cells changed since its outputs were made")
    same_parts = not changed and now["cells"] == stored["cells"]
    if same_parts and now["code_hash"] != stored["code_hash"]:
        found.append(f"its code hash {stored['code_hash']} is not that of its files")
    missing = sorted(set(package_files(stored["packages"])) - set(stored["files"]))
    if missing:
        found.append(f"code added since its outputs were made: {', '.join(missing)}")
    return found + _unrun(notebook)


def _unrun(notebook: dict) -> list[str]:
    """Code cells never run or ending in an error."""
    found = []
    for number, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code" or not "".join(cell["source"]).strip():
            continue
        if cell.get("execution_count") is None:
            found.append(f"cell {number} was never run")
        if any(out.get("output_type") == "error" for out in cell.get("outputs", [])):
            found.append(f"cell {number} stored an error")
    return found


# ---- regenerating ----------------------------------------------------------------------------


def run(path: Path, scale: float, progress: bool = True):
    """Execute the notebook at ``path`` in a fresh kernel (its folder as working directory) at
    ``GIFTSIM_SCALE=scale``; the executed notebook and the files its kernel had imported."""
    import nbformat
    from nbclient import NotebookClient
    from tqdm import tqdm

    notebook = nbformat.read(path, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(PROBE))
    bar = tqdm(total=len(notebook.cells), desc=path.name, unit="cell", disable=not progress)
    client = NotebookClient(
        notebook,
        timeout=None,
        kernel_name=notebook.metadata.get("kernelspec", {}).get("name", "python3"),
        resources={"metadata": {"path": str(path.parent)}},
        on_cell_executed=lambda **_: bar.update(),
    )
    before = os.environ.get("GIFTSIM_SCALE")
    os.environ["GIFTSIM_SCALE"] = f"{scale:g}"  # the kernel inherits this process's environment
    try:
        client.execute()
    finally:
        bar.close()
        _restore("GIFTSIM_SCALE", before)
    probe = notebook.cells.pop()
    loaded = json.loads("".join(o.get("text", "") for o in probe.outputs))
    return notebook, loaded


def _restore(name: str, value) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def regenerate(path: Path, scale: float = 1.0, progress: bool = True) -> dict:
    """Run the notebook at ``path`` and store its outputs and the record of its code (written
    to a temporary file, then renamed over the notebook). Returns the record."""
    import nbformat

    from experiments.manifest import library_versions

    start = time.perf_counter()
    notebook, loaded = run(path, scale, progress)
    names = packages()
    files = package_files(names) + experiment_modules(loaded)
    record = code_record(notebook, files)
    notebook.metadata[KEY] = {
        "revision": revision(record["files"]),
        "scale": scale,
        "seconds": round(time.perf_counter() - start, 1),
        "python": platform.python_version(),  # as manifests and bench read it
        "libraries": library_versions(),
        "machine": machine(),
        "packages": names,
        **record,
    }
    temporary = path.with_name(f".{path.name}.tmp")
    nbformat.write(notebook, temporary)
    temporary.replace(path)
    for target, png in exported(notebook).items() if scale == 1 else ():
        _write_bytes(ROOT / target, png)
    return notebook.metadata[KEY]


def machine() -> dict[str, str]:
    """The processor and the BLAS kernels this process runs on. NumPy's BLAS picks its kernels
    by processor (OpenBLAS's ``architecture``: SkylakeX, Haswell, ...), as NumPy picks its own
    vector code, and their float sums can round differently: the same code, seeds and
    libraries have trained other weights on another machine (notebook 05), which ``libraries``
    alone does not explain."""
    import numpy  # noqa: F401  (loads its BLAS, which threadpoolctl then finds)
    from threadpoolctl import threadpool_info

    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        lines = Path("/proc/cpuinfo").read_text().splitlines()
        cpu = next((n.split(":", 1)[1].strip() for n in lines if n.startswith("model name")), cpu)
    blas = [
        f"{pool.get('internal_api')} {pool.get('version')} {pool.get('architecture')}"
        for pool in threadpool_info()
        if pool.get("user_api") == "blas"
    ]
    return {"cpu": cpu, "blas": ", ".join(blas) or "none loaded"}


def exported(notebook) -> dict[str, bytes]:
    """The figures a notebook gives the docs: for every code cell whose metadata names a
    ``giftsim.figure`` (a path from the repository root, e.g. "docs/img/tulips_seats.png"),
    its first PNG output. ``regenerate`` writes them, so the README shows the figures of the
    stored run, and a test checks that the files are those figures."""
    found = {}
    for cell in notebook["cells"]:
        target = cell.get("metadata", {}).get(KEY, {}).get("figure")
        images = [
            o["data"]["image/png"]
            for o in cell.get("outputs", [])
            if "image/png" in o.get("data", {})
        ]
        if target and images:
            found[target] = base64.b64decode(images[0])
    return found


def _write_bytes(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_bytes(data)
    temporary.replace(path)


def revision(files) -> str:
    """The checkout's git revision, with "+changes" when any of ``files`` differs from it
    ("unknown" outside git)."""
    try:
        head = _git("rev-parse", "--short=12", "HEAD")
        dirty = _git("status", "--porcelain", "--untracked-files=all", "--", *files)
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if dirty else "")


def _git(*args) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def select(names) -> list[Path]:
    """The notebooks named (file name, stem or its number prefix such as "02"); all if none."""
    every = sorted(FOLDER.glob("*.ipynb"))
    if not names:
        return every
    chosen = []
    for name in names:
        stem = Path(name).stem
        match = [p for p in every if p.stem == stem or p.stem.split("_")[0] == stem]
        if not match:
            valid = ", ".join(p.stem for p in every)
            raise ValueError(f"no notebook {name!r} in notebooks/ (valid: {valid})")
        chosen += match
    return list(dict.fromkeys(chosen))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="make notebooks",
        description="Re-execute notebooks at full size and store their outputs with a record "
        "of the code that made them.",
    )
    parser.add_argument("names", nargs="*", help="notebooks by name or number (default: all)")
    parser.add_argument("--scale", type=float, default=1.0, help="GIFTSIM_SCALE (1 = full size)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    try:
        chosen = select(args.names)
    except ValueError as error:
        print(f"make notebooks: error: {error}", file=sys.stderr)
        return 2
    return _regenerate_all(chosen, args.scale, not args.quiet)


def _regenerate_all(chosen, scale: float, progress: bool) -> int:
    from nbclient.exceptions import CellExecutionError

    failed, start = 0, time.perf_counter()
    for number, path in enumerate(chosen, 1):
        print(f"[{number}/{len(chosen)}] {path.relative_to(ROOT)} at GIFTSIM_SCALE={scale:g}")
        try:
            record = regenerate(path, scale, progress)
        except CellExecutionError as error:
            failed += 1
            print(f"  failed, outputs left as they were: {str(error).strip().splitlines()[-1]}")
            continue
        print(f"  done in {record['seconds']:.0f} s, code {record['code_hash']}", flush=True)
    print(
        f"{len(chosen) - failed} of {len(chosen)} notebooks in {time.perf_counter() - start:.0f} s"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Stored notebook outputs come from the code as it is now (``experiments.notebooks``): a notebook
whose outputs were made by other code, at another scale or not at all fails here."""

import json
from pathlib import Path

import nbformat
import numba
import numpy as np
import pytest
from threadpoolctl import threadpool_info

from experiments import manifest, notebooks

STORED = sorted(notebooks.FOLDER.glob("*.ipynb"))


@pytest.mark.parametrize("path", STORED, ids=[p.stem for p in STORED])
def test_stored_outputs_come_from_this_code(path):
    found = notebooks.problems(path)
    number = path.stem.split("_")[0]
    assert not found, f"{path.name}: {'; '.join(found)} (run `make notebooks NB={number}`)"


def fake_run(path: Path, modules=("experiments/stats.py",), scale=1) -> dict:
    """A notebook at ``path`` that looks regenerated now (one run cell, a record of the current
    files) without running a kernel."""
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("from experiments import stats", execution_count=1)
    notebook.cells = [nbformat.v4.new_markdown_cell("# prose"), cell]
    names = notebooks.packages()
    record = notebooks.code_record(notebook, notebooks.package_files(names) + list(modules))
    notebook.metadata[notebooks.KEY] = {"scale": scale, "packages": names, **record}
    nbformat.write(notebook, path)
    return json.loads(path.read_text())


def edited(path: Path, change) -> list[str]:
    notebook = json.loads(path.read_text())
    change(notebook)
    path.write_text(json.dumps(notebook))
    return notebooks.problems(path)


def test_a_notebook_made_by_this_code_is_fresh(tmp_path):
    fake_run(tmp_path / "n.ipynb")
    assert notebooks.problems(tmp_path / "n.ipynb") == []


def test_a_changed_file_hash_names_the_file(tmp_path):
    path = tmp_path / "n.ipynb"
    fake_run(path)

    def change(notebook):
        notebook["metadata"]["giftsim"]["files"]["experiments/stats.py"] = "0" * 16

    assert edited(path, change) == [
        "code changed since its outputs were made: experiments/stats.py"
    ]


def test_a_code_hash_changed_by_hand_is_caught(tmp_path):
    path = tmp_path / "n.ipynb"
    fake_run(path)

    def change(notebook):
        notebook["metadata"]["giftsim"]["code_hash"] = "f" * 16

    (problem,) = edited(path, change)
    assert problem.startswith("its code hash ffffffffffffffff is not that of its files")


def test_edited_code_cells_other_scales_and_unrun_cells_are_caught(tmp_path):
    path = tmp_path / "n.ipynb"
    fake_run(path, scale=0.01)

    def change(notebook):
        notebook["cells"][1]["source"] = "from experiments import plots"
        notebook["cells"][1]["execution_count"] = None

    assert edited(path, change) == [
        "its outputs are at GIFTSIM_SCALE=0.01, not 1",
        "its code cells changed since its outputs were made",
        "cell 1 was never run",
    ]


def test_a_notebook_never_regenerated_says_so(tmp_path):
    path = tmp_path / "n.ipynb"
    nbformat.write(nbformat.v4.new_notebook(), path)
    assert notebooks.problems(path) == [
        "no record of the code that made its outputs (never regenerated)"
    ]


def test_code_added_to_a_hashed_package_makes_it_stale(tmp_path):
    path = tmp_path / "n.ipynb"
    fake_run(path)

    def change(notebook):
        del notebook["metadata"]["giftsim"]["files"]["agents/registry.py"]

    assert "code added since its outputs were made: agents/registry.py" in edited(path, change)


def test_regenerate_runs_at_the_scale_and_records_the_modules_imported(tmp_path):
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    source = "import os\nfrom experiments import stats\nprint(os.environ['GIFTSIM_SCALE'])"
    notebook.cells = [nbformat.v4.new_code_cell(source)]
    path = tmp_path / "tiny.ipynb"
    nbformat.write(notebook, path)
    record = notebooks.regenerate(path, 1.0, progress=False)
    stored = json.loads(path.read_text())
    assert stored["cells"][0]["outputs"][0]["text"] in ("1\n", ["1\n"])
    assert len(stored["cells"]) == 1  # the probe cell is gone
    assert {"experiments/stats.py", "experiments/blocks.py"} <= set(record["files"])
    assert "experiments/train.py" not in record["files"]
    assert "giftsim/rng.py" in record["files"] and "agents/registry.py" in record["files"]
    assert "agents/templates/loop.py" in record["files"]  # read as text, compiled per game
    assert "geschenkt_sim/engine.py" in record["files"]
    assert "geschenkt_sim/reference.py" not in record["files"]  # the tests' twin: no number
    versions = record["libraries"]  # what a re-run with other libraries may differ by
    assert set(versions) == set(manifest.LIBRARIES)
    assert (versions["numpy"], versions["numba"]) == (np.__version__, numba.__version__)
    blas = [pool for pool in threadpool_info() if pool["user_api"] == "blas"]  # and the machine
    assert blas and f"{blas[0]['version']} {blas[0]['architecture']}" in record["machine"]["blas"]
    assert record["machine"]["cpu"]
    assert notebooks.problems(path) == []


def test_an_unknown_notebook_name_is_one_line(capsys):
    assert notebooks.main(["99"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no notebook '99' in notebooks/ (valid: " in err

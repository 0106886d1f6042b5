"""The docs quote the stored notebook runs: every interval in a marked paragraph of the README,
docs/findings.md or a notebook's own prose is printed by the notebook the mark names, and every
figure of the README is the figure a notebook stored (``make notebooks`` writes them).

A mark is the line ``<!-- numbers: notebooks/NAME.ipynb -->``; it covers the text up to the
next blank line. An interval is a number, a percent sign or "points" optionally, then
``[low, high]``: "28.3% [28.1, 28.5]" is found in a notebook that prints
"28.3% [28.1%, 28.5%]"."""

import json
import re
from pathlib import Path

import pytest

from experiments import notebooks

ROOT = Path(__file__).resolve().parent.parent
MARK = re.compile(r"<!-- numbers: (notebooks/[\w.]+\.ipynb) -->\n(.*?)(?=\n[ \t]*\n|\Z)", re.S)
NUMBER = r"[+\-−]?\d+(?:\.\d+)?"
INTERVAL = re.compile(rf"({NUMBER})(?:%|\s+points)?\s+\[({NUMBER})%?,\s+({NUMBER})%?\]")
FIGURE = re.compile(r"!\[[^\]]*\]\((docs/img/[\w.]+\.png)\)")


def intervals(text: str) -> set[tuple[str, ...]]:
    """Every interval of ``text``, as (value, low, high) strings with one kind of minus."""
    return {tuple(n.replace("−", "-") for n in m.groups()) for m in INTERVAL.finditer(text)}


def printed(path: Path) -> str:
    """The text a notebook's code cells printed or displayed."""
    found = []
    for cell in json.loads(path.read_text())["cells"]:
        for output in cell.get("outputs", []):
            text = output.get("text") or output.get("data", {}).get("text/plain", "")
            found.append("".join(text))
    return "\n".join(found)


def prose(path: Path) -> str:
    cells = json.loads(path.read_text())["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def marked() -> list[tuple[str, str, str]]:
    """(document, notebook, block) of every marked block of the docs and the notebooks."""
    texts = {"README.md": (ROOT / "README.md").read_text()}
    texts["docs/findings.md"] = (ROOT / "docs" / "findings.md").read_text()
    for path in sorted(notebooks.FOLDER.glob("*.ipynb")):
        texts[f"notebooks/{path.name}"] = prose(path)
    return [(doc, *m.groups()) for doc, text in texts.items() for m in MARK.finditer(text)]


MARKED = marked()


@pytest.mark.parametrize(
    ("doc", "notebook", "block"), MARKED, ids=[f"{d}:{i}" for i, (d, _, _) in enumerate(MARKED)]
)
def test_every_quoted_interval_is_printed_by_its_notebook(doc, notebook, block):
    quoted = intervals(block)
    assert quoted, f"{doc}: a block marked for {notebook} quotes no interval"
    missing = sorted(quoted - intervals(printed(ROOT / notebook)))
    assert not missing, (
        f"{doc} quotes {missing} that the stored run of {notebook} does not print: "
        "regenerate it (make notebooks) and quote what it prints"
    )


def test_the_findings_of_the_readme_and_the_strategy_study_are_marked():
    docs = {doc for doc, _, _ in MARKED}
    names = {(doc, Path(nb).stem[:2]) for doc, nb, _ in MARKED}
    assert {"README.md", "docs/findings.md"} <= docs
    assert {("README.md", "01"), ("docs/findings.md", "01"), ("docs/findings.md", "02")} <= names


@pytest.mark.parametrize("path", sorted(notebooks.FOLDER.glob("*.ipynb")), ids=lambda p: p.stem)
def test_the_figures_a_notebook_gives_the_docs_are_those_it_stored(path):
    for target, png in notebooks.exported(json.loads(path.read_text())).items():
        assert (ROOT / target).read_bytes() == png, f"{target} is not {path.name}'s stored figure"


def test_every_readme_figure_comes_from_a_notebook():
    given = set()
    for path in notebooks.FOLDER.glob("*.ipynb"):
        given |= set(notebooks.exported(json.loads(path.read_text())))
    shown = set(FIGURE.findall((ROOT / "README.md").read_text()))
    assert shown and shown <= given, f"README figures no notebook stores: {shown - given}"


def test_intervals_are_read_in_every_spelling():
    text = "wins 28.3% [28.1, 28.5], +7.9 points [+7.6, +8.1], rating −0.41 [−0.46, −0.36]"
    assert intervals(text) == {
        ("28.3", "28.1", "28.5"),
        ("+7.9", "+7.6", "+8.1"),
        ("-0.41", "-0.46", "-0.36"),
    }
    assert intervals("first 21.9% [21.7%, 22.1%]") == {("21.9", "21.7", "22.1")}
    assert intervals("+7.9 points\n[+7.6, +8.1]") == {("+7.9", "+7.6", "+8.1")}  # a line break

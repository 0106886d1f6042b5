"""docs/results.md describes exactly what a results folder holds: every parquet column (per-game
rows and summaries) and every manifest key (its jobs' and versions' too), no more, no fewer."""

import json
import re
from pathlib import Path

import pandas as pd
import pytest

from experiments.cli import main
from experiments.manifest import MANIFEST

DOC = Path(__file__).resolve().parent.parent / "docs" / "results.md"
QUICK = ["--games", "3", "--backend", "serial", "--quiet", "--seed", "5"]
RUNS = {  # folder -> the command that fills it (both games, a match, several seat counts,
    # luck-adjusted, an isolated agent, a gauntlet)
    "nt": "tournament geschenkt --agents random,greedy --players 3",
    "match": "seats geschenkt --agents greedy --players 3 --rule rounds=2",
    "tulips": "seats tulips --agents greedy --players 2,3",
    "nt-sums": "tournament geschenkt --players 4 --summary-only",
    "tulips-sums": "seats tulips --players 4 --summary-only",
    "luck": "tournament geschenkt --design field --candidate learned --baseline greedy "
    "--players 3 --luck-adjust",
    "isolated": "tournament geschenkt --agents random,greedy --players 3 --isolate greedy",
    "isolated-sums": "tournament tulips --players 2 --isolate greedy --summary-only",
    "gauntlet": "gauntlet geschenkt --players 3 --agents greedy,random --fields greedy",
}
GAMES_OF = {"gauntlet": ["--deals", "2"]}  # a gauntlet counts deals, not games
DTYPES = {"categorical (string)": {"category"}, "string": {"object", "str"}}  # page -> pandas


def documented(heading: str) -> dict[str, str]:
    """``name -> type`` (or meaning) of the table under a heading of the page."""
    text = DOC.read_text()
    start = text.index(heading)
    rows = {}
    for line in text[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
        match = re.match(r"\| `([^`]+)` \| ([^|]+) \|", line)
        if match:
            rows[match[1]] = match[2].strip()
    return rows


def pattern(column: str) -> str:
    """A column's name as the page writes it: seats as ``<s>``, rounds as ``<r>``."""
    name = re.sub(r"_\d+$", "_<s>", column)
    return re.sub(r"^round\d+_", "round<r>_", name)


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    for name, command in RUNS.items():
        quick = [*GAMES_OF.get(name, QUICK[:2]), *QUICK[2:]]
        assert main([*command.split(), *quick, "--out", str(root / name)]) == 0
    return root


def columns_of(folder: Path) -> dict[str, str]:
    """Every column of a folder's chunks with its type in the chunk (read one by one: chunks of
    fewer seats lack some columns)."""
    columns = {}
    for chunk in sorted(folder.glob("chunk-*.parquet")):
        frame = pd.read_parquet(chunk)
        columns |= {pattern(c): str(frame[c].dtype) for c in frame.columns}
    return columns


def check_types(written: dict[str, str], page: dict[str, str]) -> None:
    for column, dtype in written.items():
        assert dtype in DTYPES.get(page[column], {page[column]}), column


def test_every_row_column_is_described_and_every_described_one_written(folders):
    written = {}
    for name in ("nt", "match", "tulips", "luck", "isolated", "gauntlet"):
        written |= columns_of(folders / name)
    page = documented("## Per-game rows")
    assert set(written) == set(page)
    check_types(written, page)


def test_every_summary_column_is_described_and_every_described_one_written(folders):
    written = columns_of(folders / "nt-sums") | columns_of(folders / "tulips-sums")
    written |= columns_of(folders / "isolated-sums")
    page = documented("## Summary rows")
    assert set(written) == set(page)
    check_types(written, page)


def test_every_manifest_key_is_described_and_every_described_one_written(folders):
    manifests = [json.loads((folders / name / MANIFEST).read_text()) for name in RUNS]
    assert {key for m in manifests for key in m} == set(documented("## manifest.json"))
    designs = documented("## manifest.json")["design"]
    assert all(f"`{m['design']}`" in designs for m in manifests if "gauntlet" not in m)
    assert "`gauntlet`" in designs
    jobs = {key for m in manifests for job in m["jobs"] for key in job}
    assert jobs == set(documented("### Each entry of `jobs`"))
    assert {key for m in manifests for key in m["versions"]} == set(documented("### `versions`"))

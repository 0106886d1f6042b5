"""``giftsim bench --markdown``: the README's speed section is what the command writes (same
table columns, rows the command writes, a date), and writing it again replaces only the text
between its marks. Nothing here is timed: the section is made from placeholder rates."""

import platform
import re
from datetime import date
from pathlib import Path

import numba
import numpy as np
import pandas as pd
import pytest

from agents.roster import roster
from experiments import bench
from giftsim.game import GAMES

README = Path(__file__).resolve().parent.parent / "README.md"
SHIPPED = [game for game in GAMES if game != "toy"]  # the README's games (toy: tests only)


def placeholder_section(startup=(1.0, 1.0)) -> str:
    """The section bench writes for every shipped game's mixes and player counts, every rate
    1 (the layout is what matters here)."""
    rates = {}
    for game in SHIPPED:
        kit = roster(game).bench
        index = pd.Index([f"all-{spec}" for spec in kit.mixes], name="mix")
        rates[game] = pd.DataFrame(1.0, index=index, columns=[f"{n}p" for n in kit.players])
    vector = {game: (1.0, *roster(game).bench.vector) for game in SHIPPED}
    return bench.markdown(rates, vector, startup, bench.about("giftsim bench"))


def table(section: str) -> tuple[list[str], list[str]]:
    """The table's header cells and its row labels."""
    lines = [line for line in section.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    return header, [line.strip("|").split("|")[0].strip() for line in lines[2:]]


def test_the_readmes_speed_section_has_the_columns_and_rows_bench_writes():
    section = bench.section_of(README.read_text())
    made = placeholder_section()
    (header, rows), (made_header, made_rows) = table(section), table(made)
    assert header == made_header == ["game, mix", "2p", "3p", "4p", "5p", "6p"]
    assert rows and set(rows) <= set(made_rows)
    assert re.match(r"Measured on \d{4}-\d{2}-\d{2} with `giftsim bench", section)
    vector = next(line for line in section.splitlines() if line.startswith("Vector environment"))
    made_vector = next(line for line in made.splitlines() if line.startswith("Vector environment"))
    assert vector.split(":")[0] == made_vector.split(":")[0]
    assert "Start-up (" in section and "Start-up (" in made


def test_the_section_is_dated_and_says_how_it_was_measured():
    made = placeholder_section(startup=None)
    assert made.startswith(f"Measured on {date.today().isoformat()} with `giftsim bench` (")
    assert "cores" in made.splitlines()[0] and "Start-up" not in made
    compiler = f"Python {platform.python_version()}, numpy {np.__version__}, "
    compiler += f"numba {numba.__version__}"
    assert compiler in made.splitlines()[0]  # what the rates depend on besides the machine


def test_writing_again_replaces_only_the_marked_section(tmp_path):
    path = tmp_path / "notes.md"
    assert bench.embed(path, "first") == path  # a new file: the section with its marks
    path.write_text("# Notes\n\n" + path.read_text() + "\nkept below\n")
    bench.embed(path, "second")
    text = path.read_text()
    assert text.startswith("# Notes\n\n") and text.endswith("\nkept below\n")
    assert bench.section_of(text) == "second" and "first" not in text


def test_a_file_without_marks_is_kept_unless_forced(tmp_path):
    path = tmp_path / "mine.md"
    path.write_text("my own notes\n")
    with pytest.raises(ValueError, match="already exists; choose a new name or add --force"):
        bench.embed(path, "speed")
    assert path.read_text() == "my own notes\n"
    bench.embed(path, "speed", force=True)
    assert bench.section_of(path.read_text()) == "speed"


@pytest.mark.parametrize(
    "marks",
    [
        [bench.BEGIN],  # the end mark lost
        [bench.END],
        [bench.END, bench.BEGIN],  # in the wrong order
        [bench.BEGIN, bench.END, bench.BEGIN, bench.END],  # two sections
    ],
)
def test_a_file_with_damaged_marks_is_kept_even_when_forced(tmp_path, marks):
    path = tmp_path / "notes.md"
    text = "\n".join(["my own notes", *marks, "more of mine"]) + "\n"
    path.write_text(text)
    for force in (False, True):
        with pytest.raises(ValueError, match="mend them and run again"):
            bench.embed(path, "speed", force=force)
    assert path.read_text() == text

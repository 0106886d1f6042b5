"""Journals of field scores (``--journal``): a ladder or a tune interrupted and run again takes
the scores it finished and plays only the others, with the same result as a run never
interrupted; a score is taken only under its whole key; a file that is not a journal is
refused in one line before anything is played."""

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from experiments import batch, journal, ladder, tune
from experiments.cli import main

LADDER = {"games": ["geschenkt"], "n_games": 20, "search_games": 0, "seed": 5101}
TUNE = ("geschenkt", "sniper", 3, "greedy")
TUNE_SIZES = {"games": 20, "generations": 2, "popsize": 3, "final_games": 30, "seed": 5102}


@pytest.fixture
def counted(monkeypatch):
    """The field tournaments actually played (not taken from a journal), by the journal's
    and the ladder's own references to ``batch.field``."""
    played, play = [], batch.field

    def field(*args, **kwargs):
        played.append(args[:5])
        return play(*args, **kwargs)

    monkeypatch.setattr(batch, "field", field)
    monkeypatch.setattr(ladder, "field", field)
    return played


def _cut(path: Path, rows: int) -> None:
    """Keep the header and the first ``rows`` rows: a run interrupted after them."""
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[: rows + 1]))


def test_an_interrupted_ladder_continues_from_its_journal_as_if_never_stopped(tmp_path, counted):
    path = tmp_path / "ladder.csv"
    whole = ladder.ladder(**LADDER, journal=journal.Journal(path))
    steps = len(whole)
    assert len(counted) == steps and len(pd.read_csv(path)) == steps
    _cut(path, 5)
    counted.clear()
    scores = journal.Journal(path)
    again = ladder.ladder(**LADDER, journal=scores)
    pd.testing.assert_frame_equal(again, whole)  # every number, read back exactly
    assert len(counted) == steps - 5 and scores.taken == 5
    table = pd.read_csv(path)
    assert len(table) == steps and not table.duplicated(list(journal.KEY)).any()
    counted.clear()
    ladder.ladder(**LADDER, journal=journal.Journal(path))
    assert counted == []  # finished: nothing played a third time


def test_an_interrupted_tune_proposes_the_same_candidates_and_ends_the_same(tmp_path, counted):
    path = tmp_path / "tune.csv"
    whole = tune.tune(*TUNE, **TUNE_SIZES, journal=journal.Journal(path))
    scored = len(counted)
    assert scored == 2 * 3 + 1 and len(pd.read_csv(path)) == scored  # 2 x 3 candidates, final
    _cut(path, 4)
    counted.clear()
    again = tune.tune(*TUNE, **TUNE_SIZES, journal=journal.Journal(path))
    assert len(counted) == scored - 4
    assert again.params == whole.params and again.win_share == whole.win_share
    assert again.ci95 == whole.ci95
    pd.testing.assert_frame_equal(again.history, whole.history)
    assert len(pd.read_csv(path)) == scored


def test_a_score_is_taken_only_under_its_whole_key(tmp_path, counted):
    path = tmp_path / "j.csv"
    scores = journal.Journal(path)
    first = scores.field("geschenkt", "sniper", "greedy", 3, 10, 7)
    assert scores.field("geschenkt", "sniper", "greedy", 3, 10, 7) == first
    assert len(counted) == 1
    for other in [("greedy", "sniper", 3, 10, 7), ("sniper", "greedy", 4, 10, 7)]:
        scores.field("geschenkt", *other)
    scores.field("geschenkt", "sniper", "greedy", 3, 11, 7)
    scores.field("geschenkt", "sniper", "greedy", 3, 10, 8)
    assert len(counted) == 5
    table = pd.read_csv(path, dtype=str)
    table["code"] = "0" * 12  # the rows of other code: played again, never taken
    table.to_csv(path, index=False)
    other_code = journal.Journal(path)
    other_code.field("geschenkt", "sniper", "greedy", 3, 10, 7)
    assert len(counted) == 6 and other_code.taken == 0


def test_a_file_an_agent_reads_is_in_the_key(tmp_path):
    """A network retrained to the same path: its scores are not taken."""
    from agents.roster import roster

    net = tmp_path / "net.json"
    shutil.copy(roster("geschenkt").shipped(3), net)
    scores = journal.Journal()
    key = scores.key("geschenkt", f"learned:net={net}", "greedy", 3, 10, 7)
    assert scores.key("geschenkt", f"learned:net={net}", "greedy", 3, 10, 7) == key
    net.write_bytes(net.read_bytes() + b" ")
    assert scores.key("geschenkt", f"learned:net={net}", "greedy", 3, 10, 7) != key


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("a,b\n1,2\n", "is not a journal of giftsim ladder or tune (columns game, players"),
        ("", "is not a journal of giftsim ladder or tune"),
        ("CUT", "is damaged: its last line is cut short; mend or remove it"),
        ("WORD", "is damaged: its row 1 (below the header) has 'many' in column deals"),
        ("NAN", "is damaged: its row 1 (below the header) has 'nan' in column se"),
    ],
)
def test_a_file_that_is_not_a_journal_is_refused_in_one_line(tmp_path, text, said):
    path = tmp_path / "j.csv"
    if text in ("CUT", "WORD", "NAN"):
        journal.Journal(path).field("geschenkt", "sniper", "greedy", 3, 10, 7)
        written = path.read_text()
        header, row = written.splitlines()
        cells = row.split(",")
        cells[journal.COLUMNS.index("se")] = "nan"
        damaged = {"CUT": written[:-5], "WORD": written.replace(",10,7,", ",many,7,")}
        text = damaged.get(text, f"{header}\n{','.join(cells)}\n")
    path.write_text(text)
    with pytest.raises(ValueError, match="^--journal .*j.csv " + re.escape(said)):
        journal.Journal(path)
    before = path.read_text()
    for command in (["ladder", "--games", "20", "--search-games", "0"], [*TUNE_ARGV]):
        assert main([*command, "--journal", str(path), "--quiet"]) == 2
    assert path.read_text() == before  # nothing added to the user's file
    with pytest.raises(ValueError, match="is a folder; name a file"):
        journal.Journal(tmp_path)


TUNE_ARGV = ["tune", "geschenkt", "--family", "sniper", "--players", "3", "--field", "greedy"]


def test_the_command_line_says_how_many_scores_it_took(tmp_path, capsys):
    path = tmp_path / "j.csv"
    argv = [*TUNE_ARGV, "--games", "10", "--generations", "1", "--popsize", "2"]
    argv += ["--final-games", "10", "--journal", str(path), "--quiet"]
    assert main(argv) == 0
    first = capsys.readouterr()
    assert "taken from" not in first.err
    assert main(argv) == 0
    again = capsys.readouterr()
    assert f"3 scores of 3 taken from {path}, not played" in again.err
    assert again.out == first.out


def test_an_agents_module_named_by_its_dotted_name_is_in_the_key(tmp_path, monkeypatch):
    """An ``--agents-module`` given as a module name, edited between two runs: its scores are
    not taken (it was read as no file at all; also the tournament's resume check)."""
    from agents import registry
    from experiments.manifest import inputs
    from experiments.schedule import Job

    monkeypatch.setattr(registry, "_FAMILIES", {g: dict(t) for g, t in registry._FAMILIES.items()})
    monkeypatch.setattr(registry, "_ORIGIN", dict(registry._ORIGIN))
    module = tmp_path / "dotted_takers.py"
    module.write_text(
        "from agents.registry import define\n"
        "from geschenkt_sim import rules, state\n"
        "def taker(obs, params, rng):\n"
        "    return rules.TAKE if obs[state.POT] >= params[0] else rules.PASS\n"
        "define('geschenkt', 'dotted_taker', taker, {'pot': 4})\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.load_module("dotted_takers")
    assert registry.source_file("geschenkt", "dotted_taker") == str(module.resolve())
    job = Job(0, "geschenkt", ("dotted_taker", "greedy", "greedy"), 7, 10)
    assert str(module.resolve()) in inputs([job])
    scores = journal.Journal()
    key = scores.key("geschenkt", "dotted_taker", "greedy", 3, 10, 7)
    module.write_text(module.read_text().replace(">= params[0]", "> params[0]"))
    assert scores.key("geschenkt", "dotted_taker", "greedy", 3, 10, 7) != key


def test_the_code_that_scores_a_field_is_in_the_key(tmp_path, monkeypatch):
    """The interval comes from experiments.stats, not from the engines the results folders'
    digest covers: a change there must not let an old score be taken."""
    from experiments import stats

    before = journal.scoring_code()
    copy = tmp_path / "stats.py"
    copy.write_bytes(Path(stats.__file__).read_bytes() + b"\n# changed\n")
    monkeypatch.setattr(stats, "__file__", str(copy))
    assert journal.scoring_code() != before


@pytest.mark.parametrize(
    ("command", "flag"),
    [
        (["ladder", "--games", "20", "--search-games", "0", "--out"], "--out"),
        ([*TUNE_ARGV, "--json"], "--json"),
    ],
)
def test_the_journal_and_the_result_cannot_be_one_file(tmp_path, capsys, counted, command, flag):
    """The result, written at the end, would replace the journal (or be refused after hours of
    play): refused before anything is played."""
    path = tmp_path / "same.csv"
    assert main([*command, str(path), "--journal", str(tmp_path / "." / "same.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(f"--journal and {flag} name the same file, {path}; give two files")
    assert counted == [] and not path.exists()


def test_ctrl_c_says_where_the_finished_scores_are(tmp_path, capsys, monkeypatch):
    from experiments import cli

    path = tmp_path / "j.csv"
    journal.Journal(path).field("geschenkt", "sniper", "greedy", 3, 10, 7)

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_check_together", interrupted)
    assert main(["ladder", "--journal", str(path)]) == 130
    err = capsys.readouterr().err.strip()
    assert err == (
        f"giftsim ladder: interrupted; the scores finished are in {path}; the same command "
        "again continues"
    )

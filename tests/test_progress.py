"""Long jobs show progress on stderr, and --quiet silences it."""

from experiments import cli

TUNE = ["tune", "geschenkt", "--family", "sniper", "--players", "3", "--field", "greedy"]
SMALL = ["--games", "5", "--generations", "2", "--popsize", "4", "--final-games", "5"]


def test_tune_shows_progress_on_stderr_and_quiet_silences_it(capsys):
    assert cli.main([*TUNE, *SMALL]) == 0
    shown = capsys.readouterr()
    assert "candidate" in shown.err and "candidate" not in shown.out
    assert cli.main([*TUNE, *SMALL, "--quiet"]) == 0
    shown = capsys.readouterr()
    assert shown.err == ""
    assert "over 15 fresh games (5 deals, the interval's unit) against 2 x greedy" in shown.out


def test_ladder_shows_progress_and_quiet_silences_it(capsys, tmp_path):
    args = ["ladder", "--game", "geschenkt", "--games", "20", "--search-games", "0"]
    assert cli.main([*args, "--out", str(tmp_path / "a.md")]) == 0
    assert "step" in capsys.readouterr().err
    assert cli.main([*args, "--out", str(tmp_path / "b.md"), "--quiet"]) == 0
    assert capsys.readouterr().err == ""

"""A command that rewrites its own files (a report's summary.md and plots, a gauntlet's
gauntlet.md and plots, the demo's findings.md) replaces only a file it wrote and nobody
changed since (``giftsim.files.write_own``): any other file of those names is refused in one
line before anything is read or played, unless --force."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")  # before pyplot is imported: no window

import pytest

from experiments import manifest as manifest_io
from experiments.cli import main
from experiments.commands import report_files
from giftsim import files

SERIAL = ["--backend", "serial", "--quiet"]
REFUSED = "is not the file giftsim last wrote there (edited since, or someone else's)"


def refused(capsys, args) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


def test_write_own_replaces_its_own_file_only(tmp_path):
    path = tmp_path / "page.md"
    files.write_own(path, lambda p: p.write_text("one"))
    files.write_own(path, lambda p: p.write_text("two"))  # its own, unchanged: replaced
    assert path.read_text() == "two"
    path.write_text("two, and my notes")
    with pytest.raises(ValueError, match=REFUSED.split(" (")[0]):
        files.write_own(path, lambda p: p.write_text("three"))
    assert path.read_text() == "two, and my notes"
    files.write_own(path, lambda p: p.write_text("three"), force=True)
    assert path.read_text() == "three"
    mine = tmp_path / "mine.md"
    mine.write_text("a user's file")
    with pytest.raises(ValueError, match=r"mine\.md is not the file giftsim last wrote"):
        files.check_own(mine)


def test_a_report_keeps_an_edited_summary_and_a_foreign_plot(tmp_path, capsys):
    out = tmp_path / "rr"
    run = ["tournament", "geschenkt", "--agents", "random,greedy", "--players", "3"]
    assert (
        main([*run, "--games", "20", *SERIAL, "--rule", "variant=tactical", "--out", str(out)]) == 0
    )
    assert main(["report", str(out), "--quiet"]) == 0
    summary = (out / "summary.md").read_text()
    assert "rules variant=tactical" in summary  # the rules played are named
    assert summary.startswith("# No Thanks! — round-robin")  # the game's name, then what ran:
    assert "No Thanks!, round-robin of greedy, random, 3 players, 120 games (20 per" in summary
    assert main(["report", str(out), "--quiet"]) == 0  # its own files: rewritten
    capsys.readouterr()
    (out / "summary.md").write_text(summary + "my notes\n")
    assert REFUSED in refused(capsys, ["report", str(out), "--quiet"])
    assert (out / "summary.md").read_text().endswith("my notes\n")
    assert main(["report", str(out), "--quiet", "--force"]) == 0
    assert "my notes" not in (out / "summary.md").read_text()
    capsys.readouterr()
    (out / "ratings.png").write_bytes(b"someone's picture")
    assert "ratings.png is not the file" in refused(capsys, ["report", str(out), "--quiet"])
    assert (out / "ratings.png").read_bytes() == b"someone's picture"
    (out / files.RECORD).unlink()  # a folder reported before giftsim kept records
    assert main(["report", str(out), "--quiet"]) == 0
    assert (out / "ratings.png").read_bytes() != b"someone's picture"
    assert files.keeps_record(out)


def test_a_report_of_summaries_minds_only_the_files_it_writes(tmp_path, capsys):
    """A run of summaries draws no ratings plot: a user's ratings.png beside it is none of the
    report's business (it had been refused), while its own seat plot is still guarded."""
    out = tmp_path / "sums"
    run = ["tournament", "geschenkt", "--agents", "random,greedy", "--players", "3"]
    assert main([*run, "--games", "20", *SERIAL, "--summary-only", "--out", str(out)]) == 0
    assert main(["report", str(out), "--quiet"]) == 0  # the folder now keeps its record
    (out / "ratings.png").write_bytes(b"someone's picture")
    assert main(["report", str(out), "--quiet"]) == 0
    assert (out / "ratings.png").read_bytes() == b"someone's picture"
    capsys.readouterr()
    (out / "seat_win_share.png").write_bytes(b"mine too")
    assert "seat_win_share.png is not the file" in refused(capsys, ["report", str(out), "--quiet"])
    seats = tmp_path / "seats"  # per-game rows of one-agent tables: no heatmap, no ratings
    assert (
        main(
            ["seats", "geschenkt", "--players", "3", "--games", "10", *SERIAL, "--out", str(seats)]
        )
        == 0
    )
    assert main(["report", str(seats), "--quiet"]) == 0
    (seats / "win_rate_heatmap.png").write_bytes(b"someone's picture")
    assert main(["report", str(seats), "--quiet"]) == 0
    assert (seats / "win_rate_heatmap.png").read_bytes() == b"someone's picture"


@pytest.mark.parametrize(
    "args",
    [
        ["tournament", "geschenkt", "--agents", "random,greedy", "--players", "3"],
        ["tournament", "tulips", "--agents", "random,greedy", "--players", "3", "--summary-only"],
        ["seats", "geschenkt", "--players", "3"],
    ],
    ids=["mixed", "summaries", "one-agent"],
)
def test_the_files_a_report_guards_are_the_files_it_draws(tmp_path, args):
    """``report_files`` (the files checked before a report) names exactly the Markdown and
    PNG files the report then writes, for each kind of run."""
    out = tmp_path / "run"
    assert main([*args, "--games", "10", *SERIAL, "--out", str(out)]) == 0
    assert main(["report", str(out), "--quiet"]) == 0
    written = {p.name for p in out.iterdir() if p.suffix in (".md", ".png")}
    assert written == set(report_files(manifest_io.read(out)))


def test_the_demo_refuses_a_findings_file_it_did_not_write(tmp_path, capsys):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "findings.md").write_text("my findings\n")
    args = ["demo", "--scale", "0.0001", "--workers", "1", "--quiet", "--out", str(folder)]
    assert "findings.md is not the file giftsim last wrote" in refused(capsys, args)
    assert sorted(p.name for p in folder.iterdir()) == ["findings.md"]  # nothing played
    assert (folder / "findings.md").read_text() == "my findings\n"


def test_a_gauntlet_report_warns_in_its_page_and_keeps_an_edited_one(tmp_path, capsys):
    out = tmp_path / "g"
    args = ["gauntlet", "toy", "--players", "2", "--deals", "4", "--chunk-size", "2", *SERIAL]
    assert main([*args, "--out", str(out)]) == 0
    page = (out / "gauntlet.md").read_text()
    assert "incomplete" not in page
    chunks = sorted(out.glob("chunk-*.parquet"))
    chunks[-1].unlink()  # a lost chunk: the folder is short of its plan
    assert main(["report", str(out)]) == 0
    page = (out / "gauntlet.md").read_text()
    assert "**warning: incomplete:" in page
    capsys.readouterr()
    (out / "gauntlet.md").write_text(page + "my notes\n")
    assert REFUSED in refused(capsys, ["report", str(out)])
    assert REFUSED in refused(capsys, [*args, "--out", str(out), "--resume"])
    assert (out / "gauntlet.md").read_text().endswith("my notes\n")
    assert main([*args, "--out", str(out), "--resume", "--force"]) == 0
    assert "my notes" not in (out / "gauntlet.md").read_text()


def test_an_untested_verdict_reads_n_a_in_the_summary(tmp_path):
    """Two deals give no turn-order test: its verdict is missing, shown as n/a (a raw <NA> is
    an HTML tag to a Markdown reader, which shows nothing)."""
    out = tmp_path / "seats"
    args = ["seats", "geschenkt", "--agents", "greedy", "--players", "3", "--games", "1"]
    assert main([*args, *SERIAL, "--out", str(out)]) == 0
    assert main(["report", str(out), "--quiet"]) == 0
    summary = (out / "summary.md").read_text()
    assert "<NA>" not in summary and "| n/a" in summary


def _write_many(folder, worker: int) -> None:
    for i in range(25):
        files.write_own(folder / f"w{worker}-{i}.md", lambda p: p.write_text("x"))


def test_commands_writing_into_one_folder_at_once_keep_every_file_in_its_record(tmp_path):
    """Four processes write their own files into one folder at the same time: each file is
    in the folder's record (so each may be rewritten later), none lost to another's write of
    the record."""
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(4) as pool:
        pool.starmap(_write_many, [(tmp_path, w) for w in range(4)])
    for w in range(4):
        for i in range(25):
            files.write_own(tmp_path / f"w{w}-{i}.md", lambda p: p.write_text("again"))


def test_a_new_results_folder_keeps_a_record_so_a_users_summary_is_refused(tmp_path, capsys):
    """A run's folder had no record until its first report, so the report took every file
    there for its own and replaced a user's summary.md without --force."""
    out = tmp_path / "rr"
    run = ["tournament", "geschenkt", "--agents", "random,greedy", "--players", "3"]
    assert main([*run, "--games", "4", *SERIAL, "--out", str(out), "--quiet"]) == 0
    assert files.keeps_record(out)
    (out / "summary.md").write_text("my notes\n")
    assert REFUSED in refused(capsys, ["report", str(out), "--quiet"])
    assert (out / "summary.md").read_text() == "my notes\n"


def test_force_never_replaces_a_device_or_a_pipe(tmp_path, capsys):
    """``--out /dev/null --force`` (run as root) replaced the device with a regular file; a
    named pipe stands in for the device (a test must not risk the real one)."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    argv = ["record", "geschenkt", "--out", str(pipe), "--force"]
    assert "is not a regular file (a device or a pipe)" in refused(capsys, argv)
    bound = ["bound", "geschenkt", "--players", "3", "--target", "random", "--out", str(pipe)]
    assert "is not a regular file (a device or a pipe)" in refused(capsys, bound)
    assert pipe.is_fifo()

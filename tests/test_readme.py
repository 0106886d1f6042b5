"""The README runs: every ``giftsim`` command in its code blocks exits with status 0.

The commands run in this process, in chains of those that share a file, each chain in the
README's order (``replay runs/g.json`` reads what ``record`` wrote) and in an empty folder of
its own holding only a copy of ``docs/examples`` (the agents module the README loads), at
small sizes. The size reduction is explicit: ``SMALL`` replaces the value
of each size option a command gives, and ``ADDED`` appends options to commands whose size is
their default. Nothing else in a command is changed. The demo's run also checks what it ends
with (``check_demo_findings``): the demo is run once in the suite.
"""

import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from experiments.cli import EXAMPLES, _parser, main

README = Path(__file__).resolve().parent.parent / "README.md"

SMALL = {  # size option -> the value the test runs it with
    "--games": "20",
    "--search-games": "0",  # the ladder without its (slow) search rungs
    "--final-games": "40",
    "--generations": "1",
    "--popsize": "2",
    "--scale": "0.0001",
    "--rounds": "1",
    "--eval-games": "10",
    "--deals": "2",
}
ADDED = {  # command -> options (with their value, or None for a flag) added when absent
    "bench": {"--games": "20", "--no-startup": None},
    "demo": {"--scale": "0.0001"},
}
PLAY_ANSWERS = "q\n"  # play: quit at the first question (the record so far is saved)


def readme_commands(text: str) -> list[str]:
    """Every ``giftsim`` command in the README's shell code blocks, continuation lines joined
    and comments dropped."""
    blocks = re.findall(r"^```[ \t]*(\w*)\n(.*?)^```", text, re.MULTILINE | re.DOTALL)
    commands = []
    for language, body in blocks:
        if language not in ("", "sh", "bash", "shell"):
            continue
        joined = re.sub(r"\\\n\s*", " ", body)
        for line in joined.splitlines():
            words = shlex.split(line, comments=True)
            if words[:1] == ["giftsim"]:
                commands.append(words[1:])
    return commands


def shrunk(args: list[str]) -> list[str]:
    out = list(args)
    for i, word in enumerate(out[:-1]):
        if word in SMALL:
            out[i + 1] = SMALL[word]
    for option, value in ADDED.get(out[0], {}).items():
        if option not in out:
            out += [option] if value is None else [option, value]
    return out


def test_the_readme_has_the_commands_a_user_starts_with():
    names = {args[0] for args in readme_commands(README.read_text())}
    assert names >= {"record", "replay", "bench", "demo", "tournament", "seats", "report"}
    assert names >= {"tune", "ladder", "play", "train", "gauntlet"}


def chains(commands: list[list[str]]) -> list[list[list[str]]]:
    """The commands in groups that share no file: a command joins the group of every earlier
    command whose written path (``WRITES``) appears in one of its words, or that loads the same
    agents module (a process defines a module's agents once). Each group keeps the README's
    order, and the groups run apart (so the test workers can share them out)."""
    group = list(range(len(commands)))

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for i, args in enumerate(commands):
        written = [args[k + 1] for k, word in enumerate(args[:-1]) if word in WRITES]
        written += [word for word in args if word.endswith(".py")]
        for j in range(i + 1, len(commands)):
            if any(path in word for path in written for word in commands[j]):
                group[root(j)] = root(i)
    out: dict[int, list[list[str]]] = {}
    for i, args in enumerate(commands):
        out.setdefault(root(i), []).append(args)
    return list(out.values())


WRITES = ("--out", "--json", "--record", "--markdown")  # options that name what a command writes
CHAINS = chains(readme_commands(README.read_text()))


def test_commands_that_share_a_file_are_in_one_chain():
    """No command reads a path that a command of another chain writes, and the commands that
    load an agents module are one chain."""
    for n, chain in enumerate(CHAINS):
        written = {args[k + 1] for args in chain for k, w in enumerate(args[:-1]) if w in WRITES}
        others = [args for m, other in enumerate(CHAINS) if m != n for args in other]
        assert not [args for args in others for word in args for p in written if p in word]
    modules = {n for n, chain in enumerate(CHAINS) for args in chain if "--agents-module" in args}
    assert len(modules) == 1
    record = next(chain for chain in CHAINS if chain[0][:2] == ["record", "geschenkt"])
    assert [args[0] for args in record] == ["record", "replay"]


@pytest.mark.parametrize(
    "chain", CHAINS, ids=[f"{n}-{chain[0][0]}" for n, chain in enumerate(CHAINS)]
)
def test_every_readme_command_runs(chain, tmp_path, monkeypatch, capsys):
    shutil.copytree(README.parent / "docs" / "examples", tmp_path / "docs" / "examples")
    monkeypatch.chdir(tmp_path)
    for args in chain:
        monkeypatch.setattr(sys, "stdin", io.StringIO(PLAY_ANSWERS))
        small = shrunk(args)
        code = main(small)
        out, err = capsys.readouterr()
        assert code == 0, f"giftsim {' '.join(small)} exited with {code}: {err}"
        if small[0] == "demo":
            check_demo_findings(out, tmp_path)
            again_resumes(small, tmp_path, capsys)


def again_resumes(demo: list[str], root: Path, capsys) -> None:
    """``make demo`` twice: the demo run again into its folder (with giftsim's record of what
    it wrote there, a hidden file) plays nothing and ends as before."""
    chunks = {p: p.stat().st_mtime_ns for p in root.rglob("*.parquet")}
    assert chunks and main(demo) == 0, capsys.readouterr().err
    assert {p: p.stat().st_mtime_ns for p in root.rglob("*.parquet")} == chunks
    check_demo_findings(capsys.readouterr().out, root)


def check_demo_findings(out: str, root: Path) -> None:
    """The demo ends with what it found: three findings per study (seats: one line per
    agent; round-robins: shares, head-to-head, ratings), each with its interval and a file
    it wrote under ``root``, and ``findings.md`` beside the studies holds the same lines."""
    found = out.split("##### What the demo found")[1]
    lines = [line for line in found.splitlines() if line.startswith("- ")]
    files = [root / line.rsplit("(", 1)[1].rstrip(")").split("; ")[-1] for line in lines]
    counts = Counter(path.parent.name for path in files)
    for study in ("geschenkt-seats", "geschenkt-round-robin", "tulips-seats", "tulips-round-robin"):
        assert counts[study] == 3, counts
    for line, path in zip(lines, files, strict=True):
        assert "% [" in line or "] (" in line, line
        assert path.is_file() and path.resolve().is_relative_to(root.resolve()), line
    assert "among four hoarder players the first wins" in found
    (folder,) = {path.parent.parent for path in files}
    assert (folder / "findings.md").read_text().count("\n- ") == len(lines)


def test_every_command_has_a_help_example():
    assert set(EXAMPLES) == set(_parser().commands)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_help_example_parses(name):
    words = shlex.split(EXAMPLES[name])
    assert words[:2] == ["giftsim", name]
    assert _parser().parse_args(words[1:]).command == name


def test_help_shows_defaults_and_an_example(capsys):
    with pytest.raises(SystemExit):
        main(["tournament", "--help"])
    out = capsys.readouterr().out
    assert "(default: 10000)" in out and "games per seating" in out
    assert "example:\n  giftsim tournament tulips" in out
    with pytest.raises(SystemExit):
        main(["--version"])
    assert re.fullmatch(r"giftsim \d+\.\d+\.\d+\n", capsys.readouterr().out)


def test_ladder_writes_no_file_unless_asked(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["ladder", "--game", "geschenkt", "--games", "10", "--search-games", "0"]) == 0
    out = capsys.readouterr().out
    assert "## No Thanks! (geschenkt), 4 players" in out
    assert "No search rung was played" in out and "Search rungs play at" not in out
    assert not list(tmp_path.iterdir())


def test_runs_folder_is_ignored_by_git():
    ignored = (README.parent / ".gitignore").read_text().splitlines()
    assert "runs/" in ignored


def test_readme_commands_write_only_into_folders_git_ignores():
    ignored = {line.rstrip("/") for line in (README.parent / ".gitignore").read_text().split()}
    ignored = {name for name in ignored if "*" not in name and "." not in name}
    written = [
        args[i + 1]
        for args in readme_commands(README.read_text())
        for i, word in enumerate(args[:-1])
        if word in WRITES
    ]
    assert len(written) >= 6
    for path in written:
        assert Path(path).parts[0] in ignored, f"{path} is not in a git-ignored folder"


BATCH_BLOCKS = ("from experiments import studies", "from agents.registry import define")


@pytest.mark.parametrize("start", BATCH_BLOCKS, ids=["use", "define"])
def test_the_readme_python_of_the_batch_api_runs_as_written(start, tmp_path):
    """The README's Python blocks of the batch API (the other blocks run in the tests of the
    environments they show), each as written in a fresh interpreter, as a user pastes it."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    (block,) = [b for b in blocks if b.startswith(start)]
    environment = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": str(README.parent)}
    done = subprocess.run(
        [sys.executable, "-c", block],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    if start == BATCH_BLOCKS[0]:  # both tables print every agent, with its interval
        for name in ("sniper", "greedy:T=-3", "random", "ci_low"):
            assert done.stdout.count(name) >= 2, done.stdout  # more where a wide table wraps

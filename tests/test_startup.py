"""A fast first run: commands compile only what they run, and say so once.

Each test runs the command line in a fresh interpreter with an empty Numba cache folder and
then reads that folder: Numba writes an index file (``*.nbi``) for every function it compiles.
"""

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from tqdm import tqdm

from giftsim import notice


def _run(args, cache: Path, quiet=False, **env_vars):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), **env_vars}
    command = [sys.executable, "-m", "experiments.cli", *args] + (["--quiet"] if quiet else [])
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)


def _compiled(cache: Path) -> list[str]:
    return sorted(p.name for p in cache.rglob("*.nbi"))


def test_help_errors_and_the_agents_list_compile_nothing(tmp_path):
    for args in (["--help"], ["tournament", "--help"], ["agents"], ["record", "nosuchgame"]):
        done = _run(args, tmp_path)
        assert done.returncode in (0, 2), done.stderr
    assert _compiled(tmp_path) == []
    listing = _run(["agents", "tulips"], tmp_path).stdout
    assert "hoarder [built-in]" in listing and "iters = 1250  (a whole number in" in listing


def test_a_no_thanks_record_compiles_no_tulips_kernel_and_no_other_agent(tmp_path):
    out = tmp_path / "g.json"
    args = ["record", "geschenkt", "--players", "4", "--agents", "greedy,greedy,greedy,greedy"]
    done = _run([*args, "--out", str(out)], tmp_path / "cache")
    assert done.returncode == 0, done.stderr
    compiled = _compiled(tmp_path / "cache")
    assert compiled and not [name for name in compiled if "tulips" in name]
    folders = {p.parent.name.split("_")[0] for p in (tmp_path / "cache").rglob("*.nbi")}
    assert "tulips" not in folders
    names = " ".join(compiled)
    assert "greedy.decide" in names and "sniper" not in names and "ismcts" not in names


def test_the_first_compile_is_announced_once_done_once_and_quiet_silences_it(tmp_path):
    """A first run on two worker processes, nothing cached: one line says what compiles, and
    one worker compiles and fills the cache while the other loads from it (both used to
    compile everything, twice the CPU of a first run). Run again, nothing is said; an agent
    not compiled yet compiles without a word under ``--quiet``."""
    args = ["tournament", "geschenkt", "--agents", "greedy,random", "--players", "3"]
    args += ["--games", "20"]
    workers = ["--backend", "processes", "--workers", "2"]
    first = _run([*args, *workers], tmp_path, NUMBA_DEBUG_CACHE="1")
    assert first.returncode == 0, first.stderr
    said = [line for line in first.stderr.splitlines() if line.startswith("giftsim: compiling")]
    assert len(said) == 1 and "No Thanks! game loop" in said[0] and "then cached" in said[0]
    saved = [line for line in first.stdout.splitlines() if "data saved to" in line]
    assert any("greedy.decide" in line for line in saved)
    assert len(saved) == len(set(saved))  # no file saved twice
    again = _run([*args, "--backend", "serial"], tmp_path)
    assert again.returncode == 0 and "giftsim: compiling" not in again.stderr
    assert not [name for name in _compiled(tmp_path) if "sniper" in name]
    other = [arg.replace("random", "sniper") for arg in args]  # an agent not compiled yet
    quiet = _run([*other, "--backend", "serial"], tmp_path, quiet=True)
    assert quiet.returncode == 0 and "giftsim: compiling" not in quiet.stderr
    assert [name for name in _compiled(tmp_path) if "sniper" in name]  # it did compile


def test_the_compile_estimate_counts_only_the_kernels_not_cached(capsys, monkeypatch):
    """The notice's seconds add up the kernels it names: one agent left to compile beside a
    cached loop is not priced as the loop and every agent (it had said 9 s for 1 s)."""
    monkeypatch.setattr(notice, "_SAID", set())
    monkeypatch.setattr(notice, "QUIET", False)
    done, to_do = SimpleNamespace(signatures=["compiled"]), SimpleNamespace(signatures=[])
    notice.compiling({"the loop": (done, 3.0), "agent a": (to_do, 3.0), "agent b": (done, 18.0)})
    assert capsys.readouterr().err == (
        "giftsim: compiling agent a (first run only; about 3 s, then cached)\n"
    )
    notice.compiling({"agent a": (to_do, 3.0), "agent c": (to_do, 18.0)})  # a: said once
    assert "compiling agent c (first run only; about 18 s," in capsys.readouterr().err
    assert notice.compiling({"agent a": (to_do, 3.0)})  # said already, still not cached
    monkeypatch.setattr(notice, "QUIET", True)
    assert notice.compiling({"agent d": (to_do, 3.0)}) and not capsys.readouterr().err
    assert not notice.compiling({"the loop": (done, 3.0), "agent b": (done, 18.0)})


def test_the_compile_notice_takes_a_line_of_its_own_under_a_progress_bar(capsys, monkeypatch):
    """A notice said while a progress bar is on the screen clears the bar's line first (it had
    run on after the bar: "round 0:   0%| ... giftsim: compiling ..."), and the bar comes back."""
    monkeypatch.setattr(notice, "_SAID", set())
    monkeypatch.setattr(notice, "QUIET", False)
    with tqdm(total=4, file=sys.stderr, desc="round 0", mininterval=0) as bar:
        bar.update(1)
        notice.compiling({"agent a": (SimpleNamespace(signatures=[]), 3.0)})
        bar.update(1)
    err = capsys.readouterr().err
    before, _, after = err.partition("giftsim: compiling agent a")
    assert after and before[-1] in "\r\n"  # the notice starts a line
    assert "round 0:" in after.partition("\n")[2]  # the bar is drawn again below it


def test_a_ladder_on_two_workers_compiles_each_kernel_once_and_says_so(tmp_path):
    """``ladder --workers 2`` into an empty cache: one first-run line names the loop and every
    agent (the workers' own lines are silent: nothing was said), and one worker plays a game
    of each pair first, so that the other loads what it compiled."""
    args = ["ladder", "--game", "geschenkt", "--games", "20", "--search-games", "0"]
    done = _run([*args, "--workers", "2"], tmp_path, quiet=False, NUMBA_DEBUG_CACHE="1")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.split("\r") if "giftsim: compiling" in line]
    assert len(said) == 1 and "the No Thanks! game loop, agent random, agent greedy" in said[0]
    saved = [line for line in done.stdout.splitlines() if "data saved to" in line]
    assert any("sniper.decide" in line for line in saved)
    assert len(saved) == len(set(saved))  # no file saved twice


def test_training_on_two_workers_compiles_its_recorder_once_and_says_so(tmp_path):
    """``train --workers 2`` into an empty cache: the first-run line names the self-play
    recorder (the workers' own lines are silent: the bar sat at 0% with no word), and one
    worker compiles it while the other waits to load it."""
    args = ["train", "geschenkt", "--players", "3", "--baseline", "greedy", "--selfplay", "0"]
    args += ["--rounds", "1", "--games", "4000", "--eval-games", "10", "--workers", "2"]  # 2 tasks
    args += ["--out", str(tmp_path / "net.npz")]
    done = _run(args, tmp_path / "cache", NUMBA_DEBUG_CACHE="1")
    assert done.returncode == 0, done.stderr
    assert "compiling the No Thanks! self-play recorder, agent greedy" in done.stderr
    saved = [line for line in done.stdout.splitlines() if "data saved to" in line]
    assert any("play_games" in line for line in saved)
    assert len(saved) == len(set(saved))  # no file saved twice


def test_a_tournament_imports_neither_scipy_stats_nor_scipy_optimize(tmp_path):
    """The statistics take Student's t, the normal, chi-square and F laws from
    ``scipy.special`` (the functions ``scipy.stats`` calls) and import ``brentq`` only for a
    p-value: importing ``scipy.stats`` and ``scipy.optimize`` had cost a 20-game tournament
    1.1 s of its 2.6 s."""
    args = ["tournament", "geschenkt", "--agents", "greedy,random", "--players", "3"]
    args += ["--games", "20", "--backend", "serial", "--out", str(tmp_path / "rr"), "--quiet"]
    code = (
        f"import sys; from experiments.cli import main; main({args!r}); "
        "print(sorted(m for m in ('scipy.stats', 'scipy.optimize') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "win share" in done.stdout and done.stdout.splitlines()[-1] == "[]"

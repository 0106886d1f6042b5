"""The examples run (at a tiny budget), where their optional packages are installed."""

import pytest

from tests.scripts import ROOT, load_script

EXAMPLES = ROOT / "examples"


def _load(name: str):
    return load_script(EXAMPLES / f"{name}.py", f"example_{name}")


def test_maskable_ppo_trains_and_its_policy_plays_a_tournament_on_fresh_deals(capsys):
    pytest.importorskip("sb3_contrib", reason="needs sb3-contrib and torch (giftsim[sb3])")
    example = _load("maskable_ppo")
    argv = ["--game", "tulips", "--players", "3", "--steps", "256", "--lanes", "8"]
    argv += ["--n-steps", "32", "--batch-size", "64", "--deals", "6", "--name", "ppo_test"]
    result = example.main(argv)
    out = capsys.readouterr().out
    assert result["steps"] >= 256 and result["games"] == 18
    assert 0.0 <= result["win_share"] <= 1.0 and result["fair"] == pytest.approx(1 / 3)
    assert "ppo_test vs 2 x greedy" in out and "fresh deals of seed 777000" in out


def test_pettingzoo_selfplay_trains_and_its_policy_plays_a_tournament(capsys):
    example = _load("pettingzoo_selfplay")
    argv = ["--game", "geschenkt", "--players", "3", "--games", "5", "--deals", "4"]
    result = example.main([*argv, "--name", "selfplay_test"])
    out = capsys.readouterr().out
    assert "trained a linear policy on 5 games" in out and result["games"] == 12
    assert 0.0 <= result["win_share"] <= 1.0 and "selfplay_test vs 2 x greedy" in out


def test_maskable_ppo_without_its_extra_says_what_to_install_in_one_line():
    """Without torch (blocked here whether or not it is installed) the example ends with one
    line naming the missing package and the extra, not a traceback."""
    import subprocess
    import sys

    code = (
        "import runpy, sys; sys.modules['torch'] = None; "
        f"runpy.run_path({str(EXAMPLES / 'maskable_ppo.py')!r}, run_name='__main__')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "maskable_ppo.py needs torch (pip install 'giftsim[sb3]', with CPU torch as the README "
        "shows)"
    ]


def test_every_measurement_aid_loads():
    """Each script of ``docs/perf`` the docs tell a reader to run imports what it names (one
    imported a function from the module it had left: an ImportError as its first line).
    Loaded in a process of their own: loading registers their agents."""
    import subprocess
    import sys

    aids = sorted((ROOT / "docs" / "perf").glob("*.py"))
    code = (
        "import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]\n"
        "from tests.scripts import load_script\n"
        "from pathlib import Path\n"
        "for path in sys.argv[3:]:\n"
        "    load_script(Path(path), 'aid_' + Path(path).stem)\n"
    )
    argv = [sys.executable, "-c", code, str(ROOT), str(ROOT / "docs" / "perf"), *map(str, aids)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert len(aids) >= 10 and done.returncode == 0, done.stderr

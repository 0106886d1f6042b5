"""Game records (JSON) and the command line: round trips, tampering, one-line errors."""

import json
import subprocess
import sys

import pytest

from geschenkt_sim.record import RecordError, replay
from geschenkt_sim.rules import Rules

KEYS = {
    "game",
    "rules",
    "deck",
    "removed",
    "first_player",
    "actions",
    "scores",
    "winners",
    "agents",
    "seed",
    "game_index",
}


def giftsim(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "experiments.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
    )


@pytest.fixture(scope="module")
def record():
    done = giftsim(
        "record",
        "geschenkt",
        "--players",
        "4",
        "--agents",
        "greedy,greedy,random,greedy",
        "--seed",
        "7",
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_record_has_the_documented_keys(record):
    assert set(record) >= KEYS
    rules = Rules(**record["rules"])
    assert len(record["deck"]) == rules.n_cards == 24
    assert len(record["removed"]) == 9
    assert sorted(record["deck"] + record["removed"]) == list(range(3, 36))
    assert record["actions"].count("take") == 24
    lowest = min(record["scores"])
    assert record["winners"] == [s for s, v in enumerate(record["scores"]) if v == lowest]
    assert record["agents"] == ["greedy", "greedy", "random", "greedy"]
    assert record["first_player_policy"] == "rotate"  # game 0: seat 0
    assert record["first_player"] == 0


def test_record_to_dash_is_stdout_as_replay_of_dash_is_stdin(record, tmp_path, monkeypatch):
    """``record --out -`` writes the record to stdout (it wrote a file named ``-``), so that
    ``giftsim record ... --out - | giftsim replay -`` checks it."""
    monkeypatch.chdir(tmp_path)
    args = ["record", "geschenkt", "--players", "4", "--agents", "greedy,greedy,random,greedy"]
    done = giftsim(*args, "--seed", "7", "--out", "-")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == record and not list(tmp_path.iterdir())
    checked = giftsim("replay", "-", stdin=done.stdout)
    assert checked.returncode == 0 and "record OK" in checked.stdout, checked.stderr


def test_replay_accepts_the_record(record, tmp_path):
    lines = replay(record)
    assert len(lines) == len(record["actions"]) + 1
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    done = giftsim("replay", str(path))
    assert done.returncode == 0 and "record OK" in done.stdout


def test_a_record_of_your_own_agents_is_checked_with_their_module(tmp_path):
    """``replay --agents-module``: the record's own agents play its game again (replay had no
    such option, so a record of your agents could never have its seed and agents checked)."""
    from pathlib import Path

    module = str(Path(__file__).parents[1] / "docs" / "examples" / "my_agents.py")
    path = tmp_path / "mine.json"
    made = giftsim(
        "record", "geschenkt", "--agents-module", module, "--players", "3",
        "--agents", "pot_hunter,greedy,greedy", "--seed", "3", "--out", str(path),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    alone = giftsim("replay", str(path))
    assert alone.returncode == 0 and "provenance not checked" in alone.stdout
    assert "--agents-module" in alone.stdout
    done = giftsim("replay", str(path), "--agents-module", module)
    assert done.returncode == 0 and "provenance OK: game 0 of seed 3" in done.stdout
    changed = json.loads(path.read_text())
    changed["agents"] = ["greedy", "greedy", "greedy"]
    path.write_text(json.dumps(changed))
    wrong = giftsim("replay", str(path), "--agents-module", module)
    assert wrong.returncode == 2 and "is not what game 0 of seed 3" in wrong.stderr


def tampered(record, key, value):
    return {**record, key: value}


def swap_first_take(actions):
    i = actions.index("take")
    return [*actions[:i], "pass", *actions[i + 1 :]]


TAMPERS = [
    ("scores", lambda r: [s + 1 for s in r["scores"]], r"scores\[0\]: the record says"),
    ("winners", lambda r: [0, 1, 2, 3], "winners: the record says"),
    ("actions", lambda r: r["actions"][:-1], "actions: the game is not over"),
    ("actions", lambda r: [*r["actions"], "take"], r"actions\[\d+\]: 'take' is illegal"),
    ("actions", lambda r: ["keep", *r["actions"][1:]], r"actions\[0\]: expected 'take' or"),
    ("deck", lambda r: [*r["deck"][:-1], r["deck"][0]], "deck, removed: together they must hold"),
    ("first_player", lambda r: 9, "first_player: expected a seat 0..3"),
    ("rules", lambda r: {**r["rules"], "n_players": 12}, "rules: n_players must be in 2..7"),
    ("rules", lambda r: {**r["rules"], "speed": 3}, r"rules: unknown key 'speed' \(valid: n_pl"),
    ("game", lambda r: "chess", "game: expected 'geschenkt'"),
]


@pytest.mark.parametrize(("key", "change", "message"), TAMPERS)
def test_tampered_records_name_the_first_bad_entry(record, key, change, message):
    with pytest.raises(RecordError, match=message):
        replay(tampered(record, key, change(record)))


def test_changed_action_is_caught(record):
    with pytest.raises(RecordError):
        replay(tampered(record, "actions", swap_first_take(record["actions"])))


CLI_ERRORS = [
    (["record", "geschenkt", "--agents", "foo,greedy,greedy,greedy"], "unknown agent 'foo'"),
    (["record", "geschenkt", "--players", "9"], "n_players must be in 2..7"),
    (["record", "geschenkt", "--players", "3", "--agents", "greedy"], "names 1 agent for 3"),
    (["record", "geschenkt", "--first-player", "7"], "first_player must be 'rotate'"),
    (["replay", "/nonexistent/game.json"], "no such record file"),
]


@pytest.mark.parametrize(("args", "message"), CLI_ERRORS)
def test_cli_errors_are_one_line_with_exit_status_2(args, message):
    done = giftsim(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_replay_of_malformed_json_is_one_line(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    done = giftsim("replay", str(path))
    assert done.returncode == 2 and "is not JSON" in done.stderr
    done = giftsim("replay", "-", stdin=json.dumps({"game": "geschenkt"}))
    assert done.returncode == 2 and "missing key 'rules'" in done.stderr


TULIPS_ERRORS = [
    (["record", "tulips", "--players", "7"], "n_players must be in 2..6"),
    (["record", "tulips", "--players", "2", "--agents", "sniper,greedy"], "unknown agent 'sniper'"),
    (["record", "chess"], "invalid choice: 'chess'"),
]


@pytest.mark.parametrize(("args", "message"), TULIPS_ERRORS)
def test_tulips_cli_errors_are_one_line(args, message):
    done = giftsim(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1

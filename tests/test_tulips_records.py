"""Tulips game records: keys, round trip through replay and the CLI, tampering."""

import copy
import json

import pytest

from tests.test_records_cli import giftsim
from tulips_sim.record import RecordError, replay

KEYS = {
    "game",
    "rules",
    "removed",
    "festival_start",
    "setup",
    "first_player",
    "turns",
    "reveal",
    "scores",
    "breakdown",
    "winners",
    "agents",
    "seed",
    "game_index",
}


@pytest.fixture(scope="module")
def record():
    done = giftsim(
        "record",
        "tulips",
        "--players",
        "4",
        "--agents",
        "hoarder,planner,greedy,random",
        "--seed",
        "11",
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_record_has_the_documented_keys(record):
    assert set(record) >= KEYS
    assert record["rules"]["n_players"] == 4 and record["rules"]["n_removed"] == 6
    assert len(record["removed"]) == 6
    assert len(record["turns"]) == 28 and all(len(t["actions"]) == 2 for t in record["turns"])
    assert all(set(s) == {"bouquet", "secret"} for s in record["setup"])
    action = record["turns"][0]["actions"][0]
    assert action["card"][0] in ("purple", "blue", "pink", "orange") and "points" in action
    assert len(record["reveal"]) == 5
    for seat, parts in enumerate(record["breakdown"]):
        assert parts["give"] + parts["keep"] + parts["majority"] == record["scores"][seat]


def test_replay_accepts_the_record(record, tmp_path):
    assert replay(record)[-1].startswith("scores:")
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    done = giftsim("replay", str(path))
    assert done.returncode == 0 and "record OK" in done.stdout


def edit(record, change):
    twin = copy.deepcopy(record)
    change(twin)
    return twin


def first_give(record):
    for t, turn in enumerate(record["turns"]):
        for a, action in enumerate(turn["actions"]):
            if action["action"] == "give":
                return t, a
    raise AssertionError("no gift in this game")


def bump_points(r):
    t, a = first_give(r)
    r["turns"][t]["actions"][a]["points"] += 1


def same_kind_twice(r):
    r["turns"][3]["actions"][1]["action"] = r["turns"][3]["actions"][0]["action"]
    r["turns"][3]["actions"][1].pop("to", None)
    r["turns"][3]["actions"][0].pop("to", None)
    if r["turns"][3]["actions"][0]["action"] == "give":
        r["turns"][3]["actions"][0]["to"] = r["turns"][3]["actions"][1]["to"] = 0


def give_to_self(r):
    t, a = first_give(r)
    r["turns"][t]["actions"][a]["to"] = r["turns"][t]["player"]


TAMPERS = [
    (bump_points, r"turns\[\d+\]\.actions\[\d+\]\.points: the record says"),
    (same_kind_twice, r"turns\[3\]\.actions\[1\]: .* is not legal"),
    (give_to_self, r"turns\[\d+\]\.actions\[\d+\]: gives to seat \d is not legal"),
    (lambda r: r["scores"].__setitem__(0, r["scores"][0] + 1), r"scores\[0\]: the record says"),
    (lambda r: r["breakdown"][1].__setitem__("give", 0), r"breakdown\[1\]\.give: the record"),
    (lambda r: r["winners"].append(9), "winners: the record says"),
    (lambda r: r["reveal"].pop(), "reveal: expected 5 cards"),
    (lambda r: r["setup"][0].__setitem__("bouquet", ["red", 3]), r"setup\[0\]\.bouquet: a card"),
    (lambda r: r["removed"].pop(), "the cards do not make up the deck"),
    (lambda r: r["festival_start"].reverse(), "festival_start"),
    (lambda r: r.pop("turns"), "missing key 'turns'"),
    (lambda r: r["rules"].__setitem__("n_players", 9), "rules: n_players must be in 2..6"),
]


@pytest.mark.parametrize(("change", "message"), TAMPERS)
def test_tampered_records_name_the_first_bad_entry(record, change, message):
    with pytest.raises(RecordError, match=message):
        replay(edit(record, change))


def regroup_first_two_turns(r):
    r["turns"][0]["actions"] += r["turns"][1]["actions"]
    del r["turns"][1]


MORE_TAMPERS = [
    (
        lambda r: r["turns"][2].__setitem__("player", (r["turns"][2]["player"] + 1) % 4),
        r"turns\[2\]\.actions\[0\]: it is seat \d's turn",
    ),
    (regroup_first_two_turns, r"turns\[0\]\.actions: expected a list of one or two"),
    (lambda r: r["turns"].insert(1, 42), r"turns\[1\]: expected an object"),
    (lambda r: r["turns"].insert(1, {"player": 1}), r"turns\[1\]\.actions: expected a list"),
    (lambda r: r["turns"][0]["actions"][0].pop("points"), r"points: expected a whole number"),
    (lambda r: r["turns"][0]["actions"][0].__setitem__("points", False), "whole number"),
    (lambda r: r["setup"].__setitem__(0, 7), r"setup\[0\]: expected an object"),
    (lambda r: r.__setitem__("rules", 3), "rules: expected an object"),
    (lambda r: r.__setitem__("removed", 5), "removed: expected a list of cards"),
    (lambda r: r["festival_start"][0].__setitem__(1, 3.0), r"festival_start\[0\]: a card"),
]


@pytest.mark.parametrize(("change", "message"), MORE_TAMPERS)
def test_malformed_or_regrouped_records_are_refused_in_one_line(record, change, message):
    with pytest.raises(RecordError, match=message):
        replay(edit(record, change))

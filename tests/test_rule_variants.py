"""Rule variants: ``--rule key=value``, the variants' known answers, and records and manifests
that carry the rules they were played under."""

import json

import numpy as np
import pytest

from agents.registry import parse_list
from experiments.batch import play
from experiments.cli import main
from experiments.games import play_slow
from geschenkt_sim import reference as geschenkt_reference
from geschenkt_sim.record import replay as geschenkt_replay
from geschenkt_sim.rules import Rules as GeschenktRules
from giftsim.game import load_game
from giftsim.records import RecordError
from tulips_sim.record import replay as tulips_replay
from tulips_sim.rules import Rules as TulipsRules


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------------------ parsing


@pytest.mark.parametrize(
    ("pairs", "options"),
    [
        (["variant=tactical", "rounds=4"], {"variant": "tactical", "rounds": 4}),
        (["chips_visible=false", "first_player=2"], {"chips_visible": False, "first_player": 2}),
        (["chips_per_player=default", "first_player=random"], {}),
    ],
)
def test_geschenkt_rule_pairs(pairs, options):
    rules = GeschenktRules.from_pairs(pairs, 4)
    assert rules == GeschenktRules(n_players=4, **options)


@pytest.mark.parametrize(
    ("pairs", "options"),
    [
        (["game_end=deck_out", "n_removed=3"], {"game_end": "deck_out", "n_removed": 3}),
        (["setup=in_turn", "setup_scores=yes"], {"setup": "in_turn", "setup_scores": True}),
        (["seeding_tie=random", "n_removed=default"], {"seeding_tie": "random"}),
    ],
)
def test_tulips_rule_pairs(pairs, options):
    assert TulipsRules.from_pairs(pairs, 4) == TulipsRules(n_players=4, **options)


def test_tulips_tables_from_rule_pairs():
    rules = TulipsRules.from_pairs(
        ["majority_points=1,2,3/4,5,6/7,8,9/0,0,0", "base_copies=6,6,6/6,6,6/8,6,4/4,6,8"], 4
    )
    assert rules.majority == ((1, 2, 3), (4, 5, 6), (7, 8, 9), (0, 0, 0))
    assert rules.copies_by_type == (6, 6, 6, 6, 6, 6, 8, 6, 4, 4, 6, 8)
    assert rules.deck_size == 72


@pytest.mark.parametrize(
    ("game", "pair", "message"),
    [
        ("geschenkt", "bogus=1", "unknown rule 'bogus' for geschenkt (valid keys: chips_per"),
        ("geschenkt", "rounds", "--rule takes key=value, got 'rounds'"),
        ("geschenkt", "rounds=x", "rule rounds takes a whole number, got 'x'"),
        ("geschenkt", "rounds=0", "rounds must be in 1..20, got 0"),
        ("geschenkt", "variant=fast", "rule variant must be one of standard, tactical"),
        ("geschenkt", "chips_visible=maybe", "rule chips_visible takes true or false"),
        ("tulips", "game_end=soon", "must be one of equal_turns, full_turns, deck_out"),
        ("tulips", "base_copies=1,2", "base_copies must be a table of non-negative integers"),
        ("tulips", "majority_points=a", "rule majority_points takes numbers separated by ','"),
        ("tulips", "chips_visible=false", "unknown rule 'chips_visible' for tulips"),
    ],
)
@pytest.mark.parametrize("command", ["record", "tournament", "seats"])
def test_bad_rules_are_one_line_and_status_2(capsys, command, game, pair, message):
    games = () if command == "record" else ("--games", "1")
    code, out, err = run_cli(capsys, command, game, "--rule", pair, *games)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_bench_rules_name_their_game(capsys):
    code, out, err = run_cli(capsys, "bench", "--rule", "rounds=2", "--games", "1")
    assert code == 2 and "bench --rule takes GAME:KEY=VALUE" in err and err.count("\n") == 1
    assert out == ""
    code, _, err = run_cli(capsys, "bench", "--rule", "tulips:rounds=2", "--games", "1")
    assert code == 2 and "unknown rule 'rounds' for tulips" in err


# ------------------------------------------------------------------- records and manifests


def test_records_carry_their_rules_and_replay_uses_them(capsys, tmp_path):
    path = tmp_path / "t.json"
    rules = ["n_removed=5", "game_end=deck_out", "setup=in_turn", "giving_bonus=0,0,0,9"]
    code, _, err = run_cli(
        capsys, "record", "tulips", "--players", "3", *[x for r in rules for x in ("--rule", r)],
        "--out", str(path),
    )  # fmt: skip
    assert code == 0, err
    record = json.loads(path.read_text())
    assert record["rules"]["game_end"] == "deck_out" and record["rules"]["n_removed"] == 5
    assert record["rules"]["giving_bonus"] == [0, 0, 0, 9] and record["unused"] == []
    tulips_replay(record)
    # 72 - 5 - 2 - 6 = 59 cards: under deck_out the last one is a half turn
    assert len(record["turns"]) == 30 and len(record["turns"][-1]["actions"]) == 1
    record["rules"]["game_end"] = "equal_turns"  # the same game under other rules fails
    with pytest.raises(RecordError, match="unused: game_end=equal_turns leaves 5"):
        tulips_replay(record)


def test_manifest_carries_the_rules(capsys, tmp_path):
    out = tmp_path / "run"
    code, _, err = run_cli(
        capsys, "seats", "tulips", "--players", "3", "--games", "4", "--backend", "serial",
        "--quiet", "--rule", "n_removed=5", "--rule", "game_end=full_turns", "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["rules"][0]["game_end"] == "full_turns"
    assert manifest["rules"][0]["n_removed"] == 5
    assert all(
        job["rules"] == {"n_removed": 5, "game_end": "full_turns"} for job in manifest["jobs"]
    )


# ------------------------------------------------------------------- No Thanks! variants


# (players, tactical chips read as "one fewer than the standard", read as "ten")
TACTICAL = [(2, 10, 10), (3, 10, 10), (4, 10, 10), (5, 10, 10), (6, 8, 10), (7, 6, 10)]


@pytest.mark.parametrize(("n", "one_fewer", "ten"), TACTICAL)
def test_tactical_chips(n, one_fewer, ten):
    assert GeschenktRules(n_players=n, variant="tactical").chips == one_fewer
    assert GeschenktRules(n_players=n, variant="tactical", tactical_chips="ten").chips == ten
    assert GeschenktRules(n_players=n, tactical_chips="ten").chips == min(55 // n, 11)


def test_a_match_is_the_sum_of_its_rounds():
    """Match m of R rounds: games m*R .. m*R+R-1 of the single-game run, scores added."""
    agents = ["greedy", "sniper", "random"]
    single = play("geschenkt", agents, 12, rules=GeschenktRules(n_players=3), seed=4)
    match = play("geschenkt", agents, 4, rules=GeschenktRules(n_players=3, rounds=3), seed=4)
    for m in range(4):
        games = single.iloc[3 * m : 3 * m + 3]
        for s in range(3):
            assert match[f"score_{s}"][m] == games[f"score_{s}"].sum()
            rounds = [match[f"round{r + 1}_{s}"][m] for r in range(3)]
            assert rounds == games[f"score_{s}"].tolist()
        assert match.first_player[m] == games.first_player.iloc[0]
        assert match.n_decisions[m] == games.n_decisions.sum()
    totals = match[[f"score_{s}" for s in range(3)]].to_numpy()
    wins = match[[f"win_{s}" for s in range(3)]].to_numpy()
    assert np.array_equal(wins > 0, totals == totals.min(axis=1, keepdims=True))


def test_match_record_replays_round_by_round_and_against_the_twin(capsys, tmp_path):
    path = tmp_path / "m.json"
    code, _, err = run_cli(
        capsys, "record", "geschenkt", "--players", "3", "--agents", "greedy,sniper,random",
        "--seed", "4", "--rule", "rounds=3", "--out", str(path),
    )  # fmt: skip
    assert code == 0, err
    record = json.loads(path.read_text())
    assert len(record["rounds"]) == 3 and record["rules"]["rounds"] == 3
    rounds = []
    for game in record["rounds"]:
        ref = geschenkt_reference.ReferenceGame(
            GeschenktRules(**game["rules"]), game["deck"], game["removed"], game["first_player"]
        )
        for name in game["actions"]:
            ref.apply(1 if name == "take" else 0)
        assert ref.scores() == game["scores"]
        rounds.append(ref.scores())
    assert geschenkt_reference.match_scores(rounds) == record["scores"]
    assert geschenkt_reference.winners(record["scores"]) == record["winners"]
    assert geschenkt_replay(record)[-1].startswith("match scores")
    record["scores"][0] += 1
    with pytest.raises(RecordError, match=r"scores\[0\]"):
        geschenkt_replay(record)


# ------------------------------------------------------------------- Tulips variants

# (players, removed, game_end, whole turns per seat (seat 0 first), half turns, unused cards)
TURNS = [
    (3, 5, "equal_turns", [9, 9, 9], 0, 5),  # 59 cards: 9 whole rounds of 6, 5 left over
    (3, 5, "full_turns", [10, 10, 9], 0, 1),  # 29 whole turns, the odd card left over
    (3, 5, "deck_out", [10, 10, 9], 1, 0),  # 29 whole turns and a half turn
    (4, 9, "equal_turns", [6, 6, 6, 6], 0, 5),  # 53 cards: 6 rounds of 8
    (4, 6, "equal_turns", [7, 7, 7, 7], 0, 0),  # the table of record: 56 cards, 7 rounds
    (2, 3, "equal_turns", [15, 15], 0, 3),  # 63 cards: 15 rounds of 4
]


@pytest.mark.parametrize(("n", "removed", "end", "whole", "half", "unused"), TURNS)
def test_turns_under_each_game_end(n, removed, end, whole, half, unused):
    rules = TulipsRules(n_players=n, n_removed=removed, game_end=end)
    assert rules.unused == unused and rules.equal_turns == (len(set(whole)) == 1 and not half)
    game = play_slow("tulips", rules, parse_list(["greedy"] * n, "tulips"), 3, 0, 0)
    record = load_game("tulips").make_record(rules, game.start, game.actions, {})
    turns = record["turns"]
    assert [
        sum(1 for t in turns if t["player"] == s and len(t["actions"]) == 2) for s in range(n)
    ] == whole
    assert sum(1 for t in turns if len(t["actions"]) == 1) == half
    assert len(record["unused"]) == unused


def test_in_turn_setup_shows_earlier_choices():
    from tulips_sim.engine import BOUQUET, apply_action, begin, observe
    from tulips_sim.rules import SETUP_FIRST
    from tulips_sim.state import DEALT, OBS_SIZE, deal, new_state

    seen = {}
    for setup in ("simultaneous", "in_turn"):
        rules = TulipsRules(n_players=3, setup=setup)
        state = new_state()
        deal(rules.to_array(), 9, 0, -1, state)
        begin(state)
        apply_action(state, SETUP_FIRST)  # seat 0 keeps its first dealt card
        obs = np.zeros(OBS_SIZE, np.int64)
        observe(state, 1, obs)
        seen[setup] = int(obs[BOUQUET + state[DEALT]])
    assert seen == {"simultaneous": 0, "in_turn": 1}


def test_statistics_per_round_and_per_match():
    """A run of matches reports each round as a game: the round scores add up to the match
    score, each round's win is shared out once, and the report shows both levels."""
    from experiments.commands import tables
    from experiments.results import round_table

    rules = GeschenktRules(n_players=3, rounds=3)
    frame = play("geschenkt", ["sniper", "greedy", "greedy:T=-3"], 60, rules=rules, seed=2)
    frame["job"] = 0
    rounds = round_table(frame, "geschenkt")
    assert len(rounds) == 60 * 3 * 3 and set(rounds["round"]) == {1, 2, 3}
    per_match = rounds.groupby(["game_index", "seat"])["score"].sum().unstack()
    assert np.array_equal(per_match.to_numpy(), frame[[f"score_{s}" for s in range(3)]])
    assert np.allclose(rounds.groupby(["game_index", "round"])["win"].sum(), 1.0)
    lowest = rounds.groupby(["game_index", "round"])["score"].transform("min")
    assert ((rounds["win"] > 0) == (rounds["score"] == lowest)).all()
    named = tables(frame, summary_only=False, game="geschenkt")
    assert "win share of single rounds by agent (the match's deal as unit)" in named
    assert "mean score by round number and agent" in named

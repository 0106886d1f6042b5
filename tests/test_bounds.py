"""The rollout responder (agents/templates/respond.py, experiments/bounds.py): on solved
variants its gain never exceeds the exact exploitability and finds at least half of it for
greedy and random; its deals are the game loop's; a block does not depend on how the deals
are cut; the command refuses bad input in one line and resumes from its CSV."""

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agents.drivers.block import play_block, respond_block
from agents.registry import parse, spec_name
from experiments import bounds, exact
from experiments.cli import main
from geschenkt_sim.rules import Rules
from giftsim.game import load_game
from giftsim.rule_options import changed_pairs

GESCHENKT = load_game("geschenkt")
RESPONDERS = Path(__file__).resolve().parent.parent / "docs" / "responders"  # shipped networks


@pytest.mark.parametrize(
    ("players", "cards", "target"),
    [(2, 8, "greedy"), (2, 8, "random"), (3, 7, "greedy"), (3, 7, "random")],
)
def test_bound_within_exact_and_finds_half(players, cards, target):
    """The responder with a margin of 1 (the default) against greedy, the best mean against
    random (whose rollouts are too noisy for a margin to let many of its mistakes go)."""
    margin = 0.0 if target == "random" else 1.0
    rules = exact.scaled(players, cards)
    row = bounds.against_exact(rules, target, deals=800, rollouts=8, margin=margin)
    assert row["z_above_exact"] < 3  # a lower bound: never above the exact gain
    assert row["bound_gain"] - 3 * row["se"] > 0.5 * row["exact_gain"], row


def test_field_share_is_the_game_loops():
    """The target's own share on each deal is the plain loop's, game for game."""
    rules = Rules(n_players=3)
    agents = [parse("random", "geschenkt")] * 3
    rows = respond_block(GESCHENKT, rules, agents, 0, (2, 1.0), 7, 0, 30)
    loop = play_block(GESCHENKT, rules, agents, 7, 0, 30)
    winners = loop[:, -1]
    share = (winners & 1) / np.array([bin(w).count("1") for w in winners])
    np.testing.assert_array_equal(rows[:, bounds.FIELD_SHARE], share)


def test_blocks_do_not_depend_on_the_cut():
    rules, agents = Rules(n_players=3), [parse("greedy", "geschenkt")] * 3
    whole = respond_block(GESCHENKT, rules, agents, 0, (4, 0.0), 3, 0, 12)
    parts = [respond_block(GESCHENKT, rules, agents, 0, (4, 0.0), 3, i, 4) for i in (0, 4, 8)]
    np.testing.assert_array_equal(whole, np.concatenate(parts))
    assert (whole[:, bounds.ROLLED] > 0).all()


def test_tulips_bound_and_positions():
    rules = load_game("tulips").rules(n_players=3)
    bound = bounds.rollout_bound("tulips", rules, "greedy", deals=30, rollouts=2, seed=1)
    summary = bound.summary()
    assert 0 <= summary["responder_share"] <= 1 and summary["se"] > 0
    positions = bound.by_position()
    assert list(positions["position"]) == [0, 1, 2]
    assert np.isclose(positions["gain"].mean(), summary["gain"])  # 10 deals per position


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rule", "rounds=3"], "the rollout responder plays single games: use rounds=1"),
        (["--deals", "1"], "--deals must be in 2..10,000,000"),
        (["--responder", "greedy", "--deals", str(10**11)], "--deals must be in 2..10,000,000"),
        (["--rollouts", "0"], "--rollouts must be in 1..100,000"),
        (["--rollouts", str(10**20)], "--rollouts must be in 1..100,000"),  # was a TypingError
        (["--target", ""], "--target names no agent; give agent specs, comma-separated (random"),
        (["--target", " , "], "--target names no agent"),  # both were KeyError: 'game'
        (["--margin", "nan"], "--margin must be a finite number of standard errors >= 0"),
        (["--players", "9"], "--players must be in 2..7 for No Thanks!, got 9"),
        (["--target", "nobody"], "nobody"),
        (["--players", "3,3"], "--players lists 3 twice; list each player count once"),
        (["--target", "greedy,greedy"], "--target lists greedy twice; list each agent once"),
    ],
)
def test_bad_input_is_one_line(argv, message, capsys, tmp_path):
    out = tmp_path / "b.csv"
    target = [] if "--target" in argv else ["--target", "greedy"]  # an option is given once
    base = ["bound", "geschenkt", *target, "--quiet", "--out", str(out)]
    assert main([*base, *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize("where", ["--responder", "--target"])
def test_a_network_of_another_player_count_is_refused_before_any_row_is_run(
    where, capsys, tmp_path
):
    """Every player count is checked up front: a 3-player network with --players 3,5 was
    refused only after the 3-player row had been run (and added to --out)."""
    out = tmp_path / "b.csv"
    net = f"learned:net={RESPONDERS / 'geschenkt-3p-greedy.npz'}"
    target = "greedy" if where == "--responder" else net
    argv = ["bound", "geschenkt", "--players", "3,5", "--target", target, "--deals", "20"]
    argv += ["--quiet", "--out", str(out)]
    argv += ["--responder", net] if where == "--responder" else ["--rollouts", "2"]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "is for 3 players, not 5" in captured.err and len(captured.err.splitlines()) == 1
    assert captured.out == "" and not out.exists()


def test_rows_are_kept_by_their_rules(tmp_path, capsys):
    """A row found under other rules is not the answer under these: ``--out`` keys its rows by
    the rules too (the options that differ from those of record, or ``standard``)."""
    out = tmp_path / "b.csv"
    argv = ["bound", "geschenkt", "--players", "3", "--target", "greedy", "--deals", "20"]
    argv += ["--rollouts", "2", "--quiet", "--out", str(out)]
    variant = [*argv, "--rule", "chips_per_player=3"]
    assert main(argv) == 0 and main(variant) == 0
    rows = pd.read_csv(out, keep_default_na=False)
    assert list(rows["rules"]) == ["standard", "chips_per_player=3"]
    alone = tmp_path / "alone.csv"
    assert main([*argv[:-1], str(alone), "--rule", "chips_per_player=3"]) == 0  # on its own
    assert pd.read_csv(alone).loc[0, "gain"] == rows.loc[1, "gain"] != rows.loc[0, "gain"]
    assert main([*argv, "--rule", "chips_per_player=11"]) == 0  # the rules of record, spelt out
    assert len(pd.read_csv(out)) == 2
    capsys.readouterr()
    rows.drop(columns=["rules", "inputs"]).to_csv(out, index=False)  # a file of the oldest format
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "written by an older giftsim bound, without the rules" in err
    assert len(err.strip().splitlines()) == 1


def test_a_damaged_out_file_is_refused_and_left_as_it_was(tmp_path, capsys):
    """A row with text in a number column made every row's key unfindable (the kept row was
    run and added again), and a last line cut short had the new row glued onto it."""
    out = tmp_path / "b.csv"
    argv = ["bound", "geschenkt", "--players", "3", "--target", "greedy", "--deals", "4"]
    argv += ["--rollouts", "2", "--quiet", "--out", str(out)]
    assert main(argv) == 0
    good = out.read_text()
    bad_row = "geschenkt,3,greedy,rollouts:2:margin=1,notanumber,0.5,0.5,0,0,0,0,0,0,standard,\n"
    for damaged, said in (
        (good + bad_row, "its row 2 (below the header) has 'notanumber' in column deals"),
        (good + "geschenkt,3,gre", "its last line is cut short"),
    ):
        out.write_text(damaged)
        capsys.readouterr()
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert said in err and len(err.strip().splitlines()) == 1, err
        assert out.read_text() == damaged
    out.write_text(good.splitlines()[0] + "\n")  # the header alone: no rows yet, rows added
    assert main(argv) == 0 and len(pd.read_csv(out)) == 1


def test_rows_are_kept_by_the_contents_of_the_files_their_specs_name(tmp_path, capsys):
    """A network replaced at the same path (retrained) is not the one an earlier row measured:
    ``--out`` keys its rows by the SHA-256 of the files the specs name too (it had printed the
    old row's figures), and a row kept from an earlier run says so. In one process too: a
    network is cached by its path and its state (``net.file_key``), not its path alone."""
    import shutil

    out, net = tmp_path / "b.csv", tmp_path / "br.npz"
    argv = ["bound", "geschenkt", "--players", "3", "--target", "greedy", "--deals", "30"]
    argv += ["--responder", f"learned:net={net}", "--quiet", "--out", str(out)]

    def run(source: str) -> str:
        shutil.copy(RESPONDERS / source, net)
        assert main(argv) == 0
        return capsys.readouterr().out.splitlines()[0]

    first = run("geschenkt-3p-greedy.npz")
    assert "[kept from" not in first
    again = run("geschenkt-3p-greedy.npz")
    assert again == f"{first} [kept from an earlier run in {out}]"
    other = run("geschenkt-3p-random.npz")  # retrained to the same path
    assert "[kept from" not in other and other != first
    rows = pd.read_csv(out, keep_default_na=False)
    assert len(rows) == 2 and rows["gain"].nunique() == 2
    assert list(rows["inputs"].str.split(":").str[0]) == ["responder", "responder"]
    alone = tmp_path / "alone.csv"  # the same network on its own: the same figures
    assert main([*argv[:-1], str(alone)]) == 0
    assert pd.read_csv(alone).loc[0, "gain"] == rows.loc[1, "gain"]
    capsys.readouterr()
    rows.drop(columns="inputs").to_csv(out, index=False)  # a file of the older format
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "without the digests of the files its rows' agents read; add a column inputs" in err
    assert len(err.strip().splitlines()) == 1


def test_command_writes_rows_and_resumes(tmp_path, capsys):
    out = tmp_path / "b.csv"
    argv = ["bound", "geschenkt", "--players", "3,4", "--target", "greedy", "--deals", "20"]
    argv += ["--rollouts", "2", "--quiet", "--out", str(out)]
    assert main(argv) == 0
    first = pd.read_csv(out)
    printed = capsys.readouterr().out
    assert list(first["players"]) == [3, 4] and "worst case" in printed
    closing = printed.split("worst case (largest gain found; its interval widened")[1]
    assert "warning" in closing and "< 30 deals: too few deals" in closing  # 20 deals: marked
    assert main(argv) == 0  # the rows are there: nothing is run or added
    pd.testing.assert_frame_equal(pd.read_csv(out), first)
    worst = bounds.worst_case(first)
    assert worst.loc[0, "gain"] == first["gain"].max()


def test_worst_cases_column(tmp_path):
    """The largest gain per family, over player counts and specs of it, "none shown" when
    its interval reaches 0; no entry for a family without rows; rows under other rules than
    those of record do not count."""
    rows = [
        ("geschenkt", 3, "greedy", 0.30, 0.01, "standard"),
        ("geschenkt", 4, "greedy:T=-2", 0.35, 0.02, "standard"),
        ("geschenkt", 3, "greedy", 0.60, 0.01, "chips_per_player=3"),
        ("geschenkt", 3, "sniper", -0.01, 0.01, "standard"),
        ("geschenkt", 3, "tuned3p", 0.019, 0.01, "standard"),
        ("geschenkt", 3, "random", 0.5, 0.01, "chips_per_player=3"),
        ("geschenkt", 4, "ismcts", -0.137, 0.043, "standard"),
        ("tulips", 2, "greedy", 0.90, 0.01, "standard"),
    ]
    table = pd.DataFrame(rows, columns=["game", "players", "target", "gain", "se", "rules"])
    table = table.assign(low=table.gain - 1.96 * table.se, high=table.gain + 1.96 * table.se)
    table.assign(responder="rollouts:8:margin=1").to_csv(tmp_path / "b.csv", index=False)
    worst = bounds.worst_cases("geschenkt", tmp_path / "b.csv")
    # the larger of greedy's two gains: Wilson's interval on (1 + gain) / 2 at the normal
    # 1 - 0.025 / 2 point (2.2414), not the row's own 95% interval [+0.311, +0.389]
    assert worst["greedy"] == (
        "+0.350 [+0.304, +0.394] (4p, rollouts:8:margin=1; the largest of 2 gains, its "
        "interval widened for them)"
    )
    assert worst["sniper"].startswith("-0.010 [-0.030, +0.010] (none shown")
    assert worst["tuned3p"].startswith("+0.019 [-0.001, +0.039] (none shown")  # reaches 0
    assert worst["ismcts"].startswith("no gain found (the best responder's gain: -0.137 [-0.220,")
    assert set(worst) == {"greedy", "sniper", "tuned3p", "ismcts"}
    assert bounds.worst_cases("geschenkt", tmp_path / "missing.csv") == {}


def test_the_largest_of_many_gains_is_shown_only_past_its_widened_interval(tmp_path):
    """Nine responders each find a gain of about 0 and one row's noise makes +0.021, whose own
    95% interval leaves 0 out: as the largest of nine it is no gain shown (at 1 - 0.05 / 9 its
    interval reaches 0); the same row alone is one."""
    gains = [0.021, 0.0, -0.01, 0.005, 0.002, -0.004, 0.01, 0.0, -0.002]
    table = pd.DataFrame({"gain": gains, "se": 0.01, "deals": 4400})
    table = table.assign(game="tulips", target="greedy", players=range(9), rules="standard")
    table = table.assign(responder="rollouts:8:margin=1", low=0.0014, high=0.0406)
    table.to_csv(tmp_path / "many.csv", index=False)
    many = bounds.worst_case(table).iloc[0]
    assert (many["compared"], many["gain"]) == (9, 0.021)
    assert many["low"] < 0 < many["high"] and many["high"] > 0.0406
    assert "(none shown, 0p, " in bounds.worst_cases("tulips", tmp_path / "many.csv")["greedy"]
    losing = table.assign(gain=[-0.02, -0.03, *gains[2:]], se=[0.005, 0.05, *[0.01] * 7])
    losing = losing.assign(gain=lambda t: t["gain"].clip(upper=-0.02))  # every gain below 0
    losing.to_csv(tmp_path / "losing.csv", index=False)
    words = bounds.worst_cases("tulips", tmp_path / "losing.csv")["greedy"]
    assert words.startswith("-0.020 [") and "(none shown" in words  # a row's interval tops 0
    table.head(1).to_csv(tmp_path / "one.csv", index=False)
    alone = bounds.worst_cases("tulips", tmp_path / "one.csv")["greedy"]
    assert alone == "+0.021 [+0.001, +0.041] (0p, rollouts:8:margin=1)"


def test_an_agent_responder_plays_the_rollout_responders_deals():
    """The target's own games are the rollout responder's, deal for deal; the target as its
    own responder plays the very same games (its stream is its seat's), so gains nothing."""
    rules = Rules(n_players=3)
    rollout = bounds.rollout_bound("geschenkt", rules, "random", deals=40, rollouts=2, seed=5)
    same = bounds.agent_bound("geschenkt", rules, "random", "random", deals=40, seed=5)
    own = rollout.rows[:, bounds.FIELD_SHARE]
    np.testing.assert_array_equal(same.rows[:, bounds.FIELD_SHARE], own)
    np.testing.assert_array_equal(same.rows[:, bounds.SHARE], same.rows[:, bounds.FIELD_SHARE])
    greedy = bounds.agent_bound("geschenkt", rules, "random", "greedy", deals=40, seed=5)
    assert greedy.summary()["gain"] > 0.3 and greedy.summary()["responder"] == "greedy"


def test_a_learned_best_response_stays_below_the_exact_gain_and_finds_most_of_it(tmp_path):
    """A learned network trained against greedy alone on a solved deck (giftsim train's loop
    with the variant's rules, selfplay 0) is a strategy of its seat: its gain is a lower
    bound of the exact exploitability, and it finds most of it."""
    rules = exact.scaled(2, 8)
    spec = bounds.learned_responder(
        "geschenkt", rules, "greedy", tmp_path / "br.npz", games=12_000, rounds=3, seed=11
    )
    row = bounds.against_exact(rules, "greedy", deals=1500, responder=spec)
    assert row["responder"] == spec
    assert row["z_above_exact"] < 3
    assert row["bound_gain"] - 3 * row["se"] > 0.5 * row["exact_gain"], row


def test_the_command_takes_an_agent_responder(tmp_path, capsys):
    out = tmp_path / "b.csv"
    argv = ["bound", "geschenkt", "--players", "3", "--target", "random", "--deals", "30"]
    argv += ["--responder", "greedy", "--quiet", "--out", str(out)]
    assert main(argv) == 0
    row = pd.read_csv(out).iloc[0]
    assert row["responder"] == "greedy" and row["gain"] > 0
    assert main([*argv[:-5], "--responder", "nobody", "--quiet", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "nobody" in err and len(err.strip().splitlines()) == 1
    assert len(pd.read_csv(out)) == 1  # nothing added


def test_responder_kinds():
    assert bounds.kind("rollouts:8:margin=1") == "rollouts, margin 1"
    assert bounds.kind("learned:net=docs/responders/x.npz") == "learned best response"
    assert bounds.kind("greedy:T=2") == "greedy:T=2"


def test_a_gain_with_no_spread_keeps_an_interval_of_some_width():
    """Every deal gave the responder the win and its target none (se 0): the interval is that
    of a difference of shares on those deals, inside [-1, 1], not the point itself."""
    rows = np.tile([1.0, 0.0, 5.0], (12, 1))
    row = bounds.Bound("geschenkt", 3, "greedy", "rollouts:2:margin=1", 12, 0, 0.0, rows).summary()
    assert row["gain"] == 1 and row["se"] == 0
    assert -1 <= row["low"] < 0.9 and row["high"] == 1
    line = bounds._line(row | {"responder_share": 1.0, "target_share": 0.0, "players": 3})
    assert "(se 0.0000: every deal alike, the interval is a score interval's" in line
    lots = np.column_stack([np.arange(400) % 2, np.zeros(400), np.ones(400)]).astype(float)
    wide = bounds.Bound("geschenkt", 3, "greedy", "r", 400, 0, 0.0, lots).summary()
    half = 1.966 * wide["se"]  # many deals: the plain t interval
    assert wide["low"] == pytest.approx(wide["gain"] - half, abs=2e-3)
    assert wide["high"] == pytest.approx(wide["gain"] + half, abs=2e-3)


def test_a_learned_responders_rules_reach_its_training_as_they_are():
    """The rules a learned best response is trained under (``changed_pairs``, comma-joined
    into ``TrainSettings.rules``) are the bound's, tables included (their values hold
    commas)."""
    from experiments.train_settings import TrainSettings
    from tulips_sim.rules import Rules as TulipsRules

    rules = TulipsRules(n_players=4, keeping_points=(0, 0, 1, 3), n_removed=8)
    pairs = changed_pairs(rules)
    assert sorted(pairs) == ["keeping_points=0,0,1,3", "n_removed=8"]
    settings = TrainSettings("tulips", 4, rules=",".join(pairs))
    assert settings.game_rules() == rules
    assert bounds.rules_text(rules) == " ".join(pairs)
    assert bounds.rules_text(TulipsRules(n_players=4)) == "standard"


def test_a_bound_whose_deals_all_gain_alike_is_compared_without_dividing_by_zero():
    """Two deals that gain the same (standard error 0) gave ZeroDivisionError; the bound's
    distance from the exact gain is then an infinite z of its sign, not a crash or a tie."""
    rules = Rules(n_players=2, lowest_card=3, highest_card=5, n_removed=0, chips_per_player=1)
    row = bounds.against_exact(rules, "greedy", 2, rollouts=2)
    assert row["se"] == 0 and row["bound_gain"] != row["exact_gain"]
    assert row["z_above_exact"] == np.copysign(np.inf, row["bound_gain"] - row["exact_gain"])


def test_a_responder_trained_against_another_agent_says_so(tmp_path, monkeypatch):
    """A search agent's worst case can come from a network trained against a one-ply agent: its
    words name that agent (the ``baseline`` the network file records), so the gain does not
    read as a best response to the search itself; a responder trained against its own target
    and a rollout responder say nothing more."""
    net = tmp_path / "responder.npz"
    shutil.copy(bounds.SHIPPED.parent / "responders" / "geschenkt-3p-greedy.npz", net)
    rows = [("flatmc", f"learned:net={net}"), ("greedy", f"learned:net={net}")]
    rows += [("sniper", "rollouts:8:margin=1")]
    table = pd.DataFrame(rows, columns=["target", "responder"])
    table = table.assign(game="geschenkt", players=3, gain=0.3, se=0.01, rules="standard")
    table.assign(low=0.28, high=0.32).to_csv(tmp_path / "b.csv", index=False)
    worst = bounds.worst_cases("geschenkt", tmp_path / "b.csv")
    against = f"(3p, learned:net={net}, trained against greedy)"
    assert worst["flatmc"] == f"+0.300 [+0.280, +0.319] {against}"
    assert worst["greedy"] == f"+0.300 [+0.280, +0.319] (3p, learned:net={net})"
    assert worst["sniper"] == "+0.300 [+0.280, +0.319] (3p, rollouts:8:margin=1)"
    # the shipped rows' relative paths, read from another folder, spaced as a spec may be
    monkeypatch.chdir(tmp_path)
    shipped = "learned: net = docs/responders/geschenkt-3p-greedy.npz :explore=0"
    table.assign(responder=shipped, low=0.28, high=0.32).to_csv(tmp_path / "b.csv", index=False)
    worst = bounds.worst_cases("geschenkt", tmp_path / "b.csv")
    assert worst["flatmc"].endswith(f"(3p, {shipped}, trained against greedy)")
    assert worst["greedy"].endswith(f"(3p, {shipped})")
    # a row edited by hand into no agent's spec still shows, without the words
    table.assign(responder="learned:net", low=0.28, high=0.32).to_csv(
        tmp_path / "b.csv", index=False
    )
    assert bounds.worst_cases("geschenkt", tmp_path / "b.csv")["flatmc"].endswith(
        "(3p, learned:net)"
    )


@pytest.mark.parametrize(
    ("spec", "name"),
    [
        ("ismcts:iters=400", "ismcts"),
        (" greedy ", "greedy"),
        ("learned:net=docs/responders/a:b.npz", "learned"),
        ("tuned4p", "tuned4p"),
    ],
)
def test_a_spec_s_name_is_what_comes_before_its_first_colon(spec, name):
    """The name of a spec, as the bounds' rows, their responders and the ladder's rungs read
    it (one function: each had its own split)."""
    assert spec_name(spec) == name

"""experiments.sweeps: a sweep over one variant is one batch run; balance figures are right on
games whose outcome is known."""

import numpy as np
import pandas as pd
import pytest

from experiments import stats, sweeps
from experiments.batch import field, play
from experiments.results import long_table
from geschenkt_sim.rules import Rules
from tulips_sim.rules import Rules as TulipsRules


def test_grid_and_labels():
    variants = sweeps.grid(n_removed=[0, 9], chips_per_player=[7, 11, 13])
    assert len(variants) == 6
    assert variants[0] == {"n_removed": 0, "chips_per_player": 7}
    assert variants[-1] == {"n_removed": 9, "chips_per_player": 13}
    assert sweeps.label(variants[1]) == "n_removed=0, chips_per_player=11"
    assert sweeps.label({}) == "rules of record"


def test_sweep_over_one_variant_is_a_batch_run():
    options = {"n_removed": 5, "chips_per_player": 7}
    table = sweeps.sweep("geschenkt", "greedy:T=-1", [options], 900, players=[3, 5], seed=4)
    assert list(table["variant"]) == ["n_removed=5, chips_per_player=7"] * 2
    assert list(table["n_players"]) == [3, 5] and (table["n_removed"] == 5).all()
    for n, row in zip([3, 5], table.itertuples(), strict=True):
        rules = Rules(n_players=n, **options)
        frame = play("geschenkt", ["greedy:T=-1"] * n, 900, rules=rules, seed=4)
        assert row.games == 900
        assert row.decisions == pytest.approx(frame["n_decisions"].mean())
        wins = frame[[f"win_{s}" for s in range(n)]].to_numpy()
        first = frame["first_player"].to_numpy()
        assert row.first_share == pytest.approx(wins[np.arange(900), first].mean())
        last = (first + n - 1) % n
        assert row.last_share == pytest.approx(wins[np.arange(900), last].mean())
        scores = frame[[f"score_{s}" for s in range(n)]].to_numpy()
        assert row.winning_score == pytest.approx(scores.min(axis=1).mean())
        assert sweeps.balance(frame) == pytest.approx(
            {k: getattr(row, k) for k in sweeps.balance(frame)}
        )


def test_sweep_takes_labelled_variants_and_tulips_tables():
    table = {"official": {}, "no majorities": {"majority_points": ((0, 0, 0),) * 4}}
    result = sweeps.sweep("tulips", "greedy", table, 200, players=3, seed=1)
    assert list(result["variant"]) == ["official", "no majorities"]
    official = play("tulips", ["greedy"] * 3, 200, seed=1)
    scores = official[[f"score_{s}" for s in range(3)]].to_numpy()
    assert result.loc[0, "winning_score"] == pytest.approx(scores.max(axis=1).mean())
    assert result.loc[1, "winning_score"] < result.loc[0, "winning_score"]


def _frame(winner_position: np.ndarray, n: int) -> pd.DataFrame:
    """Rows of ``experiments.batch.play`` where the seat at ``winner_position`` in the turn
    order wins game i (first player rotating) with score 10, the others 20 (lowest wins)."""
    games = len(winner_position)
    first = np.arange(games) % n
    winner = (first + winner_position) % n
    columns = {"game_index": np.arange(games), "first_player": first, "n_decisions": 50}
    for s in range(n):
        columns[f"score_{s}"] = np.where(winner == s, 10, 20)
        columns[f"win_{s}"] = (winner == s).astype(float)
        columns[f"agent_{s}"] = pd.Categorical(["x"] * games)
    return pd.DataFrame(columns)


def test_balance_of_known_outcomes():
    always_first = sweeps.balance(_frame(np.zeros(400, int), 4))
    assert always_first["first_share"] == 1 and always_first["last_share"] == 0
    assert always_first["first_edge"] == pytest.approx(0.75)
    assert always_first["spread"] == 1 and always_first["p_value"] < 1e-100
    assert always_first["winning_score"] == 10 and always_first["mean_score"] == 17.5
    assert always_first["decisions"] == 50 and always_first["ties"] == 0
    fair = sweeps.balance(_frame(np.arange(400) % 4, 4))
    assert fair["first_share"] == 0.25 and fair["chi2"] == 0 and fair["p_value"] == 1
    assert fair["first_edge_low"] < 0 < fair["first_edge_high"]


def test_balance_of_one_game_has_no_intervals_and_a_few_games_use_student_t():
    """Sniper at 4 players made the covariance test fail to converge on one game: now every
    interval and the test are NaN. On 3 games a mean's half width is t(2) times its error."""
    one = sweeps.sweep("geschenkt", "sniper", [{}], 1, players=4).iloc[0]
    assert one["games"] == 1 and np.isnan(one["p_value"]) and np.isnan(one["decisions_low"])
    three = sweeps.balance(_frame(np.arange(3) % 4, 4).assign(n_decisions=[40, 50, 60]))
    half = three["decisions_high"] - three["decisions"]
    assert half == pytest.approx(4.303 * 10 / np.sqrt(3), rel=1e-3)


def test_field_sweep_over_one_variant_is_the_batch_field():
    options = {"giving_bonus": (1, 1, 1, 1)}
    table = sweeps.field_sweep("tulips", ["random", "hoarder"], "greedy", [options], 150, 3, 2)
    assert list(table["candidate"]) == ["random", "hoarder"]
    rules = TulipsRules(n_players=3, **options)
    for row in table.itertuples():
        direct = field("tulips", row.candidate, "greedy", 3, 150, seed=2, rules=rules)
        assert row.win_share == direct["win_share"]
        assert (row.win_share_low, row.win_share_high) == direct["ci95"]
        assert row.edge == pytest.approx(direct["win_share"] - 1 / 3)
        assert row.games == 450


def test_turns_of_a_game_whose_rules_count_them():
    table = pd.DataFrame({"n_players": [4, 4, 4, 2, 5], "n_removed": [6, 7, 10, 18, None]})
    old = sweeps.turns("tulips", table.assign(game_end="deck_out"))
    assert old["turns"].tolist() == [28, 28, 26, 24, 35]  # rules file §5.5 for 6, 18, None
    assert old["equal_turns"].tolist() == [True, False, False, True, True]
    turns = sweeps.turns("tulips", table)  # whole rounds only: 55 and 52 cards give 6 rounds
    assert turns["turns"].tolist() == [28, 24, 24, 24, 35]
    assert turns["equal_turns"].all()
    assert sweeps.turns("tulips", table[["n_players"]])["turns"].tolist() == [28, 28, 28, 24, 35]


def test_spread_by_turns():
    table = pd.DataFrame(
        {"n_players": [4, 4, 4, 2], "n_removed": [6, 7, 14, 18], "spread": [0.1, 0.3, 0.2, 0.05]}
    )
    summary = sweeps.spread_by_turns(sweeps.turns("tulips", table.assign(game_end="deck_out")))
    assert summary.loc[(4, True), "variants"] == 2
    assert summary.loc[(4, True), "mean"] == pytest.approx(0.15)
    assert summary.loc[(4, False), "max"] == 0.3 and summary.loc[(2, True), "min"] == 0.05


@pytest.mark.parametrize("first_player", ["rotate", "random"])
def test_balance_agrees_with_the_seat_statistics(first_player):
    frame = play("tulips", ["hoarder"] * 3, 600, seed=8, first_player=first_player)
    row = sweeps.balance(frame)
    long = long_table(frame.assign(job=0))
    seats = stats.seat_advantage(long, "position").loc[3]
    test = stats.seat_test(long, "position").loc[3]
    assert row["first_share"] == pytest.approx(seats.loc[0, "win_share"])
    assert row["last_share_low"] == pytest.approx(seats.loc[2, "ci_low"])
    assert row["last_edge_high"] == pytest.approx(seats.loc[2, "ci_high"] - 1 / 3)
    assert row["spread"] == pytest.approx(seats["win_share"].max() - seats["win_share"].min())
    assert (row["chi2"], row["p_value"]) == pytest.approx((test["chi2"], test["p_value"]))
    gap = stats.seat_gap(long).loc[3]
    assert [row[f"last_minus_first{end}"] for end in ("", "_low", "_high")] == pytest.approx(
        [gap["gap"], gap["ci_low"], gap["ci_high"]]
    )

"""Ratings that have no finite estimate: when one agent never finishes behind another the
Plackett-Luce maximum likelihood estimate does not exist (the agents are not strongly
connected), the rating printed is held finite by the prior alone and grows with the number of
games, and a bootstrap of separated resamples gives it an interval of width about 0. The
ratings must say so (an infinite end, a warning, a note) rather than print a precise number;
strongly connected data must give the tables they gave before."""

import re

import numpy as np
import pandas as pd
import pytest

from experiments import commands, plots, ratings
from experiments.cli import main
from experiments.marks import UNBOUNDED, WARNINGS, flag_few, warning_notes
from tests.test_ratings_choix import finishing_orders


def ordered_games(orders, games: int) -> pd.DataFrame:
    """A long frame of ``games`` games, each seating the agents of ``orders[g % len]`` in that
    finishing order (best first, no ties), one deal per game."""
    rows = []
    for g in range(games):
        order = orders[g % len(orders)]
        for seat, agent in enumerate(order):
            rows.append(
                {
                    "job": 0,
                    "game_index": g,
                    "deal": g,
                    "n_players": len(order),
                    "seat": seat,
                    "agent": agent,
                    "score": float(seat),
                    "win": float(seat == 0),
                    "first": seat == 0,
                    "finish": -float(seat),
                }
            )
    return pd.DataFrame(rows)


def test_an_agent_that_always_beats_another_has_a_one_sided_interval_and_a_warning():
    """a beats b in every game: a's rating has no upper bound and b's no lower bound. The old
    table gave both a finite interval of width 0 that moved with the number of games; now
    those ends are +inf and -inf, the other ends finite, and the row is flagged with a note."""
    table = ratings.ratings(ordered_games([["a", "b"]], 40), n_boot=50)
    assert table.loc["a", "ci_high"] == np.inf and np.isfinite(table.loc["a", "ci_low"])
    assert table.loc["b", "ci_low"] == -np.inf and np.isfinite(table.loc["b", "ci_high"])
    assert np.isfinite(table["rating"]).all()  # the prior-regularised point, documented
    flagged = flag_few(table)
    assert (flagged["warning"] == UNBOUNDED).all()  # not "width 0": the width is infinite
    assert warning_notes(flagged) == [f"({UNBOUNDED}: {WARNINGS[UNBOUNDED]})"]


def test_one_agent_beating_everyone_is_the_only_one_unbounded_above():
    """a finishes first in every game, b and c beat each other: a alone has no upper bound.
    b and c are told apart (their difference is finite), but on the mean-0 scale both sink
    as a rises (-0.9, -1.7, -2.4 at 10, 100, 1000 games before this fix, with intervals that
    excluded each other), so their lower ends are -inf and their upper ends finite."""
    orders = [["a", "b", "c"], ["a", "c", "b"], ["a", "b", "c"]]
    table = ratings.ratings(ordered_games(orders, 60), n_boot=50)
    assert table.loc["a", "ci_high"] == np.inf and np.isfinite(table.loc["a", "ci_low"])
    assert np.isfinite(table.loc[["b", "c"], "ci_high"]).all()  # only a is unbounded above
    assert (table.loc[["b", "c"], "ci_low"] == -np.inf).all()
    assert table.loc["b", "rating"] > table.loc["c", "rating"]  # b beat c 2 games in 3
    above, below = _unbounded_of(ordered_games(orders, 60))
    assert above.tolist() == [True, False, False] and below.tolist() == [False, True, True]


def _unbounded_of(long):
    events = ratings.rating_events(long)
    columns = [c for c in events.columns if c.startswith(ratings.IN_PLAY)]
    names = np.asarray([c[len(ratings.IN_PLAY) :] for c in columns], dtype=object)
    pat = ratings._patterns(events, names, columns)
    return ratings.unbounded(pat.in_play, pat.chosen, pat.by_deal.T @ np.ones(len(pat.stratum)))


def test_a_chain_leaves_its_middle_unbounded_both_ways_and_a_cycle_none():
    """x > y > z in every game: y can rise with x or sink with z, so on the mean-0 scale it is
    unbounded on both sides, x above and z below; once z beats x (a cycle) the agents are
    strongly connected and nothing is. Two agents, one always ahead: one side each."""
    chain = ordered_games([["x", "y"], ["y", "z"], ["x", "z"]], 30)
    above, below = _unbounded_of(chain)
    assert above.tolist() == [True, True, False] and below.tolist() == [False, True, True]
    cycle = ordered_games([["x", "y"], ["y", "z"], ["z", "x"]], 30)
    assert not np.concatenate(_unbounded_of(cycle)).any()
    assert np.isfinite(ratings.ratings(cycle, n_boot=20)[["ci_low", "ci_high"]]).all().all()
    beaten = ordered_games([["x", "y"]], 30)
    assert [side.tolist() for side in _unbounded_of(beaten)] == [[True, False], [False, True]]


def test_strongly_connected_data_give_the_same_table_as_before():
    """The values main gave before this change (commit 1375724), to 1e-12: the detection
    touches no interval of connected data, and adds no warning."""
    long, _ = finishing_orders(1, 300)
    table = ratings.ratings(long, n_boot=200, seed=3)
    before = {
        "a": (0.8562980303634072, 0.683695269173624, 1.0289007915531905),
        "b": (0.6100861014237913, 0.4533755936465937, 0.7667966092009888),
        "d": (-0.2689712983574274, -0.4261295014859874, -0.11181309522886743),
        "c": (-0.31214222955033305, -0.47296019714805604, -0.15132426195261006),
        "e": (-0.885270603879438, -1.044754000295757, -0.7257872074631191),
    }
    assert list(table.index) == list(before)
    for agent, ends in before.items():
        assert table.loc[agent].to_numpy() == pytest.approx(ends, abs=1e-12)
    assert "warning" not in flag_few(table)


def test_rows_and_summed_chunks_give_the_same_unbounded_table():
    """The report fits events summed chunk by chunk (``deal_ratings``), the API the rows:
    separated data give the same table, infinite ends included."""
    long = ordered_games([["a", "b", "c"], ["a", "c", "b"]], 40)
    parts = [long[long.game_index < 15], long[long.game_index >= 15]]
    names = ["a", "b", "c"]
    events = ratings.add_rating_events([ratings.rating_events(p, names=names) for p in parts])
    summed = ratings.deal_ratings(events, n_boot=30, seed=4, scale="elo")
    pd.testing.assert_frame_equal(summed, ratings.ratings(long, n_boot=30, seed=4, scale="elo"))
    assert summed.loc["a", "ci_high"] == np.inf


def test_the_rating_chart_draws_an_infinite_end_as_an_arrow_to_a_finite_edge():
    """matplotlib drops an error bar with an infinite end without a word: the chart must
    draw it to the plot's edge with an arrowhead, and keep finite axis limits."""
    table = ratings.ratings(ordered_games([["a", "b"]], 20), n_boot=20)
    fig = plots.rating_chart_of(table)
    ax = fig.axes[0]
    low, high = ax.get_xlim()
    assert np.isfinite([low, high]).all()
    arrows = [line for line in ax.get_lines() if line.get_marker() in ("<", ">")]
    assert sorted(line.get_marker() for line in arrows) == ["<", ">"]
    right = next(line for line in arrows if line.get_marker() == ">")
    assert table.loc["a", "rating"] < right.get_xdata()[0] < high
    plots.plt.close(fig)


def test_the_findings_sentence_names_the_agents_without_a_finite_rating():
    """The demo's sentence quotes the top rating with its interval: "+inf" alone would not
    say why, so the agents without a finite rating are named (and none for connected data)."""
    table = ratings.ratings(ordered_games([["a", "b", "c"], ["a", "c", "b"]], 20), n_boot=20)
    words = commands._unbounded_words(table)
    assert "no finite rating for a, b and c" in words
    connected = ratings.ratings(ordered_games([["a", "b"], ["b", "a"]], 20), n_boot=20)
    assert commands._unbounded_words(connected) == ""


def test_agents_with_alike_data_are_ordered_by_name_not_by_rounding_noise():
    """b and c finish alike (each behind a, each ahead of the other as often): their ratings
    are equal but for the last bits, which depend on the order the agents came in and on the
    numerical library. The table orders them by name, whatever that order."""
    tables = [
        ratings.ratings(ordered_games(orders, 20), n_boot=20)
        for orders in ([["a", "b", "c"], ["a", "c", "b"]], [["a", "c", "b"], ["a", "b", "c"]])
    ]
    for table in tables:
        assert list(table.index) == ["a", "b", "c"]
        assert table.loc["b", "rating"] == pytest.approx(table.loc["c", "rating"], abs=1e-12)
    by_name = ratings.by_rating(pd.DataFrame({"rating": [1.0, 2.0, 1.0]}, index=["z", "y", "x"]))
    assert list(by_name.index) == ["y", "x", "z"]


def test_the_report_of_a_round_robin_sniper_always_wins_says_its_rating_is_unbounded(
    tmp_path, capsys
):
    """The review's case: sniper beats greedy in every game. The report printed
    2.74 [2.74, 2.74] at 10 games a seating and 4.39 [4.3855, 4.3865] at 300; now the ends are
    inf, the rows say "unbounded" and the note is printed under the table and in summary.md."""
    out = tmp_path / "sep"
    run = ["tournament", "geschenkt", "--agents", "greedy,sniper", "--players", "3"]
    run += ["--games", "10", "--rule", "rounds=3", "--backend", "serial", "--quiet"]
    assert main([*run, "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["report", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    block = printed[printed.index("== ratings") :]
    table = block.split("\n\n")[0]
    assert "inf" in table and "-inf" in table
    rows = [line for line in table.splitlines() if line.startswith(("sniper", "greedy"))]
    assert len(rows) == 2 and all(UNBOUNDED in line for line in rows)
    assert "width 0" not in table  # the infinite side is no interval of width 0
    assert f"({UNBOUNDED}: {WARNINGS[UNBOUNDED]})" in table
    markdown = (out / "summary.md").read_text()
    assert f"({UNBOUNDED}: {WARNINGS[UNBOUNDED]})" in markdown
    assert re.search(r"\|\s+inf\s+\|", markdown) and re.search(r"\|\s+-inf\s+\|", markdown)

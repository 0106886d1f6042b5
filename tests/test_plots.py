"""experiments.plots: each figure draws what its *_data function computes, one mark per item,
and saves to a PNG."""

import os

os.environ["MPLBACKEND"] = "Agg"  # before pyplot is imported anywhere: no window, no display

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from experiments import plots, stats
from tests.test_stats import make_long

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def long():
    """Four agents at 4-player tables and two at 3-player tables, some ties."""
    return pd.concat(
        [
            make_long(1, 600, 4, agents=("a", "b", "c", "d"), strength=[2, 1, 1, 1], tie=0.1),
            make_long(2, 600, 3, agents=("a", "b"), seat_weight=[1.5, 1, 1], job=1),
        ]
    )


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def saved(fig, path) -> bytes:
    fig.savefig(path, dpi=50)
    return path.read_bytes()


def titles(fig) -> str:
    return fig.get_suptitle() + " ".join(ax.get_title() for ax in fig.axes)


def test_seat_win_share(long, tmp_path):
    data = plots.seat_win_share_data(long)
    assert len(data) == 4 + 3 and {"win_share", "ci_low", "ci_high", "fair"} <= set(data.columns)
    fig = plots.seat_win_share(long, subject="the run")
    ax = fig.axes[0]
    assert isinstance(fig, Figure)
    labels = ax.get_legend_handles_labels()[1]
    assert sorted(labels) == ["3 players", "4 players", "fair share 1/3", "fair share 1/4"]
    dashed = [c for c in ax.collections if c.get_linestyle()[0][1] is not None]
    fair = sorted({round(seg[0][1], 6) for c in dashed for seg in c.get_segments()})
    assert fair == pytest.approx([0.25, 1 / 3])
    points = sorted(y for line in ax.lines if line.get_marker() == "o" for y in line.get_ydata())
    assert points == pytest.approx(sorted(data["win_share"]))
    assert "95% intervals by deal" in ax.get_title() and ax.get_title().endswith("\nthe run")
    assert saved(fig, tmp_path / "seats.png").startswith(PNG)


def test_win_rate_heatmap(long, tmp_path):
    data = plots.win_rate_heatmap_data(long)
    share = data["share"]
    assert share.shape == (4, 4) and (data["games"].to_numpy() >= 0).all()
    assert share.equals(stats.pairwise(long).rename_axis(index="agent", columns="opponent"))
    fig = plots.win_rate_heatmap(long)
    ax = fig.axes[0]
    assert len(ax.images) == 1 and len(fig.axes) == 2  # heatmap and colour bar
    assert share.notna().sum().sum() == 12
    texts = {t.get_position(): t.get_text() for t in ax.texts}
    assert [texts[(i, i)] for i in range(4)] == ["itself"] * 4  # not blank white, 1/2's colour
    assert tuple(ax.images[0].cmap.get_bad()[:3]) != (1.0, 1.0, 1.0)
    assert [t.get_text() for t in ax.get_yticklabels()] == list("abcd")
    first = next(t.get_text() for t in ax.texts if t.get_position() == (1, 0))
    assert first.startswith(f"{share.loc['a', 'b']:.2f}")
    title = ax.get_title()
    assert "row agent finishes ahead of the column agent (a tie counts 1/2)" in title
    assert "95% interval by deal" in title and "games per pair" in title
    assert saved(fig, tmp_path / "heatmap.png").startswith(PNG)
    bar = fig.axes[1]  # its label no higher than the bar: it cannot run into the titles
    label = bar.yaxis.label.get_window_extent()
    assert label.height <= bar.get_window_extent().height


def test_a_tiny_interval_never_reads_plus_minus_zero():
    index = pd.MultiIndex.from_tuples([("a", "b"), ("b", "a")], names=["agent", "opponent"])
    table = pd.DataFrame(
        {"games": [10**6] * 2, "share": [0.7371, 0.2629], "ci_low": [0.7367, 0.2625]},
        index=index,
    ).assign(ci_high=lambda t: t["ci_low"] + 0.0008)
    texts = [t.get_text() for t in plots.win_rate_heatmap_of(table).axes[0].texts]
    assert [t for t in texts if t != "itself"] == ["0.737\n±0.0004", "0.263\n±0.0004"]


@pytest.mark.parametrize(
    ("half", "digits", "text"),
    [
        (0.0123, 2, "±0.01"),
        (0.004, 2, "±0.004"),
        (0.0004, 3, "±0.0004"),
        (0.4, 0, "±0.4"),
        (1.5, 0, "±2"),
        (0.0, 2, "±0"),
    ],
)
def test_plus_minus_keeps_one_significant_digit(half, digits, text):
    assert plots.plus_minus(half, digits) == text


def test_rating_chart(long, tmp_path):
    data = plots.rating_chart_data(long, n_boot=20, seed=0)
    assert list(data["rating"]) == sorted(data["rating"]) and data.index[-1] == "a"
    fig = plots.rating_chart(long, n_boot=20, seed=0)
    ax = fig.axes[0]
    assert len(ax.patches) == 4
    widths = [bar.get_width() for bar in ax.patches]
    assert widths == pytest.approx(list(data["rating"]))
    assert [t.get_text() for t in ax.get_yticklabels()] == list(data.index)
    assert "from the winners only" in ax.get_title()
    assert ax.get_legend_handles_labels()[1] == ["0: the mean of these agents"]
    scored = plots.rating_chart(long, n_boot=5, order="score").axes[0].get_title()
    assert "from the order of score" in scored  # another column of the table: no KeyError
    ranked = long.assign(finish=long["win"])
    assert "whole finishing order" in plots.rating_chart(ranked, n_boot=5).axes[0].get_title()
    elo = plots.rating_chart(long, n_boot=20, seed=0, scale="elo")
    assert "Elo" in elo.axes[0].get_xlabel()
    assert saved(fig, tmp_path / "ratings.png").startswith(PNG)


@pytest.mark.parametrize(
    ("scores", "counts", "expected"),
    [  # q1, median, q3, mean, whisker low, whisker high
        ([1, 2, 3, 4], [1, 1, 1, 1], (1, 2, 3, 2.5, 1, 4)),
        ([10, 20, 30, 100], [2, 5, 2, 1], (20, 20, 30, 28, 10, 30)),
        ([0, 5, 6, 7, 40], [1, 3, 3, 3, 1], (5, 6, 7, 94 / 11, 5, 7)),
    ],
)
def test_box_stats_of_counted_scores(scores, counts, expected):
    box = plots.box_stats(np.array(scores), np.array(counts), "x")
    got = tuple(box[k] for k in ("q1", "med", "q3", "mean", "whislo", "whishi"))
    assert got == pytest.approx(expected) and box["fliers"] == []


def test_score_distributions_of_a_mixed_design(long, tmp_path):
    fig = plots.score_distributions(long, "geschenkt", subject="the run")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in panels] == ["3 players", "4 players"]
    assert [t.get_text() for t in panels[1].get_xticklabels()] == list("abcd")
    assert panels[0].get_ylabel() == "score in points (lowest wins)"
    medians = [line for line in panels[1].lines if line.get_color() in ("C1", "#ff7f0e")]
    four = long[long["n_players"] == 4]
    expected = [
        np.quantile(four.score[four.agent == a], 0.5, method="inverted_cdf") for a in "abcd"
    ]
    assert [m.get_ydata()[0] for m in medians] == pytest.approx(expected)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend[0] == "box: middle half of the scores" and "triangle: mean" in legend
    assert fig.get_suptitle().endswith("\nthe run") and "lowest wins" in fig.get_suptitle()
    assert saved(fig, tmp_path / "scores.png").startswith(PNG)


def test_score_distributions_of_a_mirror_study_never_compare_tables():
    mirror = pd.concat(
        [
            make_long(3, 300, 3, agents=("a",)),
            make_long(4, 300, 3, agents=("b",), job=1),
            make_long(5, 300, 4, agents=("b",), job=2),
        ]
    )
    fig = plots.score_distributions(mirror, "tulips")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    titles = [ax.get_title() for ax in panels]
    assert titles == [
        "all-a tables, 3 players",
        "all-b tables, 3 players",
        "all-b tables, 4 players",
    ]
    assert [t.get_text() for t in panels[2].get_xticklabels()] == ["0", "1", "2", "3"]
    assert panels[0].get_ylabel() == "score in points (highest wins)"


@pytest.mark.parametrize(
    "draw",
    [
        plots.seat_win_share,
        plots.win_rate_heatmap,
        lambda long: plots.rating_chart(long, n_boot=20),
        lambda long: plots.score_distributions(long, "geschenkt"),
    ],
)
def test_a_figure_of_rows_without_a_subject_names_its_agents_and_games(long, draw):
    """Drawn from a long table with no ``subject``, a figure still says what it shows: the
    agents, the player counts and the games (it named neither before)."""
    drawn = draw(long)
    fig = drawn if isinstance(drawn, Figure) else drawn[0] if isinstance(drawn, tuple) else None
    fig = fig if fig is not None else plt.gcf()
    said = " ".join(titles(fig).split())
    assert "a, b, c, d, 3, 4 players, 1,200 games" in said, said


def test_one_panel_of_scores_is_wide_enough_for_its_titles(long):
    """A report of one player count drew its score panel 3.7 inches wide, cutting its title
    and legend at both sides."""
    fig = plots.score_distributions(long[long["n_players"] == 3], "geschenkt")
    assert fig.get_figwidth() >= 6.4


def test_subject_names_every_agent_and_a_fields_candidate():
    assert plots.subject("geschenkt", "round-robin", ["b", "a", "a"], [4], 1200) == (
        "No Thanks!, round-robin of a, b, 4 players, 1,200 games"
    )
    line = plots.subject("tulips", "mirror", list("edcba"), [2, 3, 4], 10, "5 per seating")
    assert line == (
        "Gift of Tulips, one-agent tables of a, b, c, d, e, 2-4 players, 10 games (5 per seating)"
    )
    many = [f"agent_number_{i}" for i in range(12)]
    lines = plots.subject("geschenkt", "round-robin", many, [5], 10).splitlines()
    assert len(lines) > 1 and max(map(len, lines)) <= plots.SUBJECT_WIDTH
    assert len(lines[-1]) >= len(lines[0]) // 2  # even lines, not a long one and a stub
    assert all(name in " ".join(lines) for name in many)
    field = plots.subject("geschenkt", "field", ["greedy", "sniper"], [4], 8, candidate="sniper")
    assert field == "No Thanks!, sniper in a field of greedy, 4 players, 8 games"
    assert plots.counted([2, 4, 6]) == "2, 4, 6 players"


def test_plots_draw_into_a_given_axes(long):
    fig, axes = plt.subplots(2, 2)
    drawers = (plots.seat_win_share, plots.win_rate_heatmap)
    for ax, draw in zip(axes.flat, drawers, strict=False):
        assert draw(long, ax=ax) is fig
    assert plots.score_distributions(long, "geschenkt", axes=axes[1, :1]) is fig
    assert plots.rating_chart(long, ax=axes[1, 1], n_boot=5) is fig
    assert all(ax.has_data() for ax in axes.flat)


def test_exact_study_intervals_stay_in_their_ranges():
    """A first player that won 98% with a wide error, and a best response that gained 0.99:
    the intervals end at the largest advantage (1 - 1/n) and the largest gain (1)."""
    study = pd.DataFrame({"players": [3, 3], "advantage": [0.98 - 1 / 3, 0.0], "se": [0.02, 0.0]})
    data = plots.first_player_exact_data(study)
    assert data.ci_high.iloc[0] == pytest.approx(2 / 3) and data.ci_low.iloc[0] < 0.64
    assert data.ci_low.iloc[1] == data.ci_high.iloc[1] == 0  # exact: no error
    exploit = pd.DataFrame(
        {"variant": "v", "agent": ["a", "a"], "seat": [0, 1], "gain": [0.99, 0.5], "gain_se": 0.1}
    )
    bars = plots.exploitability_bars_data(exploit)
    assert len(bars) == 1 and bars.ci_high.iloc[0] == 1 and bars.ci_low.iloc[0] < 0.8


def test_a_learning_curve_shows_each_bin_s_interval_and_size(tmp_path):
    from experiments import learning

    _, curve = learning.train_reinforce("geschenkt", "random", 400, n_players=3, n_envs=32, bins=8)
    frame = curve.frame()
    assert (frame["games"] == 50).all() and len(frame) == 8
    assert (frame["ci_low"] >= 0).all() and (frame["ci_high"] <= 1).all()
    assert (frame["ci_low"] <= frame["reward"]).all() and (
        frame["reward"] <= frame["ci_high"]
    ).all()
    assert (frame["ci_high"] - frame["ci_low"] > 0.05).all()  # 50 games: no narrow interval
    fig = plots.learning_curve({"vs random": curve}, "title", fair=1 / 3)
    ax = fig.axes[0]
    assert len(ax.collections) == 1  # the shaded interval
    assert "50 games a point" in ax.get_ylabel() and "95% interval" in ax.get_ylabel()
    assert saved(fig, tmp_path / "learning.png").startswith(PNG)


def test_the_exploitability_figure_says_how_many_queries_an_estimate_rests_on():
    exploit = pd.DataFrame(
        {
            "variant": "v",
            "agent": ["det", "det", "rand", "rand"],
            "seat": [0, 1, 0, 1],
            "gain": [0.3, 0.2, 0.4, 0.1],
            "gain_se": [0.0, 0.0, 0.02, 0.02],
            "gain_low": [0.3, 0.2, 0.38, 0.09],
            "queries": [1, 1, 32, 32],
        }
    )
    title = plots.exploitability_bars(exploit).axes[0].get_title()
    assert "estimated from 32 queries a decision, with 95% intervals" in title
    deterministic = exploit[exploit.agent == "det"]
    title = plots.exploitability_bars(deterministic).axes[0].get_title()
    assert "estimated, with 95% intervals" in title and "queries" not in title

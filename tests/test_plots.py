"""experiments.plots: each figure draws what its *_data function computes, one mark per item,
and saves to a PNG."""

import os

os.environ["MPLBACKEND"] = "Agg"  # before pyplot is imported anywhere: no window, no display

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from experiments import plots
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


def test_seat_win_share(long, tmp_path):
    data = plots.seat_win_share_data(long)
    assert len(data) == 4 + 3 and {"win_share", "ci_low", "ci_high", "fair"} <= set(data.columns)
    fig = plots.seat_win_share(long)
    ax = fig.axes[0]
    assert isinstance(fig, Figure)
    assert ax.get_legend_handles_labels()[1] == ["3 players", "4 players"]
    dashed = [c for c in ax.collections if c.get_linestyle()[0][1] is not None]
    fair = sorted({round(seg[0][1], 6) for c in dashed for seg in c.get_segments()})
    assert fair == pytest.approx([0.25, 1 / 3])
    points = sorted(y for line in ax.lines if line.get_marker() == "o" for y in line.get_ydata())
    assert points == pytest.approx(sorted(data["win_share"]))
    assert saved(fig, tmp_path / "seats.png").startswith(PNG)


def test_win_rate_heatmap(long, tmp_path):
    data = plots.win_rate_heatmap_data(long)
    share = data["share"]
    assert share.shape == (4, 4) and (data["games"].to_numpy() >= 0).all()
    fig = plots.win_rate_heatmap(long)
    ax = fig.axes[0]
    assert len(ax.images) == 1 and len(fig.axes) == 2  # heatmap and colour bar
    assert len(ax.texts) == share.notna().sum().sum() == 12
    assert [t.get_text() for t in ax.get_yticklabels()] == list("abcd")
    first = next(t.get_text() for t in ax.texts if t.get_position() == (1, 0))
    assert first.startswith(f"{share.loc['a', 'b']:.2f}")
    assert saved(fig, tmp_path / "heatmap.png").startswith(PNG)


def test_rating_chart(long, tmp_path):
    data = plots.rating_chart_data(long, n_boot=20, seed=0)
    assert list(data["rating"]) == sorted(data["rating"]) and data.index[-1] == "a"
    fig = plots.rating_chart(long, n_boot=20, seed=0)
    ax = fig.axes[0]
    assert len(ax.patches) == 4
    widths = [bar.get_width() for bar in ax.patches]
    assert widths == pytest.approx(list(data["rating"]))
    assert [t.get_text() for t in ax.get_yticklabels()] == list(data.index)
    elo = plots.rating_chart(long, n_boot=20, seed=0, scale="elo")
    assert "Elo" in elo.axes[0].get_xlabel()
    assert saved(fig, tmp_path / "ratings.png").startswith(PNG)


def test_score_distributions(long, tmp_path):
    data = plots.score_distributions_data(long)
    assert list(data) == list("abcd") and sum(map(len, data.values())) == len(long)
    fig = plots.score_distributions(long)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == list("abcd")
    medians = [line for line in ax.lines if line.get_color() in ("C1", "#ff7f0e")]
    assert len(medians) == 4
    heights = sorted(np.mean(m.get_ydata()) for m in medians)
    assert heights == pytest.approx(sorted(np.median(v) for v in data.values()))
    assert saved(fig, tmp_path / "scores.png").startswith(PNG)


def test_plots_draw_into_a_given_axes(long):
    fig, axes = plt.subplots(2, 2)
    drawers = (plots.seat_win_share, plots.win_rate_heatmap, plots.score_distributions)
    for ax, draw in zip(axes.flat, drawers, strict=False):
        assert draw(long, ax=ax) is fig
    assert plots.rating_chart(long, ax=axes[1, 1], n_boot=5) is fig
    assert all(ax.has_data() for ax in axes.flat)

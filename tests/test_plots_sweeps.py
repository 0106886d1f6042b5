"""experiments.plots for rules sweeps and anatomy: each figure draws what its data function
computes and saves to a PNG."""

import os

os.environ["MPLBACKEND"] = "Agg"  # before pyplot is imported anywhere: no window, no display

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from experiments import plots

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def saved(fig, path) -> bytes:
    fig.savefig(path, dpi=50)
    return path.read_bytes()


@pytest.fixture
def sweep():
    """A 2 x 3 grid in an order that is not sorted, with intervals for ``edge``."""
    rows = [
        {"removed": r, "chips": c, "edge": 0.01 * r - 0.001 * c, "length": r + c}
        for r in (9, 0)
        for c in (11, 3, 7)
    ]
    table = pd.DataFrame(rows)
    return table.assign(edge_low=table["edge"] - 0.02, edge_high=table["edge"] + 0.02)


def test_sweep_heatmap(sweep, tmp_path):
    data = plots.sweep_heatmap_data(sweep, "edge", "removed", "chips")
    grid, half = data["value"], data["half"]
    assert list(grid.index) == ["9", "0"] and list(grid.columns) == ["11", "3", "7"]
    assert grid.loc["0", "3"] == pytest.approx(-0.003)
    assert np.allclose(half.to_numpy(), 0.02)
    assert plots.sweep_heatmap_data(sweep, "length", "removed", "chips")["half"] is None
    fig = plots.sweep_heatmap(sweep, "edge", "removed", "chips", center=0)
    ax = fig.axes[0]
    assert isinstance(fig, Figure)
    assert np.allclose(ax.images[0].get_array(), grid.to_numpy())
    low, high = ax.images[0].get_clim()
    assert low == pytest.approx(-high)  # diverging around the centre
    assert [t.get_text() for t in ax.texts][:2] == ["0.079\n±0.020", "0.087\n±0.020"]
    assert saved(fig, tmp_path / "sweep.png").startswith(PNG)


@pytest.fixture
def prices():
    rng = np.random.default_rng(0)
    cards = np.repeat(np.arange(3, 9), 50)
    return pd.DataFrame(
        {
            "card": cards,
            "price": rng.integers(0, cards),
            "win": rng.choice([0.0, 0.5, 1.0], len(cards)),
            "game_index": np.tile(np.arange(50), 6),  # each card taken once in each game
        }
    )


def test_card_prices(prices, tmp_path):
    data = plots.card_prices_data(prices, max_price=4)
    assert data["hist"].shape == (5, 6) and np.allclose(data["hist"].sum(), 1)
    fig = plots.card_prices(prices, max_price=4)
    ax = fig.axes[0]
    line = next(line for line in ax.lines if line.get_marker() == ".")
    assert np.allclose(line.get_ydata(), data["table"]["price"])
    assert np.allclose(ax.images[0].get_array(), data["hist"].to_numpy())
    assert saved(fig, tmp_path / "prices.png").startswith(PNG)


def test_card_winner_share(prices, tmp_path):
    fig = plots.card_winner_share(prices)
    ax = fig.axes[0]
    heights = [bar.get_height() for bar in ax.patches]
    expected = prices.assign(w=prices["win"] > 0).groupby("card")["w"].mean()
    assert heights == pytest.approx(expected.tolist())
    assert ax.lines[-1].get_ydata()[0] == pytest.approx((prices["win"] > 0).mean())
    assert saved(fig, tmp_path / "winner.png").startswith(PNG)


def test_point_sources(tmp_path):
    long = pd.DataFrame(
        {
            "agent": ["a", "a", "b", "b"],
            "n_players": [2, 2, 2, 3],
            "job": [0, 0, 0, 1],
            "game_index": [0, 1, 0, 0],
            "give": [10, 20, 5, 1],
            "keep": [2, 4, 0, 1],
            "majority": [0, 15, 10, 1],
            "win": [0.0, 1.0, 0.5, 0.5],
        }
    )
    long["score"] = long[["give", "keep", "majority"]].sum(axis=1)
    data = plots.point_sources_data(long)
    assert len(data) == 3
    fig = plots.point_sources(long)
    ax = fig.axes[0]
    bars = ax.patches
    assert len(bars) == 3 * 3
    tops = [bar.get_y() + bar.get_height() for bar in bars[-3:]]  # the majority layer
    assert tops == pytest.approx(data["score"].tolist())
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a 2", "b 2", "b 3"]
    assert saved(fig, tmp_path / "points.png").startswith(PNG)


def test_sweep_heatmap_text_stays_readable(sweep):
    fig = plots.sweep_heatmap(sweep, "length", "removed", "chips")  # viridis: low is dark
    colours = {t.get_text(): t.get_color() for t in fig.axes[0].texts}
    assert colours["3.000"] == "white" and colours["20.000"] == "black"


def test_sweep_panels_title_the_run_and_draw_other_tables(sweep):
    table = sweep.assign(games=300, n_players=4)
    line = plots.sweep_subject(table, "geschenkt", "sniper in every seat")
    assert line == (
        "No Thanks!, 4 players, sniper in every seat: 300 games per cell, 1,800 in all; "
        "± half width of the 95% interval"
    )
    other = table.assign(edge=-table["edge"])
    panels = [("edge", {"center": 0}), ("edge", {"table": other, "title": "the other"})]
    fig = plots.sweep_panels(table, panels, "removed", "chips", line, ncols=2)
    assert fig.get_suptitle() == line and fig.axes[1].get_title() == "the other"
    first = [t.get_text() for t in fig.axes[0].texts]
    second = [t.get_text() for t in fig.axes[1].texts]  # colour bars come after the panels
    assert first[0].split("\n")[0] == f"{-float(second[0].split(chr(10))[0]):.3f}"


def test_sweep_heatmap_never_prints_plus_minus_zero(sweep):
    tight = sweep.assign(edge_low=sweep["edge"] - 0.0002, edge_high=sweep["edge"] + 0.0002)
    fig = plots.sweep_heatmap(tight, "edge", "removed", "chips", digits=3)
    assert all(t.get_text().endswith("±0.0002") for t in fig.axes[0].texts)


def test_price_panels_name_each_agent_and_its_games(prices, tmp_path):
    prices = prices.assign(game_index=np.arange(len(prices)) // 6)
    fig = plots.price_panels({"sniper": prices, "greedy": prices}, "geschenkt")
    games = f"({prices['game_index'].nunique():,} games)"
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    assert titles[0] == f"Four sniper players: price of each card {games}"
    assert any(t.startswith("Four greedy players: cards in the winner's hand") for t in titles)
    assert fig.get_suptitle().startswith("No Thanks!, 4 players, one agent in every seat")
    assert saved(fig, tmp_path / "prices.png").startswith(PNG)

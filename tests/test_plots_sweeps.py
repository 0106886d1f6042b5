"""experiments.plots for rules sweeps and anatomy: each figure draws what its data function
computes and saves to a PNG."""

import os

os.environ["MPLBACKEND"] = "Agg"  # before pyplot is imported anywhere: no window, no display

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import LogNorm
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
    assert ax.get_xlabel() == "agent, n_players"  # what the bars' names are
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


def _grid(rows: int, columns: int, share: float = 0.25) -> pd.DataFrame:
    """A ``rows`` x ``columns`` sweep of win shares about ``share``, half widths 0.003."""
    rng = np.random.default_rng(7)
    value = np.clip(share + rng.normal(0, 0.1, (rows, columns)), 0.001, 0.999)
    table = pd.DataFrame(
        [
            {"removed": r, "chips": c, "win_share": value[r, c], "games": 100}
            for r in range(rows)
            for c in range(columns)
        ]
    )
    return table.assign(
        win_share_low=table["win_share"] - 0.003, win_share_high=table["win_share"] + 0.003
    )


@pytest.mark.parametrize("shape", [(9, 10), (4, 4), (2, 3)])
@pytest.mark.parametrize("panels", [False, True])
def test_sweep_heatmap_text_fits_its_cell_and_is_legible(shape, panels):
    """Each cell's two lines (value, ± half width) lie inside their cell, alone or in the
    notebooks' two-panel figures (their laid-out size), and are at least 7 points high there
    on the notebooks' largest grid (9 x 10); larger cells get larger text."""
    table = _grid(*shape)
    if panels:
        both = [("win_share", {"center": 0.25})] * 2
        fig = plots.sweep_panels(table, both, "removed", "chips", "subject", ncols=2)
    else:
        fig = plots.sweep_heatmap(table, "win_share", "removed", "chips", center=0.25)
    ax = fig.axes[0]
    fig.canvas.draw()
    to_data = ax.transData.inverted()
    for text in ax.texts:
        (left, bottom), (right, top) = to_data.transform(text.get_window_extent())
        x, _ = text.get_position()
        assert abs(right - left) < 1 and abs(top - bottom) < 1, text.get_text()
        assert x - 0.5 <= min(left, right) and max(left, right) <= x + 0.5
        assert text.get_fontsize() >= (7 if panels else 6)
    if shape == (2, 3):
        assert ax.texts[0].get_fontsize() == 10


def test_share_panels_share_one_colour_scale_inside_zero_to_one():
    """Panels of one value about one centre colour a number alike, and a share's colour
    bar stops at 0 (a symmetric scale about 1/4 reached below it)."""
    strong, weak = _grid(3, 3, 0.55), _grid(3, 3, 0.05)
    panels = [("win_share", {"center": 0.25}), ("win_share", {"table": weak, "center": 0.25})]
    fig = plots.sweep_panels(strong, panels, "removed", "chips", "subject", ncols=2)
    first, second = (ax.images[0].get_clim() for ax in fig.axes[:2])
    assert first == second and first[0] < 0 < first[1]  # the reach is below 0 here
    bars = [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]
    assert len(bars) == 2 and all(bar.get_ylim()[0] == 0.0 for bar in bars)


def test_sweep_heatmap_log_scale_and_no_negative_zero(sweep):
    chi = sweep.assign(chi2=10.0 ** np.arange(len(sweep)), edge=-0.0001)
    fig = plots.sweep_heatmap(chi, "chi2", "removed", "chips", digits=0, log=True)
    assert isinstance(fig.axes[0].images[0].norm, LogNorm)
    fig = plots.sweep_heatmap(chi, "edge", "removed", "chips", center=0, digits=3)
    assert [t.get_text().split("\n")[0] for t in fig.axes[-2].texts] == ["0.000"] * len(sweep)

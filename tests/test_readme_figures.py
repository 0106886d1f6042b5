"""docs/figures.py draws the README's figures with readable labels and titles that say what was
simulated (game, agents, games), at the smallest sizes the notebooks allow."""

import importlib.util
import os
from pathlib import Path

os.environ["MPLBACKEND"] = "Agg"  # before pyplot is imported anywhere: no window, no display

import matplotlib.pyplot as plt
import pytest

from experiments import plots

SCRIPT = Path(__file__).resolve().parents[1] / "docs" / "figures.py"


@pytest.fixture(scope="module")
def figures():
    spec = importlib.util.spec_from_file_location("readme_figures", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def texts(fig) -> list[str]:
    """Every title and axis label of ``fig``, colour bars included."""
    found = [fig.get_suptitle()]
    for ax in fig.axes:
        found += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
    return [text for text in found if text]


def assert_readable(fig, *words):
    labels = texts(fig)
    raw = [text for text in labels if "_" in text]
    assert not raw, f"raw column names in {raw}"
    title = fig.get_suptitle() + " ".join(ax.get_title() for ax in fig.axes)
    for word in words:
        assert word in title


def test_balance_figure_is_labelled(figures):
    grid = figures.balance_grid(0)
    assert set(grid["games"]) == {300} and len(grid) == 90
    fig = figures.nt_balance_figure(grid)
    assert_readable(fig, "No Thanks!", "sniper", "300 games per cell", "27,000 in all")
    assert "cards removed" in texts(fig) and "chips per player" in texts(fig)
    best = grid.loc[grid["first_edge"].idxmax()]
    assert f"at {best.chips_per_player} chips, {best.n_removed} removed" in (
        figures.nt_balance_facts(grid)
    )
    plt.close(fig)


def test_tulips_seat_figure_is_labelled(figures):
    sums = figures.seat_sums(0.001, ismcts_games=2)
    fig = figures.tulips_seats_figure(sums)
    counts = "greedy 200; hoarder 200; ismcts:iters=200 2; random 200"
    assert_readable(fig, "Gift of Tulips", counts, "2-6 players")
    assert "turn position (0 = first player)" in texts(fig)
    assert figures.tulips_seats_facts(sums).startswith("4 hoarders: last ")
    plt.close(fig)


def test_card_price_figure_is_labelled(figures, tmp_path):
    prices = figures.price_tables(0)
    fig = figures.nt_card_prices_figure(prices)
    assert_readable(fig, "No Thanks!", "Four sniper players", "Four greedy players", "(500 games)")
    assert figures.nt_card_prices_facts(prices).startswith("4 snipers, card 35")
    fig.savefig(tmp_path / "prices.png", dpi=30)
    plt.close(fig)


def test_script_names_a_bad_figure_in_one_line(figures, capsys):
    with pytest.raises(SystemExit) as stop:
        figures.main(["nt_prices", "--out", "unused"])
    assert stop.value.code == 2
    assert "unknown figure 'nt_prices'; choose from nt_balance" in capsys.readouterr().err


def test_labels_replace_column_names():
    assert plots.label("chips_per_player") == "chips per player"
    assert plots.label("position") == "turn position (0 = first player)"
    assert plots.label("some_column") == "some column"

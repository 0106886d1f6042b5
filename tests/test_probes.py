"""What a learned network values (``experiments.probes``), and the figures of training runs
and probes: the probe's NumPy network agrees with the compiled one, a chip and a majority lead
are worth something at the end of a game, the figures draw one mark per row."""

import os

os.environ["MPLBACKEND"] = "Agg"

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from agents.kernels import net
from agents.roster import roster
from experiments import plots, probes


def test_the_probes_numpy_network_is_the_compiled_one():
    path = roster("geschenkt").shipped(3)
    weights, _ = net.read(path)
    x, _ = probes.positions("geschenkt", 3, "learned", 5, seed=4)
    flat = net.load(path, "geschenkt", 3, x.shape[1])
    compiled = [net.share(flat, row.astype(np.float32)) for row in x]
    assert np.allclose(probes.shares(weights, x), compiled, atol=1e-4)


def test_a_chip_is_worth_something_and_so_is_a_majority_lead_at_the_end():
    chips = probes.value_probe("geschenkt", "chip", roster("geschenkt").shipped(3), 3, 30, seed=5)
    assert set(chips.columns) >= {"cards_left", "change", "ci_low", "ci_high", "games"}
    assert (chips["change"] > 0).all()  # more chips never hurt: lower score
    leads = probes.value_probe("tulips", "majority", roster("tulips").shipped(2), 2, 30, seed=5)
    assert leads.loc[leads["cards_left"].idxmin(), "change"] > 0


def test_the_training_curve_and_probe_figures_draw_a_mark_per_row():
    curve = pd.DataFrame(
        {
            "round": [0, 1, 2],
            "win_share": [0.4, 0.5, 0.45],
            "ci_low": [0.35, 0.45, 0.4],
            "ci_high": [0.45, 0.55, 0.5],
        }
    )
    ax = Figure().subplots()
    plots.training_curve(curve, "No Thanks!, 3 players: learned against 2 x tuned3p", 1 / 3, ax)
    line = ax.get_lines()[0]
    assert list(line.get_ydata()) == [0.4, 0.5, 0.45]
    assert "learned" in ax.get_title()
    table = pd.DataFrame(
        {
            "cards_left": [0, 8],
            "change": [0.05, 0.01],
            "ci_low": [0.04, 0.0],
            "ci_high": [0.06, 0.02],
        }
    )
    ax = Figure().subplots()
    plots.value_probe({"4 players": table}, "cards_left", "Tulips: 5 majority points", "change", ax)
    assert list(ax.get_lines()[0].get_ydata()) == [0.05, 0.01]
    assert ax.get_legend().get_texts()[0].get_text() == "4 players"


def test_a_single_round_curve_shows_its_edge_at_its_size():
    """One round's interval alone set the axis (0.249 to 0.273): a lead of a hundredth filled
    the figure. The axis spans a tenth of a win share at least, the data and fair line in it."""
    curve = pd.DataFrame(
        {"round": [0], "win_share": [0.261], "ci_low": [0.2486], "ci_high": [0.273]}
    )
    ax = Figure().subplots()
    plots.training_curve(curve, "Gift of Tulips, 4 players: learned against 3 x tuned4p", 0.25, ax)
    low, high = ax.get_ylim()
    assert high - low >= plots.CURVE_SPAN - 1e-12
    assert 0 <= low <= 0.2486 and high >= 0.273

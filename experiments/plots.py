"""Figures of the statistics in ``experiments.stats``.

Each ``name(long, ..., ax=None)`` draws what ``name_data(long, ...)`` returns and gives back the
Figure; with ``ax=None`` it makes a new one. Plots only draw: every number comes from ``stats``.
No backend is forced here; scripts and tests choose one (e.g. ``MPLBACKEND=Agg``).
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments import stats

SEAT_SPREAD = 0.25  # total horizontal spread of the player-count groups around each seat


def _axes(ax):
    if ax is None:
        _, ax = plt.subplots()
    return ax.figure, ax


def _yerr(table: pd.DataFrame, value: str) -> np.ndarray:
    """Asymmetric error bars (below, above) from ``ci_low`` / ``ci_high``."""
    return np.vstack([table[value] - table["ci_low"], table["ci_high"] - table[value]])


# ---- seat advantage -----------------------------------------------------------------------


def seat_win_share_data(long: pd.DataFrame, column: str = "seat") -> pd.DataFrame:
    """``stats.seat_advantage`` as a flat frame: one row per (n_players, seat)."""
    return stats.seat_advantage(long, column).reset_index()


def seat_win_share(long: pd.DataFrame, ax=None, column: str = "seat"):
    """Win share per seat with 95% Wilson intervals, one line per player count, and a dashed
    line at each count's fair share 1/n."""
    data = seat_win_share_data(long, column)
    fig, ax = _axes(ax)
    counts = sorted(data["n_players"].unique())
    offsets = (
        np.linspace(-SEAT_SPREAD / 2, SEAT_SPREAD / 2, len(counts)) if len(counts) > 1 else [0]
    )
    for offset, n in zip(offsets, counts, strict=True):
        part = data[data["n_players"] == n]
        x = part[column].to_numpy() + offset
        bars = ax.errorbar(
            x, part["win_share"], yerr=_yerr(part, "win_share"), marker="o", capsize=3
        )
        bars.set_label(f"{n} players")
        color = bars.lines[0].get_color()
        ax.hlines(1 / n, x.min() - 0.2, x.max() + 0.2, colors=color, linestyles="--", lw=1)
    ax.set(xlabel=column, ylabel="win share", title="Win share by seat (95% Wilson intervals)")
    ax.set_xticks(np.arange(data[column].max() + 1))
    ax.legend()
    return fig


# ---- head to head -------------------------------------------------------------------------


def win_rate_heatmap_data(long: pd.DataFrame) -> dict:
    """``share``: ``stats.pairwise``; ``games``: ``stats.pairwise_counts``; ``half``: half the
    width of each cell's 95% Wilson interval."""
    share, games = stats.pairwise(long), stats.pairwise_counts(long)
    low, high = stats.wilson(share * games, games)
    half = pd.DataFrame((high - low) / 2, index=share.index, columns=share.columns)
    return {"share": share, "games": games, "half": half}


def win_rate_heatmap(long: pd.DataFrame, ax=None):
    """Head-to-head win shares (row agent against column opponent) as a heatmap centred at
    1/2, each cell annotated with its share and the half width of its 95% interval."""
    data = win_rate_heatmap_data(long)
    share, half = data["share"], data["half"]
    fig, ax = _axes(ax)
    image = ax.imshow(share.to_numpy(float), cmap="RdBu", vmin=0, vmax=1)
    for (i, j), value in np.ndenumerate(share.to_numpy(float)):
        if not np.isnan(value):
            text = f"{value:.2f}\n±{half.iat[i, j]:.2f}"
            ax.text(j, i, text, ha="center", va="center", fontsize=8)
    _label_square(ax, share)
    fig.colorbar(image, ax=ax, label="head-to-head win share")
    return fig


def _label_square(ax, share: pd.DataFrame) -> None:
    ax.set_xticks(np.arange(share.shape[1]), share.columns, rotation=45, ha="right")
    ax.set_yticks(np.arange(share.shape[0]), share.index)
    ax.set(xlabel="opponent", ylabel="agent", title="Head to head (95% half widths)")


# ---- ratings ------------------------------------------------------------------------------


def rating_chart_data(long: pd.DataFrame, **kw) -> pd.DataFrame:
    """``stats.ratings(long, **kw)`` sorted from lowest to highest rating."""
    return stats.ratings(long, **kw).sort_values("rating")


def rating_chart(long: pd.DataFrame, ax=None, **kw):
    """Horizontal bars of the Plackett-Luce ratings with their bootstrap 95% intervals, best at
    the top; ``kw`` goes to ``stats.ratings`` (n_boot, seed, scale, prior)."""
    data = rating_chart_data(long, **kw)
    fig, ax = _axes(ax)
    y = np.arange(len(data))
    ax.barh(y, data["rating"], xerr=_yerr(data, "rating"), capsize=3, color="tab:blue")
    ax.set_yticks(y, data.index)
    ax.axvline(0, color="grey", lw=1)
    scale = "Elo-like" if kw.get("scale") == "elo" else "log-strength"
    ax.set(xlabel=f"rating ({scale}, mean 0)", title="Plackett-Luce ratings (95% bootstrap)")
    return fig


# ---- scores -------------------------------------------------------------------------------


def score_distributions_data(long: pd.DataFrame) -> dict:
    """Each agent's scores (one per seat it held), by agent name."""
    return {str(a): part.to_numpy() for a, part in long.groupby("agent", sort=True)["score"]}


def score_distributions(long: pd.DataFrame, ax=None):
    """One box per agent (median, quartiles, 1.5 IQR whiskers; triangle: the mean)."""
    data = score_distributions_data(long)
    fig, ax = _axes(ax)
    positions = np.arange(1, len(data) + 1)
    ax.boxplot(list(data.values()), positions=positions, showmeans=True, showfliers=False)
    ax.set_xticks(positions, list(data), rotation=30, ha="right")
    ax.set(xlabel="agent", ylabel="score", title="Score per seat by agent")
    return fig

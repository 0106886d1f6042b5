"""Figures of the statistics in ``experiments.stats``.

Each ``name(long, ..., ax=None)`` draws what ``name_data(long, ...)`` returns and gives back the
Figure; with ``ax=None`` it makes a new one. Plots only draw: every number comes from ``stats``.
No backend is forced here; scripts and tests choose one (e.g. ``MPLBACKEND=Agg``).
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from experiments import anatomy, stats

SEAT_SPREAD = 0.25  # total horizontal spread of the player-count groups around each seat

LABELS = {  # column -> axis label; other columns read with spaces for underscores
    "position": "turn position (0 = first player)",
    "first_edge": "first player's edge in win share",
    "last_edge": "last player's edge in win share",
    "decisions": "decisions per game",
    "winning_score": "winning score",
    "n_removed": "cards removed",
    "chips_per_player": "chips per player",
    "chi2": "chi-square of equal win shares by turn position",
    "n_players": "players",
    "win_share": "win share",
    "mean_score": "mean score",
}


def label(column: str) -> str:
    """A readable axis label for ``column``: ``LABELS``, else its words without underscores."""
    return LABELS.get(column, column.replace("_", " "))


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
    _seat_lines(ax, data, column, "win_share", fair=True)
    title = f"Win share by {label(column)} (95% Wilson intervals)"
    ax.set(xlabel=label(column), ylabel="win share", title=title)
    ax.legend()
    return fig


def _seat_lines(ax, data: pd.DataFrame, column: str, value: str, fair: bool) -> None:
    """``value`` per ``column`` with error bars from ``ci_low`` / ``ci_high``, one line per
    player count (slightly apart), with dashed fair shares 1/n if ``fair``."""
    counts = sorted(data["n_players"].unique())
    offsets = (
        np.linspace(-SEAT_SPREAD / 2, SEAT_SPREAD / 2, len(counts)) if len(counts) > 1 else [0]
    )
    for offset, n in zip(offsets, counts, strict=True):
        part = data[data["n_players"] == n]
        x = part[column].to_numpy() + offset
        bars = ax.errorbar(x, part[value], yerr=_yerr(part, value), marker="o", capsize=3)
        bars.set_label(f"{n} players")
        if fair:
            color = bars.lines[0].get_color()
            ax.hlines(1 / n, x.min() - 0.2, x.max() + 0.2, colors=color, linestyles="--", lw=1)
    ax.set_xticks(np.arange(data[column].max() + 1))


SEAT_VALUES = {  # seat_panels value -> (interval columns of stats.summary_seat_table, label)
    "win_share": ("win_low", "win_high", "win share"),
    "mean_score": ("score_low", "score_high", "mean score"),
}


def seat_panels_data(sums: pd.DataFrame, column="position", by="agent") -> pd.DataFrame:
    """``stats.summary_seat_table`` of streamed sums as a flat frame."""
    return stats.summary_seat_table(sums, column, by).reset_index()


def seat_panels(
    sums: pd.DataFrame,
    value="win_share",
    column="position",
    by="agent",
    axes=None,
    suptitle=None,
):
    """One panel per ``by`` group (e.g. agent) of a seat study's sums: ``value``
    ("win_share" or "mean_score") per ``column`` with 95% intervals, one line per player
    count; win shares with dashed fair shares 1/n. ``axes``: one Axes per group, or None;
    ``suptitle``: the figure's title (say the game and the number of games)."""
    data = seat_panels_data(sums, column, by)
    low, high, ylabel = SEAT_VALUES[value]
    groups = list(data.groupby(by, sort=True))
    if axes is None:
        fig, axes = plt.subplots(1, len(groups), figsize=(4.2 * len(groups), 3.6), squeeze=False)
        fig.set_layout_engine("tight")
    axes = np.ravel(axes)
    for ax, (name, part) in zip(axes, groups, strict=True):
        intervals = part.rename(columns={low: "ci_low", high: "ci_high"})
        _seat_lines(ax, intervals, column, value, fair=value == "win_share")
        ax.set(xlabel=label(column), ylabel=ylabel, title=str(name))
    axes[0].legend(fontsize=8)
    if suptitle is not None:
        axes[0].figure.suptitle(suptitle)
    return axes[0].figure


# ---- head to head -------------------------------------------------------------------------


def win_rate_heatmap_data(long: pd.DataFrame) -> dict:
    """``share``: ``stats.pairwise``; ``games``: ``stats.pairwise_counts``; ``half``: half the
    width of each cell's 95% interval by deal (``stats.pairwise_table``)."""
    share, games = stats.pairwise(long), stats.pairwise_counts(long)
    table = stats.pairwise_table(long)
    half = ((table["ci_high"] - table["ci_low"]) / 2).unstack("opponent")
    half = half.reindex(index=share.index, columns=share.columns)
    return {"share": share, "games": games, "half": half}


def _half_text(half: float) -> str:
    """A half width that never reads ±0.00: two decimals, or one significant digit."""
    return f"±{half:.2f}" if half >= 0.01 else f"±{half:.1g}"


def win_rate_heatmap(long: pd.DataFrame, ax=None):
    """Head-to-head win shares (row agent against column opponent) as a heatmap centred at
    1/2, each cell annotated with its share and the half width of its 95% interval."""
    data = win_rate_heatmap_data(long)
    share, half = data["share"], data["half"]
    fig, ax = _axes(ax)
    image = ax.imshow(share.to_numpy(float), cmap="RdBu", vmin=0, vmax=1)
    for (i, j), value in np.ndenumerate(share.to_numpy(float)):
        if not np.isnan(value):
            text = f"{value:.2f}\n{_half_text(half.iat[i, j])}"
            ax.text(j, i, text, ha="center", va="center", fontsize=8)
    _label_square(ax, share)
    fig.colorbar(image, ax=ax, label="head-to-head win share")
    return fig


def _label_square(ax, share: pd.DataFrame) -> None:
    ax.set_xticks(np.arange(share.shape[1]), share.columns, rotation=45, ha="right")
    ax.set_yticks(np.arange(share.shape[0]), share.index)
    ax.set(xlabel="opponent", ylabel="agent", title="Head to head (95% half widths, by deal)")


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
    ax.set(
        xlabel=f"rating ({scale}, mean 0)",
        title="Plackett-Luce ratings (95%, bootstrap over deals)",
    )
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


# ---- rules sweeps -------------------------------------------------------------------------


def sweep_heatmap_data(table: pd.DataFrame, value: str, rows: str, columns: str) -> dict:
    """``value`` of a sweep table (``experiments.sweeps``) as a ``rows`` x ``columns`` frame
    (labels in order of first appearance, as text) and, where the table has ``value_low`` and
    ``value_high``, the half widths of the 95% intervals (else None)."""
    labelled = table.assign(**{c: _ordered_labels(table[c]) for c in (rows, columns)})

    def pivot(column: str) -> pd.DataFrame:
        return labelled.pivot_table(column, rows, columns, observed=False, sort=True)

    half = None
    if f"{value}_low" in table and f"{value}_high" in table:
        half = (pivot(f"{value}_high") - pivot(f"{value}_low")) / 2
    return {"value": pivot(value), "half": half}


def _ordered_labels(column: pd.Series) -> pd.Categorical:
    labels = column.astype(str)
    return pd.Categorical(labels, categories=list(dict.fromkeys(labels)), ordered=True)


def sweep_heatmap(
    table: pd.DataFrame,
    value: str,
    rows: str,
    columns: str,
    ax=None,
    center=None,
    digits=3,
    title=None,
):
    """One cell per (row, column) variant coloured by ``value`` and annotated with it (and
    ± the half width of its 95% interval, when the table has one). With ``center`` the colour
    map diverges symmetrically around it (e.g. 0 for an edge, 1/n for a win share). Axes are
    labelled by ``label``; ``title`` defaults to the label of ``value``."""
    data = sweep_heatmap_data(table, value, rows, columns)
    grid, half = data["value"], data["half"]
    fig, ax = _axes(ax)
    values = grid.to_numpy(float)
    scale = {"cmap": "viridis"}
    if center is not None:
        reach = np.nanmax(np.abs(values - center)) or 1.0
        scale = {"cmap": "RdBu_r", "vmin": center - reach, "vmax": center + reach}
    image = ax.imshow(values, aspect="auto", **scale)
    for (i, j), cell in np.ndenumerate(values):
        if not np.isnan(cell):
            text = f"{cell:.{digits}f}" + (
                "" if half is None else f"\n±{half.iat[i, j]:.{digits}f}"
            )
            ax.text(j, i, text, ha="center", va="center", fontsize=6, color=_ink(image, cell))
    ax.set_xticks(np.arange(grid.shape[1]), grid.columns, rotation=45, ha="right")
    ax.set_yticks(np.arange(grid.shape[0]), grid.index)
    ax.set(xlabel=label(columns), ylabel=label(rows), title=title or label(value))
    fig.colorbar(image, ax=ax, label=label(value))
    return fig


def _ink(image, value: float) -> str:
    """White text on dark cells of ``image``, black on light ones."""
    red, green, blue, _ = image.cmap(image.norm(value))
    return "white" if 0.299 * red + 0.587 * green + 0.114 * blue < 0.5 else "black"


# ---- anatomy: card prices and point sources -------------------------------------------------


def card_prices_data(prices: pd.DataFrame, max_price: int = 20) -> dict:
    """``hist``: ``anatomy.price_histogram`` (share of each card's takes per price, prices
    above ``max_price`` pooled); ``table``: ``anatomy.price_table`` per card."""
    return {
        "hist": anatomy.price_histogram(prices, max_price),
        "table": anatomy.price_table(prices),
    }


def card_prices(prices: pd.DataFrame, ax=None, max_price: int = 20, title="Price of each card"):
    """The distribution of each card's price (chips on it when taken) as a heatmap, card by
    price, with the mean price per card and its 95% interval drawn over it."""
    data = card_prices_data(prices, max_price)
    hist, table = data["hist"], data["table"]
    fig, ax = _axes(ax)
    cards = hist.columns.to_numpy()
    extent = (cards[0] - 0.5, cards[-1] + 0.5, -0.5, hist.index[-1] + 0.5)
    image = ax.imshow(
        hist.to_numpy(float), origin="lower", aspect="auto", extent=extent, cmap="Greys"
    )
    yerr = np.vstack([table["price"] - table["price_low"], table["price_high"] - table["price"]])
    ax.errorbar(
        table.index,
        table["price"],
        yerr=yerr,
        color="tab:red",
        marker=".",
        label="mean price (95%)",
    )
    ax.set(
        xlabel="card",
        ylabel=f"chips on the card when taken ({max_price} = {max_price}+)",
        title=title,
    )
    ax.legend(loc="upper left")
    fig.colorbar(image, ax=ax, label="share of the card's takes")
    return fig


def card_winner_share(prices: pd.DataFrame, ax=None, title="Cards in the winner's hand"):
    """Per card, the share of its takes by a player who won the game (ties included) with 95%
    Wilson intervals; the dashed line is the share over all takes."""
    table = anatomy.price_table(prices)
    fig, ax = _axes(ax)
    yerr = np.vstack(
        [table["in_winner"] - table["winner_low"], table["winner_high"] - table["in_winner"]]
    )
    ax.bar(table.index, table["in_winner"], yerr=yerr, capsize=2, color="tab:green")
    ax.axhline((prices["win"] > 0).mean(), color="grey", ls="--", lw=1, label="all cards")
    ax.set(xlabel="card", ylabel="share of takes by a winner", title=title)
    ax.legend()
    return fig


def point_sources_data(long: pd.DataFrame, by=("agent", "n_players")) -> pd.DataFrame:
    """``anatomy.point_sources(long, by)``."""
    return anatomy.point_sources(long, by)


def point_sources(long: pd.DataFrame, by=("agent", "n_players"), ax=None):
    """Stacked bars of the mean giving, keeping and majority points per seat for each group
    of ``by``, with the 95% interval of the mean score on top."""
    data = point_sources_data(long, by)
    fig, ax = _axes(ax)
    x = np.arange(len(data))
    bottom = np.zeros(len(data))
    for source in anatomy.score_parts(long):
        ax.bar(x, data[source], bottom=bottom, label=source)
        bottom += data[source].to_numpy()
    yerr = np.vstack([data["score"] - data["score_low"], data["score_high"] - data["score"]])
    ax.errorbar(x, data["score"], yerr=yerr, fmt="none", ecolor="black", capsize=2)
    names = [" ".join(map(str, k)) if isinstance(k, tuple) else str(k) for k in data.index]
    ax.set_xticks(x, names, rotation=60, ha="right", fontsize=7)
    ax.set(ylabel="points per seat", title="Where the points come from")
    ax.legend()
    return fig


# ---- learning (experiments.learning) ------------------------------------------------------


def learning_curve_data(curves: dict) -> pd.DataFrame:
    """One row per bin and run: ``run`` (the dict's key), ``episodes``, ``reward``."""
    return pd.concat([c.frame().assign(run=label) for label, c in curves.items()])


def learning_curve(curves: dict, title: str, fair: float | None = None, ax=None):
    """The learner's mean share of the win per bin of episodes, one line per run (``curves``:
    label -> ``experiments.learning.Curve``); ``fair``: a dashed line at the equal share."""
    data = learning_curve_data(curves)
    fig, ax = _axes(ax)
    for label, run in data.groupby("run", sort=False):
        ax.plot(run["episodes"], run["reward"], marker=".", label=label)
    if fair is not None:
        ax.axhline(fair, color="grey", ls="--", lw=1, label="equal share")
    ax.set(xlabel="training episodes (games)", ylabel="learner's share of the win", title=title)
    ax.set_ylim(0, 1)
    ax.legend()
    return fig


def training_curve(curve: pd.DataFrame, title: str, fair: float, ax=None):
    """A training run's learning curve (``experiments.train``): the network's win share
    against the baseline on the held-out deals after each round, with 95% intervals, and a
    dashed line at the fair share."""
    fig, ax = _axes(ax)
    ax.errorbar(
        curve["round"],
        curve["win_share"],
        yerr=_yerr(curve, "win_share"),
        marker="o",
        capsize=3,
        label="learned (one ply)",
    )
    ax.axhline(fair, color="grey", ls="--", lw=1, label=f"fair share {fair:.3f}")
    ax.set(xlabel="training round", ylabel="win share on held-out deals", title=title)
    ax.set_xticks(curve["round"])
    ax.legend()
    return fig


def value_probe(tables: dict, stage: str, title: str, ylabel: str, ax=None):
    """A probe of a learned network (``experiments.probes``): the mean change of its estimate
    per game stage with 95% bands, one line per table (``tables``: label -> probe table)."""
    fig, ax = _axes(ax)
    for name, table in tables.items():
        ax.plot(table[stage], table["change"], marker=".", label=name)
        ax.fill_between(table[stage], table["ci_low"], table["ci_high"], alpha=0.25)
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set(xlabel=label(stage), ylabel=ylabel, title=title)
    ax.legend()
    return fig


# ---- the gauntlet (experiments.gauntlet) --------------------------------------------------

GAUNTLET_SPREAD = 0.7  # horizontal room of one field's group of agents


def gauntlet_chart(data: pd.DataFrame, title: str):
    """One player count of a gauntlet (``experiments.gauntlet.chart_data``: one row per
    agent and field, both ordered categoricals). Left: each agent's win share (one colour
    each, 95% intervals) in each field that is not its own copies, fields along x, the fair
    share dashed and labelled. Right, when the table has mirror rows: each agent's turn-order
    gap among its own copies (last position's win share minus the first's) around 0."""
    mirror = data[data["kind"] == "mirror"]
    shares = data[data["kind"] == "field"]
    wide = 1 + (len(data["agent"].cat.categories) > 4)
    fig, axes = plt.subplots(
        1,
        2 if len(mirror) else 1,
        figsize=(11 if len(mirror) else 8, 4.8 + 0.3 * wide),
        gridspec_kw={"width_ratios": [3, 1]} if len(mirror) else None,
        squeeze=False,
        layout="constrained",
    )
    colours = _agent_colours(data["agent"].cat.categories)
    own = data[data["kind"] == "its own field"]
    _gauntlet_shares(axes[0, 0], shares, own, colours, float(data["fair"].iloc[0]))
    if len(mirror):
        _gauntlet_gaps(axes[0, 1], mirror, colours)
    fig.suptitle(title, fontsize=9)
    return fig


def _agent_colours(agents) -> dict:
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    return {agent: cycle[i % len(cycle)] for i, agent in enumerate(agents)}


def _gauntlet_shares(ax, shares, own, colours: dict, fair: float) -> None:
    """Win shares by field, one colour per agent; a hollow grey marker at the fair share
    where the field is the agent's own (not played: fair by construction)."""
    fields = [f for f in shares["field"].cat.categories if f in set(shares["field"])]
    agents = list(colours)
    step = GAUNTLET_SPREAD / max(len(agents), 1)

    def x_of(part, k):
        return (
            np.array([fields.index(f) for f in part["field"]]) + (k - (len(agents) - 1) / 2) * step
        )

    for k, agent in enumerate(agents):
        part = shares[shares["agent"] == agent]
        if not part.empty:
            ax.errorbar(
                x_of(part, k),
                part["win_share"],
                yerr=_yerr(part, "win_share"),
                fmt="o",
                capsize=3,
                color=colours[agent],
                label=agent,
            )
    ax.axhline(
        fair, color="grey", ls="--", lw=1, label=f"fair share 1/{round(1 / fair)} = {fair:.3f}"
    )
    for k, agent in enumerate(agents):
        part = own[own["agent"].eq(agent) & own["field"].isin(fields)]
        if not part.empty:
            x = x_of(part, k)
            ax.plot(x, [fair] * len(x), "o", mfc="none", color="grey", label="_own")
    if len(own):
        ax.plot([], [], "o", mfc="none", color="grey", label="its own field: fair by construction")
    ax.set_xticks(range(len(fields)), [f"field: {f}" for f in fields])
    ax.set_xlim(-0.6, len(fields) - 0.4)
    ax.set_ylim(0, min(1.0, max(0.05, float(shares["ci_high"].max()) * 1.1)))
    ax.set(ylabel="win share (ties split)")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncols=4)


def _gauntlet_gaps(ax, mirror: pd.DataFrame, colours: dict) -> None:
    agents = [a for a in colours if a in set(mirror["agent"])]
    for k, agent in enumerate(agents):
        row = mirror[mirror["agent"] == agent].iloc[0]
        below, above = row["gap"] - row["gap_low"], row["gap_high"] - row["gap"]
        ax.errorbar(
            [row["gap"]],
            [k],
            xerr=[[below], [above]],
            fmt="o",
            capsize=3,
            color=colours[agent],
        )
    ax.axvline(0, color="grey", ls="--", lw=1)
    ax.set_yticks(range(len(agents)), agents)
    ax.set_ylim(len(agents) - 0.5, -0.5)
    ax.set(
        xlabel="last minus first turn position\n(win share, 95% interval)",
        title="field: self (own copies)",
    )
    ax.title.set_fontsize(9)

"""Figures of the statistics in ``experiments.stats``.

Each ``name(long, ..., ax=None)`` draws ``name_of`` of the ``stats`` table of ``long`` and gives
back the Figure; with ``ax=None`` it makes a new one; ``name_data(long, ...)`` returns the numbers
drawn, in the order drawn. ``name_of(table, ...)`` draws a table computed already (by
``stats`` from a long frame, or from sums streamed chunk by chunk, as ``giftsim report`` does),
so one table feeds both the terminal and the figure. Plots only draw: every number comes from
``stats`` (box plots: from the counts of each score, ``digest.score_counts``).

Every title says what is drawn and which interval; its last lines are the *subject* of the run
(``subject``: game, design, agents, player counts, games). Score axes say which way a score wins,
and every reference line and box is named in a legend. No backend is forced here; scripts and
tests choose one (e.g. ``MPLBACKEND=Agg``).
"""

import functools
import textwrap

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from experiments import anatomy, stats
from experiments.blocks import ranked
from experiments.digest import score_counts
from experiments.ratings import by_rating
from giftsim import files
from giftsim.game import load_game

SEAT_SPREAD = 0.25  # total horizontal spread of the player-count groups around each seat
SUBJECT_WIDTH = 100  # a title line of a subject breaks before this many characters

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
ORDERS = {  # the ratings' order column -> what the fit uses
    "finish": "the whole finishing order",
    "win": "the winners only",
}
BOX_LEGEND = [  # what each part of a box means (score_boxes_of)
    Patch(facecolor="white", edgecolor="black", label="box: middle half of the scores"),
    Line2D([], [], color="C1", label="line: median"),
    Line2D([], [], color="black", label="whiskers: within 1.5 box heights (outliers hidden)"),
    Line2D([], [], color="green", marker="^", ls="", label="triangle: mean"),
]


DPI = 110  # every PNG giftsim writes


def save_png(figure, path, force: bool = False) -> None:
    """A figure as a PNG file, through a temporary file (``giftsim.files.write_own``: an
    earlier one replaced only if giftsim wrote it, or with ``force``)."""
    draw = functools.partial(figure.savefig, dpi=DPI, bbox_inches="tight", format="png")
    files.write_own(path, draw, force)


def label(column: str) -> str:
    """A readable axis label for ``column``: ``LABELS``, else its words without underscores."""
    return LABELS.get(column, column.replace("_", " "))


def score_label(game: str, what: str = "score") -> str:
    """``what`` with its unit and the way a score wins in ``game``, e.g. "score in points
    (lowest wins)"."""
    return f"{what} in points ({'lowest' if load_game(game).lower_wins else 'highest'} wins)"


def counted(numbers, unit: str = "players") -> str:
    """``"4 players"``, ``"3-5 players"`` (a run of counts) or ``"2, 4, 6 players"``."""
    values = sorted({int(n) for n in numbers})
    if len(values) > 2 and values == list(range(values[0], values[-1] + 1)):
        return f"{values[0]}-{values[-1]} {unit}"
    return f"{', '.join(map(str, values))} {unit}"


DESIGNS = {"mirror": "one-agent tables"}  # design -> its name in a subject, if not its own


def subject(
    game: str, design: str, agents, players, games: int, per: str = "", candidate=None
) -> str:
    """A figure's title lines below its heading, e.g. "No Thanks!, round-robin of random,
    greedy, sniper, 4 players, 1,200,000 games (25,000 per seating)": every agent named,
    lines broken at ``SUBJECT_WIDTH`` characters; ``per`` adds what each seating or cell
    played; ``candidate``, a field's, is named as such ("sniper in a field of greedy")."""
    names = sorted(set(agents))
    if candidate is not None:
        field = ", ".join(name for name in names if name != candidate)
        what = f"{candidate} in a {DESIGNS.get(design, design)} of {field}"
    else:
        what = f"{DESIGNS.get(design, design)} of {', '.join(names)}"
    extra = f" ({per})" if per else ""
    line = f"{load_game(game).title}, {what}, {counted(players)}, {games:,} games{extra}"
    return _balanced(line, SUBJECT_WIDTH)


def _balanced(line: str, width: int) -> str:
    """``line`` broken into the fewest lines of at most ``width`` characters, of about even
    length (no short last line), at spaces only."""
    lines = -(-len(line) // width)  # ceiling division
    even = min(width, -(-len(line) // lines) + 12)  # room for the words that do not fit
    return textwrap.fill(line, even, break_long_words=False, break_on_hyphens=False)


def subject_of(long: pd.DataFrame, game: str, design: str, per: str = "") -> str:
    """``subject`` of the games of a long frame (``stats``' layout; stacked tables, such as
    ``anatomy.field_points``', count apart by their ``table`` column)."""
    agents, counts = long["agent"].unique(), long["n_players"].unique()
    return subject(game, design, agents, counts, games_in(long), per)


def games_in(long: pd.DataFrame) -> int:
    """The games of a long frame (stacked tables count apart by their ``table`` column), or
    of streamed sums (``games`` a row: each game counted once, at its seat 0)."""
    if "games" in long and "seat" in long:
        return int(long.loc[long["seat"] == 0, "games"].sum())
    return long.groupby([c for c in ("table", "job", "game_index") if c in long]).ngroups


def rows_subject(long: pd.DataFrame, game: str | None = None) -> str:
    """The subject of a figure drawn from a long table (or streamed sums, ``games_in``) when
    none is given: the game (when known), every agent, the player counts and the games."""
    head = f"{load_game(game).title}, " if game else ""
    agents = ", ".join(sorted(set(long["agent"])))
    line = f"{head}{agents}, {counted(long['n_players'].unique())}, {games_in(long):,} games"
    return _balanced(line, SUBJECT_WIDTH)


def _title(ax, what: str, subject_line=None) -> None:
    ax.set_title(what if subject_line is None else f"{what}\n{subject_line}", fontsize=9)


def _suptitle(fig, what: str, subject_line=None) -> None:
    fig.suptitle(what if subject_line is None else f"{what}\n{subject_line}", fontsize=10)


def _axes(ax):
    if ax is None:
        _, ax = plt.subplots()
    return ax.figure, ax


def _yerr(table: pd.DataFrame, value: str) -> np.ndarray:
    """Asymmetric error bars (below, above) from ``ci_low`` / ``ci_high``."""
    return np.vstack([table[value] - table["ci_low"], table["ci_high"] - table[value]])


def plus_minus(half: float, digits: int = 2) -> str:
    """ "±" and a half width at ``digits`` decimals, never "±0.00": below the shown precision it
    is printed to one significant digit."""
    if round(half, digits) > 0 or not np.isfinite(half):
        return f"±{half:.{digits}f}"
    return f"±{half:.1g}"


def _digits(half: float, digits: int) -> int:
    """Decimals that show a value as precisely as its half width (at least ``digits``)."""
    if not np.isfinite(half) or half <= 0 or round(half, digits) > 0:
        return digits
    return min(digits + 1, 4)


# ---- seat advantage -----------------------------------------------------------------------

SEAT_TITLE = "Win share by {column}, one line per player count, 95% intervals by deal"


def seat_win_share_data(long: pd.DataFrame, column: str = "seat") -> pd.DataFrame:
    """``stats.seat_advantage`` as a flat frame: one row per (n_players, seat), as drawn."""
    return stats.seat_advantage(long, column).reset_index()


def seat_win_share(long: pd.DataFrame, ax=None, column: str = "seat", subject=None):
    """Win share per seat with 95% intervals by deal (``stats.seat_advantage``: Wilson's
    when every game is its own deal), one line per player count, and a dashed line at each
    count's fair share 1/n."""
    subject = rows_subject(long) if subject is None else subject
    return seat_win_share_of(stats.seat_advantage(long, column), ax, column, subject)


def seat_win_share_of(table: pd.DataFrame, ax=None, column: str = "position", subject=None):
    """``seat_win_share`` of a ``stats.seat_advantage`` (or ``deal_seat_advantage``) table."""
    data = table.reset_index()
    fig, ax = _axes(ax)
    _seat_lines(ax, data, column, "win_share", fair=True)
    ax.set(xlabel=label(column), ylabel="win share")
    _title(ax, SEAT_TITLE.format(column=label(column)), subject)
    ax.legend(*_by_count(*ax.get_legend_handles_labels()), fontsize=8)
    return fig


def _by_count(handles, labels):
    """Legend entries in order of player count, each count's line before its fair share."""

    def key(item):
        text = item[1]
        return (
            (int(text.split("/")[1]), 1) if text.startswith("fair") else (int(text.split()[0]), 0)
        )

    pairs = sorted(zip(handles, labels, strict=True), key=key)
    return [h for h, _ in pairs], [t for _, t in pairs]


def _seat_lines(ax, data: pd.DataFrame, column: str, value: str, fair: bool) -> None:
    """``value`` per ``column`` with error bars from ``ci_low`` / ``ci_high``, one line per
    player count (slightly apart), with dashed fair shares 1/n (in the legend) if ``fair``."""
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
            ax.hlines(
                1 / n,
                x.min() - 0.2,
                x.max() + 0.2,
                colors=color,
                linestyles="--",
                lw=1,
                label=f"fair share 1/{n}",
            )
    ax.set_xticks(np.arange(data[column].max() + 1))


SEAT_VALUES = {  # seat_panels value -> (interval columns of stats.summary_seat_table, label)
    "win_share": ("win_low", "win_high", "win share"),
    "mean_score": ("score_low", "score_high", "mean score"),
}


def seat_panels_data(sums: pd.DataFrame, column="position", by="agent", ranges=None):
    """``stats.summary_seat_table`` of streamed sums as a flat frame (mean scores' intervals
    in ``ranges``, ``stats.in_range``)."""
    return stats.summary_seat_table(sums, column, by, ranges).reset_index()


def seat_panels(
    sums: pd.DataFrame,
    value="win_share",
    column="position",
    by="agent",
    axes=None,
    suptitle=None,
    subject=None,
    game=None,
    ranges=None,
):
    """One panel per ``by`` group (e.g. agent) of a seat study's sums: ``value``
    ("win_share" or "mean_score") per ``column`` with 95% intervals, one line per player
    count, on one y scale; win shares with dashed fair shares 1/n. ``axes``: one Axes per
    group, or None. The title: ``suptitle`` if given, else what is drawn (with the way a score
    wins when ``game`` is given) over ``subject`` (by default: the game when given, the
    agents, the player counts and the games); the legend sits below the panels. Mean
    scores' intervals stay in ``ranges`` (``schedule.score_ranges``), when given."""
    if value not in SEAT_VALUES:
        raise ValueError(f"value must be one of {', '.join(SEAT_VALUES)}, got {value!r}")
    data = seat_panels_data(sums, column, by, ranges)
    subject = rows_subject(sums, game) if subject is None and suptitle is None else subject
    low, high, ylabel = SEAT_VALUES[value]
    if value == "mean_score" and game is not None:
        ylabel = score_label(game, ylabel)
    mirror = by == "agent" and bool((sums.groupby("job")["agent"].nunique() <= 1).all())
    data = data.rename(columns={low: "ci_low", high: "ci_high"})
    fig = _panels(data, value, column, by, axes, mirror)
    fig.axes[0].set_ylabel(ylabel)
    interval = "Wilson" if value == "win_share" else "Student t"
    what = f"{ylabel[0].upper()}{ylabel[1:]} by {label(column)}, 95% {interval} intervals"
    fig.suptitle(suptitle or (what if subject is None else f"{what}\n{subject}"), fontsize=10)
    return fig


def agent_seats_of(table: pd.DataFrame, axes=None, column="position", subject=None):
    """One panel per agent of a ``stats.deal_seat_advantage(..., by="agent")`` table (agents
    sharing tables, as in a round-robin): the agent's win share by ``column`` with its 95%
    interval by deal, one line per player count, dashed fair shares 1/n, on one y scale."""
    fig = _panels(table.reset_index(), "win_share", column, "agent", axes, mirror=False)
    fig.axes[0].set_ylabel("win share")
    what = f"Each agent's win share by {label(column)}, 95% intervals by deal"
    _suptitle(fig, what, subject)
    return fig


def _panels(data: pd.DataFrame, value: str, column: str, by: str, axes, mirror: bool):
    """``_seat_lines`` of ``value`` (intervals ``ci_low``, ``ci_high``) in one panel per
    ``by`` group, titled by the group's tables (``mirror``) or seats, the legend below."""
    groups = list(data.groupby(by, sort=True))
    if axes is None:
        size = (3.6 * len(groups) + 0.6, 3.4)
        fig, axes = plt.subplots(1, len(groups), figsize=size, squeeze=False, sharey=True)
        fig.set_layout_engine("constrained")
    axes = np.ravel(axes)
    for ax, (name, part) in zip(axes, groups, strict=True):
        _seat_lines(ax, part, column, value, fair=value == "win_share")
        ax.set(xlabel=label(column), title=f"all-{name} tables" if mirror else f"{name}'s seats")
    fig = axes[0].figure
    handles, labels = _by_count(*axes[0].get_legend_handles_labels())
    fig.legend(handles, labels, loc="outside lower center", ncol=min(len(labels), 6), fontsize=8)
    return fig


# ---- head to head -------------------------------------------------------------------------

HEAD_TITLE = (
    "Head to head: share of games in which the row agent finishes ahead of the column agent "
    "(a tie counts 1/2),\n± half width of its 95% interval by deal; {per}"
)


def win_rate_heatmap_data(long: pd.DataFrame) -> dict:
    """``heatmap_data`` of ``stats.pairwise_table(long)``."""
    return heatmap_data(stats.pairwise_table(long))


def heatmap_data(table: pd.DataFrame) -> dict:
    """Square frames, agent (rows) x opponent (columns), of a ``stats.pairwise_table``:
    ``share`` (NaN on the diagonal and where two agents never met), ``games`` and ``half`` (half
    the width of each cell's 95% interval)."""
    names = sorted(set(table.index.get_level_values(0)) | set(table.index.get_level_values(1)))

    def square(values: pd.Series) -> pd.DataFrame:
        grid = values.unstack("opponent").reindex(index=names, columns=names)
        return grid.rename_axis(index="agent", columns="opponent")

    half = (table["ci_high"] - table["ci_low"]) / 2
    games = square(table["games"]).fillna(0).astype(int)
    return {"share": square(table["share"]), "games": games, "half": square(half)}


def win_rate_heatmap(long: pd.DataFrame, ax=None, subject=None):
    """Head to head (how often the row agent finishes ahead of the column agent,
    ``stats.pairwise_table``) as a heatmap centred at 1/2, each cell annotated with its share
    and the half width of its 95% interval."""
    subject = rows_subject(long) if subject is None else subject
    return win_rate_heatmap_of(stats.pairwise_table(long), ax, subject)


NO_CELL = "0.85"  # the grey of a head-to-head cell without a share (an agent and itself)


def win_rate_heatmap_of(table: pd.DataFrame, ax=None, subject=None):
    """``win_rate_heatmap`` of a ``stats.pairwise_table``; a cell without a share (the
    diagonal, a pair that never met) grey and named, not blank white, the colour of 1/2."""
    data = heatmap_data(table)
    share, half = data["share"], data["half"]
    fig, ax = _axes(ax)
    cmap = matplotlib.colormaps["RdBu"].with_extremes(bad=NO_CELL)  # white is 1/2
    image = ax.imshow(share.to_numpy(float), cmap=cmap, vmin=0, vmax=1)
    for (i, j), value in np.ndenumerate(share.to_numpy(float)):
        if np.isnan(value):
            text = "itself" if share.index[i] == share.columns[j] else "no games"
            ax.text(j, i, text, ha="center", va="center", fontsize=7, color="0.35")
        else:
            digits = _digits(half.iat[i, j], 2)
            text = f"{value:.{digits}f}\n{plus_minus(half.iat[i, j], digits)}"
            ink = "white" if abs(value - 0.5) > 0.3 else "black"  # readable on the dark ends
            ax.text(j, i, text, ha="center", va="center", fontsize=7, color=ink)
    _label_square(ax, share)
    fig.colorbar(image, ax=ax, label="row agent ahead of column agent (share)")
    _title(ax, HEAD_TITLE.format(per=_games(table["games"], "per pair")), subject)
    return fig


def _games(games: pd.Series, per: str) -> str:
    """ "1,045 games per pair", or the range "600 to 1,045 games per pair" (``per``)."""
    low, high = int(games.min()), int(games.max())
    return f"{low:,} games {per}" if low == high else f"{low:,} to {high:,} games {per}"


def _label_square(ax, share: pd.DataFrame) -> None:
    ax.set_xticks(np.arange(share.shape[1]), share.columns, rotation=45, ha="right")
    ax.set_yticks(np.arange(share.shape[0]), share.index)
    ax.set(xlabel="opponent (column agent)", ylabel="agent (row agent)")


# ---- ratings ------------------------------------------------------------------------------


def rating_chart_data(long: pd.DataFrame, **kw) -> pd.DataFrame:
    """``stats.ratings(long, **kw)`` sorted from lowest to highest rating (equal ratings in
    reverse order of name: the chart, read from the top, lists them as the table does)."""
    return _bottom_up(stats.ratings(long, **kw))


def _bottom_up(table: pd.DataFrame) -> pd.DataFrame:
    """A ratings table in the chart's order, lowest first (the best bar at the top)."""
    return by_rating(table).iloc[::-1]


def rating_chart(long: pd.DataFrame, ax=None, subject=None, **kw):
    """Horizontal bars of the Plackett-Luce ratings with their bootstrap 95% intervals, best at
    the top; ``kw`` goes to ``stats.ratings`` (n_boot, seed, scale, prior, order); the title
    says which order the fit used (the whole finishing order when ``long`` has ``finish``)."""
    order = kw.get("order") or ("finish" if "finish" in long.columns else "win")
    table = stats.ratings(long, **kw)
    subject = rows_subject(long) if subject is None else subject
    return rating_chart_of(table, ax, kw.get("scale", "log"), order, subject)


def rating_chart_of(table: pd.DataFrame, ax=None, scale="log", order="finish", subject=None):
    """``rating_chart`` of a ``stats.ratings`` table fitted on the order of the column ``order``
    ("finish", "win", or another column of the long table).
    An infinite end (a rating with no finite estimate on that side, ``experiments.ratings``)
    is drawn as an arrow out to the edge of the plot, and its agent's bar hatched (the rating
    shown is held finite by the prior only)."""
    data = _bottom_up(table)
    fig, ax = _axes(ax)
    y = np.arange(len(data))
    ends = data[["ci_low", "ci_high"]].to_numpy(float)
    infinite = np.isinf(ends)
    edges = _rating_edges(data, ends)
    data = data.assign(
        ci_low=np.where(infinite[:, 0], edges[0], ends[:, 0]),
        ci_high=np.where(infinite[:, 1], edges[1], ends[:, 1]),
    )
    bars = ax.barh(y, data["rating"], xerr=_yerr(data, "rating"), capsize=3, color="tab:blue")
    ax.set_yticks(y, data.index)
    ax.axvline(0, color="grey", lw=1, label="0: the mean of these agents")
    kind = "Elo-like: 400 = odds of 10 to 1" if scale == "elo" else "log-strength"
    ax.set(xlabel=f"rating ({kind}; higher is stronger)")
    if infinite.any():
        _mark_unbounded(ax, bars, y, infinite, edges)
    else:
        ax.legend(fontsize=8, loc="best")
    fitted = ORDERS.get(order, f"the order of {label(order)}")
    what = f"Plackett-Luce ratings from {fitted},\n95% intervals (bootstrap over deals)"
    _title(ax, what, subject)
    return fig


def _mark_unbounded(ax, bars, y, infinite: np.ndarray, edges: tuple[float, float]) -> None:
    """Hatch the bars of ratings with an infinite end, draw that end as an arrow at the edge
    of the plot, and put the legend under the axis (the arrows reach both edges)."""
    for bar in np.asarray(bars.patches)[infinite.any(1)]:
        bar.set_hatch("//")
    for side, marker, label in ((0, "<", "-inf"), (1, ">", "+inf")):
        at = infinite[:, side]
        if at.any():
            never = "ahead of" if side == 0 else "behind"
            ax.plot(
                np.full(at.sum(), edges[side]),
                y[at],
                ls="",
                marker=marker,
                ms=9,
                color="black",
                label=f"{label}: no finite estimate (never finished {never} some agent)",
            )
    span = edges[1] - edges[0]
    ax.set_xlim(edges[0] - 0.04 * span, edges[1] + 0.04 * span)
    handles, _ = ax.get_legend_handles_labels()
    prior = "hatched: rating held finite only by the prior (it grows with the games)"
    handles.append(Patch(facecolor="tab:blue", hatch="//", label=prior))
    ax.legend(handles=handles, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14))


def _rating_edges(data: pd.DataFrame, ends: np.ndarray) -> tuple[float, float]:
    """Where an infinite end of a rating chart is drawn: a fifth of the finite span beyond
    every finite rating and end (and 0)."""
    finite = np.concatenate([data["rating"].to_numpy(float), ends[np.isfinite(ends)], [0.0]])
    low, high = float(np.nanmin(finite)), float(np.nanmax(finite))
    margin = 0.2 * max(high - low, 1.0)
    return low - margin, high + margin


def win_share_bars_of(table: pd.DataFrame, ax=None, subject=None):
    """Horizontal bars of a ``stats.win_share`` (or ``deal_win_share``) table with its 95%
    intervals, best at the top, and a dashed line at the fair share."""
    data = ranked(table, "win_share").iloc[::-1]  # best at the top, equal shares by name
    fig, ax = _axes(ax)
    y = np.arange(len(data))
    ax.barh(y, data["win_share"], xerr=_yerr(data, "win_share"), capsize=3, color="tab:green")
    ax.set_yticks(y, data.index)
    fair = float(data["fair"].mean())
    ax.axvline(fair, color="grey", ls="--", lw=1, label=f"fair share {fair:.3g}")
    ax.set(xlabel="win share (ties split)")
    ax.legend(fontsize=8, loc="lower right")
    _title(ax, "Win share, 95% intervals by deal", subject)
    return fig


def strategy_figure(study):
    """One row of a strategy study (``studies.Strategy``): win shares, head to head and
    ratings from the whole finishing order, under a title naming the run."""
    fig, axes = plt.subplots(1, 3, figsize=(19, 5.2), width_ratios=(1, 1.25, 1))
    fig.set_layout_engine("constrained")
    win_share_bars_of(study.tables["win share"], axes[0])
    win_rate_heatmap_of(study.tables["head to head"], axes[1])
    rating_chart_of(study.tables["ratings"], axes[2])
    what = "Win shares, head to head and Plackett-Luce ratings (95% intervals by deal)"
    _suptitle(fig, what, study.subject)
    return fig


# ---- scores -------------------------------------------------------------------------------


def box_stats(scores: np.ndarray, counts: np.ndarray, label_text: str) -> dict:
    """A box (matplotlib's ``bxp`` fields) of scores occurring ``counts`` times: quartiles
    and median by the inverted distribution function, the mean, whiskers at the most extreme
    scores within 1.5 box heights of the box, no outliers drawn."""
    order = np.argsort(scores)
    scores, counts = np.asarray(scores, float)[order], np.asarray(counts, float)[order]
    cumulative = np.cumsum(counts) / counts.sum()

    def quantile(q: float) -> float:
        return float(scores[np.searchsorted(cumulative, q - 1e-12)])

    q1, median, q3 = quantile(0.25), quantile(0.5), quantile(0.75)
    reach = 1.5 * (q3 - q1)
    inside = scores[(scores >= q1 - reach) & (scores <= q3 + reach)]
    return {
        "label": label_text,
        "q1": q1,
        "med": median,
        "q3": q3,
        "mean": float((scores * counts).sum() / counts.sum()),
        "whislo": float(inside.min()),
        "whishi": float(inside.max()),
        "fliers": [],
    }


def score_boxes_data(counts: pd.DataFrame, mixed: bool) -> dict:
    """The boxes of ``score_boxes_of``: panel title -> list of ``box_stats``. ``mixed``
    (agents share tables): one panel per player count, one box per agent; else (a mirror
    study, one agent per table) one panel per agent and player count, one box per turn
    position, so that no two boxes of one panel come from different tables."""
    panels = {}
    if mixed:
        for n, part in counts.groupby("n_players", sort=True):
            boxes = part.groupby("agent", observed=True, sort=True)
            panels[f"{n} players"] = [_box(g, str(a)) for a, g in boxes]
        return panels
    for (agent, n), part in counts.groupby(["agent", "n_players"], observed=True, sort=True):
        boxes = part.groupby("position", sort=True)
        panels[f"all-{agent} tables, {n} players"] = [_box(g, str(p)) for p, g in boxes]
    return panels


def _box(part: pd.DataFrame, label_text: str) -> dict:
    return box_stats(part["score"].to_numpy(), part["count"].to_numpy(), label_text)


def score_distributions(long: pd.DataFrame, game: str, axes=None, subject=None):
    """``score_boxes_of`` the scores of a long frame (a mirror study when no table seats two
    agents)."""
    mixed = bool((long.groupby(["job", "game_index"]).agent.nunique() > 1).any())
    subject = rows_subject(long, game) if subject is None else subject
    return score_boxes_of(score_counts(long), game, mixed, axes, subject)


def score_boxes_of(counts: pd.DataFrame, game: str, mixed: bool, axes=None, subject=None):
    """Box plots of the score per seat (``score_boxes_data``), the way a score wins on the
    y axis, what a box shows in a legend; ``axes``: one Axes per panel, or None."""
    panels = score_boxes_data(counts, mixed)
    if axes is None:
        columns = min(len(panels), 5 if not mixed else 6)
        rows = -(-len(panels) // columns)
        size = (max(3.2 * columns + 0.5, 6.4), 2.9 * rows + 0.9)  # room for the titles
        fig, axes = plt.subplots(rows, columns, figsize=size, squeeze=False, sharey=True)
        fig.set_layout_engine("constrained")
    axes = np.ravel(axes)
    for ax, (name, boxes) in zip(axes, panels.items(), strict=False):
        ax.bxp(boxes, showmeans=True, showfliers=False)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("agent" if mixed else label("position"))
        ax.tick_params(axis="x", labelrotation=30 if mixed else 0)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    axes[0].set_ylabel(score_label(game))
    fig = axes[0].figure
    ncol = 2 if len(panels) == 1 else 4
    fig.legend(handles=BOX_LEGEND, loc="outside lower center", ncol=ncol, fontsize=8)
    where = "one panel per player count" if mixed else "one panel per agent and player count"
    _suptitle(fig, f"Score per seat, {score_label(game).split(' (')[1][:-1]}: {where}", subject)
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
    reach=None,
    log=False,
    bounds=None,
):
    """One cell per (row, column) variant coloured by ``value`` and annotated with it (and
    ± the half width of its 95% interval, when the table has one) in a size its cell holds.
    With ``center`` the colour map diverges symmetrically around it (e.g. 0 for an edge, 1/n
    for a win share), as far as ``reach`` (default: the farthest value), so that equal
    distances from it have equal colours; the colour bar shows only values inside ``bounds``
    (the statistic's range, default [0, 1] for a share). ``log``: a logarithmic colour scale
    (for a positive statistic spanning decades, such as a chi-square). Axes are labelled by
    ``label``; ``title`` defaults to the label of ``value``."""
    data = sweep_heatmap_data(table, value, rows, columns)
    grid, half = data["value"], data["half"]
    fig, ax = _axes(ax)
    values = grid.to_numpy(float)
    scale = {"cmap": "viridis"}
    if log:
        scale["norm"] = LogNorm(vmin=max(np.nanmin(values), 1e-3), vmax=np.nanmax(values))
    elif center is not None:
        reach = reach or _reach(values, center)
        scale = {"cmap": "RdBu_r", "vmin": center - reach, "vmax": center + reach}
    image = ax.imshow(values, aspect="auto", **scale)
    size = _cell_fontsize(ax, grid.shape, digits + 5)
    for (i, j), cell in np.ndenumerate(values):
        if not np.isnan(cell):
            text = f"{cell:.{digits}f}".replace(f"-{0:.{digits}f}", f"{0:.{digits}f}")
            if half is not None:
                text += "\n" + plus_minus(half.iat[i, j], digits)
            ax.text(j, i, text, ha="center", va="center", fontsize=size, color=_ink(image, cell))
    ax.set_xticks(np.arange(grid.shape[1]), grid.columns, rotation=45, ha="right")
    ax.set_yticks(np.arange(grid.shape[0]), grid.index)
    ax.set(xlabel=label(columns), ylabel=label(rows), title=title or label(value))
    bar = fig.colorbar(image, ax=ax, label=label(value))
    if center is not None and not log:
        low, high = bounds or ((0.0, 1.0) if value.endswith("share") else (-np.inf, np.inf))
        bar.ax.set_ylim(max(center - reach, low), min(center + reach, high))
    return fig


def _reach(values, center: float) -> float:
    """The farthest of ``values`` from ``center`` (1 where all are missing or equal to it)."""
    return float(np.nanmax(np.abs(np.asarray(values, float) - center))) or 1.0


def _cell_fontsize(ax, shape: tuple[int, int], chars: int) -> float:
    """A font size (points, 6 to 10) at which two lines of ``chars`` characters fit in one
    cell of a ``shape`` grid drawn on ``ax``."""
    box = ax.get_position()  # in figure fractions
    width, height = ax.figure.get_size_inches() * 72 * (box.width, box.height)
    cell_width, cell_height = width / max(shape[1], 1), height / max(shape[0], 1)
    return float(np.clip(min(cell_width / (0.62 * chars), cell_height / 3.0), 6, 10))


def _ink(image, value: float) -> str:
    """White text on dark cells of ``image``, black on light ones."""
    red, green, blue, _ = image.cmap(image.norm(value))
    return "white" if 0.299 * red + 0.587 * green + 0.114 * blue < 0.5 else "black"


def sweep_subject(table: pd.DataFrame, game: str, who: str, players=None) -> str:
    """The last title line of a sweep's figure: the game, player counts (``players``, else
    the table's), ``who`` played (e.g. "sniper in every seat"), the games per cell and in
    all, and the interval shown."""
    cells = " / ".join(f"{int(n):,}" for n in sorted(set(table["games"])))
    total = int(table["games"].sum())
    players = players or table.get("n_players")
    counts = counted(np.ravel([players])) if players is not None else ""
    where = f"{load_game(game).title}, {counts}, " if counts else f"{load_game(game).title}, "
    return (
        f"{where}{who}: {cells} games per cell, {total:,} in all; ± half width of the 95% interval"
    )


def sweep_panels(table, panels, rows: str, columns: str, subject: str, ncols=2, size=(8, 6)):
    """Several ``sweep_heatmap`` panels of one sweep table in one figure, titled by
    ``subject`` (``sweep_subject``): ``panels`` is a list of ``(value, options)`` with the
    options of ``sweep_heatmap`` (``center``, ``digits``, ``title``, ``log``) and, for a
    panel of another table of the same sweep, ``table``. Panels of the same value about the
    same centre share one colour scale: a colour means the same number in each."""
    nrows = -(-len(panels) // ncols)
    size = (size[0] * ncols, size[1] * nrows)
    fig, axes = plt.subplots(nrows, ncols, figsize=size, squeeze=False)
    reach = _common_reach(table, panels)
    for ax, (value, options) in zip(axes.flat, panels, strict=False):
        options = {"reach": reach.get((value, options.get("center"))), **options}
        sweep_heatmap(options.pop("table", table), value, rows, columns, ax=ax, **options)
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    fig.suptitle(subject, fontsize=12)
    fig.tight_layout()
    return fig


def _common_reach(table: pd.DataFrame, panels) -> dict:
    """(value, centre) -> the farthest value from the centre over all the panels that show
    that value about that centre."""
    reach = {}
    for value, options in panels:
        if options.get("center") is not None:
            key = (value, options["center"])
            far = _reach(options.get("table", table)[value], options["center"])
            reach[key] = max(reach.get(key, 0.0), far)
    return reach


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
    ax.axhline(
        (prices["win"] > 0).mean(), color="grey", ls="--", lw=1, label="share over all cards"
    )
    ax.set(xlabel="card", ylabel="share of takes by a winner", title=title)
    ax.legend()
    return fig


def price_panels(prices: dict, game: str, players: int = 4):
    """Per agent (``prices``: agent -> ``anatomy.events`` of a table of that agent only), the
    price of each card and the share of its takes in the winner's hand, one row each, each
    panel naming the agent and its games."""
    fig, axes = plt.subplots(len(prices), 2, figsize=(18, 5.5 * len(prices)), squeeze=False)
    word = {2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven"}.get(players, players)
    for row, (agent, frame) in zip(axes, prices.items(), strict=True):
        n_games = f"{frame['game_index'].nunique():,} games"
        card_prices(frame, row[0], title=f"{word} {agent} players: price of each card ({n_games})")
        title = f"{word} {agent} players: cards in the winner's hand, ties included ({n_games})"
        card_winner_share(frame, row[1], title=title)
    fig.suptitle(
        f"{load_game(game).title}, {players} players, one agent in every seat (first player "
        "rotating); 95% intervals"
    )
    fig.tight_layout()
    return fig


def point_sources_data(long: pd.DataFrame, by=("agent", "n_players")) -> pd.DataFrame:
    """``anatomy.point_sources(long, by)``."""
    return anatomy.point_sources(long, by)


def point_sources(long: pd.DataFrame, by=("agent", "n_players"), ax=None, subject=None):
    """Stacked bars of the mean giving, keeping and majority points per seat for each group
    of ``by``, with the 95% interval of the mean score on top; ``subject``: the run."""
    data = point_sources_data(long, by)
    subject = rows_subject(long) if subject is None else subject
    fig, ax = _axes(ax)
    x = np.arange(len(data))
    bottom = np.zeros(len(data))
    for source in anatomy.score_parts(long):
        ax.bar(x, data[source], bottom=bottom, label=source)
        bottom += data[source].to_numpy()
    yerr = np.vstack([data["score"] - data["score_low"], data["score_high"] - data["score"]])
    ax.errorbar(
        x,
        data["score"],
        yerr=yerr,
        fmt="none",
        ecolor="black",
        capsize=2,
        label="mean score, 95% interval",
    )
    names = [" ".join(map(str, k)) if isinstance(k, tuple) else str(k) for k in data.index]
    ax.set_xticks(x, names, rotation=60, ha="right", fontsize=8)
    ax.set(xlabel=", ".join(data.index.names), ylabel="points per seat (highest score wins)")
    _title(ax, "Where the points come from: mean points per seat by source", subject)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    return fig


# ---- learning (experiments.learning) ------------------------------------------------------


def learning_curve_data(curves: dict) -> pd.DataFrame:
    """One row per bin and run: ``run`` (the dict's key), ``episodes``, ``reward``, its 95%
    interval ``ci_low`` and ``ci_high``, and ``games`` (episodes per bin)."""
    return pd.concat([c.frame().assign(run=label) for label, c in curves.items()])


def learning_curve(curves: dict, title: str, fair: float | None = None, ax=None):
    """The learner's mean share of the win per bin of episodes, one line per run (``curves``:
    label -> ``experiments.learning.Curve``) with each bin's 95% interval shaded; ``fair``: a
    dashed line at the equal share."""
    data = learning_curve_data(curves)
    fig, ax = _axes(ax)
    for label, run in data.groupby("run", sort=False):
        line = ax.plot(run["episodes"], run["reward"], marker=".", label=label)[0]
        ax.fill_between(
            run["episodes"], run["ci_low"], run["ci_high"], color=line.get_color(), alpha=0.2
        )
    if fair is not None:
        ax.axhline(fair, color="grey", ls="--", lw=1, label="equal share")
    per = _games(data["games"], "a point")
    ylabel = f"learner's share of the win\n(mean of {per}, 95% interval shaded)"
    ax.set(xlabel="training episodes (games)", ylabel=ylabel, title=title)
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
    ax.set(xlabel="training round", ylabel="win share on held-out deals (95% intervals)")
    ax.set_title(title, fontsize=9)
    ax.set_xticks(curve["round"])
    _at_least(ax, CURVE_SPAN)
    ax.legend()
    return fig


CURVE_SPAN = 0.1  # a learning curve's least height in win share: a 0.01 edge looks its size


def _at_least(ax, span: float) -> None:
    """Widen the y-axis about its middle to ``span`` at least (within [0, 1]): an axis that
    fits a single round's interval makes a gap of a hundredth fill the figure."""
    low, high = ax.get_ylim()
    if high - low < span:
        middle = min(max((low + high) / 2, span / 2), 1 - span / 2)
        ax.set_ylim(middle - span / 2, middle + span / 2)


def value_probe(tables: dict, stage: str, title: str, ylabel: str, ax=None):
    """A probe of a learned network (``experiments.probes``): the mean change of its estimate
    per game stage with 95% bands, one line per table (``tables``: label -> probe table)."""
    fig, ax = _axes(ax)
    for name, table in tables.items():
        ax.plot(table[stage], table["change"], marker=".", label=name)
        ax.fill_between(table[stage], table["ci_low"], table["ci_high"], alpha=0.25)
    ax.axhline(0.0, color="grey", lw=0.8, label="no change")
    ax.set(xlabel=label(stage), ylabel=f"{ylabel} (bands: 95% intervals)", title=title)
    ax.legend()
    return fig


# ---- exact solutions ----------------------------------------------------------------------


def first_player_exact_data(table: pd.DataFrame) -> pd.DataFrame:
    """``exact.first_player_study`` with 95% intervals of the simulated advantages (normal,
    over many games; within the advantage's range, a share of [0, 1] less 1/n)."""
    out = table.copy()
    fair = 1 / out.players
    out["ci_low"] = (out.advantage - stats.Z95 * out.se).clip(lower=-fair)
    out["ci_high"] = (out.advantage + stats.Z95 * out.se).clip(upper=1 - fair)
    return out


def first_player_exact(table: pd.DataFrame, players: int, games: int, ax=None):
    """The first player's advantage (share minus 1/n) against the number of cards: optimal
    play (exact, a thick line) and mirror tables of each agent (simulated, ``games`` games,
    95% intervals), at ``players`` players."""
    data = first_player_exact_data(table[table.players == players])
    fig, ax = _axes(ax)
    for play, part in data.groupby("play", sort=False):
        exact = play.startswith("optimal")
        ax.errorbar(
            part.cards,
            part.advantage,
            yerr=None if exact else _yerr(part, "advantage"),
            label=play,
            linewidth=3 if exact else 1,
            marker="o",
            capsize=3,
        )
    ax.axhline(0, color="grey", linestyle="--", linewidth=1)
    ax.set_xticks(sorted(data.cards.unique()))
    ax.set_xlabel("cards in the deck (of which about 27% removed)")
    ax.set_ylabel("first player's share minus 1/n")
    ax.set_title(
        f"No Thanks!, {players} players: first-player advantage\n"
        f"optimal (exact) and mirror tables ({games:,} games each)"
    )
    ax.legend(fontsize="small", loc="best")
    return fig


def exploitability_bars_data(table: pd.DataFrame) -> pd.DataFrame:
    """Per agent and variant, the largest gain of a best response over the seats, with its
    95% interval (exact for a deterministic agent)."""
    from experiments.exact import worst_seat

    out = worst_seat(table)
    out["ci_low"] = (out.gain - stats.Z95 * out.gain_se).clip(lower=-1)
    out["ci_high"] = (out.gain + stats.Z95 * out.gain_se).clip(upper=1)
    return out


def exploitability_bars(table: pd.DataFrame, ax=None):
    """Each agent's exploitability (the most a best response gains in one seat, in win share)
    per variant, with 95% intervals where the agent randomises; a dot marks the held-out
    lower bound (``gain_low``), which equals the bar for a deterministic agent."""
    data = exploitability_bars_data(table)
    fig, ax = _axes(ax)
    variants = list(dict.fromkeys(data.variant))
    agents = list(dict.fromkeys(data.agent))
    width = 0.8 / len(variants)
    for i, variant in enumerate(variants):
        part = data[data.variant == variant].set_index("agent").reindex(agents)
        x = np.arange(len(agents)) + (i - (len(variants) - 1) / 2) * width
        ax.bar(x, part.gain, width, yerr=_yerr(part, "gain"), capsize=2, label=variant)
        ax.plot(x, part.gain_low, "k.", label="held-out lower bound" if i == 0 else None)
    ax.set_xticks(np.arange(len(agents)), agents, rotation=30, ha="right")
    ax.set_ylabel("gain of a best response in its best seat (win share)")
    ax.set_title(
        "No Thanks!: exploitability on small decks\nexact for deterministic agents;\n"
        f"estimated{_queries(data)}, with 95% intervals, for agents that randomise",
        fontsize=10,
    )
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.set_size_inches(max(fig.get_figwidth(), 11), fig.get_figheight())
    fig.tight_layout()
    return fig


def _queries(data: pd.DataFrame) -> str:
    """ " from 32 queries a decision" (or "16 to 32"), the size of the randomising agents'
    estimates (rows with a standard error), or "" when the table has none."""
    asked = data.loc[data["gain_se"] > 0, "queries"] if "queries" in data else pd.Series()
    if asked.empty:
        return ""
    low, high = int(asked.min()), int(asked.max())
    return (
        f" from {low} queries a decision"
        if low == high
        else f" from {low} to {high} queries a decision"
    )


# ---- the gauntlet (experiments.gauntlet) --------------------------------------------------

GAUNTLET_SPREAD = 0.7  # horizontal room of one field's group of agents


def gauntlet_chart(data: pd.DataFrame, title: str):
    """One player count of a gauntlet (``experiments.gauntlet.chart_data``: one row per
    agent and field, both ordered categoricals). Left: each agent's win share (one colour
    each, 95% intervals) in each field that is not its own copies, fields along x, the fair
    share dashed and labelled. Right, when the table has mirror rows: each agent's turn-order
    gap among its own copies (last position's win share minus the first's) around 0; that
    panel alone when every field is the agent's own copies."""
    mirror = data[data["kind"] == "mirror"]
    shares = data[data["kind"] == "field"]
    wide = 1 + (len(data["agent"].cat.categories) > 4)
    both = len(mirror) and len(shares)
    fig, axes = plt.subplots(
        1,
        2 if both else 1,
        figsize=(11 if both else 8 if len(shares) else 5, 4.8 + 0.3 * wide),
        gridspec_kw={"width_ratios": [3, 1]} if both else None,
        squeeze=False,
        layout="constrained",
    )
    colours = _agent_colours(data["agent"].cat.categories)
    own = data[data["kind"] == "its own field"]
    if len(shares) or not len(mirror):
        _gauntlet_shares(axes[0, 0], shares, own, colours, float(data["fair"].iloc[0]))
    if len(mirror):  # a run of mirrors alone (``--fields self``) has the gaps' panel only
        _gauntlet_gaps(axes[0, -1], mirror, colours)
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
                clip_on=False,  # a share of 0 sits on the axis, whole
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

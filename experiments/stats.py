"""Statistics on tidy per-seat results: every figure with its uncertainty.

Input everywhere is a *long* frame, one row per (game, seat):

| column     | meaning                                                            |
|------------|--------------------------------------------------------------------|
| job        | int; a game is identified by (job, game_index)                     |
| game_index | int                                                                |
| n_players  | int                                                                |
| seat       | int, 0-based                                                       |
| agent      | str, agent spec such as "greedy" or "greedy:T=-3"                  |
| score      | the game's own score (direction differs by game: use ``win``)      |
| win        | float in [0, 1]: the seat's share of the win, ties split (sum 1)   |
| first      | bool: this seat moved first                                        |
| deal       | optional: the deal of the game (shared by the seatings of a group  |
|            | on duplicate deals); without it every game is its own deal         |
| stratum    | optional: the deal's stratum (default: the set of jobs playing it) |
| finish     | optional: the finishing key (higher finishes better), for ratings  |

Every interval is a 95% interval, and the *deal* is its unit: in seat-rotated designs on
duplicate deals the games of one deal are correlated (in No Thanks! the rotations of a field
correlate by +0.16 to +0.44), so shares, mean scores, turn positions and head-to-head rates
get cluster-robust intervals (the games of a deal summed together) and ratings a bootstrap
over deals. The deals are *stratified* (``experiments.blocks``): a design fixes how many deals
each seating group plays, so each deal is measured against its own stratum's mean, not the
pooled one (a round-robin's groups differ by design, and counting that as noise made its
intervals 1.4 to 2.8 times too wide), and the bootstrap redraws deals within strata.

The variance of a ratio of sums over deals (a share, a mean) is its linearisation over
deals, ``sum_h n_h / (n_h - 1) sum_{d in h} (z_d - mean_h z)^2 / N^2`` with ``z_d = value_d -
estimate * count_d`` over the ``n_h`` deals of each stratum ``h`` (strata of one deal are
pooled into one); the same with the whole turn order of a deal gives the covariance of the
turn positions, from which a seat gap and the test of equal positions follow. Quantiles are
Student t's on Satterthwaite's degrees of freedom of that variance (few when a few strata
carry most of it: with 12 deals per group the normal quantile covered 0.91-0.92). A share's
interval is Wilson's at the effective number of trials ``p (1 - p) / se^2``, so it never
leaves [0, 1] and is not of zero width (a share of 0 or 1 counts its deals as the trials);
a gap in [-1, 1] is taken to [0, 1] the same way. ``FEW_DEALS``: tables carry ``deals`` and
figures on fewer deals than this are flagged by whoever prints them. Coverage of all of
these on real games: ``tests/test_coverage.py``.

These functions only compute; ``experiments.plots`` draws. Ratings live in
``experiments.ratings`` (``stats.ratings`` is the same function).
"""

from itertools import permutations

import numpy as np
import pandas as pd
from scipy import special

from experiments.blocks import (
    COLUMNS,
    EPS,
    GAME,
    Z95,
    Block,
    blocks,
    deal_codes,
    deal_strata,
    stratified_cov,
    stratum_values,
)
from experiments.blocks import require as _require
from experiments.ratings import SCALES, ratings

__all__ = ["COLUMNS", "EPS", "GAME", "SCALES", "ratings"]

SEAT_TABLE = (  # the columns of summary_seat_table
    "games",
    "win_share",
    "win_low",
    "win_high",
    "fair",
    "mean_score",
    "score_low",
    "score_high",
)
FEW_DEALS = 30  # an interval over fewer deals is flagged: its coverage is not assured
NO_SPREAD = 1e-12  # a standard error below this is rounding (1e-18 from sums of thirds): none


def too_few(deals) -> bool:
    """True when a figure rests on some deals but fewer than ``FEW_DEALS`` (None: unknown)."""
    return deals is not None and 0 < deals < FEW_DEALS


def few_note(deals) -> str:
    """A figure's mark when it rests on too few deals (:func:`too_few`), else ``""``."""
    if not too_few(deals):
        return ""
    count = f"{int(deals):,} deal" + ("s" if deals != 1 else "")
    return f"† {count}, fewer than {FEW_DEALS}: coverage not assured"


def quantile(df, level: float = 0.975):
    """The ``level`` point (97.5%: the two-sided 95% interval's) of Student's t with ``df``
    degrees of freedom (normal where ``df`` is infinite; NaN where it is below 1)."""
    df = np.asarray(df, float)
    with np.errstate(invalid="ignore"):
        out = np.where(df >= 1, special.stdtrit(np.maximum(df, 1), level), np.nan)
    return float(out) if out.ndim == 0 else out


def _as_list(by) -> list:
    return [by] if isinstance(by, str) else list(by)


def wilson(successes, trials, z: float = Z95):
    """Wilson score interval ``(low, high)`` for ``successes`` out of ``trials`` (scalars or
    arrays; fractional successes such as split ties are accepted). NaN where ``trials`` is 0."""
    s = np.asarray(successes, float)
    n = np.asarray(trials, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.clip(s / n, 0, 1)
        denom = 1 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
    # The interval holds p; min and max take out rounding (p = 0 gave a low of 5.6e-17).
    return np.clip(np.minimum(centre - half, p), 0, 1), np.clip(np.maximum(centre + half, p), 0, 1)


def share_interval(share, se, deals, z=Z95):
    """A 95% interval ``(low, high)`` for a share in [0, 1] with standard error ``se``: the
    Wilson interval at the effective number of trials ``share (1 - share) / se^2`` (the
    interval ``share +- z se`` when that is large, inside [0, 1] always; ``z`` may be a
    t quantile per row, see ``quantile``); where
    ``se`` is 0 (every deal alike, e.g. a share of 0 or 1; below ``NO_SPREAD``, rounding) the
    trials are the ``deals``: a deal's share lies in [0, 1], so its variance is at most
    ``share (1 - share)``, and this interval, of the largest variance the deals could have, is
    conservative (at a share strictly inside, wider than the deals show). NaN where ``se`` is
    NaN."""
    p = np.clip(np.asarray(share, float), 0, 1)
    se = np.asarray(se, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        trials = np.where(se > NO_SPREAD, p * (1 - p) / se**2, np.asarray(deals, float))
        trials = np.where(p * (1 - p) > 0, trials, np.asarray(deals, float))
    low, high = wilson(p * trials, trials, z)
    low, high = np.where(np.isnan(se), np.nan, low), np.where(np.isnan(se), np.nan, high)
    return (float(low), float(high)) if low.ndim == 0 else (low, high)


def share_p_value(share, se, deals, fair, df=np.inf) -> float:
    """The one-sided p of "the share is at most ``fair``" against "above it" that agrees with
    :func:`share_interval`: ``P(T > z)`` for the quantile ``z`` at which that interval's end
    nearer ``fair`` reaches it (Student's t with ``df`` degrees of freedom), so p < 0.025
    exactly when the 95% interval's lower end is above ``fair``, and p > 0.975 when its upper
    end is below. NaN where ``se`` is NaN."""
    if np.isnan(se) or not 0 < fair < 1:
        return float("nan")
    if share == fair:
        return 0.5
    tail = _t_tail(_reaching(share, se, deals, fair), df)
    return float(tail if share > fair else 1 - tail)


def _reaching(share, se, deals, fair) -> float:
    """The quantile ``z`` at which :func:`share_interval`'s end nearer ``fair`` reaches it
    (``share`` is not ``fair``)."""
    end = 0 if share > fair else 1  # the interval's end that moves towards fair as z grows

    def past(z):  # > 0 while that end has not reached fair
        return (share_interval(share, se, deals, z)[end] - fair) * (1 if end == 0 else -1)

    top = 1.0
    while past(top) > 0 and top < 1e3:
        top *= 2
    from scipy.optimize import brentq  # 0.4 s to import: only where a p-value is asked

    return brentq(past, 0.0, top, xtol=1e-10) if past(top) <= 0 else top


def _t_tail(z, df) -> float:
    return float(special.stdtr(df, -z) if np.isfinite(df) else special.ndtr(-z))


def gap_interval(gap, se, deals, z: float = Z95):
    """``share_interval`` for a difference of two shares, in [-1, 1]: on ``(1 + gap) / 2``."""
    low, high = share_interval((1 + np.asarray(gap, float)) / 2, np.asarray(se) / 2, deals, z)
    return 2 * low - 1, 2 * high - 1


def gap_test(gap, se, deals, df=np.inf) -> dict:
    """The two-sided test of "the gap is 0" that agrees with :func:`gap_interval`:
    ``p_value`` below 0.05 exactly when its 95% interval (Student's t with ``df``) leaves 0
    out, and ``chi2``, the square of the quantile at which an end of that interval reaches 0
    (``F(1, df)`` with that p); both NaN where the interval is (``se`` NaN, ``df`` below 1)."""
    if np.isnan(se) or not df >= 1:
        return {"chi2": np.nan, "p_value": np.nan}
    z = 0.0 if gap == 0 else _reaching((1 + gap) / 2, se / 2, deals, 0.5)
    return {"chi2": z**2, "p_value": min(1.0, 2 * _t_tail(z, df))}


# ---- shares and means ---------------------------------------------------------------------


def clustered_mean(
    frame: pd.DataFrame, value: str, count: str, by, cluster: str, t=False, stratum=None
):
    """The ratio mean ``sum(value) / sum(count)`` per ``by`` group with a cluster-robust 95%
    interval: ``frame`` holds per-(group, cluster) sums or single rows; rows of one cluster
    are summed first, and the variance is ``sum_h n_h / (n_h - 1) sum_c (z_c - mean_h z)^2 /
    (sum count)^2`` with ``z_c = value_c - mean * count_c`` over the group's clusters in each
    stratum ``h`` of the column ``stratum`` (one stratum without it; strata of one cluster are
    pooled). Columns ``n`` (sum of ``count``), ``mean``, ``se``, ``df`` (Satterthwaite's
    degrees of freedom of the variance, ``blocks.stratified_cov``), ``half`` (half width:
    Student t with ``df`` if ``t``, else normal; NaN without a degree of freedom) and
    ``clusters``. When every row is its own cluster and there is one stratum this is the
    usual ``sd / sqrt(n)`` interval, with n - 1 degrees of freedom."""
    keys = _as_list(by)
    strata = [stratum] if stratum else []
    _require(frame, [value, count, cluster, *keys, *strata])
    sums = frame.groupby([*keys, *strata, cluster], observed=True, sort=True)[[value, count]].sum()
    group = sums.groupby(level=keys, observed=True, sort=True)
    totals = group.sum()
    table = pd.DataFrame(
        {"n": totals[count], "mean": totals[value] / totals[count], "clusters": group.size()}
    )
    codes = group.ngroup().to_numpy()
    residual = sums[value].to_numpy() - table["mean"].to_numpy()[codes] * sums[count].to_numpy()
    layer = sums.index.get_level_values(stratum).to_numpy() if stratum else np.zeros(len(sums))
    spread, _, free, df = stratified_cov(codes, layer, residual[:, None])
    with np.errstate(invalid="ignore", divide="ignore"):
        table["se"] = np.where(free > 0, np.sqrt(spread[:, 0, 0]), np.nan) / table["n"]
    table["df"] = df[:, 0]
    table["half"] = (quantile(table["df"]) if t else Z95) * table["se"]
    return table


def _with_deal(long: pd.DataFrame) -> pd.DataFrame:
    deal = deal_codes(long)
    return long.assign(_deal=deal, _stratum=deal_strata(long, deal)[deal], _one=1.0)


def win_share(long: pd.DataFrame, by="agent") -> pd.DataFrame:
    """Mean win per group of rows: ``seats`` (rows), ``win_share``, its 95% interval with the
    deal as unit (``ci_low``, ``ci_high``: ``share_interval`` of the stratified cluster-robust
    standard error), ``fair``, the mean of 1/n_players over the rows (the share expected by
    chance) and ``deals``."""
    _require(long, ["win", "n_players", *_as_list(by)])
    table = clustered_mean(_with_deal(long), "win", "_one", by, "_deal", stratum="_stratum")
    fair = (1 / long["n_players"]).groupby([long[c] for c in _as_list(by)], sort=True).mean()
    return _share_table(table, fair.reindex(table.index))


def deal_win_share(deals: pd.DataFrame, by="agent") -> pd.DataFrame:
    """``win_share`` from per-(deal, agent, ..) sums (``experiments.results.deal_sums``:
    columns ``deal``, ``stratum``, ``n_players``, ``seats``, ``win_sum`` and ``by``): same
    columns, same intervals."""
    _require(deals, ["deal", "stratum", "n_players", "seats", "win_sum", *_as_list(by)])
    table = clustered_mean(deals, "win_sum", "seats", by, "deal", stratum="stratum")
    fair = deals.assign(_fair=deals["seats"] / deals["n_players"])
    fair = fair.groupby(_as_list(by), sort=True)[["_fair", "seats"]].sum()
    return _share_table(table, fair["_fair"] / fair["seats"])


def deal_mean_score(deals: pd.DataFrame, by="agent", ranges=None) -> pd.DataFrame:
    """``mean_score`` from per-(deal, agent, ..) sums (``deal``, ``stratum``, ``seats``,
    ``score_sum``), its interval in the score's range (``ranges``: see :func:`in_range`)."""
    _require(deals, ["deal", "stratum", "seats", "score_sum", *_as_list(by)])
    table = clustered_mean(deals, "score_sum", "seats", by, "deal", t=True, stratum="stratum")
    return _mean_table(table, ranges)


def _share_table(table: pd.DataFrame, fair: pd.Series) -> pd.DataFrame:
    out = pd.DataFrame({"seats": table["n"].round().astype(int), "win_share": table["mean"]})
    z = quantile(table["df"])
    out["ci_low"], out["ci_high"] = share_interval(table["mean"], table["se"], table["clusters"], z)
    out["fair"] = fair
    out["deals"] = table["clusters"]
    return out


def _mean_table(table: pd.DataFrame, ranges=None) -> pd.DataFrame:
    out = pd.DataFrame({"seats": table["n"].round().astype(int), "mean": table["mean"]})
    out["ci_low"] = table["mean"] - table["half"]
    out["ci_high"] = table["mean"] + table["half"]
    out["deals"] = table["clusters"]
    return in_range(out, ranges)


def in_range(table: pd.DataFrame, ranges, low="ci_low", high="ci_high") -> pd.DataFrame:
    """``table`` with its interval (columns ``low``, ``high``) clipped into the range of a
    score: ``ranges`` maps each player count to the lowest and highest score
    (``Game.score_range``); rows of a table by ``n_players`` take their own, the rows of
    other tables the widest of all. None: unbounded, the table as it is."""
    if not ranges:
        return table
    if "n_players" in (table.index.names or []):
        counts = table.index.get_level_values("n_players")
        bottom = np.array([ranges[int(n)][0] for n in counts], float)
        top = np.array([ranges[int(n)][1] for n in counts], float)
    else:
        bottom = min(r[0] for r in ranges.values())
        top = max(r[1] for r in ranges.values())
    return table.assign(**{low: table[low].clip(bottom, top), high: table[high].clip(bottom, top)})


def _summary_spread(sums, value: str, square: str, keys: list, rows="deal_rows"):
    """From streamed sums: per ``keys`` group ``n`` (games), ``s`` (sum of ``value``),
    ``mean`` and ``se``, the games of each job a stratum (jobs of one game pooled), widened
    by the column ``rows`` (the group's rows that share one deal, e.g. ``deal_rows`` 4 for a
    field candidate in 4 rotations; 1 without the column): a deal counts as that many games
    of the summed variance, which is never too small; ``df``, Satterthwaite's degrees of
    freedom over the jobs (as ``blocks.stratified_cov``), at most :func:`_deal_freedom`;
    ``deals``, each job's games over its
    rows a deal, summed (jobs of 2 and 3 players in one group count their own deals)."""
    rows = sums[rows] if rows in sums else pd.Series(1, index=sums.index)
    cells = sums.assign(_rows=rows).groupby([*keys, "job"], observed=True, sort=True)
    cells = cells.agg(
        n=("games", "sum"), s=(value, "sum"), q=(square, "sum"), rows=("_rows", "max")
    )
    cells = cells.reset_index().assign(deals=lambda c: c["n"] / c["rows"])
    lone = cells["n"] < 2
    cells.loc[lone, "job"] = -1  # jobs of one game: pooled
    cells = cells.groupby([*keys, "job"], sort=True).agg(
        n=("n", "sum"), s=("s", "sum"), q=("q", "sum"), rows=("rows", "max"), deals=("deals", "sum")
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        within = (cells["q"] - cells["s"] ** 2 / cells["n"]).clip(lower=0)
        cells["var"] = np.where(cells["n"] > 1, within * cells["n"] / (cells["n"] - 1), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        cells["var_sq"] = np.where(cells["n"] > 1, cells["var"] ** 2 / (cells["n"] - 1), 0.0)
    table = cells.groupby(level=keys, sort=True).agg(
        n=("n", "sum"),
        s=("s", "sum"),
        var=("var", "sum"),
        var_sq=("var_sq", "sum"),
        rows=("rows", "max"),
        deals=("deals", "sum"),
        cells=("n", "size"),
    )
    table["deals"] = table["deals"].round().astype(int)
    with np.errstate(invalid="ignore", divide="ignore"):
        games_free = table["n"] - table["cells"]
        free = np.minimum(games_free, _deal_freedom(table["deals"], table["cells"])).astype(float)
        df = np.where(table["var_sq"] > 0, table["var"] ** 2 / table["var_sq"], free)
    table["df"] = np.minimum(df, free)
    table["mean"] = table["s"] / table["n"]
    with np.errstate(invalid="ignore", divide="ignore"):
        table["se"] = np.where(table["n"] > 1, np.sqrt(table["rows"] * table["var"]), np.nan)
    table["se"] /= table["n"]
    return table


def _deal_freedom(deals, strata):
    """Degrees of freedom of a variance over ``deals`` in ``strata``: the deals less the
    strata, or the deals less one where that leaves none. The games of one deal are not
    independent, so counting games made a few deals' intervals too narrow. Sums keep no
    seating groups, so their jobs stand for the strata: on duplicate deals the jobs of a group
    share its deals, so deals less jobs errs wide, and the fallback (deals fewer than jobs)
    can be a few degrees above what the deals by group give."""
    deals, strata = np.asarray(deals, float), np.asarray(strata, float)
    return np.where(deals > strata, deals - strata, deals - 1)


def summary_win_share(sums: pd.DataFrame, by="agent") -> pd.DataFrame:
    """``win_share`` from streamed per-(job, seat) sums (``experiments.results.summary_of``:
    columns ``job``, ``games``, ``win_sum``, ``win_sq``, ``n_players`` and ``by``). Sums keep
    no deals, so the interval is bounded from the worst case: with ``deal_rows`` in ``sums``
    a deal is counted as ``deal_rows`` games of the summed variance, each job's games a
    stratum, whose standard error is never too small; without it every game is its own deal.
    Same columns (``deals`` the number of deals so counted)."""
    _require(sums, ["job", "games", "win_sum", "win_sq", "n_players", *_as_list(by)])
    table = _summary_spread(sums, "win_sum", "win_sq", _as_list(by))
    fair = sums.assign(_fair=sums["games"] / sums["n_players"])
    fair = fair.groupby(_as_list(by), observed=True, sort=True)["_fair"].sum() / table["n"]
    deals = table["deals"]
    out = pd.DataFrame({"seats": table["n"], "win_share": table["mean"]})
    z = quantile(table["df"])
    out["ci_low"], out["ci_high"] = share_interval(table["mean"], table["se"], deals, z)
    out["fair"] = fair
    out["deals"] = deals
    return out


def summary_mean_score(sums: pd.DataFrame, by="agent", ranges=None) -> pd.DataFrame:
    """``mean_score`` from streamed sums (``job``, ``games``, ``score_sum``, ``score_sq``),
    bounded as in ``summary_win_share``, in the score's range (``ranges``: :func:`in_range`)."""
    _require(sums, ["job", "games", "score_sum", "score_sq", *_as_list(by)])
    table = _summary_spread(sums, "score_sum", "score_sq", _as_list(by))
    half = quantile(table["df"]) * table["se"]
    out = pd.DataFrame({"seats": table["n"], "mean": table["mean"]})
    out["ci_low"], out["ci_high"] = table["mean"] - half, table["mean"] + half
    return in_range(out.assign(deals=table["deals"]), ranges)


def mean_score(long: pd.DataFrame, by="agent", ranges=None) -> pd.DataFrame:
    """Mean score per group with a 95% cluster-robust Student-t interval, the deal as unit,
    stratified: ``seats``, ``mean``, ``ci_low``, ``ci_high`` (NaN without a degree of
    freedom; in the score's range with ``ranges``, :func:`in_range`), ``deals``. With one row
    per deal and one stratum this is the usual t interval."""
    return seat_mean(long, "score", by, ranges)


def seat_mean(long: pd.DataFrame, column: str, by="agent", ranges=None) -> pd.DataFrame:
    """``mean_score`` of any per-seat ``column`` of a long table (a part of the score, say)."""
    _require(long, [column, *_as_list(by)])
    table = clustered_mean(_with_deal(long), column, "_one", by, "_deal", True, "_stratum")
    return _mean_table(table, ranges)


# ---- seats --------------------------------------------------------------------------------


def turn_position(long: pd.DataFrame) -> pd.Series:
    """Each row's place in the turn order: 0 for the seat that moved first, then 1, 2, ...
    clockwise (``(seat - first seat) mod n_players``). With a rotating first player this, not
    the seat, is where a seat advantage shows: ``seat_advantage(long.assign(position=
    turn_position(long)), column="position")``."""
    _require(long, ["first", "seat", "n_players", *GAME])
    if (long.groupby(GAME)["first"].sum() != 1).any():
        raise ValueError("every game needs exactly one row with first=True")
    first_seat = long["seat"].where(long["first"]).groupby([long[c] for c in GAME]).transform("max")
    return ((long["seat"] - first_seat) % long["n_players"]).astype(int).rename("position")


class _Positions:
    """The win shares of the places ``0..n-1`` of a seat-like column per (``keys``, n_players)
    group, from per-(cluster, place) sums, with their stratified covariance over clusters.
    ``table``: one row per (keys, n_players, place) with ``games``, ``wins``, ``win_share``,
    ``se``, ``df`` and ``deals``; per player count ``n``, ``parts[n]`` keeps the group labels,
    codes, strata and residuals of the clusters, from which any contrast of places follows."""

    def __init__(self, frame, win, count, keys, column, cluster, stratum):
        keys = [key for key in keys if key != "n_players"]  # every table is by player count
        _require(frame, [win, count, "n_players", column, cluster, stratum, *keys])
        self.keys, self.column, self.parts, tables = keys, column, {}, []
        for n, part in frame.groupby("n_players", sort=True):
            tables.append(self._count(int(n), part, win, count, cluster, stratum))
        self.table = pd.concat(tables).sort_index()

    def _count(self, n, part, win, count, cluster, stratum) -> pd.DataFrame:
        clusters = _Clusters(part, [*self.keys, stratum, cluster])
        place = part[self.column].to_numpy(np.int64)
        wins, games = (clusters.by_place(place, part[c].to_numpy(float), n) for c in (win, count))
        first = part.iloc[clusters.first]
        labels, codes = _group_codes(first, self.keys)
        total_w = _sum_rows(codes, wins, len(labels))
        total_g = _sum_rows(codes, games, len(labels))
        with np.errstate(invalid="ignore", divide="ignore"):
            share = total_w / total_g
            z = np.nan_to_num((wins - share[codes] * games) / total_g[codes])
        layer = first[stratum].to_numpy()
        cov, deals, free, df = stratified_cov(codes, layer, z)
        self.parts[n] = (labels, codes, layer, z, share, cov, deals, free)
        index = pd.MultiIndex.from_tuples(
            [(*label, n, k) for label in labels for k in range(n)],
            names=[*self.keys, "n_players", self.column],
        )
        with np.errstate(invalid="ignore"):
            se = np.sqrt(np.diagonal(cov, axis1=1, axis2=2))
        se = np.where(free[:, None] > 0, se, np.nan)
        columns = {"games": total_g, "wins": total_w, "win_share": share, "se": se, "df": df}
        table = pd.DataFrame({k: v.reshape(-1) for k, v in columns.items()}, index=index)
        table["games"] = np.rint(table["games"]).astype(np.int64)
        return table.assign(deals=np.repeat(deals, n))

    def advantage(self) -> pd.DataFrame:
        table = self.table.copy()
        z = quantile(table["df"])
        table["ci_low"], table["ci_high"] = share_interval(
            table["win_share"], table["se"], table["deals"], z
        )
        table["fair"] = 1 / table.index.get_level_values("n_players")
        return table[["games", "wins", "win_share", "ci_low", "ci_high", "fair", "deals"]]

    def _gap(self, n: int, a: int, b: int):
        """Place ``b``'s share less place ``a``'s in each group of ``n`` players: the gaps,
        their standard errors (their covariance counted) and degrees of freedom."""
        _, codes, layer, z, share, _, _, free = self.parts[n]
        cov, _, _, df = stratified_cov(codes, layer, z[:, b] - z[:, a])
        se = np.where(free > 0, np.sqrt(cov[:, 0, 0]), np.nan)
        return share[:, b] - share[:, a], se, df[:, 0]

    def gap(self, first: int, second: int) -> pd.DataFrame:
        frames = []
        for n, (labels, _, _, _, _, _, deals, _) in self.parts.items():
            a, b = _place(first, n), _place(second, n)
            gap, se, df = self._gap(n, a, b)
            low, high = gap_interval(gap, se, deals, quantile(df))
            index = pd.MultiIndex.from_tuples(
                [(*label, n) for label in labels], names=[*self.keys, "n_players"]
            )
            columns = {"first": a, "second": b, "gap": gap, "ci_low": low, "ci_high": high}
            frames.append(pd.DataFrame(columns | {"deals": deals}, index=index))
        return _single(pd.concat(frames).sort_index())

    def test(self, alpha: float) -> pd.DataFrame:
        """The Wald test of equal places per group; at 2 players, where it and the gap ask
        the same question, the gap interval's test (:func:`gap_test`), so the verdict and the
        printed gap agree."""
        rows = {}
        for n, (labels, _, _, _, share, cov, deals, free) in self.parts.items():
            gaps = self._gap(n, 0, 1) if n == 2 else None
            for g, label in enumerate(labels):
                row = wald_equal_shares(share[g], cov[g], free[g])
                if gaps is not None:
                    row |= _two_places(row, gaps[0][g], gaps[1][g], deals[g], gaps[2][g])
                rows[(*label, n)] = row | {"deals": deals[g]}
        names = [*self.keys, "n_players"]
        table = _single(
            pd.DataFrame(rows.values(), index=pd.MultiIndex.from_tuples(rows, names=names))
        )
        table.insert(0, "games", self.table["games"].groupby(level=names).max())
        table["seat_effect"] = seat_effect(table["p_value"], alpha)
        return table


def _two_places(row: dict, gap, se, deals, df) -> dict:
    """Two places' test: the gap interval's (:func:`gap_test`), where the Wald test could be
    made at all (it keeps the few-deals rule and the no-covariance case)."""
    return row if np.isnan(row["p_value"]) else gap_test(gap, se, deals, df)


def holm_adjusted(p_values) -> np.ndarray:
    """Holm's adjusted p-values: the i-th smallest (from 0) of m is the largest of
    ``(m - j) p_(j)`` for j up to i, at most 1, so that ``adjusted <= alpha`` are exactly
    Holm's step-down rejections at family-wise ``alpha``. NaN stays NaN and is not counted
    in m."""
    p = np.asarray(p_values, float)
    out = np.full(p.shape, np.nan)
    tested = np.flatnonzero(~np.isnan(p))
    order = tested[np.argsort(p[tested], kind="stable")]
    m = len(order)
    out[order] = np.minimum(np.maximum.accumulate((m - np.arange(m)) * p[order]), 1.0)
    return out


def seat_effect(p_value: pd.Series, alpha: float) -> pd.Series:
    """Whether a test shows a seat effect (p < alpha): True or False, or missing (<NA>) where
    no test could be made (p is NaN), never a False that no test said."""
    shown = (p_value < alpha).astype("boolean")
    return shown.mask(p_value.isna())


def _single(table: pd.DataFrame) -> pd.DataFrame:
    """A one-level MultiIndex as a plain index."""
    return (
        table.droplevel(list(range(table.index.nlevels - 1))) if table.index.nlevels == 1 else table
    )


def _group_codes(frame: pd.DataFrame, keys: list):
    """The sorted distinct ``keys`` labels of a frame's rows (tuples) and each row's code."""
    if not keys:
        return [()], np.zeros(len(frame), np.int64)
    codes, labels = pd.MultiIndex.from_frame(frame[keys]).factorize(sort=True)
    return [tuple(label) for label in labels], codes


class _Clusters:
    """The distinct rows of ``levels`` in a frame, in sorted order (a groupby's groups, without
    its index): ``code`` gives each row's cluster (-1 where a level is missing: such rows are
    left out, as a groupby drops them) and ``first`` a row of each cluster. The levels' codes
    are packed into one integer, as in ``results.add_deal_sums``."""

    def __init__(self, frame: pd.DataFrame, levels: list):
        packed, known = np.zeros(len(frame), np.int64), np.ones(len(frame), bool)
        for level in levels:
            codes, values = pd.factorize(frame[level], sort=True)
            packed = packed * len(values) + codes
            known &= codes >= 0
        _, first, code = np.unique(packed[known], return_index=True, return_inverse=True)
        self.first = np.flatnonzero(known)[first]
        self.code = np.full(len(frame), -1, np.int64)
        self.code[known] = code

    def by_place(self, place: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
        """The sums of ``values`` per (cluster, place ``0..n-1``) as a clusters x n array."""
        cells = self.code * n + place
        inside = (place >= 0) & (place < n) & (self.code >= 0)
        size = len(self.first) * n
        return np.bincount(cells[inside], values[inside], size).reshape(-1, n)


def _sum_rows(codes, values: np.ndarray, groups: int) -> np.ndarray:
    out = np.zeros((groups, values.shape[1]))
    np.add.at(out, codes, values)
    return out


def _place(place: int, n: int) -> int:
    """A place 0..n-1 from an index that may count from the end (-1: the last)."""
    if not -n <= place < n:
        raise ValueError(
            f"a place in the turn order of {n} players is in {-n}..{n - 1}, got {place}"
        )
    return place % n


def _keyed(rows: dict, names: list) -> pd.DataFrame:
    index = pd.MultiIndex.from_tuples(list(rows), names=names)
    table = pd.DataFrame(list(rows.values()), index=index)
    return table.droplevel(names[:-1]) if len(names) == 1 else table


def wald_equal_shares(share, cov, free=np.inf) -> dict:
    """Test that every place has the same win share (the differences from place 0 are all 0),
    given the shares, their covariance and its degrees of freedom ``free`` (clusters minus
    strata): the Wald statistic ``chi2`` on ``dof`` (the contrasts' rank) and ``p_value``
    from its F form, ``(free - dof + 1) / (free dof) chi2 ~ F(dof, free - dof + 1)``, which
    is the chi-square test for many deals and does not overstate a few. A difference where
    the covariance has no spread (every deal alike, say a place that never won) is taken as
    certain, ``chi2`` infinite and ``p_value`` 0, only on ``FEW_DEALS`` deals or more; on
    fewer it is not tested (``p_value`` NaN): a place that did not win in 5 deals is no proof
    of a seat effect. No covariance (NaN, from one deal), or fewer degrees of freedom than
    contrasts (fewer deals than places): no test, ``chi2`` and ``p_value`` NaN."""
    share, cov = np.asarray(share, float), np.asarray(cov, float)
    n = len(share)
    if not np.isfinite(cov).all() or free < n - 1:  # fewer deals than places: no test
        return {"chi2": np.nan, "dof": n - 1, "p_value": np.nan}
    contrast = np.eye(n)[1:] - np.eye(n)[0]
    diff = contrast @ share
    inner = contrast @ cov @ contrast.T
    inverse = np.linalg.pinv(inner, hermitian=True)
    unexplained = diff - inner @ inverse @ diff
    dof = max(int(np.linalg.matrix_rank(inner, hermitian=True)), 1)
    if np.abs(unexplained).max(initial=0) > 1e-9:
        if free + 1 < FEW_DEALS:  # free: clusters less strata, so at least deals - 1
            return {"chi2": np.nan, "dof": n - 1, "p_value": np.nan}
        return {"chi2": np.inf, "dof": n - 1, "p_value": 0.0}
    chi2 = float(diff @ inverse @ diff)
    if np.isinf(free):
        return {"chi2": chi2, "dof": dof, "p_value": float(special.chdtrc(dof, chi2))}
    f = (free - dof + 1) / (free * dof) * chi2
    return {"chi2": chi2, "dof": dof, "p_value": float(special.fdtrc(dof, free - dof + 1, f))}


def _long_positions(long: pd.DataFrame, column: str, by) -> _Positions:
    _require(long, ["win", "n_players", column])
    frame = _with_deal(long)
    return _Positions(frame, "win", "_one", _as_list(by), column, "_deal", "_stratum")


def _deal_positions(deals: pd.DataFrame, column: str, by) -> _Positions:
    return _Positions(deals, "win_sum", "seats", _as_list(by), column, "deal", "stratum")


def seat_advantage(long: pd.DataFrame, column: str = "seat", by=()) -> pd.DataFrame:
    """One row per (``by``, n_players, seat): ``games``, ``wins`` (sum of win), ``win_share``,
    its 95% interval with the deal as unit (``ci_low``, ``ci_high``: ``share_interval`` of
    the stratified standard error; Wilson's interval when every game is its own deal),
    ``fair`` = 1/n and ``deals``. ``column`` may name another seat-like column, e.g. a turn
    position."""
    return _long_positions(long, column, by).advantage()


def deal_seat_advantage(deals: pd.DataFrame, column: str = "position", by=()) -> pd.DataFrame:
    """``seat_advantage`` from per-(deal, .., place) sums (``results.deal_sums``)."""
    return _deal_positions(deals, column, by).advantage()


def seat_gap(long: pd.DataFrame, first: int = 0, second: int = -1, column="position", by=()):
    """The win share of place ``second`` minus that of place ``first`` of ``column`` (default:
    the last in the turn order minus the first; negative places count from the end), one row
    per (``by``, n_players): ``first``, ``second``, ``gap`` and its 95% interval with the
    deal as unit (``ci_low``, ``ci_high``; the covariance of the two places counted, so a
    gap is not the difference of two separate intervals), ``deals``."""
    return _long_positions(long, column, by).gap(first, second)


def deal_seat_gap(deals: pd.DataFrame, first=0, second=-1, column="position", by=()):
    """``seat_gap`` from per-(deal, .., place) sums (``results.deal_sums``)."""
    return _deal_positions(deals, column, by).gap(first, second)


def seat_test(long: pd.DataFrame, column: str = "seat", alpha: float = 0.05, by=()):
    """Per (``by``, n_players), the test of "no seat advantage": a Wald test that every place
    of ``column`` has the same win share, with their covariance by deal (split ties and the
    deal's correlation counted). Columns ``games`` (per place), ``chi2``, ``dof``,
    ``p_value``, ``deals`` and ``seat_effect`` (p < alpha)."""
    return _long_positions(long, column, by).test(alpha)


def deal_seat_tables(deals: pd.DataFrame, column="position", by=()):
    """``deal_seat_advantage``, ``deal_seat_gap`` and the turn-order test (as ``seat_test``)
    from these per-deal sums, their defaults, counted once."""
    positions = _deal_positions(deals, column, by)
    return positions.advantage(), positions.gap(0, -1), positions.test(0.05)


def summary_seat_advantage(sums: pd.DataFrame, column: str = "seat", by=()) -> pd.DataFrame:
    """``seat_advantage`` from streamed per-(job, seat) sums (``job``, ``games``, ``win_sum``,
    ``win_sq``); ``by`` names columns (e.g. ``"agent"``) that split the table further, ahead
    of ``n_players``. Without deals the interval is bounded as in ``summary_win_share``,
    a deal counting as ``deal_jobs`` games (the games that make one deal; 1 without the
    column, right for mirror studies, where every game is its own deal)."""
    keys = [*_as_list(by), "n_players", column]
    _require(sums, ["job", "games", "win_sum", "win_sq", *keys])
    table = _summary_spread(sums, "win_sum", "win_sq", keys, rows="deal_jobs")
    out = pd.DataFrame({"games": table["n"], "wins": table["s"], "win_share": table["mean"]})
    deals = table["deals"]
    z = quantile(table["df"])
    out["ci_low"], out["ci_high"] = share_interval(table["mean"], table["se"], deals, z)
    out["fair"] = 1 / out.index.get_level_values("n_players")
    return out.assign(deals=deals)


def summary_seat_gap(sums: pd.DataFrame, first=0, second=-1, column="position", by=()):
    """``seat_gap`` from streamed sums, bounded: sums keep no product of two places' wins, so
    their covariance in a game is taken at its least, ``-p_first p_second`` (exact when
    no game is tied), and deals count as in ``summary_seat_advantage``."""
    keys = [*_as_list(by), "n_players"]
    _require(sums, ["job", "games", "win_sum", "win_sq", column, *keys])
    rows = {}
    for key, part in sums.groupby(keys, observed=True, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        rows[key] = _summary_gap_row(part, first, second, column, int(key[-1]))
    return _keyed(rows, keys)


def _summary_gap_row(part, first, second, column, n) -> dict:
    a, b = _place(first, n), _place(second, n)
    gap, se, deals, df = _summary_gap(part, a, b, column)
    low, high = gap_interval(gap, se, deals, quantile(df))
    return {"first": a, "second": b, "gap": gap, "ci_low": float(low), "ci_high": float(high)} | {
        "deals": deals
    }


def _summary_gap(part, a: int, b: int, column: str):
    """Place ``b``'s share less place ``a``'s from one group's streamed sums: ``(gap, se,
    deals, df)``, Satterthwaite's degrees of freedom capped by :func:`_deal_freedom` (the
    deals less the jobs, or less one) and by the games less the jobs."""
    per_job = part.groupby(["job", column], sort=True)[["games", "win_sum", "win_sq"]].sum()
    per_job = per_job.unstack(column).fillna(0.0)
    games = per_job[("games", a)].to_numpy()
    s_a, s_b = per_job[("win_sum", a)].to_numpy(), per_job[("win_sum", b)].to_numpy()
    q_a, q_b = per_job[("win_sq", a)].to_numpy(), per_job[("win_sq", b)].to_numpy()
    total = games.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        within = q_a - s_a**2 / games + q_b - s_b**2 / games + 2 * s_a * s_b / games
        within = np.where(games > 1, within * games / (games - 1), 0.0)
    rows = int(part["deal_jobs"].max()) if "deal_jobs" in part else 1
    per_deal = part.groupby("job", sort=True)["deal_jobs"].max() if "deal_jobs" in part else 1
    deals = round(float(np.sum(games / per_deal)))  # each job's games over its rows a deal
    se = np.sqrt(rows * within.sum()) / total if total > 1 else np.nan
    gap = (s_b.sum() - s_a.sum()) / total
    with np.errstate(invalid="ignore", divide="ignore"):
        spread = np.where(games > 1, within**2 / (games - 1), 0.0).sum()
    free = min(total - len(games), _deal_freedom(deals, len(games)))
    df = min(within.sum() ** 2 / spread, free) if spread > 0 else free
    return gap, se, deals, df


def summary_seat_table(sums: pd.DataFrame, column: str = "position", by="agent", ranges=None):
    """A seat study in one table, one row per (``by``, n_players, ``column``): ``games``,
    ``win_share`` with its interval (``win_low``, ``win_high``), ``fair``, and
    ``mean_score`` with its Student t interval (``score_low``, ``score_high``; in the score's
    range with ``ranges``, :func:`in_range`)."""
    wins = summary_seat_advantage(sums, column, by)
    scores = summary_mean_score(sums, [*_as_list(by), "n_players", column], ranges)
    wins = wins.rename(columns={"ci_low": "win_low", "ci_high": "win_high"})
    scores = scores.rename(
        columns={"mean": "mean_score", "ci_low": "score_low", "ci_high": "score_high"}
    )
    return wins.join(scores.drop(columns="deals"))[list(SEAT_TABLE)]


def summary_seat_test(sums: pd.DataFrame, column: str = "seat", alpha: float = 0.05, by=()):
    """Per (``by``, n_players), the chi-square test of "no seat advantage" from streamed sums:
    the per-place win sums against equal expected counts, the statistic divided by
    ``deal_jobs`` (the games of one deal, if the column is there: a bound on the deal's
    design effect). With split ties the test is conservative: a tied game spreads its one
    win over several seats, so the win sums vary less than the multinomial the test
    assumes (at alpha 0.05 its size falls from 0.045 with no ties to 0.026 with 10% tied
    games); a p-value below alpha is still valid, one above it may hide a small effect.
    Columns ``games``, ``chi2``, ``dof``, ``p_value``, ``deals`` (the fewest of a place, as
    ``summary_seat_advantage`` counts them), ``seat_effect``. As in the by-deal test, a place
    that never (or always) won is no proof on fewer than ``FEW_DEALS`` deals (no test, NaN),
    and at 2 players the test is the gap interval's (:func:`gap_test`)."""
    table = summary_seat_advantage(sums, column, by)
    rows = sums["deal_jobs"] if "deal_jobs" in sums else pd.Series(1, index=sums.index)
    test = _chisquare_table(table, alpha, float(rows.max()))
    keys = [*_as_list(by), "n_players"]
    for key, part in sums.groupby(keys, observed=True, sort=True):
        at = key[0] if isinstance(key, tuple) and len(key) == 1 else key
        if part["n_players"].iat[0] == 2 and not np.isnan(test.loc[at, "p_value"]):
            gap, se, deals, df = _summary_gap(part, 0, 1, column)  # 2 places: the gap's test
            found = gap_test(gap, se, deals, df)
            test.loc[at, ["chi2", "p_value"]] = [found["chi2"], found["p_value"]]
    test["seat_effect"] = seat_effect(test["p_value"], alpha)
    return test


def summary_seat_verdict(sums: pd.DataFrame, column: str = "position", by="agent", alpha=0.05):
    """The headline of a seat study, one row per (``by``, n_players): games per seat, the win
    share of ``column`` 0 (the first player, for turn positions) with its interval
    (``first_share``, ``first_low``, ``first_high``), ``fair``, the best ``column`` and its
    share and interval, the worst and its share, the chi-square test of
    ``summary_seat_test``, and the last place minus the first with its interval (``gap``,
    ``gap_low``, ``gap_high``: ``summary_seat_gap``)."""
    table = summary_seat_advantage(sums, column, by)
    shares = table["win_share"].groupby(level=list(table.index.names[:-1]), sort=True)
    first = table.xs(0, level=column)[["games", "win_share", "ci_low", "ci_high", "fair"]]
    verdict = first.set_axis(["games", "first_share", "first_low", "first_high", "fair"], axis=1)
    best = list(shares.idxmax())
    verdict["best"] = [key[-1] for key in best]
    verdict["best_share"] = shares.max()
    verdict["best_low"] = table.loc[best, "ci_low"].to_numpy()
    verdict["best_high"] = table.loc[best, "ci_high"].to_numpy()
    verdict["worst"] = shares.idxmin().map(lambda key: key[-1])
    verdict["worst_share"] = shares.min()
    test = summary_seat_test(sums, column, alpha, by)
    gap = summary_seat_gap(sums, 0, -1, column, by)[["gap", "ci_low", "ci_high"]]
    gap = gap.set_axis(["gap", "gap_low", "gap_high"], axis=1)
    return verdict.join(test[["chi2", "p_value", "seat_effect"]]).join(gap)


def _chisquare_table(table: pd.DataFrame, alpha: float, design: float = 1.0) -> pd.DataFrame:
    """One chi-square row per group of all index levels but the last (the seat column), the
    statistic divided by ``design``."""
    levels = list(table.index.names[:-1])
    rows = {
        key if isinstance(key, tuple) else (key,): _chisquare_row(part, design)
        for key, part in table.groupby(level=levels, sort=True)
    }
    result = pd.DataFrame(rows.values(), index=pd.MultiIndex.from_tuples(rows, names=levels))
    if len(levels) == 1:
        result.index = result.index.get_level_values(0)
    result["seat_effect"] = seat_effect(result["p_value"], alpha)
    return result


def _chisquare_row(part: pd.DataFrame, design: float) -> dict:
    """Win sums against expected counts proportional to each seat's games (equal when every
    seat played the same number of games)."""
    wins = part["wins"].to_numpy(float)
    games = part["games"].to_numpy(float)
    expected = wins.sum() * games / games.sum()
    chi2 = float(((wins - expected) ** 2 / expected).sum()) / design  # Pearson's statistic
    certain = ((wins == 0) | (wins == games)).any()  # as wald_equal_shares: not on few deals
    few = "deals" in part and part["deals"].min() < FEW_DEALS
    row = {
        "games": int(part["games"].max()),
        "chi2": np.nan if certain and few else chi2,
        "dof": len(wins) - 1,
        "p_value": np.nan if certain and few else float(special.chdtrc(len(wins) - 1, chi2)),
    }
    return row | ({"deals": int(part["deals"].min())} if "deals" in part else {})


def games_needed(effect: float, n_players: int, alpha: float = 0.05, power: float = 0.8) -> int:
    """Games needed for a two-sided one-sample test of the win share of turn position 0 (the
    first player) against the fair share
    p0 = 1/n to detect a true share p1 = p0 + effect, by the normal approximation:

        N = ceil( ((z_{1-alpha/2} sqrt(p0 (1 - p0)) + z_{power} sqrt(p1 (1 - p1))) / effect)^2 )

    The first player is treated as winning or not once per game; split ties only lower the
    variance, so N errs on the safe side. It fits mirror seat studies (independent games), not
    field designs on duplicate deals."""
    p0 = 1 / n_players
    p1 = p0 + effect
    if n_players < 2 or effect == 0 or not 0 < p1 < 1:
        raise ValueError(f"need n_players >= 2 and 0 < 1/n + effect < 1, effect != 0; got {p1}")
    if not (0 < alpha < 1 and 0 < power < 1):
        raise ValueError("alpha and power must lie in (0, 1)")
    z_a, z_b = special.ndtri(1 - alpha / 2), special.ndtri(power)
    root = (z_a * np.sqrt(p0 * (1 - p0)) + z_b * np.sqrt(p1 * (1 - p1))) / abs(effect)
    return int(np.ceil(root**2 - 1e-9))


# ---- head to head -------------------------------------------------------------------------


def _head_to_head(long: pd.DataFrame):
    """Sorted agent names and the rows of every ordered seat pair of agents A != B at one
    table: ``key`` (A * K + B), ``deal``, ``outcome`` (A finishes ahead of B: 1, level: 1/2)
    and ``weight`` 1 / (copies of A x copies of B) at its table, so each game in which both
    took part counts once. The finishing order is the column ``finish`` (the game's
    ``finish_key``, ``results.long_table``), else the win share: without it, a game that a
    third seat won leaves A and B level."""
    names, parts = blocks(long, "finish" if "finish" in long.columns else "win")
    rows = [_pair_rows(block, len(names)) for block in parts]
    key, deal, outcome, weight = (np.concatenate(r) for r in zip(*rows, strict=True))
    return names, key, deal, outcome, weight


def _pair_rows(block: Block, k: int):
    first, second = np.array(list(permutations(range(block.n), 2)), int).reshape(-1, 2).T
    a, b = block.agent[:, first], block.agent[:, second]
    copies = (block.agent[:, :, None] == block.agent[:, None, :]).sum(2)
    weight = 1 / (copies[:, first] * copies[:, second])
    diff = block.key[:, first] - block.key[:, second]
    outcome = (diff > EPS) + 0.5 * (np.abs(diff) <= EPS)
    deal = np.broadcast_to(block.deal[:, None], a.shape)
    keep = a != b
    return (a * k + b)[keep], deal[keep], outcome[keep], weight[keep]


def _head_to_head_sums(long: pd.DataFrame):
    names, key, _, outcome, weight = _head_to_head(long)
    k = len(names)
    beats = np.bincount(key, weights=outcome * weight, minlength=k * k)
    games = np.bincount(key, weights=weight, minlength=k * k)
    return names, beats.reshape(k, k), games.reshape(k, k)


def pairwise(long: pd.DataFrame) -> pd.DataFrame:
    """Square frame, agent (rows) x opponent (columns): over games where both took part at
    different seats, the share in which the row agent finishes ahead of the opponent (by the
    column ``finish`` if the frame has it, else by the win), level finishes counting 1/2.
    Where an agent holds several seats, every (A seat, B seat) pair of the game is compared
    and the game's pairs are averaged. NaN on the diagonal and for agents that never
    met; ``pairwise(long) + pairwise(long).T == 1`` where defined."""
    names, beats, games = _head_to_head_sums(long)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(games > 0, beats / games, np.nan)
    return _square(share, names)


def pairwise_counts(long: pd.DataFrame) -> pd.DataFrame:
    """Games behind each cell of ``pairwise`` (symmetric, int); intervals: ``pairwise_table``."""
    names, _, games = _head_to_head_sums(long)
    return _square(np.rint(games).astype(int), names)


def pairwise_table(long: pd.DataFrame) -> pd.DataFrame:
    """``pairwise`` as a table, one row per (agent, opponent) that met: ``games``, ``share`` and
    its 95% interval with the deal as unit (``ci_low``, ``ci_high``: ``share_interval`` of
    the stratified cluster-robust standard error; the games of one deal are summed
    together), and ``deals``."""
    return deal_pairwise_table(pair_sums(long))


def pair_sums(long: pd.DataFrame) -> pd.DataFrame:
    """The head-to-head games of a long frame summed per (deal, stratum, agent, opponent):
    ``beats`` (the games the agent finishes ahead of the opponent, level 1/2) and ``games``
    (each game in which both took part counted once, as in ``pairwise``). ``deal`` is the
    frame's ``deal`` column, or a game code without one; ``stratum`` that of
    ``blocks.stratum_values``; agents are categories. Sums of several frames add up
    (``add_pair_sums``), so a results folder can be read chunk by chunk (with a ``stratum``
    column from the design); ``deal_pairwise_table`` makes the table."""
    names, key, deal, outcome, weight = _head_to_head(long)
    k = len(names)
    deals = np.unique(long["deal"].to_numpy()) if "deal" in long.columns else None
    frame = pd.DataFrame(
        {
            "deal": deal if deals is None else deals[deal],
            "stratum": stratum_values(long)[deal],
            "agent": pd.Categorical.from_codes(key // k, categories=names),
            "opponent": pd.Categorical.from_codes(key % k, categories=names),
            "beats": outcome * weight,
            "games": weight,
        }
    )
    return add_pair_sums([frame])


def add_pair_sums(parts) -> pd.DataFrame:
    """Several ``pair_sums`` frames as one (a deal spread over several is summed)."""
    frame = pd.concat(parts, ignore_index=True)
    keys = ["deal", "stratum", "agent", "opponent"]
    return frame.groupby(keys, as_index=False, sort=True, observed=True).sum()


def deal_pairwise_table(pairs: pd.DataFrame) -> pd.DataFrame:
    """``pairwise_table`` from per-(deal, stratum, agent, opponent) sums (``pair_sums``)."""
    _require(pairs, ["deal", "stratum", "agent", "opponent", "beats", "games"])
    keys = ["agent", "opponent"]
    table = clustered_mean(pairs, "beats", "games", keys, "deal", stratum="stratum")
    levels = [table.index.get_level_values(i).astype(str) for i in range(2)]
    z = quantile(table["df"])
    low, high = share_interval(table["mean"], table["se"], table["clusters"], z)
    out = pd.DataFrame(
        {
            "games": np.rint(table["n"].to_numpy()).astype(int),
            "share": table["mean"].to_numpy(),
            "ci_low": low,
            "ci_high": high,
            "deals": table["clusters"].to_numpy(),
        },
        index=pd.MultiIndex.from_arrays(levels, names=keys),
    )
    return out


def _square(values: np.ndarray, names) -> pd.DataFrame:
    index = pd.Index(names, name="agent")
    return pd.DataFrame(values, index=index, columns=pd.Index(names, name="opponent"))

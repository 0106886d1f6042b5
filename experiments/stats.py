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
| deal       | optional: the deal of the game (shared by the rotations of a       |
|            | seating on duplicate deals); without it every game is its own deal |
| finish     | optional: the finishing key (higher finishes better), for ratings  |

Every interval is a 95% interval, and the *deal* is its unit: in seat-rotated designs on
duplicate deals the games of one deal are correlated (in No Thanks! the rotations of a field
correlate by +0.16 to +0.44), so shares, mean scores and head-to-head rates get cluster-robust
intervals (the games of a deal summed together) and ratings a bootstrap over deals. These
functions only compute; ``experiments.plots`` draws. Ratings live in ``experiments.ratings``
(``stats.ratings`` is the same function).
"""

from itertools import permutations

import numpy as np
import pandas as pd
from scipy import stats

from experiments.blocks import COLUMNS, EPS, GAME, Block, blocks, deal_codes, row_ids
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
Z95 = float(stats.norm.ppf(0.975))


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
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


# ---- shares and means ---------------------------------------------------------------------


def clustered_mean(frame: pd.DataFrame, value: str, count: str, by, cluster: str, t=False):
    """The ratio mean ``sum(value) / sum(count)`` per ``by`` group with a cluster-robust 95%
    interval: ``frame`` holds per-(group, cluster) sums or single rows; rows of one cluster are
    summed first, and the variance is ``C / (C - 1) * sum_c (value_c - mean * count_c)^2 /
    (sum count)^2`` over the group's C clusters (normal quantile, or Student t with C - 1
    degrees of freedom if ``t``). When every row is its own cluster this is the usual
    ``sd / sqrt(n)`` interval. Columns ``n`` (sum of ``count``), ``mean``, ``half`` (half width,
    NaN for one cluster) and ``clusters``."""
    keys = _as_list(by)
    _require(frame, [value, count, cluster, *keys])
    sums = frame.groupby([*keys, cluster], observed=True, sort=True)[[value, count]].sum()
    group = sums.groupby(level=keys, observed=True, sort=True)
    totals = group.sum()
    table = pd.DataFrame(
        {"n": totals[count], "mean": totals[value] / totals[count], "clusters": group.size()}
    )
    mean = table["mean"].reindex(sums.index.droplevel(cluster)).to_numpy()
    residual = sums[value].to_numpy() - mean * sums[count].to_numpy()
    spread = pd.Series(residual**2, index=sums.index).groupby(level=keys, sort=True).sum()
    c = table["clusters"]
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = spread * c / (c - 1) / table["n"] ** 2
        quantile = stats.t.ppf(0.975, c - 1) if t else Z95
    table["half"] = np.where(c > 1, quantile * np.sqrt(variance), np.nan)
    return table


def _with_deal(long: pd.DataFrame) -> pd.DataFrame:
    return long.assign(_deal=deal_codes(long), _one=1.0)


def win_share(long: pd.DataFrame, by="agent") -> pd.DataFrame:
    """Mean win per group of rows: ``seats`` (rows), ``win_share``, a 95% cluster-robust normal
    interval with the deal as unit (``ci_low``, ``ci_high``, clipped to [0, 1]), ``fair``, the
    mean of 1/n_players over the rows (the share expected by chance) and ``deals``."""
    _require(long, ["win", "n_players", *_as_list(by)])
    table = clustered_mean(_with_deal(long), "win", "_one", by, "_deal")
    fair = (1 / long["n_players"]).groupby([long[c] for c in _as_list(by)], sort=True).mean()
    return _share_table(table, fair.reindex(table.index))


def deal_win_share(deals: pd.DataFrame, by="agent") -> pd.DataFrame:
    """``win_share`` from per-(deal, agent) sums (``experiments.results.deal_sums``: columns
    ``deal``, ``seats``, ``win_sum``, ``fair_sum`` and ``by``): same columns, same intervals."""
    _require(deals, ["deal", "seats", "win_sum", "fair_sum", *_as_list(by)])
    table = clustered_mean(deals, "win_sum", "seats", by, "deal")
    fair = clustered_mean(deals, "fair_sum", "seats", by, "deal")["mean"]
    return _share_table(table, fair)


def deal_mean_score(deals: pd.DataFrame, by="agent") -> pd.DataFrame:
    """``mean_score`` from per-(deal, agent) sums (``deal``, ``seats``, ``score_sum``)."""
    _require(deals, ["deal", "seats", "score_sum", *_as_list(by)])
    table = clustered_mean(deals, "score_sum", "seats", by, "deal", t=True)
    return _mean_table(table)


def _share_table(table: pd.DataFrame, fair: pd.Series) -> pd.DataFrame:
    out = pd.DataFrame({"seats": table["n"].round().astype(int), "win_share": table["mean"]})
    out["ci_low"] = (table["mean"] - table["half"]).clip(0, 1)
    out["ci_high"] = (table["mean"] + table["half"]).clip(0, 1)
    out["fair"] = fair
    out["deals"] = table["clusters"]
    return out


def _mean_table(table: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame({"seats": table["n"].round().astype(int), "mean": table["mean"]})
    out["ci_low"] = table["mean"] - table["half"]
    out["ci_high"] = table["mean"] + table["half"]
    out["deals"] = table["clusters"]
    return out


def summary_win_share(sums: pd.DataFrame, by="agent") -> pd.DataFrame:
    """``win_share`` from streamed per-(job, seat) sums (``experiments.results.summary_of``:
    columns ``games``, ``win_sum``, ``win_sq``, ``n_players`` and ``by``). Sums keep no deals, so
    the interval is bounded from the worst case: with ``deal_rows`` in ``sums`` (the agent's
    rows that share one deal, e.g. 4 for a field candidate in 4 rotations) a deal is counted as
    one game of the summed variance (the per-game half width times sqrt(deal_rows)), which is
    never too narrow; without it every game is its own deal. Same columns (``deals`` the
    number of deals so counted)."""
    _require(sums, ["games", "win_sum", "win_sq", "n_players", *_as_list(by)])
    rows = sums["deal_rows"] if "deal_rows" in sums else pd.Series(1, index=sums.index)
    fair = sums["games"] / sums["n_players"]
    totals = sums.assign(fair=fair, deal_rows=rows).groupby(by, observed=True, sort=True)
    rows = totals["deal_rows"].max()
    totals = totals[["games", "win_sum", "win_sq", "fair"]].sum()
    n, mean = totals["games"], totals["win_sum"] / totals["games"]
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(((totals["win_sq"] - n * mean**2) / (n - 1)).clip(lower=0))
    half = Z95 * sd * np.sqrt(rows / n)
    table = pd.DataFrame({"seats": n, "win_share": mean})
    table["ci_low"] = (mean - half).clip(0, 1)
    table["ci_high"] = (mean + half).clip(0, 1)
    table["fair"] = totals["fair"] / n
    table["deals"] = n // rows
    return table


def summary_mean_score(sums: pd.DataFrame, by="agent") -> pd.DataFrame:
    """``mean_score`` from streamed sums (``games``, ``score_sum``, ``score_sq``), with a
    normal 95% interval (the sums are over many games), widened by ``deal_rows`` as in
    ``summary_win_share``."""
    _require(sums, ["games", "score_sum", "score_sq", *_as_list(by)])
    rows = sums["deal_rows"] if "deal_rows" in sums else pd.Series(1, index=sums.index)
    groups = sums.assign(deal_rows=rows).groupby(by, observed=True, sort=True)
    rows = groups["deal_rows"].max()
    totals = groups[["games", "score_sum", "score_sq"]].sum()
    n = totals["games"]
    mean = totals["score_sum"] / n
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(((totals["score_sq"] - n * mean**2) / (n - 1)).clip(lower=0))
    half = Z95 * sd * np.sqrt(rows / n)
    table = pd.DataFrame({"seats": n, "mean": mean, "ci_low": mean - half, "ci_high": mean + half})
    return table.assign(deals=n // rows)


def mean_score(long: pd.DataFrame, by="agent") -> pd.DataFrame:
    """Mean score per group with a 95% cluster-robust Student-t interval, the deal as unit:
    ``seats``, ``mean``, ``ci_low``, ``ci_high`` (NaN for a group of one deal), ``deals``. With
    one row per deal and group this is the usual t interval."""
    _require(long, ["score", *_as_list(by)])
    table = clustered_mean(_with_deal(long), "score", "_one", by, "_deal", t=True)
    return _mean_table(table)


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


def seat_advantage(long: pd.DataFrame, column: str = "seat") -> pd.DataFrame:
    """One row per (n_players, seat): ``games``, ``wins`` (sum of win), ``win_share``, a 95%
    Wilson interval counting the fractional wins as successes out of ``games`` trials, and
    ``fair`` = 1/n. ``column`` may name another seat-like column, e.g. a turn position."""
    _require(long, ["win", "n_players", column])
    table = long.groupby(["n_players", column], sort=True).agg(
        games=("win", "size"), wins=("win", "sum")
    )
    return _seat_table(table)


def summary_seat_advantage(sums: pd.DataFrame, column: str = "seat", by=()) -> pd.DataFrame:
    """``seat_advantage`` from streamed per-(job, seat) sums (``games``, ``win_sum``); ``by``
    names columns (e.g. ``"agent"``) that split the table further, ahead of ``n_players``."""
    keys = [*_as_list(by), "n_players", column]
    _require(sums, ["games", "win_sum", *keys])
    table = sums.groupby(keys, sort=True).agg(games=("games", "sum"), wins=("win_sum", "sum"))
    return _seat_table(table)


def summary_seat_table(sums: pd.DataFrame, column: str = "position", by="agent"):
    """A seat study in one table, one row per (``by``, n_players, ``column``): ``games``,
    ``win_share`` with its Wilson interval (``win_low``, ``win_high``), ``fair``, and
    ``mean_score`` with its normal interval (``score_low``, ``score_high``)."""
    wins = summary_seat_advantage(sums, column, by)
    scores = summary_mean_score(sums, [*_as_list(by), "n_players", column])
    wins = wins.rename(columns={"ci_low": "win_low", "ci_high": "win_high"})
    scores = scores.rename(
        columns={"mean": "mean_score", "ci_low": "score_low", "ci_high": "score_high"}
    )
    return wins.join(scores)[list(SEAT_TABLE)]


def _seat_table(table: pd.DataFrame) -> pd.DataFrame:
    table["win_share"] = table["wins"] / table["games"]
    table["ci_low"], table["ci_high"] = wilson(table["wins"], table["games"])
    table["fair"] = 1 / table.index.get_level_values("n_players")
    return table


def seat_test(long: pd.DataFrame, column: str = "seat", alpha: float = 0.05) -> pd.DataFrame:
    """Per player count, the chi-square test of "no seat advantage": the per-seat win sums
    against equal expected counts. Columns ``games``, ``chi2``, ``dof``, ``p_value`` and
    ``seat_effect`` (p < alpha). With split ties the test is conservative: a tied game spreads
    its one win over several seats, so the win sums vary less than the multinomial the test
    assumes (at alpha 0.05 its size falls from 0.045 with no ties to 0.026 with 10% tied
    games); a p-value below alpha is still valid, one above it may hide a small effect."""
    return _chisquare_table(seat_advantage(long, column), alpha)


def summary_seat_test(sums: pd.DataFrame, column: str = "seat", alpha: float = 0.05, by=()):
    """``seat_test`` from streamed per-(job, seat) sums (``games``, ``win_sum``), one test per
    (``by``, n_players)."""
    return _chisquare_table(summary_seat_advantage(sums, column, by), alpha)


def summary_seat_verdict(sums: pd.DataFrame, column: str = "position", by="agent", alpha=0.05):
    """The headline of a seat study, one row per (``by``, n_players): games per seat, the win
    share of ``column`` 0 (the first player, for turn positions) with its Wilson interval
    (``first_share``, ``first_low``, ``first_high``), ``fair``, the best ``column`` and its
    share and interval, the worst and its share, and the chi-square test of
    ``summary_seat_test``."""
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
    test = _chisquare_table(table, alpha)
    return verdict.join(test[["chi2", "p_value", "seat_effect"]])


def _chisquare_table(table: pd.DataFrame, alpha: float) -> pd.DataFrame:
    """One chi-square row per group of all index levels but the last (the seat column)."""
    levels = list(table.index.names[:-1])
    rows = {
        key if isinstance(key, tuple) else (key,): _chisquare_row(part)
        for key, part in table.groupby(level=levels, sort=True)
    }
    result = pd.DataFrame(rows.values(), index=pd.MultiIndex.from_tuples(rows, names=levels))
    if len(levels) == 1:
        result.index = result.index.get_level_values(0)
    result["seat_effect"] = result["p_value"] < alpha
    return result


def _chisquare_row(part: pd.DataFrame) -> dict:
    """Win sums against expected counts proportional to each seat's games (equal when every
    seat played the same number of games)."""
    wins = part["wins"].to_numpy(float)
    games = part["games"].to_numpy(float)
    test = stats.chisquare(wins, wins.sum() * games / games.sum())
    return {
        "games": int(part["games"].max()),
        "chi2": float(test.statistic),
        "dof": len(wins) - 1,
        "p_value": float(test.pvalue),
    }


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
    z_a, z_b = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(power)
    root = (z_a * np.sqrt(p0 * (1 - p0)) + z_b * np.sqrt(p1 * (1 - p1))) / abs(effect)
    return int(np.ceil(root**2 - 1e-9))


# ---- head to head -------------------------------------------------------------------------


def _head_to_head(long: pd.DataFrame):
    """Sorted agent names and the rows of every ordered seat pair of agents A != B at one
    table: ``key`` (A * K + B), ``deal``, ``outcome`` (A's win above B's: 1, equal: 1/2) and
    ``weight`` 1 / (copies of A x copies of B) at its table, so each game in which both took
    part counts once."""
    names, parts = blocks(long)
    rows = [_pair_rows(block, len(names)) for block in parts]
    key, deal, outcome, weight = (np.concatenate(r) for r in zip(*rows, strict=True))
    return names, key, deal, outcome, weight


def _pair_rows(block: Block, k: int):
    first, second = np.array(list(permutations(range(block.n), 2)), int).reshape(-1, 2).T
    a, b = block.agent[:, first], block.agent[:, second]
    copies = (block.agent[:, :, None] == block.agent[:, None, :]).sum(2)
    weight = 1 / (copies[:, first] * copies[:, second])
    diff = block.win[:, first] - block.win[:, second]
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
    different seats, the share in which the row agent's win exceeds the opponent's, equal wins
    counting 1/2. Where an agent holds several seats, every (A seat, B seat) pair of the game
    is compared and the game's pairs are averaged. NaN on the diagonal and for agents that never
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
    a 95% cluster-robust interval with the deal as unit (``ci_low``, ``ci_high``, clipped to
    [0, 1]; the games of one deal are summed together), and ``deals``."""
    return deal_pairwise_table(pair_sums(long))


def pair_sums(long: pd.DataFrame) -> pd.DataFrame:
    """The head-to-head games of a long frame summed per (deal, agent, opponent): ``beats``
    (the agent's wins over the opponent, equal wins 1/2) and ``games`` (each game in which both
    took part counted once, as in ``pairwise``). ``deal`` is the frame's ``deal`` column, or a
    game code without one; agents are categories. Sums of several frames add up
    (``add_pair_sums``), so a results folder can be read chunk by chunk;
    ``deal_pairwise_table`` makes the table."""
    names, key, deal, outcome, weight = _head_to_head(long)
    k = len(names)
    deals = (
        np.unique(long["deal"].to_numpy()) if "deal" in long.columns else np.arange(deal.max() + 1)
    )
    frame = pd.DataFrame(
        {
            "deal": deals[deal],
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
    keys = ["deal", "agent", "opponent"]
    return frame.groupby(keys, as_index=False, sort=True, observed=True).sum()


def deal_pairwise_table(pairs: pd.DataFrame) -> pd.DataFrame:
    """``pairwise_table`` from per-(deal, agent, opponent) sums (``pair_sums``)."""
    _require(pairs, ["deal", "agent", "opponent", "beats", "games"])
    table = clustered_mean(pairs, "beats", "games", ["agent", "opponent"], "deal")
    levels = [table.index.get_level_values(i).astype(str) for i in range(2)]
    table.index = pd.MultiIndex.from_arrays(levels, names=["agent", "opponent"])
    out = pd.DataFrame(
        {
            "games": np.rint(table["n"]).astype(int),
            "share": table["mean"],
            "ci_low": (table["mean"] - table["half"]).clip(0, 1),
            "ci_high": (table["mean"] + table["half"]).clip(0, 1),
            "deals": table["clusters"],
        }
    )
    return out


def _square(values: np.ndarray, names) -> pd.DataFrame:
    index = pd.Index(names, name="agent")
    return pd.DataFrame(values, index=index, columns=pd.Index(names, name="opponent"))


def field_matrix(long: pd.DataFrame) -> pd.DataFrame:
    """Win share of each agent (rows) per opponent field (columns): the sorted agents at the
    other seats of its table, joined by "+". NaN where the agent never faced that field."""
    names, parts = blocks(long)
    rows = pd.concat([_field_rows(block, names) for block in parts], ignore_index=True)
    table = rows.groupby(["agent", "field"], sort=True)["win"].mean().unstack("field")
    return table.rename_axis(columns="field")


def _field_rows(block: Block, names) -> pd.DataFrame:
    games, n = block.agent.shape
    table = np.repeat(np.sort(block.agent, axis=1), n, axis=0)  # one copy per seat
    own = block.agent.reshape(-1)
    keep = np.ones(table.shape, bool)
    keep[np.arange(games * n), (table == own[:, None]).argmax(1)] = False  # drop own seat
    others = table[keep].reshape(games * n, n - 1)
    fields, index = row_ids(others)
    labels = np.array(["+".join(names[f]) for f in fields], dtype=object)
    return pd.DataFrame({"agent": names[own], "field": labels[index], "win": block.win.reshape(-1)})

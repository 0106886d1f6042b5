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

Every interval is a 95% interval. These functions only compute; ``experiments.plots`` draws.

Ratings are Plackett-Luce log-strengths: a seat with log-strength theta_i is chosen next among the
seats R still in play with probability exp(theta_i) / sum_R exp(theta_j). They are centred to
mean 0 over agents; ``scale="elo"`` multiplies by 400 / ln 10 (a gap of 400 is odds of 10:1).
"""

from itertools import permutations
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

GAME = ["job", "game_index"]
COLUMNS = ("job", "game_index", "n_players", "seat", "agent", "score", "win", "first")
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
SCALES = {"log": 1.0, "elo": 400 / np.log(10)}
EPS = 1e-9  # win shares closer than this are equal (a tie)
NEWTON_TOL = 1e-10
NEWTON_MAX = 100


def _require(long: pd.DataFrame, columns) -> None:
    missing = sorted(set(columns) - set(long.columns))
    if missing:
        raise ValueError(f"long frame lacks columns {missing}")


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


def win_share(long: pd.DataFrame, by="agent") -> pd.DataFrame:
    """Mean win per group of rows: ``seats`` (rows), ``win_share``, a 95% normal interval on the
    per-row win values (``ci_low``, ``ci_high``, clipped to [0, 1]) and ``fair``, the mean of
    1/n_players over the rows: the share expected by chance."""
    _require(long, ["win", "n_players", *_as_list(by)])
    groups = long.assign(fair=1 / long["n_players"]).groupby(by, observed=True, sort=True)
    table = groups.agg(
        seats=("win", "size"), win_share=("win", "mean"), sd=("win", "std"), fair=("fair", "mean")
    )
    return _normal_share_ci(table)


def summary_win_share(sums: pd.DataFrame, by="agent") -> pd.DataFrame:
    """``win_share`` from streamed per-(job, seat) sums (``experiments.results.summary_of``:
    columns ``games``, ``win_sum``, ``win_sq``, ``n_players`` and ``by``): same columns."""
    _require(sums, ["games", "win_sum", "win_sq", "n_players", *_as_list(by)])
    fair = sums["games"] / sums["n_players"]
    totals = sums.assign(fair=fair).groupby(by, observed=True, sort=True)
    totals = totals[["games", "win_sum", "win_sq", "fair"]].sum()
    n, mean = totals["games"], totals["win_sum"] / totals["games"]
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(((totals["win_sq"] - n * mean**2) / (n - 1)).clip(lower=0))
    table = pd.DataFrame({"seats": n, "win_share": mean, "sd": sd, "fair": totals["fair"] / n})
    return _normal_share_ci(table)


def summary_mean_score(sums: pd.DataFrame, by="agent") -> pd.DataFrame:
    """``mean_score`` from streamed sums (``games``, ``score_sum``, ``score_sq``), with a
    normal 95% interval (the sums are over many games)."""
    _require(sums, ["games", "score_sum", "score_sq", *_as_list(by)])
    totals = sums.groupby(by, observed=True, sort=True)[["games", "score_sum", "score_sq"]].sum()
    n = totals["games"]
    mean = totals["score_sum"] / n
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(((totals["score_sq"] - n * mean**2) / (n - 1)).clip(lower=0))
    half = Z95 * sd / np.sqrt(n)
    return pd.DataFrame({"seats": n, "mean": mean, "ci_low": mean - half, "ci_high": mean + half})


def _normal_share_ci(table: pd.DataFrame) -> pd.DataFrame:
    half = Z95 * table.pop("sd") / np.sqrt(table["seats"])
    table["ci_low"] = (table["win_share"] - half).clip(0, 1)
    table["ci_high"] = (table["win_share"] + half).clip(0, 1)
    return table[["seats", "win_share", "ci_low", "ci_high", "fair"]]


def mean_score(long: pd.DataFrame, by="agent") -> pd.DataFrame:
    """Mean score per group with a 95% Student-t interval: ``seats``, ``mean``, ``ci_low``,
    ``ci_high`` (NaN for a group of one row)."""
    _require(long, ["score", *_as_list(by)])
    groups = long.groupby(by, observed=True, sort=True)
    table = groups.agg(seats=("score", "size"), mean=("score", "mean"), sd=("score", "std"))
    half = stats.t.ppf(0.975, table["seats"] - 1) * table.pop("sd") / np.sqrt(table["seats"])
    table["ci_low"] = table["mean"] - half
    table["ci_high"] = table["mean"] + half
    return table


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
    ``seat_effect`` (p < alpha)."""
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
    """Games needed for a two-sided one-sample test of seat 0's win share against the fair share
    p0 = 1/n to detect a true share p1 = p0 + effect, by the normal approximation:

        N = ceil( ((z_{1-alpha/2} sqrt(p0 (1 - p0)) + z_{power} sqrt(p1 (1 - p1))) / effect)^2 )

    Seat 0 is treated as winning or not once per game; split ties only lower the variance, so
    N errs on the safe side."""
    p0 = 1 / n_players
    p1 = p0 + effect
    if n_players < 2 or effect == 0 or not 0 < p1 < 1:
        raise ValueError(f"need n_players >= 2 and 0 < 1/n + effect < 1, effect != 0; got {p1}")
    if not (0 < alpha < 1 and 0 < power < 1):
        raise ValueError("alpha and power must lie in (0, 1)")
    z_a, z_b = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(power)
    root = (z_a * np.sqrt(p0 * (1 - p0)) + z_b * np.sqrt(p1 * (1 - p1))) / abs(effect)
    return int(np.ceil(root**2 - 1e-9))


# ---- games as arrays ----------------------------------------------------------------------


class _Block(NamedTuple):
    """All games of one player count as G x n arrays, seats in order."""

    n: int
    game: np.ndarray  # G global game ids 0..(all games - 1)
    agent: np.ndarray  # G x n agent codes into the sorted names
    win: np.ndarray  # G x n win shares


def _blocks(long: pd.DataFrame):
    """Sorted agent names and one ``_Block`` per player count; checks one row per seat."""
    _require(long, COLUMNS)
    names, codes = np.unique(long["agent"].astype(str).to_numpy(), return_inverse=True)
    frame = long.assign(code=codes.reshape(-1)).sort_values(["n_players", *GAME, "seat"])
    blocks, offset = [], 0
    for n, part in frame.groupby("n_players", sort=True):
        blocks.append(_block(int(n), part, offset))
        offset += len(part) // n
    return names, blocks


def _block(n: int, part: pd.DataFrame, offset: int) -> _Block:
    games = len(part) // n
    if not _one_row_per_seat(n, part):
        raise ValueError(f"every {n}-player game needs exactly one row per seat 0..{n - 1}")
    return _Block(
        n,
        np.arange(offset, offset + games),
        part["code"].to_numpy().reshape(games, n),
        part["win"].to_numpy(float).reshape(games, n),
    )


def _one_row_per_seat(n: int, part: pd.DataFrame) -> bool:
    """Rows sorted by game then seat must come in runs of seats 0..n-1 of one game each."""
    games = len(part) // n
    seats = part["seat"].to_numpy()
    if len(part) != games * n or not (seats == np.tile(np.arange(n), games)).all():
        return False
    keys = part[GAME].to_numpy().reshape(games, n, 2)
    return bool((keys == keys[:, :1]).all())


def _row_ids(rows: np.ndarray):
    """``(unique rows, index of each row's unique row)`` of a non-negative int matrix; a row is
    packed into one int64 when it fits (np.unique over rows is much slower)."""
    rows = np.asarray(rows, np.int64)
    base = int(rows.max(initial=0)) + 1
    if base ** rows.shape[1] >= 2**62:
        unique, index = np.unique(rows, axis=0, return_inverse=True)
        return unique, index.reshape(-1)
    packed = rows @ (base ** np.arange(rows.shape[1], dtype=np.int64))
    _, first, index = np.unique(packed, return_index=True, return_inverse=True)
    return rows[first], index.reshape(-1)


# ---- head to head -------------------------------------------------------------------------


def _head_to_head(long: pd.DataFrame):
    """K x K sums over ordered seat pairs of agents A != B at one table: ``beats`` (A's win
    above B's: 1, equal: 1/2) and ``games``; a pair is weighted 1 / (copies of A x copies of B)
    at its table, so each game in which both took part counts once."""
    names, blocks = _blocks(long)
    k = len(names)
    beats, games = np.zeros(k * k), np.zeros(k * k)
    for block in blocks:
        key, outcome, weight = _pair_rows(block, k)
        beats += np.bincount(key, weights=outcome * weight, minlength=k * k)
        games += np.bincount(key, weights=weight, minlength=k * k)
    return names, beats.reshape(k, k), games.reshape(k, k)


def _pair_rows(block: _Block, k: int):
    first, second = np.array(list(permutations(range(block.n), 2)), int).reshape(-1, 2).T
    a, b = block.agent[:, first], block.agent[:, second]
    copies = (block.agent[:, :, None] == block.agent[:, None, :]).sum(2)
    weight = 1 / (copies[:, first] * copies[:, second])
    diff = block.win[:, first] - block.win[:, second]
    outcome = (diff > EPS) + 0.5 * (np.abs(diff) <= EPS)
    keep = a != b
    return (a * k + b)[keep], outcome[keep], weight[keep]


def pairwise(long: pd.DataFrame) -> pd.DataFrame:
    """Square frame, agent (rows) x opponent (columns): over games where both took part at
    different seats, the share in which the row agent's win exceeds the opponent's, equal wins
    counting 1/2. Where an agent holds several seats, every (A seat, B seat) pair of the game
    is compared and the game's pairs are averaged. NaN on the diagonal and for agents that never
    met; ``pairwise(long) + pairwise(long).T == 1`` where defined."""
    names, beats, games = _head_to_head(long)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(games > 0, beats / games, np.nan)
    return _square(share, names)


def pairwise_counts(long: pd.DataFrame) -> pd.DataFrame:
    """Games behind each cell of ``pairwise`` (symmetric, int). An interval for a cell:
    ``wilson(pairwise * counts, counts)``."""
    names, _, games = _head_to_head(long)
    return _square(np.rint(games).astype(int), names)


def _square(values: np.ndarray, names) -> pd.DataFrame:
    index = pd.Index(names, name="agent")
    return pd.DataFrame(values, index=index, columns=pd.Index(names, name="opponent"))


def field_matrix(long: pd.DataFrame) -> pd.DataFrame:
    """Win share of each agent (rows) per opponent field (columns): the sorted agents at the
    other seats of its table, joined by "+". NaN where the agent never faced that field."""
    names, blocks = _blocks(long)
    rows = pd.concat([_field_rows(block, names) for block in blocks], ignore_index=True)
    table = rows.groupby(["agent", "field"], sort=True)["win"].mean().unstack("field")
    return table.rename_axis(columns="field")


def _field_rows(block: _Block, names) -> pd.DataFrame:
    games, n = block.agent.shape
    table = np.repeat(np.sort(block.agent, axis=1), n, axis=0)  # one copy per seat
    own = block.agent.reshape(-1)
    keep = np.ones(table.shape, bool)
    keep[np.arange(games * n), (table == own[:, None]).argmax(1)] = False  # drop own seat
    others = table[keep].reshape(games * n, n - 1)
    fields, index = _row_ids(others)
    labels = np.array(["+".join(names[f]) for f in fields], dtype=object)
    return pd.DataFrame({"agent": names[own], "field": labels[index], "win": block.win.reshape(-1)})


# ---- Plackett-Luce ratings ----------------------------------------------------------------
#
# A game's finishing order sorts its seats by win, descending; seats with equal win form one
# tied group. Each group in turn is chosen from the seats still in play R: a group of k tied
# seats counts as k choices of weight 1/k, each of one member from all of R (the tie is split),
# after which the whole group leaves. The last group is forced and adds nothing. With win shares
# (1/k for k tied winners, 0 for the rest) a game's log-likelihood is therefore
# sum_seats win_s * log P(s first among all seats): only who won carries information.
#
# Identical choice events (same agents in play, same chosen agent) are aggregated into
# patterns; a bootstrap draw only reweights the patterns, so each fit costs O(patterns x agents).
# A prior of `prior` virtual drawn games (half a win, half a loss) per agent against a fixed
# agent of log-strength 0 keeps every estimate finite (an agent that never won would otherwise
# go to -inf) and fixes the additive constant; it is negligible for thousands of games.


class _Patterns(NamedTuple):
    in_play: np.ndarray  # P x K copies of each agent among the seats still in play
    chosen: np.ndarray  # P chosen agent code
    event: np.ndarray  # E pattern id of each choice event
    game: np.ndarray  # E global game id of each choice event
    weight: np.ndarray  # E weight (1 / size of the tied group)


def _block_events(block: _Block, k: int, width: int):
    """Choice events of one block: game ids, sorted agents in play (padded with k to
    ``width``), chosen agent, weight."""
    order = np.argsort(-block.win, axis=1, kind="stable")
    wins = np.take_along_axis(block.win, order, axis=1)
    agents = np.take_along_axis(block.agent, order, axis=1)
    tied = np.abs(wins[:, :, None] - wins[:, None, :]) <= EPS
    start, size = tied.argmax(2), tied.sum(2)  # first place and size of each seat's group
    live = wins > wins[:, -1:] + EPS  # not in the last, forced group
    place = np.arange(block.n)
    in_play = np.where(place >= start[:, :, None], agents[:, None, :], k)
    pad = ((0, 0), (0, 0), (0, width - block.n))
    in_play = np.pad(np.sort(in_play, axis=2), pad, constant_values=k)
    g, s = np.nonzero(live)
    return block.game[g], in_play[g, s], agents[g, s], 1.0 / size[g, s]


def _patterns(names, blocks) -> _Patterns:
    k, width = len(names), max(b.n for b in blocks)
    parts = [_block_events(b, k, width) for b in blocks]
    game, in_play, chosen, weight = (np.concatenate(p) for p in zip(*parts, strict=True))
    keys, event = _row_ids(np.column_stack([in_play, chosen]))
    counts = np.zeros((len(keys), k + 1))
    np.add.at(counts, (np.arange(len(keys))[:, None], keys[:, :width]), 1)
    return _Patterns(counts[:, :k], keys[:, width], event, game, weight)


def _loglik(theta, in_play, chosen_wins, weight, prior) -> float:
    top = theta.max()
    log_sum = np.log(in_play @ np.exp(theta - top)) + top
    virtual = prior * (0.5 * theta - np.logaddexp(0, theta))
    return float(chosen_wins @ theta - weight @ log_sum + virtual.sum())


def _grad_hess(theta, in_play, chosen_wins, weight, prior):
    strength = in_play * np.exp(theta - theta.max())
    prob = strength / strength.sum(1, keepdims=True)
    sig = 1 / (1 + np.exp(-theta))
    grad = chosen_wins - weight @ prob + prior * (0.5 - sig)
    hess = (prob * weight[:, None]).T @ prob - np.diag(weight @ prob + prior * sig * (1 - sig))
    return grad, hess


def _fit(in_play, chosen, weight, prior) -> np.ndarray:
    """Maximum likelihood log-strengths by damped Newton (the objective is strictly concave)."""
    k = in_play.shape[1]
    chosen_wins = np.bincount(chosen, weights=weight, minlength=k)
    args = (in_play, chosen_wins, weight, prior)
    theta, value = np.zeros(k), _loglik(np.zeros(k), *args)
    for _ in range(NEWTON_MAX):
        grad, hess = _grad_hess(theta, *args)
        step = np.linalg.solve(hess, -grad)
        theta, value, moved = _line_search(theta, step, value, args)
        if moved < NEWTON_TOL:
            break
    return theta - theta.mean()


def _line_search(theta, step, value, args):
    for _ in range(40):
        trial = theta + step
        trial_value = _loglik(trial, *args)
        if trial_value >= value - 1e-12:
            return trial, trial_value, float(np.abs(step).max())
        step = step / 2
    return theta, value, 0.0


def _pattern_weights(pat: _Patterns, game_weight: np.ndarray) -> np.ndarray:
    weights = pat.weight * game_weight[pat.game]
    return np.bincount(pat.event, weights=weights, minlength=len(pat.chosen))


def ratings(
    long: pd.DataFrame, n_boot: int = 200, seed: int = 0, scale: str = "log", prior: float = 1.0
) -> pd.DataFrame:
    """Plackett-Luce rating per agent from each game's finishing order by win (see the notes
    above ``_Patterns`` for ties): ``rating`` (maximum likelihood, mean 0 over agents) and a
    95% percentile bootstrap interval over games (``ci_low``, ``ci_high``; NaN if ``n_boot`` is
    0) drawn with ``np.random.default_rng(seed)``. ``scale``: "log" (log-strength) or "elo"
    (x 400 / ln 10). ``prior``: virtual drawn games per agent against a rating-0 agent (> 0)."""
    if scale not in SCALES or prior <= 0 or n_boot < 0:
        raise ValueError(f"need scale in {sorted(SCALES)}, prior > 0, n_boot >= 0")
    names, blocks = _blocks(long)
    pat = _patterns(names, blocks)
    n_games = sum(len(b.game) for b in blocks)
    rating = _fit(pat.in_play, pat.chosen, _pattern_weights(pat, np.ones(n_games)), prior)
    low, high = _bootstrap(pat, n_games, n_boot, np.random.default_rng(seed), prior)
    table = pd.DataFrame(
        {"rating": rating, "ci_low": low, "ci_high": high}, index=pd.Index(names, name="agent")
    )
    return (table * SCALES[scale]).sort_values("rating", ascending=False)


def _bootstrap(pat: _Patterns, n_games: int, n_boot: int, rng, prior):
    k = pat.in_play.shape[1]
    if n_boot == 0:
        return np.full(k, np.nan), np.full(k, np.nan)
    draws = np.empty((n_boot, k))
    for b in range(n_boot):
        resampled = np.bincount(rng.integers(n_games, size=n_games), minlength=n_games)
        draws[b] = _fit(pat.in_play, pat.chosen, _pattern_weights(pat, resampled), prior)
    return np.percentile(draws, [2.5, 97.5], axis=0)

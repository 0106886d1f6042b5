"""Games of a long frame as arrays: the shared layer of ``experiments.stats`` and
``experiments.ratings``.

A *deal* is the unit of every interval: the games of one deal (the seatings of a group on
duplicate deals) are correlated, so they are resampled or summed together. A long frame names
its deals in an optional ``deal`` column (``experiments.results.long_table`` fills it with the
game's deal seed); without one, every game is its own deal.

A deal's *stratum* is the set of jobs that played it (a seating group on duplicate deals, or
one job): a design fixes how many deals each stratum plays, so the differences between strata
(a group of three weak agents and one strong one against a group of equals) are part of the
design, not sampling noise, and intervals measure the spread of deals within their stratum. An
optional ``stratum`` column (constant within a deal) names the strata instead.
"""

from typing import NamedTuple

import numpy as np
import pandas as pd

GAME = ["job", "game_index"]
COLUMNS = ("job", "game_index", "n_players", "seat", "agent", "score", "win", "first")
EPS = 1e-9  # win shares closer than this are equal (a tie)
Z95 = 1.959963984540054  # the normal's 97.5% point (scipy.stats.norm.ppf(0.975)), no scipy needed
TIE = 9  # decimals to which equal figures are one value when a table is ordered by them


def ranked(table: pd.DataFrame, column: str) -> pd.DataFrame:
    """``table`` (an agent a row) largest ``column`` first; figures equal to ``TIE`` decimals
    (agents whose data are alike, exactly or but for the last bits of rounding) in the order
    of their names, not of the order the agents came in or of that noise."""
    rounded = table[column].round(TIE).to_numpy()
    return table.iloc[np.lexsort((table.index.to_numpy(str), -rounded))]


def require(frame: pd.DataFrame, columns) -> None:
    """A one-line ValueError unless ``frame`` (a long table, sums, deals or pairs) has
    ``columns``."""
    missing = sorted(set(columns) - set(frame.columns))
    if missing:
        if "agent_0" in frame.columns:  # a game a row, as batch.play returns them
            raise ValueError(
                f"the table lacks columns {missing}: it has a game a row (agent_0, ...); "
                "results.long_table(frame) makes the long table of a seat a row"
            )
        has = ", ".join(map(str, frame.columns))
        raise ValueError(f"the table lacks columns {missing} (it has {has or 'none'})")


def deal_codes(long: pd.DataFrame) -> np.ndarray:
    """Each row's deal as a code 0..(deals - 1): the ``deal`` column if the frame has one, else
    the game ``(job, game_index)``."""
    keys = ["deal"] if "deal" in long.columns else GAME
    require(long, keys)
    return long.groupby(keys, sort=True, observed=True).ngroup().to_numpy()


def deal_strata(long: pd.DataFrame, deal: np.ndarray | None = None) -> np.ndarray:
    """The stratum code of each deal code (as ``deal_codes`` numbers them, or ``deal``): from
    the ``stratum`` column if the frame has one, else the set of jobs that played the deal."""
    deal = deal_codes(long) if deal is None else np.asarray(deal)
    n_deals = int(deal.max(initial=-1)) + 1
    if "stratum" in long.columns:
        codes = pd.factorize(long["stratum"], sort=True)[0]
        out = np.zeros(n_deals, np.int64)
        out[deal] = codes
        if not (out[deal] == codes).all():
            raise ValueError("the stratum column must be constant within a deal")
        return out
    require(long, ["job"])
    job = pd.factorize(long["job"], sort=True)[0].astype(np.int64)
    width = int(job.max(initial=0)) + 1
    pairs = np.unique(deal.astype(np.int64) * width + job)
    owner, member = np.divmod(pairs, width)
    counts = np.bincount(owner, minlength=n_deals)
    place = np.arange(len(owner)) - np.repeat(np.cumsum(counts) - counts, counts)
    jobs = np.zeros((n_deals, int(counts.max(initial=0))), np.int64)
    jobs[owner, place] = member + 1  # 0 pads the deals with fewer jobs
    return row_ids(jobs)[1]


def stratum_values(long: pd.DataFrame) -> np.ndarray:
    """Each deal code's stratum (as ``deal_codes`` numbers the deals): the values of the
    ``stratum`` column if the frame has one (kept as they are, so that the strata of frames
    read apart agree), else ``deal_strata``'s codes."""
    if "stratum" not in long.columns:
        return deal_strata(long)
    deal = deal_codes(long)
    values = long["stratum"].to_numpy()
    out = np.zeros(int(deal.max(initial=-1)) + 1, values.dtype)
    out[deal] = values
    if not (out[deal] == values).all():
        raise ValueError("the stratum column must be constant within a deal")
    return out


class Block(NamedTuple):
    """All games of one player count as G x n arrays, seats in order."""

    n: int
    game: np.ndarray  # G global game ids 0..(all games - 1)
    deal: np.ndarray  # G deal codes (shared by the games of one deal)
    agent: np.ndarray  # G x n agent codes into the sorted names
    win: np.ndarray  # G x n win shares
    key: np.ndarray  # G x n finishing keys (higher finishes better)


def blocks(long: pd.DataFrame, order: str = "win"):
    """Sorted agent names and one ``Block`` per player count (``key`` from the column
    ``order``); checks one row per seat."""
    require(long, [*COLUMNS, order])
    codes, names = pd.factorize(long["agent"].astype(str), sort=True)  # hashing: fast
    names = np.asarray(names, dtype=object)
    frame = long.assign(code=codes.reshape(-1), deal_code=deal_codes(long), order_key=long[order])
    frame = frame.sort_values(["n_players", *GAME, "seat"])
    out, offset = [], 0
    for n, part in frame.groupby("n_players", sort=True):
        out.append(_block(int(n), part, offset))
        offset += len(part) // n
    return names, out


def _block(n: int, part: pd.DataFrame, offset: int) -> Block:
    games = len(part) // n
    if not _one_row_per_seat(n, part):
        raise ValueError(f"every {n}-player game needs exactly one row per seat 0..{n - 1}")
    return Block(
        n,
        np.arange(offset, offset + games),
        part["deal_code"].to_numpy()[::n],
        part["code"].to_numpy().reshape(games, n),
        part["win"].to_numpy(float).reshape(games, n),
        part["order_key"].to_numpy(float).reshape(games, n),
    )


def _one_row_per_seat(n: int, part: pd.DataFrame) -> bool:
    """Rows sorted by game then seat must come in runs of seats 0..n-1 of one game each."""
    games = len(part) // n
    seats = part["seat"].to_numpy()
    if len(part) != games * n or not (seats == np.tile(np.arange(n), games)).all():
        return False
    keys = part[GAME].to_numpy().reshape(games, n, 2)
    return bool((keys == keys[:, :1]).all())


def row_ids(rows: np.ndarray):
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


def stratified_cov(group: np.ndarray, stratum: np.ndarray, z: np.ndarray):
    """The stratified cluster covariance of the rows of ``z`` (one per cluster, m columns of
    linearised residuals) per group (codes 0..G-1): ``(cov, clusters, free, df)`` with
    ``cov[g] = sum_h n_h / (n_h - 1) sum_{c in h} (z_c - mean_h z)(z_c - mean_h z)'`` over the
    strata ``h`` of the group's clusters (strata of one cluster pooled into one, which adds
    nothing if it stays one cluster), ``clusters[g]``, ``free[g]`` = clusters minus strata,
    and ``df[g, k]``, the Satterthwaite degrees of freedom of the variance of column ``k``,
    ``(sum_h V_h)^2 / sum_h V_h^2 / (n_h - 1)`` with ``V_h`` stratum h's part: fewer than
    ``free`` when a few strata carry most of the variance (``free`` where it is 0)."""
    group = np.asarray(group, np.int64)
    z = np.asarray(z, float).reshape(len(group), -1)
    groups = int(group.max(initial=-1)) + 1
    layer = pd.factorize(np.asarray(stratum), sort=True)[0].astype(np.int64) + 1
    cell = row_ids(np.column_stack([group, layer]))[1]
    layer = np.where(np.bincount(cell)[cell] > 1, layer, 0)  # 0: the pool of lone clusters
    cell = row_ids(np.column_stack([group, layer]))[1]
    size = np.bincount(cell)
    means = np.stack([np.bincount(cell, column) for column in z.T], axis=1) / size[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = np.where(size > 1, np.sqrt(size / (size - 1.0)), 0.0)[cell]
    centred = (z - means[cell]) * scale[:, None]
    m = z.shape[1]
    cov = np.zeros((groups, m, m))
    for a in range(m):
        for b in range(a, m):
            cov[:, a, b] = cov[:, b, a] = np.bincount(
                group, centred[:, a] * centred[:, b], minlength=groups
            )
    owner = np.zeros(len(size), np.int64)
    owner[cell] = group
    clusters = np.bincount(group, minlength=groups)
    free = clusters - np.bincount(owner, minlength=groups)
    return cov, clusters, free, _satterthwaite(centred, cell, owner, size, free)


def _satterthwaite(centred, cell, owner, size, free) -> np.ndarray:
    """Per group and column: ``(sum_h V_h)^2 / sum_h V_h^2 / (n_h - 1)``, ``free`` where the
    variance is 0."""
    groups = len(free)
    parts = np.stack([np.bincount(cell, c * c, len(size)) for c in centred.T], axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(size[:, None] > 1, parts**2 / (size[:, None] - 1.0), 0.0)
    total = np.stack([np.bincount(owner, p, groups) for p in parts.T], axis=1)
    spread = np.stack([np.bincount(owner, p, groups) for p in share.T], axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        df = total**2 / spread
    return np.where(spread > 0, np.minimum(df, free[:, None]), free[:, None].astype(float))


def z_score(difference: float, se: float) -> float:
    """``difference / se``; where ``se`` is 0, 0 for no difference and an infinite z of its
    sign for one: a difference that no noise explains is not a tie."""
    if se > 0:
        return float(difference / se)
    return 0.0 if difference == 0 else float(np.copysign(np.inf, difference))

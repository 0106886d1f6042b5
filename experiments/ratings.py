"""Plackett-Luce ratings of agents from each game's finishing order, with a bootstrap over deals.

A seat with log-strength theta_i is chosen next among the seats R still in play with probability
exp(theta_i) / sum_R exp(theta_j). Ratings are centred to mean 0 over agents; ``scale="elo"``
multiplies by 400 / ln 10 (a gap of 400 is odds of 10:1).

Which order: the column ``order`` of the long frame ranks the seats of a game, higher finishing
better. ``experiments.results.long_table(frame, game)`` writes a ``finish`` column (the game's
own win key: lowest score in No Thanks!, highest score then most cards in Tulips), so the whole
finishing order counts; that is the default when the column is there. With ``order="win"`` (the
default when it is not) only the winners count: every loser ties at 0, the model reduces to the
winner's choice from the table (Luce's top-1 model), and the rating uses less information.

Ties: seats with equal keys form one tied group. Each group in turn is chosen from the seats
still in play R: a group of k tied seats counts as k choices of weight 1/k, each of one member
from all of R (the tie is split), after which the whole group leaves. The last group is forced
and adds nothing.

Identical choice events (same agents in play, same chosen agent) are aggregated into patterns; a
bootstrap draw only reweights the patterns, so each fit costs O(patterns x agents), and all
draws are fitted together by batched Newton steps. The bootstrap resamples *deals* (the
seatings of a group on duplicate deals share one), not single games: games of one deal are
correlated and resampling them one by one gives intervals that are too narrow. It resamples
within each stratum (``experiments.blocks``: the deals a seating group plays, whose number the
design fixes), so the fixed differences between groups are not counted as noise, and it is
Rao and Wu's rescaled bootstrap: ``n_h - 1`` deals drawn from the ``n_h`` of stratum ``h``,
each counted ``n_h / (n_h - 1)`` times, which removes the plain bootstrap's variance deficit
of ``(n_h - 1) / n_h`` (a tenth at 10 deals per group). Strata of one deal are pooled.

A prior of ``prior`` virtual drawn games (half a win, half a loss) per agent against a fixed
agent of log-strength 0 keeps every estimate finite (an agent that never won would otherwise go
to -inf) and fixes the additive constant; it is negligible for thousands of games.

Unbounded ratings: the maximum likelihood estimate exists only if the agents are strongly
connected (Ford 1957; Hunter 2004): with an edge i -> j whenever i was chosen while j was still
in play, every agent reaches every other. Otherwise (one agent beats another in every game they
share, say) the likelihood keeps rising as some ratings move apart, and the finite rating shown
is held there by the prior alone: it grows with the number of games, and the bootstrap cannot
see it, every resample being separated too. On the mean-0 scale an agent's rating is then
unbounded above when some agent never reaches it (never finished ahead of it, not even through
a chain of agents each finishing ahead of the next), and unbounded below when it does not
reach some agent: that end of its interval is +inf or -inf (``unbounded``; ``marks.flag_few``
marks the row), the rating is the prior-regularised fit, and the finite end is that of the
bootstrap of prior-regularised fits, not a calibrated bound. Strongly connected data are not
affected.
"""

from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import sparse

from experiments.blocks import EPS, Z95, Block, blocks, ranked, row_ids, stratum_values
from giftsim.checks import is_whole

SCALES = {"log": 1.0, "elo": 400 / np.log(10)}
NEWTON_TOL = 1e-10
NEWTON_MAX = 100
N_BOOT = 1000  # bootstrap draws of an interval (at 100 its half width moved by about 10%)
DRAWS_AT_ONCE = (10, 100)  # bootstrap draws fitted together: fewest and most (_draws_at_once)
FIT_CELLS = 50_000  # draws x deals of a batch, past which larger batches ran slower (cache)
WEIGHT_CELLS = 10**7  # draws x deals of resampled weights held at once (80 MB)
IN_PLAY = "in play: "  # rating_events' columns of each agent's copies in play


class _Patterns(NamedTuple):
    in_play: np.ndarray  # P x K copies of each agent among the seats still in play
    chosen: np.ndarray  # P chosen agent code
    by_deal: sparse.csr_matrix  # D x P summed event weights of each deal per pattern
    stratum: np.ndarray  # D stratum code of each deal


def _block_events(block: Block, k: int, width: int):
    """Choice events of one block: deal codes, sorted agents in play (padded with k to
    ``width``), chosen agent, weight."""
    order = np.argsort(-block.key, axis=1, kind="stable")
    keys = np.take_along_axis(block.key, order, axis=1)
    agents = np.take_along_axis(block.agent, order, axis=1)
    tied = np.abs(keys[:, :, None] - keys[:, None, :]) <= EPS
    start, size = tied.argmax(2), tied.sum(2)  # first place and size of each seat's group
    live = keys > keys[:, -1:] + EPS  # not in the last, forced group
    place = np.arange(block.n)
    in_play = np.where(place >= start[:, :, None], agents[:, None, :], k)
    pad = ((0, 0), (0, 0), (0, width - block.n))
    in_play = np.pad(np.sort(in_play, axis=2), pad, constant_values=k)
    g, s = np.nonzero(live)
    return block.deal[g], in_play[g, s], agents[g, s], 1.0 / size[g, s]


def _patterns(events: pd.DataFrame, names, columns) -> _Patterns:
    """The distinct (agents in play, chosen) patterns of summed events, each deal's weight of
    each pattern and each deal's stratum (deals coded in sorted order)."""
    k = len(names)
    chosen = np.searchsorted(names, events["chosen"].to_numpy())
    keys, event = row_ids(np.column_stack([events[columns].to_numpy(), chosen]))
    deal = pd.factorize(events["deal"], sort=True)[0]
    n_deals = int(deal.max(initial=-1)) + 1
    weight = events["weight"].to_numpy(float)
    by_deal = sparse.coo_matrix((weight, (deal, event)), shape=(n_deals, len(keys))).tocsr()
    strata = np.zeros(n_deals, events["stratum"].dtype)
    strata[deal] = events["stratum"].to_numpy()
    return _Patterns(keys[:, :k].astype(float), keys[:, k], by_deal, strata)


# ---- batched maximum likelihood: B weightings of the same patterns at once -----------------


def _loglik(theta, in_play, chosen_wins, weight, prior) -> np.ndarray:
    top = theta.max(1, keepdims=True)
    log_sum = np.log(np.exp(theta - top) @ in_play.T) + top
    virtual = prior * (0.5 * theta - np.logaddexp(0, theta))
    return (chosen_wins * theta).sum(1) - (weight * log_sum).sum(1) + virtual.sum(1)


def _grad_hess(theta, in_play, chosen_wins, weight, prior):
    strength = in_play[None] * np.exp(theta - theta.max(1, keepdims=True))[:, None, :]
    prob = strength / strength.sum(2, keepdims=True)
    sig = 1 / (1 + np.exp(-theta))
    expected = np.einsum("bp,bpk->bk", weight, prob)
    grad = chosen_wins - expected + prior * (0.5 - sig)
    hess = np.einsum("bpk,bpl->bkl", prob * weight[:, :, None], prob)
    diagonal = expected + prior * sig * (1 - sig)
    hess[:, np.arange(theta.shape[1]), np.arange(theta.shape[1])] -= diagonal
    return grad, hess


def _fit(in_play, chosen, weight, prior) -> np.ndarray:
    """Maximum likelihood log-strengths (B x K, centred) for B pattern weightings (B x P), by
    damped Newton steps (the objective is strictly concave)."""
    k = in_play.shape[1]
    chosen_wins = weight @ np.eye(k)[chosen]
    args = (in_play, chosen_wins, weight, prior)
    theta = np.zeros((len(weight), k))
    value = _loglik(theta, *args)
    for _ in range(NEWTON_MAX):
        grad, hess = _grad_hess(theta, *args)
        step = np.linalg.solve(hess, -grad[:, :, None])[:, :, 0]
        theta, value, moved = _line_search(theta, step, value, args)
        if moved.max() < NEWTON_TOL:
            break
    return theta - theta.mean(1, keepdims=True)


def _line_search(theta, step, value, args):
    """Halve each draw's step until its log-likelihood does not fall (40 halvings at most)."""
    alpha = np.ones(len(theta))
    pending = np.ones(len(theta), bool)
    new_theta, new_value = theta.copy(), value.copy()
    for _ in range(40):
        trial = theta + alpha[:, None] * step
        trial_value = _loglik(trial, *args)
        accept = pending & (trial_value >= value - 1e-12)
        new_theta[accept], new_value[accept] = trial[accept], trial_value[accept]
        pending &= ~accept
        if not pending.any():
            break
        alpha[pending] /= 2
    moved = np.where(pending, 0.0, np.abs(alpha[:, None] * step).max(1))
    return new_theta, new_value, moved


# ---- the table --------------------------------------------------------------------------------


def ratings(
    long: pd.DataFrame,
    n_boot: int = N_BOOT,
    seed: int = 0,
    scale: str = "log",
    prior: float = 1.0,
    order: str | None = None,
) -> pd.DataFrame:
    """Plackett-Luce rating per agent from each game's finishing order by the column ``order``
    (default: ``finish`` when the frame has it, else ``win``; see the module notes):
    ``rating`` (maximum likelihood, mean 0 over agents) and a 95% normal interval whose standard
    error is the standard deviation of ``n_boot`` bootstrap fits over deals, resampled
    within strata and rescaled (see the module notes) (``ci_low``,
    ``ci_high``; NaN if ``n_boot`` < 2; +inf or -inf on the side where the rating is
    unbounded, see the module notes), drawn with ``np.random.default_rng(seed)``. (A
    normal interval from the bootstrap spread, rather than its 2.5% and 97.5% percentiles,
    needs far fewer draws to be stable.) ``scale``: "log" (log-strength) or "elo" (x 400 / ln 10).
    ``prior``: virtual drawn games per agent against a rating-0 agent (> 0). Rows: best rating
    first, equal ratings by name (:func:`by_rating`)."""
    return deal_ratings(rating_events(long, order), n_boot, seed, scale, prior)


def rating_events(long: pd.DataFrame, order: str | None = None, names=None) -> pd.DataFrame:
    """The choice events of a long frame's finishing orders (``order`` as in ``ratings``)
    summed per deal and pattern: ``deal`` (the frame's ``deal`` column, or a game code without
    one), its ``stratum`` (``blocks.stratum_values``), ``chosen`` (the agent chosen next), a
    column ``IN_PLAY + name`` per agent of ``names`` (default: the frame's agents) holding its
    copies among the seats still in play, and ``weight``. Events of
    several frames with the same ``names`` add up (``add_rating_events``), so a results folder
    can be read chunk by chunk; ``deal_ratings`` fits them."""
    order = order or ("finish" if "finish" in long.columns else "win")
    local, parts = blocks(long, order)
    names = np.asarray(sorted(local) if names is None else names, dtype=object)
    code = np.searchsorted(names, local)  # local agent code -> code in names
    events = [_block_events(b, len(local), b.n) for b in parts]
    rows = [_event_rows(code, len(names), *e) for e in events]
    frame = pd.concat(rows, ignore_index=True)
    frame["stratum"] = stratum_values(long)[frame["deal"].to_numpy()]
    deals = np.unique(long["deal"].to_numpy()) if "deal" in long.columns else None
    frame["deal"] = frame["deal"] if deals is None else deals[frame["deal"].to_numpy()]
    frame["chosen"] = pd.Categorical.from_codes(frame["chosen"], categories=names)
    return add_rating_events([frame.rename(columns={i: IN_PLAY + n for i, n in enumerate(names)})])


def _event_rows(code, k: int, deal, in_play, chosen, weight) -> pd.DataFrame:
    """Events as rows: copies of each of the ``k`` agents in play, from local agent codes
    (``in_play`` padded with the local count, which ``code`` extended by ``k`` drops)."""
    rows = np.repeat(np.arange(len(deal)), in_play.shape[1])
    cells = rows * (k + 1) + np.append(code, k)[in_play.reshape(-1)]
    counts = np.bincount(cells, minlength=len(deal) * (k + 1)).reshape(len(deal), k + 1)
    frame = pd.DataFrame(counts[:, :k].astype(np.int16))
    frame["deal"], frame["chosen"], frame["weight"] = deal, code[chosen], weight
    return frame


def add_rating_events(parts) -> pd.DataFrame:
    """Several ``rating_events`` frames (with the same agents) as one, summed per pattern."""
    frame = pd.concat(parts, ignore_index=True)
    keys = [c for c in frame.columns if c != "weight"]
    return frame.groupby(keys, as_index=False, sort=True, observed=True)["weight"].sum()


def deal_ratings(
    events: pd.DataFrame, n_boot: int = N_BOOT, seed: int = 0, scale: str = "log", prior=1.0
) -> pd.DataFrame:
    """``ratings`` from summed choice events (``rating_events``)."""
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(SCALES)}, got {scale!r}")
    if not prior > 0:
        raise ValueError(f"prior must be a number > 0, got {prior!r}")
    if not is_whole(n_boot) or n_boot < 0:
        raise ValueError(f"n_boot must be a whole number >= 0, got {n_boot!r}")
    columns = [c for c in events.columns if c.startswith(IN_PLAY)]
    names = np.asarray([c[len(IN_PLAY) :] for c in columns], dtype=object)
    pat = _patterns(events, names, columns)
    n_deals = pat.by_deal.shape[0]
    weight = pat.by_deal.T @ np.ones(n_deals)
    point = _fit(pat.in_play, pat.chosen, weight[None], prior)[0]
    half = Z95 * _bootstrap_sd(pat, n_boot, np.random.default_rng(seed), prior)
    if n_deals < 2:  # one deal has no spread to resample: no interval, not one of zero width
        half = np.full_like(point, np.nan)
    above, below = unbounded(pat.in_play, pat.chosen, weight)
    table = pd.DataFrame(
        {
            "rating": point,
            "ci_low": np.where(below, -np.inf, point - half),
            "ci_high": np.where(above, np.inf, point + half),
        },
        index=pd.Index(names, name="agent"),
    )
    return by_rating(table * SCALES[scale])


def by_rating(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` best rating first, equal ratings by name (``blocks.ranked``)."""
    return ranked(table, "rating")


def unbounded(in_play, chosen, weight) -> tuple[np.ndarray, np.ndarray]:
    """Which agents' ratings (mean 0 over agents) have no finite maximum likelihood estimate
    above, and which below, given patterns of agents in play (P x K copies), the chosen agent
    and each pattern's weight (see the module notes). With ``beat[i, j]`` when i was chosen
    while j was in play and ``reach`` its transitive closure, an up-set of agents (everyone who
    beat one of its members is in it) can move up together without lowering the likelihood:
    agent k is unbounded above when the agents reaching it are not all of them, and below when
    those it reaches are not. Both are all False when the agents are strongly connected."""
    k = in_play.shape[1]
    live = np.asarray(weight) > 0
    beat = np.eye(k, dtype=np.int64)[chosen[live]].T @ (in_play[live] > 0).astype(np.int64) > 0
    reach = beat | np.eye(k, dtype=bool)
    while True:  # squaring doubles the paths' length: log2(k) steps
        longer = (reach.astype(np.int64) @ reach.astype(np.int64)) > 0
        if (longer == reach).all():
            break
        reach = longer
    return ~reach.all(0), ~reach.all(1)


def _bootstrap_sd(pat: _Patterns, n_boot: int, rng, prior) -> np.ndarray:
    """The standard deviation of the ratings over ``n_boot`` rescaled resamplings of the deals
    within their strata."""
    k = pat.in_play.shape[1]
    if n_boot < 2:
        return np.full(k, np.nan)
    draw = _within_strata(pat.stratum)
    draws, at_once = [], _draws_at_once(len(pat.stratum))
    for start in range(0, n_boot, at_once):
        size = min(at_once, n_boot - start)
        weight = np.asarray((pat.by_deal.T @ draw(rng, size).T).T)
        draws.append(_fit(pat.in_play, pat.chosen, weight, prior))
    return np.concatenate(draws).std(0, ddof=1)


def _draws_at_once(deals: int) -> int:
    """Bootstrap draws fitted together: as many as ``DRAWS_AT_ONCE`` allows (each batch is a
    loop of Newton steps in Python: on a small run that loop is the time), fewer as the deals
    grow (``FIT_CELLS``), and never more draw weights at once than ``WEIGHT_CELLS`` (one draw
    at a time past 10 million deals). Measurements: ``docs/perf/README.md``."""
    fewest, most = DRAWS_AT_ONCE
    deals = max(deals, 1)
    return max(1, min(most, max(fewest, FIT_CELLS // deals), WEIGHT_CELLS // deals))


def _within_strata(stratum: np.ndarray):
    """A function ``(rng, draws) -> weights`` (draws x deals): Rao and Wu's rescaled
    bootstrap, ``n_h - 1`` deals drawn with replacement from the ``n_h`` of each stratum and
    each draw weighted ``n_h / (n_h - 1)`` (strata of one deal pooled; a lone deal keeps
    weight 1). Strata are numbered in the order of their first deal, not by their labels, so
    that any numbering of the same strata draws the same resamples."""
    codes = pd.factorize(stratum, sort=False)[0]
    size = np.bincount(codes)
    codes = np.where(size[codes] > 1, codes + 1, 0)  # 0: the pool of lone deals
    codes = pd.factorize(codes, sort=True)[0]
    size = np.bincount(codes)
    order = np.argsort(codes, kind="stable")  # the deals of each stratum, together
    offset = np.cumsum(size) - size
    slots = np.repeat(np.arange(len(size)), np.maximum(size - 1, 0))
    weight = np.where(size > 1, size / np.maximum(size - 1, 1), 0.0)
    fixed = np.where(size[codes] == 1, 1.0, 0.0)  # a lone deal is always there

    def draw(rng, draws: int) -> np.ndarray:
        pick = offset[slots] + (rng.random((draws, len(slots))) * size[slots]).astype(np.int64)
        rows = np.repeat(np.arange(draws), len(slots)) * len(codes)
        counts = np.bincount(rows + order[pick].reshape(-1), minlength=draws * len(codes))
        return counts.reshape(draws, len(codes)) * weight[codes] + fixed

    return draw

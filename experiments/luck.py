"""Luck-adjusted win shares: an AIVAT-style estimator for field and round-robin designs.

A game's *luck* for a seat is the sum of its corrections (``agents/templates/luck.py``): at
every chance event (No Thanks!: the first seat when drawn, every card turned up; Tulips: the
seeding, the coin, the first seat, the dealt pairs, every card drawn and the end-game reveal;
a card removed unseen changes nobody's view, so its correction is 0) the change in the seat's
value that chance caused, ``V(after the outcome dealt)`` less the mean of ``V`` over all
outcomes by the game's weights, and at every decision of an agent whose action probabilities
are known (``random``) the value of the action taken less its expectation. ``V`` is fixed
before the run: a network of the game's ``learned`` evaluator (default: the shipped one for
the player count), read from each seat's own observation. Every correction has mean zero
whatever ``V`` is, so a seat's *adjusted* win (its share of the win less its luck) has the win
share's expectation; where ``V`` tracks the game it varies less. The adjusted values go
through the same intervals by deal, stratified by seating group, as the raw ones
(``experiments.stats.clustered_mean``), and every adjusted figure carries its *variance
ratio*: the raw share's variance over the adjusted one's on the same deals, the factor by
which the estimator cuts the deals needed for an interval's width (at equal deals; the
estimator's own cost per game is not in it).

Supported: the field and round-robin designs, single games (not No Thanks! matches of several
rounds), per-game rows (not ``--summary-only``). Head-to-head rates and ratings stay raw.
"""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

DESIGNS = ("field", "round-robin")
SHIPPED = "shipped"
TABLE = (
    "luck-adjusted win share by agent (AIVAT-style; variance_ratio: raw over adjusted, NaN "
    "where either has no spread by deal)"
)


def adjust(jobs: list, value: str = SHIPPED, summary_only: bool = False) -> list:
    """The jobs with their luck measured by the value network ``value`` ("shipped" or a
    network file), or a one-line ValueError: a design other than field or round-robin,
    summaries only, matches of several rounds, or a network that does not fit the game and
    player count."""
    from agents.drivers.luck import check_rules, value_net

    design = jobs[0].design if jobs else ""
    if design not in DESIGNS:
        raise ValueError(f"--luck-adjust works with the designs {', '.join(DESIGNS)}, not {design}")
    if summary_only:
        raise ValueError("--luck-adjust needs per-game rows; drop --summary-only")
    if any(job.isolation for job in jobs):
        raise ValueError("--luck-adjust plays agents in process; drop --isolate")
    if value != SHIPPED:
        value = str(Path(value).expanduser().resolve())
    for job in jobs:
        check_rules(job.make_rules())
        value_net(job.game, job.n_players, value)
    return [replace(job, luck=value) for job in jobs]


def luck_rows(game, rules, agents, seed, first, size, first_player, secret, value):
    """Result rows of a block of games and their luck columns ``luck_s`` (one per seat)."""
    from agents.drivers.luck import luck_block, value_net
    from giftsim.game import load_game

    definition = load_game(game)
    network = value_net(game, rules.n_players, value)
    raw, luck = luck_block(
        definition, rules, agents, seed, first, size, first_player, secret, network
    )
    total = luck.sum(axis=1)
    return raw, {f"luck_{s}": total[:, s] for s in range(rules.n_players)}


def win_share(deals: pd.DataFrame, by="agent") -> pd.DataFrame:
    """The luck-adjusted win share per ``by`` group from per-(deal, agent, ..) sums
    (``experiments.results.deal_sums`` of rows with luck: ``deal``, ``stratum``, ``seats``,
    ``win_sum``, ``adjusted_sum``): ``seats``, ``win_share`` (adjusted), its 95% interval
    (``ci_low``, ``ci_high``: ``stats.share_interval`` of the adjusted standard error, by
    deal, stratified, as every interval by deal, with Student t on Satterthwaite's degrees of
    freedom), ``raw_share``, the ``variance_ratio`` (the raw share's variance over the adjusted
    one's; NaN where either share has no spread by deal, whose interval is then Wilson's on
    the deals and no variance to compare) and ``deals``. The adjusted share is a mean of
    per-deal values that are not wins (they may lie past 0 or 1), so its interval is Student's
    ``mean +- t se`` (not a Wilson interval, whose width follows the share, not ``se``) cut to
    [0, 1], where a share lies: the cut keeps every true share the plain interval holds. The
    adjusted share is clipped to [0, 1] likewise (on a few deals the corrections can take the
    plain mean past an end). An interval wholly past an end (a few deals) is moved to touch
    it, keeping its width, rather than cut to the end itself; such rows are listed in
    ``attrs[marks.PAST_ROWS]``, which ``marks.flag_few`` marks. Where the adjusted share has no
    spread by deal the interval is Wilson's on the deals (``stats.share_interval``)."""
    from experiments import stats  # scipy: only when scored
    from experiments.marks import PAST_ROWS

    keys = [by] if isinstance(by, str) else list(by)
    raw = stats.clustered_mean(deals, "win_sum", "seats", keys, "deal", True, "stratum")
    adj = stats.clustered_mean(deals, "adjusted_sum", "seats", keys, "deal", True, "stratum")
    out = pd.DataFrame({"seats": adj["n"].round().astype(int)})
    out["win_share"] = adj["mean"].clip(0, 1)
    z = stats.quantile(adj["df"])
    out["ci_low"], out["ci_high"] = _cut_interval(adj["mean"], z * adj["se"])
    flat = ~(adj["se"] > stats.NO_SPREAD) & adj["se"].notna()
    if flat.any():  # no spread by deal: Wilson's on the deals
        ends = stats.share_interval(adj["mean"], adj["se"], adj["clusters"], z)
        out.loc[flat, "ci_low"], out.loc[flat, "ci_high"] = ends[0][flat], ends[1][flat]
    out["raw_share"] = raw["mean"]
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = raw["se"] ** 2 / adj["se"] ** 2
    # no spread in either share by deal (its interval is then Wilson's on the deals): no ratio
    out["variance_ratio"] = ratio.where(
        (raw["se"] > stats.NO_SPREAD) & (adj["se"] > stats.NO_SPREAD)
    )
    out["deals"] = adj["clusters"]
    out.attrs[PAST_ROWS] = tuple(out.index[(adj["mean"] < 0) | (adj["mean"] > 1)])
    return out


def _cut_interval(mean, half):
    """``mean +- half`` cut to [0, 1]; one wholly past an end is moved to touch it instead
    (its width kept, at most 1). NaN where ``half`` is NaN."""
    low, high = np.asarray(mean - half, float), np.asarray(mean + half, float)
    width = np.minimum(high - low, 1.0)
    low = np.where(low > 1, 1 - width, low)
    high = np.where(high < 0, width, high)
    return np.clip(low, 0, 1), np.clip(high, 0, 1)


def adjusted_field(
    game, candidate, baseline, n_players, n_games, seed=0, value=SHIPPED, rules=None
):
    """``batch.field`` with the luck adjusted: ``candidate`` against ``n_players - 1`` copies
    of ``baseline`` on ``n_games`` duplicate deals in every seat
    (``experiments.schedule.field_design``), its luck measured by ``value``. The
    :func:`win_share` row of the candidate as a dict: ``win_share`` is the *adjusted* share
    (``raw_share`` the played one), with its interval, the variance ratio and the deals."""
    from experiments.results import deal_sums
    from experiments.runner import run
    from experiments.schedule import design_strata, field_design

    jobs = field_design(game, candidate, baseline, n_players, n_games, seed, rules)
    jobs = adjust(jobs, value)
    frame, _, _ = run(jobs, backend="serial", progress=False, chunk_size=10**7)
    table = win_share(deal_sums(frame, design_strata(jobs)))
    return table.loc[jobs[0].agents[0]].to_dict()

"""Intervals of seat-rotated designs on duplicate deals cover at 95%: many small synthetic
round-robins with a known truth, their games correlated within a deal, go through the
project's own interval functions (win shares, head-to-head rates, ratings)."""

import numpy as np
import pandas as pd
import pytest

from experiments import ratings, stats
from experiments.schedule import round_robin

AGENTS = ("random", "greedy", "sniper")
THETA = np.array([-0.4, 0.0, 0.4])  # log-strength of each agent in the utility model
TAU = 0.8  # spread of the deal x agent effect: how much a deal favours an agent everywhere
SIMS, DEALS = 600, 60  # small tournaments and deals per seating group in each


def tournaments(seed: int, sims: int, deals: int) -> pd.DataFrame:
    """``sims`` round-robins of ``AGENTS`` at 3 players (the project's job list: 7 seating
    groups in 3 rotations, duplicate deals), stacked in one long frame with ``sim``, ``deal``
    and ``finish``. A seat's utility is theta[agent] + v[deal, agent] + Gumbel noise; the
    highest utility wins, and the utilities give the finishing order. The deal effect v is
    shared by every rotation of the deal, so the games of a deal are positively correlated."""
    rng = np.random.default_rng(seed)
    jobs = round_robin("geschenkt", list(AGENTS), 3, deals)
    codes = {spec: i for i, spec in enumerate(AGENTS)}
    agent = np.array([[codes[a] for a in job.agents] for job in jobs])  # J x 3
    group = np.array([job.group for job in jobs])
    first = np.array([job.first_index for job in jobs])
    n_groups = group.max() + 1
    effect = rng.normal(0, TAU, (sims, n_groups, deals, len(AGENTS)))
    # utility[s, j, d, seat]
    seat_effect = np.take_along_axis(
        effect[:, group][:, :, :, None, :].repeat(3, 3),
        agent[None, :, None, :, None].repeat(sims, 0).repeat(deals, 2),
        axis=4,
    )[..., 0]
    utility = THETA[agent][None, :, None, :] + seat_effect + rng.gumbel(size=seat_effect.shape)
    win = (utility == utility.max(3, keepdims=True)).astype(float)
    shape = utility.shape
    s, j, d, seat = (a.reshape(-1) for a in np.indices(shape))
    game_index = first[j] + d
    return pd.DataFrame(
        {
            "sim": s,
            "job": s * len(jobs) + j,  # a game is (job, game_index): one job per sim
            "seating": j,
            "game_index": game_index,
            "n_players": 3,
            "seat": seat,
            "agent": np.asarray(AGENTS, object)[agent[j, seat]],
            "score": -utility.reshape(-1),
            "win": win.reshape(-1),
            "first": seat == game_index % 3,
            "deal": s * 10**6 + game_index,
            "finish": utility.reshape(-1),
        }
    )


@pytest.fixture(scope="module")
def small():
    return tournaments(1, SIMS, DEALS)


@pytest.fixture(scope="module")
def truth():
    """The population values: the same estimators on one tournament of 200x the deals."""
    big = tournaments(2, 1, DEALS * 200)
    return {
        "share": stats.win_share(big).win_share,
        "pair": stats.pairwise(big).stack(),
        "rating": stats.ratings(big, n_boot=0)["rating"],
    }


def coverage(table: pd.DataFrame, truth: pd.Series, value_level="agent") -> float:
    target = truth.reindex(table.index.get_level_values(value_level)).to_numpy()
    if isinstance(truth.index, pd.MultiIndex):
        target = truth.reindex(table.index.droplevel("sim")).to_numpy()
    hit = (table["ci_low"].to_numpy() <= target) & (target <= table["ci_high"].to_numpy())
    return float(hit.mean())


def test_the_deals_are_correlated_as_in_no_thanks(small):
    """Rotations of a deal correlate like No Thanks! fields (+0.16 to +0.44): the sniper's
    wins in two rotations of the seating (random, greedy, sniper) on the same deals."""
    jobs = round_robin("geschenkt", list(AGENTS), 3, DEALS)
    first, second = [j.job for j in jobs if len(set(j.agents)) == 3][:2]
    sniper = small[small.agent == "sniper"].set_index(["seating", "sim", "game_index"])["win"]
    rho = np.corrcoef(sniper.loc[first], sniper.loc[second])[0, 1]
    assert 0.15 < rho < 0.45


def test_win_share_intervals_by_deal_cover_at_95_percent(small, truth):
    table = stats.win_share(small, ["sim", "agent"])
    assert (table["deals"] == 5 * DEALS).all()  # each agent sits in 5 of the 7 groups
    assert 0.93 <= coverage(table, truth["share"]) <= 0.97
    per_game = stats.win_share(small.drop(columns="deal"), ["sim", "agent"])
    assert coverage(per_game, truth["share"]) < 0.93  # the old unit, games: too narrow


def test_head_to_head_intervals_by_deal_cover_at_95_percent(small, truth):
    named = small.assign(agent=small["sim"].astype(str) + ":" + small["agent"])
    table = stats.pairwise_table(named).reset_index()
    parts = table["agent"].str.split(":", expand=True)
    table["sim"], table["agent"] = parts[0].astype(int), parts[1]
    table["opponent"] = table["opponent"].str.split(":").str[1]
    table = table.set_index(["sim", "agent", "opponent"])
    assert len(table) == SIMS * 6
    assert 0.93 <= coverage(table, truth["pair"]) <= 0.97


def test_rating_intervals_by_deal_cover_at_95_percent(small, truth):
    rows = []
    for sim, part in small.groupby("sim"):  # 1,800 intervals: binomial sd of coverage 0.005
        rows.append(stats.ratings(part, n_boot=100, seed=sim).assign(sim=sim))
    table = pd.concat(rows).set_index("sim", append=True)
    assert 0.93 <= coverage(table, truth["rating"]) <= 0.97


def test_rating_intervals_do_not_depend_on_how_the_strata_are_numbered(small):
    """The bootstrap resamples deals within strata: two numberings of the same strata (a
    run's own job numbers, the codes another reader gives them) draw the same resamples."""
    part = small[small.sim == 0]
    strata = part.groupby("deal")["seating"].transform("min").map(lambda s: s % 7)
    one = stats.ratings(part.assign(stratum=strata), n_boot=50, seed=3)
    other = stats.ratings(part.assign(stratum=1000 - 3 * strata), n_boot=50, seed=3)
    pd.testing.assert_frame_equal(other, one)
    assert one["ci_high"].gt(one["ci_low"]).all()


def test_rating_intervals_do_not_depend_on_how_many_draws_are_fitted_together(small, monkeypatch):
    """The bootstrap fits its draws in batches (``ratings._draws_at_once``, by the deals): one
    at a time, ten, or all of them give the same ratings and intervals (to rounding), and a
    batch never holds more than ``WEIGHT_CELLS`` draw weights unless it is one draw."""
    part = small[small.sim == 1]
    assert ratings._draws_at_once(part["deal"].nunique()) == ratings.DRAWS_AT_ONCE[1]
    for deals in (10**3, 10**5, 10**6, 3 * 10**7):
        at_once = ratings._draws_at_once(deals)
        assert at_once >= 1 and (at_once == 1 or at_once * deals <= ratings.WEIGHT_CELLS)
    default = stats.ratings(part, n_boot=40, seed=5)
    for at_once in (1, 10, 1000):
        monkeypatch.setattr(ratings, "_draws_at_once", lambda deals, n=at_once: n)
        batched = stats.ratings(part, n_boot=40, seed=5)
        pd.testing.assert_frame_equal(batched, default, rtol=1e-9, atol=1e-12)

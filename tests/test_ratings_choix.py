"""experiments.ratings against choix (a reference Plackett-Luce implementation) on tie-free
finishing orders: the whole order, and the winner only."""

import choix
import numpy as np
import pandas as pd
import pytest

from experiments import ratings

AGENTS = np.array(["a", "b", "c", "d", "e"], object)


def finishing_orders(seed: int, games: int, n: int = 4):
    """Games of ``n`` distinct agents out of five; utilities theta + Gumbel noise give a
    Plackett-Luce order exactly (no ties). Returns the long frame and the orders, best first."""
    rng = np.random.default_rng(seed)
    theta = np.log([3.0, 2.0, 1.0, 1.0, 0.5])
    agent = rng.permuted(np.tile(np.arange(5), (games, 1)), axis=1)[:, :n]
    utility = theta[agent] + rng.gumbel(size=agent.shape)
    win = (utility == utility.max(1, keepdims=True)).astype(float)
    game, seat = np.indices(agent.shape)
    long = pd.DataFrame(
        {
            "job": 0,
            "game_index": game.reshape(-1),
            "n_players": n,
            "seat": seat.reshape(-1),
            "agent": AGENTS[agent.reshape(-1)],
            "score": -utility.reshape(-1),
            "win": win.reshape(-1),
            "first": seat.reshape(-1) == 0,
            "finish": utility.reshape(-1),
        }
    )
    orders = np.take_along_axis(agent, np.argsort(-utility, axis=1), axis=1)
    return long, orders


def centred(x):
    return np.asarray(x) - np.mean(x)


def test_the_whole_finishing_order_matches_choix():
    long, orders = finishing_orders(1, 3000)
    ours = ratings.ratings(long, n_boot=0, prior=1e-9)["rating"].sort_index()
    reference = choix.ilsr_rankings(5, list(orders), alpha=0.0, tol=1e-12)
    assert ours.to_numpy() == pytest.approx(centred(reference), abs=1e-6)


def test_the_winner_only_model_matches_choix_top1():
    long, orders = finishing_orders(2, 3000)
    ours = ratings.ratings(long, n_boot=0, prior=1e-9, order="win")["rating"].sort_index()
    data = [(int(o[0]), [int(x) for x in o[1:]]) for o in orders]  # (winner, losers)
    reference = choix.ilsr_top1(5, data, alpha=0.0, tol=1e-12)
    assert ours.to_numpy() == pytest.approx(centred(reference), abs=1e-6)


def test_the_whole_order_is_the_default_and_is_sharper_than_the_winner_alone():
    long, _ = finishing_orders(3, 2000)
    full = ratings.ratings(long, n_boot=60, seed=0)
    winner = ratings.ratings(long.drop(columns="finish"), n_boot=60, seed=0)
    pd.testing.assert_frame_equal(full, ratings.ratings(long, n_boot=60, seed=0, order="finish"))
    width = (full["ci_high"] - full["ci_low"]).mean()
    assert width < 0.8 * (winner["ci_high"] - winner["ci_low"]).mean()


def test_one_deal_has_no_interval_rather_than_one_of_zero_width():
    """A bootstrap of one deal can only draw that deal: its spread is 0 by construction, so
    the interval has no finite end (NaN; or +-inf where the rating is unbounded, as every
    rating of a single game without ties is: ``test_ratings_unbounded``), while two deals or
    more give one of positive width."""
    long, _ = finishing_orders(3, 2)
    one = ratings.ratings(long[long.game_index == 0], n_boot=50)
    ends = one[["ci_low", "ci_high"]].to_numpy()
    assert not np.isfinite(ends).any() and np.isnan(ends).any() and one["rating"].notna().all()
    two = ratings.ratings(long, n_boot=50)
    assert (two["ci_high"] > two["ci_low"]).all()

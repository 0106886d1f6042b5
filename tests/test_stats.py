"""experiments.stats on synthetic long frames with planted effects (and without), against slow
twins written from the docstrings, and against known values."""

from collections import defaultdict
from itertools import permutations

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from scipy import stats as sps

from experiments import stats
from experiments.blocks import GAME

AGENTS = ("a", "b", "c", "d", "e")


def make_long(
    seed,
    n_games=2000,
    n_players=4,
    agents=AGENTS,
    strength=None,
    seat_weight=None,
    tie=0.0,
    job=0,
):
    """A long frame of synthetic games. Each game seats a random draw of ``n_players`` agents
    (without replacement when there are enough, else with); the winner is drawn with probability
    proportional to ``strength[agent] * seat_weight[seat]`` (so with ``tie=0`` the winner
    follows a Plackett-Luce first choice exactly), and with probability ``tie`` the win is split
    with one other random seat. Seat ``game_index % n`` moves first."""
    rng = np.random.default_rng(seed)
    k, n = len(agents), n_players
    strength = np.ones(k) if strength is None else np.asarray(strength, float)
    seat_weight = np.ones(n) if seat_weight is None else np.asarray(seat_weight, float)
    if k >= n:
        codes = rng.permuted(np.tile(np.arange(k), (n_games, 1)), axis=1)[:, :n]
    else:
        codes = rng.integers(k, size=(n_games, n))
    weight = strength[codes] * seat_weight
    cumulative = np.cumsum(weight / weight.sum(1, keepdims=True), axis=1)
    winner = np.minimum((rng.random((n_games, 1)) > cumulative).sum(1), n - 1)
    games = np.arange(n_games)
    win = np.zeros((n_games, n))
    win[games, winner] = 1
    tied = rng.random(n_games) < tie
    other = (winner + rng.integers(1, n, n_games)) % n
    win[games[tied], winner[tied]] = 0.5
    win[games[tied], other[tied]] = 0.5
    score = rng.normal(10, 3, (n_games, n)) + 5 * win
    game, seat = np.repeat(games, n), np.tile(np.arange(n), n_games)
    return pd.DataFrame(
        {
            "job": job,
            "game_index": game,
            "n_players": n,
            "seat": seat,
            "agent": np.asarray(agents, object)[codes.reshape(-1)],
            "score": score.reshape(-1),
            "win": win.reshape(-1),
            "first": seat == game % n,
        }
    )


def centred_log(strength):
    theta = np.log(np.asarray(strength, float))
    return theta - theta.mean()


def assert_within_se(estimate, truth, low, high, k=3.0):
    """Family-wise check: every estimate within ``k`` standard errors of the truth, the standard
    error read off the 95% interval width (so a 5% miss per interval does not fail a family)."""
    se = (np.asarray(high) - np.asarray(low)) / (2 * stats.Z95)
    assert (np.abs(np.asarray(estimate) - np.asarray(truth)) < k * se).all()


# ---- slow twins ---------------------------------------------------------------------------


def naive_pairwise(long, order="win"):
    beats, games = defaultdict(float), defaultdict(float)
    for _, game in long.groupby(["job", "game_index"]):
        agents, wins = list(game["agent"]), list(game[order])
        for i, j in permutations(range(len(agents)), 2):
            a, b = agents[i], agents[j]
            if a == b:
                continue
            weight = 1 / (agents.count(a) * agents.count(b))
            outcome = 1.0 if wins[i] > wins[j] + 1e-9 else 0.0 if wins[i] < wins[j] - 1e-9 else 0.5
            beats[a, b] += weight * outcome
            games[a, b] += weight
    return {key: beats[key] / games[key] for key in games}, games


def naive_choices(long):
    """The documented Plackett-Luce choices, game by game: (chosen, in play, weight); seats with
    equal win form one group, each member chosen with weight 1/size, the last group forced."""
    choices = []
    for _, game in long.groupby(["job", "game_index"]):
        seats = sorted(zip(game["win"], game["agent"], strict=True), key=lambda s: -s[0])
        levels = sorted({w for w, _ in seats}, reverse=True)
        for level in levels[:-1]:
            in_play = [a for w, a in seats if w <= level]
            group = [a for w, a in seats if w == level]
            choices += [(a, in_play, 1 / len(group)) for a in group]
    return choices


def naive_loglik(theta: dict, choices, prior):
    total = sum(prior * (0.5 * t - np.log1p(np.exp(t))) for t in theta.values())
    for chosen, in_play, weight in choices:
        total += weight * (theta[chosen] - np.log(sum(np.exp(theta[a]) for a in in_play)))
    return total


def naive_ratings(long, prior=1.0):
    names, choices = sorted(long["agent"].unique()), naive_choices(long)

    def loss(x):
        return -naive_loglik(dict(zip(names, x, strict=True)), choices, prior)

    x = optimize.minimize(loss, np.zeros(len(names)), method="BFGS", options={"gtol": 1e-8}).x
    return pd.Series(x - x.mean(), index=names)


def stratified_frame(seed, games=40, strata=3):
    """Games of ``strata`` seating groups, each two jobs playing the same ``games`` deals (a
    deal is (group, game index)); agent "a" is 0.2 + 4s times as strong in group s, so the
    groups differ by design."""
    parts = []
    for s in range(strata):
        for j in (2 * s, 2 * s + 1):
            part = make_long(100 * seed + j, games, 3, strength=[0.2 + 4 * s, 1, 1, 1, 1], job=j)
            parts.append(part.assign(deal=s * 10_000 + part["game_index"]))
    return pd.concat(parts, ignore_index=True)


def naive_parts(residual: dict, stratum: dict) -> list[tuple[float, int]]:
    """Per stratum (strata of one deal pooled): ``n_h / (n_h - 1) sum_{d in h} (z_d -
    mean_h z)^2`` and ``n_h`` (written from the stats docstring)."""
    members = defaultdict(list)
    for d, z in residual.items():
        members[stratum[d]].append(z)
    lone = [z for zs in members.values() if len(zs) == 1 for z in zs]
    groups = [zs for zs in members.values() if len(zs) > 1] + ([lone] if len(lone) > 1 else [])
    return [
        (len(zs) / (len(zs) - 1) * sum((z - np.mean(zs)) ** 2 for z in zs), len(zs))
        for zs in groups
    ]


def naive_spread(residual: dict, stratum: dict) -> float:
    return sum(v for v, _ in naive_parts(residual, stratum))


def naive_df(residual: dict, stratum: dict) -> float:
    """Satterthwaite's degrees of freedom of the stratified variance."""
    parts = naive_parts(residual, stratum)
    return sum(v for v, _ in parts) ** 2 / sum(v**2 / (n - 1) for v, n in parts)


def naive_stratified(per_deal: dict, stratum: dict) -> tuple[float, float]:
    """The stratified linearised standard error of sum(x) / sum(c) over deals, from
    ``per_deal[d] = (x_d, c_d)`` and each deal's stratum, and its degrees of freedom."""
    total_x = sum(x for x, _ in per_deal.values())
    total_c = sum(c for _, c in per_deal.values())
    residual = {d: x - total_x / total_c * c for d, (x, c) in per_deal.items()}
    return np.sqrt(naive_spread(residual, stratum)) / total_c, naive_df(residual, stratum)


def naive_strata(long) -> dict:
    return {deal: frozenset(rows["job"]) for deal, rows in long.groupby("deal")}


def test_stratified_intervals_match_a_slow_twin():
    long = stratified_frame(61)
    strata = naive_strata(long)
    share, score = stats.win_share(long), stats.mean_score(long)
    for agent in ("a", "c"):
        mine = long[long["agent"] == agent]
        wins = {d: (r["win"].sum(), len(r)) for d, r in mine.groupby("deal")}
        se, df = naive_stratified(wins, strata)
        z = sps.t.ppf(0.975, df)
        low, high = stats.share_interval(share.loc[agent, "win_share"], se, len(wins), z)
        assert share.loc[agent, ["ci_low", "ci_high"]].tolist() == pytest.approx([low, high])
        scores = {d: (r["score"].sum(), len(r)) for d, r in mine.groupby("deal")}
        se, df = naive_stratified(scores, strata)
        half = sps.t.ppf(0.975, df) * se
        row = score.loc[agent]
        assert row["ci_high"] - row["mean"] == pytest.approx(half)
    # the pooled mean would count the groups' designed differences as noise: wider
    pooled = stats.win_share(long.assign(stratum=0)).loc["a"]
    assert pooled["ci_high"] - pooled["ci_low"] > 1.2 * (
        share.loc["a", "ci_high"] - share.loc["a", "ci_low"]
    )


def test_a_seat_gap_counts_the_covariance_of_its_places():
    long = stratified_frame(62, strata=2)
    strata = naive_strata(long)
    gap = stats.seat_gap(long, 0, 2, column="seat").loc[3]
    counts = long.groupby("seat")["win"].agg(["sum", "size"])
    rate = counts["sum"] / counts["size"]
    per_deal = {}
    for d, rows in long.groupby("deal"):
        by_seat = rows.groupby("seat")["win"].agg(["sum", "size"]).reindex(range(3), fill_value=0)
        z = [
            (by_seat.loc[k, "sum"] - rate[k] * by_seat.loc[k, "size"]) / counts.loc[k, "size"]
            for k in (0, 2)
        ]
        per_deal[d] = z[1] - z[0]
    se, df = np.sqrt(naive_spread(per_deal, strata)), naive_df(per_deal, strata)
    low, high = stats.gap_interval(rate[2] - rate[0], se, len(per_deal), sps.t.ppf(0.975, df))
    assert gap["gap"] == pytest.approx(rate[2] - rate[0])
    assert [gap["ci_low"], gap["ci_high"]] == pytest.approx([low, high])


def test_the_rescaled_bootstrap_within_strata_gives_the_stratified_variance():
    """Rao and Wu's draws: each stratum keeps its weight, and a linear statistic's bootstrap
    variance is the stratified variance, even with 3 deals in a stratum."""
    from experiments.ratings import _within_strata

    rng = np.random.default_rng(5)
    stratum = np.repeat([0, 1, 2, 3], [3, 10, 25, 1])
    values = rng.normal(stratum * 2.0, 1.0)
    draw = _within_strata(stratum)
    weights = draw(rng, 40_000)
    for h in range(4):
        assert weights[:, stratum == h].sum(1) == pytest.approx(
            np.full(40_000, (stratum == h).sum())
        )
    spread = (weights @ values).var()
    expected = naive_spread(dict(enumerate(values)), dict(enumerate(stratum)))
    assert spread == pytest.approx(expected, rel=0.03)


# ---- known values -------------------------------------------------------------------------


def test_wilson_known_values():
    low, high = stats.wilson([5, 0, 10], [10, 10, 10])
    assert low[0] == pytest.approx(0.2366, abs=1e-4) and high[0] == pytest.approx(0.7634, abs=1e-4)
    assert low[1] == 0 and high[1] == pytest.approx(0.2775, abs=1e-4)
    assert high[2] == pytest.approx(1) and low[2] == pytest.approx(0.7225, abs=1e-4)
    assert np.isnan(stats.wilson(0, 0)).all()


def tiny_long():
    """Two 2-player games: a beats b, then a and b tie; then a 3-player game won by c."""
    rows = [
        (0, 0, 2, 0, "a", 1.0, 1.0, True),
        (0, 0, 2, 1, "b", 5.0, 0.0, False),
        (0, 1, 2, 0, "b", 2.0, 0.5, True),
        (0, 1, 2, 1, "a", 2.0, 0.5, False),
        (1, 0, 3, 0, "a", 0.0, 0.0, False),
        (1, 0, 3, 1, "b", 0.0, 0.0, True),
        (1, 0, 3, 2, "c", 9.0, 1.0, False),
    ]
    return pd.DataFrame(rows, columns=list(stats.COLUMNS))


def test_tables_on_a_hand_made_frame():
    long = tiny_long()
    share = stats.win_share(long)
    assert share.loc["a", "seats"] == 3 and share.loc["a", "win_share"] == pytest.approx(0.5)
    assert share.loc["a", "fair"] == pytest.approx((0.5 + 0.5 + 1 / 3) / 3)
    assert share.loc["c", ["win_share", "fair"]].tolist() == pytest.approx([1, 1 / 3])
    pair = stats.pairwise(long)
    assert pair.loc["a", "b"] == pytest.approx((1 + 0.5 + 0.5) / 3)
    assert pair.loc["c", "a"] == 1 and np.isnan(pair.loc["a", "a"])
    assert stats.pairwise_counts(long).loc["a", "b"] == 3


def test_mean_score_matches_the_t_interval():
    long = make_long(3, 300)
    table = stats.mean_score(long)
    scores = long.loc[long["agent"] == "b", "score"]
    low, high = sps.t.interval(0.95, len(scores) - 1, scores.mean(), sps.sem(scores))
    assert table.loc["b", ["mean", "ci_low", "ci_high"]].tolist() == pytest.approx(
        [scores.mean(), low, high]
    )


def test_games_needed_formula_and_power():
    assert stats.games_needed(0.05, 2) == 783  # ((1.95996*0.5 + 0.84162*0.49749)/0.05)^2
    assert stats.games_needed(0.02, 4) > stats.games_needed(0.04, 4)
    assert stats.games_needed(-0.03, 4) > 0
    n = stats.games_needed(0.04, 4)
    wins = np.random.default_rng(7).binomial(n, 0.29, size=4000)
    z = (wins / n - 0.25) / np.sqrt(0.25 * 0.75 / n)
    assert 0.77 < (np.abs(z) > stats.Z95).mean() < 0.83
    with pytest.raises(ValueError):
        stats.games_needed(0.8, 4)


# ---- intervals are calibrated -------------------------------------------------------------


def test_win_share_and_wilson_intervals_cover_at_about_95_percent():
    hits_share, hits_seat = [], []
    for seed in range(200):
        long = make_long(seed, 150, tie=0.1)
        share = stats.win_share(long).loc["a"]
        hits_share.append(share.ci_low <= 0.25 <= share.ci_high)
        seat = stats.seat_advantage(long).loc[(4, 0)]
        hits_seat.append(seat.ci_low <= 0.25 <= seat.ci_high)
    assert 0.91 <= np.mean(hits_share) <= 0.99
    assert 0.91 <= np.mean(hits_seat) <= 0.99


# ---- seats --------------------------------------------------------------------------------


def test_seat_advantage_detected_only_where_planted():
    long = pd.concat(
        [
            make_long(11, 4000, 4, seat_weight=[1.5, 1, 1, 1]),
            make_long(13, 4000, 3, job=1),
        ]
    )
    table = stats.seat_advantage(long)
    assert table.loc[(4, 0), "ci_low"] > 0.25 and table.loc[(4, 0), "fair"] == 0.25
    assert (table.loc[4, "games"] == 4000).all()
    assert table.loc[4, "wins"].sum() == pytest.approx(4000)
    test = stats.seat_test(long)
    assert test.loc[4, "seat_effect"] and test.loc[4, "p_value"] < 1e-6
    assert not test.loc[3, "seat_effect"] and test.loc[3, "dof"] == 2
    assert_within_se(
        table.loc[3, "win_share"], 1 / 3, table.loc[3, "ci_low"], table.loc[3, "ci_high"]
    )


def test_seat_test_rejects_at_its_nominal_level_under_the_null():
    p = [stats.seat_test(make_long(seed, 400, 3, tie=0.1)).p_value.iloc[0] for seed in range(300)]
    assert 0.02 <= np.mean(np.array(p) < 0.05) <= 0.09


def test_streamed_sums_give_the_same_tables_as_rows():
    long = pd.concat(
        [make_long(14, 500, 4, seat_weight=[1.4, 1, 1, 1], tie=0.2), make_long(15, 300, 3, job=1)]
    )
    sums = (
        long.assign(games=1, win_sum=long["win"], win_sq=long["win"] ** 2)
        .groupby(["job", "n_players", "seat", "agent"], as_index=False)[
            ["games", "win_sum", "win_sq"]
        ]
        .sum()
    )
    for by in ("agent", ["n_players", "seat"]):
        pd.testing.assert_frame_equal(
            stats.summary_win_share(sums, by), stats.win_share(long, by), check_dtype=False
        )
    pd.testing.assert_frame_equal(stats.summary_seat_advantage(sums), stats.seat_advantage(long))
    # the sums' chi-square and the Wald test by game (every game its own deal) nearly agree
    chi2, wald = stats.summary_seat_test(sums), stats.seat_test(long)
    assert chi2["chi2"].to_numpy() == pytest.approx(wald["chi2"].to_numpy(), rel=0.03)
    assert (chi2["seat_effect"] == wald["seat_effect"]).all()
    # a gap from sums takes the covariance of two places at its least: exact without ties
    # (3 players), never narrower with them (4 players, 20% tied)
    bound, gap = stats.summary_seat_gap(sums, column="seat"), stats.seat_gap(long, column="seat")
    assert bound["gap"].to_numpy() == pytest.approx(gap["gap"].to_numpy())
    assert bound.loc[3, "ci_low"] == pytest.approx(gap.loc[3, "ci_low"])
    assert (
        bound.loc[4, "ci_low"]
        < gap.loc[4, "ci_low"]
        < gap.loc[4, "ci_high"]
        < bound.loc[4, "ci_high"]
    )


def test_turn_position_counts_from_the_first_mover():
    long = make_long(5, 50, 4)
    position = stats.turn_position(long)
    assert (position == (long["seat"] - long["game_index"] % 4) % 4).all()
    with pytest.raises(ValueError):
        stats.turn_position(long.assign(first=True))


# ---- head to head -------------------------------------------------------------------------


def test_pairwise_agrees_with_a_slow_twin():
    long = pd.concat(
        [make_long(21, 150, 4, agents=("a", "b", "c"), tie=0.3), make_long(22, 100, 2, job=1)]
    )
    pair, counts = stats.pairwise(long), stats.pairwise_counts(long)
    expected, games = naive_pairwise(long)
    for (a, b), value in expected.items():
        assert pair.loc[a, b] == pytest.approx(value)
        assert counts.loc[a, b] == round(games[a, b])
    assert pair.notna().sum().sum() == len(expected)


def test_pairwise_detects_a_planted_stronger_agent_and_nothing_else():
    strong = make_long(31, 3000, strength=[2, 1, 1, 1, 1])
    pair, counts = stats.pairwise(strong), stats.pairwise_counts(strong)
    low, _ = stats.wilson(pair * counts, counts)
    assert (np.nan_to_num(low[0, 1:]) > 0.5).all()  # a beats every other agent
    null = make_long(32, 3000)
    fair, counts = stats.pairwise(null), stats.pairwise_counts(null)
    z_family = sps.norm.ppf(1 - 0.05 / 20)  # Bonferroni over the 20 off-diagonal cells
    low, high = stats.wilson(fair * counts, counts, z=z_family)
    off = ~np.eye(len(AGENTS), dtype=bool)
    assert ((low[off] < 0.5) & (high[off] > 0.5)).all()
    total = (pair + pair.T).to_numpy()[off]
    assert total == pytest.approx(np.ones(off.sum()))


def test_win_share_detects_the_strong_agent_only():
    share = stats.win_share(make_long(34, 3000, strength=[2, 1, 1, 1, 1]))
    assert share.loc["a", "ci_low"] > share.loc["a", "fair"]
    assert (share.drop(index="a")["ci_high"] < 0.25).all()
    null = stats.win_share(make_long(35, 3000))
    assert_within_se(null["win_share"], null["fair"], null["ci_low"], null["ci_high"])


# ---- ratings ------------------------------------------------------------------------------


def test_ratings_match_the_slow_maximum_likelihood_with_ties():
    long = pd.concat(
        [make_long(41, 120, 4, agents=("a", "b", "c"), tie=0.3), make_long(42, 60, 2, job=1)]
    )
    fast = stats.ratings(long, n_boot=0)["rating"]
    assert fast.sort_index().to_numpy() == pytest.approx(naive_ratings(long).to_numpy(), abs=1e-5)
    assert fast.sum() == pytest.approx(0, abs=1e-12)


def test_ratings_follow_a_general_finishing_order():
    rows = []
    for g, order in enumerate(["abc", "abc", "bca", "acb", "cab", "abc"]):
        for seat, (agent, win) in enumerate(zip(order, (0.6, 0.3, 0.1), strict=True)):
            rows.append((0, g, 3, seat, agent, 0.0, win, seat == 0))
    for g in range(3):  # a b tied for first, c last
        for seat, (agent, win) in enumerate(zip("abc", (0.5, 0.5, 0.0), strict=True)):
            rows.append((1, g, 3, seat, agent, 0.0, win, seat == 0))
    long = pd.DataFrame(rows, columns=list(stats.COLUMNS))
    fast = stats.ratings(long, n_boot=0, prior=0.5)["rating"].sort_index()
    assert fast.to_numpy() == pytest.approx(naive_ratings(long, 0.5).to_numpy(), abs=1e-5)


def test_ratings_recover_planted_strengths():
    strength = [2, 1, 1, 1, 0.5]
    table = stats.ratings(make_long(43, 6000, strength=strength), n_boot=100, seed=1)
    table = table.sort_index()
    assert_within_se(table["rating"], centred_log(strength), table["ci_low"], table["ci_high"])
    assert table.loc["a", "ci_low"] > table.drop(index="a")["ci_high"].max()
    assert table.loc["e", "ci_high"] < table.drop(index="e")["ci_low"].min()


def test_ratings_find_no_difference_where_none_was_planted():
    table = stats.ratings(make_long(44, 6000, tie=0.1), n_boot=100, seed=2)
    assert ((table["ci_low"] < 0) & (table["ci_high"] > 0)).all()


def test_ratings_are_seeded_and_scaled():
    long = make_long(45, 500)
    one, two = stats.ratings(long, n_boot=30, seed=3), stats.ratings(long, n_boot=30, seed=3)
    pd.testing.assert_frame_equal(one, two)
    assert not one.equals(stats.ratings(long, n_boot=30, seed=4))
    elo = stats.ratings(long, n_boot=30, seed=3, scale="elo")
    pd.testing.assert_frame_equal(elo, one * 400 / np.log(10))
    assert (one["ci_low"] <= one["rating"]).all() and (one["rating"] <= one["ci_high"]).all()


def test_ratings_of_200k_games_are_narrow():
    """200,000 games of 8 agents (timed by no test: speed is measured, not asserted)."""
    long = make_long(46, 200_000, 4, agents=tuple("abcdefgh"), tie=0.05)
    table = stats.ratings(long, n_boot=200, seed=0)
    assert table["ci_high"].sub(table["ci_low"]).max() < 0.05


# ---- ranges -------------------------------------------------------------------------------


def test_every_interval_stays_in_its_range_with_some_width_at_its_edge():
    """An agent that wins every game, a seat that wins every game: shares of 1 and 0, a gap of
    -1; every interval inside the statistic's range and of non-zero width."""
    long = make_long(71, 200, 3)
    long["deal"] = long["game_index"] // 2
    holds_a = long.groupby(GAME)["agent"].transform(lambda a: (a == "a").any())
    winner = np.where(holds_a, long["agent"] == "a", long["seat"] == 0)
    long["win"] = winner.astype(float)
    share = stats.win_share(long)
    pair = stats.pairwise_table(long)
    tables = [share, pair, stats.seat_advantage(long)]
    for table in tables:
        assert (table["ci_low"] >= 0).all() and (table["ci_high"] <= 1).all()
    assert share.loc["a", "win_share"] == 1 and share.loc["a", "ci_low"] < 1
    assert (pair.xs("a")["share"] == 1).all() and (pair.xs("a")["ci_low"] < 1).all()
    without_a = long[~holds_a]
    gap = stats.seat_gap(without_a, 0, -1, column="seat").loc[3]
    assert gap["gap"] == -1 and gap["ci_low"] >= -1 and -1 < gap["ci_high"] <= 1
    assert stats.seat_test(without_a, "seat").loc[3, "p_value"] == 0
    low, high = stats.share_interval(np.array([0.0, 1.0, 0.5]), np.array([0.0, 0.0, 0.3]), 20)
    assert (low >= 0).all() and (high <= 1).all() and (high - low > 0.05).all()


def test_the_turn_order_tables_take_n_players_among_their_groups():
    """Every turn-order table is by player count already: naming ``n_players`` in ``by`` as
    well gives the same table (it gave pandas' "n_players occurs multiple times")."""
    long = pd.concat([make_long(11, 300, 4), make_long(13, 300, 3, job=1)])
    for table in (stats.seat_advantage, stats.seat_gap, stats.seat_test):
        pd.testing.assert_frame_equal(
            table(long, column="seat", by=["agent", "n_players"]),
            table(long, column="seat", by="agent"),
        )


def test_a_standard_error_of_rounding_is_no_spread():
    """Sums of thirds leave a standard error of about 1e-18 where every deal is alike: the
    interval is that of no spread on the deals, not one of width 0."""
    rounded = stats.share_interval(1 / 3, 1e-18, 12)
    exact = stats.share_interval(1 / 3, 0.0, 12)
    assert rounded == exact and exact[1] - exact[0] > 0.3


def test_a_field_interval_stays_in_0_1_with_few_deals():
    """``batch.field``, which scores the train command's learning curve and the ladder: a
    candidate that wins every deal gets an interval below 1, not one past it or of width 0."""
    from experiments.batch import field

    result = field("geschenkt", "greedy", "random", 3, 6, seed=2)
    low, high = result["ci95"]
    assert result["win_share"] == 1 and 0 < low < high == 1


# ---- validation ---------------------------------------------------------------------------


def test_malformed_frames_are_rejected():
    long = make_long(51, 20)
    with pytest.raises(ValueError, match="lacks columns"):
        stats.win_share(long.drop(columns="win"))
    with pytest.raises(ValueError, match="one row per seat"):
        stats.pairwise(long.iloc[1:])
    with pytest.raises(ValueError, match="one row per seat"):
        stats.ratings(long.assign(seat=0), n_boot=0)
    with pytest.raises(ValueError):
        stats.ratings(long, scale="glicko")


def test_printed_tables_flag_intervals_on_few_deals(capsys):
    from experiments import commands

    few, many = stats.win_share(make_long(81, 20)), stats.win_share(make_long(82, 400))
    commands.print_tables({"few": few, "many": many})
    printed = capsys.readouterr().out
    few_part, many_part = printed.split("== many")
    assert few_part.count(f"< {stats.FEW_DEALS} deals") == len(few) + 1  # each row, and a note
    assert "too few deals" in few_part
    assert "warning" not in many_part and "too few" not in many_part


def test_printed_tables_flag_intervals_of_width_0_and_missing_ones(capsys):
    """Every deal alike gives a mean's interval of width 0, one deal none at all: each row says
    so, and one note per kind says what it means; a sound row on enough deals has no mark."""
    from experiments import commands, marks

    table = pd.DataFrame(
        {
            "mean": [125.5, 3.0, 2.0],
            "ci_low": [125.5, np.nan, 1.0],
            "ci_high": [125.5, np.nan, 3.0],
            "deals": [40, 1, 40],
        },
        index=pd.Index(["flat", "lone", "sound"], name="agent"),
    )
    flagged = marks.flag_few(table)
    assert flagged["warning"].tolist() == ["width 0", "< 30 deals, no interval", ""]
    commands.print_tables({"means": table})
    printed = capsys.readouterr().out
    assert "(width 0: every deal gave the same result" in printed
    assert "(no interval: no spread could be estimated" in printed
    assert "(< 30 deals: too few deals" in printed
    assert "warning" not in marks.flag_few(table.loc[["sound"]])
    test = pd.DataFrame({"chi2": [np.nan, 1.2], "p_value": [np.nan, 0.55], "deals": [5, 40]})
    assert marks.flag_few(test)["warning"].tolist() == ["< 30 deals, no test", ""]


def test_a_place_that_never_won_proves_a_seat_effect_only_on_enough_deals():
    """Three places, the last never winning: its share has no spread, so the difference is
    outside the covariance's span. On 5 deals that is not tested (p NaN, no effect claimed);
    on FEW_DEALS deals or more it is certain (chi2 infinite, p 0)."""
    share = np.array([0.6, 0.4, 0.0])
    cov = np.array([[0.06, -0.06, 0.0], [-0.06, 0.06, 0.0], [0.0, 0.0, 0.0]]) / 5
    few = stats.wald_equal_shares(share, cov, free=4)
    assert np.isnan(few["p_value"]) and np.isnan(few["chi2"])
    many = stats.wald_equal_shares(share, cov / 20, free=stats.FEW_DEALS * 4 - 1)
    assert many["p_value"] == 0.0 and np.isinf(many["chi2"])


def test_no_test_claims_no_seat_effect_either_way():
    """Where no test could be made (p NaN) the verdict is missing, not False."""
    verdict = stats.seat_effect(pd.Series([np.nan, 0.001, 0.5]), 0.05)
    assert verdict.isna().tolist() == [True, False, False]
    assert verdict.iloc[1] and not verdict.iloc[2]


def test_summary_deals_count_each_jobs_deals_at_its_own_rows_per_deal():
    """Streamed sums of one agent over a job of 5 deals at 2 rows a deal and one of 3 deals at
    3 rows a deal hold 8 deals (not 19 rows over the larger 3 rows a deal: 6)."""
    sums = pd.DataFrame(
        {
            "job": [0, 1],
            "agent": "a",
            "n_players": [2, 3],
            "games": [10, 9],
            "deal_rows": [2, 3],
            "score_sum": [50.0, 45.0],
            "score_sq": [300.0, 260.0],
            "win_sum": [5.0, 3.0],
            "win_sq": [5.0, 3.0],
        }
    )
    assert stats.summary_mean_score(sums).loc["a", "deals"] == 8
    assert stats.summary_win_share(sums).loc["a", "deals"] == 8


@pytest.mark.parametrize(
    ("deals", "note"),
    [
        (None, ""),
        (0, ""),  # no deal: no interval to doubt
        (1, "† 1 deal, fewer than 30: coverage not assured"),
        (29, "† 29 deals, fewer than 30: coverage not assured"),
        (30, ""),
        (np.int64(12), "† 12 deals, fewer than 30: coverage not assured"),
    ],
)
def test_few_deals_mark_is_one_text(deals, note):
    """Every printed few-deals mark (findings, tune, bound, gauntlet) comes from here."""
    assert stats.few_note(deals) == note
    assert stats.too_few(deals) == bool(note)


def test_bound_line_marks_few_deals():
    from experiments.bounds import _line

    row = {
        "players": 4,
        "target": "greedy",
        "gain": 0.1,
        "low": 0.0,
        "high": 0.2,
        "se": 0.05,
        "responder_share": 0.35,
        "target_share": 0.25,
        "responder": "flatmc",
        "cpu_seconds": 3.0,
    }
    assert _line(row | {"deals": 12}).endswith("(† 12 deals, fewer than 30: coverage not assured)")
    assert _line(row | {"deals": 300}).endswith("3 s of CPU")
    assert _line(row | {"deals": 300, "cpu_seconds": 0.2}).endswith(", under 1 s of CPU")


def test_summary_seat_tables_count_the_same_deals_and_flag_them():
    """A summary-only round-robin of 2 agents at 4 players (3 seating groups of 4 or 6
    seatings, 4 deals each): the turn-order table, the gap and the test all count 12 deals (the
    gap counted the games over the largest group's 6 seatings, 9), and each is flagged."""
    from experiments import commands, marks, schedule

    jobs = schedule.round_robin("geschenkt", ["random", "greedy"], 4, 4, seed=1)
    assert len({job.group for job in jobs}) == 3
    options = {"summary_only": True, "backend": "serial", "progress": False}
    sums, _ = commands.execute(jobs, None, options)
    named = commands.summary_tables(sums)
    for title in (commands.TURNS, commands.GAP, "turn-order test"):
        assert set(named[title]["deals"]) == {12}, title
        assert (marks.flag_few(named[title])["warning"] == "< 30 deals").all(), title


def _as_sums(long: pd.DataFrame) -> pd.DataFrame:
    sums = long.assign(games=1, win_sum=long["win"], win_sq=long["win"] ** 2)
    keys = ["job", "n_players", "seat", "agent"]
    return sums.groupby(keys, as_index=False)[["games", "win_sum", "win_sq"]].sum()


def test_at_two_places_the_seat_verdict_is_the_gap_interval_s():
    """With two places "no seat effect" and "the gap is 0" are one hypothesis: the verdict
    is "effect" exactly when the printed gap interval leaves 0 out, by game and from sums
    (a Wald p of 0.039 had sat beside a gap interval of [-0.650, +0.006])."""
    verdicts = set()
    for seed in range(60):
        long = make_long(seed, 30, 2, seat_weight=[1.6, 1], tie=0.1)
        for test, gap in [
            (stats.seat_test(long), stats.seat_gap(long, column="seat")),
            (
                stats.summary_seat_test(_as_sums(long)),
                stats.summary_seat_gap(_as_sums(long), column="seat"),
            ),
        ]:
            outside = bool(gap.loc[2, "ci_low"] > 0 or gap.loc[2, "ci_high"] < 0)
            assert bool(test.loc[2, "seat_effect"]) == outside, seed
            verdicts.add(outside)
    assert verdicts == {True, False}  # both verdicts met


def test_streamed_sums_claim_no_certain_seat_effect_on_few_deals():
    """A place that never won in 5 games (deals) is no proof from sums either: no test, as
    by deal (the chi-square had said p 0.025)."""
    long = make_long(3, 5, 2)
    long["win"] = (long["seat"] == 1).astype(float)
    for test in (stats.summary_seat_test(_as_sums(long)), stats.seat_test(long)):
        assert np.isnan(test.loc[2, "p_value"]) and pd.isna(test.loc[2, "seat_effect"])


def test_streamed_intervals_count_no_more_freedom_than_deals():
    """Sums of 3 deals of 4 games each (``deal_rows`` 4) in one job: the t quantile rests on
    2 degrees of freedom, the deals less one, not on the 11 of the games (games of one deal
    are not independent; the field run of 3 deals at 7 players had printed [0.153, 0.957]
    against [0.066, 0.983] by deal)."""
    long = make_long(5, 12, 2, seat_weight=[1.5, 1], tie=0.2)
    sums = _as_sums(long).assign(deal_rows=4)
    spread = stats._summary_spread(sums, "win_sum", "win_sq", ["seat"])
    assert spread["deals"].tolist() == [3, 3]
    assert (spread["df"] <= 2).all()


def test_head_to_head_follows_the_finishing_order():
    """With a ``finish`` column (the game's finishing key) the row agent "finishes ahead of"
    the opponent by it, as a slow twin counts: a game that a third seat won still ranks the
    other two (by wins alone they were level, 1/2, at most tables of 4)."""
    long = make_long(21, 300, 4, strength=[1, 2, 3, 4, 5], tie=0.1)
    long["finish"] = long["win"] * 1000 - long["score"].round()  # lower score finishes ahead
    expected, _ = naive_pairwise(long, "finish")
    got = stats.pairwise(long)
    assert [got.loc[a, b] for a, b in expected] == pytest.approx(list(expected.values()))
    by_wins, _ = naive_pairwise(long)
    assert [stats.pairwise(long.drop(columns="finish")).loc[a, b] for a, b in by_wins] == (
        pytest.approx(list(by_wins.values()))
    )
    assert not np.allclose(list(expected.values()), list(by_wins.values()), atol=0.02)


def test_rating_intervals_do_not_hang_on_the_bootstrap_seed():
    """With the default draws (``ratings.N_BOOT``) an interval's half width moves by under
    8% over six bootstrap seeds (at the 100 draws `report` used, helper-33 measured
    0.309-0.406 over seeds 0-5)."""
    from experiments import ratings as rating_module

    long = make_long(31, 1500, 4, strength=[1, 1.5, 2, 3, 4], tie=0.1)

    def spread(n_boot):
        tables = [stats.ratings(long, n_boot=n_boot, seed=s) for s in range(6)]
        half = pd.concat([t["ci_high"] - t["rating"] for t in tables], axis=1)
        return float((half.max(axis=1) / half.min(axis=1)).max())

    assert rating_module.N_BOOT >= 1000 and spread(rating_module.N_BOOT) < 1.08


def test_no_seat_test_on_fewer_deals_than_places():
    """Two deals at 7 places: the covariance has rank 1 and one degree of freedom against six
    contrasts, so there is no test (a test of dof 1 had been made, p 1.0 and "no effect")."""
    step = np.array([1.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0]) * 0.05
    share = 1 / 7 + 0.5 * step  # its differences lie in the covariance's span
    result = stats.wald_equal_shares(share, np.outer(step, step), free=1)
    assert np.isnan(result["chi2"]) and np.isnan(result["p_value"]) and result["dof"] == 6
    for games in (2, 1):  # through the tables: the same
        test = stats.seat_test(make_long(8, games, 7))
        assert np.isnan(test.loc[7, "chi2"]) and pd.isna(test.loc[7, "seat_effect"]), games


def test_the_gap_test_is_its_interval_s_and_says_nothing_without_one():
    """``gap_test`` agrees with ``gap_interval`` at every df (p below 0.05 exactly when the
    interval leaves 0 out), its chi2 is the square of the quantile behind its p, and where
    there is no interval (se NaN, df below 1) there is no test: NaN, not p 1.0 beside a
    missing interval (a 1-deal summary row had printed "p 1.0, no effect")."""
    for gap, se, deals, df in [(0.3, 0.14, 20, 19), (-0.2, 0.1, 40, 12), (0.05, 0.2, 8, 7)]:
        found = stats.gap_test(gap, se, deals, df)
        low, high = stats.gap_interval(gap, se, deals, stats.quantile(df))
        assert (found["p_value"] < 0.05) == (low > 0 or high < 0)
        assert found["p_value"] == pytest.approx(2 * sps.t.sf(np.sqrt(found["chi2"]), df))
    assert stats.gap_test(0.0, 0.1, 10, 9) == {"chi2": 0.0, "p_value": 1.0}
    for se, df in [(np.nan, 9), (0.1, 0.5), (0.1, np.nan)]:
        assert all(np.isnan(v) for v in stats.gap_test(0.3, se, 10, df).values())
    long = make_long(4, 3, 2)  # one deal of three games: no interval, no test
    sums = _as_sums(long).assign(deal_jobs=3)
    test = stats.summary_seat_test(sums, "seat")
    assert np.isnan(test.loc[2, "p_value"]) and pd.isna(test.loc[2, "seat_effect"])


def _step_down(p, alpha):
    """Holm's procedure as its paper states it, on the tested p's: walk up the sorted p's,
    rejecting while the k-th smallest (from 1) of m is at most alpha / (m - k + 1)."""
    tested = [i for i in range(len(p)) if not np.isnan(p[i])]
    rejected = set()
    for k, i in enumerate(sorted(tested, key=lambda i: p[i]), start=1):
        if p[i] > alpha / (len(tested) - k + 1):
            break
        rejected.add(i)
    return [i in rejected for i in range(len(p))]


def test_holm_adjusted_p_values_reject_as_holm_s_step_down_procedure():
    rng = np.random.default_rng(3)
    for _ in range(200):
        p = rng.uniform(0, 0.2, rng.integers(1, 12)) ** rng.uniform(0.5, 3)
        p[rng.random(len(p)) < 0.15] = np.nan
        adjusted = stats.holm_adjusted(p)
        assert np.array_equal(np.isnan(adjusted), np.isnan(p))
        assert (adjusted[~np.isnan(p)] >= p[~np.isnan(p)]).all() and not (adjusted > 1).any()
        for alpha in (0.01, 0.05, 0.1):
            assert list(adjusted <= alpha) == _step_down(p, alpha)


def test_a_seat_study_corrects_its_turn_order_tests_for_their_number():
    """`giftsim seats` of three agents at 3-7 players tests 15 places: each test table has
    Holm's p over all 15, its verdict is at that p (one test at p 0.0096 is no longer a
    shown effect), and a note says so and that False is not "no effect"."""
    from experiments import commands

    jobs = commands.design_jobs(
        "geschenkt", "mirror", ["random", "greedy", "sniper"], [3, 4, 5, 6, 7], 2000, seed=0
    )
    sums, deals = commands.execute(jobs, None, {"backend": "serial", "progress": False})
    named = commands.summary_tables(sums, deals)
    tests = [table for title, table in named.items() if title.startswith("turn-order test")]
    assert len(tests) == 3 and sum(map(len, tests)) == 15
    every = pd.concat(tests)
    assert np.allclose(every["p_holm"], stats.holm_adjusted(every["p_value"]))
    assert (every["seat_effect"] == (every["p_holm"] < 0.05)).all()
    assert ((every["p_value"] < 0.05) & ~every["seat_effect"]).any()
    assert all("over the 15 turn-order tests" in t.attrs["note"] for t in tests)


def test_the_normal_quantile_is_one_number_everywhere():
    """``Z95`` is written once (``experiments.blocks``; the probes read it without scipy)."""
    from scipy.stats import norm

    from experiments import probes, ratings

    assert stats.Z95 == ratings.Z95 == probes.Z95 == pytest.approx(norm.ppf(0.975), abs=1e-15)


def test_shares_equal_but_for_rounding_are_ordered_by_name():
    """Win shares of agents whose data are alike can differ in the last bits (ties split in
    thirds, summed in another order): tables and bar charts order them by name, not by that
    noise; a real difference still comes first."""
    from experiments import plots
    from experiments.blocks import ranked

    share = {"b": 0.1 + 0.2, "a": 0.3, "c": 0.9}  # 0.30000000000000004 and 0.3
    table = pd.DataFrame({"win_share": share, "ci_low": 0.0, "ci_high": 1.0, "fair": 0.5})
    for order in (["b", "a", "c"], ["c", "a", "b"]):
        assert list(ranked(table.loc[order], "win_share").index) == ["c", "a", "b"]
        figure = plots.win_share_bars_of(table.loc[order])
        labels = [label.get_text() for label in figure.axes[0].get_yticklabels()]
        assert labels == ["b", "a", "c"]  # from the bottom: the best at the top
        plots.plt.close(figure)


def test_an_agent_table_orders_shares_equal_but_for_rounding_by_name():
    """``batch.by_agent``: seats 0 and 1 win the same thirds, halves and wholes of games in
    another order, so their mean shares differ in the last bit; a (by name) comes first."""
    from experiments import batch

    sixths = [(0, 6, 0), (3, 3, 0), (6, 0, 0), (2, 2, 2), (3, 3, 0), (2, 2, 2)]
    sixths += [(3, 3, 0), (0, 0, 6), (6, 0, 0), (3, 3, 0), (0, 6, 0), (2, 2, 2)]
    frame = batch.play("geschenkt", ["greedy"] * 3, len(sixths), seed=1)
    shares = np.array(sixths) / 6
    for seat, name in enumerate("abc"):
        frame[f"win_{seat}"] = shares[:, seat]
        frame[f"agent_{seat}"] = pd.Categorical([name] * len(sixths))
    table = batch.by_agent(frame)
    assert table.loc["a", "win_share"] < table.loc["b", "win_share"]  # by the last bit
    assert table.loc["b", "win_share"] - table.loc["a", "win_share"] < 1e-15
    assert list(table.index) == ["a", "b", "c"]

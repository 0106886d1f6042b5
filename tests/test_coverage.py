"""Simulated coverage of the intervals giftsim prints, on real games of both games.

Each design is played once with the compiled game loop (``runner.run``), ``K`` times the games
per seating of one experiment, and cut by game index into ``K`` disjoint experiments (a cut is
a run of the same design on other deals: the same seatings, groups and first players). Every
experiment's tables come from the project's own paths: the per-deal sums of `giftsim
tournament` (win shares, mean scores, turn positions, the last-minus-first gap) and the long
frame of `giftsim report` (head-to-head, ratings with 100 bootstrap draws, a tenth of the
report's: a noisier interval, so coverage here is the harder test). The truth is each
statistic on all ``K`` experiments together, computed here by separate code from the per-game
rows (its standard error is a 1/sqrt(K) part of an experiment's, which moves coverage by less
than 0.001). Each interval must cover its truth in 0.93 to 0.97 of the experiments: with
``K`` = 1000 a statistic whose true coverage is 0.95 falls outside that band with probability
0.004, one at 0.91 or 0.99 inside it with probability below 0.01.

The round-robins have real seating-group effects (a group of two `random` and one `sniper`
is not a group of two `sniper` and one `random`, and in No Thanks! who sits after whom
matters), which made the intervals of the pooled model 1.4 to 2.8 times too wide.
"""

import numpy as np
import pandas as pd
from scipy import optimize

from experiments import stats
from experiments.ratings import deal_ratings, rating_events
from experiments.results import deal_sums, long_table
from experiments.runner import run
from experiments.schedule import design_strata, field_design, mirror, round_robin

K = 1000
BAND = (0.93, 0.97)
SERIAL = {"backend": "serial", "progress": False, "chunk_size": 10**7}


# ---- one long run cut into K experiments ----------------------------------------------------


def played(jobs_of, per_experiment: int):
    """The jobs of ``K * per_experiment`` games per seating and their rows, each game with the
    experiment (``sim``) it belongs to."""
    jobs = jobs_of(K * per_experiment)
    frame, _, _ = run(jobs, **SERIAL)
    first = np.array([job.first_index for job in jobs])[frame["job"].to_numpy()]
    frame["sim"] = (frame["game_index"].to_numpy() - first) // per_experiment
    return jobs, frame


def tournament_tables(jobs, frame) -> dict[str, pd.DataFrame]:
    """The tables of `giftsim tournament` (per-deal sums), one set per experiment, and the
    sums (``deals``)."""
    deals = deal_sums(frame, design_strata(jobs))
    sim = pd.Series(frame["sim"].to_numpy(), index=frame["deal_seed"].to_numpy())
    deals["sim"] = sim[~sim.index.duplicated()].reindex(deals["deal"]).to_numpy()
    mixed = jobs[0].design != "mirror"
    by = ["sim", "agent"]
    out = {
        "deals": deals,
        "position": stats.deal_seat_advantage(deals, "position", by="sim"),
        "gap": stats.deal_seat_gap(deals, 0, -1, "position", by="sim"),
        "mean": stats.deal_mean_score(deals, by),
    }
    return out | ({"share": stats.deal_win_share(deals, by)} if mixed else {})


def report_long(frame, game) -> pd.DataFrame:
    long = long_table(frame, game)
    return long.assign(sim=np.tile(frame["sim"].to_numpy(), len(long) // len(frame)))


def head_to_head(long) -> pd.DataFrame:
    """`giftsim report`'s head-to-head of every experiment at once (agents named per
    experiment, so no game of one meets another's)."""
    named = long.assign(agent=long["sim"].astype(str) + ":" + long["agent"])
    table = stats.pairwise_table(named).reset_index()
    table["sim"] = table["agent"].str.split(":").str[0].astype(int)
    table["agent"] = table["agent"].str.split(":", n=1).str[1]
    table["opponent"] = table["opponent"].str.split(":", n=1).str[1]
    return table.set_index(["sim", "agent", "opponent"])


def ratings(long) -> pd.DataFrame:
    """`giftsim report`'s ratings of every experiment, on 100 bootstrap draws (for time). The
    choice events are summed per deal once for the whole run and cut by experiment (a deal's
    events are its own, and a run's events are its experiments' added up: ``digest`` reads
    a folder so), each experiment fitted on its own (``stats.ratings`` is these two steps:
    ``test_ratings_of_the_cut_events_are_those_of_each_experiment``)."""
    events = rating_events(long)
    sim = long.groupby("deal")["sim"].first()
    events["sim"] = sim.reindex(events["deal"].to_numpy()).to_numpy()
    parts = [
        deal_ratings(part.drop(columns="sim"), n_boot=100, seed=int(sim)).assign(sim=sim)
        for sim, part in events.groupby("sim", sort=True)
    ]
    return pd.concat(parts).set_index("sim", append=True).reorder_levels(["sim", "agent"])


def test_ratings_of_the_cut_events_are_those_of_each_experiment():
    """``ratings`` above (events summed once, cut by experiment) gives each experiment the
    table ``stats.ratings`` gives its own rows, bootstrap included."""
    jobs = round_robin("geschenkt", ["random", "greedy", "sniper"], 3, 8, seed=6109)
    frame, _, _ = run(jobs, **SERIAL)
    first = np.array([job.first_index for job in jobs])[frame["job"].to_numpy()]
    frame["sim"] = (frame["game_index"].to_numpy() - first) // 2
    long = report_long(frame, "geschenkt")
    cut = ratings(long)
    for sim, part in long.groupby("sim"):
        own = stats.ratings(part.drop(columns="sim"), n_boot=100, seed=int(sim))
        pd.testing.assert_frame_equal(cut.xs(sim, level="sim").loc[own.index], own)


def coverage(table: pd.DataFrame, level_values, truth: float) -> float:
    """Share of the experiments whose interval in ``table`` (rows ``level_values`` of its
    non-``sim`` levels) holds ``truth``; every experiment must have one."""
    key = level_values if isinstance(level_values, tuple) else (level_values,)
    rows = table.xs(key, level=list(table.index.names[1:]))
    assert len(rows) == K
    return float(((rows["ci_low"] <= truth) & (truth <= rows["ci_high"])).mean())


def check(found: dict[str, float]) -> None:
    print(found)
    outside = {name: c for name, c in found.items() if not BAND[0] <= c <= BAND[1]}
    assert not outside, f"coverage outside {BAND}: {outside} (all: {found})"


# ---- the truth, by separate code from the per-game rows -------------------------------------


class Truth:
    """Population values of a design's statistics from the wide per-game rows."""

    def __init__(self, frame: pd.DataFrame):
        self.n = frame.filter(like="agent_").shape[1]
        seats = range(self.n)
        self.agent = np.column_stack([frame[f"agent_{s}"].astype(str).to_numpy() for s in seats])
        self.win = np.column_stack([frame[f"win_{s}"].to_numpy(float) for s in seats])
        self.score = np.column_stack([frame[f"score_{s}"].to_numpy(float) for s in seats])
        self.first = frame["first_player"].to_numpy().astype(int)

    def share(self, agent: str) -> float:
        return self.win[self.agent == agent].mean()

    def mean(self, agent: str) -> float:
        return self.score[self.agent == agent].mean()

    def position(self, place: int) -> float:
        return self.win[np.arange(len(self.win)), (self.first + place) % self.n].mean()

    def head_to_head(self, a: str, b: str) -> float:
        """Over games where both sit: a finishes ahead of b (1/2 if level), each pair of their
        seats weighted 1 / (copies of a x copies of b). No Thanks!'s order (the only game
        checked here): the fewer points finish ahead."""
        copies_a, copies_b = (self.agent == a).sum(1), (self.agent == b).sum(1)
        beats = games = 0.0
        for i in range(self.n):
            for j in range(self.n):
                both = (self.agent[:, i] == a) & (self.agent[:, j] == b)
                weight = both / np.maximum(copies_a * copies_b, 1)
                diff = self.score[:, j] - self.score[:, i]
                outcome = np.where(diff > 1e-9, 1.0, np.where(diff < -1e-9, 0.0, 0.5))
                beats += (weight * outcome).sum()
                games += weight.sum()
        return beats / games


def plackett_luce(long: pd.DataFrame) -> pd.Series:
    """Maximum likelihood log-strengths (mean 0) from every game's whole finishing order, ties
    split (each of a tied group of k is chosen with weight 1/k from the seats not yet placed;
    the last group is forced), no prior: events counted by (agents in play, chosen)."""
    names = sorted(long["agent"].unique())
    code = {name: k for k, name in enumerate(names)}
    n = int(long["n_players"].iloc[0])
    ordered = long.sort_values(["job", "game_index", "seat"])
    agent = ordered["agent"].map(code).to_numpy().reshape(-1, n)
    key = ordered["finish"].to_numpy(float).reshape(-1, n)
    in_play = key[:, None, :] <= key[:, :, None] + 1e-9  # [game, seat, other]: not yet placed
    tied = np.abs(key[:, None, :] - key[:, :, None]) <= 1e-9
    chosen = key > key.min(1, keepdims=True) + 1e-9  # not in the last, forced group
    counts = np.stack([(in_play & (agent[:, None, :] == k)).sum(2) for k in range(len(names))], 2)
    rows = np.column_stack([counts[chosen], agent[chosen]])
    weight = 1 / tied.sum(2)[chosen]
    packed = rows @ ((n + 1) ** np.arange(rows.shape[1]))  # counts <= n, codes < n + 1 agents
    _, first, index = np.unique(packed, return_index=True, return_inverse=True)
    events, total = rows[first], np.bincount(index.reshape(-1), weight)

    def loss(free):
        theta = np.append(free, -free.sum())
        log_sum = np.log(events[:, :-1] @ np.exp(theta))
        return -(total * (theta[events[:, -1]] - log_sum)).sum()

    free = optimize.minimize(loss, np.zeros(len(names) - 1), method="BFGS").x
    return pd.Series(np.append(free, -free.sum()), index=names)


# ---- the designs ----------------------------------------------------------------------------


def round_robin_coverage(game, agents, players, per_seating, seed, pairs, report=True):
    """Coverage of a round-robin's tables: shares, mean scores, turn positions and the gap
    (`giftsim tournament`), and with ``report`` head-to-head and ratings (`giftsim report`)."""
    jobs, frame = played(lambda n: round_robin(game, agents, players, n, seed=seed), per_seating)
    truth, tables = Truth(frame), tournament_tables(jobs, frame)
    found = {}
    for agent in agents[1:]:
        found[f"share {agent}"] = coverage(tables["share"], agent, truth.share(agent))
        found[f"mean score {agent}"] = coverage(tables["mean"], agent, truth.mean(agent))
    if report:
        long = report_long(frame, game)
        pair, rating, pl = head_to_head(long), ratings(long), plackett_luce(long)
        for agent in agents[1:]:
            found[f"rating {agent}"] = coverage(rating, agent, pl[agent])
        for a, b in pairs:
            found[f"{a} beats {b}"] = coverage(pair, (a, b), truth.head_to_head(a, b))
    return found | positions(tables, truth, players)


def positions(tables, truth: Truth, players: int) -> dict[str, float]:
    last = players - 1
    found = {
        f"position {p}": coverage(tables["position"], (players, p), truth.position(p))
        for p in (0, last)
    }
    found["gap last - first"] = coverage(
        tables["gap"], players, truth.position(last) - truth.position(0)
    )
    return found


def test_no_thanks_round_robin_with_seating_group_effects():
    """Every table of `giftsim tournament` and `giftsim report`: 36 games per seating (24
    seatings, 7 groups; 180 deals per agent)."""
    pairs = [("sniper", "greedy"), ("greedy", "random")]
    found = round_robin_coverage("geschenkt", ["random", "greedy", "sniper"], 3, 36, 6101, pairs)
    check(found)


def test_the_check_has_teeth_measuring_deals_against_the_pooled_mean_is_too_wide():
    """The same design with every deal in one stratum (the model before the fix): the
    groups' designed differences count as noise and the share intervals over-cover."""
    game, agents = "geschenkt", ["random", "greedy", "sniper"]
    jobs, frame = played(lambda n: round_robin(game, agents, 3, n, seed=6105), 12)
    truth, deals = Truth(frame), tournament_tables(jobs, frame)["deals"]
    pooled = stats.deal_win_share(deals.assign(stratum=0), ["sim", "agent"])
    for agent in ("greedy", "sniper"):
        assert coverage(pooled, agent, truth.share(agent)) > 0.985


def test_tulips_round_robin_with_seating_group_effects():
    """The tables of `giftsim tournament` (head-to-head and ratings, the same code for both
    games, are checked on No Thanks!)."""
    found = round_robin_coverage(
        "tulips", ["random", "greedy", "hoarder"], 3, 24, 6102, [], report=False
    )
    check(found)


def test_no_thanks_field():
    jobs, frame = played(lambda n: field_design("geschenkt", "sniper", "greedy", 4, n, 6103), 60)
    truth, tables = Truth(frame), tournament_tables(jobs, frame)
    long = report_long(frame, "geschenkt")
    found = {
        "share sniper": coverage(tables["share"], "sniper", truth.share("sniper")),
        "mean score sniper": coverage(tables["mean"], "sniper", truth.mean("sniper")),
        "sniper beats greedy": coverage(
            head_to_head(long), ("sniper", "greedy"), truth.head_to_head("sniper", "greedy")
        ),
    }
    check(found | positions(tables, truth, 4))


def test_tulips_mirror():
    jobs, frame = played(lambda n: mirror("tulips", ["hoarder"], [4], n, 6104), 200)
    truth, tables = Truth(frame), tournament_tables(jobs, frame)
    found = {"mean score": coverage(tables["mean"], "hoarder", truth.mean("hoarder"))}
    check(found | positions(tables, truth, 4))

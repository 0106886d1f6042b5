"""Notebook helpers: joined designs, seat studies of several agents as one table, fields,
built-in agent lists, and the seat panels that draw them."""

import os

os.environ["MPLBACKEND"] = "Agg"  # before pyplot is imported anywhere

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from agents.registry import builtins, define, families
from experiments import plots, stats, studies
from experiments.batch import field
from experiments.results import summary_of
from experiments.runner import run
from experiments.schedule import join, mirror
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.state import CHIPS, POT, SEAT
from tests.test_stats import make_long

AGENTS = {"greedy": 300, "random": 200}


@pytest.fixture(scope="module")
def sums():
    return studies.seat_study("geschenkt", AGENTS, [3, 4], seed=5)


def sums_of(long: pd.DataFrame) -> pd.DataFrame:
    """Streamed sums of a long frame, with the turn position as ``position``."""
    long = long.assign(position=stats.turn_position(long), games=1)
    long = long.assign(win_sum=long.win, win_sq=long.win**2, score_sum=long.score)
    long = long.assign(score_sq=long.score**2)
    keys = ["job", "n_players", "seat", "position", "agent"]
    columns = ["games", "win_sum", "win_sq", "score_sum", "score_sq"]
    return long.groupby(keys, as_index=False)[columns].sum()


def test_builtins_leave_out_user_defined_agents():
    define("geschenkt", "always_pass_study", lambda obs, params, rng: PASS)
    names = [f.name for f in builtins("geschenkt")]
    assert "always_pass_study" in [f.name for f in families("geschenkt")]
    assert "always_pass_study" not in names and {"random", "greedy", "sniper"} <= set(names)
    fast, slow = studies.builtin_specs("geschenkt", {"greedy": "greedy:T=-2", "nobody": "x"})
    assert slow == ["greedy:T=-2"] and "greedy" not in fast and "random" in fast


def test_join_renumbers_jobs_and_groups_and_keeps_the_deals():
    first = mirror("geschenkt", ["greedy"], [3, 4], 10, seed=2)
    second = mirror("geschenkt", ["random", "sniper"], [3], 7, seed=2)
    jobs = join(first, second, [])
    assert [j.job for j in jobs] == list(range(4)) and [j.group for j in jobs] == [0, 1, 2, 3]
    assert [j.first_index for j in jobs] == [0, 10, 0, 7]
    assert [j.agents[0] for j in jobs] == ["greedy", "greedy", "random", "sniper"]


def test_seat_study_plays_each_agent_its_own_number_of_games(sums):
    table = stats.summary_seat_table(sums)
    assert list(table.columns) == list(stats.SEAT_TABLE)
    games = table["games"].groupby(level="agent").unique()
    assert [list(games[a]) for a in AGENTS] == [[300], [200]]
    alone, _, _ = run(mirror("geschenkt", ["random"], [3, 4], 200, seed=5), backend="serial")
    mine = sums[sums.agent == "random"].drop(columns="job").reset_index(drop=True)
    theirs = summary_of(alone, False, mirror("geschenkt", ["random"], [3, 4], 200, seed=5))
    pd.testing.assert_frame_equal(mine, theirs.drop(columns="job"), check_dtype=False)


def test_seat_tables_by_agent_equal_the_tables_of_each_agent_alone():
    long = pd.concat(
        [
            make_long(1, 400, 3, agents=("a",), seat_weight=[2, 1, 1]),
            make_long(2, 300, 4, agents=("b",), job=1),
        ]
    )
    sums = sums_of(long)
    table = stats.summary_seat_table(sums)
    verdict = stats.summary_seat_verdict(sums)
    for agent, n in (("a", 3), ("b", 4)):
        own = long[long.agent == agent].assign(position=stats.turn_position)
        alone = stats.seat_advantage(own, "position").loc[n]
        assert table.loc[(agent, n), "win_share"].to_numpy() == pytest.approx(alone.win_share)
        assert table.loc[(agent, n), "win_low"].to_numpy() == pytest.approx(alone.ci_low)
        scores = stats.mean_score(own, "position")
        assert table.loc[(agent, n), "mean_score"].to_numpy() == pytest.approx(scores["mean"])
        test = stats.summary_seat_test(sums, "position", by="agent").loc[(agent, n)]
        row = verdict.loc[(agent, n)]
        assert row.p_value == pytest.approx(test.p_value) and row.games == test.games
        wald = stats.seat_test(own, "position").loc[n]  # by game: near the chi-square
        assert wald.p_value == pytest.approx(test.p_value, abs=0.03)
        gap = stats.seat_gap(own).loc[n]  # last minus first; no ties: the sums' bound is exact
        assert [row.gap, row.gap_low, row.gap_high] == pytest.approx(
            [gap.gap, gap.ci_low, gap.ci_high]
        )
        assert row.first_share == alone.win_share.iloc[0] == table.loc[(agent, n, 0), "win_share"]
        assert alone.win_share.iloc[row.best] == alone.win_share.max() == row.best_share
        assert alone.ci_high.iloc[row.best] == pytest.approx(row.best_high)
        assert alone.win_share.iloc[row.worst] == alone.win_share.min() == row.worst_share
    assert stats.summary_seat_verdict(sums, "seat").seat_effect.tolist() == [True, False]


def test_field_table_rows_are_batch_fields():
    table = studies.field_table("geschenkt", {"sniper": 60, "greedy": 40}, ["greedy"], 3, seed=3)
    assert list(table.index) == [("greedy", "sniper")]
    row = table.loc[("greedy", "sniper")]
    direct = field("geschenkt", "sniper", "greedy", 3, 60, seed=3)
    assert row.win_share == direct["win_share"] and row.games == 180 and row.fair == 1 / 3
    assert 0 <= row.ci_low <= row.win_share <= row.ci_high <= 1
    assert row.deals == 60 and row.warning == ""


def test_the_api_tables_carry_the_terminal_s_few_deals_mark():
    """The Python API's tables (what a notebook shows) flag rows on fewer than 30 deals as
    the terminal does (notebook 00 at 1% scale showed 19-deal rows unmarked)."""
    few = studies.field_table("geschenkt", {"sniper": 12}, ["greedy"], 3, seed=3)
    assert few["warning"].tolist() == ["< 30 deals"]
    study = studies.strategy_study(
        "geschenkt", 3, 60, seed=4, n_boot=10, agents=["greedy", "sniper"]
    )
    for name in ("win share", "ratings", "head to head", "seats"):
        assert (study.tables[name]["warning"].str.contains("< 30 deals")).all(), name
    assert (studies.strategy_table([study])["warning"].str.contains("< 30 deals")).all()


def test_seat_panels_draw_one_panel_per_agent(sums):
    data = plots.seat_panels_data(sums)
    for value in plots.SEAT_VALUES:
        fig = plots.seat_panels(sums, value, subject="the run", game="geschenkt")
        assert [ax.get_title() for ax in fig.axes] == [f"all-{a} tables" for a in sorted(AGENTS)]
        assert fig.get_suptitle().endswith("intervals\nthe run")
        assert len({ax.get_ylim() for ax in fig.axes}) == 1  # one y scale for every panel
        for ax in fig.axes:
            part = data[data.agent == ax.get_title().split("-", 1)[1].split(" ")[0]]
            points = sorted(
                y for line in ax.lines if line.get_marker() == "o" for y in line.get_ydata()
            )
            assert points == pytest.approx(sorted(part[value]))
        dashed = [c for c in fig.axes[0].collections if c.get_linestyle()[0][1] is not None]
        assert len(dashed) == (2 if value == "win_share" else 0)
        legend = [t.get_text() for t in fig.legends[0].get_texts()]
        fair = ["fair share 1/3", "fair share 1/4"] if value == "win_share" else []
        assert sorted(legend) == ["3 players", "4 players", *fair]
        if value == "mean_score":
            assert fig.axes[0].get_ylabel() == "mean score in points (lowest wins)"
        plt.close(fig)
    unnamed = plots.seat_panels(sums, game="geschenkt")  # the sums say what they hold
    assert unnamed.get_suptitle().endswith(
        f"No Thanks!, {', '.join(sorted(AGENTS))}, 3, 4 players, {2 * sum(AGENTS.values()):,} games"
    ), unnamed.get_suptitle()
    _, axes = plt.subplots(2, 1)
    assert plots.seat_panels(sums, axes=axes) is axes[0].figure
    assert np.all([ax.has_data() for ax in axes])
    plt.close("all")


def test_scaled_counts_keep_a_minimum_and_describe_quotes_rows():
    assert studies.scaled(1000, 0.01) == 10 and studies.scaled(150, 0.001, minimum=2) == 2
    assert studies.scaled({"a": 400, "b": 3}, 0.5) == {"a": 200, "b": 2}
    table = pd.DataFrame({"share": [0.25, 0.5]}, index=pd.Index(["x", "y"], name="agent"))
    assert studies.describe(table, "{agent} {share:.0%}") == "x 25%\ny 50%"


def test_lineup_reads_the_ladder_and_keeps_what_plays_at_the_count():
    assert studies.lineup("geschenkt", 4) == ["greedy", "sniper", "tuned4p", "learned"]
    assert studies.lineup("geschenkt", 6) == ["greedy", "sniper", "learned"]  # no tuned6p
    assert studies.lineup("tulips", 6) == ["greedy", "hoarder", "tuned6p", "learned"]


def test_a_strategy_study_is_a_round_robin_read_by_deal():
    study = studies.strategy_study(
        "geschenkt", 3, 300, seed=4, n_boot=10, agents=["greedy", "sniper"]
    )
    assert study.per_seating == 300 // 6 and study.games == 6 * 50  # 2 groups x 3 rotations
    share = study.tables["win share"]
    assert list(share.index) == ["greedy", "sniper"] and (share["deals"] == 100).all()
    assert set(study.tables["head to head"].index) == {("greedy", "sniper"), ("sniper", "greedy")}
    assert "round-robin of greedy, sniper, 3 players, 300 games (50 per seating)" in study.subject
    table = studies.strategy_table([study])
    assert list(table.index) == [(3, "sniper"), (3, "greedy")]  # best first
    assert {"rating", "rating_low", "rating_high", "ci_low", "fair"} <= set(table.columns)
    assert (table["deals"] == 100).all() and (table["warning"] == "").all()
    assert all((t["warning"] == "").all() for t in study.tables.values())  # always there
    fig = plots.strategy_figure(study)
    assert len(fig.axes) == 4 and fig.get_suptitle().endswith(study.subject)  # 3 + colour bar
    plt.close(fig)


def test_seat_subject_names_each_agents_games(sums):
    line = studies.seat_subject(sums, "geschenkt")
    assert line.startswith("No Thanks!, one-agent tables of greedy, random, 3, 4 players")
    assert line.endswith("games per player count: greedy 300; random 200")


def _taker_at_three(obs, params, rng):
    """Takes once the pot holds three chips, or when out of chips."""
    return TAKE if obs[CHIPS + obs[SEAT]] == 0 or obs[POT] >= 3 else PASS


def test_compare_plays_and_draws_exactly_the_agents_given_in_one_call():
    define("geschenkt", "taker_compare", _taker_at_three, compiled=False)
    agents = ["greedy", "taker_compare"]
    study, (figure, seats) = studies.compare("geschenkt", 3, agents, 60, seed=3)
    assert study.agents == tuple(agents) and study.games == 60
    assert set(study.tables["win share"].index) == set(agents)
    assert set(study.tables["ratings"].index) == set(agents)
    assert figure.get_suptitle().endswith(study.subject)
    assert "95% intervals by deal" in seats.get_suptitle()
    assert seats.get_suptitle().endswith(study.subject)
    assert [ax.get_title() for ax in seats.axes] == ["greedy's seats", "taker_compare's seats"]
    table = study.tables["seats"]
    assert table.index.names == ["agent", "n_players", "position"]
    for ax, agent in zip(seats.axes, agents, strict=True):
        points = [y for line in ax.lines if line.get_marker() == "o" for y in line.get_ydata()]
        assert points == pytest.approx(list(table.loc[agent, "win_share"]))
        assert (table.loc[agent, "games"] == 10 * 3).all()  # each position once per seating
    plt.close("all")


def _robin(pair: tuple[float, float, float], deals: int = 500) -> dict:
    """The tables ``commands.robin_findings`` reads, for agents a, b, c; ``pair`` is a's share
    of the games it shares with b and its interval."""
    from experiments.commands import HEAD_TO_HEAD, RATINGS, TURNS

    shares = pd.DataFrame(
        {"win_share": [0.4, 0.35, 0.25], "ci_low": [0.38, 0.33, 0.23]}, index=["a", "b", "c"]
    ).assign(ci_high=lambda t: t.win_share + 0.02, fair=1 / 3, deals=deals)
    versus = pd.DataFrame(
        [pair],
        index=pd.MultiIndex.from_tuples([("a", "b")]),
        columns=["share", "ci_low", "ci_high"],
    )
    ratings = pd.DataFrame(
        {"rating": [0.3, 0.1, -0.4], "ci_low": [0.2, 0.0, -0.5], "ci_high": [0.4, 0.19, -0.3]},
        index=["a", "b", "c"],
    )
    turns = pd.DataFrame({"win_share": [0.3]}, index=pd.Index([3], name="n_players"))
    return {"win share by agent": shares, HEAD_TO_HEAD: versus, RATINGS: ratings, TURNS: turns}


@pytest.mark.parametrize(
    ("pair", "says"),
    [
        (
            (0.56, 0.53, 0.59),
            "a finishes ahead of b in this round-robin of a, b, c in 56.0% [53.0, 59.0]",
        ),
        (
            (0.44, 0.41, 0.47),
            "b finishes ahead of a in this round-robin of a, b, c in 56.0% [53.0, 59.0]",
        ),
        (
            (0.51, 0.48, 0.54),
            "a and b are not told apart in this round-robin of a, b, c: a finishes ahead in "
            "51.0% [48.0, 54.0] of the games they share, an edge either way below 4.0% with "
            "95% confidence",
        ),
    ],
)
def test_a_round_robin_finding_names_its_field_and_bounds_an_edge_it_cannot_show(pair, says):
    from pathlib import Path

    from experiments.commands import robin_findings

    lines = robin_findings("geschenkt", _robin(pair), Path("out"))
    assert says in lines[1]
    assert "in this round-robin of a, b, c rank a, then b, then c;" in lines[2]
    assert "†" not in lines[0]
    few = robin_findings("geschenkt", _robin(pair, deals=12), Path("out"))
    assert "† 12 deals, fewer than 30: coverage not assured; out/summary.md)" in few[0]


def test_a_ranking_claims_no_order_its_intervals_do_not_show():
    """Agents whose rating intervals overlap the one above share a tier (the demo had ranked
    Tulips greedy 0.0689 [0.0229, 0.1148] above planner 0.0673 [0.0259, 0.1086])."""
    from pathlib import Path

    from experiments.commands import RATINGS, robin_findings

    named = _robin((0.56, 0.53, 0.59))
    named[RATINGS] = pd.DataFrame(
        {"rating": [0.3, 0.07, 0.06, -0.4], "ci_low": [0.2, 0.02, 0.03, -0.5]}
        | {"ci_high": [0.4, 0.11, 0.1, -0.3]},
        index=["hoarder", "greedy", "planner", "random"],
    )
    line = robin_findings("tulips", named, Path("out"))[2]
    tiers = "rank hoarder, then greedy and planner (intervals overlap: order not shown), then"
    assert tiers in line


def test_a_tier_takes_an_agent_that_overlaps_any_of_its_members():
    """C overlaps A (wide) though not B: a new tier for C would claim A above C, which the
    intervals do not show, so C joins A and B."""
    from pathlib import Path

    from experiments.commands import RATINGS, robin_findings

    named = _robin((0.56, 0.53, 0.59))
    named[RATINGS] = pd.DataFrame(
        {"rating": [0.3, 0.32, 0.12], "ci_low": [0.1, 0.3, 0.05], "ci_high": [0.4, 0.35, 0.2]},
        index=["a", "b", "c"],
    )
    line = robin_findings("geschenkt", named, Path("out"))[2]
    assert "rank a, b and c (intervals overlap: order not shown);" in line

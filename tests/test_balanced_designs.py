"""The round-robin is balanced and does not depend on the order of ``--agents``: every distinct
arrangement of each multiset, agents in canonical order before seeds are assigned; the strata
of a design's deals are the sets of jobs that play them."""

from collections import Counter
from itertools import permutations

import numpy as np
import pandas as pd
import pytest

from experiments import commands
from experiments.blocks import deal_strata as strata_from_rows
from experiments.results import long_table
from experiments.runner import run
from experiments.schedule import (
    design_strata,
    experiment_id,
    field_design,
    join,
    mirror,
    round_robin,
    round_robin_size,
    stratum_of,
)

SERIAL = {"backend": "serial", "progress": False}


def groups_of(jobs) -> dict[int, list[tuple]]:
    out: dict = {}
    for job in jobs:
        out.setdefault(job.group, []).append(job.agents)
    return out


@pytest.mark.parametrize(("agents", "n"), [(3, 3), (3, 4), (4, 4), (2, 5), (3, 5)])
def test_every_multiset_plays_every_distinct_arrangement(agents, n):
    names = ["random", "greedy", "sniper", "tuned4p"][:agents]
    jobs = round_robin("geschenkt", names, n, 1)
    groups = groups_of(jobs)
    assert (len(groups), len(jobs)) == round_robin_size(agents, n)
    assert len(jobs) == agents**n - agents
    for seatings in groups.values():
        assert len(set(seatings)) == len(seatings)  # no seating twice
        assert set(seatings) == set(permutations(seatings[0]))  # and every one of them
        assert len({tuple(sorted(s)) for s in seatings}) == 1  # one multiset per group
    multisets = [frozenset(Counter(s[0]).items()) for s in groups.values()]
    assert len(set(multisets)) == len(multisets)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_agent_sits_before_and_after_every_other_equally_often(n):
    """In each group, for every distance d around the table, "B sits d places after A" is as
    frequent as "A sits d places after B", and every agent holds every seat equally often."""
    for seatings in groups_of(
        round_robin("geschenkt", ["random", "greedy", "sniper"], n, 1)
    ).values():
        after = Counter(
            (seating[s], seating[(s + d) % n], d)
            for seating in seatings
            for s in range(n)
            for d in range(1, n)
        )
        for (a, b, d), count in after.items():
            assert after[b, a, d] == count
        held = Counter((seating[s], s) for seating in seatings for s in range(n))
        for agent in set(seatings[0]):
            assert len({held[agent, s] for s in range(n)}) == 1


def test_the_design_is_the_same_under_any_exchange_of_agents():
    names = ["random", "greedy", "sniper"]
    seatings = Counter(job.agents for job in round_robin("geschenkt", names, 4, 1))
    for image in permutations(names):
        rename = dict(zip(names, image, strict=True))
        assert Counter(tuple(rename[a] for a in s) for s in seatings.elements()) == seatings


def test_any_order_of_the_agents_gives_the_same_jobs():
    names = ["sniper", "random", "greedy:T=-3", "greedy"]
    reference = round_robin("geschenkt", names, 4, 10, seed=3)
    for order in list(permutations(names))[::5]:
        jobs = round_robin("geschenkt", list(order), 4, 10, seed=3)
        assert jobs == reference and experiment_id(jobs) == experiment_id(reference)
    with pytest.raises(ValueError, match="listed twice"):
        round_robin("geschenkt", ["greedy", "greedy:T=0", "random"], 3, 10)


@pytest.mark.parametrize(
    ("game", "agents", "n"),
    [
        ("geschenkt", ["random", "greedy", "sniper"], 4),
        ("tulips", ["random", "greedy", "hoarder"], 3),
    ],
)
def test_permuted_agents_give_identical_tables(game, agents, n):
    """Played through the runner and tabled as `giftsim tournament` and `giftsim report` do:
    the games, game for game, and every table are identical whatever the order of the agents
    (three orders; the job lists of all orders are equal, test above)."""
    outputs = []
    for order in (agents, agents[::-1], agents[1:] + agents[:1]):
        jobs = commands.design_jobs(game, "round-robin", list(order), [n], 12, seed=11)
        frame, _, _ = run(jobs, **SERIAL)
        sums, deals = commands.execute(jobs, None, SERIAL)
        report = commands.tables(frame, False, game, jobs)  # as report reads a folder
        outputs.append((frame, commands.summary_tables(sums, deals), report))
    frame, printed, report = outputs[0]
    assert len(frame) == 12 * (len(agents) ** n - len(agents))
    for other_frame, other_printed, other_report in outputs[1:]:
        pd.testing.assert_frame_equal(other_frame, frame)
        for named, other in ((printed, other_printed), (report, other_report)):
            assert list(other) == list(named)
            for title, table in named.items():
                pd.testing.assert_frame_equal(other[title], table, obj=title)


def test_any_order_of_a_mirror_s_agents_and_counts_gives_the_same_games_and_tables():
    """A seat study (`giftsim seats`) typed in any order: the same jobs, the same games
    played by each (agent, count), the same printed tables."""
    names, counts = ["sniper", "greedy", "random"], [5, 3, 4]
    reference = mirror("geschenkt", names, counts, 8, seed=5)
    for order in permutations(names):
        for players in (counts, counts[::-1], sorted(counts)):
            jobs = mirror("geschenkt", list(order), players, 8, seed=5)
            assert jobs == reference and experiment_id(jobs) == experiment_id(reference)
    outputs = []
    for order, players in ((["greedy", "sniper"], [3, 5]), (["sniper", "greedy"], [5, 3])):
        jobs = commands.design_jobs("geschenkt", "mirror", order, players, 12, seed=2)
        sums, deals = commands.execute(jobs, None, SERIAL)
        outputs.append(commands.summary_tables(sums, deals))
    first, second = outputs
    assert list(first) == list(second)
    for title, table in first.items():
        pd.testing.assert_frame_equal(second[title], table, obj=title)


def test_strata_are_the_sets_of_jobs_that_play_a_deal():
    """From the job list (``schedule.design_strata``, for streamed sums) and from the rows
    (``blocks.deal_strata``, for long frames): the same partition of the deals, for designs
    joined on one seed whose game indices partly overlap."""
    jobs = join(
        field_design("geschenkt", "sniper", "greedy", 3, 30, seed=4),
        mirror("geschenkt", ["greedy"], [3], 45, seed=4),
        round_robin("geschenkt", ["random", "greedy"], 3, 20, seed=4),
    )
    frame, _, _ = run(jobs, **SERIAL)
    strata = design_strata(jobs)
    from_jobs = np.concatenate(
        [
            stratum_of(strata, job, rows["game_index"])
            for job, rows in frame.groupby("job", sort=True)
        ]
    )
    long = long_table(frame)
    first_seat = long[long["seat"] == 0]
    codes = first_seat.groupby("deal", sort=True).ngroup().to_numpy()
    from_rows = strata_from_rows(long)[codes]
    assert pd.crosstab(from_jobs, from_rows).gt(0).sum(axis=1).eq(1).all()
    assert pd.crosstab(from_rows, from_jobs).gt(0).sum(axis=1).eq(1).all()
    # indices 0-19: field, mirror, group 0; 20-29: field, mirror, group 1; 30-39: mirror,
    # group 1; 40-44: mirror alone
    assert len(set(from_jobs)) == 4


def test_the_design_line_counts_with_singular_and_plural_nouns():
    one = commands.seatings_line(mirror("geschenkt", ["greedy"], [3], 1), 1)
    assert one == "mirror: 1 seating in 1 seating group, 1 game each: 1 game"
    jobs = round_robin("geschenkt", ["random", "greedy", "sniper"], 3, 1)
    groups = len({job.group for job in jobs})
    assert commands.seatings_line(jobs, 300) == (
        f"round-robin: {len(jobs)} seatings in {groups} seating groups, 300 games each: "
        f"{300 * len(jobs):,} games"
    )

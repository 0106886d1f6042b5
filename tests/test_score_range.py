"""A seat's score range (``Game.score_range``), and mean scores' intervals kept inside it.

The ranges are known answers from the rules (docs/rules/): in No Thanks! a seat scores at
least minus every chip of the game (no card, all the chips) and at most the sum of the
highest cards that can be played, each heading a run of its own; in Gift of Tulips points are
never negative, and a seat scores at most every card given at the top value and giving bonus
(or kept at the top keeping points) plus the top majority of each of the four varieties.
Play checks that no seat leaves its range; the tables check that a mean score's interval on
two deals, whose Student t quantile is 12.7, is cut at the range (and would not have been).
"""

import numpy as np
import pytest

from experiments import commands, schedule, stats, sweeps
from experiments.batch import play
from giftsim.game import load_game

# (game, players, options) -> (lowest, highest) score of one seat, worked by hand:
KNOWN = [
    # 11 chips each at 3-5 players; the 24 cards played at most 12 + .. + 35 = 564
    ("geschenkt", 3, {}, (-33, 564)),
    ("geschenkt", 5, {}, (-55, 564)),
    ("geschenkt", 6, {}, (-54, 564)),  # 9 chips each
    ("geschenkt", 7, {}, (-49, 564)),  # 7 chips each
    # 10 chips each; 10, 20, 30 never played: 35 + .. + 12 less 20 and 30, plus 11 and 9
    ("geschenkt", 4, {"variant": "tactical"}, (-40, 534)),
    ("geschenkt", 4, {"chips_per_player": 2, "n_removed": 30}, (-8, 35 + 34 + 33)),
    # 72 cards at 2-4 players, each at most 4 + 3 points; majorities 15 at most
    ("tulips", 4, {}, (0, 72 * 7 + 4 * 15)),
    ("tulips", 2, {}, (0, 72 * 7 + 4 * 15)),
    ("tulips", 5, {}, (0, 96 * 7 + 4 * 15)),  # 96 cards at 5-6 players
    ("tulips", 4, {"giving_bonus": (5, 0, 0, 0)}, (0, 72 * 9 + 4 * 15)),
    ("tulips", 4, {"keeping_points": (0, 0, 1, 20)}, (0, 72 * 20 + 4 * 15)),
]


@pytest.mark.parametrize(("game", "players", "options", "expected"), KNOWN)
def test_score_range_known_answers(game, players, options, expected):
    definition = load_game(game)
    rules = definition.rules(n_players=players, **options)
    assert definition.score_range(rules) == expected


def test_match_range_is_the_rounds_times_a_game():
    definition = load_game("geschenkt")
    rules = definition.rules(n_players=4, rounds=3)
    assert definition.match_score_range(rules) == (-132, 3 * 564)
    assert definition.match_score_range(definition.rules(n_players=4)) == (-44, 564)


PLAYED = [
    ("geschenkt", 3, {}),
    ("geschenkt", 5, {"chips_per_player": 1}),  # few chips: many seats end with none
    ("geschenkt", 4, {"variant": "tactical"}),
    ("tulips", 2, {}),
    ("tulips", 6, {"game_end": "deck_out"}),
]


@pytest.mark.parametrize(("game", "players", "options"), PLAYED)
@pytest.mark.parametrize("agent", ["random", "greedy"])
def test_no_seat_leaves_its_range(game, players, options, agent):
    definition = load_game(game)
    rules = definition.rules(n_players=players, **options)
    low, high = definition.score_range(rules)
    frame = play(game, [agent] * players, 3000, rules=rules, seed=11)
    scores = frame[[f"score_{s}" for s in range(players)]].to_numpy()
    assert low <= scores.min() and scores.max() <= high


def _two_deal_tables(seed: int):
    """The mean score table of a 5-player No Thanks! mirror of greedy on two deals, with and
    without the range."""
    jobs = schedule.mirror("geschenkt", ["greedy"], [5], 2, seed=seed)
    frame = play("geschenkt", ["greedy"] * 5, 2, seed=seed)
    frame = frame.assign(job=0)
    clipped = commands.tables(frame, False, "geschenkt", jobs)[commands.MIRROR_SCORES]
    return clipped, schedule.score_ranges(jobs)


def test_mean_score_interval_is_cut_at_the_range():
    low, high = load_game("geschenkt").score_range(load_game("geschenkt").rules(n_players=5))
    cut = 0
    for seed in range(1, 9):
        table, ranges = _two_deal_tables(seed)
        assert ranges == {5: (low, high)}
        assert (table["ci_low"] >= low).all() and (table["ci_high"] <= high).all()
        cut += int((table["ci_low"] == low).sum())
    assert cut > 0  # on two deals some interval reaches past -55 and is cut there


def test_in_range_by_player_count_and_pooled():
    table = stats.pd.DataFrame(
        {"mean": [0.0, 0.0], "ci_low": [-100.0, -100.0], "ci_high": [900.0, 900.0]},
        index=stats.pd.MultiIndex.from_tuples([("a", 3), ("a", 5)], names=["agent", "n_players"]),
    )
    ranges = {3: (-33, 564), 5: (-55, 600)}
    own = stats.in_range(table, ranges)
    assert own["ci_low"].tolist() == [-33, -55] and own["ci_high"].tolist() == [564, 600]
    pooled = stats.in_range(table.reset_index("n_players", drop=True), ranges)
    assert pooled["ci_low"].tolist() == [-55, -55] and pooled["ci_high"].tolist() == [600, 600]
    assert stats.in_range(table, None) is table


def test_sweep_score_intervals_in_range():
    """A sweep on two games: a normal interval of two winning scores (18.5 on average, seed 23)
    reaches past the lowest score of 1 chip each at 5 players and is cut there."""
    table = sweeps.sweep("geschenkt", "greedy", [{"chips_per_player": 1}], 2, players=[5], seed=23)
    low, high = -5, 564
    for name in ("mean_score", "winning_score"):
        assert table[f"{name}_low"].ge(low).all() and table[f"{name}_high"].le(high).all()
    assert table["winning_score_low"].tolist() == [low]
    assert table["decisions_low"].ge(0).all() and np.isfinite(table["mean_score_low"]).all()

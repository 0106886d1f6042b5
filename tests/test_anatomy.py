"""experiments.anatomy: the event recorder plays the batch API's games, No Thanks! prices agree
with a replay of the slow path's actions and conserve chips; Tulips point sources add up to the
score."""

import numpy as np
import pandas as pd
import pytest

from agents.drivers.block import event_block, play_block
from agents.registry import parse_list
from experiments import anatomy
from experiments.batch import play
from experiments.games import play_slow
from geschenkt_sim.game import GAME
from geschenkt_sim.rules import PASS, TAKE, Rules
from geschenkt_sim.state import CHIPS, HANDS, TURN, deck_of
from tulips_sim.rules import Rules as TulipsRules

MIX = ["sniper", "random", "greedy:T=-2", "random:p=0.3"]
RULES = [
    Rules(n_players=4),
    Rules(n_players=4, chips_visible=False),
    Rules(n_players=4, variant="tactical"),
    Rules(n_players=4, chips_per_player=2, n_removed=0),
    Rules(n_players=4, chips_per_player=0),
]


@pytest.mark.parametrize("rules", RULES, ids=range(len(RULES)))
@pytest.mark.parametrize("first_player", ["rotate", "random", 1])
def test_event_recorder_plays_the_batch_games(rules, first_player):
    agents = parse_list(MIX, "geschenkt")
    raw, takes = event_block(GAME, rules, agents, 7, 100, 300, rules.n_cards, first_player)
    assert np.array_equal(raw, play_block(GAME, rules, agents, 7, 100, 300, first_player))
    assert takes.shape == (300, rules.n_cards, 3 + 2)
    assert (takes[:, :, 0] >= 0).all()  # every card is taken: n_cards take events a game


def _replay(start: np.ndarray, actions: list[int], n: int):
    """Takes (card, pot, seat) and chips per seat from a start state and the actions alone."""
    deck, chips = deck_of(start), [int(start[CHIPS + p]) for p in range(n)]
    turn, pot, takes = int(start[TURN]), 0, []
    for action in actions:
        if action == PASS:
            chips[turn] -= 1
            pot += 1
            turn = (turn + 1) % n
        else:
            takes.append((deck[len(takes)], pot, turn))
            chips[turn] += pot
            pot = 0
    return takes, chips


@pytest.mark.parametrize("rules", RULES[:3], ids=range(3))
def test_prices_agree_with_the_slow_path_and_conserve_chips(rules):
    agents = parse_list(MIX, "geschenkt")
    _, found = event_block(GAME, rules, agents, 3, 0, 25, rules.n_cards)
    takes = found[:, :, [3, 4, 1]]  # card, price, seat
    for g in range(25):
        played = play_slow("geschenkt", rules, agents, 3, g)
        replayed, chips = _replay(played.start, played.actions, 4)
        assert [tuple(t) for t in takes[g].tolist()] == replayed
        assert [int(played.actions[k]) for k in found[g, :, 0]] == [TAKE] * rules.n_cards
        assert chips == [int(played.final[CHIPS + p]) for p in range(4)]
        for p in range(4):
            hand = sum(1 << int(c) for c, _, seat in takes[g] if seat == p)
            assert hand == played.final[HANDS + p]


def test_card_prices_rows_win_shares_and_chip_conservation():
    frame = play("geschenkt", MIX, 400, seed=5, first_index=60)
    prices = anatomy.events("geschenkt", MIX, 400, seed=5, first_index=60)
    assert list(prices.columns) == [*anatomy.EVENT_COLUMNS, "card", "price"]
    assert len(prices) == 400 * 24 and sorted(prices["turn"].unique()) == list(range(24))
    by_game = prices.groupby("game_index")
    assert (by_game["card"].nunique() == 24).all()
    # every pass puts one chip on a card and every card leaves the pot empty when taken
    passes = frame.set_index("game_index")["n_decisions"] - 24
    assert np.array_equal(by_game["price"].sum().to_numpy(), passes.to_numpy())
    row = prices.iloc[1234]
    game = frame.set_index("game_index").loc[row["game_index"]]
    assert row["win"] == game[f"win_{row['seat']}"]
    assert row["agent"] == MIX[row["seat"]]
    assert row["position"] == (row["seat"] - game["first_player"]) % 4


def test_card_prices_blocks_do_not_change_games(monkeypatch):
    whole = anatomy.events("geschenkt", MIX, 120, seed=2)
    monkeypatch.setattr(anatomy, "BLOCK", 50)
    assert anatomy.events("geschenkt", MIX, 120, seed=2).equals(whole)
    assert anatomy.events("geschenkt", MIX, 0, seed=2).empty


def test_a_game_without_events_is_refused():
    with pytest.raises(ValueError, match="records no events"):
        anatomy.events("tulips", ["greedy"] * 4, 10)


def _prices(rows):
    """Takes, each from a game of its own unless the row gives its ``game_index``."""
    frame = pd.DataFrame(rows, columns=["card", "price", "win", "game_index"][: len(rows[0])])
    return frame if "game_index" in frame else frame.assign(game_index=range(len(frame)))


def test_price_table():
    prices = _prices([(3, 0, 1.0), (3, 2, 0.0), (3, 4, 0.5), (5, 1, 0.0)])
    table = anatomy.price_table(prices)
    assert table.loc[3, "takes"] == 3 and table.loc[3, "price"] == 2
    assert table.loc[3, "free"] == pytest.approx(1 / 3)
    assert table.loc[3, "in_winner"] == pytest.approx(2 / 3)  # a shared win counts
    assert table.loc[3, "median"] == 2 and table.loc[3, "q25"] == 1
    assert table.loc[3, "price_low"] < 2 < table.loc[3, "price_high"]
    assert 0 < table.loc[3, "winner_low"] < 2 / 3 < table.loc[3, "winner_high"] < 1
    assert table.loc[5, "in_winner"] == 0
    overall = anatomy.price_table(prices, by=None)
    assert overall.index.tolist() == ["all"] and overall.loc["all", "takes"] == 4
    assert overall.loc["all", "price"] == 7 / 4 and overall.loc["all", "in_winner"] == 0.5


def test_price_intervals_have_the_game_as_unit():
    """Ten takes in each of three games, alike within a game: the interval is that of three
    games (t on 2 degrees of freedom), not of thirty independent takes."""
    rows = [(c, price, 0.0, g) for g, price in enumerate((0, 10, 5)) for c in range(3, 13)]
    overall = anatomy.price_table(_prices(rows), by=None).loc["all"]
    assert overall["games"] == 3 and overall["takes"] == 30
    half = overall["price_high"] - overall["price"]
    assert half == pytest.approx(4.303 * 5 / np.sqrt(3), rel=1e-3)  # games' sd 5


def test_price_histogram_pools_high_prices():
    prices = _prices([(3, 0, 0), (3, 1, 0), (4, 7, 0), (4, 2, 0)])
    hist = anatomy.price_histogram(prices, max_price=2)
    assert list(hist.index) == [0, 1, 2] and list(hist.columns) == [3, 4]
    assert hist[3].tolist() == [0.5, 0.5, 0] and hist[4].tolist() == [0, 0, 1]
    assert len(anatomy.price_histogram(prices)) == 8


def test_tulips_point_sources_add_up_to_the_slow_path_scores():
    long = anatomy.mirror_points("tulips", ["hoarder", "random"], [2, 5], 6, seed=9)
    assert len(long) == 6 * (2 + 5) * 2
    assert anatomy.score_parts(long) == ["give", "keep", "majority"]
    assert (long[anatomy.score_parts(long)].sum(axis=1) == long["score"]).all()
    agents = {spec: parse_list([spec], "tulips")[0] for spec in ("hoarder", "random")}
    for (n, spec, index), seats in long.groupby(["n_players", "agent", "game_index"]):
        rules = TulipsRules(n_players=n)
        played = play_slow("tulips", rules, [agents[spec]] * n, 9, index)
        assert played.scores == seats.sort_values("seat")["score"].tolist()


def test_point_sources_table():
    long = pd.DataFrame(
        {
            "agent": ["a", "a", "b"],
            "n_players": 2,
            "job": 0,
            "game_index": [0, 1, 0],
            "give": [10, 20, 5],
            "keep": [2, 4, 0],
            "majority": [0, 15, 10],
            "win": [0.0, 1.0, 0.5],
        }
    )
    long["score"] = long[["give", "keep", "majority"]].sum(axis=1)
    table = anatomy.point_sources(long)
    row = table.loc[("a", 2)]
    assert row["seats"] == 2 and row["win_share"] == 0.5
    assert (row["give"], row["keep"], row["majority"], row["score"]) == (15, 3, 7.5, 25.5)
    assert row["give_share"] + row["keep_share"] + row["majority_share"] == pytest.approx(1)
    assert row["give_low"] < 15 < row["give_high"]
    assert anatomy.point_sources(long, by="agent").loc["b", "majority_share"] == pytest.approx(
        10 / 15
    )


def test_field_points_keeps_each_field_apart():
    long = anatomy.field_points("tulips", ["random", "hoarder"], "greedy", 3, 5, seed=1)
    tables = long.groupby("table")["agent"].value_counts().to_dict()
    assert tables == {
        ("random vs greedy", "greedy"): 30,
        ("random vs greedy", "random"): 15,
        ("hoarder vs greedy", "greedy"): 30,
        ("hoarder vs greedy", "hoarder"): 15,
    }
    # duplicate deals: the candidate meets the same games in every seat
    random = long[long["agent"] == "random"]
    assert sorted(random.groupby("seat")["game_index"].apply(sorted).iloc[0]) == list(range(5))


def test_a_figure_of_stacked_fields_counts_every_field_s_games():
    """Two fields of 5 deals x 3 seats are 30 games, not the 15 one field's ids number."""
    from experiments import plots

    long = anatomy.field_points("tulips", ["random", "hoarder"], "greedy", 3, 5, seed=1)
    assert len(long) == 30 * 3  # a row per seat of each game
    assert plots.subject_of(long, "tulips", "field").endswith(", 30 games")

"""Where points come from: per-card prices in No Thanks!, point sources in Gift of Tulips.

No Thanks!: the *price* of a card is the pot (chips on it) when it is taken. :func:`card_prices`
plays games through a compiled loop that is the game loop of ``agents/geschenkt/loop.py`` plus
one record per take (card, pot, seat), so its games are the batch API's games: game ``i`` of
root seed ``S`` is the same pure function of ``(S, i, rules, agents)`` (a test checks scores,
first players and decisions against ``play_block``, and prices against a replay of the slow
path's actions).

Gift of Tulips: the batch rows already carry each seat's giving, keeping and majority points
(``give_s``, ``keep_s``, ``majority_s``); :func:`play_long` runs a design and
:func:`point_sources` averages the three sources with 95% intervals.
"""

import numpy as np
import pandas as pd

from agents.drivers.block import event_block
from agents.registry import parse_list
from experiments import runner, stats
from experiments.batch import BLOCK, to_frame
from experiments.games import entry
from experiments.results import long_table
from experiments.schedule import field_design, mirror
from giftsim.rng import check_seed

SOURCES = ("give", "keep", "majority")  # Tulips point sources; their sum is the score
PRICE_COLUMNS = ("game_index", "turn", "card", "price", "seat", "position", "agent", "win")


# ---- No Thanks!: the price of every card --------------------------------------------------


def card_prices(
    agents, n_games: int, rules=None, seed: int = 0, first_index: int = 0, first_player="rotate"
) -> pd.DataFrame:
    """Every take of ``n_games`` No Thanks! games, one row per (game, card): ``game_index``,
    ``turn`` (turn-up index, 0 = first card), ``card``, ``price`` (chips on it when taken),
    ``seat`` of the taker, its ``position`` in the turn order (0 = first player), its
    ``agent`` spec and ``win`` (the taker's share of the game's win, ties split) - so the
    share of a card's takes with ``win > 0`` is how often it ends in a winner's hand."""
    ent = entry("geschenkt")
    agent_list = parse_list(agents, "geschenkt")
    rules = rules if rules is not None else ent.rules(n_players=len(agent_list))
    if rules.rounds != 1:
        raise ValueError("card prices are taken from single games (rounds=1)")
    check_seed(seed, first_index + max(n_games - 1, 0))
    parts = []
    for start in range(0, n_games, BLOCK):
        size = min(BLOCK, n_games - start)
        raw, events = event_block(
            ent, rules, agent_list, seed, first_index + start, size, rules.n_cards, first_player
        )
        takes = events[:, : rules.n_cards, [3, 4, 1]]  # card, price, seat of each take in order
        parts.append(_take_rows(to_frame(ent, raw, agent_list, first_index + start), takes))
    if not parts:
        return pd.DataFrame({c: [] for c in PRICE_COLUMNS})
    return pd.concat(parts, ignore_index=True)


def _take_rows(frame: pd.DataFrame, takes: np.ndarray) -> pd.DataFrame:
    """One row per take from a block's game rows and its ``takes`` array."""
    games, n_cards, _ = takes.shape
    n = sum(1 for c in frame.columns if c.startswith("win_"))
    seat = takes[:, :, 2]
    rows = np.repeat(np.arange(games), n_cards)
    wins = frame[[f"win_{s}" for s in range(n)]].to_numpy()
    names = np.array([str(frame[f"agent_{s}"].iloc[0]) for s in range(n)], dtype=object)
    first = frame["first_player"].to_numpy(np.int64)
    return pd.DataFrame(
        {
            "game_index": frame["game_index"].to_numpy()[rows],
            "turn": np.tile(np.arange(n_cards, dtype=np.int16), games),
            "card": takes[:, :, 0].ravel().astype(np.int16),
            "price": takes[:, :, 1].ravel().astype(np.int16),
            "seat": seat.ravel().astype(np.int8),
            "position": ((seat - first[:, None]) % n).ravel().astype(np.int8),
            "agent": pd.Categorical(names[seat.ravel()]),
            "win": wins[rows, seat.ravel()],
        }
    )


def price_table(prices: pd.DataFrame, by="card") -> pd.DataFrame:
    """Per group of takes (default: per card number): ``takes``, mean ``price`` with a 95%
    normal interval (``price_low``, ``price_high``), its ``sd``, quartiles (``q25``,
    ``median``, ``q75``), ``free`` (share taken with no chip on it) and ``in_winner`` (share
    of takes by a seat that won the game, ties included) with a 95% Wilson interval.
    ``by=None``: one row, ``"all"``, over every take."""
    if by is None:
        prices, by = prices.assign(all_takes="all"), "all_takes"
    groups = prices.assign(free=prices["price"] == 0, winner=prices["win"] > 0).groupby(
        by, observed=True, sort=True
    )
    table = groups.agg(
        takes=("price", "size"),
        price=("price", "mean"),
        sd=("price", "std"),
        q25=("price", lambda x: x.quantile(0.25)),
        median=("price", "median"),
        q75=("price", lambda x: x.quantile(0.75)),
        free=("free", "mean"),
        in_winner=("winner", "mean"),
    )
    half = stats.Z95 * table["sd"] / np.sqrt(table["takes"])
    table["price_low"], table["price_high"] = table["price"] - half, table["price"] + half
    table["winner_low"], table["winner_high"] = stats.wilson(
        table["in_winner"] * table["takes"], table["takes"]
    )
    return table


def price_histogram(prices: pd.DataFrame, max_price: int | None = None) -> pd.DataFrame:
    """Share of each card's takes at each price: rows ``price`` 0..max_price (higher prices
    pooled into the last row), columns ``card``; every column sums to 1."""
    top = int(prices["price"].max()) if max_price is None else max_price
    clipped = prices["price"].clip(upper=top)
    counts = pd.crosstab(clipped, prices["card"]).reindex(range(top + 1), fill_value=0)
    return (counts / counts.sum()).rename_axis(index="price", columns="card")


# ---- Gift of Tulips: giving, keeping and majority points ----------------------------------


def play_long(jobs) -> pd.DataFrame:
    """Play a design's jobs here (serial runner, no progress bar) and return the long table:
    one row per (game, seat) with ``position``, ``score``, ``win`` and the game's other
    per-seat blocks (Tulips: ``give``, ``keep``, ``majority``, ``cards``)."""
    frame, _, _ = runner.run(jobs, backend="serial", progress=False)
    return long_table(frame)


def mirror_points(game: str, agents, players, n_games: int, seed: int = 0, rules=None):
    """The long table (see :func:`play_long`) of ``experiments.schedule.mirror``: each agent in
    every seat at each player count, ``n_games`` games per (agent, count)."""
    return play_long(mirror(game, agents, players, n_games, seed, rules))


def field_points(game: str, candidates, baseline: str, n_players: int, n_games: int, seed=0):
    """The long tables of ``experiments.schedule.field_design`` (a candidate against copies
    of ``baseline`` in every seat, duplicate deals) for each candidate, stacked, with a
    ``table`` column (``"<candidate> vs <baseline>"``) that keeps the baselines apart."""
    parts = [
        play_long(field_design(game, c, baseline, n_players, n_games, seed)).assign(
            table=f"{c} vs {baseline}"
        )
        for c in candidates
    ]
    return pd.concat(parts, ignore_index=True)


def point_sources(long: pd.DataFrame, by=("agent", "n_players")) -> pd.DataFrame:
    """Mean points per seat from each source (``give``, ``keep``, ``majority``) and the
    ``score``, each with a 95% normal interval (``<source>_low``, ``<source>_high``), and each
    source's ``<source>_share`` of the mean score, per group of rows; plus ``seats`` and
    ``win_share``."""
    by = [by] if isinstance(by, str) else list(by)
    groups = long.groupby(by, observed=True, sort=True)
    table = groups.agg(seats=("score", "size"), win_share=("win", "mean"))
    for column in (*SOURCES, "score"):
        mean, sd = groups[column].mean(), groups[column].std()
        half = stats.Z95 * sd / np.sqrt(table["seats"])
        table[column], table[f"{column}_low"], table[f"{column}_high"] = (
            mean,
            mean - half,
            mean + half,
        )
    for source in SOURCES:
        table[f"{source}_share"] = table[source] / table["score"]
    return table

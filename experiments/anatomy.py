"""Where points come from: the events of a game (No Thanks!: the price of every card) and the
parts of a score (Gift of Tulips: giving, keeping and majority points).

Events: a game whose record has an ``event`` verb says which actions are worth a record and
what they carry (``Game.event_columns``; No Thanks!: every take, with the card and its
*price*, the chips on it when taken). :func:`events` plays games through the game loop with
the event recorder hook (``agents/templates/events_hook.py``), so its games are the batch
API's games: game ``i`` of root seed ``S`` is the same pure function of ``(S, i, rules,
agents)`` (a test checks the rows against ``play_block`` and the events against a replay of
the slow path's actions). :func:`price_table` and :func:`price_histogram` summarise events
that carry a ``card`` and a ``price``.

Score parts: where a game's score is a sum of per-seat blocks of its result rows
(``Game.score_parts``), :func:`play_long` runs a design and :func:`point_sources` averages
each part with 95% intervals.
"""

import numpy as np
import pandas as pd

from agents.drivers.block import event_block
from agents.registry import parse_list
from experiments import runner, stats
from experiments.batch import BLOCK, to_frame
from experiments.results import long_table
from experiments.schedule import field_design, mirror
from giftsim.game import GAMES, load_game
from giftsim.rng import check_seed

EVENT_COLUMNS = ("game_index", "turn", "ply", "seat", "position", "agent", "win")


# ---- Events: what each action worth a record carried ---------------------------------------


def events(
    game: str,
    agents,
    n_games: int,
    rules=None,
    seed: int = 0,
    first_index: int = 0,
    first_player="rotate",
) -> pd.DataFrame:
    """Every event of ``n_games`` games, one row per event: ``game_index``, ``turn`` (its
    number in its game, 0 first), ``ply`` (the number of the action), the acting ``seat``,
    its ``position`` in the turn order (0 = first player), its ``agent`` spec, ``win`` (its
    share of the game's win, ties split: the share of events with ``win > 0`` is how often
    they were a winner's), then the game's own ``event_columns`` (No Thanks!: ``card``,
    ``price``)."""
    definition = load_game(game)
    if definition.event is None:
        raise ValueError(f"{game} records no events (its Game record has no event verb)")
    agent_list = parse_list(agents, game)
    rules = rules if rules is not None else definition.rules(n_players=len(agent_list))
    if getattr(rules, "rounds", 1) != 1:
        raise ValueError("events are taken from single games (rounds=1)")
    check_seed(seed, first_index + max(n_games - 1, 0))
    limit = int(getattr(rules, "max_decisions", definition.max_decisions))
    parts = []
    for start in range(0, n_games, BLOCK):
        size = min(BLOCK, n_games - start)
        first = first_index + start
        raw, found = event_block(
            definition, rules, agent_list, seed, first, size, limit, first_player
        )
        parts.append(_event_rows(definition, to_frame(definition, raw, agent_list, first), found))
    if not parts:
        return pd.DataFrame({c: [] for c in (*EVENT_COLUMNS, *definition.event_columns)})
    return pd.concat(parts, ignore_index=True)


def _event_rows(record, frame: pd.DataFrame, found: np.ndarray) -> pd.DataFrame:
    """One row per event from a block's game rows and its recorded events."""
    game, turn = np.nonzero(found[:, :, 0] >= 0)
    n = sum(1 for c in frame.columns if c.startswith("win_"))
    seat = found[game, turn, 1]
    wins = frame[[f"win_{s}" for s in range(n)]].to_numpy()
    names = np.array([str(frame[f"agent_{s}"].iloc[0]) for s in range(n)], dtype=object)
    first = frame["first_player"].to_numpy(np.int64)[game]
    columns = {
        "game_index": frame["game_index"].to_numpy()[game],
        "turn": turn.astype(np.int16),
        "ply": found[game, turn, 0].astype(np.int16),
        "seat": seat.astype(np.int8),
        "position": ((seat - first) % n).astype(np.int8),
        "agent": pd.Categorical(names[seat]),
        "win": wins[game, seat],
    }
    for k, name in enumerate(record.event_columns):
        columns[name] = found[game, turn, 3 + k].astype(np.int16)
    return pd.DataFrame(columns)


def price_table(prices: pd.DataFrame, by="card") -> pd.DataFrame:
    """Per group of takes (default: per card number): ``takes``, mean ``price`` with a 95%
    interval (``price_low``, ``price_high``), its ``sd``, quartiles (``q25``, ``median``,
    ``q75``), ``free`` (share taken with no chip on it), ``in_winner`` (share of takes by a
    seat that won the game, ties included) with a 95% interval (``winner_low``,
    ``winner_high``, inside [0, 1]), and the ``games`` the takes come from. The takes of one
    game are not independent (a game has many takes, and one winner), so the intervals have
    the game as unit (``stats.clustered_mean``, Student t). ``by=None``: one row, ``"all"``,
    over every take."""
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
    takes = prices.assign(_one=1.0, _winner=(prices["win"] > 0).astype(float))
    price = stats.clustered_mean(takes, "price", "_one", by, "game_index", t=True)
    table["price_low"] = price["mean"] - price["half"]
    table["price_high"] = price["mean"] + price["half"]
    winner = stats.clustered_mean(takes, "_winner", "_one", by, "game_index", t=True)
    table["winner_low"], table["winner_high"] = stats.share_interval(
        winner["mean"], winner["se"], winner["clusters"], stats.quantile(winner["df"])
    )
    table["games"] = price["clusters"]
    return table


def price_histogram(prices: pd.DataFrame, max_price: int | None = None) -> pd.DataFrame:
    """Share of each card's takes at each price: rows ``price`` 0..max_price (higher prices
    pooled into the last row), columns ``card``; every column sums to 1."""
    top = int(prices["price"].max()) if max_price is None else max_price
    clipped = prices["price"].clip(upper=top)
    counts = pd.crosstab(clipped, prices["card"]).reindex(range(top + 1), fill_value=0)
    return (counts / counts.sum()).rename_axis(index="price", columns="card")


# ---- Score parts: the blocks a score adds up from -----------------------------------------


def score_parts(long: pd.DataFrame) -> list[str]:
    """The columns of a long table that are parts of a score (``Game.score_parts`` of the
    games of the list of games)."""
    declared = {part for name in GAMES for part in load_game(name).score_parts}
    return [c for c in long.columns if c in declared]


def play_long(jobs) -> pd.DataFrame:
    """Play a design's jobs here (serial runner, no progress bar) and return the long table:
    one row per (game, seat) with ``position``, ``score``, ``win`` and the game's other
    per-seat blocks (e.g. the parts of its score, ``Game.score_parts``)."""
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
    """Mean points per seat from each part of the score (:func:`score_parts`; Gift of Tulips:
    ``give``, ``keep``, ``majority``) and the ``score``, each with a 95% interval with the deal
    as unit (``<source>_low``, ``<source>_high``: ``stats.seat_mean``; the seats of a game, and
    of the seatings of a duplicate deal, are not independent), and each part's
    ``<source>_share`` of the mean score, per group of rows; plus ``seats`` and
    ``win_share``."""
    by = [by] if isinstance(by, str) else list(by)
    groups = long.groupby(by, observed=True, sort=True)
    table = groups.agg(seats=("score", "size"), win_share=("win", "mean"))
    parts = score_parts(long)
    for column in (*parts, "score"):
        mean = stats.seat_mean(long, column, by)
        table[column] = mean["mean"]
        table[f"{column}_low"], table[f"{column}_high"] = mean["ci_low"], mean["ci_high"]
    for source in parts:
        table[f"{source}_share"] = table[source] / table["score"]
    return table

"""The batch play API: many games of one seating, as arrays or a tidy DataFrame.

Game ``i`` of root seed ``S`` is a pure function of ``(S, i, rules, agents)``, so a batch can
be cut into blocks of any size (and, later, spread over workers) without changing any game.
"""

import numpy as np
import pandas as pd
from tqdm import tqdm

from agents.registry import parse_list
from experiments.games import entry

BLOCK = 50_000


def play(
    game: str = "geschenkt",
    agents=("greedy",) * 4,
    n_games: int = 1000,
    rules=None,
    seed: int = 0,
    first_player="rotate",
    first_index: int = 0,
    progress: bool = False,
    as_frame: bool = True,
):
    """Play ``n_games`` games with one agent spec (or Agent) per seat.

    ``first_player``: ``"rotate"`` (game i starts at seat i mod n), ``"random"`` or a seat.
    Returns a DataFrame with one row per game (``game_index``, ``first_player``,
    ``n_decisions``, ``score_s``, ``win_s`` = seat s's share of the win, ties split, and
    ``agent_s``), or with ``as_frame=False`` the raw int64 array (scores per seat, first player,
    decisions).
    """
    ent = entry(game)
    agent_list = parse_list(agents, game)
    rules = rules if rules is not None else ent.rules_cls(n_players=len(agent_list))
    if n_games < 0:
        raise ValueError(f"n_games must be >= 0, got {n_games}")
    blocks = []
    with tqdm(total=n_games, disable=not progress, unit="game", unit_scale=True) as bar:
        for start in range(0, n_games, BLOCK):
            size = min(BLOCK, n_games - start)
            blocks.append(
                ent.play_block(rules, agent_list, seed, first_index + start, size, first_player)
            )
            bar.update(size)
    raw = np.concatenate(blocks) if blocks else np.zeros((0, rules.n_players + 2), np.int64)
    return to_frame(raw, agent_list, first_index, ent.lower_wins) if as_frame else raw


def win_shares(scores: np.ndarray, lower_wins: bool) -> np.ndarray:
    """Each seat's share of the win per game: 1/k for each of k tied best scores, else 0."""
    best = scores.min(axis=1, keepdims=True) if lower_wins else scores.max(axis=1, keepdims=True)
    winners = scores == best
    return winners / winners.sum(axis=1, keepdims=True)


def to_frame(raw: np.ndarray, agent_list, first_index: int, lower_wins: bool) -> pd.DataFrame:
    """Tidy per-game rows from the raw array of a batch."""
    n = len(agent_list)
    scores = raw[:, :n]
    shares = win_shares(scores, lower_wins)
    columns = {
        "game_index": np.arange(first_index, first_index + len(raw)),
        "first_player": raw[:, n],
        "n_decisions": raw[:, n + 1],
    }
    for s in range(n):
        columns[f"score_{s}"] = scores[:, s]
        columns[f"win_{s}"] = shares[:, s]
        columns[f"agent_{s}"] = pd.Categorical([agent_list[s].spec] * len(raw))
    return pd.DataFrame(columns)


def by_agent(frame: pd.DataFrame) -> pd.DataFrame:
    """Win share and mean score per agent spec, pooled over the seats it held."""
    n = sum(1 for c in frame.columns if c.startswith("score_"))
    long = pd.concat(
        pd.DataFrame(
            {
                "agent": frame[f"agent_{s}"].astype(str),
                "score": frame[f"score_{s}"],
                "win": frame[f"win_{s}"],
            }
        )
        for s in range(n)
    )
    table = long.groupby("agent").agg(
        seats=("win", "size"),
        win_share=("win", "mean"),
        mean_score=("score", "mean"),
        score_sd=("score", "std"),
    )
    table["win_se"] = np.sqrt(table.win_share * (1 - table.win_share) / table.seats)
    return table.sort_values("win_share", ascending=False)

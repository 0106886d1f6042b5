"""Games of a long frame as arrays: the shared layer of ``experiments.stats`` and
``experiments.ratings``.

A *deal* is the unit of every interval: the games of one deal (the rotations of a seating on
duplicate deals) are correlated, so they are resampled or summed together. A long frame names
its deals in an optional ``deal`` column (``experiments.results.long_table`` fills it with the
game's deal seed); without one, every game is its own deal.
"""

from typing import NamedTuple

import numpy as np
import pandas as pd

GAME = ["job", "game_index"]
COLUMNS = ("job", "game_index", "n_players", "seat", "agent", "score", "win", "first")
EPS = 1e-9  # win shares closer than this are equal (a tie)


def require(long: pd.DataFrame, columns) -> None:
    missing = sorted(set(columns) - set(long.columns))
    if missing:
        raise ValueError(f"long frame lacks columns {missing}")


def deal_codes(long: pd.DataFrame) -> np.ndarray:
    """Each row's deal as a code 0..(deals - 1): the ``deal`` column if the frame has one, else
    the game ``(job, game_index)``."""
    keys = ["deal"] if "deal" in long.columns else GAME
    require(long, keys)
    return long.groupby(keys, sort=True, observed=True).ngroup().to_numpy()


class Block(NamedTuple):
    """All games of one player count as G x n arrays, seats in order."""

    n: int
    game: np.ndarray  # G global game ids 0..(all games - 1)
    deal: np.ndarray  # G deal codes (shared by the games of one deal)
    agent: np.ndarray  # G x n agent codes into the sorted names
    win: np.ndarray  # G x n win shares
    key: np.ndarray  # G x n finishing keys (higher finishes better)


def blocks(long: pd.DataFrame, order: str = "win"):
    """Sorted agent names and one ``Block`` per player count (``key`` from the column
    ``order``); checks one row per seat."""
    require(long, [*COLUMNS, order])
    codes, names = pd.factorize(long["agent"].astype(str), sort=True)  # hashing: fast
    names = np.asarray(names, dtype=object)
    frame = long.assign(code=codes.reshape(-1), deal_code=deal_codes(long), order_key=long[order])
    frame = frame.sort_values(["n_players", *GAME, "seat"])
    out, offset = [], 0
    for n, part in frame.groupby("n_players", sort=True):
        out.append(_block(int(n), part, offset))
        offset += len(part) // n
    return names, out


def _block(n: int, part: pd.DataFrame, offset: int) -> Block:
    games = len(part) // n
    if not _one_row_per_seat(n, part):
        raise ValueError(f"every {n}-player game needs exactly one row per seat 0..{n - 1}")
    return Block(
        n,
        np.arange(offset, offset + games),
        part["deal_code"].to_numpy()[::n],
        part["code"].to_numpy().reshape(games, n),
        part["win"].to_numpy(float).reshape(games, n),
        part["order_key"].to_numpy(float).reshape(games, n),
    )


def _one_row_per_seat(n: int, part: pd.DataFrame) -> bool:
    """Rows sorted by game then seat must come in runs of seats 0..n-1 of one game each."""
    games = len(part) // n
    seats = part["seat"].to_numpy()
    if len(part) != games * n or not (seats == np.tile(np.arange(n), games)).all():
        return False
    keys = part[GAME].to_numpy().reshape(games, n, 2)
    return bool((keys == keys[:, :1]).all())


def row_ids(rows: np.ndarray):
    """``(unique rows, index of each row's unique row)`` of a non-negative int matrix; a row is
    packed into one int64 when it fits (np.unique over rows is much slower)."""
    rows = np.asarray(rows, np.int64)
    base = int(rows.max(initial=0)) + 1
    if base ** rows.shape[1] >= 2**62:
        unique, index = np.unique(rows, axis=0, return_inverse=True)
        return unique, index.reshape(-1)
    packed = rows @ (base ** np.arange(rows.shape[1], dtype=np.int64))
    _, first, index = np.unique(packed, return_index=True, return_inverse=True)
    return rows[first], index.reshape(-1)

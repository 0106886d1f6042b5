"""One entry per game: what the experiment layer needs to know of each engine."""

from dataclasses import dataclass
from functools import partial

import numpy as np

import agents.geschenkt
import agents.tulips
import geschenkt_sim.record
import tulips_sim.record
from agents.common.slow import play_slow
from agents.geschenkt import loop as geschenkt_loop
from agents.tulips import loop as tulips_loop
from geschenkt_sim import rules as geschenkt_rules
from tulips_sim import rules as tulips_rules


@dataclass(frozen=True)
class GameEntry:
    """How to build rules, play fast and slow, read results and keep records of a game.

    ``blocks`` names the per-seat blocks of a result row (the first is the score); the row
    ends with the first player and the number of decisions. ``win_key`` maps a result array
    to per-seat keys where the highest key wins (ties share the win).
    """

    name: str
    rules_cls: type
    play_block: object
    play_slow: object
    make_record: object
    replay: object
    blocks: tuple[str, ...]
    win_key: object
    players: tuple[int, ...]  # every player count the engine accepts
    official: tuple[int, ...]  # the counts of the rulebooks (default of seat studies)


def _lowest_score_wins(raw: np.ndarray, n: int) -> np.ndarray:
    return -raw[:, :n]


def _highest_score_then_most_cards(raw: np.ndarray, n: int) -> np.ndarray:
    cards = raw[:, 4 * n : 5 * n]
    return raw[:, :n] * 1000 + cards


GAMES = {
    "geschenkt": GameEntry(
        "geschenkt",
        geschenkt_rules.Rules,
        geschenkt_loop.play_block,
        partial(play_slow, agents.geschenkt.KERNELS),
        geschenkt_sim.record.make_record,
        geschenkt_sim.record.replay,
        ("score",),
        _lowest_score_wins,
        tuple(range(geschenkt_rules.MIN_PLAYERS, geschenkt_rules.MAX_PLAYERS + 1)),
        tuple(range(3, geschenkt_rules.MAX_PLAYERS + 1)),  # 2 players is a project variant
    ),
    "tulips": GameEntry(
        "tulips",
        tulips_rules.Rules,
        tulips_loop.play_block,
        partial(play_slow, agents.tulips.KERNELS),
        tulips_sim.record.make_record,
        tulips_sim.record.replay,
        tulips_loop.BLOCKS,
        _highest_score_then_most_cards,
        tuple(range(tulips_rules.MIN_PLAYERS, tulips_rules.MAX_PLAYERS + 1)),
        tuple(range(tulips_rules.MIN_PLAYERS, tulips_rules.MAX_PLAYERS + 1)),
    ),
}


def entry(game: str) -> GameEntry:
    """The entry of a game, or a ValueError listing the games."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r} (valid: {', '.join(GAMES)})")
    return GAMES[game]

"""One entry per game: what the experiment layer needs to know of each engine."""

from dataclasses import dataclass

import geschenkt_sim.record
from agents.geschenkt import loop as geschenkt_loop
from agents.geschenkt import slow as geschenkt_slow
from geschenkt_sim import rules as geschenkt_rules


@dataclass(frozen=True)
class GameEntry:
    """How to build rules, play fast and slow, and write and replay records for a game."""

    name: str
    rules_cls: type
    play_block: object
    play_slow: object
    make_record: object
    replay: object
    lower_wins: bool
    players: tuple[int, ...]


GAMES = {
    "geschenkt": GameEntry(
        "geschenkt",
        geschenkt_rules.Rules,
        geschenkt_loop.play_block,
        geschenkt_slow.play_slow,
        geschenkt_sim.record.make_record,
        geschenkt_sim.record.replay,
        lower_wins=True,
        players=tuple(range(geschenkt_rules.MIN_PLAYERS, geschenkt_rules.MAX_PLAYERS + 1)),
    ),
}


def entry(game: str) -> GameEntry:
    """The entry of a game, or a ValueError listing the games."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r} (valid: {', '.join(GAMES)})")
    return GAMES[game]


def make_rules(game: str, n_players: int, **options):
    """Validated rules of ``game`` for ``n_players`` (ValueError names the valid range)."""
    return entry(game).rules_cls(n_players=n_players, **options)

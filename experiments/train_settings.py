"""The settings of a training run (``giftsim train``): what its checkpoint stores, their
defaults and their checks. Light to import (the engines, the agents and the registry are
imported where a check needs them), so that the command line's options take their defaults
from here and ``giftsim --help`` stays quick."""

import re
from dataclasses import dataclass, replace

from giftsim.checks import is_whole
from giftsim.game import load_game, rounds_of


@dataclass(frozen=True)
class TrainSettings:
    """Everything a training run depends on (its checkpoint stores these)."""

    game: str
    players: int
    seed: int = 0
    rounds: int = 8
    games: int = 20_000
    hidden: int = 32
    epochs: int = 3
    batch: int = 1024
    lr: float = 0.003
    explore: float = 0.05
    baseline: str = ""
    eval_games: int = 2000
    margin: float = 0.0
    margin_scale: float = 10.0
    lam: float = 1.0
    selfplay: float = 0.5
    members: int = 1
    rules: str = ""  # ``--rule`` KEY=VALUE pairs, comma-separated ("": the standard rules)
    init: str = ""  # a network file to start from ("": He-initialised weights)

    def game_rules(self):
        """The rules the games are played under: the standard ones with ``rules``."""
        # pairs are comma-separated, and a table's value has commas: split before each key=
        pairs = [pair for pair in re.split(r",(?=\s*\w+=)", self.rules) if pair.strip()]
        return load_game(self.game).rules.from_pairs(pairs, self.players)

    def check(self) -> None:
        """A one-line ValueError for a setting out of range, naming the valid values."""
        from agents.kernels.net import MAX_HIDDEN

        load_game(self.game).check_players(self.players, "--players")
        limits = {
            "rounds": (self.rounds, 1, 1000),
            "games": (self.games, 2 * self.players, 10**8),
            "hidden": (self.hidden, 1, MAX_HIDDEN),
            "epochs": (self.epochs, 1, 100),
            "batch": (self.batch, 1, 10**6),
            "eval_games": (self.eval_games, 2, 10**7),
            "members": (self.members, 1, MAX_HIDDEN),
        }
        for name, (value, low, high) in limits.items():
            if not (is_whole(value) and low <= value <= high):
                raise ValueError(f"{name} must be a whole number in [{low}, {high}], got {value}")
        if not 0.0 <= self.explore <= 1.0:
            raise ValueError(f"explore must be in [0, 1], got {self.explore}")
        if not 0.0 < self.lr <= 1.0:
            raise ValueError(f"lr must be in (0, 1], got {self.lr}")
        if self.members * self.hidden > MAX_HIDDEN:
            raise ValueError(
                f"hidden x members must be at most {MAX_HIDDEN}, got {self.hidden} x {self.members}"
            )
        if not 0.0 <= self.selfplay <= 1.0:
            raise ValueError(f"selfplay must be in [0, 1], got {self.selfplay}")
        if not 0.0 <= self.lam <= 1.0:
            raise ValueError(f"lam must be in [0, 1], got {self.lam}")
        if not 0.0 <= self.margin <= 1.0:
            raise ValueError(f"margin must be in [0, 1], got {self.margin}")
        if not 0.0 < self.margin_scale <= 1000.0:
            raise ValueError(f"margin_scale must be in (0, 1000], got {self.margin_scale}")
        if rounds_of(self.game_rules()) != 1:  # also a one-line error for a bad KEY=VALUE
            raise ValueError("training plays single games: use rounds=1")
        if self.init:
            self._check_init()

    def _check_init(self) -> None:
        """``init`` must be a network of this game and table, of ``hidden`` units, alone."""
        from agents.kernels.net import read as read_network

        weights, meta = read_network(self.init)  # a one-line error for a missing or bad file
        if meta.get("game") != self.game or meta.get("players") != self.players:
            raise ValueError(
                f"init network {self.init!r} is for {meta.get('game')!r} at "
                f"{meta.get('players')} players, not {self.game!r} at {self.players}"
            )
        units = weights["w1"].shape[0]
        if units != self.hidden or self.members != 1:
            raise ValueError(
                f"init network {self.init!r} has {units} hidden units: pass --hidden {units} "
                "and --members 1"
            )

    def resolved(self) -> "TrainSettings":
        """These settings with the baseline named (``tuned<n>p`` when the game has one)."""
        from agents.registry import parse

        self.check()
        if self.baseline:
            parse(self.baseline, self.game)  # one-line error for a bad spec
            return self
        return replace(self, baseline=nearest_tuned(self.game, self.players))


def nearest_tuned(game: str, players: int) -> str:
    """The tuned built-in (``tuned<n>p``) for the player count nearest ``players`` (the lower
    on a tie): the default baseline."""
    from agents.registry import families

    counts = [int(f.name[5:-1]) for f in families(game) if f.name.startswith("tuned")]
    if not counts:
        raise ValueError(f"{game} has no tuned agent; name a --baseline")
    return f"tuned{min(counts, key=lambda c: (abs(c - players), c))}p"

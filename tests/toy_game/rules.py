"""Rules of Hidden Pile, the test suite's toy game (misère Nim with a hidden pile).

* 2-4 players. A pile of ``min_pile..max_pile`` stones is dealt face down: nobody knows its
  size, only how many stones have been taken. Each seat is dealt a secret tiebreak 0..2.
* On a turn a seat takes 1, 2 or 3 stones; it may take 3 only ``big_takes`` times a game.
* The seat whose take empties the pile loses (score 0); every other seat scores 1 + its
  secret. Highest score wins; tied seats share the win.

Specification: ``NUM_ACTIONS`` = 3; ``MAX_PLAYERS`` = 4; a game lasts at most ``max_pile``
decisions (each takes a stone), so at most ``MAX_DECISIONS`` under any rules.
"""

from dataclasses import dataclass

import numpy as np

from giftsim import rule_options as opt

TAKE1, TAKE2, TAKE3 = 0, 1, 2
NUM_ACTIONS = 3
ACTION_NAMES = ("take1", "take2", "take3")
MIN_PLAYERS, MAX_PLAYERS = 2, 4
MAX_PILE = 40
MAX_DECISIONS = MAX_PILE
N_SECRETS = 3  # secrets are 0..2
RANDOM_FIRST = -1

# Rules as an int64 vector for compiled code: slot -> meaning.
R_N_PLAYERS = 0
R_MIN_PILE = 1
R_MAX_PILE = 2
R_BIG_TAKES = 3
R_FIRST_PLAYER = 4  # fixed first seat, or RANDOM_FIRST
RULES_SIZE = 5


OPTIONS = {  # the --rule options (giftsim.rule_options), every field but n_players
    "min_pile": opt.INT,
    "max_pile": opt.INT,
    "big_takes": opt.INT,
    "first_player": opt.SEAT,
}


@dataclass(frozen=True)
class Rules:
    """One configuration of Hidden Pile; every field is validated on construction."""

    n_players: int = 3
    min_pile: int = 10
    max_pile: int = 20
    big_takes: int = 2
    first_player: int | str = "random"

    @classmethod
    def from_pairs(cls, pairs, n_players: int = 3) -> "Rules":
        """Rules from ``--rule`` strings such as ``["big_takes=0"]``."""
        return cls(n_players=n_players, **cls.options_from_pairs(pairs))

    @staticmethod
    def options_from_pairs(pairs) -> dict:
        """The option values of ``--rule`` strings (checked by building the rules later)."""
        return opt.parse_pairs(pairs, OPTIONS, "toy")

    def __post_init__(self) -> None:
        _check("n_players", self.n_players, MIN_PLAYERS, MAX_PLAYERS)
        _check("min_pile", self.min_pile, 1, MAX_PILE)
        _check("max_pile", self.max_pile, self.min_pile, MAX_PILE)
        _check("big_takes", self.big_takes, 0, MAX_PILE)
        if self.first_player != "random":
            _check("first_player", self.first_player, 0, self.n_players - 1)

    def to_array(self) -> np.ndarray:
        """The rules as the int64 vector that compiled code reads (slots ``R_*``)."""
        first = RANDOM_FIRST if self.first_player == "random" else self.first_player
        return np.array(
            [self.n_players, self.min_pile, self.max_pile, self.big_takes, first], np.int64
        )

    def as_dict(self) -> dict:
        """Plain values for records and manifests."""
        return dict(self.__dict__)


def _check(name: str, value, low: int, high: int) -> None:
    if type(value) is not int or not low <= value <= high:
        raise ValueError(f"{name} must be an integer in {low}..{high}, got {value!r}")

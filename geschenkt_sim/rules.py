"""Rules of No Thanks! (Geschenkt ... ist noch zu teuer!) from ``docs/rules/no_thanks.md``.

Rules card
----------
* Cards 3..35 (33 cards). Shuffle, remove 9 face down, unseen; 24 are played.
* Chips per player: 11 for 3-5 players, 9 for 6, 7 for 7 (``min(55 // n, 11)``).
  Two players is the project's variant: 11 chips each, otherwise the same.
* The face-up card goes to the active player, who either passes (puts one chip on the card;
  the turn passes to the left) or takes the card and every chip on it, turns up the next
  card and decides again. A player with no chips must take.
* The game ends when the last card has been taken.
* Score: sum of the cards that do not follow another card of the same hand, minus chips.
  Lowest score wins; tied lowest scorers all win (statistics split one win among them).

Project defaults where no rulebook decides, each an option of :class:`Rules`
------------------------------------------------------------------------
* ``first_player``: ``"random"`` (default) or a fixed seat; tournaments rotate it.
* ``chips_visible``: opponents' chip counts are visible (default ``True``, since they follow
  from the public history); ``False`` hides them from agents.
* ``variant="tactical"``: Board Game Arena's variant, "10 chips instead of 11" and cards 10,
  20 and 30 always among the removed cards. ``tactical_chips="one_fewer"`` (default) reads the
  chips as one fewer than the standard count (10/10/10/8/6 for 3..7 players, 10 for 2);
  ``"ten"`` gives 10 at every count.
* ``rounds``: the rulebook's longer game, several rounds with cumulative scores (default 1).
  A match of ``R`` rounds is the games ``m * R .. m * R + R - 1`` of its seed, their scores
  added up; the lowest total wins the match.
* ``chips_per_player``, ``n_removed``, ``lowest_card`` and ``highest_card`` are free
  parameters for balance sweeps.

Specification (asserted by tests)
---------------------------------
``NUM_ACTIONS`` = 2 (``PASS``, ``TAKE``); ``MAX_PLAYERS`` = 7; a game lasts exactly
``rules.n_cards`` takes and at most ``rules.max_decisions`` decisions, which under the rules of
record is at most ``MAX_DECISIONS`` (each card can collect every chip in play at most once).
"""

from dataclasses import dataclass, field

import numpy as np

from giftsim import rule_options as opt
from giftsim.checks import is_whole

PASS = 0
TAKE = 1
NUM_ACTIONS = 2
ACTION_NAMES = ("pass", "take")

MIN_PLAYERS = 2
MAX_PLAYERS = 7
LOWEST_CARD = 3
HIGHEST_CARD = 35
MAX_CARD = 62  # hands are int64 bit masks, bit c standing for card c
N_REMOVED = 9
BOX_CHIPS = 55
MAX_CHIPS = 99

N_PLAYED = 24  # cards played under the rules of record
MAX_DECISIONS = N_PLAYED * (BOX_CHIPS + 1)  # bound on any game under the rules of record

VARIANTS = ("standard", "tactical")
TACTICAL_CHIPS = 10
TACTICAL_CHIP_RULES = ("one_fewer", "ten")
MAX_ROUNDS = 20
TACTICAL_REMOVED = (10, 20, 30)

# Rules as an int64 vector for compiled code: slot -> meaning.
R_N_PLAYERS = 0  # number of seats
R_CHIPS = 1  # chips per player at the start
R_N_REMOVED = 2  # cards removed face down
R_LOWEST = 3  # lowest card number
R_HIGHEST = 4  # highest card number
R_FIRST_PLAYER = 5  # fixed first seat, or -1 for random
R_CHIPS_VISIBLE = 6  # 1 if agents see opponents' chips
R_FORCED_MASK = 7  # bit mask of cards that are always removed
R_ROUNDS = 8  # rounds of a match (1: a single game)
RULES_SIZE = 9

RANDOM_FIRST = -1

# ``--rule`` keys (every field but n_players) and what each takes.
OPTIONS = {
    "chips_per_player": opt.INT_OR_DEFAULT,
    "n_removed": opt.INT,
    "lowest_card": opt.INT,
    "highest_card": opt.INT,
    "first_player": opt.SEAT,
    "chips_visible": opt.BOOL,
    "variant": VARIANTS,
    "tactical_chips": TACTICAL_CHIP_RULES,
    "rounds": opt.INT,
}


def default_chips(n_players: int) -> int:
    """Chips per player of the rules of record: 11/11/11/9/7 for 3..7 players, 11 for 2."""
    return min(BOX_CHIPS // n_players, 11)


def _check_range(name: str, value: int, low: int, high: int, note: str = "") -> None:
    if not is_whole(value):
        raise ValueError(f"{name} must be an integer in {low}..{high}{note}, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in {low}..{high}{note}, got {value}")


@dataclass(frozen=True)
class Rules:
    """One configuration of No Thanks!; every field is validated on construction.

    ``chips_per_player=None`` takes the rules-of-record table (or the tactical variant's).
    """

    n_players: int = 4
    chips_per_player: int | None = None
    n_removed: int = N_REMOVED
    lowest_card: int = LOWEST_CARD
    highest_card: int = HIGHEST_CARD
    first_player: int | str = "random"
    chips_visible: bool = True
    variant: str = "standard"
    tactical_chips: str = "one_fewer"
    rounds: int = 1
    chips: int = field(init=False, repr=False)

    @classmethod
    def from_pairs(cls, pairs, n_players: int = 4) -> "Rules":
        """Rules from ``--rule`` strings such as ``["variant=tactical", "rounds=4"]``."""
        return cls(n_players=n_players, **cls.options_from_pairs(pairs))

    @staticmethod
    def options_from_pairs(pairs) -> dict:
        """The option values of ``--rule`` strings (checked by building the rules later)."""
        return opt.parse_pairs(pairs, OPTIONS, "geschenkt")

    def __post_init__(self) -> None:
        _check_range("n_players", self.n_players, MIN_PLAYERS, MAX_PLAYERS, " (2 is a variant)")
        if self.variant not in VARIANTS:
            raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {self.variant!r}")
        if self.tactical_chips not in TACTICAL_CHIP_RULES:
            raise ValueError(
                f"tactical_chips must be one of {', '.join(TACTICAL_CHIP_RULES)}, "
                f"got {self.tactical_chips!r}"
            )
        _check_range("rounds", self.rounds, 1, MAX_ROUNDS)
        _check_range("lowest_card", self.lowest_card, 1, MAX_CARD)
        _check_range("highest_card", self.highest_card, self.lowest_card, MAX_CARD)
        n_range = self.highest_card - self.lowest_card + 1
        cards = f" with cards {self.lowest_card}..{self.highest_card}"
        _check_range("n_removed", self.n_removed, len(self.forced_removed), n_range - 1, cards)
        if self.chips_per_player is not None:
            _check_range("chips_per_player", self.chips_per_player, 0, MAX_CHIPS)
        self._check_first_player()
        if not isinstance(self.chips_visible, bool):
            raise ValueError(f"chips_visible must be True or False, got {self.chips_visible!r}")
        object.__setattr__(self, "chips", self._resolve_chips())

    def _check_first_player(self) -> None:
        if self.first_player == "random":
            return
        if isinstance(self.first_player, str):
            raise ValueError(f"first_player must be 'random' or a seat, got {self.first_player!r}")
        _check_range("first_player", self.first_player, 0, self.n_players - 1, " or 'random'")

    def _resolve_chips(self) -> int:
        if self.chips_per_player is not None:
            return self.chips_per_player
        if self.variant != "tactical":
            return default_chips(self.n_players)
        if self.tactical_chips == "ten":
            return TACTICAL_CHIPS
        return default_chips(self.n_players) - 1  # "10 chips instead of 11"

    @property
    def forced_removed(self) -> tuple[int, ...]:
        """Cards that are always among the removed ones (the tactical variant's 10, 20, 30)."""
        if self.variant != "tactical":
            return ()
        bad = [c for c in TACTICAL_REMOVED if not self.lowest_card <= c <= self.highest_card]
        if bad:
            raise ValueError(f"the tactical variant needs cards {TACTICAL_REMOVED} in the range")
        return TACTICAL_REMOVED

    @property
    def n_cards(self) -> int:
        """Cards that are played (24 by default)."""
        return self.highest_card - self.lowest_card + 1 - self.n_removed

    @property
    def max_decisions(self) -> int:
        """Upper bound on the decisions of a game: each card can collect every chip at most once."""
        return self.n_cards * (self.n_players * self.chips + 1)

    def to_array(self) -> np.ndarray:
        """The rules as the int64 vector that compiled code reads (slots ``R_*``)."""
        vec = np.zeros(RULES_SIZE, np.int64)
        vec[R_N_PLAYERS] = self.n_players
        vec[R_CHIPS] = self.chips
        vec[R_N_REMOVED] = self.n_removed
        vec[R_LOWEST] = self.lowest_card
        vec[R_HIGHEST] = self.highest_card
        vec[R_FIRST_PLAYER] = RANDOM_FIRST if self.first_player == "random" else self.first_player
        vec[R_CHIPS_VISIBLE] = int(self.chips_visible)
        vec[R_FORCED_MASK] = sum(1 << c for c in self.forced_removed)
        vec[R_ROUNDS] = self.rounds
        return vec

    def as_dict(self) -> dict:
        """Plain values for records and manifests (``chips_per_player`` resolved)."""
        return {
            "n_players": self.n_players,
            "chips_per_player": self.chips,
            "n_removed": self.n_removed,
            "lowest_card": self.lowest_card,
            "highest_card": self.highest_card,
            "first_player": self.first_player,
            "chips_visible": self.chips_visible,
            "variant": self.variant,
            "tactical_chips": self.tactical_chips,
            "rounds": self.rounds,
        }

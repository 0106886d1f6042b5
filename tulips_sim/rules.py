"""Rules of Gift of Tulips, as ``docs/rules/gift_of_tulips.md`` states them.

Rules card
----------
* 96 tulip cards in four varieties (purple, blue, pink, orange), values 2..4; 24 of them carry a
  5/6 mark and are used only with 5 or 6 players. Default composition (§10-U1): 8 copies of each
  variety and value, 2 of them 5/6 cards. Shuffle and remove 18/4/6/14/10 cards unseen for
  2/3/4/5/6 players.
* Seed the festival with two cards of different varieties (same-variety cards drawn in between go
  back and the deck is reshuffled); the higher value goes 1st, on equal values the first drawn.
* Each player is dealt two cards, puts one face up in its bouquet and one face down in the secret
  festival. Then turns: draw, resolve one action, draw, resolve a different action. Actions:
  KEEP (own bouquet; keeping points by the variety's current rank), GIVE (another player's
  bouquet; the giver scores the value plus the giving bonus of the rank), ADD (face up to the
  festival, reranking with "most recent wins ties", or face down to the secret festival; one add
  per turn).
* At the end up to 5 random secret cards are turned up one at a time into the festival, then the
  top three varieties pay majorities (card count, then total value; full ties all score).
* Highest score wins; ties go to most bouquet cards, then the victory is shared.

Project defaults where no source decides (§10), each an option of :class:`Rules`
--------------------------------------------------------------------------------
``majority_ties="dense"`` (U4), ``setup_scores=False`` (U2), ``zero_cards_majority=False`` (U5),
``seeding_tie="first_drawn"`` (2023 reprint; ``"random"`` for the 2022 printing), ``first_player``
``"random"`` or a seat (U7); composition (U1) via ``base_copies`` and ``extra_copies`` (copies
per value 2, 3, 4, the same for every variety, or one row per variety); ``setup`` (U3):
``"simultaneous"`` (default) or ``"in_turn"`` (each bouquet card face up as soon as chosen);
``game_end`` (§5.5, U6): ``"equal_turns"`` (default: only whole rounds are played, so everyone
has as many turns; cards left over stay in the deck unseen), ``"full_turns"`` (turns go on while
two cards are left, so turns can be unequal) or ``"deck_out"`` (play until the deck is empty;
a last odd card makes a half turn). ``None`` tables take the rules of record.

Action encoding (flat ids)
--------------------------
====================  =======================  ==========================================
id                    name                     meaning
====================  =======================  ==========================================
0                     ``KEEP``                 drawn card into own bouquet
1                     ``FESTIVAL``             drawn card face up into the festival
2                     ``SECRET``               drawn card face down into the secret festival
3 + s (s < 6)         ``GIVE + s``             drawn card into seat ``s``'s bouquet
9                     ``SETUP_FIRST``          setup: first dealt card to bouquet, second to secret
10                    ``SETUP_SECOND``         setup: second dealt card to bouquet, first to secret
====================  =======================  ==========================================
"""

from dataclasses import dataclass

import numpy as np

from giftsim import rule_options as opt
from giftsim.checks import is_whole

VARIETIES = ("purple", "blue", "pink", "orange")
N_VARIETIES = 4
VALUES = (2, 3, 4)
N_VALUES = 3
MIN_VALUE = 2

MIN_PLAYERS = 2
MAX_PLAYERS = 6

KEEP = 0
FESTIVAL = 1
SECRET = 2
GIVE = 3
SETUP_FIRST = GIVE + MAX_PLAYERS
SETUP_SECOND = SETUP_FIRST + 1
NUM_ACTIONS = SETUP_SECOND + 1
ACTION_NAMES = (
    "keep",
    "festival",
    "secret",
    *(f"give{s}" for s in range(MAX_PLAYERS)),
    "setup_first",
    "setup_second",
)

# Action kinds: one of each per turn ("add" covers both festival forms).
KIND_NONE = -1
KIND_KEEP = 0
KIND_GIVE = 1
KIND_ADD = 2

N_TYPES = N_VARIETIES * N_VALUES  # card types: state.card_type(variety, value)
MAX_DECK = 192  # upper bound on the cards of a deck, for fixed-size state arrays
MAX_DECISIONS = MAX_PLAYERS + MAX_DECK  # a setup choice per seat, then one decision per card

N_RANKS = 4  # rank 4 also stands for "not in the festival"
N_SLOTS = 3  # majorities per variety at most (5-6 players)

BASE_COPIES = (6, 6, 6)  # per variety, values 2, 3, 4, in the 72-card base deck
EXTRA_COPIES = (2, 2, 2)  # per variety, values 2, 3, 4, among the 24 cards marked 5/6
REMOVED_BY_PLAYERS = {2: 18, 3: 4, 4: 6, 5: 14, 6: 10}
GIVING_BONUS = (3, 2, 1, 0)  # by rank 1st..4th (or unranked)
KEEPING_POINTS = (0, 0, 1, 2)
N_REVEALED = 5

# Majority points [rank][slot] by player count (rules file §2.2); rank 4 scores nothing.
MAJORITY_2P = ((15, 0, 0), (10, 0, 0), (5, 0, 0), (0, 0, 0))
MAJORITY_3_4P = ((15, 10, 0), (10, 7, 0), (5, 3, 0), (0, 0, 0))
MAJORITY_5_6P = ((15, 10, 5), (10, 7, 4), (5, 3, 1), (0, 0, 0))
MAJORITY_BY_PLAYERS = {
    2: MAJORITY_2P,
    3: MAJORITY_3_4P,
    4: MAJORITY_3_4P,
    5: MAJORITY_5_6P,
    6: MAJORITY_5_6P,
}
SLOTS_BY_PLAYERS = {2: 1, 3: 2, 4: 2, 5: 3, 6: 3}

MAJORITY_TIES = ("dense", "competition")
SEEDING_TIES = ("first_drawn", "random")
SETUPS = ("simultaneous", "in_turn")
GAME_ENDS = ("equal_turns", "full_turns", "deck_out")
# Points tables hold at most this many points per entry: a score is then at most
# MAX_DECK * (4 + MAX_POINTS) + N_VARIETIES * MAX_POINTS, below 2**31 (results keep int32).
MAX_POINTS = 1_000_000
MAX_VARIETY_CARDS = 60  # cards of one variety at most (bounds the seeding draws)
MAX_SEED_DRAWS = MAX_VARIETY_CARDS + 2

# Rules as an int64 vector for compiled code: slot -> meaning.
R_N_PLAYERS = 0
R_N_REMOVED = 1
R_N_REVEALED = 2
R_SLOTS = 3  # majorities paid per variety
R_DENSE = 4  # 1: dense ranking after a full tie, 0: competition ranking
R_SETUP_SCORES = 5  # 1: the setup bouquet card scores keeping points
R_ZERO_WINS = 6  # 1: a player with no card of a variety can win its majority
R_SEED_RANDOM = 7  # 1: equal seeding values are ordered at random
R_FIRST_PLAYER = 8  # fixed first seat, or -1 for random
R_SETUP_OPEN = 9  # 1: each setup bouquet card goes face up as soon as it is chosen
R_GAME_END = 10  # index in GAME_ENDS
R_COPIES = 11  # copies of each card type (state.card_type) in the deck used
R_GIVE = R_COPIES + N_TYPES  # giving bonus by rank 1..4
R_KEEP = R_GIVE + N_RANKS  # keeping points by rank 1..4
R_MAJORITY = R_KEEP + N_RANKS  # majority points, rank-major: rank * N_SLOTS + slot
RULES_SIZE = R_MAJORITY + N_RANKS * N_SLOTS

RANDOM_FIRST = -1

# ``--rule`` keys (every field but n_players) and what each takes.
OPTIONS = {
    "n_removed": opt.INT_OR_DEFAULT,
    "base_copies": opt.TABLE_OR_DEFAULT,
    "extra_copies": opt.TABLE_OR_DEFAULT,
    "giving_bonus": opt.TABLE_OR_DEFAULT,
    "keeping_points": opt.TABLE_OR_DEFAULT,
    "majority_points": opt.TABLE_OR_DEFAULT,
    "n_revealed": opt.INT,
    "majority_ties": MAJORITY_TIES,
    "setup_scores": opt.BOOL,
    "zero_cards_majority": opt.BOOL,
    "seeding_tie": SEEDING_TIES,
    "first_player": opt.SEAT,
    "setup": SETUPS,
    "game_end": GAME_ENDS,
}
TABLES = ("base_copies", "extra_copies", "giving_bonus", "keeping_points", "majority_points")


def _check_int(name: str, value, low: int, high: int) -> None:
    if not is_whole(value):
        raise ValueError(f"{name} must be an integer in {low}..{high}, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in {low}..{high}, got {value}")


def _check_table(name: str, table, *shapes: tuple[int, ...], high: int | None = None) -> None:
    """A table of whole numbers in ``0..high`` of one of ``shapes`` (rows of equal length)."""
    wanted = " or ".join(str(shape) for shape in shapes)
    try:
        arr = np.asarray(table)
    except (ValueError, TypeError):  # rows of different lengths
        arr = np.zeros(0, np.int64)
    ok = arr.shape in shapes and np.issubdtype(arr.dtype, np.integer) and not (arr < 0).any()
    if not ok:
        raise ValueError(
            f"{name} must be a table of non-negative integers of shape {wanted} (rows of "
            f"equal length), got {_listed(table) if isinstance(table, tuple) else table!r}"
        )
    if high is not None and (arr > high).any():
        raise ValueError(
            f"{name} must hold points in 0..{high:,} (so that no score can overflow), "
            f"got {int(arr.max()):,}"
        )


def _frozen(table):
    """A table as nested tuples (lists from JSON or the command line included)."""
    if isinstance(table, list | tuple | np.ndarray):
        return tuple(_frozen(x) for x in table)
    return int(table) if isinstance(table, np.integer) else table


def _check_choice(name: str, value, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, got {value!r}")


@dataclass(frozen=True)
class Rules:
    """One configuration of Gift of Tulips; ``None`` fields take the tables of record."""

    n_players: int = 4
    base_copies: tuple | None = None
    extra_copies: tuple | None = None
    n_removed: int | None = None
    giving_bonus: tuple | None = None
    keeping_points: tuple | None = None
    majority_points: tuple | None = None
    n_revealed: int = N_REVEALED
    majority_ties: str = "dense"
    setup_scores: bool = False
    zero_cards_majority: bool = False
    seeding_tie: str = "first_drawn"
    first_player: int | str = "random"
    setup: str = "simultaneous"
    game_end: str = "equal_turns"

    @classmethod
    def from_pairs(cls, pairs, n_players: int = 4) -> "Rules":
        """Rules from ``--rule`` strings such as ``["game_end=deck_out", "n_removed=3"]``."""
        return cls(n_players=n_players, **cls.options_from_pairs(pairs))

    @staticmethod
    def options_from_pairs(pairs) -> dict:
        """The option values of ``--rule`` strings (checked by building the rules later)."""
        return opt.parse_pairs(pairs, OPTIONS, "tulips")

    def __post_init__(self) -> None:
        for name in TABLES:
            object.__setattr__(self, name, _frozen(getattr(self, name)))
        _check_int("n_players", self.n_players, MIN_PLAYERS, MAX_PLAYERS)
        for name in ("base_copies", "extra_copies"):
            if getattr(self, name) is not None:
                _check_table(name, getattr(self, name), (N_VALUES,), (N_VARIETIES, N_VALUES))
        for name in ("giving_bonus", "keeping_points"):
            if getattr(self, name) is not None:
                _check_table(name, getattr(self, name), (N_RANKS,), high=MAX_POINTS)
        if self.majority_points is not None:
            shape = (N_RANKS, N_SLOTS)
            _check_table("majority_points", self.majority_points, shape, high=MAX_POINTS)
        _check_int("n_revealed", self.n_revealed, 0, MAX_DECK)
        _check_choice("majority_ties", self.majority_ties, MAJORITY_TIES)
        _check_choice("seeding_tie", self.seeding_tie, SEEDING_TIES)
        _check_choice("setup", self.setup, SETUPS)
        _check_choice("game_end", self.game_end, GAME_ENDS)
        for flag in ("setup_scores", "zero_cards_majority"):
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f"{flag} must be True or False, got {getattr(self, flag)!r}")
        self._check_first_player()
        self._check_deck()

    def _check_first_player(self) -> None:
        if self.first_player == "random":
            return
        if isinstance(self.first_player, str):
            raise ValueError(f"first_player must be 'random' or a seat, got {self.first_player!r}")
        _check_int("first_player", self.first_player, 0, self.n_players - 1)

    def _check_deck(self) -> None:
        counts = self.copies_by_type
        if sum(counts) == 0:
            raise ValueError("base_copies (and extra_copies from 5 players) must hold cards")
        if self.deck_size > MAX_DECK:
            raise ValueError(f"the deck may hold at most {MAX_DECK} cards, got {self.deck_size}")
        largest = max(self.variety_sizes)
        if largest > MAX_VARIETY_CARDS:
            raise ValueError(f"a variety may hold at most {MAX_VARIETY_CARDS} cards, got {largest}")
        deck = self.deck_size
        _check_int("n_removed", self.removed, 0, max(deck - 2 - 2 * self.n_players, 0))
        if deck - self.removed <= largest:
            raise ValueError(
                "after the removal the deck must hold two varieties to seed the "
                f"festival: remove fewer than {deck - largest} cards"
            )
        if deck - self.removed - 2 - 2 * self.n_players < 0:
            raise ValueError(f"a deck of {deck} cards is too small for {self.n_players} players")

    @property
    def copies_by_type(self) -> tuple[int, ...]:
        """Copies of each card type ``variety * 3 + value - 2`` in the deck used at this
        player count (the 5/6 cards join from 5 players)."""
        base = _by_type(BASE_COPIES if self.base_copies is None else self.base_copies)
        if self.n_players < 5:
            return base
        extra = _by_type(EXTRA_COPIES if self.extra_copies is None else self.extra_copies)
        return tuple(b + e for b, e in zip(base, extra, strict=True))

    @property
    def variety_sizes(self) -> tuple[int, ...]:
        """Cards of each variety in the deck used."""
        counts = self.copies_by_type
        return tuple(sum(counts[v * N_VALUES : (v + 1) * N_VALUES]) for v in range(N_VARIETIES))

    @property
    def deck_size(self) -> int:
        """Cards in the box used at this player count (72 below 5 players, 96 from 5)."""
        return sum(self.copies_by_type)

    @property
    def removed(self) -> int:
        """Cards removed face down (table by player count unless ``n_removed`` is given)."""
        if self.n_removed is None:
            return REMOVED_BY_PLAYERS[self.n_players]
        return self.n_removed

    @property
    def giving(self) -> tuple[int, ...]:
        """Giving bonus by rank 1..4 in force."""
        return GIVING_BONUS if self.giving_bonus is None else self.giving_bonus

    @property
    def keeping(self) -> tuple[int, ...]:
        """Keeping points by rank 1..4 in force."""
        return KEEPING_POINTS if self.keeping_points is None else self.keeping_points

    @property
    def majority(self) -> tuple:
        """Majority points [rank 1..4][slot 1..3] in force."""
        if self.majority_points is None:
            return MAJORITY_BY_PLAYERS[self.n_players]
        return self.majority_points

    @property
    def slots(self) -> int:
        """Majorities paid per variety: 1 (2 players), 2 (3-4), 3 (5-6)."""
        return SLOTS_BY_PLAYERS[self.n_players]

    @property
    def turn_cards(self) -> int:
        """Cards left for the turns after removal, seeding and the deal."""
        return self.deck_size - self.removed - 2 - 2 * self.n_players

    @property
    def unused(self) -> int:
        """Cards of the draw pile never drawn under ``game_end`` (0 with the tables of record)."""
        return unused_cards(self.turn_cards, self.n_players, GAME_ENDS.index(self.game_end))

    @property
    def max_turns(self) -> int:
        """Turns in a game (each uses two cards; under ``deck_out`` a last odd card makes a
        half turn)."""
        return (self.turn_cards - self.unused + 1) // 2

    @property
    def equal_turns(self) -> bool:
        """Whether every player gets the same number of whole turns."""
        played = self.turn_cards - self.unused
        return played % (2 * self.n_players) == 0

    def to_array(self) -> np.ndarray:
        """The rules as the int64 vector that compiled code reads (slots ``R_*``)."""
        vec = np.zeros(RULES_SIZE, np.int64)
        vec[R_N_PLAYERS] = self.n_players
        vec[R_N_REMOVED] = self.removed
        vec[R_N_REVEALED] = self.n_revealed
        vec[R_SLOTS] = self.slots
        vec[R_DENSE] = self.majority_ties == "dense"
        vec[R_SETUP_SCORES] = self.setup_scores
        vec[R_ZERO_WINS] = self.zero_cards_majority
        vec[R_SEED_RANDOM] = self.seeding_tie == "random"
        vec[R_FIRST_PLAYER] = RANDOM_FIRST if self.first_player == "random" else self.first_player
        vec[R_SETUP_OPEN] = self.setup == "in_turn"
        vec[R_GAME_END] = GAME_ENDS.index(self.game_end)
        vec[R_COPIES : R_COPIES + N_TYPES] = self.copies_by_type
        vec[R_GIVE : R_GIVE + N_RANKS] = self.giving
        vec[R_KEEP : R_KEEP + N_RANKS] = self.keeping
        vec[R_MAJORITY : R_MAJORITY + N_RANKS * N_SLOTS] = np.asarray(self.majority).ravel()
        return vec

    def as_dict(self) -> dict:
        """Plain values for records and manifests (tables resolved for the player count)."""
        return {
            "n_players": self.n_players,
            "n_removed": self.removed,
            "base_copies": _listed(BASE_COPIES if self.base_copies is None else self.base_copies),
            "extra_copies": _listed(
                EXTRA_COPIES if self.extra_copies is None else self.extra_copies
            ),
            "giving_bonus": list(self.giving),
            "keeping_points": list(self.keeping),
            "majority_points": [list(row) for row in self.majority],
            "n_revealed": self.n_revealed,
            "majority_ties": self.majority_ties,
            "setup_scores": self.setup_scores,
            "zero_cards_majority": self.zero_cards_majority,
            "seeding_tie": self.seeding_tie,
            "first_player": self.first_player,
            "setup": self.setup,
            "game_end": self.game_end,
        }


def _by_type(copies) -> tuple[int, ...]:
    """Copies per card type from a row per value (every variety alike) or a row per variety."""
    rows = copies if isinstance(copies[0], tuple) else (copies,) * N_VARIETIES
    return tuple(int(n) for row in rows for n in row)


def _listed(table) -> list:
    return [_listed(x) for x in table] if isinstance(table, tuple) else table


def unused_cards(turn_cards: int, n_players: int, game_end: int) -> int:
    """Cards of the draw pile left undrawn: the rest of a round that cannot be completed
    (``equal_turns``), a last odd card (``full_turns``) or none (``deck_out``)."""
    if game_end == 0:
        return turn_cards % (2 * n_players)
    if game_end == 1:
        return turn_cards % 2
    return 0

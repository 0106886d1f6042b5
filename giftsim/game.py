"""A game as one record of sizes and verbs, and the one list of games.

Each game package exports ``GAME``, a :class:`Game`: its rules class, the sizes of its state and
observation arrays, its actions and player counts, the blocks of a result row, and its verbs,
as Pgx gives every game ``init``/``step``/``observe``/``legal_action_mask``/``rewards``:

=================================  =============================================================
verb                               meaning
=================================  =============================================================
``deal_keyed(rules_vec, key,       deal the game with key ``key`` (``giftsim.rng.game_key``) into
first, state)``                    ``state``; all chance is dealt here
``begin(state)``                   open the game after the deal
``is_over(state)``                 True once the game has ended
``legal_mask(state)``              int64 bit mask of the legal action ids (0 once over)
``apply_action(state, a)``         apply a legal action of the seat to act, in place
``observe(state, seat, obs)``      write what ``seat`` may know into ``obs`` (``obs_size``)
``show_turn(state)``               True when the state's first ``obs_size`` slots are (made) the
                                   observation of the seat to act: the fast loops then show a
                                   built-in that prefix, read-only, without a copy
``encode(obs, out)``               the float32 tensor of an observation for learning agents
                                   (``tensor_size(rules)`` long, layout in ``<game>/tensor.py``;
                                   ``tensor_bounds(rules)`` gives each entry's range)
``scores(state, out)``             final score of every seat into ``out[:n]``
``score_range(rules)``             Python, optional: the lowest and highest score one seat can
                                   have in one game under ``rules`` (the range of a mean
                                   score's interval); None: unbounded
``winner_mask(state)``             bit mask of the seats that win a finished game
``rewards(state, out)``            each seat's share of the win into ``out[:n]``: ties split,
                                   the shares sum to 1
``result_row(state, n, R, r,       add round ``r`` of a match of ``R`` (a finished game; ``R`` is 1
out, g)``                          for a single game) to result row ``g``: the ``blocks`` per
                                   seat, then first seat, decisions, winners' mask (``TAIL``),
                                   then with ``R > 1`` each round's scores
``finish_key(blocks)``             NumPy: each row's place in the finishing order from its
                                   blocks (one seat a row), higher better; ties as in
                                   ``winner_mask``
``make_record``, ``replay``        JSON game records (Python); a game with matches also
                                   ``make_match_record`` (one record of every round)
``event(state, action, out)``      optional: before ``action`` is applied, write what it does
                                   worth a record (``event_width`` numbers, named by
                                   ``event_columns``) into ``out`` and return True, else False
                                   (the event recorder of ``experiments.anatomy``)
``deal_open(rules_vec, key,        explicit chance: deal as ``deal_keyed`` does (the same stack
first, state)``                    for the same key) but stop at every chance event, each
                                   card turned up, drawn or dealt, removed unseen where it
                                   matters, a drawn first seat; ``begin`` follows as usual
``chance_pending(state)``          the kind of the chance event to resolve before anyone acts
                                   (``chance_kinds[kind - 1]`` names it), else 0; while one is
                                   pending, ``legal_mask`` is not defined
``chance_outcomes(state,           write the weight of each outcome id of the pending event
weights)``                         into ``weights`` (int64, ``max_chance_outcomes`` long;
                                   probability in proportion, 0: not an outcome); return the
                                   number of outcome ids written. Outcomes are conditional on
                                   all earlier outcomes: a card anyone saw is not one again
``next_outcome(state)``            the outcome the dealt game holds for the pending event:
                                   resolving every event with it plays ``deal_keyed``'s game
``apply_chance(state, outcome)``   resolve the pending event with an outcome of positive
                                   weight (the stack stays consistent: the card is swapped in
                                   from wherever it lies) and go on to the next decision or
                                   chance event
``chance_observers(state)``        bit mask of the seats that see the pending event's outcome
                                   (0: nobody, such as a card removed unseen)
``public_action(state, a)``        what the other seats see of the decision ``a`` of the seat
                                   to act: a code below ``public_actions``
``chance_text``, ``public_text``,  Python: an outcome (``kind, outcome``) and a public code as
``chance_events(rules)``           text; a bound on the chance events of a game
=================================  =============================================================

Slot 0 of every state and of every rules vector holds the number of seats (:data:`N_PLAYERS`);
a game with matches of several rounds names the rules vector's slot of their number
(``rounds_slot``, else -1).

The fast loops never call the chance verbs: a state dealt by ``deal_keyed`` never has a chance
event pending (its stack holds every card face up to the engine), and the engine's reveals cost
one predictable branch for the explicit mode.

The compiled verbs are Numba functions over int64 arrays; the fast game loops of ``agents/``
call them, and so do the slow path, the records and every adapter: no rule is written twice.

:data:`GAMES` is the one list of games: a name and the package that exports its ``GAME``. It
feeds the agent registry, the experiments, the terminal game and the Numba cache key (without
importing any game, so that ``giftsim --help`` compiles nothing). A new game costs one line
here, or one :func:`register_game` call, plus its own folders.
"""

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from giftsim.checks import is_whole
from giftsim.records import seats_of

# Signatures of the verbs (the compiled ones are Numba dispatchers over int64 arrays: ``Vec`` is
# a 1-d int64 array, a state, an observation or a rules vector; ``Mask`` a bit mask of actions).
Vec = np.ndarray
Mask = int
DealVerb = Callable[[Vec, int, int, Vec], None]  # (rules_vec, key, first, state)
StateVerb = Callable[[Vec], None]  # changes the state in place
Test = Callable[[Vec], bool]
MaskVerb = Callable[[Vec], Mask]
ActionVerb = Callable[[Vec, int], None]  # (state, action)
ObserveVerb = Callable[[Vec, int, Vec], None]  # (state, seat, obs)
EncodeVerb = Callable[[Vec, np.ndarray], None]  # (obs, float32 out)
OfRules = Callable[[object], object]  # (rules) -> a size or the bounds array
OutVerb = Callable[[Vec, Vec], None]  # (state, out)
RowVerb = Callable[[Vec, int, int, int, np.ndarray, int], None]  # (state, n, R, r, out, g)
FinishKey = Callable[[np.ndarray], np.ndarray]  # (blocks) -> places
MakeRecord = Callable[..., dict]  # (rules, start, actions, meta) -> record
Replay = Callable[[dict], Iterable[str]]  # record -> lines of its replay
ChanceOutcomes = Callable[[Vec, Vec], int]  # (state, weights) -> outcome ids written
OutcomeOf = Callable[[Vec], int]
PublicAction = Callable[[Vec, int], int]  # (state, action) -> public code
Text = Callable[..., str]
EventVerb = Callable[[Vec, int, Vec], bool]  # (state, action, out) -> an event?
ScoreRange = Callable[[object], tuple[int, int]]  # (rules) -> (lowest, highest) score

GAMES: dict[str, str] = {"geschenkt": "geschenkt_sim", "tulips": "tulips_sim"}
TAIL = ("first_player", "n_decisions", "winners")  # the columns after the per-seat blocks
N_PLAYERS = 0  # the slot of the number of seats in every state and rules vector


@dataclass(frozen=True)
class Game:
    """One game's contract (see the module docstring for the verbs)."""

    name: str
    title: str
    rules: type
    state_size: int
    obs_size: int
    num_actions: int
    action_names: tuple[str, ...]
    players: tuple[int, ...]  # every player count the engine accepts
    official: tuple[int, ...]  # the counts of the rulebooks (default of seat studies)
    max_players: int
    max_decisions: int  # bound on the decisions of one game under the rules of record
    blocks: tuple[str, ...]  # per-seat blocks of a result row, the score first
    lower_wins: bool  # True where the lowest score wins
    turn_slot: int  # state slot of the seat to act
    decisions_slot: int  # state slot of the decisions made so far (public)
    agents: str  # module of the game's agents: built-in families and the fast loop
    deal_keyed: DealVerb
    begin: StateVerb
    is_over: Test
    legal_mask: MaskVerb
    apply_action: ActionVerb
    observe: ObserveVerb
    show_turn: Test
    encode: EncodeVerb
    tensor_size: OfRules
    tensor_bounds: OfRules
    scores: OutVerb
    winner_mask: MaskVerb
    rewards: OutVerb
    result_row: RowVerb
    finish_key: FinishKey
    make_record: MakeRecord
    replay: Replay
    # explicit chance (see the verb table)
    max_chance_outcomes: int  # outcome ids of any chance event (for fixed-size buffers)
    chance_kinds: tuple[str, ...]  # name of each chance event kind k at k - 1
    public_actions: int  # codes of public_action
    deal_open: DealVerb
    chance_pending: OutcomeOf
    chance_outcomes: ChanceOutcomes
    next_outcome: OutcomeOf
    apply_chance: ActionVerb
    chance_observers: MaskVerb
    public_action: PublicAction
    chance_text: Text
    public_text: Text
    chance_events: OfRules
    rounds_slot: int = -1  # the rules vector's slot of a match's rounds (-1: single games)
    make_match_record: MakeRecord | None = None  # (rules, [(start, actions)], meta) -> record
    event: EventVerb | None = None  # compiled event verb (see the verb table), or None
    event_columns: tuple[str, ...] = ()
    score_parts: tuple[str, ...] = ()  # per-seat blocks whose sum is the score, if any
    score_range: ScoreRange | None = None  # (rules) -> a seat's lowest and highest score

    def check_players(self, n, what: str = "n_players") -> int:
        """``n`` as an int if the engine takes that many players, else a one-line ValueError
        naming the valid counts (``what``: the name the caller knows it by)."""
        if not is_whole(n) or n not in self.players:
            low, high = self.players[0], self.players[-1]
            raise ValueError(f"{what} must be in {low}..{high} for {self.title}, got {n!r}")
        return int(n)

    @property
    def event_width(self) -> int:
        """Numbers the event verb writes per event."""
        return len(self.event_columns)

    def row_width(self, rules) -> int:
        """Columns of a result row: the blocks per seat, first seat, decisions, winners, and in
        a match of several rounds (``rules.rounds``, No Thanks!) each round's scores."""
        n, rounds = rules.n_players, rounds_of(rules)
        return len(self.blocks) * n + len(TAIL) + (rounds * n if rounds > 1 else 0)

    def match_score_range(self, rules) -> tuple[int, int] | None:
        """A seat's lowest and highest score of a whole match under ``rules`` (of a single
        game where the rules have one round): ``score_range`` times the rounds; None without
        a ``score_range``."""
        if self.score_range is None:
            return None
        low, high = self.score_range(rules)
        return rounds_of(rules) * low, rounds_of(rules) * high

    def legal_actions(self, state: np.ndarray) -> list[int]:
        """The legal action ids, ascending (from :attr:`legal_mask`)."""
        mask = int(self.legal_mask(state))
        return [a for a in range(self.num_actions) if (mask >> a) & 1]

    def winners(self, state: np.ndarray) -> list[int]:
        """Seats that win a finished game (from :attr:`winner_mask`)."""
        return seats_of(self.winner_mask(state))


def rounds_of(rules) -> int:
    """Rounds of a match under ``rules`` (1: single games; only No Thanks! has matches)."""
    return getattr(rules, "rounds", 1)


def register_game(name: str, package: str) -> None:
    """Add a game at run time: ``package`` exports its ``GAME`` record. The Numba cache key is
    taken from :data:`GAMES` when giftsim is imported, before any such call, so a game added
    here should not cache its kernels (``tests/toy_game`` uses plain ``@njit``); a game of the
    project is a line of :data:`GAMES` instead."""
    if not name.isidentifier():
        raise ValueError(f"game names are identifiers, got {name!r}")
    GAMES[name] = package


def load_game(name: str) -> Game:
    """The ``GAME`` record of a game of :data:`GAMES`, or a ValueError listing the games."""
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r} (valid: {', '.join(GAMES)})")
    return importlib.import_module(GAMES[name]).GAME


def packages() -> tuple[str, ...]:
    """The top-level packages that hold the games' compiled code (for the cache key)."""
    return tuple(dict.fromkeys(package.split(".")[0] for package in GAMES.values()))

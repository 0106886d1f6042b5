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
=================================  =============================================================

Slot 0 of every state and of every rules vector holds the number of seats (:data:`N_PLAYERS`);
a game with matches of several rounds names the rules vector's slot of their number
(``rounds_slot``, else -1).

The compiled verbs are Numba functions over int64 arrays; the fast game loops of ``agents/``
call them, and so do the slow path, the records and every adapter: no rule is written twice.

:data:`GAMES` is the one list of games: a name and the package that exports its ``GAME``. It
feeds the agent registry, the experiments, the terminal game and the Numba cache key (without
importing any game, so that ``giftsim --help`` compiles nothing). A new game costs one line
here, or one :func:`register_game` call, plus its own folders.
"""

import importlib
from dataclasses import dataclass

import numpy as np

from giftsim.records import seats_of

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
    deal_keyed: object
    begin: object
    is_over: object
    legal_mask: object
    apply_action: object
    observe: object
    show_turn: object
    encode: object
    tensor_size: object
    tensor_bounds: object
    scores: object
    winner_mask: object
    rewards: object
    result_row: object
    finish_key: object
    make_record: object
    replay: object
    rounds_slot: int = -1  # the rules vector's slot of a match's rounds (-1: single games)
    make_match_record: object = None  # (rules, [(start, actions) per round], meta) -> record
    event: object = None  # compiled event verb (see the verb table), or None
    event_columns: tuple[str, ...] = ()
    score_parts: tuple[str, ...] = ()  # per-seat blocks whose sum is the score, if any

    @property
    def event_width(self) -> int:
        """Numbers the event verb writes per event."""
        return len(self.event_columns)

    def row_width(self, rules) -> int:
        """Columns of a result row: the blocks per seat, first seat, decisions, winners, and in
        a match of several rounds (``rules.rounds``, No Thanks!) each round's scores."""
        n, rounds = rules.n_players, rounds_of(rules)
        return len(self.blocks) * n + len(TAIL) + (rounds * n if rounds > 1 else 0)

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

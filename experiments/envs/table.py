"""One game at a time, stepped from Python: what the PettingZoo and Gymnasium adapters share.

A :class:`Table` holds the rules, the state of the game being played and the giftsim agents
that fill some seats (the *bots*). Everything goes through the game's verbs and the slow path's
pieces (``agents/drivers/slow.py``): the deal of game ``i`` of seed ``S`` is ``slow.deal``, so
that episode ``i`` is the game ``play_slow(game, rules, seats, S, i, first_player)`` plays;
a bot decides with ``slow.ask``, on a fresh copy of its own observation and with its own random
stream, and a seat with one legal action is not asked (as in the fast loops). What a seat sees
is ``observe`` + ``encode``; what is legal is ``legal_mask``; who wins is ``rewards``. No rule
is written here. This module imports no optional package.

Bad input to any environment (an argument, a rules object, an action that is not an integer,
a call out of order) raises :class:`EnvError`, a ValueError whose one-line message names the
problem and the valid choices.
"""

import math
from contextlib import contextmanager

import numpy as np

from agents.base import Agent
from agents.drivers.block import chose_illegal
from agents.drivers.slow import ask, deal, seat_streams
from agents.kernels.lanes import MAX_SKIPPED
from agents.registry import parse
from experiments.play.screen import Seats
from experiments.play.session import screens
from giftsim.checks import is_whole
from giftsim.contract import first_player_for, first_policy
from giftsim.game import load_game, rounds_of
from giftsim.rng import check_secret, check_seed
from giftsim.rule_options import changed_pairs


class EnvError(ValueError):
    """Bad input to an environment: a wrong argument, rules of another game, an action that is
    not an integer (or, where the environment raises rather than ends the episode, not legal),
    a step before ``reset``. The message is one line naming the problem and the valid
    choices."""


@contextmanager
def bad_input():
    """Raise the ValueError of the checks inside (a rules class's, an agent spec's, a seed's)
    as an :class:`EnvError` with the same message."""
    try:
        yield
    except EnvError:
        raise
    except ValueError as error:
        raise EnvError(str(error)) from None


def load(game: str):
    """The ``Game`` record of ``game``, or an :class:`EnvError` listing the games."""
    with bad_input():
        return load_game(game)


def check_seeds(seed=0, secret=0) -> None:
    """An :class:`EnvError` unless ``seed`` and ``secret`` are 64-bit words."""
    with bad_input():
        check_seed(seed)
        check_secret(secret)


def check_margin(margin) -> float:
    """``margin`` (the reward's weight on the score lead) as a float, or an :class:`EnvError`
    unless it is a finite number (a NaN would make every reward NaN)."""
    try:
        value = float(margin)
    except (TypeError, ValueError):
        value = math.nan
    if not math.isfinite(value):
        raise EnvError(f"margin must be a finite number (0: win shares only), got {margin!r}")
    return value


def action_id(action, num_actions: int):
    """``action`` as a Python int (an int, a NumPy integer or a 0-d integer array), or None
    when it is an integer that is no action id (an illegal action); an :class:`EnvError` when
    it is not an integer at all."""
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action[()]
    if not is_whole(action):
        raise EnvError(f"an action is an integer action id in 0..{num_actions - 1}, got {action!r}")
    return int(action) if 0 <= action < num_actions else None


def no_decision(rules) -> EnvError:
    """The error of an environment whose learner had no choice in ``MAX_SKIPPED`` games in a
    row: under such rules it may never have one, and dealing on would never return."""
    return EnvError(
        f"the learner had no decision in {MAX_SKIPPED:,} games in a row under these rules "
        f"({rules_text(rules)}): give rules, seats or a first player that leave it a choice"
    )


def rules_text(rules) -> str:
    """The player count and the rule options that differ from the rules of record for it."""
    return ", ".join([f"{rules.n_players} players", *changed_pairs(rules)])


def seat_name(seat: int) -> str:
    """The agent name of a seat, as PettingZoo's games name theirs: ``player_0``, ..."""
    return f"player_{seat}"


def make_rules(game, players=None, rules=None, rule=()):
    """The rules of an environment: a rules object of ``game``, or ``key=value`` pairs
    (``--rule``; one string or a list) and a player count (default: the rules class's). One
    game per episode: ``rounds`` must be 1. An :class:`EnvError` names what is wrong."""
    if rules is None:
        with bad_input():
            rules = _rules_from(game, players, [rule] if isinstance(rule, str) else list(rule))
    elif not isinstance(rules, game.rules):
        kind = f"{type(rules).__module__}.{type(rules).__qualname__}"
        raise EnvError(
            f"rules must be {game.title} rules ({game.rules.__module__}.Rules), got {kind}"
        )
    elif rule or (players is not None and players != rules.n_players):
        raise EnvError(
            f"give either rules= or players=/rule=, not both (the rules are for "
            f"{rules.n_players} players)"
        )
    if rounds_of(rules) != 1:
        raise EnvError(f"an environment plays single games: rounds must be 1, got {rules.rounds}")
    return rules


def _rules_from(game, players, pairs: list):
    """``game``'s rules for ``players`` (default: its rules class's count) under ``pairs``."""
    if not pairs:
        return game.rules() if players is None else game.rules(n_players=players)
    if not hasattr(game.rules, "from_pairs"):
        raise ValueError(f"{game.name} takes no rule=key=value pairs; pass rules=")
    return game.rules.from_pairs(pairs, game.rules().n_players if players is None else players)


class Table:
    """A game of ``game`` under ``rules`` with giftsim agents at the seats of ``bots``
    (``{seat: spec or Agent}``); the other seats are the learner's. With ``record=True`` it
    keeps the start state and the actions of the game being played (:meth:`record`)."""

    def __init__(self, game: str, rules, bots=None, first_player=None, secret=0, record=False):
        self.game = load(game)
        self.rules, self.n = rules, rules.n_players
        with bad_input():
            first_player = first_player_for(first_player, rules, "random")
            first_policy(first_player, self.n)  # a bad value fails here, with the valid choices
            check_secret(secret)
            self.bots = {s: _agent(a, game) for s, a in (bots or {}).items()}
        self.first_player, self.secret, self.keeps = first_player, int(secret), bool(record)
        bad = [s for s in self.bots if not (isinstance(s, int) and 0 <= s < self.n)]
        if bad:
            raise EnvError(f"bot seats must be in 0..{self.n - 1}, got {bad}")
        self.learners = [s for s in range(self.n) if s not in self.bots]
        if not self.learners:
            raise EnvError("every seat has a bot: leave at least one seat to the learner")
        self.seats = [self.bots.get(s) for s in range(self.n)]
        self.size = self.game.tensor_size(rules)
        self.low, self.high = self.game.tensor_bounds(rules)
        self._obs = np.zeros(self.game.obs_size, np.int64)
        self._out = np.zeros(self.n, np.float64)
        self._scores = np.zeros(self.n, np.int64)
        self.state, self.start_state, self.actions = None, None, []

    def start(self, root_seed: int, index: int) -> int:
        """Deal game ``index`` of ``root_seed`` and let the bots play up to a learner's turn.
        A game that ends before any learner acts is skipped for the next index (only possible
        with bots); return the index dealt. After ``MAX_SKIPPED`` skipped in a row, an
        :class:`EnvError`: the rules leave the learner no turn."""
        for _ in range(MAX_SKIPPED):
            self.state, key = deal(self.game, self.rules, root_seed, index, self.first_player)
            if self.keeps:
                self.start_state, self.actions = self.state.copy(), []
            self.rngs = seat_streams(key, self.n, self.secret)
            self.play_bots()
            if not self.over():
                return index
            index += 1
        raise no_decision(self.rules)

    def over(self) -> bool:
        return bool(self.game.is_over(self.state))

    def to_act(self) -> int:
        """The seat to act (meaningless once the game is over)."""
        return int(self.state[self.game.turn_slot])

    def mask(self, dtype=np.int8) -> np.ndarray:
        """The legal actions of the seat to act as a 0/1 array (all 0 once over)."""
        bits = int(self.game.legal_mask(self.state))
        return np.array([(bits >> a) & 1 for a in range(self.game.num_actions)], dtype)

    def tensor(self, seat: int) -> np.ndarray:
        """The float32 observation tensor of ``seat`` (``observe`` + ``encode``), a new array."""
        out = np.empty(self.size, np.float32)
        self.game.observe(self.state, seat, self._obs)
        self.game.encode(self._obs, out)
        return out

    def observation(self, seat: int) -> np.ndarray:
        """The raw observation of ``seat`` (what the terminal screens read), a new array."""
        obs = np.zeros(self.game.obs_size, np.int64)
        self.game.observe(self.state, seat, obs)
        return obs

    def is_legal(self, action) -> bool:
        """True for a legal action id of the seat to act; False for an integer that is not one;
        an :class:`EnvError` for anything but an integer (:func:`action_id`)."""
        action = action_id(action, self.game.num_actions)
        return action is not None and bool((int(self.game.legal_mask(self.state)) >> action) & 1)

    def play(self, action) -> None:
        """Apply the learner's ``action`` (an :class:`EnvError` naming the legal ones if it is
        not one of them), then the bots' moves up to the next learner turn or the end."""
        if not self.is_legal(action):
            legal = self.game.legal_actions(self.state)
            raise EnvError(f"illegal action {action!r} for seat {self.to_act()} (legal: {legal})")
        self.advance(action)

    def advance(self, action) -> None:
        """:meth:`play` for an action already found legal (:meth:`is_legal`)."""
        self._apply(int(action))
        self.play_bots()

    def play_bots(self) -> None:
        """The bots' moves up to the next learner turn or the end; a bot's illegal action is
        its :class:`IllegalActionError` (the agent's error, not the caller's), never applied."""
        game, state = self.game, self.state
        while not game.is_over(state) and self.seats[int(state[game.turn_slot])] is not None:
            legal = game.legal_actions(state)
            action = legal[0] if len(legal) == 1 else ask(game, self.seats, state, self.rngs, legal)
            if action not in legal:
                seat = self.to_act()
                raise chose_illegal(seat, self.spec(seat), action, legal)
            self._apply(action)

    def _apply(self, action: int) -> None:
        self.game.apply_action(self.state, action)
        if self.keeps:
            self.actions.append(action)

    def record(self, root_seed: int, game_index: int) -> dict:
        """The JSON game record (``Game.make_record``, what ``giftsim replay`` checks) of the
        finished game ``game_index`` of ``root_seed``, with its agents (and the secret of
        their streams, when there is one)."""
        meta = {"agents": self.agents(), "seed": root_seed, "game_index": game_index}
        if self.secret:
            meta["secret"] = self.secret
        return self.game.make_record(self.rules, self.start_state, self.actions, meta)

    def agents(self) -> list[str]:
        """Every seat's spec, ``"learner"`` for a learner seat (a record's ``agents``)."""
        return [self.spec(s) for s in range(self.n)]

    def rewards(self) -> np.ndarray:
        """Each seat's share of the win (``Game.rewards``) of the finished game."""
        self.game.rewards(self.state, self._out)
        return self._out[: self.n].copy()

    def scores(self) -> np.ndarray:
        self.game.scores(self.state, self._scores)
        return self._scores[: self.n].copy()

    def lead(self, seat: int) -> float:
        """How far ``seat``'s score is ahead of the best other seat's (positive: ahead, in the
        direction that wins: lower scores win No Thanks!)."""
        scores = self.scores()
        others = np.delete(scores, seat)
        best = others.min() if self.game.lower_wins else others.max()
        lead = best - scores[seat]
        return float(lead if self.game.lower_wins else -lead)

    def spec(self, seat: int) -> str:
        bot = self.seats[seat]
        return bot.spec if bot is not None else "learner"


def _agent(agent, game: str) -> Agent:
    if isinstance(agent, Agent):
        return agent
    if not isinstance(agent, str):
        raise EnvError(f"an opponent is an agent spec (a string) or an Agent, got {agent!r}")
    return parse(agent, game)


def render_text(table: Table) -> str:
    """The public state as text, from the view of the seat to act (seat 0's once the game is
    over, with the scores and winners): the terminal game's screens where the game has them
    (``experiments/play/<game>.py``), else the raw observation."""
    if table.state is None:
        raise EnvError("no game has begun: call reset() before render()")
    over = table.over()
    seat = table.learners[0] if over else table.to_act()
    obs = table.observation(seat)
    lines = [f"{table.game.title}: " + ("game over" if over else f"seat {seat} to act")]
    try:
        text = screens(table.game.name)
    except ValueError:
        lines.append(f"observation of seat {seat}: {obs.tolist()}")
    else:
        specs = tuple(table.spec(s) for s in range(table.n))
        lines += text.view(obs, Seats(specs, seat))
    if over:
        winners = ", ".join(str(s) for s in table.game.winners(table.state))
        lines.append(f"scores {table.scores().tolist()}; winners: seat {winners}")
    return "\n".join(lines)

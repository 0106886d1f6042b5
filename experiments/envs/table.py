"""One game at a time, stepped from Python: what the PettingZoo and Gymnasium adapters share.

A :class:`Table` holds the rules, the state of the game being played and the giftsim agents
that fill some seats (the *bots*). Everything goes through the game's verbs and the slow path's
pieces (``agents/drivers/slow.py``): the deal of game ``i`` of seed ``S`` is ``slow.deal``, so
that episode ``i`` is the game ``play_slow(game, rules, seats, S, i, first_player)`` plays;
a bot decides with ``slow.ask``, on a fresh copy of its own observation and with its own random
stream, and a seat with one legal action is not asked (as in the fast loops). What a seat sees
is ``observe`` + ``encode``; what is legal is ``legal_mask``; who wins is ``rewards``. No rule
is written here. This module imports no optional package.
"""

import numpy as np

from agents.base import Agent
from agents.drivers.slow import ask, deal, seat_streams
from agents.registry import parse
from experiments.play.screen import Seats
from experiments.play.session import screens
from giftsim.contract import first_policy
from giftsim.game import load_game, rounds_of


def seat_name(seat: int) -> str:
    """The agent name of a seat, as PettingZoo's games name theirs: ``player_0``, ..."""
    return f"player_{seat}"


def make_rules(game, players=None, rules=None, rule=()):
    """The rules of an environment: a rules object, or ``key=value`` pairs (``--rule``) and a
    player count (default: the rules class's). One game per episode: ``rounds`` must be 1."""
    if rules is not None and (rule or (players is not None and players != rules.n_players)):
        raise ValueError("give either rules= or players=/rule=, not both")
    if rules is None and rule:
        if not hasattr(game.rules, "from_pairs"):
            raise ValueError(f"{game.name} takes no rule=key=value pairs; pass rules=")
        rules = game.rules.from_pairs(list(rule), players or game.rules().n_players)
    if rules is None:
        rules = game.rules() if players is None else game.rules(n_players=players)
    if not isinstance(rules, game.rules):
        raise ValueError(f"rules must be a {game.rules.__module__}.Rules, got {rules!r}")
    if rounds_of(rules) != 1:
        raise ValueError(f"an environment plays single games: rounds must be 1, got {rules.rounds}")
    return rules


class Table:
    """A game of ``game`` under ``rules`` with giftsim agents at the seats of ``bots``
    (``{seat: spec or Agent}``); the other seats are the learner's."""

    def __init__(self, game: str, rules, bots=None, first_player="random", secret=0):
        self.game = load_game(game)
        self.rules, self.n = rules, rules.n_players
        first_policy(first_player, self.n)  # a bad value fails here, with the valid choices
        self.first_player, self.secret = first_player, secret
        self.bots = {s: _agent(a, game) for s, a in (bots or {}).items()}
        bad = [s for s in self.bots if not (isinstance(s, int) and 0 <= s < self.n)]
        if bad:
            raise ValueError(f"bot seats must be in 0..{self.n - 1}, got {bad}")
        self.learners = [s for s in range(self.n) if s not in self.bots]
        if not self.learners:
            raise ValueError("every seat has a bot: leave at least one seat to the learner")
        self.seats = [self.bots.get(s) for s in range(self.n)]
        self.size = self.game.tensor_size(rules)
        self.low, self.high = self.game.tensor_bounds(rules)
        self._obs = np.zeros(self.game.obs_size, np.int64)
        self._out = np.zeros(self.n, np.float64)
        self._scores = np.zeros(self.n, np.int64)
        self.state = None

    def start(self, root_seed: int, index: int) -> int:
        """Deal game ``index`` of ``root_seed`` and let the bots play up to a learner's turn.
        A game that ends before any learner acts is skipped for the next index (only possible
        with bots); return the index dealt."""
        while True:
            self.state, key = deal(self.game, self.rules, root_seed, index, self.first_player)
            self.rngs = seat_streams(key, self.n, self.secret)
            self.play_bots()
            if not self.over():
                return index
            index += 1

    def over(self) -> bool:
        return bool(self.game.is_over(self.state))

    def to_act(self) -> int:
        """The seat to act (meaningless once the game is over)."""
        return int(self.state[self.game.turn_slot])

    def mask(self) -> np.ndarray:
        """The legal actions of the seat to act as an int8 0/1 array (all 0 once over)."""
        bits = int(self.game.legal_mask(self.state))
        return np.array([(bits >> a) & 1 for a in range(self.game.num_actions)], np.int8)

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
        """True for a legal action id (a Python or NumPy integer) of the seat to act."""
        if not isinstance(action, int | np.integer) or not 0 <= action < self.game.num_actions:
            return False
        return bool((int(self.game.legal_mask(self.state)) >> int(action)) & 1)

    def play(self, action) -> None:
        """Apply the learner's ``action`` (ValueError naming the legal ones if it is not one of
        them), then the bots' moves up to the next learner turn or the end."""
        if not self.is_legal(action):
            legal = self.game.legal_actions(self.state)
            raise ValueError(f"illegal action {action!r} for seat {self.to_act()} (legal: {legal})")
        self.advance(action)

    def advance(self, action) -> None:
        """:meth:`play` for an action already found legal (:meth:`is_legal`)."""
        self.game.apply_action(self.state, int(action))
        self.play_bots()

    def play_bots(self) -> None:
        game, state = self.game, self.state
        while not game.is_over(state) and self.seats[int(state[game.turn_slot])] is not None:
            legal = game.legal_actions(state)
            action = legal[0] if len(legal) == 1 else ask(game, self.seats, state, self.rngs, legal)
            game.apply_action(state, action)

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
    return agent if isinstance(agent, Agent) else parse(agent, game)


def render_text(table: Table) -> str:
    """The public state as text, from the view of the seat to act (seat 0's once the game is
    over, with the scores and winners): the terminal game's screens where the game has them
    (``experiments/play/<game>.py``), else the raw observation."""
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

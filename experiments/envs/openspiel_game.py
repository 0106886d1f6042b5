"""Every game of :data:`giftsim.game.GAMES` as an OpenSpiel Python game, and giftsim agents as
OpenSpiel bots.

``register(name)`` registers game ``name`` with ``pyspiel.register_game`` under the short name
``python_giftsim_<name>`` (importing this module registers every game of ``GAMES`` at that
time; a game added later, such as the tests' toy game, takes one ``register`` call). One class
serves every game: it calls the game's compiled verbs (``deal_keyed``, ``legal_mask``,
``apply_action``, ``observe``, ``encode``, ``rewards``) and writes no rule again. Modelled on
OpenSpiel's own ``open_spiel/python/games/kuhn_poker.py`` and ``liars_poker.py``.

Parameters (``pyspiel.load_game("python_giftsim_geschenkt", {"players": 4})``):

============  =========================  ======================================================
parameter     default                    meaning
============  =========================  ======================================================
``players``   the smallest official      number of seats
              count (3 for No Thanks!)
``seed``      0                          root seed of the deal space (0 .. 2**31 - 1)
``deals``     65536                      size ``K`` of the deal space
``rules``     ``""``                     rule options as ``--rule`` takes them, separated by
                                         ``;`` (``"variant=tactical;n_removed=6"``)
============  =========================  ======================================================

The deal is one explicit chance node: outcome ``i`` (of ``K``, each ``1/K``) deals giftsim's
game ``i`` of root seed ``seed``: key ``giftsim.rng.game_key(seed, i)``, first seat ``i mod n``
(the ``rotate`` policy of tournaments). The deal space is thus a documented sample of ``K``
deals of the full shuffle, not every shuffle: a card-by-card chance model would have to
re-write each game's deal, which lives in its compiled ``deal_keyed``. All later chance (Gift
of Tulips' end-game reveal) is drawn from the state's keyed streams inside ``apply_action``, so
a state is a pure function of its history: deal ``i`` followed by the same actions is the same
game as giftsim's game ``i`` played with those actions (a test checks it). A state is one game
(No Thanks! matches of several ``rounds`` are not modelled: each round is a deal).

Utilities: each seat's share of the win (``Game.rewards``: 1 to a sole winner, ties split), so
returns lie in 0..1 and sum to 1 (``CONSTANT_SUM``). ``max_game_length`` is the game's bound on
decisions under the rules (``rules.max_decisions`` where the rules have it, else
``Game.max_decisions``) plus the chance node.

Tensors, through :class:`GiftsimObserver` (named views into one flat float32 tensor):

=================  ===================================  ===================================
view               shape                                meaning
=================  ===================================  ===================================
``player``         ``(n,)``                             one-hot: the observing seat
``observation``    ``(Game.tensor_size(rules),)``       ``Game.encode`` of the seat's
                                                        ``observe``
``own_actions``    ``(max_game_length - 1,              information state only: one-hot of
                   num_actions)``                       the seat's own decisions, in order
=================  ===================================  ===================================

The information state is the seat's view now plus its own past decisions. It is not the full
sequence of everything the seat has seen (which a strict perfect-recall state needs): the view
already holds the public outcome of play (hands, chips, festival), but not, say, the order in
which others passed. Tabular methods that rely on perfect recall (CFR) do not reach games of
this size anyway; sampling and learning methods use these tensors as they are. The strings are
the same facts as text: ``p<seat>`` and the nonzero entries of the view (``index=value``),
plus the seat's own actions by name in the information state.

:class:`GiftsimBot` plays any giftsim agent spec as an OpenSpiel bot, so OpenSpiel's evaluation
tools (``evaluate_bots``, alpha-rank) run on giftsim's agents.
"""

from dataclasses import dataclass

import numpy as np
import pyspiel

from agents.base import Agent
from agents.registry import parse
from giftsim.game import GAMES, Game, load_game
from giftsim.rng import agent_stream, check_secret, game_key

PREFIX = "python_giftsim_"
DEALS = 2**16
MAX_SEED = 2**31 - 1  # OpenSpiel's integer parameters are C++ ints


def short_name(name: str) -> str:
    """OpenSpiel's short name of giftsim game ``name``."""
    return PREFIX + name


def register(name: str) -> str:
    """Register giftsim game ``name`` with OpenSpiel (once); returns its short name."""
    short = short_name(name)
    if short not in pyspiel.registered_names():
        game = load_game(name)
        pyspiel.register_game(_game_type(game), _game_class(name))
    return short


def register_all() -> list[str]:
    """Register every game of :data:`giftsim.game.GAMES`; returns their short names."""
    return [register(name) for name in GAMES]


def load(name: str, **params) -> "GiftsimGame":
    """``pyspiel.load_game`` of giftsim game ``name`` (registered first if need be)."""
    return pyspiel.load_game(register(name), params)


def _default_players(game: Game) -> int:
    return min(game.official)


def _game_type(game: Game) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=short_name(game.name),
        long_name=f"Python giftsim {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(game.players),
        min_num_players=min(game.players),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            "players": _default_players(game),
            "seed": 0,
            "deals": DEALS,
            "rules": "",
        },
    )


@dataclass(frozen=True)
class Setup:
    """What every state of one loaded game shares: the giftsim game, its rules and deal space.
    Shared, never copied (states are cloned by ``copy.deepcopy``)."""

    game: Game
    rules: object
    rules_vec: np.ndarray
    n: int
    seed: int
    deals: int
    max_decisions: int

    def __deepcopy__(self, memo) -> "Setup":
        return self


def _setup(game: Game, params: dict) -> Setup:
    n, seed, deals = params["players"], params["seed"], params["deals"]
    if n not in game.players:
        raise ValueError(f"players must be one of {list(game.players)} for {game.name}, got {n}")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be in 0..{MAX_SEED}, got {seed}")
    if deals < 1:
        raise ValueError(f"deals must be at least 1, got {deals}")
    rules = _rules(game, params["rules"], n)
    decisions = getattr(rules, "max_decisions", game.max_decisions)
    return Setup(game, rules, rules.to_array(), n, seed, deals, decisions)


def _rules(game: Game, text: str, n: int):
    pairs = [pair.strip() for pair in text.split(";") if pair.strip()]
    if not pairs:
        return game.rules(n_players=n)
    if not hasattr(game.rules, "from_pairs"):
        raise ValueError(f"{game.name} takes no rule options, got {text!r}")
    return game.rules.from_pairs(pairs, n_players=n)


def _game_class(name: str) -> type:
    """The OpenSpiel game class of giftsim game ``name`` (a subclass fixing the name, as
    ``pyspiel.register_game`` takes a class built from its parameters alone)."""
    return type(f"GiftsimGame_{name}", (GiftsimGame,), {"giftsim_name": name})


class GiftsimGame(pyspiel.Game):
    """A giftsim game as an OpenSpiel game (subclassed per game by :func:`register`)."""

    giftsim_name = ""

    def __init__(self, params=None):
        game = load_game(self.giftsim_name)
        given = dict(params or {})
        full = {**_game_type(game).parameter_specification, **given}
        self.setup = _setup(game, full)
        info = pyspiel.GameInfo(
            num_distinct_actions=game.num_actions,
            max_chance_outcomes=self.setup.deals,
            num_players=self.setup.n,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=self.setup.max_decisions + 1,
        )
        super().__init__(_game_type(game), info, given)

    def new_initial_state(self) -> "GiftsimState":
        """A state before the deal (a chance node)."""
        return GiftsimState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "GiftsimObserver":
        """The observer of OpenSpiel's default observation, or of the information state when
        ``iig_obs_type.perfect_recall``."""
        kind = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        return GiftsimObserver(self.setup, kind, params)


class GiftsimState(pyspiel.State):
    """One game: before the deal, a chance node; then the seats act through the game's verbs."""

    def __init__(self, game: GiftsimGame):
        super().__init__(game)
        self.setup = game.setup
        self.deal = -1  # the chance outcome, once dealt
        self.board = np.zeros(self.setup.game.state_size, np.int64)  # the giftsim state
        self.own_actions: list[list[int]] = [[] for _ in range(self.setup.n)]

    def key(self) -> np.uint64:
        """The giftsim game key of the deal (``game_key(seed, deal)``)."""
        return np.uint64(game_key(np.uint64(self.setup.seed), self.deal))

    def current_player(self) -> int:
        """The seat to act, ``CHANCE`` before the deal or ``TERMINAL`` once over."""
        if self.deal < 0:
            return pyspiel.PlayerId.CHANCE
        if self.setup.game.is_over(self.board):
            return pyspiel.PlayerId.TERMINAL
        return int(self.board[self.setup.game.turn_slot])

    def _legal_actions(self, player) -> list[int]:
        return self.setup.game.legal_actions(self.board)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The ``deals`` equally likely deals."""
        p = 1.0 / self.setup.deals
        return [(i, p) for i in range(self.setup.deals)]

    def _apply_action(self, action) -> None:
        setup = self.setup
        if self.deal < 0:
            self.deal = int(action)
            first = self.deal % setup.n  # the rotate policy: game i starts at seat i mod n
            setup.game.deal_keyed(setup.rules_vec, self.key(), first, self.board)
            setup.game.begin(self.board)
            return
        self.own_actions[self.current_player()].append(int(action))
        setup.game.apply_action(self.board, int(action))

    def _action_to_string(self, player, action) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        return self.setup.game.action_names[action]

    def is_terminal(self) -> bool:
        return self.deal >= 0 and bool(self.setup.game.is_over(self.board))

    def returns(self) -> list[float]:
        """Each seat's share of the win once over (``Game.rewards``), else zeros."""
        out = np.zeros(self.setup.game.max_players, np.float64)
        if self.is_terminal():
            self.setup.game.rewards(self.board, out)
        return [float(x) for x in out[: self.setup.n]]

    def view(self, seat: int) -> np.ndarray:
        """What ``seat`` may know now (``Game.observe``; a fresh int64 array)."""
        obs = np.zeros(self.setup.game.obs_size, np.int64)
        self.setup.game.observe(self.board, seat, obs)
        return obs

    def __str__(self) -> str:
        setup = self.setup
        if self.deal < 0:
            return f"{setup.game.title}, {setup.n} players: before the deal"
        names = [setup.game.action_names[a] for a in self.history()[1:]]
        text = f"{setup.game.title}, deal {self.deal} of seed {setup.seed}: {' '.join(names)}"
        if self.is_terminal():
            text += f" | over, shares of the win {self.returns()}"
        return text


class GiftsimObserver:
    """Observer of a seat (OpenSpiel's PyObserver interface): ``tensor`` and its named views
    ``dict`` (see the module docstring), ``set_from`` and ``string_from``."""

    def __init__(self, setup: Setup, iig_obs_type, params):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        if not (private and iig_obs_type.public_info):
            raise ValueError("only a seat's own view is supported (public and private info)")
        self.setup = setup
        self.recall = iig_obs_type.perfect_recall
        game = setup.game
        pieces = [("player", (setup.n,)), ("observation", (game.tensor_size(setup.rules),))]
        if self.recall:
            pieces.append(("own_actions", (setup.max_decisions, game.num_actions)))
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
        self.dict = {}
        at = 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[at : at + size].reshape(shape)
            at += size

    def set_from(self, state: GiftsimState, player: int) -> None:
        """Fill ``tensor`` with ``state`` seen by ``player``."""
        self.tensor.fill(0)
        self.dict["player"][player] = 1
        if state.deal < 0:
            return
        self.setup.game.encode(state.view(player), self.dict["observation"])
        if self.recall:
            for turn, action in enumerate(state.own_actions[player]):
                self.dict["own_actions"][turn, action] = 1

    def string_from(self, state: GiftsimState, player: int) -> str:
        """The same facts as text: the seat, the view's nonzero entries, its own actions."""
        if state.deal < 0:
            return f"p{player} before the deal"
        view = np.zeros(self.dict["observation"].shape, np.float32)
        self.setup.game.encode(state.view(player), view)
        entries = " ".join(f"{i}={view[i]:g}" for i in np.flatnonzero(view))
        text = f"p{player} {entries}"
        if self.recall:
            names = self.setup.game.action_names
            text += " | " + " ".join(names[a] for a in state.own_actions[player])
        return text


class GiftsimBot(pyspiel.Bot):
    """A giftsim agent (a spec such as ``"greedy:T=-3"`` or an :class:`~agents.base.Agent`)
    playing seat ``seat`` of a giftsim OpenSpiel game.

    At its turn it computes its seat's giftsim observation from the OpenSpiel state
    (``Game.observe``) and calls the agent's ``decide`` with its own random stream, the one the
    seat has in giftsim's own loops (``agent_stream(game key, secret, seat)``), so a table of
    such bots plays deal ``i`` exactly as giftsim plays game ``i``. Like the loops, it takes a
    single legal action without asking the agent.
    """

    def __init__(self, game: GiftsimGame, seat: int, agent, secret: int = 0):
        super().__init__()
        check_secret(secret)
        self.setup = game.setup
        self.seat = seat
        self.agent = agent if isinstance(agent, Agent) else parse(agent, self.setup.game.name)
        self.secret = np.uint64(secret)
        self._game = None  # (deal, moves so far) the stream belongs to
        self._rng = np.zeros(1, np.uint64)

    def restart_at(self, state) -> None:
        """Forget the game in progress (the stream restarts at the next decision)."""
        self._game = None

    def inform_action(self, state, player_id, action) -> None:
        """Nothing to track: the bot reads the state at its turn."""

    def step(self, state: GiftsimState) -> int:
        """The agent's action at ``state`` (its seat must be the one to act)."""
        if state.current_player() != self.seat:
            raise ValueError(
                f"the bot of seat {self.seat} was asked at seat {state.current_player()}'s turn"
            )
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        self._follow(state)
        obs = state.view(self.seat)
        row = self.agent.param_row(state.num_players())
        action = int(self.agent.family.decide(obs, row, self._rng))
        if action not in legal:
            raise ValueError(f"agent {self.agent.spec} chose illegal action {action}")
        return action

    def _follow(self, state: GiftsimState) -> None:
        moves = len(state.history())
        if self._game is None or self._game[0] != state.deal or self._game[1] >= moves:
            self._rng[0] = agent_stream(state.key(), self.secret, self.seat)
        self._game = (state.deal, moves)


register_all()

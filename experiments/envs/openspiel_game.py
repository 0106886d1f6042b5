"""Every game of :data:`giftsim.game.GAMES` as an OpenSpiel Python game with explicit chance
nodes, and giftsim agents as OpenSpiel bots.

``register(name)`` registers game ``name`` with ``pyspiel.register_game`` under the short name
``python_giftsim_<name>`` (importing this module registers every game of ``GAMES`` at that
time; a game added later, such as the tests' toy game, takes one ``register`` call). One class
serves every game through its ``Game`` verbs and writes no rule again: the deal and every later
random event come from the explicit-chance verbs (``deal_open``, ``chance_outcomes``,
``apply_chance``, ``chance_observers``), play from ``legal_mask`` and ``apply_action``.
Modelled on OpenSpiel's ``open_spiel/python/games/kuhn_poker.py`` and ``liars_poker.py``.

Parameters (``pyspiel.load_game("python_giftsim_geschenkt", {"players": 4})``, or the game
string ``python_giftsim_geschenkt(players=2,lowest_card=3,highest_card=8,n_removed=2)``):
``players`` (an int; the smallest official count by default), and every rule option of the
game (``giftsim --rule``) as a parameter of its own: whole numbers as ints, with -1 for the
word an option also takes (``first_player=-1``: random; ``chips_per_player=-1``: the table of
record), ``true``/``false`` options as bools, the others as text (``variant="tactical"``;
tables with ``:`` between numbers and ``/`` between rows, ``base_copies="6:6:6"``, since ``,``
separates OpenSpiel parameters). The game string holds every parameter, so
``pyspiel.load_game(str(game))`` is the same game. ``rounds`` must be 1: a state is one game.

Chance: one chance node per random event of the game, as ``Game.chance_kinds`` names them (No
Thanks!: the first seat when the rules draw it, each card turned up; Gift of Tulips: each card
removed, the seeding draws and coin, the first seat, each dealt card, each draw, each card of
the end-game reveal). Its outcomes are the game's outcome ids with a positive weight, with
probability in proportion (``Game.chance_outcomes``): the cards still unseen, conditional on
every earlier event. No list of deals exists.

Information. A seat sees an event's outcome if ``Game.chance_observers`` says so (a dealt or
drawn card: its owner; a removed card: nobody), its own decisions, and of another seat's
decision what ``Game.public_action`` gives (No Thanks!: the action; Tulips: the action with the
card it lays face up, and only that a setup choice was made). Its view now is ``Game.observe``.

* Observation (``perfect_recall=False``): the seat's view now.
* Information state (``perfect_recall=True``): the view now and every event of the game in
  order as the seat saw it: who acted (a chance event's kind, or a seat) and what the seat saw
  (the outcome or nothing; its own action; the other seat's public code). Perfect recall: a
  seat that saw two histories differently never gets one string or tensor for both, and two
  histories it saw alike (the same views, the same outcomes seen, the same own actions) get
  the same. A perfect-recall seat remembers the passes of No Thanks! even where the rules
  option ``chips_visible=false`` hides the chip counts from giftsim's agents.
* Public observation (``public_info=True, private_info=NONE``; OpenSpiel's factored
  observations, which ``generate_playthrough`` prints): every event in order as every seat
  saw it alike: a chance outcome all seats see, only the kind of one that some seat does not,
  a decision's public code. Private observation (``public_info=False,
  private_info=SINGLE_PLAYER``): what the seat saw of each event beyond that (an outcome only
  some seats see, its own action where the others see less), 0 elsewhere. Both are
  histories whatever ``perfect_recall`` asks: no game verb splits a seat's view now into what
  every seat sees and what only it sees (the views are seat-relative), and writing that split
  here per game would write rules again; a history of public events is public and never
  shows a private fact. Other observation types are refused in one line.

Tensors, through :class:`GiftsimObserver` (named views into one flat float32 tensor):

================  ================================  ==========================================
view              shape                             meaning
================  ================================  ==========================================
``player``        ``(n,)``                          one-hot: the observing seat
``observation``   ``(Game.tensor_size(rules),)``    ``Game.encode`` of the seat's ``observe``
``history``       ``(max_game_length,)``            information state (and the public and
                                                    private observations, as above): each event in
                                                    order as one code (0 past the game's
                                                    events), ``1 + (actor + K) * W + seen``:
                                                    ``actor`` is ``-kind`` for a chance event
                                                    (``K`` kinds) or the seat that decided;
                                                    ``seen`` is what the seat saw plus 1 (0:
                                                    nothing; an outcome id, its own action id,
                                                    another seat's public code), below ``W``
                                                    (:func:`event_of` decodes)
================  ================================  ==========================================

One code per event keeps the tensor small: OpenSpiel copies every tensor entry through Python
at every call, and a No Thanks! game's bound on events is long (1,105 at 4 players).

Strings carry the same: ``p<seat>``, the view's nonzero tensor entries (``index=value``), and in
the information state each event as text (``draw: purple 3``, ``draw: ?``, ``p1 keep purple
3``). Utilities: each seat's share of the win (``Game.rewards``: 1 to a sole winner, ties
split), so returns lie in 0..1 and sum to 1 (``CONSTANT_SUM``). ``max_game_length`` is the
game's bound on decisions plus its bound on chance events (``Game.chance_events``).

Bad input: a game refuses wrong values with a ``ValueError`` of one line (``players`` outside
the game's counts, a rule value the game's ``Rules`` refuses, ``rounds`` other than 1), and a
state refuses an action that is not legal now, or a chance outcome of no weight, the same way.
OpenSpiel itself answers a parameter the game does not have (a rule option of the other game),
a parameter of the wrong type, or a non-integer action (``pyspiel.SpielError``, ``TypeError``).

:class:`GiftsimBot` plays any giftsim agent spec as an OpenSpiel bot, so OpenSpiel's evaluation
tools (``evaluate_bots``, alpha-rank) run on giftsim's agents. OpenSpiel's ``MCTSBot`` runs on
these games but searches the true state, seeing every hidden card.
"""

import importlib
from dataclasses import dataclass, field, fields

import numpy as np
import pyspiel

from agents.base import Agent
from agents.registry import parse
from giftsim import rule_options as opt
from giftsim.game import GAMES, Game, load_game
from giftsim.rng import agent_stream, check_secret, game_key

PREFIX = "python_giftsim_"
RANDOM_FIRST = -1  # deal_open's first-seat value that leaves it to the rules (and chance)
DEAL_KEY = game_key(0, 0)  # the key of the stack every state starts from (see GiftsimState)


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


def _options(game: Game) -> dict:
    """The game's rule options (``--rule`` keys) and their kinds; none for a game without."""
    if not hasattr(game.rules, "options_from_pairs"):
        return {}
    return importlib.import_module(game.rules.__module__).OPTIONS


def _parameters(game: Game) -> dict:
    """OpenSpiel's parameter specification: ``players``, then each rule option at its default
    (``Rules``' field default), typed by its kind."""
    defaults = {f.name: f.default for f in fields(game.rules)}
    spec = {"players": min(game.official)}
    for key, kind in _options(game).items():
        spec[key] = _as_parameter(key, kind, defaults[key])
    return spec


# Rule-option kinds whose OpenSpiel parameter is an int, and the int of their word (an int-like
# text would not survive the game string: OpenSpiel reads "3" back as an int).
_INT_WORDS = {opt.INT: None, opt.INT_OR_DEFAULT: "default", opt.SEAT: "random"}
_WORD = -1


def _as_parameter(key: str, kind, value):
    """A rule option's value as an OpenSpiel parameter value (see the module docstring)."""
    if kind in _INT_WORDS:
        return _WORD if value is None or value == _INT_WORDS[kind] else int(value)
    if kind == opt.BOOL:
        return bool(value)
    return opt.as_pairs({key: value})[0].partition("=")[2].replace(",", ":")


def _option_text(kind, value) -> str:
    """A parameter value as ``--rule`` text."""
    if kind in _INT_WORDS and value == _WORD and _INT_WORDS[kind]:
        return _INT_WORDS[kind]
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).replace(":", ",")


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
        provides_factored_observation_string=True,
        parameter_specification=_parameters(game),
    )


@dataclass(frozen=True)
class Setup:
    """What every state of one loaded game shares: the giftsim game, its rules and sizes.
    Shared, never copied (states are cloned by ``copy.deepcopy``)."""

    game: Game
    rules: object
    rules_vec: np.ndarray
    n: int
    max_length: int
    params: dict  # every parameter, in the form the game string shows
    start: np.ndarray  # the board of a new state (dealt with DEAL_KEY, begun)
    kinds: int  # chance event kinds (K of the event codes)
    width: int  # W of the event codes: above every outcome id, action id and public code
    observers: dict = field(default_factory=dict, compare=False)  # perfect_recall -> observer

    def __deepcopy__(self, memo) -> "Setup":
        return self

    def __reduce__(self):
        """Pickled (OpenSpiel serialises a state's attributes so) as the game and parameters
        it is made from: small, and shared again once loaded."""
        return setup_of, (self.game.name, tuple(sorted(self.params.items())))


_SETUPS: dict = {}  # (game name, parameters) -> Setup


def setup_of(name: str, params: tuple) -> Setup:
    """The shared :class:`Setup` of game ``name`` under full parameters ``params`` (pairs)."""
    if (name, params) not in _SETUPS:
        _SETUPS[(name, params)] = _setup(load_game(name), dict(params))
    return _SETUPS[(name, params)]


def _setup(game: Game, params: dict) -> Setup:
    n = game.check_players(params["players"], "players")
    rules = _rules(game, params, n)
    if getattr(rules, "rounds", 1) != 1:
        raise ValueError(f"OpenSpiel plays single games: rounds must be 1, got {rules.rounds}")
    decisions = getattr(rules, "max_decisions", game.max_decisions)
    length = decisions + game.chance_events(rules)
    canonical = {"players": n}
    for key, kind in _options(game).items():
        canonical[key] = _as_parameter(key, kind, getattr(rules, key))
    start = _dealt(game, rules.to_array(), DEAL_KEY, RANDOM_FIRST)
    width = max(game.max_chance_outcomes, game.num_actions, game.public_actions) + 1
    kinds = len(game.chance_kinds)
    return Setup(game, rules, rules.to_array(), n, length, canonical, start, kinds, width)


def event_code(setup: Setup, actor: int, seen: int) -> int:
    """The ``history`` code of an event (module docstring); ``seen`` is already plus 1."""
    return 1 + (actor + setup.kinds) * setup.width + seen


def event_of(setup: Setup, code) -> tuple[int, int]:
    """``(actor, seen)`` of a nonzero ``history`` code (``seen`` plus 1, 0: nothing)."""
    actor, seen = divmod(int(code) - 1, setup.width)
    return actor - setup.kinds, seen


def _dealt(game: Game, rules_vec: np.ndarray, key, first_player: int) -> np.ndarray:
    """A board dealt by ``Game.deal_open`` and begun."""
    board = np.zeros(game.state_size, np.int64)
    game.deal_open(rules_vec, np.uint64(key), first_player, board)
    game.begin(board)
    return board


def _rules(game: Game, params: dict, n: int):
    """The game's ``Rules`` from the rule-option parameters, through its ``--rule`` parser."""
    options = _options(game)
    if not options:
        return game.rules(n_players=n)
    pairs = [f"{key}={_option_text(kind, params[key])}" for key, kind in options.items()]
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
        kind = _game_type(game)
        full = {**kind.parameter_specification, **(params or {})}
        self.setup = setup_of(game.name, tuple(sorted(full.items())))
        info = pyspiel.GameInfo(
            num_distinct_actions=game.num_actions,
            max_chance_outcomes=game.max_chance_outcomes,
            num_players=self.setup.n,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            max_game_length=self.setup.max_length,
        )
        super().__init__(kind, info, self.setup.params)

    def new_initial_state(self) -> "GiftsimState":
        """A state before the first chance event."""
        return GiftsimState(self)

    def new_dealt_state(self, key, first_player: int = RANDOM_FIRST) -> "GiftsimState":
        """A state whose stack is giftsim's deal of key ``key`` (``giftsim.rng.game_key``) and
        first seat ``first_player`` (``-1``: the rules', else drawn): resolving every chance
        event with ``state.dealt_outcome()`` plays giftsim's game of that key."""
        return GiftsimState(self, key, first_player)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "GiftsimObserver":
        """A new observer of OpenSpiel's default observation, or of the information state when
        ``iig_obs_type.perfect_recall``: each caller's own tensor, since an observer is filled
        in place (OpenSpiel's C++ asks once per game and keeps it)."""
        kind = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        return GiftsimObserver(self.setup, kind, params)  # refuses what it does not support


def observer_of(setup: Setup, recall: bool) -> "GiftsimObserver":
    """The observer of a seat's view (``recall``: of its information state), one per setup,
    for the states' own ``*_tensor()`` (they copy the tensor out at once); never handed out."""
    if recall not in setup.observers:
        kind = pyspiel.IIGObservationType(perfect_recall=recall)
        setup.observers[recall] = GiftsimObserver(setup, kind, None)
    return setup.observers[recall]


SEAT_VIEW, PUBLIC, PRIVATE = "seat", "public", "private"  # the observation types served


def _view_kind(kind) -> str:
    """Which observation an OpenSpiel type asks for: a seat's own view (public and its private
    facts), the public facts only, a seat's private facts only; a one-line ValueError for any
    other type."""
    single = kind.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
    none = kind.private_info == pyspiel.PrivateInfoType.NONE
    if single or (none and kind.public_info):
        return SEAT_VIEW if kind.public_info and single else PUBLIC if none else PRIVATE
    raise ValueError(
        f"observation type public_info={kind.public_info}, private_info="
        f"{kind.private_info.name} is not supported: a seat's own view (public_info=True, "
        "private_info=SINGLE_PLAYER), the public observation (public_info=True, "
        "private_info=NONE) or a seat's private observation (public_info=False, "
        "private_info=SINGLE_PLAYER)"
    )


class GiftsimState(pyspiel.State):
    """One game: chance nodes and the seats' decisions, through the game's verbs.

    ``board`` is the giftsim state, dealt by ``Game.deal_open`` with key ``key``: the stack it
    starts from, which only decides ``dealt_outcome`` (the chance outcomes then apply whatever
    OpenSpiel chooses). ``seen[p, :events]`` holds every event as seat ``p`` saw it, coded as
    the ``history`` tensor view holds them (``None`` before the first event: OpenSpiel
    makes a new state to size every tensor it writes, so a new state must cost little), and
    ``seen[n]`` every event as every seat saw it alike (the public observation).
    ``node`` caches who is to act and the legal actions of the state as it is (computed once
    per step, asked many times)."""

    def __init__(self, game: GiftsimGame, key=None, first_player=RANDOM_FIRST):
        super().__init__(game)
        setup = self.setup = game.setup
        self.key = np.uint64(DEAL_KEY if key is None else key)
        fresh = key is None and first_player == RANDOM_FIRST
        self.board = (
            setup.start.copy() if fresh else _dealt(setup.game, setup.rules_vec, key, first_player)
        )
        self.seen = None
        self.events = 0
        self._weights = np.zeros(setup.game.max_chance_outcomes, np.int64)
        self.node = None

    def _node(self) -> tuple[int, int, list[int]]:
        """``(player, chance kind, legal actions)`` of the state as it is (cached)."""
        if self.node is None:
            game, board = self.setup.game, self.board
            kind = int(game.chance_pending(board))
            if game.is_over(board):
                self.node = (pyspiel.PlayerId.TERMINAL, 0, [])
            elif kind:
                self.node = (pyspiel.PlayerId.CHANCE, kind, [])
            else:
                self.node = (int(board[game.turn_slot]), 0, game.legal_actions(board))
        return self.node

    def current_player(self) -> int:
        """The seat to act, ``CHANCE`` while a chance event is pending, ``TERMINAL`` once over."""
        return self._node()[0]

    # What OpenSpiel's Python tools ask at every step, answered here without the round trip
    # through C++ (which makes a new state to size each tensor); C++ callers get the same
    # answers through the observers and _legal_actions.

    def is_chance_node(self) -> bool:
        return self._node()[0] == pyspiel.PlayerId.CHANCE

    def legal_actions(self, player=None) -> list[int]:
        """The legal actions of ``player`` (the one to act by default), as OpenSpiel's C++ gives
        them: the chance outcomes at a chance node, else the decisions of the seat to act and
        none for the others."""
        to_act, kind, legal = self._node()
        if kind:
            return [o for o, _ in self.chance_outcomes()]
        return list(legal) if player is None or player == to_act else []

    def observation_tensor(self, player=None) -> list[float]:
        return self._tensor(False, player)

    def information_state_tensor(self, player=None) -> list[float]:
        return self._tensor(True, player)

    def _tensor(self, recall: bool, player) -> list[float]:
        seat = self.current_player() if player is None else player
        if not 0 <= seat < self.setup.n:
            raise ValueError(f"a tensor is a seat's: player must be in 0..{self.setup.n - 1}")
        observer = observer_of(self.setup, recall)
        observer.set_from(self, seat)
        return observer.tensor.tolist()

    def _legal_actions(self, player) -> list[int]:
        return list(self._node()[2])

    def _outcome_weights(self) -> np.ndarray:
        count = self.setup.game.chance_outcomes(self.board, self._weights)
        return self._weights[:count]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The pending event's outcomes and their probabilities."""
        weights = self._outcome_weights()
        total = float(weights.sum())
        return [(int(o), w / total) for o, w in enumerate(weights.tolist()) if w > 0]

    def dealt_outcome(self) -> int:
        """The pending event's outcome in the stack dealt with ``key`` (``Game.next_outcome``):
        resolving every event with it plays giftsim's game of that key."""
        return int(self.setup.game.next_outcome(self.board))

    def _apply_action(self, action) -> None:
        if self.is_terminal():
            raise ValueError(f"the game is over: no action applies (got {action})")
        player, kind, legal = self._node()
        if kind:
            self._apply_chance(kind, int(action))
        else:
            self._apply_decision(player, legal, int(action))
        self.events += 1
        self.node = None

    def _seen_now(self) -> np.ndarray:
        """The row of ``seen`` of the event being applied, every seat's (made at the first)."""
        if self.seen is None:
            self.seen = np.zeros((self.setup.n + 1, self.setup.max_length), np.float32)
        return self.seen[:, self.events]

    def _apply_chance(self, kind: int, outcome: int) -> None:
        game, weights = self.setup.game, self._outcome_weights()
        if not (0 <= outcome < len(weights) and weights[outcome] > 0):
            possible = [o for o, _ in self.chance_outcomes()]
            raise ValueError(f"{outcome} is not an outcome of this chance event: {possible}")
        observers = int(game.chance_observers(self.board))
        hidden = event_code(self.setup, -kind, 0)
        n, seen = self.setup.n, self._seen_now()
        everyone = (observers & ((1 << n) - 1)) == (1 << n) - 1
        seen[:] = [hidden + (outcome + 1) * ((observers >> p) & 1) for p in range(n)] + [
            hidden + (outcome + 1) * everyone
        ]
        game.apply_chance(self.board, outcome)

    def _apply_decision(self, seat: int, legal: list[int], action: int) -> None:
        game = self.setup.game
        if action not in legal:
            names = ", ".join(f"{a} ({game.action_names[a]})" for a in legal)
            raise ValueError(f"action {action} is illegal for seat {seat} now (legal: {names})")
        seen = self._seen_now()  # every row, the public one too, sees the public code
        seen[:] = event_code(self.setup, seat, int(game.public_action(self.board, action)) + 1)
        seen[seat] = event_code(self.setup, seat, action + 1)
        game.apply_action(self.board, action)

    def _action_to_string(self, player, action) -> str:
        game = self.setup.game
        if player == pyspiel.PlayerId.CHANCE:
            kind = int(game.chance_pending(self.board))
            return f"{game.chance_kinds[kind - 1]}: {game.chance_text(kind, action)}"
        return game.action_names[action]

    def is_terminal(self) -> bool:
        return bool(self.setup.game.is_over(self.board))

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

    def private_events(self, seat: int) -> np.ndarray:
        """``seen[seat]`` where it differs from the public row, 0 elsewhere (so far)."""
        mine, public = self.seen[seat, : self.events], self.seen[self.setup.n, : self.events]
        return np.where(mine != public, mine, 0)

    def event_text(self, seat: int, code) -> str:
        """One event of ``seen[seat]`` as text (``seat`` -1: as every seat sees it)."""
        game, (actor, seen) = self.setup.game, event_of(self.setup, code)
        if actor < 0:
            outcome = game.chance_text(-actor, seen - 1) if seen else "?"
            return f"{game.chance_kinds[-actor - 1]}: {outcome}"
        if actor == seat:
            return f"p{actor} {game.action_names[seen - 1]}"
        return f"p{actor} {game.public_text(seen - 1)}"

    def __str__(self) -> str:
        """The game so far, every event in full (the same for clones and deserialised states)."""
        game = self.setup.game
        events = []
        for action in self.full_history():
            actor = action.player
            if actor == pyspiel.PlayerId.CHANCE:
                events.append(f"chance {action.action}")
            else:
                events.append(f"p{actor} {game.action_names[action.action]}")
        text = f"{game.title}, {self.setup.n} players: {', '.join(events)}"
        return text + (f" | over, shares of the win {self.returns()}" if self.is_terminal() else "")


class GiftsimObserver:
    """Observer of a seat's view, of the public facts or of a seat's private facts (OpenSpiel's
    PyObserver interface): ``tensor`` and its named views ``dict`` (see the module docstring),
    ``set_from`` and ``string_from``."""

    def __init__(self, setup: Setup, iig_obs_type, params):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        self.kind = _view_kind(iig_obs_type)
        self.setup = setup
        self.obs = np.zeros(setup.game.obs_size, np.int64)
        self.recall = iig_obs_type.perfect_recall or self.kind != SEAT_VIEW
        pieces = [("player", (setup.n,))] if self.kind != PUBLIC else []
        if self.kind == SEAT_VIEW:
            pieces.append(("observation", (setup.game.tensor_size(setup.rules),)))
        if self.recall:
            pieces.append(("history", (setup.max_length,)))
        self.tensor = np.zeros(sum(int(np.prod(shape)) for _, shape in pieces), np.float32)
        self.dict = {}
        at = 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[at : at + size].reshape(shape)
            at += size

    def set_from(self, state: GiftsimState, player: int) -> None:
        """Fill ``tensor`` with ``state`` seen by ``player`` (any seat for the public facts)."""
        views, game = self.dict, self.setup.game
        if "player" in views:
            views["player"].fill(0)
            views["player"][player] = 1
        if self.kind == SEAT_VIEW:
            game.observe(state.board, player, self.obs)
            game.encode(self.obs, views["observation"])  # encode writes every entry
        if self.recall:
            views["history"].fill(0)
            views["history"][: state.events] = self._events(state, player)

    def _events(self, state: GiftsimState, player: int) -> np.ndarray:
        """The events so far as this observation codes them (see the module docstring)."""
        if not state.events:
            return np.zeros(0, np.float32)
        if self.kind == PRIVATE:
            return state.private_events(player)
        return state.seen[self.setup.n if self.kind == PUBLIC else player, : state.events]

    def string_from(self, state: GiftsimState, player: int) -> str:
        """The same facts as text: the seat, the view's nonzero entries, and in the
        information state every event as the seat saw it; the public facts as ``public`` and
        the events as every seat saw them; a seat's private facts as the number and text of
        each event it saw more of."""
        if self.kind == PUBLIC:
            events = self._events(state, player)
            return "public | " + ", ".join(state.event_text(-1, event) for event in events)
        if self.kind == PRIVATE:
            events = self._events(state, player)
            seen = ", ".join(
                f"{i}: {state.event_text(player, events[i])}" for i in events.nonzero()[0]
            )
            return f"p{player} | {seen}"
        view = np.zeros(self.dict["observation"].shape, np.float32)
        self.setup.game.encode(state.view(player), view)
        entries = " ".join(f"{i}={view[i]:g}" for i in np.flatnonzero(view))
        text = f"p{player} {entries}"
        if self.recall and state.events:
            events = state.seen[player, : state.events]
            text += " | " + ", ".join(state.event_text(player, event) for event in events)
        elif self.recall:
            text += " |"
        return text


class GiftsimBot(pyspiel.Bot):
    """A giftsim agent (a spec such as ``"greedy:T=-3"`` or an :class:`~agents.base.Agent`)
    playing seat ``seat`` of a giftsim OpenSpiel game.

    At its turn it computes its seat's giftsim observation from the OpenSpiel state
    (``Game.observe``) and calls the agent's ``decide`` with its own random stream. The stream
    of the bot's ``k``-th game is ``agent_stream(key_k, secret, seat)`` with ``key_0`` the
    state's deal key and ``key_k = game_key(key_0, k)`` after: a fresh bot on a state dealt
    with key ``K`` whose chance events take their dealt outcomes plays as the seat of giftsim's
    game of key ``K`` plays. Like giftsim's loops, it takes a single legal action without asking
    the agent.
    """

    def __init__(self, game: GiftsimGame, seat: int, agent, secret: int = 0):
        super().__init__()
        check_secret(secret)
        self.setup = game.setup
        if not isinstance(seat, int | np.integer) or not 0 <= seat < self.setup.n:
            raise ValueError(
                f"seat must be 0..{self.setup.n - 1} at {self.setup.n} players, got {seat!r}"
            )
        self.seat = seat
        self.agent = agent if isinstance(agent, Agent) else parse(agent, self.setup.game.name)
        self.secret = np.uint64(secret)
        self.games = 0  # games begun
        self._moves = None  # decisions seen in the game in progress (None: no game yet)
        self._rng = np.zeros(1, np.uint64)

    def restart_at(self, state) -> None:
        """Forget the game in progress (the next decision begins a new game's stream)."""
        self._moves = None

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
        action = self.agent.family.ask(obs, row, self._rng)
        if action not in legal:
            raise ValueError(f"agent {self.agent.spec} chose illegal action {action}")
        return action

    def _follow(self, state: GiftsimState) -> None:
        """Start a new game's stream when the state is not the game in progress."""
        moves = len(state.history())
        if self._moves is None or self._moves >= moves:
            key = state.key if self.games == 0 else game_key(state.key, self.games)
            self._rng[0] = agent_stream(np.uint64(key), self.secret, self.seat)
            self.games += 1
        self._moves = moves


register_all()

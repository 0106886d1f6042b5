"""A compiled vector environment: ``N`` games (lanes) at once, one learner seat in each.

``step(actions)`` takes the learner's action in every lane and returns NumPy arrays: the
learner's next observation tensors (``Game.encode``), legal masks (``Game.legal_mask``),
rewards and done flags. Every other seat is played by an opponent (**Opponents** below: a
compiled giftsim agent, user-defined ones too, or a network, inside the same kernel call,
``agents/templates/vector.py``), which runs each lane until the learner must choose again or
the episode ends. No rule is written here: what is legal, what the learner sees and who wins
come from the game's verbs.

Conventions:

* **Seats.** ``learner_seat`` is a seat, or ``"rotate"``: in lane ``i``'s ``k``-th episode
  the learner is the ``(i + k) mod n``-th to play. ``opponents`` are ``n - 1`` specs (one spec
  is repeated); opponent ``j`` sits ``j + 1`` seats after the learner. The first player
  follows ``first_player`` as in tournaments (``"rotate"``: game index mod ``n``; ``"random"``:
  the deal draws it; or a seat); by default the seat the rules fix (``rule=["first_player=2"]``),
  else ``"rotate"``. A ``first_player`` other than the rules' fixed seat is refused.
* **Episodes and seeds.** Lane ``i``'s ``k``-th episode is game ``i * 2**32 + k`` of the seed
  (``giftsim.rng.game_key``; skipped episodes, below, counted), so a lane plays the same games
  whatever the number of lanes: not game ``k``, as in ``GiftsimEnv`` and PettingZoo.
  ``reset(seed=S)`` starts every lane at its episode 0 of ``S``; ``reset()`` begins each
  lane's next episode (an unfinished one is dropped).
* **Rewards.** At the end of an episode the learner's share of the win (``Game.rewards``: 1,
  ties split, else 0) plus ``margin`` times its score lead over the best other seat (positive
  when ahead, in points, whichever way the game's score wins); 0 on every other step.
* **Auto-reset.** A lane whose episode ended returns ``done`` True and, as its observation and
  mask, the first decision of its next episode; the last observation of the finished episode
  is ``info["final_obs"]`` (as Gymnasium's vector environments' ``final_obs``), with
  ``info["lead"]``, ``info["game_index"]`` and ``info["learner_seat"]`` of that episode (rows
  valid where ``done``).
* **Not asked.** A seat with a single legal action (the learner's too) is not asked, as in
  the game loops; an episode that ends before the learner has any choice is skipped
  (``skipped()`` counts them per lane). After 1,000 skipped in a row in a lane
  (``MAX_SKIPPED``) the call raises :class:`~experiments.envs.table.EnvError`: under such
  rules (No Thanks! without chips) the learner may never choose, and the lane would deal on
  forever.
* **Arrays.** With ``copy=True`` (the default, as in Gymnasium) every call returns new arrays;
  with ``copy=False`` the environment's own buffers, overwritten by the next call (faster:
  fresh arrays of a few MB cost page faults).
* **Records.** With ``record=True`` every finished episode is kept and :meth:`records` gives
  them as JSON game records that ``giftsim replay`` accepts.
* **Opponents.** Each is a compiled giftsim agent (a spec such as ``"greedy"``, or an
  :class:`~agents.base.Agent`), played inside the kernel call; a network in giftsim's own
  format held in memory (:class:`~experiments.envs.opponents.LiveNetwork`: the one being
  trained, for self-play, updated in place between rollouts), played inside the kernel call
  as well; or Python: a plain-Python agent, or a callable ``policy(tensors, masks) ->
  actions`` over a batch of the deciding seats' tensors and masks. With a Python opponent the
  lanes are stepped from Python (``experiments.envs.python_lanes``, the slow path: Python work
  at every decision, the callable asked once per round for every lane waiting on it);
  ``slow=True`` asks for that path with compiled opponents too. Both paths play the same
  games.
* **Bad input** (an argument, actions that are not integers or not one per lane, a step before
  ``reset``) raises :class:`~experiments.envs.table.EnvError` with one line. An illegal
  learner action raises it too, naming the lane; the lanes before it have moved on, so the
  environment must be ``reset`` before the next step.
"""

import numpy as np

from agents.base import Agent
from agents.drivers.block import IllegalActionError, announce
from agents.drivers.generate import driver
from agents.kernels.entries import entry_addresses
from agents.kernels.lanes import (
    FINISHED,
    KEY_SECRET,
    KEY_SEED,
    L_DONE_INDEX,
    L_DONE_LOGGED,
    L_DONE_SEAT,
    L_NEXT,
    L_SEAT,
    L_SKIPPED,
    LEARNER_ILLEGAL,
    LEARNER_ROTATE,
    LOG_FULL,
    NO_DECISION,
    OK,
    RUN_FIRST,
    RUN_LEARNER,
    RUN_RECORD,
    RUN_SLOTS,
    empty_lanes,
)
from agents.registry import parse, spec_list
from experiments.envs.opponents import LiveNetwork
from experiments.envs.python_lanes import PythonLanes
from experiments.envs.table import (
    EnvError,
    bad_input,
    check_margin,
    check_seeds,
    make_rules,
    no_decision,
)
from giftsim.checks import is_whole
from giftsim.contract import MAX_PARAMS, first_player_for, first_policy
from giftsim.game import Game, load_game


class VectorEnv:
    """``n_envs`` games of ``game`` for one learner against giftsim agents, networks or Python
    opponents (see the module docstring for seats, seeds, rewards, auto-reset and opponents)."""

    def __init__(
        self,
        game,
        n_envs: int,
        players: int,
        learner_seat=0,
        opponents="random",
        rules=None,
        seed: int = 0,
        secret: int = 0,
        margin: float = 0.0,
        record: bool = False,
        first_player=None,
        copy: bool = True,
        rule=(),
        slow: bool = False,
    ):
        with bad_input():
            self.game = game if isinstance(game, Game) else load_game(game)
        self.rules = _rules(self.game, players, rules, rule)
        self.n_envs, self.n_players = _positive(n_envs, "n_envs"), self.rules.n_players
        self.opponents = _opponents(self.game, opponents, self.n_players)
        self.margin, self.record, self.copy = check_margin(margin), bool(record), bool(copy)
        check_seeds(seed, secret)
        self.seed, self.secret = int(seed), int(secret)
        self.learner_seat = learner_seat
        with bad_input():
            first = first_player_for(first_player, self.rules)
            self._run = _run_settings(first, learner_seat, self.n_players, self.record)
        self.slow = bool(slow) or not all(_compiled(a) for a in self.opponents)
        self._build()

    @property
    def tensor_size(self) -> int:
        return self.game.tensor_size(self.rules)

    @property
    def num_actions(self) -> int:
        return self.game.num_actions

    def reset(self, seed: int | None = None):
        """Begin an episode in every lane: ``(obs, mask)`` of the learner's first decisions.
        With ``seed``, every lane starts over at its episode 0 of that seed."""
        if seed is not None:
            check_seeds(seed)
            self.seed = int(seed)
            self._keys[KEY_SEED] = np.uint64(self.seed)
            self._lanes[:, L_NEXT] = 0
            self._finished.clear()
        out = self._outputs() if self.copy else self._buffers
        self._check(self._kernels.reset_lanes(*self._call, out[:2]))
        self._ready = True
        return out[0], out[1]

    def step(self, actions):
        """Apply the learner's ``actions`` (integer action ids, one per lane) and play on:
        ``(obs, mask, rewards, dones, info)``."""
        if not self._ready:
            raise EnvError("call reset() before step() (and after an illegal action)")
        actions = self._actions(actions)
        out = self._outputs() if self.copy else self._buffers
        self._check(self._kernels.step_lanes(*self._call, actions, out), actions)
        obs, mask, shares, dones, finals, leads = out
        if self.record and dones.any():
            self._keep(np.flatnonzero(dones))
        rewards = shares + np.float32(self.margin) * leads if self.margin else shares
        return obs, mask, rewards, dones, self._info(dones, finals, leads)

    def records(self) -> list[dict]:
        """JSON game records of the episodes finished since the last ``reset(seed=...)`` (with
        ``record=True``), in the order they finished."""
        if not self.record:
            raise EnvError("records() needs VectorEnv(..., record=True)")
        return [self._record(*finished) for finished in self._finished]

    def lane_state(self, lane: int) -> tuple[np.ndarray, int]:
        """A copy of lane ``lane``'s game state and the learner's seat in it (for tests and
        debugging: the learner itself sees only the observation)."""
        return self._states[lane].copy(), int(self._lanes[lane, L_SEAT])

    def skipped(self) -> np.ndarray:
        """Per lane, the episodes that ended before the learner had a choice (not returned)."""
        return self._lanes[:, L_SKIPPED].copy()

    def close(self) -> None:
        """Nothing to release: the lanes are this object's arrays (for code that closes every
        environment, as Gymnasium's and Stable-Baselines3's do)."""

    def __getstate__(self) -> dict:
        """The environment as plain data, its lanes mid-episode included; the compiled kernels
        (a module) and the opponents' parameter rows (which hold the address of a network or
        table in this process's memory) are made again when it is unpickled (``_bind``). Its
        opponents must pickle (a network, a spec, a module's function: not a lambda)."""
        state = self.__dict__.copy()
        del state["_kernels"], state["_call"], state["_params"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind()

    def _build(self) -> None:
        game, lanes = self.game, self.n_envs
        self._lanes = empty_lanes(lanes)
        self._states = np.zeros((lanes, game.state_size), np.int64)
        self._rngs = np.zeros((lanes, game.max_players), np.uint64)
        width = game.state_size + game.max_decisions if self.record else 1
        self._logs = np.zeros((lanes, 2, width), np.int64)
        self._keys = np.zeros(2, np.uint64)
        self._keys[KEY_SEED], self._keys[KEY_SECRET] = self.seed, self.secret
        self._finished: list[tuple] = []
        self._buffers = self._outputs()
        self._ready = False
        self._bind()

    def _bind(self) -> None:
        """The kernels that play the lanes, the opponents' parameter rows and the arrays each
        call passes them."""
        game, n = self.game, self.n_players
        self._params = np.zeros((game.max_players, MAX_PARAMS), np.float64)
        self._params[: len(self.opponents)] = [_param_row(a, n) for a in self.opponents]
        agents = [a for a in self.opponents if isinstance(a, Agent)]
        if self.slow:
            self._kernels = PythonLanes(game, self.rules, self.opponents)
            addresses = np.zeros((0, 3), np.int64)
        else:
            self._kernels = driver(game.name, "vector")
            addresses = entry_addresses([a.family.entry() for a in agents])
            announce(f"the {game.title} vector environment", self._kernels.step_lanes, agents)
        self._call = (
            self.rules.to_array(),
            self._keys,
            self._run,
            addresses,
            self._params,
            self._lanes,
            self._states,
            self._rngs,
            self._logs,
        )

    def _actions(self, actions) -> np.ndarray:
        """The learner's actions as int64, or an EnvError (not integers, not one per lane)."""
        array = np.asarray(actions)
        if array.dtype.kind not in "iu":
            raise EnvError(
                f"actions must be integer action ids (0..{self.num_actions - 1}), one per lane; "
                f"got an array of {array.dtype}"
            )
        if array.shape != (self.n_envs,):
            raise EnvError(f"actions must have shape ({self.n_envs},), got {array.shape}")
        return np.ascontiguousarray(array, dtype=np.int64)

    def _outputs(self) -> tuple:
        n, size = self.n_envs, self.tensor_size
        return (
            np.empty((n, size), np.float32),
            np.empty((n, self.num_actions), np.bool_),
            np.zeros(n, np.float32),
            np.zeros(n, np.bool_),
            np.zeros((n, size), np.float32),
            np.zeros(n, np.float32),
        )

    def _check(self, result, actions=None) -> None:
        lane, problem = result
        if problem == OK:
            return
        self._ready = False
        if problem == LEARNER_ILLEGAL:
            legal = self.game.legal_actions(self._states[lane])
            raise EnvError(
                f"lane {lane}: the learner's action {int(actions[lane])} is not legal there "
                f"(legal: {legal}); reset() before the next step"
            )
        if problem == LOG_FULL:
            raise EnvError(f"lane {lane}: an episode outgrew the action log; use record=False")
        if problem == NO_DECISION:
            raise no_decision(self.rules)
        names = ", ".join(dict.fromkeys(_name(a) for a in self.opponents))
        raise IllegalActionError(f"lane {lane}: an opponent ({names}) chose an illegal action")

    def _info(self, dones, finals, leads) -> dict:
        lanes = self._lanes
        return {
            "final_obs": finals,
            "lead": leads,
            "game_index": np.where(dones, lanes[:, L_DONE_INDEX], -1),
            "learner_seat": np.where(dones, lanes[:, L_DONE_SEAT], -1),
        }

    def _keep(self, done_lanes) -> None:
        base = self.game.state_size
        for i in done_lanes:
            row, end = self._logs[i, FINISHED], base + self._lanes[i, L_DONE_LOGGED]
            index, seat = int(self._lanes[i, L_DONE_INDEX]), int(self._lanes[i, L_DONE_SEAT])
            self._finished.append((index, seat, row[:base].copy(), row[base:end].tolist()))

    def _record(self, index, seat, start, actions) -> dict:
        names = [_name(a) for a in self.opponents]
        n = self.n_players
        seats = [names[(s - seat - 1) % n] if s != seat else "learner" for s in range(n)]
        meta = {"agents": seats, "seed": self.seed, "game_index": index}
        if self.secret:
            meta["secret"] = self.secret
        return self.game.make_record(self.rules, start, actions, meta)


def _rules(game: Game, players, rules, rule):
    try:
        players = game.check_players(players, "players")
    except ValueError as error:
        raise EnvError(str(error)) from None
    return make_rules(game, players, rules, rule)


def _positive(value, name: str) -> int:
    if not is_whole(value) or value < 1:
        raise EnvError(f"{name} must be a whole number of at least 1, got {value!r}")
    if value > 1 << 31:
        raise EnvError(f"{name} must be at most 2**31, got {value}")
    return int(value)


def _opponents(game: Game, specs, n_players: int) -> list:
    """``n_players - 1`` opponents (one is repeated) from specs, agents, live networks or
    Python callables (a comma-separated string of specs too)."""
    if isinstance(specs, str):
        specs = spec_list(specs)
    elif not isinstance(specs, list | tuple):
        specs = [specs]
    opponents = [_opponent(game, s, n_players) for s in specs]
    if len(opponents) == 1:
        opponents = opponents * (n_players - 1)
    if len(opponents) != n_players - 1:
        raise EnvError(f"{n_players} players need {n_players - 1} opponents, got {len(opponents)}")
    return opponents


def _opponent(game: Game, spec, n_players: int):
    if isinstance(spec, LiveNetwork):
        spec = spec.agent()
    if isinstance(spec, Agent):
        if spec.family.game != game.name:
            raise EnvError(f"opponent {spec.spec!r} is a {spec.family.game} agent, not {game.name}")
        with bad_input():
            spec.param_row(n_players)  # a network that does not fit fails here
        return spec
    if isinstance(spec, str):
        with bad_input():
            return _opponent(game, parse(spec, game.name), n_players)
    if callable(spec):
        return spec
    raise EnvError(
        f"an opponent is an agent spec, an Agent, a LiveNetwork or a Python callable "
        f"policy(tensors, masks) -> actions; got {spec!r}"
    )


def _compiled(opponent) -> bool:
    return isinstance(opponent, Agent) and opponent.family.compiled


def _param_row(opponent, n_players: int) -> np.ndarray:
    if isinstance(opponent, Agent):
        return opponent.param_row(n_players)
    return np.zeros(MAX_PARAMS, np.float64)


def _name(opponent) -> str:
    """An opponent's name in records and messages: its spec, or ``python:NAME``."""
    if isinstance(opponent, Agent):
        return opponent.spec
    return "python:" + getattr(opponent, "__name__", type(opponent).__name__)


def _run_settings(first_player, learner_seat, n_players: int, record: bool) -> np.ndarray:
    run = np.zeros(RUN_SLOTS, np.int64)
    run[RUN_FIRST] = first_policy(first_player, n_players)
    run[RUN_LEARNER] = _learner_policy(learner_seat, n_players)
    run[RUN_RECORD] = int(record)
    return run


def _learner_policy(learner_seat, n_players: int) -> int:
    if learner_seat == "rotate":
        return LEARNER_ROTATE
    if is_whole(learner_seat) and 0 <= learner_seat < n_players:
        return int(learner_seat)
    raise ValueError(
        f"learner_seat must be 'rotate' or a seat in 0..{n_players - 1}, got {learner_seat!r}"
    )

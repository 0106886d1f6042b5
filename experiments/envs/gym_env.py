"""Any game of ``giftsim.game.GAMES`` as a single-agent Gymnasium environment: the learner
takes one seat, giftsim agents (any spec) the others::

    import numpy as np
    from experiments.envs.gym_env import GiftsimEnv

    env = GiftsimEnv("geschenkt", players=4, learner_seat=0, opponents="greedy")
    observation, info = env.reset(seed=7)
    rng, done = np.random.default_rng(7), False
    while not done:
        action = rng.choice(np.flatnonzero(info["action_mask"]))  # a random legal action
        observation, reward, done, truncated, info = env.step(action)

* Observation: the learner seat's float32 tensor (``Game.observe`` + ``Game.encode``, layout
  in ``<game>/tensor.py``, bounds ``Game.tensor_bounds``), with ``scale=True`` divided by
  :func:`experiments.policy.tensor_scale` so that every entry lies in [-1, 1]; action space
  ``Discrete(num_actions)``.
* Legal actions: Gymnasium has no masked ``Discrete``, so the mask (``Game.legal_mask``) is
  where the libraries look for it: ``env.action_masks()`` (bool, one per action id: the
  method sb3-contrib's ``MaskablePPO`` calls) and ``info["action_mask"]`` (int8 0/1) with
  every observation: sample with ``env.action_space.sample(info["action_mask"])``, or set the
  logits of the zeros to -inf. The learner is asked at every one of its decisions, a forced
  one too (one legal action); once the episode is over the mask is all zeros.
* An illegal action (an integer that is not a legal action id) ends the episode as a loss:
  reward ``illegal_reward``, ``terminated`` True and ``info["illegal_action"]`` True; the
  game is abandoned. The default is below every legal outcome, so that an illegal move never
  pays: -1 (PettingZoo's ``TerminateIllegalWrapper``) with no ``margin``, else ``-1 -
  |margin| * (high - low)`` with ``(low, high)`` a seat's score range (``Game.score_range``),
  the widest a score lead can be (a game without one needs ``illegal_reward`` with
  ``margin``). An action that is not an integer (an int, a NumPy integer or a 0-d integer
  array), a step before ``reset`` or after the end, and every bad argument raise
  :class:`~experiments.envs.table.EnvError` (a ValueError) with one line naming the problem.
* Reward: 0 until the end, then the learner's share of the win (``Game.rewards``: 1 alone,
  1/k in a k-way tie, 0 for a loss) plus ``margin`` times its score lead over the best other
  seat (positive when ahead, in the direction that wins: lower is better in No Thanks!).
* Opponents: one spec string or agent for every other seat, or a list of them, one per other
  seat in seat order. They play through the slow path (``agents/drivers/slow.py``): each
  decides on a fresh copy of its own observation with its own random stream, exactly as in
  ``play_slow``; a seat with one legal action is not asked.
* Seeds: after ``reset(seed=S)`` the episode is game 0 of seed ``S``, each later ``reset()``
  the next game; game ``i`` is ``play_slow(game, rules, seats, S, i, first_player)`` (deal,
  first seat, agent streams). ``first_player``: ``"random"`` (the deal draws it), ``"rotate"``
  or a seat; by default the seat the rules fix (``rule=["first_player=2"]``), else
  ``"random"``. One that contradicts the rules' fixed seat is refused. A game that ends
  before the learner acts is skipped for the next index; after 1,000 in a row ``reset``
  raises ``EnvError`` (rules and seats under which the learner may never act, such as No
  Thanks! without chips and the learner second).
* Records: with ``record=True`` every finished episode is kept, and :meth:`GiftsimEnv.records`
  returns them as JSON game records (``Game.make_record``, the vector environment's format:
  ``agents`` with ``"learner"`` at the learner's seat, ``seed``, ``game_index``) that
  ``giftsim replay`` checks; an episode abandoned by an illegal action is not kept.
* ``render_mode="ansi"``: ``render()`` returns the public state as text.
* Registered: importing this module registers every game of ``GAMES`` with Gymnasium as
  ``giftsim/<game>-v0`` (:func:`register` takes a game added later, such as the tests' toy
  game). ``gymnasium.make("giftsim/tulips-v0", players=4, opponents="greedy")`` is a
  ``GiftsimEnv`` behind Gymnasium's usual wrappers, and ``gymnasium.make_vec(id, num_envs=256,
  opponents="greedy")`` the compiled vector environment
  (:class:`~experiments.envs.gym_vector.GiftsimVectorEnv`, ``num_envs`` lanes), not copies of
  the single environment. Without an import first, the id's module prefix loads it:
  ``gymnasium.make("experiments.envs.gym_env:giftsim/tulips-v0")``.
"""

from typing import ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from agents.registry import spec_list
from experiments.envs.table import (
    EnvError,
    Table,
    check_margin,
    check_seeds,
    load,
    make_rules,
    render_text,
)
from experiments.policy import tensor_scale
from giftsim.checks import is_whole
from giftsim.game import GAMES
from giftsim.rng import MAX_SEED

VERSION = 0  # of the registered ids: raised when an episode of the same id would change


class GiftsimEnv(gym.Env):
    """The learner at ``learner_seat``, giftsim agents at the other seats (module docstring)."""

    metadata: ClassVar[dict] = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        game: str,
        players: int | None = None,
        learner_seat: int = 0,
        opponents="random",
        rules=None,
        margin: float = 0.0,
        rule=(),
        first_player=None,
        illegal_reward: float | None = None,
        secret: int = 0,
        render_mode: str | None = None,
        record: bool = False,
        scale: bool = False,
    ):
        if render_mode not in (None, "ansi"):
            raise EnvError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        entry = load(game)
        rules = make_rules(entry, players, rules, rule)
        n = rules.n_players
        if not (is_whole(learner_seat) and 0 <= learner_seat < n):
            raise EnvError(f"learner_seat must be a seat in 0..{n - 1}, got {learner_seat!r}")
        learner_seat = int(learner_seat)
        others = [s for s in range(n) if s != learner_seat]
        bots = _bots(opponents, others)
        self.table = Table(game, rules, bots, first_player, secret, record)
        self.seat, self.margin = learner_seat, check_margin(margin)
        self.illegal_reward = (
            default_illegal_reward(entry, rules, self.margin)
            if illegal_reward is None
            else illegal_reward
        )
        self.render_mode = render_mode
        self.factor = (1.0 / tensor_scale(entry, rules)).astype(np.float32) if scale else None
        low, high = self.table.low, self.table.high
        if scale:
            low, high = low * self.factor, high * self.factor
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.action_space = spaces.Discrete(entry.num_actions)
        self.root_seed, self.index, self.done, self.started = None, -1, True, False
        self._kept: list[dict] = []

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            check_seeds(seed)
        super().reset(seed=None if seed is None else int(seed))  # Gymnasium's: a Python int
        if seed is not None:
            self.root_seed, self.index, self._kept = int(seed), -1, []
        elif self.root_seed is None:
            self.root_seed = int(self.np_random.integers(MAX_SEED, dtype=np.uint64))
        self.index = self.table.start(self.root_seed, self.index + 1)
        self.done, self.started = False, True
        return self._observation(), self._info()

    def step(self, action):
        if self.done:
            when = "the episode is over" if self.started else "no episode has begun"
            raise EnvError(f"{when}: call reset() before step()")
        table = self.table
        if not table.is_legal(action):
            self.done = True
            info = {**self._info(), "illegal_action": True}
            return self._observation(), float(self.illegal_reward), True, False, info
        table.advance(action)
        self.done = table.over()
        reward = self._final_reward() if self.done else 0.0
        if self.done and table.keeps:
            self._kept.append(table.record(self.root_seed, self.index))
        return self._observation(), reward, self.done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, as bools, one per action id (sb3-contrib's
        ``MaskablePPO`` reads this method; all False once the episode is over or before it)."""
        if self.done:
            return np.zeros(self.action_space.n, np.bool_)
        return self.table.mask(np.bool_)

    def records(self) -> list[dict]:
        """JSON game records of the episodes finished since the last ``reset(seed=...)`` (with
        ``record=True``), in the order they finished."""
        if not self.table.keeps:
            raise EnvError("records() needs GiftsimEnv(..., record=True)")
        return list(self._kept)

    def render(self):
        if self.render_mode is None:
            return None
        return render_text(self.table)

    def _final_reward(self) -> float:
        share = float(self.table.rewards()[self.seat])
        return share + self.margin * self.table.lead(self.seat) if self.margin else share

    def _observation(self) -> np.ndarray:
        tensor = self.table.tensor(self.seat)
        return tensor if self.factor is None else tensor * self.factor

    def _info(self) -> dict:
        """The mask (all zeros once the episode is over, an illegal action's end too: the
        abandoned game's state still has legal actions) and the game index."""
        mask = np.zeros(self.action_space.n, np.int8) if self.done else self.table.mask()
        return {"action_mask": mask, "game_index": self.index}


def default_illegal_reward(game, rules, margin: float) -> float:
    """The default reward of an illegal action: below every legal final reward (a share is at
    least 0, a score lead at least ``-(high - low)`` with ``Game.score_range``), so that a
    learner never gains by an illegal move; -1 without a margin."""
    if not margin:
        return -1.0
    if game.score_range is None:
        raise EnvError(
            f"{game.name} has no score range to put the default illegal_reward below every "
            f"margin reward: give illegal_reward with margin={margin!r}"
        )
    low, high = game.score_range(rules)
    return -1.0 - abs(margin) * (high - low)


def _bots(opponents, others: list[int]) -> dict:
    """``{seat: spec}`` for the seats ``others`` from one spec or a list of one per seat."""
    if isinstance(opponents, str) and "," in opponents:
        opponents = spec_list(opponents)
    if not isinstance(opponents, list | tuple):
        return dict.fromkeys(others, opponents)
    if len(opponents) != len(others):
        raise EnvError(
            f"opponents: give one spec, or one per other seat ({len(others)}), got {len(opponents)}"
        )
    return dict(zip(others, opponents, strict=True))


def env_id(name: str) -> str:
    """Gymnasium's id of giftsim game ``name``."""
    return f"giftsim/{name}-v{VERSION}"


def register(name: str) -> str:
    """Register game ``name`` with Gymnasium (once; ``make`` a ``GiftsimEnv``, ``make_vec`` the
    compiled vector environment) and return its id."""
    spec_id = env_id(name)
    if spec_id not in gym.registry:
        gym.register(
            spec_id,
            entry_point=GiftsimEnv,
            vector_entry_point="experiments.envs.gym_vector:lanes",
            kwargs={"game": name},
        )
    return spec_id


def register_all() -> list[str]:
    """Every game of ``GAMES`` registered; their ids."""
    return [register(name) for name in GAMES]


register_all()

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
  in ``<game>/tensor.py``, bounds ``Game.tensor_bounds``); action space
  ``Discrete(num_actions)``.
* Legal actions: Gymnasium has no masked ``Discrete``, so ``info["action_mask"]`` (int8 0/1,
  ``Game.legal_mask``) comes with every observation: sample with
  ``env.action_space.sample(info["action_mask"])``, or set the logits of the zeros to -inf.
  The learner is asked at every one of its decisions, a forced one too (one legal action).
* An illegal action ends the episode as a loss: reward ``illegal_reward`` (default -1, below
  any legal outcome, as PettingZoo's ``TerminateIllegalWrapper``), ``terminated`` True and
  ``info["illegal_action"]`` True; the game is abandoned.
* Reward: 0 until the end, then the learner's share of the win (``Game.rewards``: 1 alone,
  1/k in a k-way tie, 0 for a loss) plus ``margin`` times its score lead over the best other
  seat (positive when ahead, in the direction that wins: lower is better in No Thanks!).
* Opponents: one spec string or agent for every other seat, or a list of them, one per other
  seat in seat order. They play through the slow path (``agents/drivers/slow.py``): each
  decides on a fresh copy of its own observation with its own random stream, exactly as in
  ``play_slow``; a seat with one legal action is not asked.
* Seeds: after ``reset(seed=S)`` the episode is game 0 of seed ``S``, each later ``reset()``
  the next game; game ``i`` is ``play_slow(game, rules, seats, S, i, first_player)`` (deal,
  first seat, agent streams). ``first_player``: ``"random"`` (the deal draws it, default),
  ``"rotate"`` or a seat. A game that ends before the learner acts is skipped for the next
  index.
* ``render_mode="ansi"``: ``render()`` returns the public state as text.
"""

from typing import ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from experiments.envs.table import Table, make_rules, render_text
from giftsim.game import load_game
from giftsim.rng import MAX_SEED


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
        first_player="random",
        illegal_reward: float = -1.0,
        secret: int = 0,
        render_mode: str | None = None,
    ):
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        record = load_game(game)
        rules = make_rules(record, players, rules, rule)
        n = rules.n_players
        if not (isinstance(learner_seat, int) and 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be a seat in 0..{n - 1}, got {learner_seat!r}")
        others = [s for s in range(n) if s != learner_seat]
        self.table = Table(game, rules, _bots(opponents, others), first_player, secret)
        self.seat, self.margin, self.illegal_reward = learner_seat, margin, illegal_reward
        self.render_mode = render_mode
        self.observation_space = spaces.Box(self.table.low, self.table.high, dtype=np.float32)
        self.action_space = spaces.Discrete(record.num_actions)
        self.root_seed, self.index, self.done = None, -1, True

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self.root_seed, self.index = int(seed), -1
        elif self.root_seed is None:
            self.root_seed = int(self.np_random.integers(MAX_SEED, dtype=np.uint64))
        self.index = self.table.start(self.root_seed, self.index + 1)
        self.done = False
        return self.table.tensor(self.seat), self._info()

    def step(self, action):
        if self.done:
            raise RuntimeError("the episode is over: call reset() first")
        table = self.table
        if not table.is_legal(action):
            self.done = True
            info = {**self._info(), "illegal_action": True}
            return table.tensor(self.seat), float(self.illegal_reward), True, False, info
        table.advance(action)
        self.done = table.over()
        reward = self._final_reward() if self.done else 0.0
        return table.tensor(self.seat), reward, self.done, False, self._info()

    def render(self):
        if self.render_mode is None:
            return None
        return render_text(self.table)

    def _final_reward(self) -> float:
        share = float(self.table.rewards()[self.seat])
        return share + self.margin * self.table.lead(self.seat) if self.margin else share

    def _info(self) -> dict:
        return {"action_mask": self.table.mask(), "game_index": self.index}


def _bots(opponents, others: list[int]) -> dict:
    """``{seat: spec}`` for the seats ``others`` from one spec or a list of one per seat."""
    if isinstance(opponents, str) and "," in opponents:
        opponents = [s.strip() for s in opponents.split(",")]
    if not isinstance(opponents, list | tuple):
        return dict.fromkeys(others, opponents)
    if len(opponents) != len(others):
        raise ValueError(
            f"opponents: give one spec, or one per other seat ({len(others)}), got {len(opponents)}"
        )
    return dict(zip(others, opponents, strict=True))

"""Any game of ``giftsim.game.GAMES`` as a PettingZoo AEC environment, modelled on
PettingZoo's classic card games (``pettingzoo/classic/``)::

    from experiments.envs.pettingzoo_env import env

    aec = env(game="geschenkt", players=4, render_mode="ansi")
    aec.reset(seed=7)
    for agent in aec.agent_iter():
        observation, reward, termination, truncation, info = aec.last()
        mask = observation["action_mask"]
        action = None if termination else aec.action_space(agent).sample(mask)
        aec.step(action)

* Agents ``player_0`` .. ``player_{n-1}``, one per seat; the agent to act is the seat to act,
  which may act several times in a row (a No Thanks! player who takes decides again). Every
  decision is asked, a forced one too (its mask has one legal action).
* Observation of an agent: ``{"observation": float32 tensor, "action_mask": int8 0/1}``; the
  tensor is ``Game.observe`` + ``Game.encode`` of that seat (layout in ``<game>/tensor.py``,
  bounds ``Game.tensor_bounds``; with ``scale=True`` divided by
  :func:`experiments.policy.tensor_scale`, every entry in [-1, 1]); the mask is
  ``Game.legal_mask`` for the agent to act and all zeros for the others, as in PettingZoo's
  card games. Action space ``Discrete(num_actions)``.
* Rewards: 0 until the end, then each seat's share of the win (``Game.rewards``: 1 for a sole
  winner, ties split, shares sum to 1); every agent terminates at the end; no truncation.
* Rules: ``rules=`` a rules object, or ``players=`` and ``rule=["key=value", ...]`` (the
  command line's ``--rule``). One game per episode.
* Seeds: after ``reset(seed=S)`` the episode is game 0 of seed ``S``; each later ``reset()``
  deals the next game (1, 2, ...). Game ``i`` is dealt by ``Game.deal_keyed(rules,
  game_key(S, i), first, state)``, the same deal and agent streams as
  ``play_slow(game, rules, seats, S, i, first_player)``. ``first_player="random"`` lets the deal
  draw the first seat; ``"rotate"`` gives game ``i`` to seat ``i % n``, as tournaments do; by
  default the seat the rules fix, else ``"random"``; one that contradicts the rules' fixed seat
  is refused. ``reset()`` before any seed draws a random seed.
* Opponents: ``opponents={"player_1": "greedy", "player_2": "random:..."}`` (spec strings or
  agents) puts giftsim agents in those seats. They are not PettingZoo agents: the environment
  steps them itself, through the slow path, each on a fresh copy of its own observation with
  its own random stream, so ``possible_agents`` are the learner seats only. An option rather
  than a wrapper, because the seats leave ``agents``/``rewards``/``agent_iter`` altogether and
  a wrapper would have to rewrite each of them; the plain environment (no ``opponents``) is
  the one PettingZoo's ``api_test`` and ``seed_test`` check, and the test suite runs them with
  opponents too. A game that ends before any learner seat acts is skipped for the next index;
  after 1,000 in a row ``reset`` raises ``EnvError`` (the learners may never act).
* Illegal actions (an integer that is not a legal action id): :class:`raw_env` raises
  :class:`~experiments.envs.table.EnvError` (or, given ``illegal_reward``, ends the game with
  that reward for the offender and 0 for the others, ``info["illegal_action"]`` set).
  :func:`env` is the classic games' setting: ``illegal_reward=-1`` (the outcome of
  PettingZoo's ``TerminateIllegalWrapper``) and the ``OrderEnforcingWrapper``. An action that
  is not an integer, a step before ``reset`` and every bad argument raise ``EnvError`` (a
  ValueError) with one line naming the problem, in both.
* Records: with ``record=True`` every finished game is kept, and ``records()`` (on
  ``env.unwrapped``) returns them as JSON game records (``Game.make_record``, the vector
  environment's format: ``agents`` with ``"learner"`` at the learner seats, ``seed``,
  ``game_index``) that ``giftsim replay`` checks; a game ended by an illegal action is not.
* ``render_mode="ansi"``: ``render()`` returns the public state as text from the view of the
  seat to act (the terminal game's screens, ``experiments/play/<game>.py``);
  ``render_mode="human"`` prints that text and returns None (PettingZoo's ``render_test``).
"""

import secrets
from typing import ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from experiments.envs.table import (
    EnvError,
    Table,
    check_seeds,
    load,
    make_rules,
    render_text,
    seat_name,
)
from experiments.policy import tensor_scale


def env(game: str, illegal_reward: float = -1.0, **kwargs) -> AECEnv:
    """The environment as PettingZoo's classic games hand it out: an illegal or out-of-range
    action ends the game with ``illegal_reward`` for the offender and 0 for the others
    (``TerminateIllegalWrapper``'s outcome, done inside :class:`raw_env`: each wrapper layer
    costs a lookup chain on every attribute, and three of them cut the speed by 5), calls
    checked for order (``OrderEnforcingWrapper``)."""
    return _OrderEnforcing(raw_env(game=game, illegal_reward=illegal_reward, **kwargs))


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper``, whose step or observation before ``reset``
    raises :class:`EnvError` (PettingZoo's own raises an AssertionError)."""

    def step(self, action) -> None:
        if not self._has_reset:
            raise EnvError("no game has begun: call reset() before step()")
        super().step(action)

    def observe(self, agent):
        if not self._has_reset:
            raise EnvError("no game has begun: call reset() before observe()")
        return super().observe(agent)


class raw_env(AECEnv):  # PettingZoo's name for the unwrapped class
    """A game of ``GAMES`` as an AEC environment (see the module docstring)."""

    metadata: ClassVar[dict] = {
        "render_modes": ["ansi", "human"],
        "name": "giftsim_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str,
        players: int | None = None,
        rules=None,
        rule=(),
        opponents=None,
        first_player=None,
        secret: int = 0,
        render_mode: str | None = None,
        illegal_reward: float | None = None,
        record: bool = False,
        scale: bool = False,
    ):
        super().__init__()
        if render_mode not in (None, "ansi", "human"):
            raise EnvError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        entry = load(game)
        rules = make_rules(entry, players, rules, rule)
        bots = _bot_seats(opponents or {}, rules.n_players)
        self.table = Table(game, rules, bots, first_player, secret, record)
        self.render_mode, self.illegal_reward = render_mode, illegal_reward
        self.metadata = {**self.metadata, "name": f"giftsim_{game}_v0"}
        self.possible_agents = [seat_name(s) for s in self.table.learners]
        self._seat = {a: s for a, s in zip(self.possible_agents, self.table.learners, strict=True)}
        low, high = self.table.low, self.table.high
        self.factor = (1.0 / tensor_scale(entry, rules)).astype(np.float32) if scale else None
        if scale:
            low, high = low * self.factor, high * self.factor
        space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (entry.num_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(entry.num_actions) for a in self.possible_agents}
        self.root_seed, self.index, self._kept = None, -1, []

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is not None:
            check_seeds(seed)
            self.root_seed, self.index, self._kept = int(seed), -1, []
        elif self.root_seed is None:
            self.root_seed = secrets.randbits(63)
        self.index = self.table.start(self.root_seed, self.index + 1)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = seat_name(self.table.to_act())

    def observe(self, agent):
        seat = self._seat[agent]
        table = self.table
        mask = table.mask() if agent == self.agent_selection else self._no_actions()
        tensor = table.tensor(seat) if self.factor is None else table.tensor(seat) * self.factor
        return {"observation": tensor, "action_mask": mask}

    def step(self, action):
        if self.table.state is None:
            raise EnvError("no game has begun: call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if not self.table.is_legal(action):
            return self._illegal(agent, action)
        self.table.advance(action)
        if self.table.over():
            shares = self.table.rewards()
            self.rewards = {a: float(shares[self._seat[a]]) for a in self.agents}
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            if self.table.keeps:
                self._kept.append(self.table.record(self.root_seed, self.index))
        else:
            self.agent_selection = seat_name(self.table.to_act())

    def records(self) -> list[dict]:
        """JSON game records of the games finished since the last ``reset(seed=...)`` (with
        ``record=True``), in the order they finished."""
        if not self.table.keeps:
            raise EnvError("records() needs env(..., record=True)")
        return list(self._kept)

    def render(self):
        """The public state as text (``"ansi"``), printed (``"human"``: returns None)."""
        if self.render_mode is None:
            return None
        text = render_text(self.table)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass

    def _illegal(self, agent, action) -> None:
        """Raise ValueError naming the legal actions, or with ``illegal_reward`` end the game."""
        if self.illegal_reward is None:
            self.table.play(action)  # raises
        self.rewards[agent] = float(self.illegal_reward)
        self.infos[agent] = {"illegal_action": True}
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()

    def _no_actions(self) -> np.ndarray:
        return np.zeros(self.table.game.num_actions, np.int8)


def _bot_seats(opponents: dict, n_players: int) -> dict:
    """``{"player_k": spec}`` as ``{k: spec}``, or an EnvError naming the valid agents."""
    names = {seat_name(s): s for s in range(n_players)}
    if not isinstance(opponents, dict):
        example = '{"player_1": "greedy"}'
        raise EnvError(f"opponents is a dict of agent name to spec ({example}), got {opponents!r}")
    unknown = [k for k in opponents if k not in names]
    if unknown:
        raise EnvError(f"unknown opponent seats {unknown} (valid: {', '.join(names)})")
    return {names[k]: spec for k, spec in opponents.items()}

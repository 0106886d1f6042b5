"""The compiled vector environment (``experiments.envs.vector``) as a Stable-Baselines3
``VecEnv``, masks included, so that SB3's algorithms and sb3-contrib's ``MaskablePPO`` train on
it directly (needs ``stable-baselines3``, which needs torch: see the README)::

    from sb3_contrib import MaskablePPO
    from experiments.envs.sb3_vec import GiftsimVecEnv

    venv = GiftsimVecEnv("geschenkt", n_envs=64, players=4, opponents="greedy", scale=True)
    model = MaskablePPO("MlpPolicy", venv, n_steps=128).learn(100_000)

* ``reset()`` returns the lanes' observations; ``step`` the observations, rewards, dones and
  one info dict per lane; a lane whose episode ended auto-resets in the same step (SB3's
  convention) and its info holds ``terminal_observation`` (its last observation), ``lead``,
  ``game_index`` and ``learner_seat``.
* Masks: ``action_masks()`` gives the legal actions of every lane (bool, one row per lane),
  and ``env_method("action_masks")`` the same rows, which is what ``MaskablePPO`` calls.
* Seeds: ``venv.seed(S)`` (which SB3 calls with the model's ``seed``) makes the next
  ``reset()`` start every lane over at seed ``S``. The first ``reset()`` with no seed given
  (to ``seed()`` or the constructor) draws a random one, as SB3's own vector environments and
  Gymnasium do (``venv.env.seed`` holds it); it had played seed 0.
* Observations are the tensors, divided by :func:`experiments.policy.tensor_scale` with
  ``scale=True``; the other keyword arguments go to
  :class:`~experiments.envs.vector.VectorEnv` (seats, opponents, rules, margin, records), which
  is ``venv.env``.
"""

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from experiments.envs.gym_vector import observation_scaling
from experiments.envs.vector import VectorEnv
from giftsim.rng import MAX_SEED


class GiftsimVecEnv(VecEnv):
    """``n_envs`` lanes of the compiled vector environment behind SB3's ``VecEnv`` (see the
    module docstring)."""

    render_mode = None

    def __init__(
        self,
        game: str,
        n_envs: int = 64,
        players: int = 4,
        learner_seat="rotate",
        opponents="random",
        scale: bool = False,
        **kwargs,
    ):
        self.env = VectorEnv(game, n_envs, players, learner_seat, opponents, **kwargs)
        self.factor, observation_space = observation_scaling(self.env, scale)
        action_space = spaces.Discrete(self.env.num_actions)
        super().__init__(self.env.n_envs, observation_space, action_space)
        self._mask = np.zeros((self.num_envs, self.env.num_actions), np.bool_)
        self._actions = None
        self._seeded = "seed" in kwargs  # a seed given: reset() plays it, draws none

    def reset(self):
        seed = self._seeds[0]
        self._reset_seeds()
        if seed is None and not self._seeded:
            seed = int(np.random.default_rng().integers(MAX_SEED, dtype=np.uint64))
        self._seeded = True
        obs, self._mask = self.env.reset(seed)
        return self._scaled(obs)

    def step_async(self, actions) -> None:
        self._actions = actions

    def step_wait(self):
        obs, self._mask, rewards, dones, info = self.env.step(self._actions)
        infos = [{} for _ in range(self.num_envs)]
        if dones.any():
            finals = self._scaled(info["final_obs"])
            for i in np.flatnonzero(dones):
                infos[i] = {
                    "terminal_observation": finals[i],
                    "lead": float(info["lead"][i]),
                    "game_index": int(info["game_index"][i]),
                    "learner_seat": int(info["learner_seat"][i]),
                }
        return self._scaled(obs), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every lane (bool, one row per lane)."""
        return self._mask

    def close(self) -> None:
        self.env.close()

    def get_attr(self, attr_name: str, indices=None) -> list:
        """This environment's attribute ``attr_name``, once per lane of ``indices``."""
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        """``action_masks``: the rows of the lanes ``indices`` (one array); any other method
        of this environment is called once and its answer given per lane."""
        lanes = self._indices(indices)
        if method_name == "action_masks":
            return self._mask[lanes]
        answer = getattr(self, method_name)(*method_args, **method_kwargs)
        return [answer] * len(lanes)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        return [indices] if isinstance(indices, int) else list(indices)

    def _scaled(self, obs: np.ndarray) -> np.ndarray:
        return obs if self.factor is None else obs * self.factor

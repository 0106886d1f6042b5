"""The compiled vector environment (``experiments.envs.vector``) as a Gymnasium ``VectorEnv``::

    from experiments.envs.gym_vector import GiftsimVectorEnv

    envs = GiftsimVectorEnv("geschenkt", n_envs=64, players=4, opponents="greedy", scale=True)
    observations, infos = envs.reset(seed=7)
    for _ in range(100):
        actions = envs.action_space.sample(mask=tuple(infos["action_mask"].astype("int8")))
        observations, rewards, terminations, truncations, infos = envs.step(actions)

* Spaces: ``single_observation_space`` is the tensor's ``Box`` (``Game.tensor_bounds``, divided
  by :func:`experiments.policy.tensor_scale` with ``scale=True``, so that every entry lies in
  [-1, 1]), ``single_action_space`` ``Discrete(num_actions)``; ``observation_space`` and
  ``action_space`` their batches (``MultiDiscrete`` actions).
* Masks: ``infos["action_mask"]`` (bool, one row per lane) after every reset and step, and
  ``envs.action_masks()`` (the same rows).
* Autoreset: same-step (``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``), as the
  vector environment does it: a lane whose episode ended returns ``terminations`` True and the
  first observation of its next episode; its last one is ``infos["final_obs"][i]`` and
  ``infos["final_info"]`` holds ``lead``, ``game_index`` and ``learner_seat`` (each with its
  ``_key`` mask, Gymnasium's layout). There is no truncation.
* Everything else (seats, opponents, seeds, rewards, records, bad input) is the vector
  environment's: the keyword arguments go to :class:`~experiments.envs.vector.VectorEnv`, and
  ``envs.env`` is that environment. ``reset(seed=S)`` starts every lane over at seed ``S``.
  The first ``reset()`` without a seed (none given to the constructor either) draws a random
  one (Gymnasium's convention, as ``GiftsimEnv``'s; ``envs.env.seed`` holds it); each later
  ``reset()`` begins every lane's next episode under the same seed.
"""

from typing import ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector import VectorEnv as GymnasiumVectorEnv
from gymnasium.vector.utils import batch_space

from experiments.envs.table import check_seeds
from experiments.envs.vector import VectorEnv
from experiments.policy import tensor_scale
from giftsim.rng import MAX_SEED


class GiftsimVectorEnv(GymnasiumVectorEnv):
    """``n_envs`` lanes of the compiled vector environment behind Gymnasium's vector API (see
    the module docstring); ``scale=True`` divides every tensor by its entries' scale."""

    metadata: ClassVar[dict] = {"autoreset_mode": AutoresetMode.SAME_STEP}

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
        self.num_envs = self.env.n_envs
        self.factor, self.single_observation_space = observation_scaling(self.env, scale)
        self.single_action_space = spaces.Discrete(self.env.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._mask = np.zeros((self.num_envs, self.env.num_actions), np.bool_)
        self._seeded = "seed" in kwargs  # a seed given: reset() plays it, draws none

    def reset(self, *, seed: int | None = None, options=None):
        """Every lane's first decision; without a seed ever given, under a random seed."""
        if seed is not None:
            check_seeds(seed)
        super().reset(seed=seed)
        if seed is None and not self._seeded:
            seed = int(self.np_random.integers(MAX_SEED, dtype=np.uint64))
        self._seeded = True
        obs, self._mask = self.env.reset(seed)
        return self._scaled(obs), {"action_mask": self._mask}

    def step(self, actions):
        obs, self._mask, rewards, dones, info = self.env.step(actions)
        infos = {"action_mask": self._mask}
        if dones.any():
            infos.update(self._finals(dones, info))
        truncations = np.zeros(self.num_envs, np.bool_)
        return self._scaled(obs), rewards, dones, truncations, infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every lane (bool, one row per lane)."""
        return self._mask

    def close_extras(self, **kwargs) -> None:
        """Close the compiled vector environment (``close()`` calls this once)."""
        self.env.close()

    def _scaled(self, obs: np.ndarray) -> np.ndarray:
        return obs if self.factor is None else obs * self.factor

    def _finals(self, dones, info) -> dict:
        """Gymnasium's same-step layout of the finished lanes' last observations and infos."""
        final_obs = np.full(self.num_envs, None, dtype=object)
        finals = self._scaled(info["final_obs"])
        for i in np.flatnonzero(dones):
            final_obs[i] = finals[i]
        keys = ("lead", "game_index", "learner_seat")
        final_info = {key: info[key] for key in keys} | {f"_{key}": dones for key in keys}
        return {
            "final_obs": final_obs,
            "_final_obs": dones,
            "final_info": final_info,
            "_final_info": dones,
        }


def observation_scaling(env: VectorEnv, scale: bool):
    """The factor that scales a vector environment's tensors (None without ``scale``) and the
    ``Box`` of one scaled tensor."""
    low, high = env.game.tensor_bounds(env.rules)
    if not scale:
        return None, spaces.Box(low, high, dtype=np.float32)
    factor = (1.0 / tensor_scale(env.game, env.rules)).astype(np.float32)
    return factor, spaces.Box(low * factor, high * factor, dtype=np.float32)


def lanes(num_envs: int = 64, **kwargs) -> GiftsimVectorEnv:
    """Gymnasium's ``vector_entry_point`` of the registered ids: ``gymnasium.make_vec(id,
    num_envs)`` gives ``num_envs`` lanes of the compiled vector environment."""
    return GiftsimVectorEnv(n_envs=num_envs, **kwargs)

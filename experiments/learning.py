"""A small learning example on the vector environment (``experiments.envs.vector``): a linear
softmax policy over the observation tensor, trained with REINFORCE in NumPy, and its wrapping
as a giftsim agent so that the project's own tournament code can evaluate it.

The policy: ``logits = (tensor / scale) @ weights`` (one column per action; ``scale`` is each
entry's largest magnitude from ``Game.tensor_bounds``), illegal actions masked out. Training
is episodic REINFORCE with a running-mean baseline: each lane keeps the sum of ``x (onehot(a)
- p)`` over its decisions of the episode (the gradient of its log-probability), and when the
episode ends adds it times ``(reward - baseline)`` to the step's update.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numba import njit

from agents.registry import define
from experiments import stats
from experiments.envs.vector import VectorEnv
from experiments.policy import tensor_scale
from giftsim.game import load_game


@dataclass
class Curve:
    """Mean reward of the learner per bin of finished episodes (the learning curve), with a
    95% interval for each bin's mean (``stats.share_interval``: the bin's games are
    independent deals, each a share of the win in [0, 1])."""

    episodes: np.ndarray  # episodes finished at the end of each bin
    reward: np.ndarray  # mean reward (share of the win) over the bin's episodes
    low: np.ndarray  # the 95% interval of each bin's mean
    high: np.ndarray
    size: int  # episodes per bin

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "episodes": self.episodes,
                "reward": self.reward,
                "ci_low": self.low,
                "ci_high": self.high,
                "games": self.size,
            }
        )


def _softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    logits = np.where(mask, logits, -np.inf)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True)


def _sample(rng, p: np.ndarray) -> np.ndarray:
    u = rng.random((p.shape[0], 1))
    return np.minimum((p.cumsum(axis=1) < u).sum(axis=1), p.shape[1] - 1)


def train_reinforce(
    game: str,
    opponents,
    episodes: int,
    n_players: int = 4,
    n_envs: int = 256,
    lr: float = 0.05,
    seed: int = 0,
    bins: int = 50,
    margin: float = 0.0,
) -> tuple[np.ndarray, Curve]:
    """Train a linear softmax policy for ``episodes`` episodes against ``opponents`` (the
    learner's seat rotates) on the reward ``share of the win + margin * score lead``; return
    its weights ``(tensor_size, num_actions)`` and its learning curve (share of the win) in
    ``bins`` bins."""
    env = VectorEnv(game, n_envs, n_players, "rotate", opponents, seed=seed, margin=margin)
    scale = tensor_scale(env.game, env.rules)
    weights = np.zeros((env.tensor_size, env.num_actions), np.float64)
    traces = np.zeros((n_envs, *weights.shape))
    rng, baseline, rewards_seen = np.random.default_rng(seed), 0.0, []
    obs, mask = env.reset()
    while len(rewards_seen) < episodes:
        x = obs / scale
        p = _softmax(x @ weights, mask)
        actions = _sample(rng, p)
        traces += x[:, :, None] * (np.eye(env.num_actions)[actions] - p)[:, None, :]
        obs, mask, rewards, dones, info = env.step(actions)
        if dones.any():
            done = np.flatnonzero(dones)
            advantage = rewards[done] - baseline
            weights += lr * np.tensordot(advantage, traces[done], axes=1) / n_envs
            traces[done] = 0.0
            baseline += 0.01 * (rewards[done].mean() - baseline)
            shares = rewards[done] - np.float32(margin) * info["lead"][done]
            rewards_seen.extend(shares.tolist())
    return weights, _curve(np.array(rewards_seen[:episodes]), bins)


def _curve(rewards: np.ndarray, bins: int) -> Curve:
    size = max(1, len(rewards) // bins)
    used = rewards[: size * (len(rewards) // size)].reshape(-1, size)
    mean = used.mean(axis=1)
    se = used.std(axis=1, ddof=1) / np.sqrt(size) if size > 1 else np.full(len(mean), np.nan)
    low, high = stats.share_interval(mean, se, size)
    return Curve(size * np.arange(1, used.shape[0] + 1), mean, low, high, size)


def linear_agent(game: str, name: str, weights: np.ndarray, n_players: int):
    """Register the greedy (argmax) version of a trained linear policy as a compiled user agent
    ``name``: it encodes its observation (``Game.encode``) and takes the highest logit. The
    weights are frozen into the compiled code as constants.

    The agent takes the argmax over all actions, so it suits games where every action is legal
    whenever a seat is asked (No Thanks!: the only forced move, taking without chips, is not
    asked); elsewhere it needs the legal set, which this compiled agent does not read:
    :func:`experiments.policy.from_policy` plays any policy with the legal mask (slow path)."""
    definition = load_game(game)
    rules = definition.rules(n_players=n_players)
    size, scale = definition.tensor_size(rules), tensor_scale(definition, rules)
    w = np.ascontiguousarray(weights / scale[:, None])
    encode = definition.encode

    @njit
    def decide(obs, params, rng):
        tensor = np.zeros(size, np.float32)
        encode(obs, tensor)
        best, best_logit = 0, -np.inf
        for a in range(w.shape[1]):
            logit = 0.0
            for k in range(size):
                logit += tensor[k] * w[k, a]
            if logit > best_logit:
                best, best_logit = a, logit
        return np.int64(best)

    decide.__doc__ = f"A linear policy trained with REINFORCE on the vector env ({n_players}p)."
    return define(game, name, decide)

"""From zero to a trained agent: sb3-contrib's MaskablePPO on giftsim's compiled vector
environment, then the trained policy as a giftsim agent, evaluated on fresh deals.

    pip install 'giftsim[sb3]'   # stable-baselines3, sb3-contrib; CPU torch: see the README
    python examples/maskable_ppo.py --game geschenkt --players 4 --minutes 5

1. Training: ``GiftsimVecEnv`` (``experiments/envs/sb3_vec.py``) runs ``--lanes`` games at once
   in the compiled kernels, the learner's seat rotating, ``--opponents`` at the other seats;
   tensors scaled into [-1, 1] (``scale=True``), masks where MaskablePPO reads them, reward the
   share of the win plus ``--margin`` times the score lead. Training stops after ``--minutes``
   of wall time or ``--steps`` learner decisions, whichever comes first.
2. The policy becomes an agent (``experiments.policy.from_policy``: it encodes each decision's
   tensor and mask as the environment did) and enters a field tournament
   (``experiments.batch.field``): it takes every seat in turn against ``--opponents`` on
   ``--deals`` deals of ``--eval-seed``, a seed training never saw. Its share of the wins
   comes with a 95% interval over deals.

``--save FILE`` keeps the model (``MaskablePPO.load``); an agents module that calls
``from_policy`` on it plays in ``giftsim tournament`` and ``giftsim play``.
"""

import argparse
import sys
import time

try:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecMonitor
except ImportError as missing:  # the optional extra is not installed: say so in one line
    sys.exit(
        f"maskable_ppo.py needs {missing.name} (pip install 'giftsim[sb3]', with CPU torch as the "
        "README shows)"
    )

from experiments.batch import field
from experiments.envs.sb3_vec import GiftsimVecEnv
from experiments.policy import from_policy


class WallClock(BaseCallback):
    """Stop training after ``seconds`` of wall time."""

    def __init__(self, seconds: float):
        super().__init__()
        self.seconds, self.start = seconds, time.perf_counter()

    def _on_step(self) -> bool:
        return time.perf_counter() - self.start < self.seconds


def train(args) -> MaskablePPO:
    """MaskablePPO trained on the vector environment for the budget of ``args``."""
    venv = GiftsimVecEnv(
        args.game,
        n_envs=args.lanes,
        players=args.players,
        opponents=args.opponents,
        scale=True,
        margin=args.margin,
        seed=args.seed,
    )
    model = MaskablePPO(
        "MlpPolicy",
        VecMonitor(venv),
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=4,
        learning_rate=3e-4,
        ent_coef=0.01,
        gamma=1.0,
        policy_kwargs={"net_arch": [128, 128]},
        seed=args.seed,
    )
    return model.learn(args.steps, callback=WallClock(60 * args.minutes))


def evaluate(args, model) -> dict:
    """The trained policy's share of the wins against ``--opponents`` on fresh deals."""
    from_policy(args.game, args.name, model, players=args.players, scale=True)
    return field(args.game, args.name, args.opponents, args.players, args.deals, args.eval_seed)


def main(argv=None) -> dict:
    args = _parser().parse_args(argv)
    torch.set_num_threads(args.threads)
    start = time.perf_counter()
    model = train(args)
    seconds = time.perf_counter() - start
    print(
        f"trained {args.name}: {model.num_timesteps:,} learner steps in {seconds:.0f} s "
        f"({model.num_timesteps / seconds:,.0f} steps/s), {args.lanes} lanes against "
        f"{args.players - 1} x {args.opponents}, training seed {args.seed}"
    )
    if args.save:
        model.save(args.save)
    result = evaluate(args, model)
    low, high = max(result["ci95"][0], 0.0), min(result["ci95"][1], 1.0)
    print(
        f"{args.name} vs {args.players - 1} x {args.opponents}, {args.game}, {args.players} "
        f"players, {args.deals:,} fresh deals of seed {args.eval_seed} (every seat in turn, "
        f"{result['games']:,} games): win share {result['win_share']:.3f} "
        f"[{low:.3f}, {high:.3f}] (95% interval over deals, clipped to [0, 1]; fair share "
        f"{result['fair']:.3f})"
    )
    return {**result, "steps": model.num_timesteps, "seconds": seconds}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="geschenkt", help="geschenkt or tulips")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--opponents", default="greedy", help="the agent at every other seat")
    p.add_argument("--minutes", type=float, default=5.0, help="training budget, wall time")
    p.add_argument("--steps", type=int, default=10**9, help="training budget, learner steps")
    p.add_argument("--lanes", type=int, default=64, help="games stepped at once")
    p.add_argument("--n-steps", type=int, default=128, help="PPO rollout length per lane")
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--margin", type=float, default=0.01, help="reward weight of the score lead")
    p.add_argument("--seed", type=int, default=1, help="training seed")
    p.add_argument("--eval-seed", type=int, default=777_000, help="seed of the fresh deals")
    p.add_argument("--deals", type=int, default=1000, help="evaluation deals")
    p.add_argument("--name", default="ppo", help="the trained agent's name")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--save", help="write the trained model here (.zip)")
    return p


if __name__ == "__main__":
    main()

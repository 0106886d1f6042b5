"""From zero to a trained agent with PettingZoo: every seat of the AEC environment plays one
shared linear softmax policy (self-play), trained with REINFORCE in NumPy; then the policy
becomes a giftsim agent and enters a field tournament on fresh deals.

    python examples/pettingzoo_selfplay.py --game geschenkt --players 4 --minutes 3

1. Training: ``env(game, players=n)`` (``experiments/envs/pettingzoo_env.py``) asks each seat
   in turn for an action from its observation ``{"observation", "action_mask"}``; the policy
   is ``softmax(x @ W)`` over the legal actions, ``x`` the tensor scaled into [-1, 1]. At the
   end of a game each seat's reward is its share of the win; REINFORCE moves ``W`` along each
   seat's summed ``x (onehot(a) - p)`` times (its share - 1/n). ``--opponents greedy`` puts
   giftsim bots at every seat but the first instead (the environment steps them).
2. The greedy version of the policy (the highest legal logit) becomes an agent
   (``experiments.policy.from_policy``) and plays ``--deals`` fresh deals against
   ``--baseline``, taking every seat in turn; its share of the wins comes with a 95% interval
   over deals.
"""

import argparse
import time

import numpy as np

from experiments.batch import field
from experiments.envs.pettingzoo_env import env
from experiments.policy import from_policy, tensor_scale


def train(args) -> np.ndarray:
    """The weights ``(tensor_size, num_actions)`` after ``--minutes`` or ``--games`` games."""
    bots = {f"player_{s}": args.opponents for s in range(1, args.players)} if args.opponents else {}
    aec = env(args.game, players=args.players, opponents=bots)
    table = aec.unwrapped.table
    factor = 1.0 / tensor_scale(table.game, table.rules)
    weights = np.zeros((table.size, table.game.num_actions))
    rng, start, games = np.random.default_rng(args.seed), time.perf_counter(), 0
    while games < args.games and time.perf_counter() - start < 60 * args.minutes:
        aec.reset(seed=args.seed if games == 0 else None)
        traces, shares = _play(aec, weights, factor, rng)
        for agent, trace in traces.items():
            weights += args.lr * (shares[agent] - 1 / args.players) * trace
        games += 1
    print(f"trained a linear policy on {games:,} games in {time.perf_counter() - start:.0f} s")
    return weights


def _play(aec, weights, factor, rng):
    """One game: each agent's summed ``x (onehot(a) - p)`` and its share of the win."""
    seen, shares = {}, {}  # agent -> its tensors and its (onehot(a) - p) rows
    for agent in aec.agent_iter():
        observation, reward, termination, truncation, _ = aec.last()
        if termination or truncation:
            shares[agent] = reward
            aec.step(None)
            continue
        x, mask = observation["observation"] * factor, observation["action_mask"].astype(bool)
        p = _softmax(x @ weights, mask)
        action = min(int(np.searchsorted(p.cumsum(), rng.random())), len(p) - 1)
        xs, gs = seen.setdefault(agent, ([], []))
        xs.append(x)
        gs.append(-p)
        gs[-1][action] += 1.0
        aec.step(action)
    traces = {agent: np.array(xs).T @ np.array(gs) for agent, (xs, gs) in seen.items()}
    return traces, shares


def _softmax(logits, mask):
    logits = np.where(mask, logits, -np.inf)
    p = np.exp(logits - logits.max())
    return p / p.sum()


def main(argv=None) -> dict:
    args = _parser().parse_args(argv)
    weights = train(args)
    from_policy(args.game, args.name, lambda x, mask: x @ weights, players=args.players, scale=True)
    result = field(args.game, args.name, args.baseline, args.players, args.deals, args.eval_seed)
    low, high = max(result["ci95"][0], 0.0), min(result["ci95"][1], 1.0)
    print(
        f"{args.name} vs {args.players - 1} x {args.baseline}, {args.game}, {args.players} "
        f"players, {args.deals:,} fresh deals of seed {args.eval_seed} ({result['games']:,} "
        f"games): win share {result['win_share']:.3f} [{low:.3f}, {high:.3f}] (95% interval "
        f"over deals, clipped to [0, 1]; fair share {result['fair']:.3f})"
    )
    return result


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="geschenkt", help="geschenkt or tulips")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--opponents", help="a giftsim agent at every seat but the first")
    p.add_argument("--minutes", type=float, default=3.0, help="training budget, wall time")
    p.add_argument("--games", type=int, default=10**9, help="training budget, games")
    p.add_argument("--lr", type=float, default=0.01, help="REINFORCE step size")
    p.add_argument("--seed", type=int, default=1, help="training seed")
    p.add_argument("--baseline", default="greedy", help="the evaluation's other seats")
    p.add_argument("--eval-seed", type=int, default=777_000, help="seed of the fresh deals")
    p.add_argument("--deals", type=int, default=1000, help="evaluation deals")
    p.add_argument("--name", default="selfplay", help="the trained agent's name")
    return p


if __name__ == "__main__":
    main()

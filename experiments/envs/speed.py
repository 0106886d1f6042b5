"""The learning environments' speed, measured in one run: the README's one table of them::

    python -m experiments.envs.speed              # every game at its bench table
    python -m experiments.envs.speed --repeats 5
    python -m experiments.envs.speed --maskable-ppo   # MaskablePPO's rollouts (needs giftsim[sb3])

Method: one process, one core. Every environment plays the game's bench table
(``Roster.bench.vector``: 4 players, the others ``greedy``); the learner takes a uniformly
random legal action drawn in NumPy from the mask the environment gave (PettingZoo: every seat
does). A figure counts the learner's decisions per second of wall time, the NumPy draw
included, best of ``repeats`` timed runs after a warm-up that compiles; episodes reset as they
end. The vector environments run ``lanes`` games at once and count every lane's decision.
The kernel row is the compiled game loop itself (``experiments.batch.play``: a ``random`` seat
and the table's opponents, no Python between decisions) in games per second, beside which
the vector environment's episodes per second show how much of the loop's speed a learner keeps.
The last rows are ratios of figures above (the vector environment's episodes per loop game;
the SB3 VecEnv's steps per Gymnasium ``GiftsimEnv`` step), which a shared machine's load
moves less than the figures themselves.
"""

import argparse
import time

import numpy as np

from agents.roster import roster
from giftsim.game import GAMES, load_game

LANES = 256


def best_rate(run, units: int, repeats: int) -> float:
    """``units`` per second of ``run()``: the best of ``repeats`` timed calls after one
    untimed call (compilation, first allocations)."""
    run()
    best = min(_timed(run) for _ in range(repeats))
    return units / best


def _timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def _random(rng, mask):
    """A uniformly random legal action per row of a boolean mask."""
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def kernel_games(game: str, players: int, opponent: str, games: int, repeats: int) -> float:
    """Games per second of the compiled loop: a ``random`` seat and ``opponent`` elsewhere."""
    from experiments.batch import play

    agents = ["random"] + [opponent] * (players - 1)
    return best_rate(lambda: play(game, agents, games, seed=1, as_frame=False), games, repeats)


def vector_steps(env, steps: int, repeats: int, step=None) -> tuple[float, float]:
    """Learner steps and finished episodes per second of a vector environment ``env`` (its
    ``step`` unless given) with random legal learner actions."""
    rng, state, episodes = np.random.default_rng(1), {"mask": None}, []
    state["mask"] = _reset(env)

    def run():
        done = 0
        for _ in range(steps):
            state["mask"], dones = (step or _step)(env, _random(rng, state["mask"]))
            done += int(dones.sum())
        episodes.append(done)

    rate = best_rate(run, steps * _lanes(env), repeats)
    return rate, rate * np.mean(episodes) / (steps * _lanes(env))


def _lanes(env) -> int:
    return getattr(env, "n_envs", None) or env.num_envs


def _reset(env):
    if hasattr(env, "step_async"):  # Stable-Baselines3
        env.reset()
        return env.action_masks()
    out = env.reset()
    return out[1] if not isinstance(out[1], dict) else out[1]["action_mask"]


def _step(env, actions):
    """One step of a VectorEnv, a Gymnasium VectorEnv or an SB3 VecEnv: (mask, dones)."""
    if hasattr(env, "step_async"):
        env.step_async(actions)
        _, _, dones, _ = env.step_wait()
        return env.action_masks(), dones
    out = env.step(actions)
    if isinstance(out[-1], dict) and "action_mask" in out[-1]:  # Gymnasium
        return out[-1]["action_mask"], out[2]
    return out[1], out[3]


def aec_steps(game: str, players: int, steps: int, repeats: int) -> float:
    """PettingZoo ``env()`` (the wrapped AEC environment), every seat random and legal."""
    from experiments.envs.pettingzoo_env import env

    aec, rng = env(game, players=players), np.random.default_rng(1)
    aec.reset(seed=1)

    def run():
        done = 0
        while done < steps:
            for _ in aec.agent_iter():
                observation, _, termination, _, _ = aec.last()
                if termination:
                    aec.step(None)
                    continue
                legal = np.flatnonzero(observation["action_mask"])
                aec.step(int(legal[rng.integers(len(legal))]))
                done += 1
            aec.reset()

    return best_rate(run, steps, repeats)


def gym_steps(game: str, players: int, opponent: str, steps: int, repeats: int) -> float:
    """Gymnasium ``GiftsimEnv``: the learner at seat 0, random and legal."""
    from experiments.envs.gym_env import GiftsimEnv

    env, rng = GiftsimEnv(game, players=players, opponents=opponent), np.random.default_rng(1)
    state = {"info": env.reset(seed=1)[1]}

    def run():
        for _ in range(steps):
            legal = np.flatnonzero(state["info"]["action_mask"])
            _, _, over, _, state["info"] = env.step(int(legal[rng.integers(len(legal))]))
            if over:
                state["info"] = env.reset()[1]

    return best_rate(run, steps, repeats)


def python_opponent(tensors, masks):
    """A random legal action per row: the batched Python opponent of the slow-path row."""
    return _random(np.random.default_rng(len(tensors)), masks)


def rows(game: str, repeats: int, quick: bool = False) -> dict[str, str]:
    """Every figure of one game, formatted: interface -> steps/s (or games/s)."""
    from experiments.envs.gym_vector import GiftsimVectorEnv
    from experiments.envs.vector import VectorEnv

    players, opponent = roster(game).bench.vector
    scale = 0.05 if quick else 1.0
    vec, decisions = int(400 * scale) or 1, int(20_000 * scale)
    games = kernel_games(game, players, opponent, int(50_000 * scale), repeats)
    out = {"kernel": f"{games:,.0f} games/s"}
    for lanes, copy in ((LANES, True), (LANES, False), (4 * LANES, False)):
        env = VectorEnv(game, lanes, players, "rotate", opponent, seed=1, copy=copy)
        steps, episodes = vector_steps(env, max(vec * LANES // lanes, 1), repeats)
        label = f"VectorEnv, {lanes} lanes, {'new arrays' if copy else 'its own buffers'}"
        out[label] = f"{steps:,.0f} ({episodes:,.0f} episodes/s)"
        if (lanes, copy) == (LANES, False):
            kept = episodes / games
    gymv = GiftsimVectorEnv(game, LANES, players, "rotate", opponent, seed=1)
    out[f"Gymnasium VectorEnv ({LANES} lanes)"] = f"{vector_steps(gymv, vec, repeats)[0]:,.0f}"
    sb3 = _sb3(game, players, opponent, vec, repeats)
    out[f"SB3 VecEnv ({LANES} lanes)"] = (
        "(stable-baselines3 not installed)" if sb3 is None else f"{sb3:,.0f}"
    )
    slow = VectorEnv(game, 64, players, "rotate", python_opponent, seed=1)
    slow_steps = vector_steps(slow, vec // 10 or 1, repeats)[0]
    out["VectorEnv, 64 lanes, Python opponents"] = f"{slow_steps:,.0f}"
    single = gym_steps(game, players, opponent, decisions, repeats)
    out["Gymnasium GiftsimEnv"] = f"{single:,.0f}"
    out["PettingZoo env(), every seat"] = f"{aec_steps(game, players, decisions, repeats):,.0f}"
    out[f"VectorEnv ({LANES} lanes, its own buffers) episodes / kernel games"] = f"{kept:.2f}"
    if sb3 is not None:
        out["SB3 VecEnv / Gymnasium GiftsimEnv"] = f"{sb3 / single:.0f} times"
    return out


def _sb3(game, players, opponent, steps, repeats) -> float | None:
    """Learner steps/s of the SB3 VecEnv; None without stable-baselines3."""
    try:
        from experiments.envs.sb3_vec import GiftsimVecEnv
    except ImportError:
        return None
    venv = GiftsimVecEnv(game, LANES, players, "rotate", opponent, seed=1)
    return vector_steps(venv, steps, repeats)[0]


def ppo_rollouts(game: str, rollouts: int = 3) -> tuple[float, float]:
    """Learner steps per second of sb3-contrib's MaskablePPO collecting rollouts (its network's
    forward pass included, its updates not) on ``GiftsimVecEnv`` (64 lanes) and on SB3's
    ``DummyVecEnv`` of 8 ``GiftsimEnv``, ``rollouts`` rollouts each, on the bench table."""
    import torch
    from stable_baselines3.common.env_util import make_vec_env

    from experiments.envs.gym_env import GiftsimEnv
    from experiments.envs.sb3_vec import GiftsimVecEnv

    torch.set_num_threads(1)
    players, opponent = roster(game).bench.vector
    fast = GiftsimVecEnv(game, 64, players, "rotate", opponent, scale=True, seed=1)
    single = dict(players=players, opponents=opponent, scale=True)
    dummy = make_vec_env(lambda: GiftsimEnv(game, **single), n_envs=8)
    return _rollout_rate(fast, 128, rollouts), _rollout_rate(dummy, 1024, rollouts)


def _rollout_rate(venv, n_steps: int, rollouts: int) -> float:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    class Clock(BaseCallback):
        """Wall time spent collecting rollouts."""

        def __init__(self):
            super().__init__()
            self.seconds, self.start = 0.0, 0.0

        def _on_rollout_start(self):
            self.start = time.perf_counter()

        def _on_rollout_end(self):
            self.seconds += time.perf_counter() - self.start

        def _on_step(self) -> bool:
            return True

    clock = Clock()
    model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=512, n_epochs=1, seed=1)
    model.learn(rollouts * n_steps * venv.num_envs, callback=clock)
    return model.num_timesteps / clock.seconds


def table(games, repeats: int, quick: bool = False) -> str:
    """The markdown table: one row per interface, one column per game."""
    columns = {game: rows(game, repeats, quick) for game in games}
    titles = [f"{load_game(g).title}, {roster(g).bench.vector[0]} players" for g in games]
    lines = ["| learner steps/s, one core | " + " | ".join(titles) + " |"]
    lines.append("|---" * (len(games) + 1) + "|")
    for label in next(iter(columns.values())):
        lines.append(f"| {label} | " + " | ".join(columns[g][label] for g in games) + " |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per figure (best)")
    parser.add_argument("--quick", action="store_true", help="5%% of the work (a smoke test)")
    parser.add_argument(
        "--maskable-ppo",
        action="store_true",
        help="instead: MaskablePPO's rollouts on the SB3 VecEnv and a DummyVecEnv of Gym envs",
    )
    args = parser.parse_args(argv)
    if args.maskable_ppo:
        for game in GAMES:
            fast, dummy = ppo_rollouts(game)
            print(
                f"{game}: MaskablePPO rollouts, GiftsimVecEnv (64 lanes) {fast:,.0f} learner "
                f"steps/s, DummyVecEnv of 8 GiftsimEnv {dummy:,.0f}: {fast / dummy:.1f} times"
            )
        return
    print(table(list(GAMES), args.repeats, args.quick))


if __name__ == "__main__":
    main()

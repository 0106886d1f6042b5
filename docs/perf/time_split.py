"""A measurement aid: where the CPU time of an all-``greedy`` Gift of Tulips table goes.

Plays the same 4-player games four ways, one core, CPU time, best of three after a warm-up:

- the project's game loop (``experiments.batch.play``, as ``giftsim bench`` times it);
- the hand-fused loop of ``fused_loops.py`` (``greedy`` called on the live state, no entry);
- the engine alone, replaying the actions those games took (deal, steps, end and result row:
  what no agent or loop can save);
- the deal alone.

The difference of the first and the third is the agents' and the loop's share. Every replay
is checked against the loop's rows first, so the four time the same games.

    python docs/perf/time_split.py [GAMES]
"""

import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

from agents.tulips import greedy
from experiments.batch import play
from giftsim.bits import lowest_bit
from giftsim.contract import FIRST_ROTATE, first_seat
from giftsim.game import N_PLAYERS, load_game
from giftsim.rng import agent_stream, game_key

sys.path.insert(0, str(Path(__file__).parent))
from fused_loops import fused_rows

TU = load_game("tulips")
DEAL, BEGIN, OVER, MASK, APPLY = TU.deal_keyed, TU.begin, TU.is_over, TU.legal_mask, TU.apply_action
ROW, TURN, SIZE, OBS = TU.result_row, TU.turn_slot, TU.state_size, TU.obs_size
PLAYERS, SEED, MAX_STEPS = 4, 1, 250


@njit
def recorded(rules_vec, out, actions):
    """All-greedy games ``0 ..`` of seed 1 as the loop plays them, every action into ``actions``."""
    n = rules_vec[N_PLAYERS]
    state, params, rngs = np.zeros(SIZE, np.int64), np.zeros(8), np.zeros(8, np.uint64)
    for g in range(out.shape[0]):
        key = game_key(SEED, g)
        DEAL(rules_vec, key, first_seat(FIRST_ROTATE, g, n), state)
        BEGIN(state)
        for s in range(n):
            rngs[s] = agent_stream(key, np.uint64(0), s)
        step = 0
        while not OVER(state):
            mask = MASK(state)
            if mask & (mask - 1) == 0:
                action = lowest_bit(mask)
            else:
                seat = state[TURN]
                action = greedy.decide(state[:OBS], params, rngs[seat : seat + 1])
            actions[g, step] = action
            step += 1
            APPLY(state, action)
        ROW(state, n, 1, 0, out, g)


@njit
def replayed(rules_vec, actions, out):
    """The engine alone: the same games from their recorded actions."""
    n = rules_vec[N_PLAYERS]
    state = np.zeros(SIZE, np.int64)
    for g in range(actions.shape[0]):
        DEAL(rules_vec, game_key(SEED, g), first_seat(FIRST_ROTATE, g, n), state)
        BEGIN(state)
        step = 0
        while not OVER(state):
            APPLY(state, actions[g, step])
            step += 1
        ROW(state, n, 1, 0, out, g)


@njit
def dealt(rules_vec, n_games):
    """The deal alone (a slot summed so that the deals are not optimised away)."""
    n = rules_vec[N_PLAYERS]
    state, total = np.zeros(SIZE, np.int64), 0
    for g in range(n_games):
        DEAL(rules_vec, game_key(SEED, g), first_seat(FIRST_ROTATE, g, n), state)
        BEGIN(state)
        total += state[TURN]
    return total


def best_of_three(run, n_games: int) -> float:
    """Microseconds of CPU a game, the best of three runs."""
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best / n_games * 1e6


def split(n_games: int) -> dict:
    """Microseconds a game of each way of playing the same ``n_games`` games."""
    rules = TU.rules(n_players=PLAYERS)
    rules_vec = rules.to_array()
    rows = play("tulips", ["greedy"] * PLAYERS, n_games, seed=SEED, as_frame=False)
    mine, actions = np.zeros_like(rows), np.full((n_games, MAX_STEPS), -1, np.int64)
    recorded(rules_vec, mine, actions)
    again = np.zeros_like(rows)
    replayed(rules_vec, actions, again)
    fused = fused_rows("tulips", PLAYERS, n_games, SEED)
    if not (np.array_equal(mine, rows) and np.array_equal(again, rows)):
        raise AssertionError("the recorded or replayed games are not the loop's")
    if not np.array_equal(fused, rows):
        raise AssertionError("the fused loop's games are not the loop's")
    dealt(rules_vec, 10)
    times = {
        "loop": best_of_three(
            lambda: play("tulips", ["greedy"] * PLAYERS, n_games, seed=SEED, as_frame=False),
            n_games,
        ),
        "fused": best_of_three(lambda: fused_rows("tulips", PLAYERS, n_games, SEED), n_games),
        "engine": best_of_three(lambda: replayed(rules_vec, actions, again), n_games),
        "deal": best_of_three(lambda: dealt(rules_vec, n_games), n_games),
    }
    times["steps"] = float((actions >= 0).sum() / n_games)
    return times


if __name__ == "__main__":
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    t = split(games)
    print(
        f"Gift of Tulips, 4 x greedy, {games:,} games, CPU microseconds a game: loop "
        f"{t['loop']:.3f}, fused {t['fused']:.3f}, engine replaying the same actions "
        f"{t['engine']:.3f} (deal {t['deal']:.3f}, {t['steps']:.1f} steps a game); agents and "
        f"loop {t['loop'] - t['engine']:.3f} ({(t['loop'] - t['engine']) / t['loop']:.0%} of "
        f"the loop's time)"
    )

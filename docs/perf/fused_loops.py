"""A measurement aid: all-``greedy`` games of both games in hand-fused loops.

Each loop plays exactly the games the project's game loop plays for a table of ``greedy``
agents (``agents/templates/loop.py``: same deals, streams and decisions, so the same result
rows; ``tests/test_fused_loops.py`` checks it), but with ``greedy``'s rule called directly on
the live state instead of through an agent entry, and no hook. It is the yardstick of the
loop's overhead: ``python docs/perf/fused_loops.py`` prints games per second of both and their
ratio (one core, best of three timed runs after a warm-up).
"""

import sys
import time

import numpy as np
from numba import njit

from agents.geschenkt import greedy as nt_greedy
from agents.tulips import greedy as tu_greedy
from experiments.batch import play
from giftsim.bits import lowest_bit
from giftsim.contract import FIRST_ROTATE, first_seat
from giftsim.game import N_PLAYERS, load_game
from giftsim.rng import agent_stream, game_key

NT, TU = load_game("geschenkt"), load_game("tulips")
NT_DEAL, NT_OVER, NT_MASK, NT_APPLY = NT.deal_keyed, NT.is_over, NT.legal_mask, NT.apply_action
NT_ROW, NT_SHOW, NT_TURN, NT_SIZE = NT.result_row, NT.show_turn, NT.turn_slot, NT.state_size
TU_DEAL, TU_OVER, TU_MASK, TU_APPLY = TU.deal_keyed, TU.is_over, TU.legal_mask, TU.apply_action
TU_ROW, TU_BEGIN, TU_TURN, TU_SIZE = TU.result_row, TU.begin, TU.turn_slot, TU.state_size
TU_OBS = TU.obs_size


@njit
def geschenkt_greedy(rules_vec, root_seed, first_index, out):
    """All-greedy No Thanks! games (T = 0, the default), fused."""
    n = rules_vec[N_PLAYERS]
    state, params, rng = np.zeros(NT_SIZE, np.int64), np.zeros(8), np.zeros(1, np.uint64)
    for g in range(out.shape[0]):
        index = first_index + g
        NT_DEAL(rules_vec, game_key(root_seed, index), first_seat(FIRST_ROTATE, index, n), state)
        while not NT_OVER(state):
            mask = NT_MASK(state)
            if mask & (mask - 1) == 0:
                action = lowest_bit(mask)
            else:
                NT_SHOW(state)
                action = nt_greedy.decide(state, params, rng)
            NT_APPLY(state, action)
        NT_ROW(state, n, 1, 0, out, g)


@njit
def tulips_greedy(rules_vec, root_seed, first_index, out):
    """All-greedy Gift of Tulips games, fused (each seat's stream as the loop draws it)."""
    n = rules_vec[N_PLAYERS]
    state, params = np.zeros(TU_SIZE, np.int64), np.zeros(8)
    rngs = np.zeros(8, np.uint64)
    for g in range(out.shape[0]):
        index = first_index + g
        key = game_key(root_seed, index)
        TU_DEAL(rules_vec, key, first_seat(FIRST_ROTATE, index, n), state)
        TU_BEGIN(state)
        for s in range(n):
            rngs[s] = agent_stream(key, np.uint64(0), s)
        while not TU_OVER(state):
            mask = TU_MASK(state)
            if mask & (mask - 1) == 0:
                action = lowest_bit(mask)
            else:
                seat = state[TU_TURN]
                action = tu_greedy.decide(state[:TU_OBS], params, rngs[seat : seat + 1])
            TU_APPLY(state, action)
        TU_ROW(state, n, 1, 0, out, g)


FUSED = {"geschenkt": geschenkt_greedy, "tulips": tulips_greedy}


def fused_rows(game: str, players: int, n_games: int, seed: int = 1, first_index: int = 0):
    """The result rows of ``n_games`` all-greedy games through the fused loop."""
    rules = load_game(game).rules(n_players=players)
    out = np.zeros((n_games, load_game(game).row_width(rules)), np.int64)
    FUSED[game](rules.to_array(), np.uint64(seed), first_index, out)
    return out


def rates(game: str, players: int = 4, n_games: int = 200_000) -> tuple[float, float]:
    """Games per second of the project's loop and of the fused one (best of three)."""
    fused_rows(game, players, 10)
    play(game, ["greedy"] * players, 10, seed=1, as_frame=False)
    loop = fused = float("inf")
    for _ in range(3):
        start = time.process_time()
        play(game, ["greedy"] * players, n_games, seed=1, as_frame=False)
        loop = min(loop, time.process_time() - start)
        start = time.process_time()
        fused_rows(game, players, n_games)
        fused = min(fused, time.process_time() - start)
    return n_games / loop, n_games / fused


if __name__ == "__main__":
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    for name in FUSED:
        loop_rate, fused_rate = rates(name, 4, games)
        print(
            f"{name}, 4 x greedy: loop {loop_rate:,.0f} games/s per CPU-second, fused "
            f"{fused_rate:,.0f}, ratio {loop_rate / fused_rate:.2f}"
        )

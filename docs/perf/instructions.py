"""A measurement aid: play a table's games for an instruction count under valgrind.

Wall-clock rates on a shared 2-core machine move by 30% from run to run, too much to see a
2% change. Instructions retired do not: ``valgrind --tool=cachegrind`` counts them, and two
runs that differ only in the number of games give the count per game by difference (start-up,
cache loading and the warm-up game cancel). Method and results: ``docs/perf/README.md``.

    python docs/perf/instructions.py GAME AGENT PLAYERS GAMES

plays one warm-up game, then ``GAMES`` games of ``AGENT`` in every seat (seed 1), as
``giftsim bench`` times them. ``AGENT`` ``engine`` plays the engine alone instead: a kernel of
the game's verbs that takes the first legal action at every step, no agent and no loop;
``fused`` plays the same all-``greedy`` games through ``fused_loops.py``'s hand-fused loop. Run
it under valgrind once with a few games first: Numba caches code per CPU, and valgrind's CPU
is not the host's, so the first run compiles.
"""

import sys
from pathlib import Path

import numpy as np
from numba import njit

from experiments.batch import play
from giftsim.bits import lowest_bit
from giftsim.game import N_PLAYERS, load_game
from giftsim.rng import game_key


def engine_kernel(game: str):
    """The engine-only kernel of ``game``: ``run(rules_vec, n_games, out)`` plays games
    ``0 .. n_games - 1`` of seed 1 with the first legal action; returns the steps played."""
    verbs = load_game(game)
    deal, begin, is_over = verbs.deal_keyed, verbs.begin, verbs.is_over
    legal_mask, apply_action, result_row = verbs.legal_mask, verbs.apply_action, verbs.result_row
    size = verbs.state_size

    @njit
    def run(rules_vec, n_games, out):
        n = rules_vec[N_PLAYERS]
        state = np.zeros(size, np.int64)
        steps = 0
        for i in range(n_games):
            deal(rules_vec, game_key(1, i), i % n, state)
            begin(state)
            while not is_over(state):
                apply_action(state, lowest_bit(legal_mask(state)))
                steps += 1
            result_row(state, n, 1, 0, out, 0)
        return steps

    return run


def main(game: str, agent: str, players: int, n_games: int) -> None:
    rules = load_game(game).rules(n_players=players)
    if agent == "engine":
        run, rules_vec, out = engine_kernel(game), rules.to_array(), np.zeros((1, 64), np.int64)
        run(rules_vec, 1, out)
        run(rules_vec, n_games, out)
        return
    if agent == "fused":
        sys.path.insert(0, str(Path(__file__).parent))
        from fused_loops import fused_rows

        fused_rows(game, players, 1)
        fused_rows(game, players, n_games)
        return
    play(game, [agent] * players, 1, rules=rules, as_frame=False)
    play(game, [agent] * players, n_games, rules=rules, seed=1, as_frame=False)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print("usage:", __doc__.split("\n\n")[2].strip(), file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))

"""A measurement aid: play a table's games for an instruction count under valgrind.

Wall-clock rates on a shared 2-core machine move by 30% from run to run, too much to see a
2% change. Instructions retired do not: ``valgrind --tool=cachegrind`` counts them, and two
runs that differ only in the number of games give the count per game by difference (start-up,
cache loading and the warm-up game cancel). Method and results: ``docs/perf/README.md``.

    python docs/perf/instructions.py GAME AGENT PLAYERS GAMES

plays one warm-up game, then ``GAMES`` games of ``AGENT`` in every seat (seed 1), as
``giftsim bench`` times them. Run it under valgrind once with a few games first: Numba caches
code per CPU, and valgrind's CPU is not the host's, so the first run compiles.
"""

import sys

from experiments.batch import play
from giftsim.game import load_game


def main(game: str, agent: str, players: int, n_games: int) -> None:
    rules = load_game(game).rules(n_players=players)
    play(game, [agent] * players, 1, rules=rules, as_frame=False)
    play(game, [agent] * players, n_games, rules=rules, seed=1, as_frame=False)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print("usage:", __doc__.split("\n\n")[2].strip(), file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))

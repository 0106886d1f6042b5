"""A measurement aid: the figures behind ``tests/test_isolation_cheats.py``, printed.

The cheating agents of ``tests/bots/cheats.py`` (the techniques of the sealing review: an
``as_strided`` view and ``address`` + ``carray`` scanning the memory around their copy,
``objmode`` and ``sys._getframe`` walking the caller's frames, a seed search at secret 0)
each play seat 0 of a 4-player table against three ``greedy`` (seed 1), in process at the
default secret (0) and isolated (a random secret, the default of an isolated run). Per
technique and game:

* *record path* (``play_slow``, the path of ``giftsim record``): the share of the cheat's
  decisions that follow the hidden card (the next face-down card in No Thanks!, the top of
  the draw pile in Tulips); a blind agent follows it about half the time (readers only);
* *tournament loop* (``experiments.batch.play``): the games that differ from those of the
  cheat's blind twin (the same coin, no look) under the same secret; a writer's games are
  compared with its honest twin's, and No Thanks! scores below -44 (minus every chip of the
  game: impossible) are counted.

``python docs/perf/isolation_cheats.py [--games 200] [--record-games 20]``
"""

import argparse
import secrets
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from agents.isolation import Isolation  # noqa: E402
from agents.registry import compiling_later, load_module, parse_list  # noqa: E402
from experiments.batch import play  # noqa: E402
from tests.test_isolation_cheats import rates  # noqa: E402

PREFIX = {"geschenkt": "nt", "tulips": "tu"}
READERS = ("strided", "pointer", "objmode", "frames", "seeds")
WRITERS = ("strided_writer", "pointer_writer")


def differ(game: str, name: str, twin: str, games: int, isolated: bool) -> tuple[int, int]:
    """Games of ``name`` (seat 0, three greedy) that differ from ``twin``'s under the same
    secret, and No Thanks! scores below -44."""
    names, twins = [name, *["greedy"] * 3], [twin, *["greedy"] * 3]
    isolation = Isolation((name,)) if isolated else None
    frame = play(game, names, games, seed=1, isolation=isolation)
    secret = frame.attrs.get("secret", 0)
    other = play(game, twins, games, seed=1, secret=secret)
    scores = [f"score_{s}" for s in range(4)]
    changed = int((frame[scores].to_numpy() != other[scores].to_numpy()).any(axis=1).sum())
    impossible = int((frame[scores].to_numpy() < -44).sum()) if game == "geschenkt" else 0
    return changed, impossible


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="tournament-loop games")
    parser.add_argument("--record-games", type=int, default=20, help="record-path games")
    args = parser.parse_args()
    with compiling_later():
        load_module(str(ROOT / "tests" / "bots" / "cheats.py"))
    head = f"{'game':10} {'cheat':15} {'where':10} {'record path: follows':>22}"
    print(f"{head} {'loop: changed':>14}")
    for game, prefix in PREFIX.items():
        for technique in READERS + WRITERS:
            name = f"{prefix}_{technique}"
            twin = f"{prefix}_honest" if technique in WRITERS else f"{prefix}_blind"
            for isolated in (False, True):
                agents = parse_list([name, *["greedy"] * 3], game)
                isolation = Isolation((name,)) if isolated else None
                secret = secrets.randbits(64) if isolated else 0
                share = np.nan
                if technique in READERS:
                    share = rates(game, agents, args.record_games, secret, isolation)[0]
                changed, low = differ(game, name, twin, args.games, isolated)
                where = "isolated" if isolated else "in process"
                extra = f" ({low} scores < -44)" if low else ""
                follows = f"{share:.1%}" if np.isfinite(share) else "-"
                line = f"{game:10} {technique:15} {where:10} {follows:>22}"
                print(f"{line} {changed:>6}/{args.games}{extra}", flush=True)


if __name__ == "__main__":
    main()

"""The ``giftsim`` command line: ``bench``, ``record``, ``replay``, ``demo``.

Every error is one line on stderr and exit status 2.
"""

import argparse
import json
import sys
from pathlib import Path

from agents.registry import parse_list
from experiments import bench
from experiments.batch import by_agent, play
from experiments.games import GAMES, entry


class CliError(Exception):
    """A user error: printed as one line, exit status 2."""


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args) or 0
    except (CliError, ValueError, OSError) as error:
        print(f"giftsim {args.command}: error: {error}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="giftsim", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_bench(sub)
    _add_record(sub)
    _add_replay(sub)
    _add_demo(sub)
    return parser


def _add_bench(sub) -> None:
    p = sub.add_parser("bench", help="games per second per core, and start-up times")
    p.add_argument("--games", type=int, default=200_000, help="games per measurement")
    p.add_argument("--no-startup", action="store_true", help="skip the cold/warm start-up probe")
    p.set_defaults(run=_bench)


def _add_record(sub) -> None:
    p = sub.add_parser("record", help="play one game and write it as a JSON record")
    p.add_argument("game", choices=sorted(GAMES), help="which game")
    p.add_argument("--players", type=int, default=4, help="number of players")
    p.add_argument("--agents", help="comma-separated agent specs, one per seat (default greedy)")
    p.add_argument("--seed", type=int, default=0, help="root seed")
    p.add_argument("--game-index", type=int, default=0, help="index of the game under the seed")
    p.add_argument("--first-player", default="rotate", help="'rotate', 'random' or a seat")
    p.add_argument("--out", type=Path, help="write to this file instead of stdout")
    p.set_defaults(run=_record)


def _add_replay(sub) -> None:
    p = sub.add_parser("replay", help="check a JSON record rule by rule and print it")
    p.add_argument("file", type=Path, help="record file ('-' for stdin)")
    p.set_defaults(run=_replay)


def _add_demo(sub) -> None:
    p = sub.add_parser("demo", help="the main job on built-in defaults")
    p.add_argument("--games", type=int, default=1_000_000, help="No Thanks! games to play")
    p.add_argument("--tulips-games", type=int, default=200_000, help="Tulips games to play")
    p.add_argument("--seed", type=int, default=2026, help="root seed")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(run=_demo)


def _bench(args) -> None:
    for game in bench.MIXES:
        print(f"{game}: games/s on one core ({args.games:,} games each)")
        print(bench.rates(game, args.games).round(0).astype(int).to_string())
    if not args.no_startup:
        cold, warm = bench.startup_times()
        print(f"start-up (import + one game of every mix): cold {cold:.1f} s, warm {warm:.1f} s")


def _record(args) -> None:
    ent = entry(args.game)
    rules = ent.rules_cls(n_players=args.players)
    specs = args.agents or ",".join(["greedy"] * args.players)
    agents = parse_list(specs, args.game)
    if len(agents) != args.players:
        raise CliError(f"--agents names {len(agents)} agents for {args.players} players")
    first = _first_player(args.first_player)
    played = ent.play_slow(rules, agents, args.seed, args.game_index, first)
    meta = {"agents": [a.spec for a in agents], "seed": args.seed, "game_index": args.game_index}
    text = json.dumps(ent.make_record(rules, played.start, played.actions, meta), indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    else:
        print(text)


def _first_player(text: str):
    return int(text) if text.lstrip("-").isdigit() else text


def _replay(args) -> None:
    raw = sys.stdin.read() if str(args.file) == "-" else _read(args.file)
    try:
        record = json.loads(raw)
    except json.JSONDecodeError as error:
        raise CliError(f"{args.file} is not JSON: {error}") from None
    game = record.get("game") if isinstance(record, dict) else None
    if game not in GAMES:
        raise CliError(f"record 'game' must be one of {', '.join(GAMES)}, got {game!r}")
    for line in entry(game).replay(record):
        print(line)
    print("record OK: every action legal, scores and winners confirmed")


def _read(path: Path) -> str:
    if not path.is_file():
        raise CliError(f"no such record file: {path}")
    return path.read_text()


DEMO_SEATS = {
    "geschenkt": ["sniper", "greedy", "greedy:T=-3", "random"],
    "tulips": ["hoarder", "planner", "greedy", "random"],
}


def _demo(args) -> None:
    sizes = {"geschenkt": args.games, "tulips": args.tulips_games}
    for game, agents in DEMO_SEATS.items():
        print(f"\n{game}: 4 players, {sizes[game]:,} games, rotating first player: {agents}")
        frame = play(game, agents, sizes[game], seed=args.seed, progress=not args.quiet)
        table = by_agent(frame)
        table["win_share_95ci"] = 1.96 * table.pop("win_se")
        print(table.round(4).to_string())
        print(f"mean decisions per game: {frame.n_decisions.mean():.1f}")


if __name__ == "__main__":
    sys.exit(main())

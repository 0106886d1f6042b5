"""The ``giftsim`` command line: tournaments, seat studies, reports, records, benchmarks.

Every error is one line on stderr and exit status 2.
"""

import argparse
import json
import sys
from pathlib import Path

from agents.registry import parse_list
from experiments import bench, commands
from experiments.games import GAMES, entry


class CliError(Exception):
    """A user error: printed as one line, exit status 2."""


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # recorded by tune and ladder
    try:
        return args.run(args) or 0
    except (CliError, ValueError, OSError) as error:
        print(f"giftsim {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            f"giftsim {args.command}: interrupted (an --out run continues with --resume)",
            file=sys.stderr,
        )
        return 130


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (with a hint to --help) and exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="giftsim", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_Parser
    )
    _add_bench(sub)
    _add_record(sub)
    _add_replay(sub)
    _add_demo(sub)
    _add_tournament(sub)
    _add_seats(sub)
    _add_report(sub)
    _add_tune(sub)
    _add_ladder(sub)
    _add_play(sub)
    return parser


def _add_rule_option(p) -> None:
    p.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule variant, repeatable (e.g. --rule variant=tactical --rule rounds=4); "
        "an unknown key lists the valid ones; see docs/rules/",
    )


def _rules(args, n_players: int):
    """The game's ``Rules`` for ``n_players`` with the ``--rule`` options."""
    return entry(args.game).rules_cls.from_pairs(args.rule, n_players)


def _rule_options(args, players) -> dict:
    """The ``--rule`` option values, checked at every player count of the run that the game
    accepts (the design names a count it does not)."""
    ent = entry(args.game)
    options = ent.rules_cls.options_from_pairs(args.rule)
    for n in players:
        if n in ent.players:
            ent.rules_cls(n_players=n, **options)
    return options


def _add_run_options(p) -> None:
    _add_rule_option(p)
    p.add_argument("--games", type=int, default=10_000, help="games per seating")
    p.add_argument("--seed", type=int, default=0, help="root seed of every deal")
    p.add_argument("--out", type=Path, help="results folder (manifest + parquet chunks)")
    p.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    p.add_argument(
        "--summary-only",
        action="store_true",
        help="keep streaming aggregates instead of per-game rows",
    )
    p.add_argument(
        "--backend",
        choices=("serial", "processes", "dask"),
        default="processes",
        help="where games run (default: local processes)",
    )
    p.add_argument("--workers", type=int, help="worker processes (default: all cores)")
    p.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://HOST:8786")
    p.add_argument("--chunk-size", type=int, default=50_000, help="games per task and file")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _add_tournament(sub) -> None:
    p = sub.add_parser("tournament", help="run a tournament design and print its tables")
    p.add_argument("game", choices=sorted(GAMES), help="which game")
    p.add_argument(
        "--design",
        choices=("mirror", "round-robin", "field"),
        default="round-robin",
        help="mirror: same agent everywhere; round-robin: agent multisets in "
        "rotation; field: a candidate against copies of a baseline",
    )
    p.add_argument("--agents", default="random,greedy", help="comma-separated agent specs")
    p.add_argument("--candidate", help="field design: the agent under test")
    p.add_argument("--baseline", help="field design: the agent filling the other seats")
    p.add_argument("--players", default="4", help="player count(s), comma-separated")
    p.add_argument(
        "--no-duplicate",
        action="store_true",
        help="give every rotation its own deals (default: duplicate deals)",
    )
    _add_run_options(p)
    p.set_defaults(run=_tournament)


def _add_seats(sub) -> None:
    p = sub.add_parser("seats", help="seat advantage of agents across player counts")
    p.add_argument("game", choices=sorted(GAMES), help="which game")
    p.add_argument("--agents", default="greedy", help="comma-separated agent specs")
    p.add_argument("--players", help="player counts, comma-separated (default: all official)")
    _add_run_options(p)
    p.set_defaults(run=_seats)


def _add_tune(sub) -> None:
    p = sub.add_parser("tune", help="tune an agent family's parameters by CMA-ES against a field")
    p.add_argument("game", choices=sorted(GAMES), help="which game")
    p.add_argument("--family", required=True, help="agent family to tune, e.g. sniper")
    p.add_argument("--players", type=int, required=True, help="player count")
    p.add_argument("--field", required=True, help="opponent spec filling the other seats")
    p.add_argument("--games", type=int, default=2000, help="deals per candidate (x seats)")
    p.add_argument("--generations", type=int, default=10, help="CMA-ES generations")
    p.add_argument("--popsize", type=int, default=8, help="candidates per generation")
    p.add_argument("--sigma", type=float, default=0.3, help="initial step, in parameter scales")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and of CMA-ES")
    p.add_argument("--final-games", type=int, default=20000, help="fresh deals for the score")
    p.add_argument("--json", type=Path, help="also write the result to this JSON file")
    p.set_defaults(run=_tune)


def _tune(args) -> None:
    from experiments import tune

    result = tune.tune(
        args.game,
        args.family,
        args.players,
        args.field,
        args.games,
        args.generations,
        args.popsize,
        args.sigma,
        seed=args.seed,
        final_games=args.final_games,
    )
    print(result.history.to_string(index=False))
    low, high = result.ci95
    print(
        f"\nbest: {result.spec}\nwin share {result.win_share:.4f} [{low:.4f}, {high:.4f}] "
        f"vs fair {1 / args.players:.4f} over {result.games:,} fresh games against "
        f"{args.players - 1} x {args.field}"
    )
    if args.json:
        args.json.write_text(json.dumps(tune.as_record(result, args.argv), indent=2) + "\n")


def _add_ladder(sub) -> None:
    p = sub.add_parser("ladder", help="strength ladder of the built-ins, written as markdown")
    p.add_argument("--game", choices=sorted(GAMES), help="one game (default: both)")
    p.add_argument("--games", type=int, default=20000, help="deals per heuristic step")
    p.add_argument("--search-games", type=int, default=100, help="deals per search step")
    p.add_argument("--seed", type=int, default=0, help="root seed of the deals")
    p.add_argument("--workers", type=int, default=1, help="steps run in parallel")
    p.add_argument("--out", type=Path, default=Path("docs/ladder.md"), help="markdown file")
    p.set_defaults(run=_ladder)


def _ladder(args) -> None:
    from experiments import ladder

    games = [args.game] if args.game else list(ladder.RUNGS)
    table = ladder.ladder(games, args.games, args.search_games, args.seed, args.workers)
    text = ladder.markdown(table, args.argv)
    args.out.write_text(text + "\n")
    print(text)


def _add_report(sub) -> None:
    p = sub.add_parser("report", help="tables, PNG plots and summary.md for a results folder")
    p.add_argument("folder", type=Path, help="a folder written by tournament or seats --out")
    p.set_defaults(run=_report)


def _add_play(sub) -> None:
    p = sub.add_parser("play", help="play a game at the terminal against the bots")
    p.add_argument("game", choices=sorted(GAMES), help="which game")
    p.add_argument("--players", type=int, default=4, help="number of players, you included")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    p.add_argument(
        "--vs", help="the other seats' agent specs, comma-separated, in seat order (default greedy)"
    )
    p.add_argument("--seed", type=int, help="root seed of the deal (default: a random one, shown)")
    p.add_argument(
        "--record", type=Path, help="where to save the game (default giftsim-play-GAME-SEED.json)"
    )
    _add_rule_option(p)
    p.set_defaults(run=_play)


def _play(args) -> int:
    from experiments import play  # only this command needs the terminal game

    try:
        play.run(args.game, args.players, args.seat, args.vs, args.seed, args.record, args.rule)
    except play.InputEnded as error:
        raise CliError(str(error)) from None
    except KeyboardInterrupt:
        print("\ngiftsim play: interrupted; the game was not saved", file=sys.stderr)
        return 130
    return 0


def _run_options(args) -> dict:
    return {
        "backend": args.backend,
        "workers": args.workers,
        "chunk_size": args.chunk_size,
        "resume": args.resume,
        "summary_only": args.summary_only,
        "scheduler": args.scheduler,
        "progress": not args.quiet,
    }


def _players(text, game) -> list[int]:
    if text is None:
        return list(entry(game).official)
    try:
        players = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        players = []
    if not players:
        raise CliError(f"--players takes whole numbers separated by commas, got {text!r}")
    return players


def _tournament(args) -> None:
    players = _players(args.players, args.game)
    jobs = commands.design_jobs(
        args.game,
        args.design,
        args.agents.split(","),
        players,
        args.games,
        args.seed,
        not args.no_duplicate,
        args.candidate,
        args.baseline,
        rules=_rule_options(args, players),
    )
    _execute_and_print(jobs, args)


def _seats(args) -> None:
    players = _players(args.players, args.game)
    jobs = commands.design_jobs(
        args.game,
        "mirror",
        args.agents.split(","),
        players,
        args.games,
        args.seed,
        rules=_rule_options(args, players),
    )
    _execute_and_print(jobs, args)


def _execute_and_print(jobs, args) -> None:
    sums = commands.execute(jobs, args.out, _run_options(args))
    commands.print_tables(commands.summary_tables(sums))
    if args.out:
        print(f"\nresults in {args.out}; `giftsim report {args.out}` writes plots and summary.md")


def _report(args) -> None:
    commands.report(args.folder)


def _add_bench(sub) -> None:
    p = sub.add_parser("bench", help="games per second per core, and start-up times")
    p.add_argument("--games", type=int, default=200_000, help="games per measurement")
    p.add_argument("--no-startup", action="store_true", help="skip the cold/warm start-up probe")
    p.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="GAME:KEY=VALUE",
        help="a rule variant for one game's mixes, repeatable (e.g. tulips:game_end=deck_out)",
    )
    p.set_defaults(run=_bench)


def _bench_rules(pairs) -> dict:
    """``--rule GAME:KEY=VALUE`` options of bench, per game, checked at its player counts."""
    by_game = {game: [] for game in bench.MIXES}
    for pair in pairs:
        game, sep, rest = pair.partition(":")
        if not sep or game not in by_game:
            raise CliError(
                f"bench --rule takes GAME:KEY=VALUE with GAME one of {', '.join(by_game)}, "
                f"got {pair!r}"
            )
        by_game[game].append(rest)
    options = {}
    for game, game_pairs in by_game.items():
        cls = entry(game).rules_cls
        options[game] = cls.options_from_pairs(game_pairs)
        for n in bench.PLAYERS[game]:
            cls(n_players=n, **options[game])
    return options


def _as_pairs(options: dict) -> list[str]:
    from giftsim.rule_options import as_pairs

    return as_pairs(options)


def _add_record(sub) -> None:
    p = sub.add_parser("record", help="play one game and write it as a JSON record")
    p.add_argument("game", choices=sorted(GAMES), help="which game")
    p.add_argument("--players", type=int, default=4, help="number of players")
    p.add_argument("--agents", help="comma-separated agent specs, one per seat (default greedy)")
    p.add_argument("--seed", type=int, default=0, help="root seed")
    p.add_argument("--game-index", type=int, default=0, help="index of the game under the seed")
    p.add_argument("--first-player", default="rotate", help="'rotate', 'random' or a seat")
    p.add_argument("--out", type=Path, help="write to this file instead of stdout")
    _add_rule_option(p)
    p.set_defaults(run=_record)


def _add_replay(sub) -> None:
    p = sub.add_parser("replay", help="check a JSON record rule by rule and print it")
    p.add_argument("file", type=Path, help="record file ('-' for stdin)")
    p.set_defaults(run=_replay)


def _add_demo(sub) -> None:
    p = sub.add_parser("demo", help="the main job on built-in defaults")
    p.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="fraction of the full size (2.1M No Thanks! and 0.55M Tulips games)",
    )
    p.add_argument("--seed", type=int, default=2026, help="root seed")
    p.add_argument("--out", default="results/demo", help="folder for results and plots")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(run=_demo)


def _bench(args) -> None:
    if args.games < 1:
        raise CliError(f"--games must be at least 1, got {args.games}")
    options = _bench_rules(args.rule)
    for game in bench.MIXES:
        where = f", rules {' '.join(_as_pairs(options[game]))}" if options[game] else ""
        print(f"{game}: games/s on one core ({args.games:,} games each{where})")
        print(bench.rates(game, args.games, options[game]).round(0).astype(int).to_string())
    for game in bench.MIXES:
        print(f"\n{game}: search agents at their defaults, one core")
        print(bench.search_speed(game).to_string())
    if not args.no_startup:
        cold, warm = bench.startup_times()
        print(f"start-up (import + one game of every mix): cold {cold:.1f} s, warm {warm:.1f} s")


def _record(args) -> None:
    ent = entry(args.game)
    rules = _rules(args, args.players)
    specs = args.agents or ",".join(["greedy"] * args.players)
    agents = parse_list(specs, args.game)
    if len(agents) != args.players:
        raise CliError(f"--agents names {len(agents)} agents for {args.players} players")
    first = _first_player(args.first_player)
    meta = {"agents": [a.spec for a in agents], "seed": args.seed, "game_index": args.game_index}
    rounds = getattr(rules, "rounds", 1)
    if rounds > 1:  # a No Thanks! match: rounds m * R .. m * R + R - 1 (as the fast loop)
        from geschenkt_sim.record import make_match_record

        games = [
            ent.play_slow(rules, agents, args.seed, args.game_index * rounds + r, first)
            for r in range(rounds)
        ]
        record = make_match_record(rules, [(g.start, g.actions) for g in games], meta)
    else:
        played = ent.play_slow(rules, agents, args.seed, args.game_index, first)
        record = ent.make_record(rules, played.start, played.actions, meta)
    text = json.dumps(record, indent=1)
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


def _demo(args) -> None:
    commands.demo(Path(args.out), args.scale, args.seed, progress=not args.quiet)


if __name__ == "__main__":
    sys.exit(main())

"""The ``giftsim`` command line: tournaments, seat studies, reports, records, benchmarks.

Every error is one line on stderr and exit status 2. Commands import what they run when they
run: ``--help``, argument errors and ``giftsim agents`` compile nothing.
"""

import argparse
import os
import re
import secrets
import signal
import sys
import traceback
from pathlib import Path

import giftsim
from experiments import arguments, stopping
from experiments.stopping import SIGNALLED
from experiments.train_settings import TrainSettings
from giftsim import notice
from giftsim.files import MANIFEST
from giftsim.game import GAMES, load_game

DESCRIPTION = "giftsim: tournaments, seat studies, reports, records and benchmarks of No Thanks!"
DESCRIPTION += " and Gift of Tulips. Every error is one line and exit status 2."

# One example per command, shown by its --help (tests/test_readme.py checks each parses).
EXAMPLES = {
    "bench": "giftsim bench --games 20000",
    "record": "giftsim record tulips --agents hoarder,planner,greedy,random --out runs/t.json",
    "replay": "giftsim replay runs/t.json",
    "demo": "giftsim demo --scale 0.01",
    "tournament": "giftsim tournament tulips --design round-robin --agents random,greedy,hoarder "
    "--players 4 --games 2000 --out runs/rr",
    "seats": "giftsim seats geschenkt --agents greedy,sniper --players 3,4,5 --out runs/seats",
    "report": "giftsim report runs/rr",
    "gauntlet": "giftsim gauntlet geschenkt --players 4 --deals 1000 --out runs/gauntlet",
    "tune": "giftsim tune geschenkt --family sniper --players 4 --field sniper --games 2000",
    "train": "giftsim train geschenkt --players 4 --seed 1 --out runs/my4p.npz --rounds 4",
    "ladder": "giftsim ladder --game geschenkt --games 2000 --search-games 0",
    "play": "giftsim play geschenkt --players 4 --seat 1 --vs ismcts,greedy,tuned4p",
    "solve": "giftsim solve geschenkt --players 2 --rule lowest_card=3 --rule highest_card=10 "
    "--rule n_removed=2 --rule chips_per_player=2 --exploit greedy,sniper --out runs/s8",
    "agents": "giftsim agents geschenkt --agents-module docs/examples/my_agents.py",
    "bound": "giftsim bound geschenkt --players 3 --target greedy,random --deals 200 "
    "--rollouts 4 --out runs/bounds.csv",
}


class CliError(Exception):
    """A user error: printed as one line, exit status 2."""


USER_ERRORS = (CliError, ValueError, OSError)  # a line of their own (:func:`_fail`), status 2


def main(argv=None) -> int:
    parser = _parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        _refuse_unknown(parser.commands[args.command], unknown, getattr(args, "game", None))
    args.argv = list(sys.argv[1:] if argv is None else argv)  # recorded by tune and ladder
    RUNNING["args"] = args
    notice.QUIET = getattr(args, "quiet", False)
    SIGNALLED.clear()
    before, unraisable = stopping.stop_on_signals(), stopping.hush_lost_stops()
    try:
        _check_together(args)
        _load_agent_modules(args)
        code = args.run(args) or 0
        sys.stdout.flush()  # here, so that a reader gone away is seen below, not at exit
        if SIGNALLED and code == 0:  # a library caught the stop's exception and returned: not
            return _stopped(args, SIGNALLED[-1])  # a whole run (a command's own stop has said)
        return code
    except BrokenPipeError:  # the reader of our output went away (e.g. `| head`): a quiet end
        _drop_stdout()
        return 0
    except KeyboardInterrupt:
        return _stopped(args, SIGNALLED[-1] if SIGNALLED else signal.SIGINT)
    except Exception as error:
        if SIGNALLED:  # the stop's exception was lost in a library's C code, which raised
            return _stopped_by(args, error)  # another (Numba's dispatch: a TypeError)
        if isinstance(error, USER_ERRORS):
            return _fail(args, error)
        if os.environ.get("GIFTSIM_TRACEBACK"):  # a bug: still one line, the traceback on
            raise  # request
        print(
            f"giftsim {args.command}: internal error: {type(error).__name__}: {_first(error)} "
            "(GIFTSIM_TRACEBACK=1 shows where)",
            file=sys.stderr,
        )
        return 1
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
        sys.unraisablehook = unraisable


def _stopped(args, signum: int) -> int:
    """The line of a command stopped by Ctrl-C or SIGTERM, and its exit status."""
    stopping.noted_only()  # a second stop while the line is said: not a traceback
    stopping.Watchdog.stopping.set()  # the stop has reached the end of the command
    how = "terminated" if signum == signal.SIGTERM else "interrupted"
    print(f"giftsim {args.command}: {how}; {_after_interrupt(args)}", file=sys.stderr)
    return 128 + signum


def _stopped_by(args, error: Exception) -> int:
    """A stop whose exception another replaced: a user error's own line first (what it says
    to do still holds), the traceback with ``GIFTSIM_TRACEBACK``, then the stop's line."""
    if os.environ.get("GIFTSIM_TRACEBACK"):
        traceback.print_exception(error, file=sys.stderr)
    elif isinstance(error, USER_ERRORS):
        _fail(args, error)
    return _stopped(args, SIGNALLED[-1])


def entry() -> int:
    """The ``giftsim`` console command: :func:`main` under a watchdog
    (``experiments.stopping``), then Ctrl-C ignored while the interpreter shuts down (a
    process pool's threads may still be joining for a few seconds after the last line; an
    interrupt there printed a traceback after the work was done)."""
    with stopping.Watchdog(_stop_line):
        code = main()
    signal.signal(signal.SIGINT, stopping.quiet_exit)
    return code


RUNNING: dict = {}  # the command being run (its parsed ``args``), for the watchdog's line


def _stop_line(signum: int) -> int:
    """The line of a stop that the watchdog ends (as the main thread would have said it),
    and the exit status."""
    args = RUNNING.get("args")
    if args is None:  # stopped before the command was known
        how = "terminated" if signum == signal.SIGTERM else "interrupted"
        print(f"giftsim: {how}", file=sys.stderr)
        return 128 + signum
    return _stopped(args, signum)


def _refuse_unknown(command: argparse.ArgumentParser, unknown: list, game_given) -> None:
    """Arguments no option takes: refused by the command they were typed to (argparse names
    only ``giftsim``), with the option a stray game name belongs to where the command has an
    unused ``--game``."""
    hint = f"see {command.prog} --help"
    game = next((word for word in unknown if word in GAMES), None)
    has_option = re.search(r"--game\b", command.format_usage())
    if game is not None and has_option and game_given is None:
        hint = f"the game is an option here: --game {game}; {hint}"
    command.exit(
        2, f"{command.prog}: error: unrecognized arguments: {' '.join(unknown)} ({hint})\n"
    )


def _drop_stdout() -> None:
    """Point standard output at the null device, so that the interpreter's last flush of
    what a closed pipe did not take raises nothing (Python's documented remedy)."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a descriptor (tests)
        pass


def _fail(args, error) -> int:
    """Print a user error as one line; exit status 2."""
    print(f"giftsim {args.command}: error: {_first(error)}", file=sys.stderr)
    return 2


def _first(error) -> str:
    text = str(error)
    if isinstance(error, FileNotFoundError) and error.strerror is None:  # pyarrow: the path
        text = f"no such file or folder: {text}"
    elif isinstance(error, OSError) and error.strerror and error.filename is not None:
        text = f"{error.filename}: {error.strerror.lower()}"  # not "[Errno 2] ...: 'path'"
    lines = text.strip().splitlines()
    return lines[0] if lines else repr(error)


def _command(sub, name: str, summary: str):
    """A subcommand with its one-line summary and its example."""
    return sub.add_parser(
        name,
        help=summary,
        description=summary,
        epilog=f"example:\n  {EXAMPLES[name]}",
        formatter_class=arguments.Help,
    )


def _check_workers(args) -> None:
    """Local worker processes, 8 per core at most (a Dask cluster may have more)."""
    most = 8 * (os.cpu_count() or 1)
    workers = getattr(args, "workers", None)
    if workers is not None and workers > most and getattr(args, "backend", None) != "dask":
        raise CliError(
            f"--workers {workers}: worker processes on this machine are 1 to {most} (8 per "
            "core here; a Dask cluster may have more)"
        )


PLAYER_COUNT = "one player count, a whole number"
BOUND_ROLLOUTS, BOUND_MARGIN = 8, 1.0  # giftsim bound's rollout responder's defaults


def _parser() -> argparse.ArgumentParser:
    parser = arguments.Parser(
        prog="giftsim",
        description=DESCRIPTION,
        epilog="`giftsim COMMAND --help` shows a command's options, their defaults and an example",
    )
    parser.add_argument("--version", action="version", version=f"giftsim {giftsim.__version__}")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=arguments.Parser
    )
    _add_bench(sub)
    _add_record(sub)
    _add_replay(sub)
    _add_demo(sub)
    _add_tournament(sub)
    _add_seats(sub)
    _add_report(sub)
    _add_gauntlet(sub)
    _add_tune(sub)
    _add_train(sub)
    _add_ladder(sub)
    _add_play(sub)
    _add_agents(sub)
    _add_solve(sub)
    _add_bound(sub)
    # each command's parser, by name: it refuses the arguments it does not take
    parser.commands = sub.choices
    return parser


def _add_agent_options(p, secret: bool = True) -> None:
    """Options of every command that takes agents: user agent modules, and the secret."""
    p.add_argument(
        "--agents-module",
        action="append",
        default=[],
        metavar="FILE.py|MODULE",
        help="a Python file or module whose code defines agents with agents.registry.define "
        "(repeatable); they then play like the built-ins, in every backend (default: none)",
    )
    if secret:
        p.add_argument(
            "--secret",
            help="key of the agents' random streams, never shown to them: a number, or "
            "'random' to draw one (kept in the results or record for replay; into an --out "
            "that holds a drawn one, that one, so the run resumes); the default is 0, or a "
            "random one when any agent is isolated",
        )


def _check_resumable(out) -> None:
    """``--resume`` continues a run that is in ``--out``: a mistyped folder must not start
    another run in its place."""
    if out is None:
        raise CliError("--resume continues the run in an --out folder: give --out")
    if not _holds_run(out):
        raise CliError(
            f"--resume: {out} holds no run to continue (no {MANIFEST}); "
            "leave out --resume to start one"
        )


def _holds_run(out) -> bool:
    """Whether the folder ``out`` holds a run that ``--resume`` continues."""
    from experiments.manifest import TEMPORARY  # a run killed before its rename

    return any((Path(out) / name).is_file() for name in (MANIFEST, TEMPORARY))


def _check_together(args) -> None:
    """Options that need another, or contradict one, are a one-line error before anything
    runs (an option silently ignored would run another experiment than the one asked for)."""
    if getattr(args, "scheduler", None) and args.backend != "dask":
        raise CliError(f"--scheduler needs --backend dask (the backend is {args.backend})")
    if getattr(args, "workers", None) is not None and getattr(args, "backend", "") == "serial":
        raise CliError("--workers needs --backend processes or dask (serial runs in this process)")
    if getattr(args, "resume", False) and hasattr(args, "summary_only"):
        _check_resumable(args.out)
    if args.command == "tournament":
        _check_design(args)
    _check_workers(args)
    _check_idle(args)
    given_first = getattr(args, "first_player", None) is not None
    if args.command == "record" and given_first and _has_rule(args, "first_player"):
        raise CliError(
            "--first-player and --rule first_player both set the first player: give one of them"
        )


# command -> the option naming the file its --force replaces (without it, --force does nothing)
STDOUT = Path("-")  # record --out -, as replay's '-' is stdin
REPLACES = {"bench": "markdown", "record": "out", "gauntlet": "out", "play": "record"}


def _check_idle(args) -> None:
    """Options that would do nothing here: an empty --agents (not the default), --force with
    nothing it could replace, --luck-net without --luck-adjust, limits of isolated agents
    where none is isolated."""
    from agents.isolation import MEMORY_MB, TIME_LIMIT

    agents = getattr(args, "agents", None)
    if agents is not None and not any(spec.strip() for spec in agents.split(",")):
        raise CliError("--agents names no agent: give comma-separated agent specs, or leave it out")
    replaces = REPLACES.get(args.command)
    if replaces and args.force and getattr(args, replaces) in (None, STDOUT):
        option = "--" + replaces
        raise CliError(
            f"--force replaces an existing {option} file: give {option} a file, or leave it out"
        )
    if getattr(args, "luck_net", None) is not None and not args.luck_adjust:
        raise CliError("--luck-net is the value network of --luck-adjust: add --luck-adjust")
    if hasattr(args, "time_limit"):
        _check_limits(args)  # a bad value is named as such first
    limits = (getattr(args, "time_limit", TIME_LIMIT), getattr(args, "memory_limit", MEMORY_MB))
    isolated = getattr(args, "isolate", None) or getattr(args, "untrusted_module", None)
    if limits != (TIME_LIMIT, MEMORY_MB) and not isolated:
        raise CliError(
            "--time-limit and --memory-limit apply to isolated agents: add --isolate or "
            "--untrusted-module"
        )


def _check_design(args) -> None:
    """The options of ``tournament`` that belong to one design only."""
    field = args.design == "field"
    if not field and (args.candidate or args.baseline):
        raise CliError(
            f"--candidate and --baseline belong to --design field (this design is {args.design}); "
            "add --design field, or name the agents with --agents"
        )
    if field and args.agents is not None:
        raise CliError("--design field plays --candidate against --baseline: leave out --agents")
    if args.design == "mirror" and args.no_duplicate:
        raise CliError(
            "--no-duplicate is for the round-robin and field designs (mirror seats one agent)"
        )


def _has_rule(args, key: str) -> bool:
    return any(pair.partition("=")[0].strip() == key for pair in args.rule)


def _add_isolation_options(p, secret: bool = True) -> None:
    """Options of the commands where agents play: isolated agents and their limits
    (``secret``: the command has ``--secret``)."""
    from agents.isolation import MEMORY_MB, TIME_LIMIT

    p.add_argument(
        "--isolate",
        metavar="NAME,...",
        help="agents (family names) that each play from an OS process of their own, seeing "
        "only their observations; a fault or a hang forfeits the game instead of stopping the "
        "run; the secret is then random" + (" unless --secret is given" if secret else ""),
    )
    p.add_argument(
        "--untrusted-module",
        action="append",
        default=[],
        metavar="FILE.py",
        help="a Python file of agents (agents.registry.define) imported only in processes of "
        "their own, never in this one: its agents always play isolated (repeatable)",
    )
    p.add_argument(
        "--time-limit",
        type=arguments.real(f"a positive number of seconds, at most {MAX_SECONDS:,} (a day)"),
        default=TIME_LIMIT,
        metavar="SECONDS",
        help="isolated agents: wall-clock seconds per decision before the game is forfeited",
    )
    p.add_argument(
        "--memory-limit",
        type=arguments.whole(f"a whole number of MiB in 1..{MAX_MIB:,}"),
        default=MEMORY_MB,
        metavar="MIB",
        help="isolated agents: address space of each agent's process, in MiB",
    )


def _load_agent_modules(args) -> None:
    from agents.registry import load_module

    _check_trusted_apart(getattr(args, "agents_module", []), getattr(args, "untrusted_module", []))
    for target in getattr(args, "agents_module", []):
        load_module(target)
    if getattr(args, "untrusted_module", None) is None:
        return  # the limits are checked already (``_check_idle``)
    from agents.isolation.untrusted import load_untrusted

    args.untrusted = {
        target: load_untrusted(target, args.memory_limit) for target in args.untrusted_module
    }


def _check_trusted_apart(trusted, untrusted) -> None:
    """A module given both ways would run its code here as it loads: refused before either
    loads."""

    def where(target: str) -> str:
        return os.path.realpath(target) if os.path.exists(target) else target

    both = {where(t) for t in trusted} & {where(t) for t in untrusted or []}
    if both:
        raise CliError(
            f"{sorted(both)[0]} is given as --agents-module and as --untrusted-module: its code "
            "would run in this process; give it once, as --untrusted-module"
        )


MAX_SECONDS, MAX_MIB = 86_400, 2**24  # a day a decision; 16 TiB a process


def _check_limits(args) -> None:
    if not (0 < args.time_limit <= MAX_SECONDS):
        raise CliError(
            f"--time-limit must be a positive number of seconds, at most {MAX_SECONDS:,} (a "
            f"day), got {args.time_limit:g}"
        )
    if not 0 < args.memory_limit <= MAX_MIB:
        raise CliError(
            f"--memory-limit must be a positive number of MiB, at most {MAX_MIB:,} (16 TiB), "
            f"got {args.memory_limit}"
        )


def _isolation(args, tables, game: str):
    """The run's ``Isolation`` (None when nothing is isolated), its names checked against
    the agents of the run: ``tables``, each table it plays as (player count, agent specs)."""
    from agents.registry import parse
    from experiments.isolation import check_start, from_options

    families = [parse(spec, game).family for _, specs in tables for spec in specs]
    limits = (args.time_limit, args.memory_limit)
    isolation = from_options(args.isolate, args.untrusted, limits, families)
    check_start(isolation, game, tables)
    return isolation


def _secret(args) -> int:
    """The ``--secret`` of a command: 0 when not given, a fresh 64-bit word for 'random'."""
    text = getattr(args, "secret", None)
    if text is None:
        return 0
    if text == "random":
        return secrets.randbits(64)
    try:
        value = int(text, 0)
    except ValueError:
        value = -1
    if not 0 <= value < 2**64:
        raise CliError(f"--secret takes 'random' or a whole number in 0..2**64-1, got {text!r}")
    return value


def _add_agents(sub) -> None:
    p = _command(sub, "agents", "list a game's agent families: parameters, defaults, ranges, rule")
    p.add_argument("game", nargs="?", choices=sorted(GAMES), help="one game (default: all)")
    _add_agent_options(p, secret=False)
    p.set_defaults(run=_agents)


def _add_solve(sub) -> None:
    p = _command(sub, "solve", "solve a small No Thanks! variant exactly; exploitability of agents")
    p.add_argument("game", choices=sorted(GAMES), help="which game (the solver models geschenkt)")
    p.add_argument(
        "--players", type=arguments.whole(PLAYER_COUNT), default=2, help="number of players"
    )
    _add_rule_option(p)
    p.add_argument(
        "--out", type=arguments.folder, help="a new folder for the tables and the summary"
    )
    p.add_argument("--no-tables", action="store_true", help="with --out: the summary only")
    p.add_argument(
        "--memory", type=arguments.gigabytes, help="memory limit in GB (default: what is free)"
    )
    p.add_argument(
        "--exploit",
        help="agent specs whose exact exploitability to compute, comma-separated ('solved': "
        "the policy this solve writes)",
    )
    p.add_argument(
        "--queries",
        type=arguments.whole("a whole number in 2..254"),
        help="with --exploit: queries per decision of an agent that randomises, 2..254 (32)",
    )
    p.add_argument(
        "--seed",
        type=arguments.query_seed,
        help="key of --exploit's queries' random streams (default 0)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_agent_options(p, secret=False)
    p.set_defaults(run=_solve)


def _solve(args) -> None:
    from experiments import solving

    solving.command(args)


def _add_bound(sub) -> None:
    p = _command(sub, "bound", "lower bounds of agents' exploitability by a responder")
    p.add_argument("game", choices=sorted(GAMES), help="which game")
    p.add_argument("--players", default="3", help="player counts, comma-separated")
    p.add_argument("--target", required=True, help="agent specs to answer, comma-separated")
    p.add_argument(
        "--deals",
        type=arguments.whole("a whole number in 2..10,000,000"),
        default=3200,
        help="deals per target and player count",
    )
    p.add_argument(
        "--responder",
        default="rollouts",
        help="'rollouts' (the rollout responder) or an agent spec in the responding seat, "
        "e.g. a learned best response: learned:net=FILE from giftsim train --baseline TARGET "
        "--selfplay 0",
    )
    p.add_argument(
        "--rollouts",
        type=arguments.whole("a whole number in 1..100,000"),
        help=f"rollouts per legal action (the rollout responder's; default {BOUND_ROLLOUTS})",
    )
    p.add_argument(
        "--margin",
        type=arguments.real("a number of standard errors >= 0"),
        help="standard errors by which an action's rollouts must beat the target's own action "
        f"(0: the best mean; the rollout responder's; default {BOUND_MARGIN:g})",
    )
    p.add_argument("--seed", type=arguments.seed, default=0, help="root seed of the deals")
    _add_rule_option(p)
    p.add_argument(
        "--out",
        type=arguments.file,
        help="a CSV to add each row to (rows there are kept while the files their specs name "
        "are unchanged)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_agent_options(p, secret=False)
    p.set_defaults(run=_bound)


def _bound(args) -> None:
    from experiments import bounds

    given = [f"--{name}" for name in ("rollouts", "margin") if getattr(args, name) is not None]
    if given and args.responder.strip() != bounds.ROLLOUTS:
        raise CliError(
            f"{' and '.join(given)} set the rollout responder; --responder {args.responder} "
            "plays by itself: leave them out"
        )
    args.rollouts = BOUND_ROLLOUTS if args.rollouts is None else args.rollouts
    args.margin = BOUND_MARGIN if args.margin is None else args.margin
    bounds.command(args)


def _add_force(p, what: str) -> None:
    p.add_argument(
        "--force", action="store_true", help=f"replace {what} if it exists (else refused)"
    )


def _add_rule_option(p) -> None:
    p.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule variant, repeatable (e.g. No Thanks! --rule variant=tactical --rule "
        "rounds=4, Tulips --rule game_end=deck_out); an unknown key lists the valid ones; see "
        "docs/rules/",
    )


def _rules(args, n_players: int):
    """The game's ``Rules`` for ``n_players`` with the ``--rule`` options."""
    return load_game(args.game).rules.from_pairs(args.rule, n_players)


def _rule_options(args, players) -> dict:
    """The ``--rule`` option values, checked at every player count of the run that the game
    accepts (the design names a count it does not)."""
    definition = load_game(args.game)
    options = definition.rules.options_from_pairs(args.rule)
    for n in players:
        if n in definition.players:
            definition.rules(n_players=n, **options)
    return options


def _add_execution_options(p) -> None:
    """Where and how a run's games are played: backend, workers, chunks, progress."""
    p.add_argument(
        "--backend",
        choices=("serial", "processes", "dask"),
        default="processes",
        help="where games run",
    )
    p.add_argument(
        "--workers", type=arguments.workers, help="worker processes (default: all cores)"
    )
    p.add_argument("--scheduler", help="Dask scheduler address, e.g. tcp://HOST:8786")
    p.add_argument(
        "--chunk-size", type=arguments.chunk_size, default=50_000, help="games per task and file"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")


TOURNAMENT_GAMES = (
    "games per seating (a design has many seatings: a round-robin of 4 agents at 4 players has "
    "252, so --games 1000 plays 252,000 games)"
)
SEATS_GAMES = (
    "games per agent and player count, each a table of the agent's own copies with the first "
    "seat rotating (3 agents at 2 player counts: --games 1000 plays 6,000 games)"
)


def _add_run_options(p, games_help: str = TOURNAMENT_GAMES) -> None:
    _add_rule_option(p)
    p.add_argument("--games", type=arguments.run_games, default=10_000, help=games_help)
    p.add_argument("--seed", type=arguments.seed, default=0, help="root seed of every deal")
    p.add_argument(
        "--out", type=arguments.folder, help="results folder (manifest + parquet chunks)"
    )
    p.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    p.add_argument(
        "--summary-only",
        action="store_true",
        help="keep streaming aggregates instead of per-game rows",
    )
    _add_execution_options(p)


def _add_tournament(sub) -> None:
    p = _command(sub, "tournament", "run a tournament design and print its tables")
    p.add_argument("game", choices=sorted(GAMES), help="which game")
    p.add_argument(
        "--design",
        choices=("mirror", "round-robin", "field"),
        default="round-robin",
        help="mirror: same agent everywhere; round-robin: every multiset of the agents with two "
        "or more different ones, in every distinct seat order, so that each agent sits before "
        "and after every other equally often and the order of --agents changes nothing: "
        "k^n - k seatings for k agents at n players (3 agents at 4 players: 12 multisets, 78 "
        "seatings; 4 agents: 31, 252), the seatings of a multiset on the same deals; "
        "field: a candidate against copies of a baseline, in every seat",
    )
    p.add_argument(
        "--agents", help="comma-separated agent specs (default: random,greedy; not with field)"
    )
    _add_agent_options(p)
    _add_isolation_options(p)
    p.add_argument("--candidate", help="field design: the agent under test")
    p.add_argument("--baseline", help="field design: the agent filling the other seats")
    p.add_argument(
        "--players",
        default="4",
        help="player count (mirror: one or more, comma-separated)",
    )
    p.add_argument(
        "--no-duplicate",
        action="store_true",
        help="give every rotation its own deals (default: duplicate deals)",
    )
    p.add_argument(
        "--luck-adjust",
        action="store_true",
        help="field and round-robin: also print each agent's win share less its luck (an "
        "AIVAT-style estimator: at every chance event and every decision of an agent with "
        "known probabilities, the change in value it caused, valued by a network from each "
        "seat's view), with its variance ratio to the raw share; about 1 to 5 ms a game more",
    )
    p.add_argument(
        "--luck-net",
        help="the value network of --luck-adjust: 'shipped' (the default) or a network file "
        "(giftsim train)",
    )
    _add_run_options(p)
    p.set_defaults(run=_tournament)


def _add_gauntlet(sub) -> None:
    p = _command(sub, "gauntlet", "each agent against several fields: a table and a plot per count")
    p.add_argument("game", choices=sorted(GAMES), help="which game")
    p.add_argument(
        "--agents",
        help="comma-separated agent specs under test, {n} standing for the player count "
        "(default: the game's gauntlet list, e.g. random,greedy,sniper,tuned{n}p,learned)",
    )
    p.add_argument(
        "--fields",
        help="comma-separated fields filling the other seats: a field of the game's gauntlet "
        "(greedy, tuned, mixed), self (the agent's own copies), an agent spec (its copies) or "
        "specs joined by + (a pool, each member in the same share of the seats, every seat "
        "order played) (default: the game's gauntlet fields)",
    )
    p.add_argument(
        "--players",
        help="player counts, comma-separated (default: the game's gauntlet counts, the ladder's)",
    )
    p.add_argument(
        "--deals",
        type=arguments.whole("a whole number >= 1"),
        default=1000,
        help="deals per cell (one agent in one field), each played once with the agent in "
        "every seat",
    )
    _add_agent_options(p)
    _add_isolation_options(p)
    _add_rule_option(p)
    p.add_argument("--seed", type=arguments.seed, default=0, help="root seed of every deal")
    p.add_argument(
        "--out",
        type=arguments.folder,
        help="results folder (manifest, parquet chunks, gauntlet.md and one PNG per count)",
    )
    p.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    _add_force(p, "a gauntlet.md or plot in --out that an earlier gauntlet did not write")
    _add_execution_options(p)
    p.set_defaults(run=_gauntlet, summary_only=False)


def _add_seats(sub) -> None:
    p = _command(sub, "seats", "seat advantage of agents across player counts")
    p.add_argument("game", choices=sorted(GAMES), help="which game")
    p.add_argument("--agents", default="greedy", help="comma-separated agent specs")
    _add_agent_options(p)
    _add_isolation_options(p)
    p.add_argument("--players", help="player counts, comma-separated (default: all official)")
    _add_run_options(p, SEATS_GAMES)
    p.set_defaults(run=_seats)


def _add_tune(sub) -> None:
    p = _command(sub, "tune", "tune an agent family's parameters by CMA-ES against a field")
    p.add_argument("game", choices=sorted(GAMES), help="which game")
    p.add_argument("--family", required=True, help="agent family to tune, e.g. sniper")
    p.add_argument(
        "--players", type=arguments.whole(PLAYER_COUNT), required=True, help="player count"
    )
    p.add_argument("--field", required=True, help="opponent spec filling the other seats")
    _add_agent_options(p, secret=False)
    p.add_argument(
        "--games", type=arguments.held_pairs, default=2000, help="deals per candidate (x seats)"
    )
    p.add_argument(
        "--generations",
        type=arguments.whole("a whole number >= 1"),
        default=10,
        help="CMA-ES generations",
    )
    p.add_argument(
        "--popsize",
        type=arguments.whole("a whole number >= 2"),
        default=8,
        help="candidates per generation",
    )
    p.add_argument(
        "--sigma",
        type=arguments.real("a positive number of parameter scales, at most 10"),  # tune.MAX_SIGMA
        default=0.3,
        help="initial step, in parameter scales",
    )
    p.add_argument(
        "--seed", type=arguments.tune_seed, default=0, help="seed of the deals and of CMA-ES"
    )
    p.add_argument(
        "--final-games", type=arguments.held_pairs, default=20000, help="fresh deals for the score"
    )
    p.add_argument("--json", type=arguments.file, help="also write the result to this JSON file")
    _add_force(p, "the --json file")
    _add_journal(p, "score (each candidate's, then the best one's final score)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_tune)


def _add_journal(p, what: str) -> None:
    p.add_argument(
        "--journal",
        type=arguments.file,
        metavar="FILE.csv",
        help=f"add each {what} to this CSV as it finishes; the same command again takes the "
        "scores in it instead of playing them (after an interruption, it continues)",
    )


def _add_train(sub) -> None:
    p = _command(sub, "train", "train a learned agent's network by self-play")
    p.add_argument("game", choices=sorted(GAMES), help="which game")
    p.add_argument(
        "--players", type=arguments.whole(PLAYER_COUNT), required=True, help="player count"
    )
    p.add_argument(
        "--seed",
        type=arguments.train_seed,
        default=TrainSettings.seed,
        help="seed of the games and of the fitting",
    )
    p.add_argument("--out", type=arguments.file, required=True, help="network file to write (.npz)")
    p.add_argument(
        "--rounds",
        type=arguments.whole("a whole number in 1..1000"),
        default=TrainSettings.rounds,
        help="rounds of play and fitting",
    )
    p.add_argument(
        "--games",
        type=arguments.whole("a whole number in 2 x players..100,000,000"),
        default=TrainSettings.games,
        help="self-play games per round",
    )
    p.add_argument(
        "--hidden",
        type=arguments.whole("a whole number in 1..128"),
        default=TrainSettings.hidden,
        help="hidden units (at most 128)",
    )
    p.add_argument(
        "--epochs",
        type=arguments.whole("a whole number in 1..100"),
        default=TrainSettings.epochs,
        help="passes over a round's data",
    )
    p.add_argument(
        "--lr",
        type=arguments.real("a number in (0, 1]"),
        default=TrainSettings.lr,
        help="Adam's step size",
    )
    p.add_argument(
        "--explore",
        type=arguments.real("a share in [0, 1]"),
        default=TrainSettings.explore,
        help="share of random moves",
    )
    p.add_argument(
        "--baseline",
        help="opponent and yardstick (default: the tuned agent of the nearest player count)",
    )
    p.add_argument(
        "--eval-games",
        type=arguments.whole("a whole number in 2..10,000,000"),
        default=TrainSettings.eval_games,
        help="held-out deals per round",
    )
    p.add_argument(
        "--margin",
        type=arguments.real("a weight in [0, 1]"),
        default=TrainSettings.margin,
        help="weight of the score lead in the target",
    )
    p.add_argument(
        "--margin-scale",
        type=arguments.real("a number of points in (0, 1000]"),
        help="points of lead worth one logit (default 10; with --margin)",
    )
    p.add_argument(
        "--members",
        type=arguments.whole("a whole number in 1..128"),
        default=TrainSettings.members,
        help="networks trained side by side, played as one (their mean; hidden x members <= 128)",
    )
    p.add_argument(
        "--selfplay",
        type=arguments.real("a share in [0, 1]"),
        default=TrainSettings.selfplay,
        help="share of self-play games after round 0",
    )
    p.add_argument(
        "--lam",
        type=arguments.real("a number in [0, 1]"),
        default=TrainSettings.lam,
        help="TD(lambda) targets below 1 (1: outcomes)",
    )
    p.add_argument(
        "--init",
        default="",
        metavar="FILE",
        help="a network of this game and table to start from, e.g. the target's own for a "
        "best response to it (its hidden units; default: fresh weights)",
    )
    _add_rule_option(p)
    p.add_argument("--workers", type=arguments.workers, default=1, help="worker processes")
    p.add_argument("--resume", action="store_true", help="continue the run checkpointed")
    _add_force(p, "--out and its .json, .csv and .png")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_train)


def _add_ladder(sub) -> None:
    p = _command(sub, "ladder", "strength ladder of the built-ins, written as markdown")
    p.add_argument("--game", choices=sorted(GAMES), help="one game (default: every game)")
    p.add_argument(
        "--games", type=arguments.held_deals, default=20000, help="deals per heuristic step"
    )
    p.add_argument(
        "--search-games", type=arguments.held_deals, default=100, help="deals per search step"
    )
    p.add_argument(
        "--seed",
        type=arguments.seed,
        default=2033,
        help="root seed of the deals (default 2033: no result on it was looked at before; the "
        "seeds in experiments/ladder.py's USED, such as 0, 7, 11 and 2027, were, and give an "
        "exploratory ladder)",
    )
    p.add_argument("--workers", type=arguments.workers, default=1, help="steps run in parallel")
    p.add_argument(
        "--out",
        type=arguments.file,
        help="also write the markdown to this file (e.g. runs/ladder.md)",
    )
    _add_force(p, "the --out file")
    _add_journal(p, "step's score")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_ladder)


def _add_report(sub) -> None:
    what = "tables, PNG plots and summary.md (a gauntlet's: gauntlet.md) for a results folder"
    p = _command(sub, "report", what)
    p.add_argument(
        "folder",
        type=arguments.folder,
        help="a folder written by tournament, seats or gauntlet --out",
    )
    p.add_argument(
        "--workers", type=arguments.workers, help="processes reading it (default: all cores)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_force(p, "a report file (summary.md, a plot) that an earlier report did not write")
    p.set_defaults(run=_report)


def _add_play(sub) -> None:
    p = _command(sub, "play", "play a game at the terminal against the bots")
    p.add_argument("game", choices=sorted(GAMES), help="which game")
    p.add_argument(
        "--players",
        type=arguments.whole(PLAYER_COUNT),
        default=4,
        help="number of players, you included",
    )
    p.add_argument(
        "--seat",
        type=arguments.whole("a seat, a whole number from 0"),
        default=0,
        help="your seat, 0-based (default 0)",
    )
    p.add_argument(
        "--vs",
        help="the other seats' agent specs, comma-separated, in seat order (default: greedy "
        "in every other seat)",
    )
    p.add_argument(
        "--seed", type=arguments.seed, help="root seed of the deal (default: a random one, shown)"
    )
    p.add_argument(
        "--record",
        type=arguments.file,
        help="where to save the game (default giftsim-play-GAME-SEED.json, or -2, -3, ... "
        "after it when that name is taken)",
    )
    _add_force(p, "the --record file")
    _add_rule_option(p)
    _add_agent_options(p, secret=False)
    _add_isolation_options(p, secret=False)
    p.set_defaults(run=_play)


def _play(args) -> int:
    from agents.registry import spec_list
    from experiments import play  # only this command needs the terminal game

    bots = args.vs or ",".join(["greedy"] * (args.players - 1))
    table = (args.players, spec_list(bots))  # the seat left over is yours
    isolation = _isolation(args, [table], args.game)
    try:
        where = (args.seed, args.record, args.rule)
        play.run(
            args.game,
            args.players,
            args.seat,
            args.vs,
            *where,
            force=args.force,
            isolation=isolation,
        )
    except play.InputEnded as error:
        raise CliError(str(error)) from None
    except KeyboardInterrupt as stop:
        saved = getattr(stop, "saved", None)
        where = f"the game so far is saved to {saved}" if saved else "nothing to save yet"
        print(f"\ngiftsim play: interrupted; {where}", file=sys.stderr)
        return 130
    return 0


def _after_interrupt(args) -> str:
    """What an interrupted command kept, and how to go on."""
    out = getattr(args, "out", None)
    if hasattr(args, "resume"):
        if out is None:
            return "without --out nothing was kept"
        from experiments.train import checkpointed

        began = checkpointed(out) if args.command == "train" else _holds_run(out)
        if not began:
            return "nothing was kept (the run had not begun); the same command starts it"
        return f"the same command with --resume continues from {out}"
    if args.command == "bound" and out is not None:
        return f"the rows found are in {out}; the same command again continues from there"
    if args.command == "demo":
        return "the studies written so far are kept; the same command again continues them"
    if getattr(args, "journal", None) is not None:
        if not Path(args.journal).is_file():
            return f"no score had finished ({args.journal} not written yet)"
        return f"the scores finished are in {args.journal}; the same command again continues"
    if hasattr(args, "journal"):
        return "nothing was kept (with --journal FILE the same command again would continue)"
    if args.command == "solve" and out is not None:
        return (
            f"anything finished is in {out}; a solve does not resume: run it again into a new --out"
        )
    return "nothing was kept (this command has no --resume)"


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
    """``--players``: the game's official counts when not given."""
    definition = load_game(game)
    if text is None:
        return list(definition.official)
    return [definition.check_players(n, "--players") for n in arguments.player_counts(text)]


def _tournament(args) -> None:
    from agents.registry import spec_list
    from experiments import commands

    players = _players(args.players, args.game)
    jobs = commands.design_jobs(
        args.game,
        args.design,
        spec_list(args.agents or "random,greedy"),
        players,
        args.games,
        args.seed,
        not args.no_duplicate,
        args.candidate,
        args.baseline,
        rules=_rule_options(args, players),
    )
    jobs = _secured(jobs, args)  # bad isolation options fail before anything is printed
    if args.luck_adjust:
        from experiments import luck

        jobs = luck.adjust(jobs, args.luck_net or luck.SHIPPED, args.summary_only)
    intro = commands.seatings_line(jobs, args.games)
    commands.execute_and_print(jobs, args.out, _run_options(args) | {"intro": intro})


def _seats(args) -> None:
    from agents.registry import spec_list
    from experiments import commands

    players = _players(args.players, args.game)
    jobs = commands.design_jobs(
        args.game,
        "mirror",
        spec_list(args.agents),
        players,
        args.games,
        args.seed,
        rules=_rule_options(args, players),
    )
    _execute_and_print(jobs, args)


def _gauntlet(args) -> None:
    from dataclasses import replace

    from experiments import commands
    from experiments.gauntlet import plan

    players = None if args.players is None else _players(args.players, args.game)
    lists = (args.agents, args.fields, players, args.deals, args.seed)
    made = plan(args.game, *lists, _rule_options(args, players or []))
    made = replace(made, jobs=_secured(made.jobs, args))  # as a tournament's: checked first
    command = "giftsim " + " ".join(args.argv)
    commands.gauntlet(made, args.out, _run_options(args) | {"force": args.force}, command)


def _report(args) -> None:
    from experiments import commands

    if args.workers is not None and args.workers < 1:
        raise CliError(f"--workers must be at least 1, got {args.workers}")
    commands.report(args.folder, not args.quiet, args.workers, args.force)


def _agents(args) -> None:
    from experiments import commands

    commands.list_agents([args.game] if args.game else list(GAMES))


def _tune(args) -> None:
    from experiments import commands

    commands.tune(args, args.argv)


def _train(args) -> None:
    from experiments import commands

    if args.margin_scale is not None and args.margin == 0:
        raise CliError("--margin-scale weighs the score lead of --margin: give --margin above 0")
    if args.margin_scale is None:
        args.margin_scale = TrainSettings.margin_scale
    commands.train(args, "giftsim " + " ".join(args.argv))


def _ladder(args) -> None:
    from experiments import commands

    games = [args.game] if args.game else None
    options = (args.games, args.search_games, args.seed, args.workers, not args.quiet)
    commands.ladder(games, *options, args.argv, args.out, args.force, args.journal)


def _execute_and_print(jobs, args) -> None:
    from experiments import commands

    commands.execute_and_print(_secured(jobs, args), args.out, _run_options(args))


def _secured(jobs, args) -> list:
    """``jobs`` with the run's secret and isolation (a random secret when an agent is
    isolated and no --secret is given)."""

    from experiments.isolation import secured

    isolation = _isolation(args, [(job.n_players, job.agents) for job in jobs], args.game)
    secret = _run_secret(args, drawn=isolation is not None and args.secret is None)
    return secured(jobs, secret, isolation)


def _run_secret(args, drawn: bool = False) -> int:
    """The one secret of a run: ``--secret``'s number; for 'random' (or when ``drawn``:
    isolated agents and no --secret) the secret drawn for the experiment in ``--out`` if the
    folder holds one (so that the same command resumes it, or is told to add --resume), else
    a fresh one. A folder played with the secret 0 holds no drawn secret."""
    if not (drawn or getattr(args, "secret", None) == "random"):
        return _secret(args)
    folder = getattr(args, "out", None)
    if folder and (Path(folder) / "manifest.json").is_file():
        from experiments import manifest as manifest_io

        kept = {job.get("secret") for job in manifest_io.read(Path(folder))["jobs"]}
        if len(kept) == 1 and isinstance(next(iter(kept)), int) and 0 not in kept:
            return kept.pop()
    return secrets.randbits(64)


def _bench(args) -> None:
    from experiments import commands

    progress, startup = not args.quiet, not args.no_startup
    where = (args.markdown, args.force, args.argv)
    commands.bench(args.games, args.rule, startup, progress, *where)


def _record(args) -> None:
    from agents.registry import spec_list
    from experiments import recording  # not commands: no statistics (scipy) to import

    rules = _rules(args, args.players)
    first = _first_player(args, rules)
    specs = args.agents or ",".join(["greedy"] * args.players)
    table = (args.players, spec_list(specs))
    isolation = _isolation(args, [table], args.game)
    random = isolation is not None and args.secret is None  # isolated: a random secret
    secret = secrets.randbits(64) if random else _secret(args)
    where = (args.seed, args.game_index, first, secret)
    out = None if args.out == STDOUT else args.out
    recording.record(args.game, rules, specs, *where, out, args.force, isolation)


def _replay(args) -> None:
    from experiments import recording

    recording.replay(args.file)


def _add_bench(sub) -> None:
    p = _command(sub, "bench", "games per second per core, and start-up times")
    p.add_argument(
        "--games",
        type=arguments.whole("a whole number >= 1"),
        default=200_000,
        help="games per measurement",
    )
    p.add_argument("--no-startup", action="store_true", help="skip the cold/warm start-up probe")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="GAME:KEY=VALUE",
        help="a rule variant for one game's mixes, repeatable (e.g. tulips:game_end=deck_out)",
    )
    p.add_argument(
        "--markdown",
        type=arguments.file,
        metavar="FILE",
        help="also write the speed section (dated) into FILE, between its marks if it has "
        "them (giftsim bench --markdown README.md renews the README's), else as a new file",
    )
    _add_force(p, "a --markdown file that has no marks")
    p.set_defaults(run=_bench)


def _add_record(sub) -> None:
    p = _command(sub, "record", "play one game and write it as a JSON record")
    p.add_argument("game", choices=sorted(GAMES), help="which game")
    p.add_argument(
        "--players", type=arguments.whole(PLAYER_COUNT), default=4, help="number of players"
    )
    p.add_argument(
        "--agents",
        help="comma-separated agent specs, one per seat (default: greedy in every seat)",
    )
    _add_agent_options(p)
    _add_isolation_options(p)
    p.add_argument("--seed", type=arguments.seed, default=0, help="root seed")
    p.add_argument(
        "--game-index",
        type=arguments.whole("a whole number from 0"),
        default=0,
        help="index of the game under the seed",
    )
    p.add_argument(
        "--first-player",
        help="'rotate' (game i: seat i mod n), 'random' or a seat (default: the rules' "
        "first_player if --rule sets it, else rotate)",
    )
    p.add_argument("--out", type=arguments.file, help="write to this file ('-' or none: stdout)")
    _add_force(p, "the --out file")
    _add_rule_option(p)
    p.set_defaults(run=_record)


def _add_replay(sub) -> None:
    p = _command(sub, "replay", "check a JSON record rule by rule and by its seed and agents")
    p.add_argument("file", type=arguments.file, help="record file ('-' for stdin)")
    _add_agent_options(p, secret=False)  # the record's own agents, to check its provenance
    p.add_argument("--quiet", action="store_true", help="no notice while agents compile")
    p.set_defaults(run=_replay)


def _add_demo(sub) -> None:
    p = _command(sub, "demo", "the main job on built-in defaults")
    p.add_argument(
        "--scale",
        type=arguments.real(
            "a positive fraction of the full size, at most 100"
        ),  # commands.MAX_SCALE
        default=1.0,
        help="fraction of the full size (2.1M No Thanks! and 0.55M Tulips games), above 0 and "
        "at most 100; every seating plays at least 10 games, so a tiny scale plays more than "
        "its fraction",
    )
    p.add_argument("--seed", type=arguments.seed, default=2026, help="root seed")
    p.add_argument(
        "--out",
        type=arguments.folder,
        help="folder for results and plots (default: results/demo-SCALE-SEED)",
    )
    p.add_argument(
        "--workers", type=arguments.workers, help="worker processes (default: all cores)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    _add_force(p, "findings.md, a summary.md or a plot that the demo did not write")
    p.set_defaults(run=_demo)


def _first_player(args, rules):
    """``--first-player``; without it the rules' ``first_player`` if ``--rule`` sets it (a
    seat, or random), else rotate."""
    text = args.first_player
    if text is None:
        return rules.first_player if _has_rule(args, "first_player") else "rotate"
    return int(text) if text.lstrip("-").isdigit() else text


def _demo(args) -> None:
    from experiments import commands

    out = args.out or Path(f"results/demo-{args.scale:g}-{args.seed}")
    commands.demo(out, args.scale, args.seed, not args.quiet, args.workers, args.force)


if __name__ == "__main__":
    sys.exit(entry())

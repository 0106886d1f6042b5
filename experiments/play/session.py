"""One game of ``giftsim play``: the person's seat, the public move log, the record."""

import importlib
import json
import secrets
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from agents.base import Agent
from agents.drivers import isolated
from agents.registry import parse_list
from experiments.games import play_slow
from experiments.play.screen import HUMAN, Console, InputEnded, Quit, Seats, count, rule
from giftsim import files
from giftsim.game import load_game
from giftsim.rng import check_seed


def screens(game: str):
    """The game's terminal text module: ``experiments/play/<game>.py``, one per game of the list
    of games (``giftsim.game.GAMES``)."""
    try:
        return importlib.import_module(f"experiments.play.{game}")
    except ModuleNotFoundError:
        raise ValueError(f"{game} has no terminal screens (experiments/play/{game}.py)") from None


class MoveLog:
    """What the table saw since the person's last decision, one line per move.

    Bots are wrapped so that each decision they make is noted, in the words of the game's
    ``event`` (which names a card only where the rules show it face up). Moves nobody was
    asked about (a No Thanks! seat without chips must take) are read off the next
    observation by the game's ``unseen``.
    """

    def __init__(self, text, seats: Seats):
        self.text, self.seats = text, seats
        self.lines: list[str] = []
        self.known = None  # public facts after the last noted decision (game-specific)
        self.shown = False  # whether the player has been asked before

    def watch(self, agent: Agent) -> Agent:
        """The same agent, with the same random stream in the slow path, its moves noted (an
        isolated seat, ``agents.drivers.isolated.IsolatedSeat``, too)."""
        if hasattr(agent, "with_stream"):
            return _Watched(agent, self)
        decide = agent.family.decide

        def noted(obs, params, rng):
            action = decide(obs, params, rng)
            self.catch_up(obs)
            self.lines.append(self.text.event(obs, action, self.seats))
            self.decided(obs, action)
            return action

        return replace(agent, family=replace(agent.family, decide=noted))  # its net kept

    def catch_up(self, obs) -> None:
        """Note the moves nobody was asked about since the last decision, seen in ``obs``."""
        self.lines += self.text.unseen(self.known, obs, self.seats)
        self.known = self.text.after(obs, None)

    def decided(self, obs, action: int) -> None:
        """Remember the public facts once ``action`` (seen in ``obs``) is applied."""
        self.known = self.text.after(obs, action)

    def flush(self) -> list[str]:
        """The moves noted since the player's last decision (since the start, before the
        first), as lines to show."""
        lines, self.lines = self.lines, []
        since = "since your last decision:" if self.shown else "since the game began:"
        self.shown = True
        return [since, *(f"  {x}" for x in lines)] if lines else []


class _Watched:
    """An isolated seat whose moves a :class:`MoveLog` notes."""

    def __init__(self, seat, log: MoveLog):
        self.seat, self.log = seat, log

    def with_stream(self, obs, rng, legal) -> int:
        action = self.seat.with_stream(obs, rng, legal)
        self.log.catch_up(obs)
        self.log.lines.append(self.log.text.event(obs, action, self.log.seats))
        self.log.decided(obs, action)
        return action


class Human:
    """The person's seat: ``player(obs, legal) -> action`` for the slow path."""

    def __init__(self, text, console: Console, log: MoveLog, seats: Seats):
        self.text, self.console, self.log, self.seats = text, console, log, seats

    def __call__(self, obs, legal: list[int]) -> int:
        self.log.catch_up(obs)
        self.console.show([rule(self.text.heading(obs)), *self.log.flush()])
        self.console.show(self.text.view(obs, self.seats))
        labels = [self.text.choice(obs, a, self.seats) for a in legal]
        keys = [self.text.key(a) for a in legal]
        action = legal[self.console.choose(labels, keys)]
        self.log.decided(obs, action)
        return action


def run(
    game: str,
    players: int,
    seat: int,
    vs=None,
    seed: int | None = None,
    record: Path | None = None,
    rule=(),
    stdin=None,
    stdout=None,
    force: bool = False,
    isolation=None,
) -> Path:
    """Play one game against the bots ``vs`` (specs of the other seats in seat order), show the
    result and save the record; return its path. ``rule``: ``key=value`` rule options (the
    command line's ``--rule``); ``isolation`` (``agents.isolation.Isolation``): bots that
    play from processes of their own. The seed is shown once the game is over (and kept in
    the record).

    The record's file is checked before the first move: ``record`` must be new (or ``force``
    set); the default name takes ``-2``, ``-3``, ... when an earlier game has it. A game that
    ends early is saved as far as it went (marked unfinished): on ``q``, at the end of the
    input (then :class:`InputEnded` is raised, its message naming the file) and on Ctrl-C
    (``KeyboardInterrupt``, with the file in its ``saved``). Raises ValueError on bad
    arguments."""
    text, definition = screens(game), load_game(game)
    rules = definition.rules.from_pairs(rule, players)
    if getattr(rules, "rounds", 1) > 1:
        raise ValueError("play plays one game; rounds=N matches are for record and tournament")
    seats, bots = _seating(game, players, seat, vs)
    for bot in bots:
        bot.check_rules(rules)  # a policy table solved under other rules: one line
    seed = secrets.randbelow(1_000_000) if seed is None else seed
    check_seed(seed)
    path = _record_path(record, f"giftsim-play-{game}-{seed}.json", force)
    brief = (text.rules_in_brief(rules), text.RULES_FILE)
    console = Console(stdin or sys.stdin, stdout or sys.stdout, *brief)
    console.show(_welcome(text, seats))
    console.show(console.brief())
    meta = {"agents": list(seats.specs), "seed": seed, "game_index": 0}
    meta["first_player_policy"] = FIRST_PLAYER
    if isolation is not None:
        bots = isolated.seated(game, bots, players, isolation)
    try:
        result = _play(text, definition, rules, seats, bots, seed, console, meta)
    except (InputEnded, KeyboardInterrupt) as stop:
        _save_stopped(stop, text, rules, meta, path, record is None, force)
        raise
    finally:
        isolated.close(bots)
    console.show([f"seed {seed} (the same deal again: --seed {seed})"])
    path = _save(path, result, record is None, force)
    if result.get("unfinished"):
        console.show([f"the game so far saved to {path} (unfinished, so replay will not check it)"])
    else:
        console.show([f"record saved to {path} (check it with: giftsim replay {path})"])
    return path


def _record_path(record: Path | None, default: str, force: bool) -> Path:
    """Where the game will be saved, checked before it starts: ``--record`` (new, or
    ``force``), else the default name or the first free ``-2``, ``-3``, ... after it."""
    if record is not None:
        return files.check_new(record, force, "--record")
    return files.check_new(files.free_name(default), what="the record")


def _save(path: Path, made: dict, default: bool, force: bool) -> Path:
    """Write a record (a default name taken meanwhile moves on to the next free one)."""
    if default:
        path = files.free_name(path)
    return files.write_text(path, json.dumps(made, indent=1) + "\n", force, "--record")


def _save_stopped(stop, text, rules, meta, path, default, force) -> None:
    """Save the game so far of a game stopped by the end of the input or Ctrl-C, and say
    where (in the message of ``InputEnded``, in ``saved`` of a ``KeyboardInterrupt``)."""
    played = getattr(stop, "played", None)
    if played is None:  # stopped before the first move was asked for
        return
    made = text.unfinished_record(rules, played.start, played.actions, meta)
    saved = _save(path, made, default, force)
    stop.saved = saved
    if isinstance(stop, InputEnded):
        stop.args = (f"{stop.args[0]}; the game so far is saved to {saved} (unfinished)",)


FIRST_PLAYER = "random"  # who begins a game against the bots: drawn from the seed


def _play(text, definition, rules, seats: Seats, bots, seed: int, console: Console, meta) -> dict:
    """Play the game through the slow path, show how it ended, and return its record."""
    log = MoveLog(text, seats)
    table = [log.watch(b) for b in bots]
    table.insert(seats.human, Human(text, console, log, seats))
    try:
        played = play_slow(definition.name, rules, table, seed, 0, FIRST_PLAYER)
    except Quit as stop:
        console.show([rule("you quit"), f"stopped after {count(len(stop.played.actions), 'move')}"])
        return text.unfinished_record(rules, stop.played.start, stop.played.actions, meta)
    result = definition.make_record(rules, played.start, played.actions, meta)
    final = np.zeros(definition.obs_size, np.int64)  # what the end shows everyone
    definition.observe(played.final, seats.human, final)
    log.catch_up(final)
    console.show([rule("game over"), *log.flush(), *text.final(final, result, seats)])
    console.show(_winners(result, seats))
    return result


def _seating(game: str, players: int, seat: int, vs) -> tuple[Seats, list[Agent]]:
    if not 0 <= seat < players:
        raise ValueError(f"--seat must be a seat 0..{players - 1}, got {seat}")
    bots = parse_list(vs or ",".join(["greedy"] * (players - 1)), game)
    if len(bots) != players - 1:
        raise ValueError(
            f"--vs names {len(bots)} agents, but {players} players leave "
            f"{players - 1} seats for the bots"
        )
    specs = [b.spec for b in bots]
    specs.insert(seat, HUMAN)
    return Seats(tuple(specs), seat), bots


def _welcome(text, seats: Seats) -> list[str]:
    """The first screen: the table and the goal; not the seed, which with ``giftsim record``
    would show the whole deal (it is shown at the end)."""
    others = ", ".join(seats.name(s) for s in range(len(seats.specs)) if s != seats.human)
    return [f"{text.TITLE}: you are seat {seats.human} against {others}", text.GOAL]


def _winners(result: dict, seats: Seats) -> list[str]:
    names = [seats.name(s) for s in result["winners"]]
    if seats.human in result["winners"]:
        return ["you win!" if len(names) == 1 else f"shared win: {', '.join(names)}"]
    return [f"winner{'s' if len(names) > 1 else ''}: {', '.join(names)}"]

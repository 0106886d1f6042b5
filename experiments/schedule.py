"""Tournament designs: lists of jobs fixed, seeds included, before anything is dispatched.

A :class:`Job` is one seating (one agent spec per seat) playing ``n_games`` games with game
indices ``first_index ..``; game ``i`` is a pure function of ``(seed, i, rules, agents)``. With
*duplicate deals* the rotations of one seating share their game indices, so every rotation
meets the same cards and first players (the computer poker competitions' method) and card luck
cancels in comparisons.

Designs
-------
``mirror``       every seat the same agent, one job per agent and player count (seat advantage).
``round_robin``  every multiset of ``n`` agents from the list that holds at least two different
                 agents, each in its ``n`` cyclic rotations (a balanced subset of the seat
                 orders: every agent of the multiset sits in every seat equally often).
``field``        one candidate against ``n - 1`` copies of a baseline, in every seat.
"""

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from itertools import combinations_with_replacement

import pandas as pd

from agents.isolation import Isolation
from agents.registry import parse_list
from experiments.games import entry
from giftsim.rng import check_secret, check_seed

DESIGNS = ("mirror", "round-robin", "field")


@dataclass(frozen=True)
class Job:
    """One seating of one experiment."""

    job: int
    game: str
    agents: tuple[str, ...]
    seed: int
    n_games: int
    first_index: int = 0
    first_player: str | int = "rotate"
    rules: dict = field(default_factory=dict)  # options besides n_players
    design: str = "mirror"
    group: int = 0  # seating group: rotations of one multiset share it
    rotation: int = 0
    secret: int = 0  # key of the agents' random streams, never shown to them (giftsim.rng)
    isolation: dict = field(default_factory=dict)  # isolated agents and limits (agents.isolation)

    @property
    def n_players(self) -> int:
        return len(self.agents)

    def __post_init__(self) -> None:
        check_seed(self.seed, self.first_index + max(self.n_games - 1, 0))
        check_secret(self.secret)
        Isolation.of(self.isolation)  # a one-line ValueError for a bad limit
        if self.n_games < 1:
            raise ValueError(f"a seating plays at least one game, got {self.n_games}")

    def make_rules(self):
        return entry(self.game).rules(n_players=self.n_players, **self.rules)


def _check(game: str, specs, players) -> list[str]:
    """Validated agent specs (canonical spelling); player counts checked against the game."""
    ent = entry(game)
    for n in players:
        if n not in ent.players:
            valid = f"{ent.players[0]}..{ent.players[-1]}"
            raise ValueError(f"{game} is played by {valid} players, not {n}")
    return [a.spec for a in parse_list(specs, game)]


def mirror(game, agents, players, n_games, seed=0, rules=None) -> list[Job]:
    """Every seat the same agent: one job per agent and player count."""
    specs = _check(game, agents, players)
    seatings = [(spec, n) for spec in specs for n in players]
    return [
        Job(
            j,
            game,
            (spec,) * n,
            seed,
            n_games,
            j * n_games,
            rules=dict(rules or {}),
            design="mirror",
            group=j,
        )
        for j, (spec, n) in enumerate(seatings)
    ]


def _rotations(seating: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The distinct cyclic rotations of a seating."""
    seen = []
    for r in range(len(seating)):
        rotated = seating[r:] + seating[:r]
        if rotated not in seen:
            seen.append(rotated)
    return seen


def _rotated_jobs(game, groups, n_games, seed, rules, design, duplicate) -> list[Job]:
    jobs = []
    for g, seating in enumerate(groups):
        for r, rotated in enumerate(_rotations(seating)):
            j = len(jobs)
            first = g * n_games if duplicate else j * n_games
            jobs.append(
                Job(
                    j,
                    game,
                    rotated,
                    seed,
                    n_games,
                    first,
                    rules=dict(rules or {}),
                    design=design,
                    group=g,
                    rotation=r,
                )
            )
    return jobs


def round_robin(game, agents, n_players, n_games, seed=0, rules=None, duplicate=True):
    """Every multiset of ``n_players`` agents with two or more different ones, each in its
    cyclic rotations; ``n_games`` per rotation (the same deals in every rotation if
    ``duplicate``)."""
    specs = _check(game, agents, [n_players])
    if len(set(specs)) < 2:
        raise ValueError("a round-robin needs at least two different agents")
    groups = [
        seating
        for seating in combinations_with_replacement(specs, n_players)
        if len(set(seating)) > 1
    ]
    return _rotated_jobs(game, groups, n_games, seed, rules, "round-robin", duplicate)


def field_design(game, candidate, baseline, n_players, n_games, seed=0, rules=None, duplicate=True):
    """``candidate`` against copies of ``baseline``, in every seat."""
    cand, base = _check(game, [candidate, baseline], [n_players])
    seating = (cand,) + (base,) * (n_players - 1)
    return _rotated_jobs(game, [seating], n_games, seed, rules, "field", duplicate)


def join(*designs: list[Job]) -> list[Job]:
    """Several designs as one job list, in order: jobs and seating groups renumbered, all else
    (seeds and game indices included) kept, so designs with one seed share deals where their
    game indices meet."""
    jobs, groups = [], 0
    for design in designs:
        jobs += [
            replace(j, job=len(jobs) + i, group=groups + j.group) for i, j in enumerate(design)
        ]
        groups += max((j.group for j in design), default=-1) + 1
    return jobs


def experiment_id(jobs: list[Job]) -> str:
    """A short hash of the whole job list: what makes two runs the same experiment."""
    text = json.dumps([asdict(j) for j in jobs], sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def rows_per_deal(jobs: list[Job]) -> pd.DataFrame:
    """Per (job, seat): ``deal_rows``, how many seats its agent holds over all the games of one
    deal (jobs with the same seed and game indices play the same deals): 1 in a mirror job's
    own deals, ``n`` for a field candidate in ``n`` rotations."""
    deal_set = [(j.seed, j.first_index, j.n_games) for j in jobs]
    held: dict = {}
    for key, job in zip(deal_set, jobs, strict=True):
        for agent in job.agents:
            held[key, agent] = held.get((key, agent), 0) + 1
    rows = [
        (job.job, seat, held[key, agent])
        for key, job in zip(deal_set, jobs, strict=True)
        for seat, agent in enumerate(job.agents)
    ]
    return pd.DataFrame(rows, columns=["job", "seat", "deal_rows"])

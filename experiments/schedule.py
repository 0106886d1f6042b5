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
                 agents (a *seating group*), seated in every distinct arrangement: every cyclic
                 order of the multiset in each of its rotations (see :func:`round_robin`).
``field``        one candidate against ``n - 1`` copies of a baseline, in every seat.

The seatings of a group share their deals (with duplicate deals), so a deal is played by a
fixed set of seatings; :func:`design_strata` names these sets, the strata of the design's
intervals (``experiments.stats``): how many deals each plays is fixed by the design, so
differences between them are not sampling noise.
"""

import hashlib
import json
from dataclasses import asdict, dataclass, field, replace
from itertools import combinations_with_replacement, permutations

import numpy as np
import pandas as pd

from agents.isolation import Isolation
from agents.registry import parse_list
from experiments.words import repeated
from giftsim.game import load_game
from giftsim.rng import check_secret, check_seed


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
    group: int = 0  # seating group: the arrangements of one multiset share it
    rotation: int = 0  # the seating's place in its group (a rotation or arrangement)
    secret: int = 0  # key of the agents' random streams, never shown to them (giftsim.rng)
    isolation: dict = field(default_factory=dict)  # isolated agents and limits (agents.isolation)
    luck: str = ""  # the luck estimator's value network ("shipped" or a file; "": not measured)

    @property
    def n_players(self) -> int:
        return len(self.agents)

    def __post_init__(self) -> None:
        check_seed(self.seed, self.first_index + max(self.n_games - 1, 0))
        check_secret(self.secret)
        Isolation.of(self.isolation)  # a one-line ValueError for a bad limit
        if self.n_games < 1:
            raise ValueError(f"a seating plays at least one game, got {self.n_games}")
        if "first_player" in self.rules:  # the rules' first player, not a silent rotation
            fixed = self.rules["first_player"]
            if self.first_player not in ("rotate", fixed):
                raise ValueError(
                    f"first_player={self.first_player!r} contradicts the rule "
                    f"first_player={fixed!r}: give one of them"
                )
            object.__setattr__(self, "first_player", fixed)

    def make_rules(self):
        """The job's rules, built once per process for each game, player count and options
        (a round-robin asks for them several times for each of thousands of seatings; the
        rules are frozen, so one object serves every job)."""
        key = (self.game, self.n_players, repr(sorted(self.rules.items())))
        if key not in _RULES:
            _RULES[key] = load_game(self.game).rules(n_players=self.n_players, **self.rules)
        return _RULES[key]


_RULES: dict = {}


def _check(game: str, specs, players) -> list[str]:
    """Validated agent specs (canonical spelling); player counts checked against the game."""
    definition = load_game(game)
    for n in players:
        definition.check_players(n)
    return [a.spec for a in parse_list(specs, game)]


def _listed_once(specs: list[str], design: str) -> list[str]:
    """``specs``, or a one-line ValueError naming the first agent listed twice."""
    if twice := repeated(specs):
        raise ValueError(f"agent {twice[0]} is listed twice; {design} lists each agent once")
    return specs


def mirror(game, agents, players, n_games, seed=0, rules=None) -> list[Job]:
    """Every seat the same agent: one job per agent and player count (each listed once).
    Invariance: agents (by canonical spec) and counts are sorted before game indices are
    assigned, so any order of ``agents`` or ``players`` plays the same games."""
    specs = _listed_once(_check(game, agents, players), "a mirror design (a seat study)")
    seatings = [(spec, n) for spec in sorted(specs) for n in sorted(players)]
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


def arrangements(multiset) -> list[tuple[str, ...]]:
    """Every distinct seat order of a multiset of agents, in lexicographic order: each of its
    cyclic orders in each of its distinct rotations (``_rotations``)."""
    return sorted(set(permutations(multiset)))


def _group_jobs(game, groups, n_games, seed, rules, design, duplicate) -> list[Job]:
    """One job per seating of each group (a list of seatings); with ``duplicate`` the
    seatings of a group share their game indices, else every seating has its own."""
    jobs = []
    for g, seatings in enumerate(groups):
        for r, seating in enumerate(seatings):
            j = len(jobs)
            first = g * n_games if duplicate else j * n_games
            jobs.append(
                Job(
                    j,
                    game,
                    seating,
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
    """Every multiset of ``n_players`` agents with two or more different ones (a seating
    group), in every distinct arrangement of its agents at the table; ``n_games`` per
    arrangement (the same deals in every arrangement of a group if ``duplicate``).

    Balance: within a group every agent sits in every seat, and at every distance from every
    other agent in both directions, equally often (the arrangements are closed under
    reversing the seat order and under exchanging agents), so who sits before whom is
    not fixed by the listing. Invariance: the agents are put in canonical order (sorted by
    spec) before groups and game indices are assigned, so any order of ``agents`` gives the
    same jobs. Cost: ``k**n - k`` seatings for ``k`` agents at ``n`` players (78 for 3
    agents at 4 players, 252 for 4): ``round_robin_size`` counts them."""
    specs = _canonical(game, agents, n_players)
    groups = [
        arrangements(multiset)
        for multiset in combinations_with_replacement(specs, n_players)
        if len(set(multiset)) > 1
    ]
    return _group_jobs(game, groups, n_games, seed, rules, "round-robin", duplicate)


def _canonical(game, agents, n_players) -> list[str]:
    """The round-robin's agents as sorted canonical specs; two different ones at least,
    none listed twice."""
    specs = _listed_once(_check(game, agents, [n_players]), "a round-robin")
    if len(specs) < 2:
        raise ValueError("a round-robin needs at least two different agents")
    return sorted(specs)


def round_robin_size(n_agents: int, n_players: int) -> tuple[int, int]:
    """``(seating groups, seatings)`` of a round-robin of ``n_agents`` different agents at
    ``n_players``: the multisets with two or more different agents, and their distinct
    arrangements (``n_agents ** n_players - n_agents``)."""
    groups = len(list(combinations_with_replacement(range(n_agents), n_players))) - n_agents
    return groups, n_agents**n_players - n_agents


def field_design(game, candidate, baseline, n_players, n_games, seed=0, rules=None, duplicate=True):
    """``candidate`` against copies of ``baseline``, in every seat."""
    cand, base = _check(game, [candidate, baseline], [n_players])
    if cand == base:
        raise ValueError(
            f"the candidate and the baseline are the same agent ({cand}); a field compares two "
            "agents (one agent in every seat is a seat study: giftsim seats)"
        )
    seating = (cand,) + (base,) * (n_players - 1)
    return _group_jobs(game, [_rotations(seating)], n_games, seed, rules, "field", duplicate)


def seating_groups(game, groups, n_games, seed=0, rules=None, design="field") -> list[Job]:
    """Jobs of given seating groups (each a list of seatings, one agent spec per seat), the
    seatings of a group on the same ``n_games`` deals and each group on its own, as the
    designs above are made: the building block of designs made elsewhere
    (``experiments.gauntlet``)."""
    return _group_jobs(game, groups, n_games, seed, rules, design, duplicate=True)


def rotations(seating) -> list[tuple[str, ...]]:
    """The distinct cyclic rotations of a seating (the seatings of a field design)."""
    return _rotations(tuple(seating))


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
    """A short hash of the whole job list: what makes two runs the same experiment (a job
    without ``luck`` hashes as before the field existed, so older folders still resume)."""
    fields = [{k: v for k, v in asdict(j).items() if k != "luck" or v} for j in jobs]
    text = json.dumps(fields, sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def rows_per_deal(jobs: list[Job]) -> pd.DataFrame:
    """Per (job, seat): ``deal_rows``, how many seats its agent holds over all the games of one
    deal (jobs with the same seed and game indices play the same deals): ``n`` in a mirror
    job (its agent holds every seat), ``n`` for a field candidate in ``n`` rotations; and
    ``deal_jobs``, how many games make one deal (the jobs that share the job's deals), which
    is how many rows each turn position holds in one deal."""
    deal_set = [(j.seed, j.first_index, j.n_games) for j in jobs]
    held: dict = {}
    for key, job in zip(deal_set, jobs, strict=True):
        held[key] = held.get(key, 0) + 1
        for agent in job.agents:
            held[key, agent] = held.get((key, agent), 0) + 1
    rows = [
        (job.job, seat, held[key, agent], held[key])
        for key, job in zip(deal_set, jobs, strict=True)
        for seat, agent in enumerate(job.agents)
    ]
    return pd.DataFrame(rows, columns=["job", "seat", "deal_rows", "deal_jobs"])


def score_ranges(jobs: list[Job], per_round: bool = False) -> dict[int, tuple[int, int]] | None:
    """Per player count, the lowest and highest score a seat can have under the jobs' rules
    (``Game.score_range``; of a whole match, or of one round with ``per_round``), the widest
    where the jobs of one count differ: the range a mean score's interval is clipped into.
    None for a game without a score range."""
    ranges: dict[int, tuple[int, int]] = {}
    for job in jobs:
        definition, rules = load_game(job.game), job.make_rules()
        if definition.score_range is None:
            return None
        score = definition.score_range if per_round else definition.match_score_range
        low, high = score(rules)
        old = ranges.get(job.n_players, (low, high))
        ranges[job.n_players] = (min(low, old[0]), max(high, old[1]))
    return ranges


def design_strata(jobs: list[Job]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """The strata of a design's deals, per job: ``(starts, codes)``, the game indices at which
    the job's deals change stratum and the stratum code from each on (``stratum_of`` looks
    one up). A deal's stratum is the set of jobs that play it (jobs of one seed play the same
    deal at the same game index): a seating group's seatings on duplicate deals, or one job.
    The design fixes how many deals each stratum plays."""
    codes: dict = {}
    out: dict = {j.job: ([], []) for j in jobs}
    for seed in sorted({j.seed for j in jobs}):
        mine = [j for j in jobs if j.seed == seed]
        bounds = sorted({i for j in mine for i in (j.first_index, j.first_index + j.n_games)})
        starting = _by_index(mine, lambda j: j.first_index)
        ending = _by_index(mine, lambda j: j.first_index + j.n_games)
        active: set = set()
        for b in bounds:
            active = (active - ending.get(b, set())) | starting.get(b, set())
            if active:
                code = codes.setdefault(tuple(sorted(active)), len(codes))
                for job in active:
                    out[job][0].append(b)
                    out[job][1].append(code)
    return {job: (np.array(s, np.int64), np.array(c, np.int64)) for job, (s, c) in out.items()}


def _by_index(jobs: list[Job], index) -> dict[int, set]:
    found: dict = {}
    for job in jobs:
        found.setdefault(index(job), set()).add(job.job)
    return found


def stratum_of(strata: dict, job: int, game_index) -> np.ndarray:
    """The stratum codes (``design_strata``) of games of one job."""
    starts, codes = strata[int(job)]
    return codes[np.searchsorted(starts, np.asarray(game_index, np.int64), side="right") - 1]

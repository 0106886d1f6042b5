"""Tuning the parameters of an agent family by CMA-ES against a field of opponents.

Every candidate parameter vector is scored by :func:`experiments.batch.field`: the candidate
against ``players - 1`` copies of the field agent, in every seat in turn, on the *same* deals
(one seed for the whole search), so candidates differ by their play and not by their cards.
CMA-ES (the ``cma`` package) searches in units of each parameter's scale (its default's size,
at least 1). The best vector is then re-scored on fresh deals, whose win share and 95%
interval are the reported result; a run is a pure function of its arguments.
"""

from dataclasses import dataclass, field

import cma
import numpy as np
import pandas as pd
from tqdm import tqdm

from agents.base import Range
from agents.registry import parse
from experiments.journal import Journal
from experiments.seeds import EVALUATION_SEED_OFFSET
from experiments.words import count_of
from giftsim.game import load_game

MAX_SIGMA = 10.0  # the initial step, in parameter scales: past a few scales CMA-ES samples noise


@dataclass(frozen=True)
class TuneResult:
    """The best parameters found, their held-out win share, and the search history."""

    game: str
    family: str
    players: int
    opponent: str
    params: dict[str, float]
    win_share: float
    ci95: tuple[float, float]
    games: int
    history: pd.DataFrame = field(repr=False)

    @property
    def spec(self) -> str:
        """The tuned agent as a spec string."""
        return parse(self.family, self.game).family(**self.params).spec


def tune(
    game: str,
    family: str,
    players: int,
    opponent: str,
    games: int = 2000,
    generations: int = 10,
    popsize: int = 8,
    sigma: float = 0.3,
    seed: int = 0,
    final_games: int = 20000,
    progress: bool = False,
    journal=None,
) -> TuneResult:
    """CMA-ES over the parameters of ``family`` for ``players`` seats against ``opponent``.

    ``games`` deals (each played once per seat) score a candidate during the search;
    ``final_games`` fresh deals score the best one. ``progress``: a bar of candidates scored
    on stderr. ``journal`` (an ``experiments.journal.Journal``): the candidates' and the final
    scores are taken from it when it holds them, the others added to it as each finishes, so
    that an interrupted run continues where it stopped (CMA-ES, a pure function of the scores,
    proposes the same candidates again).
    """
    _check_sizes(games=games, generations=generations, popsize=popsize, final_games=final_games)
    if not (np.isfinite(sigma) and 0 < sigma <= MAX_SIGMA):
        raise ValueError(
            f"sigma must be a positive number of parameter scales, at most {MAX_SIGMA:g}, got "
            f"{sigma}"
        )
    base = parse(family, game)
    names = list(base.params)
    if len(names) < 2:
        raise ValueError(
            f"{family!r} has {count_of(len(names), 'parameter')}; CMA-ES tunes two or more"
        )
    parse(opponent, game)  # before the bar: a bad field or player count is one line
    load_game(game).rules(n_players=players)
    start = np.array(list(base.params.values()), float)
    scale = np.maximum(np.abs(start), 1.0)

    ranges = [base.family.ranges[name] for name in names]

    def agent(x):
        values = np.round(start + scale * np.asarray(x), 4)  # short, exact spec strings
        valid = [_into(r, float(v)) for r, v in zip(ranges, values, strict=True)]
        return base.family(**dict(zip(names, valid, strict=True)))

    scores = journal or Journal()

    def loss(x):
        return -scores.field(game, agent(x), opponent, players, games, seed)["win_share"]

    search = cma.CMAEvolutionStrategy(
        np.zeros(len(names)), sigma, _options(popsize, generations, seed)
    )
    history = []
    bar = tqdm(total=popsize * generations, unit="candidate", disable=not progress)
    while not search.stop():
        xs = search.ask()
        losses = []
        for x in xs:
            losses.append(loss(x))
            bar.update(1)
        search.tell(xs, losses)
        history.append(_generation_row(len(history), agent(xs[int(np.argmin(losses))]), losses))
    bar.close()
    history[-1]["stop"] = ", ".join(search.stop())  # why CMA-ES ended (e.g. maxiter, tolfun)
    best = agent(search.result.xbest)
    final = scores.field(game, best, opponent, players, final_games, seed + EVALUATION_SEED_OFFSET)
    return TuneResult(
        game,
        family,
        players,
        opponent,
        best.params,
        float(final["win_share"]),
        tuple(float(v) for v in final["ci95"]),
        int(final["games"]),
        pd.DataFrame(history),
    )


def _into(valid, value: float) -> float:
    """The valid value nearest a candidate's (``agents.base.Range`` or ``Choice``): CMA-ES
    searches the real line, so a candidate outside a parameter's interval plays at its edge and
    a whole-number parameter (a search's ``iters``) plays rounded; a choice plays its nearest
    value."""
    if isinstance(valid, Range):
        value = min(max(value, valid.low), valid.high)
        return float(round(value)) if valid.integer else value
    return min(valid.values, key=lambda choice: (abs(choice - value), choice))


def _check_sizes(**sizes: int) -> None:
    """Every count at least its minimum: CMA-ES needs two candidates to rank, an interval two
    deals; one generation will do."""
    for name, value in sizes.items():
        least = 1 if name == "generations" else 2
        if value < least:
            flag = name.replace("_", "-")
            raise ValueError(f"--{flag} must be at least {least}, got {value}")


def _options(popsize: int, generations: int, seed: int) -> dict:
    """CMA-ES settings; its normal draws come from a generator of its own (``cma``'s ``seed``
    option would reseed numpy's global one)."""
    draws = np.random.default_rng(seed)
    return {
        "popsize": popsize,
        "maxiter": generations,
        "seed": np.nan,
        "randn": lambda lam, n: draws.standard_normal((lam, n)),
        "verbose": -9,
    }


def _generation_row(generation: int, best, losses) -> dict:
    return {
        "generation": generation,
        "best_share": -min(losses),
        "mean_share": -float(np.mean(losses)),
        "best": best.spec,
    }


def as_record(result: TuneResult, argv=()) -> dict:
    """The result as plain JSON data, with the command (``giftsim`` arguments) behind it."""
    return {
        "game": result.game,
        "family": result.family,
        "players": result.players,
        "field": result.opponent,
        "params": result.params,
        "spec": result.spec,
        "win_share": result.win_share,
        "ci95": list(result.ci95),
        "games": result.games,
        "stopped_by": str(result.history["stop"].iloc[-1]),
        "command": " ".join(["giftsim", *(argv or [])]),
    }

"""The strength ladder: each rung against a field of the rung below, per player count.

A step is a seat-rotated field tournament on duplicate deals (:func:`experiments.batch.field`):
the upper agent in every seat in turn against ``players - 1`` copies of the lower one. The step
is *shown* when the lower end of the upper agent's 95% interval is above the fair share.
Search agents (at their default settings) are slow, so their steps use fewer deals: a search
agent against a field of heuristics, where one seat searches, plays ``players`` times the deals
of a search agent against a field of search agents, where every seat does (about the same time).
"""

from datetime import date
from itertools import pairwise

import pandas as pd
from joblib import Parallel, delayed

from experiments.batch import field

# Rungs per game, weakest first; "{n}" is the player count (tuned built-ins are per count).
RUNGS = {
    "geschenkt": ("random", "greedy", "sniper", "tuned{n}p", "flatmc", "ismcts"),
    "tulips": ("random", "greedy", "hoarder", "tuned{n}p", "flatmc", "ismcts"),
}
PLAYERS = {"geschenkt": (3, 4, 5), "tulips": (2, 4, 6)}
SEARCH = ("flatmc", "ismcts")


def steps(game: str, players, games: int, search_games: int) -> list[tuple]:
    """``(game, n, lower, upper, deals)`` for every step of the ladder (none for steps with
    0 deals: ``search_games=0`` leaves out the search rungs)."""
    out = []
    for n in players:
        rungs = [r.format(n=n) for r in RUNGS[game]]
        for lower, upper in pairwise(rungs):
            deals = games
            if lower.startswith(SEARCH):
                deals = search_games
            elif upper.startswith(SEARCH):
                deals = search_games * n  # one seat searches, not n
            if deals > 0:
                out.append((game, n, lower, upper, deals))
    return out


def _step(game, n, lower, upper, deals, seed):
    result = field(game, upper, lower, n, deals, seed=seed)
    low, high = result["ci95"]
    return {
        "game": game,
        "players": n,
        "upper": upper,
        "lower": lower,
        "win_share": result["win_share"],
        "ci_low": low,
        "ci_high": high,
        "fair": result["fair"],
        "games": result["games"],
        "shown": low > result["fair"] + 1e-9,  # a tie with the field is not a step
    }


def ladder(games=("geschenkt", "tulips"), n_games=20000, search_games=100, seed=0, workers=1):
    """Every step of every game's ladder as one table (rows in ladder order)."""
    for flag, value, least in (
        ("--games", n_games, 0),
        ("--search-games", search_games, 0),
        ("--workers", workers, 1),
    ):
        if value < least:
            raise ValueError(f"{flag} must be at least {least}, got {value}")
    todo = [s for g in games for s in steps(g, PLAYERS[g], n_games, search_games)]
    if not todo:
        raise ValueError("--games and --search-games are both 0: the ladder has no step to play")
    slow_first = sorted(range(len(todo)), key=lambda i: -_cost(todo[i]))
    rows = Parallel(n_jobs=workers)(delayed(_step)(*todo[i], seed) for i in slow_first)
    by_index = dict(zip(slow_first, rows, strict=True))
    return pd.DataFrame([by_index[i] for i in range(len(todo))])


def _cost(step) -> float:
    _, n, lower, upper, deals = step
    return deals * n * (10 if any(r.startswith(SEARCH) for r in (lower, upper)) else 0.001)


def markdown(table: pd.DataFrame, argv=()) -> str:
    """``docs/ladder.md``: the command (``giftsim`` arguments), then one table per game and
    player count."""
    command = " ".join(["giftsim", *argv])
    lines = [
        "# Strength ladder",
        "",
        f"Written by `{command}` on {date.today().isoformat()}.",
        "",
        "Each step: the upper agent in every seat in turn against copies of the lower one on the",
        "same deals (seat-rotated field tournament); win share with ties split, 95% interval, and",
        "whether the interval lies above the fair share (`shown`). Search rungs play at their",
        "default settings (see `giftsim bench` for their time per decision) on fewer deals: a",
        "search agent against heuristics on `players` x `--search-games` deals, against search",
        "agents on `--search-games`.",
        "",
    ]
    for (game, n), part in table.groupby(["game", "players"], sort=False):
        lines += [f"## {game}, {n} players", "", _table(part), ""]
    return "\n".join(lines)


def _table(part: pd.DataFrame) -> str:
    rows = ["| upper | vs field of | win share | 95% interval | fair | games | shown |"]
    rows.append("|---|---|---|---|---|---|---|")
    for r in part.itertuples():
        rows.append(
            f"| `{r.upper}` | `{r.lower}` | {r.win_share:.3f} | [{r.ci_low:.3f}, {r.ci_high:.3f}]"
            f" | {r.fair:.3f} | {r.games:,} | {'yes' if r.shown else 'no'} |"
        )
    return "\n".join(rows)

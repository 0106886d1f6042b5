"""The strength ladder: each rung against a field of the rung below, per player count, and
the branches off the chain (the learned agents against the rungs they were trained to beat),
as each game's roster lists them (``agents.roster.Ladder``).

A step is a seat-rotated field tournament on duplicate deals (:func:`experiments.batch.field`):
the upper agent in every seat in turn against ``players - 1`` copies of the lower one, its win
share with a 95% interval over deals. Each step is a one-sided test of "the upper agent wins
more than the fair share" (``stats.share_p_value``: the p that agrees with the interval, so p
< 0.025 exactly when its lower end is above the fair share); the steps of one run are judged
together with Holm's correction at a family-wise 2.5%, and a step is *shown* only if it passes,
rests on at least ``stats.FEW_DEALS`` deals and no result on the deals' seed had been looked at
before (``USED``).
A step that is not shown is not called a tie: the table gives the interval of its edge over
the fair share, which bounds the edges it rules out.
Search agents (at their default settings) are slow, so their steps use fewer deals: a search
agent against a field of heuristics, where one seat searches, plays ``players`` times the deals
of a search agent against a field of search agents, where every seat does (about the same time).
"""

from datetime import date
from itertools import pairwise

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from tqdm import tqdm

from agents.drivers.block import announce_loop
from agents.registry import parse_list, spec_name
from agents.roster import roster
from experiments.batch import field, play
from experiments.journal import Journal
from experiments.seeds import CONFIRM_SEED_OFFSET, EVAL_SEED_OFFSET, EVALUATION_SEED_OFFSET
from experiments.stats import few_note, holm_adjusted, share_p_value, too_few
from giftsim.game import GAMES, load_game, register_game

ALPHA = 0.025  # family-wise, one-sided (the lower end of a two-sided 95% interval)
USED = {  # seeds whose results were looked at (to choose a parameter or not): a ladder on
    # them is exploratory. From the git history, docs/, the notebooks and the networks' records.
    0: "the tuned agents' CMA-ES deals, flatmc's Tulips margin=0.5, docs/ladder.md, notebook 05, "
    "giftsim bound's rows (docs/bounds.csv)",
    1: "the shipped networks' training games; ismcts_net against ismcts (findings section 7); "
    "the learned best responses' training games (docs/responders)",
    3: "the Tulips 4-player network's training games (agents/tulips/nets/4p.json)",
    4: "the Tulips 6-player network's training games (agents/tulips/nets/6p.json)",
    5: "the Tulips 3- and 5-player networks' training games (agents/tulips/nets/3p.json, 5p); "
    "the luck estimator with a playout value (docs/luck.md)",
    6: "the luck estimator with a playout value, 100 deals (docs/luck.md)",
    7: "the search agents' targets (docs/findings.md section 6); the README's records",
    9: "flatmc_net and ismcts_net against the searches they extend (findings section 7)",
    11: "the ISMCTS variants and defaults (docs/findings.md sections 5 and 6)",
    13: "flatmc_net's Tulips screens of iterations (findings section 7, since removed)",
    21: "flatmc_net's Tulips mix=0.75 and leaf=1 (agents/tulips/__init__.py)",
    22: "No Thanks! ismcts_net's NET_MIX=0.75 (agents/geschenkt/worlds.py)",
    31: "flatmc_net's leaf=1, top and network screens at 4 Tulips players (findings section 7)",
    42: "a Tulips 4-player network of flatmc's play, tried in flatmc_net (findings section 7)",
    43: "that network against three flatmc, 2,000 deals (findings section 7)",
    2024: "the balance sweeps and the anatomy of four sniper (notebooks 03, 04, README)",
    2026: "the seat studies and strategy win rates (notebooks 01, 02, README), make demo",
    2027: "docs/ladder-learned.md; the learned agents, looked at repeatedly (findings 7)",
    2028: "No Thanks! ismcts_net against two ismcts at equal time (findings section 7)",
    2029: "No Thanks! ismcts_net against two ismcts at equal time (findings section 7)",
    2030: "flatmc_net leaf=1 against flatmc at 2 Tulips players (findings section 7)",
    2031: "flatmc_net leaf=1 against three flatmc at 4 Tulips players (findings section 7)",
    2032: "flatmc_net with a network of flatmc's play at 4 Tulips players (findings section 7)",
    2405: "giftsim gauntlet of both games, every built-in in four fields (docs/gauntlet.md "
    "before 2026-12-07)",
    2612: "giftsim gauntlet of both games with paired comparisons (docs/gauntlet.md)",
    9001: "the Tulips 6-player ladder steps re-run (docs/ladder.md, findings section 6)",
    240101: "the luck estimator's pilots of flatmc_net against flatmc at 4 players (docs/luck.md)",
    240102: "the luck estimator's cost and ratios, learned against tuned4p (docs/luck.md)",
    240104: "the luck estimator's No Thanks! 4-player flatmc_net ratio (docs/luck.md)",
    240103: "the pre-registered Tulips 4-player flatmc_net run (docs/ladder-learned.md)",
    240105: "a 30-deal check of --luck-adjust after merging main, learned against tuned4p",
    240201: "where a pair's variance lies, rho (docs/luck.md)",
    240202: "where a pair's variance lies, rho, No Thanks! searches (docs/luck.md)",
    240301: "a regression on the deal as control variate, learned (docs/luck.md)",
    240302: "a regression on the deal as control variate, greedy (docs/luck.md)",
    777000: "the README's PPO example, evaluated against greedy",
    EVALUATION_SEED_OFFSET: "the tuned agents' final scores (giftsim tune --seed 0 scores here)",
    **{
        EVAL_SEED_OFFSET + s: f"the held-out deals that chose the round of train --seed {s}"
        for s in (1, 3, 4, 5, 42)
    },
    **{
        CONFIRM_SEED_OFFSET + s: f"the fresh deals that confirm the network of --seed {s}"
        for s in (1, 3, 4, 5)
    },
    **{  # the learned-agents review (not in the repository): learned and the tuned agents in fields
        s: "the learned-agents review's field tournaments (issue 24)"
        for s in (*range(880001, 880007), *range(880011, 880017), 880021, 880022, 880061)
    },
    **{
        s: "the learned-agents review's field tournaments (issue 24)"
        for s in (880062, *range(880071, 880077), 880082)
    },
    **{  # the second statistics review (not in the repository): the truths of its coverage checks
        s: "the second statistics review's large runs (issue 24)" for s in range(910001, 910005)
    },
    **{s: "the coverage tests' designs (tests/test_coverage.py)" for s in range(6101, 6106)},
    **{  # mirror tables of learned, tuned4p, greedy, random and flatmc at 3-5 Tulips players
        s: "the Tulips turn-order gap of learned among its own copies (findings section 1)"
        for s in range(990001, 990015)
    },
}
FRESH_SEED = 2033  # the default: no result on these deals was looked at before


def steps(game: str, games: int, search_games: int, players=None) -> list[tuple]:
    """``(game, n, lower, upper, deals)`` for every step of the game's ladder (its roster's
    rungs, weakest first, and branches off the chain, e.g. the learned agents against the rung
    they were trained to beat; ``{n}`` is the player count) at each of ``players`` (default:
    the roster's counts); none for steps with 0 deals: ``search_games=0`` leaves out the
    search rungs."""
    kit = roster(game)
    ladder, searching = kit.ladder, tuple(kit.search)
    out = []
    for n in players or ladder.players:
        rungs = [r.format(n=n) for r in ladder.rungs]
        branches = [(low.format(n=n), up.format(n=n)) for low, up in ladder.branches]
        for lower, upper in [*pairwise(rungs), *branches]:
            deals = games
            if spec_name(lower) in searching:
                deals = search_games
            elif spec_name(upper) in searching:
                deals = search_games * n  # one seat searches, not n
            if deals > 0:
                out.append((game, n, lower, upper, deals))
    return out


def _play_step(i: int, game, n, lower, upper, deals, seed, package) -> tuple[int, dict]:
    """Step ``i``'s field score, in a worker process: a game added at run time
    (``register_game``) is added there too, from its package."""
    if game not in GAMES:
        register_game(game, package)
    return i, field(game, upper, lower, n, deals, seed=seed)


def _row(step, score: dict) -> dict:
    """A step's row of the ladder's table."""
    game, n, lower, upper, deals = step
    low, high = score["ci95"]
    share, fair = score["win_share"], score["fair"]
    return {
        "game": game,
        "players": n,
        "upper": upper,
        "lower": lower,
        "win_share": share,
        "ci_low": low,
        "ci_high": high,
        "fair": fair,
        "games": score["games"],
        "deals": deals,
        "p_value": share_p_value(share, score["se"], deals, fair, deals - 1),
    }


def holm(p_values, alpha: float = ALPHA) -> np.ndarray:
    """Holm's step-down rejections at family-wise ``alpha``: the i-th smallest p (from 0) is
    compared with alpha / (m - i), stopping at the first that fails."""
    return holm_adjusted(p_values) <= alpha


def judge(table: pd.DataFrame, seed: int) -> pd.DataFrame:
    """Holm over the steps of ``table``: ``holm`` (passes), ``shown`` (passes on enough deals,
    ``stats.too_few``, and on a seed no parameter was chosen on) and ``edge_low`` /
    ``edge_high``, the interval of the win share minus the fair share."""
    table = table.assign(holm=holm(table["p_value"]))
    enough = ~table["deals"].map(too_few).astype(bool)
    table["shown"] = table["holm"] & enough & (seed not in USED)
    table["edge_low"] = table["ci_low"] - table["fair"]
    table["edge_high"] = table["ci_high"] - table["fair"]
    return table


def ladder(
    games=None,
    n_games=20000,
    search_games=100,
    seed=FRESH_SEED,
    workers=1,
    progress=False,
    journal=None,
):
    """Every step of the ladders of ``games`` (default: every game) as one table (rows in
    ladder order), judged by ``judge``; ``progress``: a bar of steps done on stderr.
    ``journal`` (an ``experiments.journal.Journal``): its steps' scores are taken from it and
    the others added to it as each finishes, so that an interrupted ladder continues."""
    for flag, value in (("--games", n_games), ("--search-games", search_games)):
        if value < 0 or value == 1:  # an interval needs two deals
            raise ValueError(f"{flag} must be 0 (no such steps) or at least 2, got {value}")
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    todo = [s for g in games or GAMES for s in steps(g, n_games, search_games)]
    if not todo:
        raise ValueError("--games and --search-games are both 0: the ladder has no step to play")
    journal = journal or Journal()
    keys = [journal.key(game, up, low, n, deals, seed) for game, n, low, up, deals in todo]
    scores = {i: journal.get(key) for i, key in enumerate(keys)}
    left = sorted((i for i, s in scores.items() if s is None), key=lambda i: -_cost(todo[i]))
    tasks = [delayed(_play_step)(i, *todo[i], seed, GAMES[todo[i][0]]) for i in left]
    plays = [todo[i] for i in left]
    cold = any([_announce(game, plays) for game in dict.fromkeys(step[0] for step in plays)])
    results = _in_workers(tasks, plays, seed, workers, cold)
    for i, score in tqdm(results, total=len(left), unit="step", disable=not progress):
        journal.add(keys[i], score)  # as it finishes: a step done is never played again
        scores[i] = score
    return judge(pd.DataFrame([_row(step, scores[i]) for i, step in enumerate(todo)]), seed)


def _in_workers(tasks: list, steps: list, seed: int, workers: int, cold: bool):
    """The tasks' results as they finish. When something the steps play is not in the cache
    yet (``cold``: the first-run line was said in this process, as the workers' own are
    silent) and there are several workers, one of them first plays a game of each pair of
    agents, so that it compiles once and the others load it."""
    with Parallel(n_jobs=workers, return_as="generator_unordered") as parallel:
        if cold and workers > 1 and len(steps) > 1:
            pairs = {
                (game, frozenset((low, up))): (game, n, low, up) for game, n, low, up, _ in steps
            }
            list(parallel([delayed(_warm_up)(list(pairs.values()), seed, dict(GAMES))]))
        yield from parallel(tasks)


def _announce(game: str, steps: list) -> bool:
    """One first-run line for the loop of ``game`` and every agent of its ``steps``."""
    agents = dict.fromkeys(spec for g, _, *pair, _ in steps if g == game for spec in pair)
    return announce_loop(load_game(game), parse_list(list(agents), game))


def _warm_up(pairs: list, seed: int, games: dict) -> None:
    """One game of each pair ``(game, n, lower, upper)`` of agents (compiling, or loading,
    what it plays); ``games``: the main process's ``GAMES``, for a game added at run time."""
    for game, n, lower, upper in pairs:
        if game not in GAMES:
            register_game(game, games[game])
        play(game, [upper, *[lower] * (n - 1)], n_games=1, seed=seed)


def _cost(step) -> float:
    game, n, lower, upper, deals = step
    searching = any(spec_name(r) in roster(game).search for r in (lower, upper))
    return deals * n * (10 if searching else 0.001)


def markdown(table: pd.DataFrame, argv=(), seed=FRESH_SEED) -> str:
    """``docs/ladder.md``: the command (``giftsim`` arguments), then one table per game and
    player count."""
    command = " ".join(["giftsim", *argv])
    lines = [
        "# Strength ladder",
        "",
        f"Written by `{command}` on {date.today().isoformat()}.",
        "",
        "Each step: the upper agent in every seat in turn against copies of the lower one on the",
        "same deals (seat-rotated field tournament); win share with ties split and its 95%",
        "interval over deals; the one-sided p of an edge over the fair share; `shown` when the",
        f"step passes Holm's correction over the {len(table)} steps of this run (family-wise",
        "2.5% one-sided) on deals no parameter was chosen on. A step not shown is not a tie:",
        "its edge over the fair share lies in the interval given, which rules out larger ones.",
        *_search_note(table),
        "",
        "A step is a claim in one field: the upper agent beats the lower one in a field of the",
        "lower one. It says nothing of other fields, and the steps are not an order of",
        "strength (an agent can beat the tuned agents in theirs and lose to them in a field of",
        "`greedy`): `giftsim gauntlet` plays each agent in several fields (docs/gauntlet.md).",
        "The upper agent's *worst case* is the largest gain a responder found against it at",
        "this player count (`giftsim bound`, the rows of docs/bounds.csv): a lower bound of how",
        "much a best response takes from it in a field of its own copies. A network trained",
        'against another agent says so ("trained against tuned4p": a transfer responder,',
        "still a strategy of the seat, so still a lower bound).",
        "",
        *_seed_note(seed),
    ]
    for (game, n), part in table.groupby(["game", "players"], sort=False):
        lines += [f"## {load_game(game).title} ({game}), {n} players", "", _table(part), ""]
    return "\n".join(lines)


def _search_note(table: pd.DataFrame) -> list[str]:
    pairs = zip(table["game"], table["upper"], strict=True)  # a search rung's upper searches
    searched = any(spec_name(upper) in roster(game).search for game, upper in pairs)
    if not searched:
        return ["No search rung was played (`--search-games 0`): the heuristics' steps only."]
    return [
        "Search rungs play at their default settings (see `giftsim bench` for their time per",
        "decision) on fewer deals: a search agent against heuristics on `players` x",
        "`--search-games` deals, against search agents on `--search-games`.",
    ]


def _seed_note(seed: int) -> list[str]:
    if seed not in USED:
        return [f"Seed {seed}: no result on its deals was looked at before this run.", ""]
    return [
        f"**Exploratory:** results on seed {seed} were looked at before ({USED[seed]}), so no",
        "step is shown; run on a fresh seed to confirm.",
        "",
    ]


def _verdict(r) -> str:
    if r.shown:
        return "shown"
    if not r.holm:
        reason = f"edge in [{r.edge_low:+.3f}, {r.edge_high:+.3f}]"
    elif too_few(r.deals):
        reason = "passes Holm"
    else:
        reason = "passes Holm, exploratory seed"
    few = f"; {few_note(r.deals)}" if too_few(r.deals) else ""
    return f"not shown ({reason}{few})"


def _table(part: pd.DataFrame) -> str:
    """A game's steps at one player count, with the upper agent's worst case there."""
    from experiments.bounds import worst_cases

    game, players = part["game"].iloc[0], int(part["players"].iloc[0])
    worst = worst_cases(game, players=players)
    rows = [
        "| upper | vs field of | win share | 95% interval | fair | games | p | verdict "
        "| upper's worst case |"
    ]
    rows.append("|---|---|---|---|---|---|---|---|---|")
    for r in part.itertuples():
        rows.append(
            f"| `{r.upper}` | `{r.lower}` | {r.win_share:.3f} | [{r.ci_low:.3f}, {r.ci_high:.3f}]"
            f" | {r.fair:.3f} | {r.games:,} | {r.p_value:.2g} | {_verdict(r)} "
            f"| {worst.get(spec_name(r.upper), 'not bounded')} |"
        )
    return "\n".join(rows)

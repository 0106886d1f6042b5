"""What the commands of the CLI do (``experiments.cli`` parses their arguments): run a design,
study seats, report a folder, the demo, and the other commands' bodies.

Tables are computed by ``experiments.stats`` and drawn by ``experiments.plots``; this module
only wires them to folders and the terminal. A user error is a one-line ValueError.
"""

import json
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from agents.roster import roster
from experiments import luck, provenance, stats
from experiments import manifest as manifest_io
from experiments.games import entry
from experiments.isolation import forfeit_sums_table, forfeit_table
from experiments.results import (
    deal_sums,
    load,
    load_deal_sums,
    load_summary,
    long_table,
    manifest_jobs,
    round_table,
    summary_of,
)
from experiments.runner import run
from experiments.schedule import deal_strata, field_design, mirror, round_robin, rows_per_deal
from giftsim import files
from giftsim.game import GAMES, rounds_of

PLOTS = {  # file name -> (plot function name, keyword arguments)
    "seat_win_share.png": ("seat_win_share", {"column": "position"}),
    "win_rate_heatmap.png": ("win_rate_heatmap", {}),
    "ratings.png": ("rating_chart", {}),
    "score_distributions.png": ("score_distributions", {}),
}


def design_jobs(
    game,
    design,
    agents,
    players,
    n_games,
    seed,
    duplicate=True,
    candidate=None,
    baseline=None,
    rules=None,
):
    """The jobs of a design (see ``experiments.schedule``); ``rules``: options of the game's
    ``Rules`` besides ``n_players`` (every job carries them, and so the manifest)."""
    if design == "mirror":
        return mirror(game, agents, players, n_games, seed, rules)
    if len(players) != 1:
        raise ValueError(f"the {design} design takes one player count, got {players}")
    if design == "round-robin":
        return round_robin(game, agents, players[0], n_games, seed, rules, duplicate=duplicate)
    if design == "field":
        if not candidate or not baseline:
            raise ValueError("the field design needs --candidate and --baseline")
        return field_design(
            game, candidate, baseline, players[0], n_games, seed, rules, duplicate=duplicate
        )
    raise ValueError(f"unknown design {design!r} (valid: mirror, round-robin, field)")


def seatings_line(jobs, games: int) -> str:
    """One line: how many seatings and seating groups a design plays, and its games."""
    groups = len({job.group for job in jobs})
    return (
        f"{jobs[0].design}: {len(jobs):,} seatings in {groups:,} seating group(s), "
        f"{games:,} games each: {len(jobs) * games:,} games"
    )


def execute(jobs, out, options):
    """Run jobs (into ``out`` if given) and return ``(sums, deals)``: their per-(job, seat,
    position) sums (with ``deal_rows``, see ``schedule.rows_per_deal``) and, unless the run
    keeps summaries only, their per-(deal, agent, turn position) sums (``results.deal_sums``),
    both read chunk by chunk so that memory does not grow with the number of games."""
    frame, seconds, played = run(jobs, out=out, **options)
    _played_line(played, seconds, out)
    summary_only = options.get("summary_only", False)
    if out is not None:
        sums = load_summary(out)
        deals = None if summary_only else load_deal_sums(out)
    else:
        sums = summary_of(frame, summary_only, jobs)
        deals = None if summary_only else deal_sums(frame, deal_strata(jobs))
    return sums.merge(rows_per_deal(jobs), on=["job", "seat"], how="left"), deals


def _played_line(played: int, seconds: float, out) -> None:
    if played == 0 and out is not None:
        print(f"every game is already in {out}; nothing left to play")
    else:
        rate = played / seconds if seconds > 0 else float("nan")
        print(f"played {played:,} games in {seconds:.1f} s ({rate:,.0f} games/s)")


def _mixed(table: pd.DataFrame, game=("job",)) -> bool:
    """Whether some game seats two different agents (else a mirror study)."""
    return bool((table.groupby(list(game)).agent.nunique() > 1).any())


def interval_note(deals) -> str:
    """What the intervals of ``summary_tables`` count as independent."""
    if deals is not None:
        return (
            f"95% intervals with the deal as unit ({deals['deal'].nunique():,} deals; the "
            "games of one deal, in every seating of its group, counted together, and each "
            "deal measured against its group's mean)"
        )
    return (
        "95% intervals from summaries only (no deals kept): each deal counted as one game of "
        "its summed variance, so they are wide but never too narrow; without --summary-only "
        "they are computed by deal"
    )


TURNS = "turn-order advantage (position 0 = first player)"
GAP = "turn-order gap (last minus first position, their covariance counted)"


def summary_tables(sums: pd.DataFrame, deals=None) -> dict[str, pd.DataFrame]:
    """Tables that streamed sums support: win share (not in mirror studies, where it is fair
    by construction) and mean score by agent, turn-order advantage, the gap of the last
    position over the first and the test of equal positions (per agent when every table
    seats one agent); by deal from ``deals`` when given, else bounded from the sums."""
    mixed = _mixed(sums)
    out = {}
    if mixed:
        share = stats.deal_win_share(deals) if deals is not None else None
        out["win share by agent"] = share if share is not None else stats.summary_win_share(sums)
    if deals is not None and "adjusted_sum" in deals:
        out[luck.TABLE] = luck.win_share(deals)
    out["mean score by agent"] = (
        stats.deal_mean_score(deals) if deals is not None else stats.summary_mean_score(sums)
    )
    if deals is not None:
        parts = [("all seatings", deals)] if mixed else list(deals.groupby("agent"))
        functions = (stats.deal_seat_advantage, stats.deal_seat_gap, stats.deal_seat_test)
    else:
        parts = [("all seatings", sums)] if mixed else list(sums.groupby("agent"))
        functions = (stats.summary_seat_advantage, stats.summary_seat_gap, stats.summary_seat_test)
    advantage, gap, test = functions
    for name, part in parts:
        where = "" if mixed else f" — all-{name} tables"
        out[f"{TURNS}{where}"] = advantage(part, column="position")
        out[f"{GAP}{where}"] = gap(part, column="position")
        out[f"turn-order test{where}"] = test(part, column="position")
    if "forfeits" in sums:  # isolated agents (experiments.isolation)
        out["forfeits by agent (a forfeit is a loss)"] = forfeit_sums_table(sums)
    return out


def tables(frame: pd.DataFrame, summary_only: bool, game=None, jobs=None):
    """The report's tables: every figure with its interval, the deal as unit (head-to-head
    and ratings need per-game rows). ``jobs``: the run's jobs, which bound the intervals of
    summaries (``schedule.rows_per_deal``; without them every game counts as its own deal)."""
    if summary_only:
        sums = summary_of(frame, True)
        if jobs is not None:
            sums = sums.merge(rows_per_deal(jobs), on=["job", "seat"], how="left")
        return summary_tables(sums)
    long = long_table(frame, game)
    mixed = _mixed(long, ["job", "game_index"])
    out = {"win share by agent": stats.win_share(long)} if mixed else {}
    if "luck" in long:
        out[luck.TABLE] = luck.win_share(luck.long_deals(long))
    out["mean score by agent"] = stats.mean_score(long)
    groups = [("all seatings", long)] if mixed else list(long.groupby("agent"))
    for name, part in groups:
        where = "" if mixed else f" — all-{name} tables"
        out[f"{TURNS}{where}"] = stats.seat_advantage(part, "position")
        out[f"{GAP}{where}"] = stats.seat_gap(part, column="position")
        out[f"turn-order test{where}"] = stats.seat_test(part, "position")
    out.update(_round_tables(frame, game))
    if "forfeit" in long:  # isolated agents (experiments.isolation)
        out["forfeits by agent (a forfeit is a loss)"] = forfeit_table(long)
    if mixed:
        out["head to head (row agent beats opponent, ties 1/2)"] = stats.pairwise_table(long)
        order = "whole finishing order" if "finish" in long else "winners only"
        rating = stats.ratings(long, n_boot=100)
        rating["deals"] = out["win share by agent"]["deals"].reindex(rating.index)
        out[f"ratings (Plackett-Luce log-strength, {order}; bootstrap over deals)"] = rating
    return out


def _round_tables(frame: pd.DataFrame, game) -> dict[str, pd.DataFrame]:
    """Matches of several rounds: each agent's win share of single rounds and mean score per
    round (the tables above are per match), and per round number; the deal (match) as unit."""
    rounds = round_table(frame, game) if game is not None else pd.DataFrame()
    if rounds.empty:
        return {}
    return {
        "win share of single rounds by agent (the match's deal as unit)": stats.win_share(rounds),
        "mean score per round by agent": stats.mean_score(rounds),
        "mean score by round number and agent": stats.mean_score(rounds, by=["round", "agent"]),
    }


def flag_few(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with a ``warning`` column on rows whose interval rests on fewer than
    ``stats.FEW_DEALS`` deals (tables without a ``deals`` column are returned as they are)."""
    if "deals" not in table or not (table["deals"] < stats.FEW_DEALS).any():
        return table
    few = table["deals"] < stats.FEW_DEALS
    return table.assign(warning=np.where(few, f"< {stats.FEW_DEALS} deals", ""))


FEW_NOTE = (
    "(< {} deals: too few deals for the interval's 95% coverage to be trusted; play more games)"
)


def print_tables(named: dict[str, pd.DataFrame]) -> None:
    for name, table in named.items():
        print(f"\n== {name}")
        flagged = flag_few(table)
        print(flagged.round(4).to_string())
        if "warning" in flagged and "warning" not in table:
            print(FEW_NOTE.format(stats.FEW_DEALS))


def _wins(game: str) -> str:
    """Which way a score wins, from the game's record."""
    return "lower score wins" if entry(game).lower_wins else "higher score wins"


def report(folder) -> dict[str, pd.DataFrame]:
    """Tables to the terminal, PNG plots and a Markdown summary into the results folder."""
    folder = Path(folder)
    if manifest_io.read(folder).get("gauntlet"):
        return gauntlet_report(folder)
    manifest, frame = load(folder)
    if frame.empty:
        raise ValueError(f"{folder} holds no results yet")
    named = tables(frame, manifest["summary_only"], manifest["game"], manifest_jobs(manifest))
    print_tables(named)
    if manifest["summary_only"]:
        figures, missing = _draw_sums(load_summary(folder), folder, manifest)
    else:
        figures, missing = _draw(long_table(frame, manifest["game"]), folder, manifest), []
    for line in missing:
        print(line)
    _markdown(folder, manifest, named, figures, missing)
    print(f"\nwrote {folder / 'summary.md'} and {len(figures)} plot(s) in {folder}/")
    return named


def describe(manifest: dict, games: int) -> str:
    """A plot title's subject: game, design and agents, player counts and games."""
    jobs = manifest["jobs"]
    agents = sorted({a for job in jobs for a in job["agents"]})
    counts = ", ".join(map(str, sorted({len(job["agents"]) for job in jobs})))
    name = entry(manifest["game"]).title
    return f"{name}, {manifest['design']} of {', '.join(agents)}, {counts} players, {games:,} games"


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    from experiments import plots  # matplotlib only when drawing: faster CLI start-up

    return plots


def _draw(long: pd.DataFrame, folder: Path, manifest: dict) -> list[str]:
    plots = _pyplot()
    subject = describe(manifest, long.groupby(["job", "game_index"]).ngroups)
    mixed = _mixed(long, ["job", "game_index"])
    written = []
    for name, (function, options) in PLOTS.items():
        if name in ("win_rate_heatmap.png", "ratings.png") and not mixed:
            continue
        if name == "seat_win_share.png" and not mixed:  # one panel per agent
            figure = plots.seat_panels(summary_of_long(long), "win_share")
        else:
            figure = getattr(plots, function)(long, **options)
        title = figure.axes[0].get_title()
        if name == "score_distributions.png":
            title += f" ({_wins(manifest['game'])})"
        if name == "seat_win_share.png" and not mixed:
            title = "Win share by turn position, one panel per agent (95% Wilson intervals)"
        else:
            figure.axes[0].set_title("")  # the suptitle says it, with the subject
        figure.suptitle(f"{title}\n{subject}", fontsize=9)
        save_png(figure, folder / name)
        written.append(name)
    return written


def summary_of_long(long: pd.DataFrame) -> pd.DataFrame:
    """Per-(job, seat, position) sums of a long frame, as ``results.summary_of`` gives."""
    sums = long.assign(games=1, win_sum=long["win"], score_sum=long["score"])
    sums = sums.assign(score_sq=long["score"] ** 2, win_sq=long["win"] ** 2)
    keys = ["job", "n_players", "seat", "position", "agent"]
    columns = ["games", "win_sum", "win_sq", "score_sum", "score_sq"]
    return sums.groupby(keys, as_index=False, sort=True)[columns].sum()


def _draw_sums(sums: pd.DataFrame, folder: Path, manifest: dict):
    """The plots summaries allow (turn-order win share and mean score per agent) and a line
    for the plots that need per-game rows."""
    plots = _pyplot()
    games = int((sums["games"] / sums["n_players"]).sum())
    subject = describe(manifest, games)
    written = []
    for value, name in (("win_share", "seat_win_share.png"), ("mean_score", "seat_score.png")):
        figure = plots.seat_panels(sums, value)
        label = value.replace("_", " ")
        if value == "mean_score":
            label += f" ({_wins(manifest['game'])})"
        figure.suptitle(f"{label} by turn position, one panel per agent\n{subject}", fontsize=9)
        save_png(figure, folder / name)
        written.append(name)
    missing = [
        "not drawn (they need per-game rows; run without --summary-only): head-to-head "
        "heatmap, ratings, score distributions"
    ]
    return written, missing


def _markdown(folder: Path, manifest: dict, named, figures, missing=()) -> None:
    lines = [
        f"# {manifest['game']} — {manifest['design']} (experiment {manifest['experiment']})",
        "",
        f"Seed {manifest['seed']}, {len(manifest['jobs'])} seatings, giftsim "
        f"{manifest['versions']['giftsim']}, git {manifest.get('git_revision') or 'unknown'}.",
    ]
    for name, table in named.items():
        flagged = flag_few(table)
        lines += ["", f"## {name}", "", flagged.round(4).to_markdown()]
        if "warning" in flagged and "warning" not in table:
            lines += ["", FEW_NOTE.format(stats.FEW_DEALS)]
    lines += ["", *[f"![{f}]({f})" for f in figures], *missing]
    write_text(folder / "summary.md", "\n".join(lines) + "\n", force=True)  # the report's own


# The demo: each game's studies (its roster's ``demo``: a seat-advantage study and a
# round-robin of its built-in agents).
DEMO_CHUNK = 50_000  # games per chunk file of a demo study
MAX_SCALE = 100.0  # the largest --scale: 100 times the full demo is hours of play


def demo(folder: Path, scale: float, seed: int, progress: bool = True) -> None:
    """Run every game's demo studies (``agents.roster.Study``) at ``scale`` into
    ``folder/GAME-STUDY``, print their tables, write plots per study. A study already in its
    folder is resumed (nothing is played again); a folder of any other experiment is refused
    before anything is played."""
    if not (math.isfinite(scale) and 0 < scale <= MAX_SCALE):
        raise ValueError(
            f"--scale must be a positive fraction of the full size, at most {MAX_SCALE:g} "
            f"(the full size plays 2.6M games), got {scale}"
        )
    plan = list(_demo_plan(Path(folder), scale, seed))
    for _, _, jobs, out in plan:
        manifest_io.check(out, jobs, DEMO_CHUNK, False, resume=True)
    for title, agents, jobs, out in plan:
        print(f"\n##### {title} of {', '.join(agents)} ({len(jobs)} seatings)")
        execute(jobs, out, {"progress": progress, "resume": True, "chunk_size": DEMO_CHUNK})
        report(out)
    print(f"\nplots and summary.md per study in {folder}/")


def _demo_plan(folder: Path, scale: float, seed: int):
    """``(title, agents, jobs, folder)`` of every demo study."""
    for game in GAMES:
        for name, study in roster(game).demo.items():
            games = max(int(study.games * scale), 10)
            agents, players = list(study.agents), list(study.players)
            jobs = design_jobs(game, study.design, agents, players, games, seed)
            yield f"{game}: {name}", agents, jobs, folder / f"{game}-{name}"


# ---- The other commands' bodies (the CLI parses, these run) -----------------------------


def gauntlet(game, agents, fields, players, deals, seed, rules, secret, out, options, command):
    """``giftsim gauntlet``: plan, play and print a gauntlet (``experiments.gauntlet``); with
    ``out``, its markdown and plots go into that folder."""
    from experiments import gauntlet as gauntlets

    made = gauntlets.plan(game, agents, fields, players, deals, seed, rules, secret)
    print(gauntlets.plan_line(made), flush=True)
    frame, seconds, played = gauntlets.play(made, out, command, **options)
    _played_line(played, seconds, out)
    found = gauntlets.table(made, out if out is not None else frame)
    gauntlets.print_tables(made, found)
    if out is not None:
        when = manifest_io.read(out)["created"][:10]
        written = gauntlets.report(made, found, out, command, when)
        print(f"\nwrote {', '.join(str(path) for path in written)}")


def gauntlet_report(folder: Path) -> dict[str, pd.DataFrame]:
    """``giftsim report`` of a gauntlet's folder: its tables, markdown and plots again."""
    from experiments import gauntlet as gauntlets

    manifest = manifest_io.read(folder)
    made = gauntlets.Plan.from_record(
        manifest["game"], manifest_jobs(manifest), manifest["gauntlet"]
    )
    found = gauntlets.table(made, folder)
    gauntlets.print_tables(made, found)
    command = manifest.get("command", "")
    written = gauntlets.report(made, found, folder, command, manifest["created"][:10])
    print(f"\nwrote {', '.join(str(path) for path in written)}")
    return {"gauntlet": found}


def execute_and_print(jobs, out, options) -> None:
    """``giftsim tournament`` and ``giftsim seats``: run the jobs, print the tables."""
    sums, deals = execute(jobs, out, options)
    print(interval_note(deals))
    print_tables(summary_tables(sums, deals))
    if out:
        print(f"\nresults in {out}; `giftsim report {out}` writes plots and summary.md")


def list_agents(games) -> None:
    """``giftsim agents``: every family of each game, its parameters and its rule."""
    from agents.registry import families

    for game in games:
        print(f"{game}:")
        for family in families(game):
            kind = "built-in" if family.builtin else f"user ({family.source or 'defined'})"
            print(f"  {family.name} [{kind}]: {family.summary}")
            for key, default in family.defaults.items():
                print(f"      {key} = {default:g}  ({family.ranges[key]})")


def tune(args, argv) -> None:
    """``giftsim tune``: CMA-ES over a family's parameters; the result, and its JSON record."""
    from experiments import tune as tuning

    if args.json:  # before the run: a name that cannot be written would lose its result
        files.check_new(args.json, args.force, "--json")
    result = tuning.tune(
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
        progress=not args.quiet,
    )
    print(result.history.to_string(index=False))
    low, high = result.ci95
    print(
        f"\nbest: {result.spec}\nwin share {result.win_share:.4f} [{low:.4f}, {high:.4f}] "
        f"vs fair {1 / args.players:.4f} over {result.games:,} fresh games against "
        f"{args.players - 1} x {args.field}"
    )
    if args.json:
        record = json.dumps(tuning.as_record(result, argv), indent=2) + "\n"
        files.write_text(args.json, record, args.force, "--json")


def train(args, command: str) -> None:
    """``giftsim train``: train a network; its learning curve and where it was written."""
    from experiments import train as training

    settings = training.TrainSettings(
        args.game,
        args.players,
        seed=args.seed,
        rounds=args.rounds,
        games=args.games,
        hidden=args.hidden,
        epochs=args.epochs,
        lr=args.lr,
        explore=args.explore,
        baseline=args.baseline or "",
        eval_games=args.eval_games,
        margin=args.margin,
        margin_scale=args.margin_scale,
        lam=args.lam,
        selfplay=args.selfplay,
        members=args.members,
    )
    options = (args.workers, args.resume, not args.quiet, command, args.force)
    curve = training.train(settings, args.out, *options)
    print(curve.to_string(index=False))
    best = curve.loc[curve["win_share"].idxmax()]
    print(
        f"\nwrote {args.out} (round {int(best['round'])}): win share {best['win_share']:.4f} "
        f"[{best['ci_low']:.4f}, {best['ci_high']:.4f}] vs fair {1 / args.players:.4f} against "
        f"{args.players - 1} x {settings.resolved().baseline} on {int(best['eval_games']):,} "
        f"held-out games; learning curve in {args.out.with_suffix('.csv')}"
    )


def ladder(games, n_games, search_games, seed, workers, progress, argv, out, force=False) -> None:
    """``giftsim ladder``: play and judge the ladder; print (and write) its markdown (``out``
    checked first: an existing file is replaced only if ``force``)."""
    from experiments import ladder as ladders

    if out:
        files.check_new(out, force)
    table = ladders.ladder(games, n_games, search_games, seed, workers, progress=progress)
    text = ladders.markdown(table, argv, seed)
    print(text)
    if out:
        write_text(out, text + "\n", force)
        print(f"\nwritten to {out}")


def bench(
    n_games: int, rule_pairs, startup: bool, progress: bool, markdown=None, force=False, argv=()
) -> None:
    """``giftsim bench``: games/s per core of every game's mixes, the vector environment's
    learner steps/s, the search agents' time per decision, and start-up; with ``markdown`` (a
    file, checked first) also the speed section a document embeds (``bench.embed``)."""
    from experiments import bench as timing
    from giftsim.rule_options import as_pairs

    if n_games < 1:
        raise ValueError(f"--games must be at least 1, got {n_games}")
    options = bench_rules(rule_pairs)
    if markdown is not None:
        timing.check_target(markdown, force)
    about = timing.about(" ".join(["giftsim", *argv]), " ".join(rule_pairs))
    rates = {}
    for game in GAMES:
        where = f", rules {' '.join(as_pairs(options[game]))}" if options[game] else ""
        print(f"{game}: games/s on one core ({n_games:,} games each{where})")
        rates[game] = timing.rates(game, n_games, options[game])
        print(rates[game].round(0).astype(int).to_string())
    print("\nvector env: learner steps/s on one core (a learner with random legal actions, 256")
    print("lanes)")
    vector = {}
    for game in GAMES:
        players, opponent = roster(game).bench.vector
        vector[game] = (timing.vector_rate(game, opponent, players), players, opponent)
        print(f"{game}: {vector[game][0]:,.0f} ({players} players, the others {opponent})")
    for game in GAMES:
        speed = timing.search_speed(game)
        if not speed.empty:
            print(f"\n{game}: search agents at their defaults, one core")
            print(speed.to_string())
    times = timing.startup_times(progress=progress) if startup else None
    if times:
        cold, warm = times
        print(f"start-up (import + one game of every mix): cold {cold:.1f} s, warm {warm:.1f} s")
    if markdown is not None:
        section = timing.markdown(rates, vector, times, about)
        print(f"\nspeed section written to {timing.embed(markdown, section, force)}")


def bench_rules(pairs) -> dict:
    """``--rule GAME:KEY=VALUE`` options of bench, per game, checked at its player counts."""
    by_game = {game: [] for game in GAMES}
    for pair in pairs:
        game, sep, rest = pair.partition(":")
        if not sep or game not in by_game:
            raise ValueError(
                f"bench --rule takes GAME:KEY=VALUE with GAME one of {', '.join(by_game)}, "
                f"got {pair!r}"
            )
        by_game[game].append(rest)
    options = {}
    for game, game_pairs in by_game.items():
        cls = entry(game).rules
        options[game] = cls.options_from_pairs(game_pairs) if game_pairs else {}
        for n in roster(game).bench.players:
            cls(n_players=n, **options[game])
    return options


def record(
    game, rules, specs, seed, game_index, first_player, secret, out, force=False, isolation=None
) -> None:
    """``giftsim record``: play one game (or match) through the slow path and write its JSON
    record (to ``out``, else to the terminal; an existing ``out`` is replaced only if
    ``force``, and is checked before the game is played). With ``isolation`` the isolated
    agents play from processes of their own; a forfeit is kept in the record (``forfeits``:
    seat, round and reason) and told on stderr."""
    from agents.registry import param_table, parse_list
    from giftsim.contract import first_policy

    if out:
        files.check_new(out, force)
    agents = parse_list(specs or ",".join(["greedy"] * rules.n_players), game)
    if len(agents) != rules.n_players:
        raise ValueError(f"--agents names {len(agents)} agents for {rules.n_players} players")
    first_policy(first_player, rules.n_players)  # checked before anything compiles, as
    param_table(agents, rules.n_players)  # the networks for this table
    meta = {"agents": [a.spec for a in agents], "seed": seed, "game_index": game_index}
    if secret:
        meta["secret"] = secret
    if isolation is not None:
        meta["isolated"] = list(isolation.agents)
    rounds = rounds_of(rules)
    games = _record_games(game, rules, agents, (seed, game_index, first_player, secret), isolation)
    lost = [(s, r, why) for r, (_, faults) in enumerate(games) for s, why in faults]
    if lost:
        meta["forfeits"] = [{"seat": s, "round": r, "reason": why} for s, r, why in lost]
    for s, r, why in lost:
        print(f"seat {s} ({agents[s].spec}) forfeited round {r}: {why}", file=sys.stderr)
    games = [played for played, _ in games]
    if rounds > 1:
        made = entry(game).make_match_record(rules, [(g.start, g.actions) for g in games], meta)
    else:
        made = entry(game).make_record(rules, games[0].start, games[0].actions, meta)
    text = json.dumps(made, indent=1)
    if out:
        write_text(out, text + "\n", force)
    else:
        print(text)


def _record_games(game, rules, agents, where, isolation):
    """The rounds of a recorded match (``where``: seed, index, first player, secret), each
    with its forfeits ``(seat, reason)``."""
    from agents.drivers import isolated
    from agents.isolation import FAULTS
    from experiments.games import play_slow

    seed, game_index, first_player, secret = where
    rounds = rounds_of(rules)
    indices = [game_index * rounds + r for r in range(rounds)]  # as the fast loop's matches
    if isolation is None:
        return [
            (play_slow(game, rules, agents, seed, i, first_player, secret), []) for i in indices
        ]
    table = isolated.seated(game, agents, rules.n_players, isolation)
    games = []
    try:
        for index in indices:
            seats = [seat for seat in table if isinstance(seat, isolated.IsolatedSeat)]
            for seat in seats:
                seat.new_game()
            played = play_slow(game, rules, table, seed, index, first_player, secret)
            faults = [
                (s, f"{FAULTS[seat.fault]}: {seat.message}")
                for s, seat in enumerate(table)
                if isinstance(seat, isolated.IsolatedSeat) and seat.fault
            ]
            games.append((played, faults))
    finally:
        isolated.close(table)
    return games


def replay(path: Path) -> None:
    """``giftsim replay``: check a JSON record rule by rule and print it (``-``: stdin), then
    check that its seed, game index and agents make it (:mod:`experiments.provenance`)."""
    raw = sys.stdin.read() if str(path) == "-" else _read(path)
    try:
        made = json.loads(raw)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not JSON: {error}") from None
    except RecursionError:
        raise ValueError(f"{path} is not a record: its JSON nests too deeply") from None
    game = made.get("game") if isinstance(made, dict) else None
    if game not in GAMES:
        raise ValueError(f"record 'game' must be one of {', '.join(GAMES)}, got {game!r}")
    if made.get("unfinished"):
        raise ValueError(f"{path} is a game quit part-way; replay checks finished games only")
    for line in entry(game).replay(made):
        print(line)
    print(provenance.check(made))  # then its seed, game index and agents
    print("record OK: every action legal, scores and winners confirmed")


def _read(path: Path) -> str:
    if not path.exists():  # a pipe (replay <(giftsim record ...)) is no file, but readable
        raise ValueError(f"no such record file: {path}")
    if path.is_dir():
        raise ValueError(f"{path} is a folder, not a record file")
    return path.read_text()


def write_text(path: Path, text: str, force: bool = False) -> None:
    """Write a file through a temporary one, creating its folder; an existing file is
    replaced only if ``force`` (``giftsim.files``: else a one-line error naming it)."""
    files.write_text(path, text, force)


def save_png(figure, path: Path) -> None:
    """A figure as a PNG file, through a temporary file (a report's own file: replaced)."""
    files.write_with(
        path, lambda p: figure.savefig(p, dpi=110, bbox_inches="tight", format="png"), True
    )

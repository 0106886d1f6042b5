"""What the experiment commands of the CLI do: run a design, study seats, report a folder.

Tables are computed by ``experiments.stats`` and drawn by ``experiments.plots``; this module
only wires them to folders and the terminal.
"""

import math
from pathlib import Path

import pandas as pd

from experiments import manifest as manifest_io
from experiments import stats
from experiments.games import entry
from experiments.results import (
    deal_sums,
    load,
    load_deal_sums,
    load_summary,
    long_table,
    round_table,
    summary_of,
)
from experiments.runner import run
from experiments.schedule import field_design, mirror, round_robin, rows_per_deal

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


def execute(jobs, out, options):
    """Run jobs (into ``out`` if given) and return ``(sums, deals)``: their per-(job, seat,
    position) sums (with ``deal_rows``, see ``schedule.rows_per_deal``) and, unless the run
    keeps summaries only, their per-(deal, agent) sums (``results.deal_sums``), both read chunk
    by chunk so that memory does not grow with the number of games."""
    frame, seconds, played = run(jobs, out=out, **options)
    if played == 0 and out is not None:
        print(f"every game is already in {out}; nothing left to play")
    else:
        rate = played / seconds if seconds > 0 else float("nan")
        print(f"played {played:,} games in {seconds:.1f} s ({rate:,.0f} games/s)")
    summary_only = options.get("summary_only", False)
    if out is not None:
        sums = load_summary(out)
        deals = None if summary_only else load_deal_sums(out)
    else:
        sums = summary_of(frame, summary_only, jobs)
        deals = None if summary_only else deal_sums(frame)
    return sums.merge(rows_per_deal(jobs), on=["job", "seat"], how="left"), deals


def _mixed(table: pd.DataFrame, game=("job",)) -> bool:
    """Whether some game seats two different agents (else a mirror study)."""
    return bool((table.groupby(list(game)).agent.nunique() > 1).any())


def interval_note(deals) -> str:
    """What the intervals of ``summary_tables`` count as independent."""
    if deals is not None:
        return (
            f"95% intervals with the deal as unit ({deals['deal'].nunique():,} deals; the "
            "games of one deal, in every rotation, counted together)"
        )
    return (
        "95% intervals from summaries only (no deals kept): each deal counted as one game of "
        "its summed variance, so they are wide but never too narrow; without --summary-only "
        "they are computed by deal"
    )


def summary_tables(sums: pd.DataFrame, deals=None) -> dict[str, pd.DataFrame]:
    """Tables that streamed sums support: win share (not in mirror studies, where it is fair
    by construction) and mean score by agent, by deal from ``deals`` when given; turn-order
    advantage (per agent when every table seats one agent) and its chi-square test."""
    mixed = _mixed(sums)
    out = {}
    if mixed:
        share = stats.deal_win_share(deals) if deals is not None else None
        out["win share by agent"] = share if share is not None else stats.summary_win_share(sums)
    out["mean score by agent"] = (
        stats.deal_mean_score(deals) if deals is not None else stats.summary_mean_score(sums)
    )
    groups = [("all seatings", sums)] if mixed else list(sums.groupby("agent"))
    for name, part in groups:
        where = "" if mixed else f" — all-{name} tables"
        title = f"turn-order advantage (position 0 = first player){where}"
        out[title] = stats.summary_seat_advantage(part, "position")
        out[f"turn-order test{where}"] = stats.summary_seat_test(part, "position")
    return out


def tables(frame: pd.DataFrame, summary_only: bool, game=None) -> dict[str, pd.DataFrame]:
    """The report's tables: every figure with its interval, the deal as unit (head-to-head
    and ratings need per-game rows)."""
    if summary_only:
        return summary_tables(summary_of(frame, True))
    long = long_table(frame, game)
    mixed = _mixed(long, ["job", "game_index"])
    out = {"win share by agent": stats.win_share(long)} if mixed else {}
    out["mean score by agent"] = stats.mean_score(long)
    groups = [("all seatings", long)] if mixed else list(long.groupby("agent"))
    for name, part in groups:
        where = "" if mixed else f" — all-{name} tables"
        out[f"turn-order advantage (position 0 = first player){where}"] = stats.seat_advantage(
            part, "position"
        )
        out[f"turn-order test{where}"] = stats.seat_test(part, "position")
    out.update(_round_tables(frame, game))
    if mixed:
        out["head to head (row agent beats opponent, ties 1/2)"] = stats.pairwise_table(long)
        order = "whole finishing order" if "finish" in long else "winners only"
        out[f"ratings (Plackett-Luce log-strength, {order}; bootstrap over deals)"] = stats.ratings(
            long, n_boot=100
        )
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


def print_tables(named: dict[str, pd.DataFrame]) -> None:
    for name, table in named.items():
        print(f"\n== {name}")
        print(table.round(4).to_string())


def _wins(game: str) -> str:
    """Which way a score wins, from the game's record."""
    return "lower score wins" if entry(game).lower_wins else "higher score wins"


def report(folder) -> dict[str, pd.DataFrame]:
    """Tables to the terminal, PNG plots and a Markdown summary into the results folder."""
    folder = Path(folder)
    manifest, frame = load(folder)
    if frame.empty:
        raise ValueError(f"{folder} holds no results yet")
    named = tables(frame, manifest["summary_only"], manifest["game"])
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
        elif name == "score_distributions.png":
            figure = plots.score_distributions(long, manifest["game"])
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
        figure.savefig(folder / name, dpi=110, bbox_inches="tight")
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
        figure.savefig(folder / name, dpi=110, bbox_inches="tight")
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
        lines += ["", f"## {name}", "", table.round(4).to_markdown()]
    lines += ["", *[f"![{f}]({f})" for f in figures], *missing]
    (folder / "summary.md").write_text("\n".join(lines) + "\n")


# The demo: for each game a seat-advantage study and a round-robin of the built-in agents.
DEMO_CHUNK = 50_000  # games per chunk file of a demo study
DEMO = {
    "geschenkt": {
        "seats": (["random", "greedy", "sniper"], [3, 4, 5], 100_000),
        "round-robin": (["random", "greedy", "sniper"], [4], 25_000),
    },
    "tulips": {
        "seats": (["random", "greedy", "hoarder"], [2, 3, 4, 5, 6], 20_000),
        "round-robin": (["random", "greedy", "hoarder", "planner"], [4], 2_000),
    },
}


def demo(folder: Path, scale: float, seed: int, progress: bool = True) -> None:
    """Run every study of ``DEMO`` at ``scale`` into ``folder/GAME-STUDY``, print its tables,
    write plots per study. A study already in its folder is resumed (nothing is played
    again); a folder of any other experiment is refused before anything is played."""
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"--scale must be a positive fraction of the full size, got {scale}")
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
    for game, studies in DEMO.items():
        for study, (agents, players, games) in studies.items():
            design = "mirror" if study == "seats" else study
            jobs = design_jobs(game, design, agents, players, max(int(games * scale), 10), seed)
            yield f"{game}: {study}", agents, jobs, folder / f"{game}-{study}"

"""What the experiment commands of the CLI do: run a design, study seats, report a folder.

Tables are computed by ``experiments.stats`` and drawn by ``experiments.plots``; this module
only wires them to folders and the terminal.
"""

from pathlib import Path

import pandas as pd

from experiments import stats
from experiments.results import (
    deal_sums,
    load,
    load_deal_sums,
    load_summary,
    long_table,
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
    game, design, agents, players, n_games, seed, duplicate=True, candidate=None, baseline=None
):
    """The jobs of a design (see ``experiments.schedule``)."""
    if design == "mirror":
        return mirror(game, agents, players, n_games, seed)
    if len(players) != 1:
        raise ValueError(f"the {design} design takes one player count, got {players}")
    if design == "round-robin":
        return round_robin(game, agents, players[0], n_games, seed, duplicate=duplicate)
    if design == "field":
        if not candidate or not baseline:
            raise ValueError("the field design needs --candidate and --baseline")
        return field_design(
            game, candidate, baseline, players[0], n_games, seed, duplicate=duplicate
        )
    raise ValueError(f"unknown design {design!r} (valid: mirror, round-robin, field)")


def execute(jobs, out, options):
    """Run jobs (into ``out`` if given) and return ``(sums, deals)``: their per-(job, seat,
    position) sums (with ``deal_rows``, see ``schedule.rows_per_deal``) and, unless the run
    keeps summaries only, their per-(deal, agent) sums (``results.deal_sums``), both read chunk
    by chunk so that memory does not grow with the number of games."""
    frame, seconds, played = run(jobs, out=out, **options)
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
    if mixed:
        out["head to head (row agent beats opponent, ties 1/2)"] = stats.pairwise_table(long)
        order = "whole finishing order" if "finish" in long else "winners only"
        out[f"ratings (Plackett-Luce log-strength, {order}; bootstrap over deals)"] = stats.ratings(
            long, n_boot=100
        )
    return out


def print_tables(named: dict[str, pd.DataFrame]) -> None:
    for name, table in named.items():
        print(f"\n== {name}")
        print(table.round(4).to_string())


def report(folder) -> dict[str, pd.DataFrame]:
    """Tables to the terminal, PNG plots and a Markdown summary into the results folder."""
    folder = Path(folder)
    manifest, frame = load(folder)
    if frame.empty:
        raise ValueError(f"{folder} holds no results yet")
    named = tables(frame, manifest["summary_only"])
    print_tables(named)
    figures = [] if manifest["summary_only"] else _draw(long_table(frame), folder)
    _markdown(folder, manifest, named, figures)
    return named


def _draw(long: pd.DataFrame, folder: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    from experiments import plots  # matplotlib only when drawing: faster CLI start-up

    written = []
    mixed = (long.groupby(["job", "game_index"]).agent.nunique() > 1).any()
    for name, (function, options) in PLOTS.items():
        if name in ("win_rate_heatmap.png", "ratings.png") and not mixed:
            continue
        figure = getattr(plots, function)(long, **options)
        figure.savefig(folder / name, dpi=110, bbox_inches="tight")
        written.append(name)
    return written


def _markdown(folder: Path, manifest: dict, named, figures) -> None:
    lines = [
        f"# {manifest['game']} — {manifest['design']} (experiment {manifest['experiment']})",
        "",
        f"Seed {manifest['seed']}, {len(manifest['jobs'])} seatings, giftsim "
        f"{manifest['versions']['giftsim']}, git {manifest.get('git_revision') or 'unknown'}.",
    ]
    for name, table in named.items():
        lines += ["", f"## {name}", "", table.round(4).to_markdown()]
    lines += ["", *[f"![{f}]({f})" for f in figures]]
    (folder / "summary.md").write_text("\n".join(lines) + "\n")


# The demo: for each game a seat-advantage study and a round-robin of the built-in agents.
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
    """Run every study of ``DEMO`` at ``scale``, print its tables, write plots per study."""
    import shutil

    for game, studies in DEMO.items():
        for study, (agents, players, games) in studies.items():
            design = "mirror" if study == "seats" else study
            jobs = design_jobs(game, design, agents, players, max(int(games * scale), 10), seed)
            out = folder / f"{game}-{study}"
            if out.exists():
                shutil.rmtree(out)  # the demo's own folder: start afresh
            print(f"\n##### {game}: {study} of {', '.join(agents)} ({len(jobs)} seatings)")
            execute(jobs, out, {"progress": progress})
            report(out)
    print(f"\nplots and summary.md per study in {folder}/")

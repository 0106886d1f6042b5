"""What the experiment commands of the CLI do: run a design, study seats, report a folder.

Tables are computed by ``experiments.stats`` and drawn by ``experiments.plots``; this module
only wires them to folders and the terminal.
"""

from pathlib import Path

import pandas as pd

from experiments import stats
from experiments.results import load, load_summary, long_table, summary_of
from experiments.runner import run
from experiments.schedule import field_design, mirror, round_robin

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


def execute(jobs, out, options) -> pd.DataFrame:
    """Run jobs (into ``out`` if given) and return their per-(job, seat, position) sums,
    read chunk by chunk so that memory does not grow with the number of games."""
    frame, seconds, played = run(jobs, out=out, **options)
    rate = played / seconds if seconds > 0 else float("nan")
    print(f"played {played:,} games in {seconds:.1f} s ({rate:,.0f} games/s)")
    if out is not None:
        return load_summary(out)
    return summary_of(frame, options.get("summary_only", False), jobs)


def summary_tables(sums: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Tables that streamed sums support: win share and mean score by agent, turn-order
    advantage (per agent when every table seats one agent) and its chi-square test."""
    out = {
        "win share by agent": stats.summary_win_share(sums),
        "mean score by agent": stats.summary_mean_score(sums),
    }
    mixed = (sums.groupby("job").agent.nunique() > 1).any()
    groups = [("all seatings", sums)] if mixed else list(sums.groupby("agent"))
    for name, part in groups:
        where = "" if mixed else f" — all-{name} tables"
        title = f"turn-order advantage (position 0 = first player){where}"
        out[title] = stats.summary_seat_advantage(part, "position")
        out[f"turn-order test{where}"] = stats.summary_seat_test(part, "position")
    return out


def tables(frame: pd.DataFrame, summary_only: bool) -> dict[str, pd.DataFrame]:
    """The report's tables: every figure with its interval (head-to-head and ratings need
    per-game rows)."""
    if summary_only:
        return summary_tables(summary_of(frame, True))
    long = long_table(frame)
    out = {
        "win share by agent": stats.win_share(long),
        "mean score by agent": stats.mean_score(long),
    }
    mixed = (long.groupby(["job", "game_index"]).agent.nunique() > 1).any()
    groups = [("all seatings", long)] if mixed else list(long.groupby("agent"))
    for name, part in groups:
        where = "" if mixed else f" — all-{name} tables"
        out[f"turn-order advantage (position 0 = first player){where}"] = stats.seat_advantage(
            part, "position"
        )
        out[f"turn-order test{where}"] = stats.seat_test(part, "position")
    if mixed:
        out["pairwise win rate (row beats column)"] = stats.pairwise(long)
        out["ratings (Plackett-Luce log-strength)"] = stats.ratings(long, n_boot=100)
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

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
from experiments import digest, luck, ratings, stats
from experiments import manifest as manifest_io
from experiments.blocks import ranked
from experiments.isolation import fault_table, forfeit_sums_table, forfeit_table
from experiments.marks import flag_few, warning_notes
from experiments.results import (
    deal_sums,
    load,
    load_faults,
    long_table,
    manifest_jobs,
    summary_of,
)
from experiments.runner import run
from experiments.schedule import (
    design_strata,
    field_design,
    mirror,
    round_robin,
    rows_per_deal,
    score_ranges,
)
from experiments.words import count_of, listed
from giftsim import files
from giftsim.game import GAMES, load_game

HEAD_TO_HEAD = "head to head (row agent finishes ahead of opponent, level 1/2)"
RATINGS = (
    "ratings among this run's agents (Plackett-Luce log-strength, whole finishing order; "
    "bootstrap over deals)"
)
FORFEITS = "forfeits by agent (a forfeit is a loss)"
FAULTS = "why they forfeited: by agent and reason, the first forfeit (job, game index, seat)"


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
        f"{jobs[0].design}: {count_of(len(jobs), 'seating')} in "
        f"{count_of(groups, 'seating group')}, {count_of(games, 'game')} each: "
        f"{count_of(len(jobs) * games, 'game')}"
    )


def execute(jobs, out, options):
    """Run jobs (into ``out`` if given) and return ``(sums, deals)``: their per-(job, seat,
    position) sums (with ``deal_rows``, see ``schedule.rows_per_deal``) and, unless the run
    keeps summaries only, their per-(deal, agent, turn position) sums (``results.deal_sums``),
    both read back in batches of chunks (``experiments.digest``), so that memory does not
    grow with the number of games. With isolated agents the sums keep the run's fault
    records in ``attrs["faults"]`` (``experiments.isolation``)."""
    frame = play(jobs, out, options)
    summary_only = options.get("summary_only", False)
    if out is not None:  # the report's reading (experiments.digest), of the sums it needs
        fields = ("sums",) if summary_only else ("sums", "deals")
        progress, workers = options.get("progress", True), _reading_workers(options)
        summed = digest.of_folder(out, progress, workers, fields, label="tables")
        sums, deals, faults = summed.sums, summed.deals, load_faults(out)
    else:
        sums = summary_of(frame, summary_only, jobs)
        sums = sums.merge(rows_per_deal(jobs), on=["job", "seat"], how="left")
        faults = frame.attrs.get("faults")
        deals = None if summary_only else deal_sums(frame, design_strata(jobs))
    if faults is not None:
        sums.attrs["faults"] = faults
    return sums, deals


def _reading_workers(options) -> int | None:
    """Processes that read a results folder back: the run's own local workers (None: one per
    core); one where its games were played elsewhere (Dask) or in this process."""
    return options.get("workers") if options.get("backend", "processes") == "processes" else 1


def play(jobs, out, options):
    """Run jobs (into ``out`` if given), say how many games were played and how fast; the
    frame of rows or summaries when there is no ``out``."""
    frame, seconds, played = run(jobs, out=out, **options)
    _played_line(played, seconds, out)
    return frame


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
        "95% intervals from summaries only (no per-deal sums kept; the deals column counts the "
        "design's deals): each deal counted as one game of "
        "its summed variance, so their standard errors are never too small (a share of 0 or "
        "1 has none: its interval is Wilson's on the deals, as by deal); without "
        "--summary-only they are computed by deal"
    )


SCORES = "mean score by agent"
MIRROR_SCORES = "mean score by agent and player count (each agent at tables of its own copies)"
TURNS = "turn-order advantage (position 0 = first player)"
GAP = "turn-order gap (last minus first position, their covariance counted)"
TEST = "turn-order test"
TEST_NOTE = (
    "(chi2: the Wald statistic of equal shares at every position, on dof contrasts; by deal, "
    "p_value is from its F form with the deals' degrees of freedom, larger than the "
    "chi-square's on few deals; from summaries only, chi2 is the counts' divided by the "
    "games of a deal; at 2 players, the square of the gap's t and its p. seat_effect: "
    "p_holm < 0.05, Holm's correction over the {} turn-order tests printed; False says no "
    "effect was shown on these deals, not that there is none: the gap's interval above "
    "bounds it, and tests that one pair of positions on its own)"
)


def summary_tables(sums: pd.DataFrame, deals=None, ranges=None) -> dict[str, pd.DataFrame]:
    """Tables that streamed sums support: win share (not in mirror studies, where it is fair
    by construction) and mean score by agent (in mirror studies by agent and player count:
    each agent's own field), turn-order advantage, the gap of the last
    position over the first and the test of equal positions (per agent when every table
    seats one agent); by deal from ``deals`` when given, else bounded from the sums. Mean
    scores' intervals stay in the score's range (``ranges``, ``schedule.score_ranges``)."""
    mixed = _mixed(sums)
    out = {}
    if mixed:
        share = stats.deal_win_share(deals) if deals is not None else None
        out["win share by agent"] = share if share is not None else stats.summary_win_share(sums)
    if deals is not None and "adjusted_sum" in deals:
        out[luck.TABLE] = luck.win_share(deals)
    by = "agent" if mixed else ["agent", "n_players"]  # a mirror: a field per agent and count
    out[SCORES if mixed else MIRROR_SCORES] = (
        stats.deal_mean_score(deals, by, ranges)
        if deals is not None
        else stats.summary_mean_score(sums, by, ranges)
    )
    rows = sums if deals is None else deals
    parts = [("all seatings", rows)] if mixed else list(rows.groupby("agent", observed=True))
    for name, part in parts:
        where = "" if mixed else f" — all-{name} tables"
        digest.release_memory()  # the temporaries of the last table, before the next's
        seat_tables = _summary_seat_tables(part) if deals is None else stats.deal_seat_tables(part)
        for title, table in zip((TURNS, GAP, TEST), seat_tables, strict=True):
            out[f"{title}{where}"] = table
    out.update(_holm_over_tests(out))
    if "forfeits" in sums:  # isolated agents (experiments.isolation)
        out[FORFEITS] = forfeit_sums_table(sums)
    out.update(fault_tables(sums.attrs.get("faults")))
    return out


def _beside_forfeits(named: dict, more: dict) -> dict:
    """``named`` with the tables ``more`` right after its forfeits table (else at its end)."""
    keys = list(named)
    at = keys.index(FORFEITS) + 1 if FORFEITS in named else len(keys)
    return {**{k: named[k] for k in keys[:at]}, **more, **{k: named[k] for k in keys[at:]}}


def fault_tables(faults) -> dict[str, pd.DataFrame]:
    """The table of why isolated agents forfeited (``experiments.isolation.fault_table``) from
    a run's fault records; none when nothing was forfeited (or nothing kept)."""
    return {FAULTS: fault_table(faults)} if faults else {}


def _holm_over_tests(named: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The turn-order tests of ``named`` with Holm's adjusted p (``p_holm``) over all of them
    (a seat study tests each agent at each player count: 15 tests at 0.05 would show an
    effect by chance alone), their ``seat_effect`` at ``p_holm < 0.05``, and a note that says
    so and that False is not "no effect"."""
    titles = [title for title in named if title.startswith(TEST)]
    if not titles:
        return {}
    p_values = np.concatenate([named[t]["p_value"].to_numpy(float) for t in titles])
    ends = np.cumsum([len(named[t]) for t in titles])[:-1]
    adjusted = np.split(stats.holm_adjusted(p_values), ends)
    tested = int((~np.isnan(p_values)).sum())
    out = {}
    for title, p_holm in zip(titles, adjusted, strict=True):
        table = named[title].copy()
        table.insert(table.columns.get_loc("p_value") + 1, "p_holm", p_holm)
        table["seat_effect"] = stats.seat_effect(table["p_holm"], 0.05)
        table.attrs["note"] = TEST_NOTE.format(tested)
        out[title] = table
    return out


def _summary_seat_tables(sums: pd.DataFrame) -> tuple:
    """The turn-order table, gap and test of per-(job, seat) sums."""
    return tuple(
        table(sums, column="position")
        for table in (stats.summary_seat_advantage, stats.summary_seat_gap, stats.summary_seat_test)
    )


def tables(frame: pd.DataFrame, summary_only: bool, game: str, jobs=None):
    """The report's tables of rows (or summaries) in memory, as ``report`` computes them from a
    folder: every figure with its interval, the deal as unit. ``jobs``: the run's jobs (their
    design's strata; they bound the intervals of summaries, ``schedule.rows_per_deal``);
    without them each job is its own stratum and every game its own deal. With isolated
    agents (``runner.run``'s frame), the table of why they forfeited too."""
    named = digest_tables(digest.of_frame(frame, summary_only, game, jobs))
    return _beside_forfeits(named, fault_tables(frame.attrs.get("faults")))


def digest_tables(sums: digest.Digest, progress: bool = False) -> dict[str, pd.DataFrame]:
    """The report's tables from a results digest: ``summary_tables``, per-round tables of
    matches, and where agents share tables the head-to-head table and the ratings fitted on the
    whole finishing order (``ratings.N_BOOT`` bootstrap draws over deals, as the API's)."""
    out = summary_tables(sums.sums, sums.deals, sums.score_range)
    out.update(_round_tables(sums.rounds, sums.round_range))
    if sums.mixed and sums.pairs is not None:
        digest.release_memory()
        out[HEAD_TO_HEAD] = stats.deal_pairwise_table(sums.pairs)
        digest.release_memory()
        deals = sums.events["deal"].nunique()
        _say(progress, f"report: ratings ({ratings.N_BOOT:,} bootstrap draws over {deals:,} deals)")
        rating = ratings.deal_ratings(sums.events)
        rating["deals"] = out["win share by agent"]["deals"].reindex(rating.index)
        out[RATINGS] = rating
    return out


def _say(progress: bool, text: str) -> None:
    if progress:
        print(text, file=sys.stderr, flush=True)


def _round_tables(rounds, ranges=None) -> dict[str, pd.DataFrame]:
    """Matches of several rounds: each agent's win share of single rounds and mean score per
    round (the tables above are per match), and per round number; the deal (match) as unit;
    ``ranges``: a round's score range (``schedule.score_ranges``)."""
    if rounds is None or rounds.empty:
        return {}
    by_round = ["round", "agent"]
    return {
        "win share of single rounds by agent (the match's deal as unit)": stats.win_share(rounds),
        "mean score per round by agent": stats.mean_score(rounds, ranges=ranges),
        "mean score by round number and agent": stats.mean_score(rounds, by_round, ranges),
    }


def print_tables(named: dict[str, pd.DataFrame]) -> None:
    for name, table in named.items():
        print(f"\n== {name}")
        flagged = flag_few(table)
        print(flagged.round(4).to_string())
        if "warning" not in table:
            for note in warning_notes(flagged):
                print(note)
        if "note" in table.attrs:
            print(table.attrs["note"])


# The files a report writes into a results folder (each replaced only if the report wrote it:
# ``giftsim.files.write_own``).
REPORT_FILES = (
    "summary.md",
    "seat_win_share.png",
    "seat_score.png",
    "win_rate_heatmap.png",
    "ratings.png",
    "score_distributions.png",
)


def _check_results_folder(folder: Path) -> None:
    """A folder that holds results folders (the demo's) but is none: name them, not only
    the missing manifest."""
    if (folder / manifest_io.MANIFEST).exists() or not folder.is_dir():
        return
    inside = sorted(p.parent.name for p in folder.glob(f"*/{manifest_io.MANIFEST}"))
    if inside:
        shown = ", ".join(inside[:4]) + (", ..." if len(inside) > 4 else "")
        raise ValueError(
            f"{folder} has no {manifest_io.MANIFEST}: not a giftsim results folder, but it holds "
            f"{len(inside)}: report one of them, e.g. giftsim report {folder / inside[0]} "
            f"({shown})"
        )


def report_files(manifest: dict) -> tuple[str, ...]:
    """The files a report of this run writes (as ``_draw`` decides): a run of summaries draws
    no head-to-head, ratings or score plots, one of per-game rows draws the head-to-head and
    ratings only where a table seats two different agents and the seat panels of scores only
    where none does; files of other names are none of its business."""
    if manifest.get("summary_only"):
        return ("summary.md", "seat_win_share.png", "seat_score.png")
    mixed = any(len(set(job["agents"])) > 1 for job in manifest["jobs"])
    drawn = ["win_rate_heatmap.png", "ratings.png"] if mixed else ["seat_score.png"]
    return ("summary.md", "seat_win_share.png", *drawn, "score_distributions.png")


def report(folder, progress: bool = True, workers=None, force=False) -> dict[str, pd.DataFrame]:
    """Tables to the terminal, PNG plots and a Markdown summary into the results folder. The
    folder is read one chunk at a time (``experiments.digest``, by ``workers`` processes,
    default one per core); each table is computed once and drawn from; ``progress``: a bar
    and a line per phase on stderr. A file of the report's name that it did not write (or
    that was edited since) is refused before anything is read, unless ``force``."""
    folder = Path(folder)
    _check_results_folder(folder)
    force = _may_replace(folder, force)
    manifest = manifest_io.read(folder)
    if manifest.get("gauntlet"):
        return gauntlet_report(folder, manifest, force)
    for name in report_files(manifest):
        files.check_own(folder / name, force)
    sums = digest.of_folder(folder, progress, workers)
    named = digest_tables(sums, progress)
    named.update(_forfeit_reasons(folder, manifest))
    named = _beside_forfeits(named, fault_tables(load_faults(folder)))
    unfinished = incomplete_note(folder, manifest, played_games(sums))
    if unfinished:
        print(unfinished)
    method = interval_note(sums.deals)
    print(method)
    print_tables(named)
    _say(progress, "report: drawing plots")
    subject = describe(manifest, played_games(sums))  # in every plot's title and summary.md
    figures, missing = _draw(sums, named, folder, subject, force)
    for line in [*missing, unfinished]:
        if line:
            print(line)
    notes = (missing, unfinished, method, subject.replace("\n", " "))
    _markdown(folder, manifest, named, figures, notes, force)
    print(f"\nwrote {folder / 'summary.md'} and {count_of(len(figures), 'plot')} in {folder}/")
    return named


def played_games(sums: digest.Digest) -> int:
    """The games (matches) in a folder's digest."""
    return round((sums.sums["games"] / sums.sums["n_players"]).sum())


def incomplete_note(folder: Path, manifest: dict, played: int) -> str:
    """A warning when a folder holds fewer games than its run plans (an interrupted run, or a
    chunk file lost): its tables are of part of the run, and the seatings that lack games
    weigh less in them. Empty when the run is whole."""
    planned = sum(int(job["n_games"]) for job in manifest["jobs"])
    if played >= planned:
        return ""
    return (
        f"warning: incomplete: {folder} holds {played:,} of the {planned:,} games its run plans "
        "(interrupted, or a chunk file lost); the tables are of the games played so far and "
        "are not balanced across seatings: run the same command again with --resume to play "
        "the rest"
    )


def _forfeit_reasons(folder: Path, manifest: dict) -> dict[str, pd.DataFrame]:
    """With isolated agents and per-game rows, the forfeits table with each reason (the
    streaming sums count forfeits but keep no reasons); isolated runs are small enough to
    read whole."""
    isolated = any(job.get("isolation") for job in manifest["jobs"])
    if not isolated or manifest["summary_only"]:
        return {}
    _, frame = load(folder)
    return {FORFEITS: forfeit_table(long_table(frame, manifest["game"]))}


def describe(manifest: dict, games: int) -> str:
    """A plot title's subject: game, design and agents, player counts and games (and the
    games per seating, when every seating played as many; for an unfinished run, the games
    it plans instead: its seatings did not all play them)."""
    jobs = manifest["jobs"]
    agents = {a for job in jobs for a in job["agents"]}
    players = {len(job["agents"]) for job in jobs}
    sizes = {job["n_games"] for job in jobs}
    planned = sum(job["n_games"] for job in jobs)
    per = f"{sizes.pop():,} per seating" if len(sizes) == 1 else ""
    if games < planned:
        per = f"of {planned:,} planned: unfinished"
    plots = _pyplot()
    design = manifest["design"]
    candidate = _candidate(jobs) if design == "field" else None
    return plots.subject(manifest["game"], design, agents, players, games, per, candidate)


def _candidate(jobs: list[dict]) -> str | None:
    """A field design's candidate: the first seat of the unrotated seatings, where every
    seating holds it once beside copies of one other agent; None for any other design of
    that name (``schedule.seating_groups``)."""
    pairs = {frozenset(job["agents"]) for job in jobs}
    firsts = {job["agents"][0] for job in jobs if job.get("rotation") == 0}
    if len(pairs) != 1 or len(pairs.pop()) != 2 or len(firsts) != 1:
        return None
    candidate = firsts.pop()
    return candidate if all(job["agents"].count(candidate) == 1 for job in jobs) else None


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    from experiments import plots  # matplotlib only when drawing: faster CLI start-up

    return plots


def _draw(sums: digest.Digest, named: dict, folder: Path, subject: str, force=False):
    """Every plot the digest allows, saved into ``folder``, titled with the run's ``subject``
    (``describe``); the names written and a line for the plots that need per-game rows."""
    plots = _pyplot()
    figures = {}
    if sums.mixed and sums.deals is not None:  # the printed table, intervals by deal
        figures["seat_win_share.png"] = plots.seat_win_share_of(named[TURNS], subject=subject)
    else:
        figures["seat_win_share.png"] = plots.seat_panels(sums.sums, "win_share", subject=subject)
        figures["seat_score.png"] = plots.seat_panels(
            sums.sums, "mean_score", subject=subject, game=sums.game, ranges=sums.score_range
        )
    if HEAD_TO_HEAD in named:
        figures["win_rate_heatmap.png"] = plots.win_rate_heatmap_of(
            named[HEAD_TO_HEAD], subject=subject
        )
        figures["ratings.png"] = plots.rating_chart_of(named[RATINGS], subject=subject)
    if sums.scores is not None:
        figures["score_distributions.png"] = plots.score_boxes_of(
            sums.scores, sums.game, sums.mixed, subject=subject
        )
    for name, figure in figures.items():
        plots.save_png(figure, folder / name, force)
        plots.plt.close(figure)
    missing = []
    if sums.deals is None:
        missing.append(
            "not drawn (they need per-game rows; run without --summary-only): head-to-head "
            "heatmap, ratings, score distributions"
        )
    return list(figures), missing


def _markdown(folder: Path, manifest: dict, named, figures, notes=((), "", "", ""), force=False):
    """``summary.md``: the run, how its intervals were computed, every table and plot.
    ``notes``: the plots that could not be drawn, the incomplete-run warning, the method and
    the run's subject (game, design, agents, players, games: ``describe``)."""
    missing, unfinished, method, subject = notes
    title = load_game(manifest["game"]).title
    lines = [
        f"# {title} — {manifest['design']} (experiment {manifest['experiment']})",
        "",
        *([f"{subject}.", ""] if subject else []),
        f"Seed {manifest['seed']}, {len(manifest['jobs'])} seatings, rules "
        f"{rules_words(manifest['jobs'])}, giftsim {manifest['versions']['giftsim']}, git "
        f"{manifest.get('git_revision') or 'unknown'}.",
        *(["", f"**{unfinished}**"] if unfinished else []),
        *(["", method[0].upper() + method[1:] + "."] if method else []),
    ]
    for name, table in named.items():
        flagged = flag_few(table)
        lines += ["", f"## {name}", "", _as_markdown(flagged)]
        if "warning" not in table:
            lines += [line for note in warning_notes(flagged) for line in ("", note)]
        if "note" in table.attrs:
            lines += ["", table.attrs["note"]]
    lines += ["", *[f"![{f}]({f})" for f in figures], *missing]
    text = "\n".join(lines) + "\n"
    files.write_own(folder / "summary.md", lambda path: path.write_text(text), force)


def _as_markdown(table: pd.DataFrame) -> str:
    """A table as Markdown, rounded; a verdict that was not tested (<NA>) as "n/a" (a
    Markdown reader takes "<NA>" for an HTML tag and shows nothing); a ``|`` in a text (an
    agent's explanation of a fault) escaped, since it would end its cell."""
    shown = table.round(4).reset_index()
    for column in shown.columns[shown.dtypes == "boolean"]:
        shown[column] = shown[column].astype(object).where(shown[column].notna(), "n/a")
    for column in shown.columns:
        if shown[column].dtype == object or isinstance(shown[column].dtype, pd.StringDtype):
            shown[column] = shown[column].map(_cell)
    return shown.to_markdown(index=False)


def _cell(value):
    """A Markdown table's cell: a text with its ``|`` escaped; any other value as it is."""
    return value.replace("|", "\\|") if isinstance(value, str) else value


def _may_replace(folder: Path, force: bool) -> bool:
    """Whether a results folder's report files may be replaced whoever wrote them: with
    ``--force``, or in a folder made before giftsim kept a record of its files (they are
    its own)."""
    return force or not files.keeps_record(folder)


def rules_words(jobs: list[dict]) -> str:
    """The rules a run played, in words: ``standard`` (the rules of record) or the options
    that differ from them (``key=value``)."""
    from giftsim.rule_options import as_pairs

    changed = sorted({pair for job in jobs for pair in as_pairs(job.get("rules") or {})})
    return " ".join(changed) if changed else "standard (the rules of record)"


# The demo: each game's studies (its roster's ``demo``: a seat-advantage study and a
# round-robin of its built-in agents).
DEMO_CHUNK = 50_000  # games per chunk file of a demo study
MAX_SCALE = 100.0  # the largest --scale: 100 times the full demo is hours of play
NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}


def demo(
    folder: Path, scale: float, seed: int, progress: bool = True, workers=None, force=False
) -> None:
    """Run every game's demo studies (``agents.roster.Study``) at ``scale`` into
    ``folder/GAME-STUDY`` (``workers`` processes; default all cores), print their tables,
    write plots per study, and end with what the demo found, each finding with its interval
    and its file (also in ``folder/findings.md``). A study already in its folder is resumed
    (nothing is played again); a folder of any other experiment, or a file of the demo's
    name that the demo did not write (unless ``force``), is refused before anything is
    played."""
    if not (math.isfinite(scale) and 0 < scale <= MAX_SCALE):
        raise ValueError(
            f"--scale must be a positive fraction of the full size, at most {MAX_SCALE:g} "
            f"(the full size plays 2.6M games), got {scale}"
        )
    if (Path(folder) / manifest_io.MANIFEST).exists():
        raise ValueError(
            f"{folder} holds the results of another experiment ({manifest_io.MANIFEST}): the "
            "demo writes a folder of studies; give --out a new or empty folder, or its own"
        )
    plan = list(_demo_plan(Path(folder), scale, seed))
    _check_only_the_demos(Path(folder), {"findings.md", *(out.name for *_, out in plan)})
    for _, _, jobs, out in plan:
        manifest_io.check(out, jobs, DEMO_CHUNK, False, resume=True)
        for name in REPORT_FILES:
            files.check_own(out / name, _may_replace(out, force))
    findings = files.check_own(Path(folder) / "findings.md", force)
    options = {"progress": progress, "resume": True, "chunk_size": DEMO_CHUNK, "workers": workers}
    found = []
    for (game, design), agents, jobs, out in plan:
        print(f"\n##### {game}: {out.name} of {', '.join(agents)} ({len(jobs)} seatings)")
        play(jobs, out, options)
        named = report(out, progress, workers, force)
        found += FINDINGS[design](game, named, out)
    text = "\n".join(f"- {line}" for line in found)
    print(f"\n##### What the demo found (95% intervals, the deal as unit)\n{text}")
    page = f"# What the demo found\n\n{text}\n"
    files.write_own(findings, lambda path: path.write_text(page), force)
    print(f"\nplots and summary.md per study, and findings.md, in {folder}/")


def _check_only_the_demos(folder: Path, names: set[str]) -> None:
    """A one-line ValueError when ``folder`` holds anything but the demo's own ``names``
    (its study folders and findings.md) and hidden files (``files.RECORD``, what giftsim wrote
    there; ``.DS_Store``): the demo adds to a new, empty or demo folder only."""
    if not folder.is_dir():
        return
    foreign = sorted(
        path.name
        for path in folder.iterdir()
        if path.name not in names and not path.name.startswith(".")  # giftsim's own record
    )
    if foreign:
        shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
        raise ValueError(
            f"{folder} holds what the demo did not write ({shown}): give --out a new or empty "
            "folder, or its own"
        )


def _demo_plan(folder: Path, scale: float, seed: int):
    """``((game, design), agents, jobs, folder)`` of every demo study."""
    for game in GAMES:
        for name, study in roster(game).demo.items():
            games = max(int(study.games * scale), 10)
            agents, players = list(study.agents), list(study.players)
            jobs = design_jobs(game, study.design, agents, players, games, seed)
            yield (game, study.design), agents, jobs, folder / f"{game}-{name}"


def percent(share: float, low: float, high: float) -> str:
    """The share and its interval in percent, e.g. "28.3% [28.1, 28.5]": one decimal, more
    while the share and the interval's ends would not all print apart."""
    digits = 1
    while digits < 3 and len({round(100 * v, digits) for v in (low, share, high)}) < 3:
        digits += 1
    return f"{100 * share:.{digits}f}% [{100 * low:.{digits}f}, {100 * high:.{digits}f}]"


def seat_findings(game: str, named: dict, out: Path) -> list[str]:
    """A seat study in words: for each agent, the first and last player's win share at the
    middle player count; the file is the study's seat plot."""
    lines = []
    for name, table in named.items():
        if not name.startswith("turn-order advantage") or "all-" not in name:
            continue
        agent = name.split("all-")[1].removesuffix(" tables")
        counts = sorted(table.index.get_level_values("n_players").unique())
        n = counts[len(counts) // 2]
        first, last = table.loc[(n, 0)], table.loc[(n, n - 1)]
        lines.append(
            f"In {_title(game)}, among {NUMBERS.get(n, n)} {agent} players the first wins "
            f"{percent(first.win_share, first.ci_low, first.ci_high)} and the last "
            f"{percent(last.win_share, last.ci_low, last.ci_high)} (fair {first.fair:.1%}; "
            f"{_few(first.get('deals'))}{out / 'seat_win_share.png'})"
        )
    return lines


def _few_after(deals: int) -> str:
    """``stats.few_note`` as a sentence's end."""
    note = stats.few_note(deals)
    return f" ({note})" if note else ""


def _few(deals) -> str:
    """``stats.few_note`` as the start of a parenthesis that goes on."""
    note = stats.few_note(deals)
    return f"{note}; " if note else ""


def robin_findings(game: str, named: dict, out: Path) -> list[str]:
    """A round-robin in words: each agent's win share, the best agent against the next best
    head to head, and the order of the ratings; each with its file."""
    shares = ranked(named["win share by agent"], "win_share")
    listed = ", ".join(
        f"{agent} {percent(row.win_share, row.ci_low, row.ci_high)}"
        for agent, row in shares.iterrows()
    )
    best, second = shares.index[0], shares.index[1]
    pair = named[HEAD_TO_HEAD].loc[(best, second)]
    order = named[RATINGS]
    top = order.iloc[0]
    field = f"in this round-robin of {', '.join(sorted(shares.index))}"
    share = percent(pair.share, pair.ci_low, pair.ci_high)
    if pair.ci_low > 0.5:
        versus = f"{best} finishes ahead of {second} {field} in {share} of the games they share"
    elif pair.ci_high < 0.5:  # the better share overall loses this pairing
        back = percent(1 - pair.share, 1 - pair.ci_high, 1 - pair.ci_low)
        versus = f"{second} finishes ahead of {best} {field} in {back} of the games they share"
    else:
        edge = max(pair.ci_high - 0.5, 0.5 - pair.ci_low)
        versus = (
            f"{best} and {second} are not told apart {field}: {best} finishes ahead in {share} "
            f"of the games they share, an edge either way below {edge:.1%} with 95% confidence"
        )
    return [
        f"In the {_title(game)} round-robin ({_players(named)} players) the win shares are "
        f"{listed} (fair {shares['fair'].iloc[0]:.1%}; {_few(shares['deals'].min())}"
        f"{out / 'summary.md'})",
        f"{versus} ({out / 'win_rate_heatmap.png'})",
        f"Ratings from the whole finishing order {field} rank {_tiers(order)}; "
        f"{order.index[0]} {top.rating:+.2f} [{top.ci_low:+.2f}, {top.ci_high:+.2f}]"
        f"{_unbounded_words(order)} ({out / 'ratings.png'})",
    ]


def _unbounded_words(order: pd.DataFrame) -> str:
    """The agents of a ratings table whose rating has no finite estimate (an infinite end,
    ``experiments.ratings``), in words; "" when there are none."""
    ends = order[["ci_low", "ci_high"]].to_numpy(float)
    names = list(order.index[np.isinf(ends).any(axis=1)])
    if not names:
        return ""
    return (
        f" (no finite rating for {listed(names)}: one never finished behind or ahead of "
        "another, so those ratings are held by the prior alone and each interval is one-sided; "
        "the head-to-head table says by how much)"
    )


def _tiers(order: pd.DataFrame) -> str:
    """Agents by rating, best first, in words that claim no order the intervals do not show:
    an agent whose interval overlaps that of any agent of the tier above it shares that tier
    ("greedy and planner (intervals overlap: order not shown)")."""
    tiers = [[order.index[0]]]
    for agent in order.index[1:]:
        lowest = order.loc[tiers[-1], "ci_low"].min()  # overlapping any agent of the tier
        if order.loc[agent, "ci_high"] >= lowest:
            tiers[-1].append(agent)
        else:
            tiers.append([agent])
    together = " (intervals overlap: order not shown)"
    return ", then ".join(listed(t) + together * (len(t) > 1) for t in tiers)


def _players(named: dict) -> str:
    key = next(k for k in named if k.startswith("turn-order advantage"))
    counts = named[key].index.get_level_values("n_players").unique()
    return ", ".join(map(str, sorted(counts)))


def _title(game: str) -> str:
    return load_game(game).title


FINDINGS = {"mirror": seat_findings, "round-robin": robin_findings}  # by design


# ---- The other commands' bodies (the CLI parses, these run) -----------------------------


def gauntlet(made, out, options, command):
    """``giftsim gauntlet``: play and print a gauntlet (``made``, an
    ``experiments.gauntlet.Plan``, its jobs with the run's secret and isolation) and, with
    isolated agents, their forfeits and why; with ``out``, its markdown and plots go into that
    folder (a file of their names that the gauntlet did not write is refused first, unless
    ``options["force"]``)."""
    from experiments import gauntlet as gauntlets

    force = options.pop("force", False)
    if out is not None and Path(out).is_dir():  # else the run's own checks name the problem
        force = _may_replace(out, force)
        gauntlets.check_files(made, out, force)
    options = options | {"intro": gauntlets.plan_line(made)}
    frame, seconds, played = gauntlets.play(made, out, command, **options)
    _played_line(played, seconds, out)
    source = out if out is not None else frame
    found, pairs = gauntlets.table(made, source), gauntlets.comparisons(made, source)
    forfeits = gauntlet_forfeits(made, found, source)
    gauntlets.print_tables(made, found, pairs)
    print_tables(forfeits)
    if out is not None:
        when = manifest_io.read(out)["created"][:10]
        sections = _sections(forfeits)
        written = gauntlets.report(
            made, found, out, command, when, force=force, sections=sections, pairs=pairs
        )
        print(f"\nwrote {', '.join(str(path) for path in written)}")


def gauntlet_report(folder: Path, manifest: dict, force: bool = False) -> dict[str, pd.DataFrame]:
    """``giftsim report`` of a gauntlet's folder (``manifest``, as read): its tables (with
    isolated agents, their forfeits and why), markdown and plots again (the markdown with the
    warning of an incomplete folder)."""
    from experiments import gauntlet as gauntlets

    made = gauntlets.Plan.from_record(
        manifest["game"], manifest_jobs(manifest), manifest["gauntlet"]
    )
    gauntlets.check_files(made, folder, force)
    found = gauntlets.table(made, folder)
    forfeits = gauntlet_forfeits(made, found, folder)
    unfinished = incomplete_note(folder, manifest, int(found["games"].sum()))
    if unfinished:
        print(unfinished)
    pairs = gauntlets.comparisons(made, folder)
    gauntlets.print_tables(made, found, pairs)
    print_tables(forfeits)
    command = manifest.get("command", "")
    when = manifest["created"][:10]
    sections = _sections(forfeits)
    written = gauntlets.report(
        made, found, folder, command, when, unfinished, force, sections, pairs
    )
    print(f"\nwrote {', '.join(str(path) for path in written)}")
    return {"gauntlet": found, **forfeits}


def gauntlet_forfeits(made, found: pd.DataFrame, source) -> dict[str, pd.DataFrame]:
    """With isolated agents, a gauntlet's forfeits by agent (with their reasons) and why they
    forfeited (from ``found.attrs["faults"]``, ``experiments.gauntlet.table``), over the whole
    run, as a tournament shows them: from its rows (``source``, a frame) or its results
    folder; none when nothing is isolated."""
    if not any(job.isolation for job in made.jobs):
        return {}
    if isinstance(source, pd.DataFrame):
        named = {FORFEITS: forfeit_table(long_table(source, made.game))}
    else:
        named = _forfeit_reasons(Path(source), manifest_io.read(Path(source)))
    return named | fault_tables(found.attrs.get("faults"))


def _sections(named: dict[str, pd.DataFrame]) -> dict[str, str]:
    """Tables as markdown sections (name to text), as summary.md shows them: each with its
    note, if it has one."""
    return {name: _with_note(_as_markdown(table), table) for name, table in named.items()}


def _with_note(text: str, table: pd.DataFrame) -> str:
    return f"{text}\n\n{table.attrs['note']}" if "note" in table.attrs else text


def execute_and_print(jobs, out, options) -> None:
    """``giftsim tournament`` and ``giftsim seats``: run the jobs, print the tables."""
    sums, deals = execute(jobs, out, options)
    print(interval_note(deals))
    print_tables(summary_tables(sums, deals, score_ranges(jobs)))
    if out:
        print(f"\nresults in {out}; `giftsim report {out}` writes plots and summary.md")


def list_agents(games) -> None:
    """``giftsim agents``: every family of each game, its parameters and its rule."""
    from agents.registry import families
    from experiments.bounds import worst_cases

    for game in games:
        print(f"{game}:")
        worst = worst_cases(game)
        for family in families(game):
            kind = "built-in" if family.builtin else f"user ({family.source or 'defined'})"
            print(f"  {family.name} [{kind}]: {family.summary}")
            if family.name in worst:
                print(f"      worst case (largest gain a responder found): {worst[family.name]}")
            for key, default in family.defaults.items():
                print(f"      {key} = {default:g}  ({family.ranges[key]})")
            if family.n_features:
                print("      net = FILE  (a network of this game; default: the shipped one)")
            if family.table:
                print("      table = FILE  (a policy table of giftsim solve --out; needed)")


def tune(args, argv) -> None:
    """``giftsim tune``: CMA-ES over a family's parameters; the result, and its JSON record."""
    from experiments import tune as tuning
    from experiments.journal import Journal

    if args.json:  # before the run: a name that cannot be written would lose its result
        files.check_new(args.json, args.force, "--json")
    scores = Journal(_apart(args.journal, args.json, "--json"))
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
        journal=scores,
    )
    _say_taken(scores, len(result.history) * args.popsize + 1, "score")
    print(result.history.to_string(index=False))
    low, high = result.ci95
    print(
        f"\nbest: {result.spec}\nwin share {result.win_share:.4f} [{low:.4f}, {high:.4f}] "
        f"vs fair {1 / args.players:.4f} over {result.games:,} fresh games "
        f"({count_of(args.final_games, 'deal')}, the interval's unit) against "
        f"{args.players - 1} x {args.field}" + _few_after(args.final_games)
    )
    if args.json:
        record = json.dumps(tuning.as_record(result, argv), indent=2) + "\n"
        files.write_text(args.json, record, args.force, "--json")


def _apart(journal, path, flag: str):
    """``journal``, after checking that it is not the file ``flag`` writes at the end (one
    would replace the other)."""
    if journal is not None and path is not None and Path(journal).resolve() == Path(path).resolve():
        raise ValueError(f"--journal and {flag} name the same file, {path}; give two files")
    return journal


def _say_taken(journal, total: int, unit: str) -> None:
    """On stderr, how many of a run's scores its journal held (none said when none)."""
    if journal.taken:
        print(
            f"{count_of(journal.taken, unit)} of {total:,} taken from {journal.path}, not played",
            file=sys.stderr,
        )


def train(args, command: str) -> None:
    """``giftsim train``: train a network; its learning curve and where it was written."""
    from experiments import train as training
    from experiments.train_settings import TrainSettings

    settings = TrainSettings(
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
        rules=",".join(args.rule),
        init=args.init,
    )
    options = (args.workers, args.resume, not args.quiet, command, args.force)
    curve = training.train(settings, args.out, *options)
    shown = flag_few(curve.assign(deals=args.eval_games))  # every round on eval_games deals
    print(shown.to_string(index=False))
    for note in warning_notes(shown):
        print(note)
    best, confirmed = curve.loc[curve["win_share"].idxmax()], curve.attrs["confirmed"]
    print(
        f"\n{'kept (finished before)' if curve.attrs['kept'] else 'wrote'} {args.out}: round "
        f"{int(best['round'])}, the best of the curve "
        f"({best['win_share']:.4f} on the held-out deals that chose it); on "
        f"{count_of(confirmed['deals'], 'fresh deal')} ({confirmed['games']:,} games) it wins "
        f"{confirmed['win_share']:.4f} [{confirmed['ci_low']:.4f}, {confirmed['ci_high']:.4f}] "
        f"vs fair {1 / args.players:.4f} against {args.players - 1} x "
        f"{settings.resolved().baseline}{_few_after(confirmed['deals'])}; learning curve in "
        f"{args.out.with_suffix('.csv')}"
    )


def ladder(
    games, n_games, search_games, seed, workers, progress, argv, out, force=False, journal=None
) -> None:
    """``giftsim ladder``: play and judge the ladder; print (and write) its markdown (``out``
    checked first: an existing file is replaced only if ``force``); ``journal``: the file of
    its steps' scores (``experiments.journal``)."""
    from experiments import ladder as ladders
    from experiments.journal import Journal

    if out:
        files.check_new(out, force)
    scores = Journal(_apart(journal, out, "--out"))
    table = ladders.ladder(games, n_games, search_games, seed, workers, progress, scores)
    _say_taken(scores, len(table), "step")
    text = ladders.markdown(table, argv, seed)
    print(text)
    if out:
        files.write_text(out, text + "\n", force)
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
    print("lanes, the env's own buffers), beside the compiled loop's games/s on the same table")
    vector = {}
    for game in GAMES:
        players, opponent = roster(game).bench.vector
        steps, episodes = timing.vector_rate(game, opponent, players)
        games = timing.kernel_rate(game, opponent, players)
        vector[game] = (steps, players, opponent)
        print(
            f"{game}: {steps:,.0f} learner steps/s = {episodes:,.0f} episodes/s; the loop alone "
            f"{games:,.0f} games/s ({players} players, the others {opponent})"
        )
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
        cls = load_game(game).rules
        options[game] = cls.options_from_pairs(game_pairs) if game_pairs else {}
        for n in roster(game).bench.players:
            cls(n_players=n, **options[game])
    return options

"""Whole studies in one call each, for notebooks: a seat study of several agents (each with its
own number of games), a tournament as a long table, candidates against fields, the strategy
study (a round-robin of the fast built-ins at each player count) and ``compare``, which plays
and plots any agents in one call.

They only wire ``schedule``, ``runner``, ``batch`` and ``results`` together; every number with
its interval comes from ``stats``, every figure from ``plots``. Games run in this process (the
serial backend) unless ``options`` for ``runner.run`` say otherwise.
"""

from typing import NamedTuple

import pandas as pd

from agents.registry import builtins, spec_list
from experiments.batch import field
from experiments.blocks import ranked
from experiments.results import summary_of
from experiments.runner import run
from experiments.schedule import join, mirror
from giftsim.checks import is_whole
from giftsim.game import load_game

SERIAL = {"backend": "serial", "progress": False}


def scaled(games, scale: float, minimum: int = 1):
    """Game counts (an int, or a dict of them) times ``scale``, rounded, at least ``minimum``:
    how the notebooks size every study from one parameter (``GIFTSIM_SCALE``)."""
    if isinstance(games, dict):
        return {key: scaled(n, scale, minimum) for key, n in games.items()}
    return max(minimum, round(games * scale))


def describe(table: pd.DataFrame, template: str) -> str:
    """One line per row of ``table``: ``template`` formatted with the row's index levels and
    columns by name, e.g. ``"{agent}: {win_share:.1%}"``; so prose quotes computed numbers."""
    rows = table.reset_index().to_dict("records")
    return "\n".join(template.format(**row) for row in rows)


def builtin_specs(game: str, slow: dict[str, str], skip=()) -> tuple[list[str], list[str]]:
    """The game's built-in agents as specs, split in two: the fast ones by name, and those
    named in ``slow`` (name -> spec, e.g. ``{"ismcts": "ismcts:iters=200"}``) by that spec;
    the families named in ``skip`` are left out, and those that play from a table file
    (``solved``: a table solves one small variant)."""
    names = [f.name for f in builtins(game) if f.name not in skip and not f.table]
    return [n for n in names if n not in slow], [slow[n] for n in names if n in slow]


def seat_study(game: str, agents: dict[str, int], players=None, seed=0, rules=None, **options):
    """Mirror tables (every seat the same agent) of each spec of ``agents`` at every player
    count, ``agents[spec]`` games per count, as one experiment. ``players`` defaults to every
    count the engine accepts; ``rules``: options besides ``n_players``. Returns the
    per-(job, seat, position) sums of ``results.summary_of``, for ``stats.summary_seat_table``
    and its kin."""
    if not isinstance(agents, dict):
        raise TypeError(
            "agents is a dict of agent spec -> games per player count, e.g. {'greedy': 20000}, "
            f"got {type(agents).__name__}"
        )
    players = players or load_game(game).players
    designs = [mirror(game, [spec], players, n, seed, rules) for spec, n in agents.items()]
    frame, _, _ = run(join(*designs), summary_only=True, **{**SERIAL, **options})
    return summary_of(frame, True)


def seat_subject(sums: pd.DataFrame, game: str) -> str:
    """The subject line of a seat study's figures (``plots.subject``) with the games each
    agent played per player count, e.g. "...; games per player count: greedy 200,000;
    ismcts:iters=200 120"."""
    from experiments import plots

    played = sums.assign(played=sums["games"] / sums["n_players"])  # a game fills n seats
    per = played.groupby(["agent", "n_players"])["played"].sum().groupby("agent").unique()
    counts = "; ".join(
        f"{agent} {', '.join(f'{int(n):,}' for n in sorted(set(games)))}"
        for agent, games in per.items()
    )
    total = int(played["played"].sum())
    line = plots.subject(game, "mirror", sums["agent"].unique(), sums["n_players"].unique(), total)
    return f"{line}\ngames per player count: {counts}"


def field_table(game, candidates: dict[str, int], baselines, n_players, seed=0, rules=None):
    """Each spec of ``candidates`` against ``n_players - 1`` copies of each baseline, in every
    seat on ``candidates[spec]`` duplicate deals (``batch.field``); never against itself.
    ``rules``: options besides ``n_players``, as in ``schedule``. One row per (baseline,
    candidate): ``games``, ``win_share`` with a 95% interval over deals (``ci_low``,
    ``ci_high``, clipped to [0, 1]), ``fair``, ``deals`` and the ``warning`` column of
    ``marks.flag_few`` (empty where a row needs none)."""
    from experiments.marks import flag_few

    rows = [
        _field_row(game, spec, base, n_players, n, seed, rules)
        for base in baselines
        for spec, n in candidates.items()
        if spec != base
    ]
    return flag_few(pd.DataFrame(rows).set_index(["baseline", "candidate"]), always=True)


def _field_row(game, candidate, baseline, n_players, n_games, seed, rules) -> dict:
    made = load_game(game).rules(n_players=n_players, **(rules or {}))
    result = field(game, candidate, baseline, n_players, n_games, seed, made)
    low, high = result["ci95"]
    return {
        "baseline": baseline,
        "candidate": candidate,
        "games": result["games"],
        "win_share": result["win_share"],
        "ci_low": max(low, 0.0),
        "ci_high": min(high, 1.0),
        "fair": result["fair"],
        "deals": result["deals"],
    }


# ---- the strategy study: a round-robin of the fast built-ins at each player count -----------


class Strategy(NamedTuple):
    """A round-robin at one player count and its tables (every interval 95%, the deal as
    unit): ``win share`` by agent, ``head to head``, ``ratings`` from the whole finishing
    order (bootstrap over deals), ``seats`` (each agent's win share by turn position);
    ``subject``: the run in one line (``plots.subject``); ``sums``: the per-seat sums."""

    game: str
    n_players: int
    agents: tuple[str, ...]
    games: int
    per_seating: int
    subject: str
    tables: dict
    sums: pd.DataFrame  # per (job, seat, position) sums (results.summary_of)


def lineup(game: str, n_players: int) -> list[str]:
    """The fast built-ins of the game's strength ladder (``agents.roster.Ladder``) that play
    at ``n_players``: its rungs and branches without the search agents and without
    ``random`` (it almost never wins, and each agent more multiplies the seatings), with
    ``tuned{n}p`` only where a family of that name exists and ``learned`` only where a network
    for the count is shipped."""
    from agents.roster import SEARCHES, roster

    table = roster(game)
    named = [*table.ladder.rungs, *(spec for pair in table.ladder.branches for spec in pair)]
    specs = [spec.format(n=n_players) for spec in named]
    families = {family.name for family in table.families}
    nets = table.nets
    keep = [
        spec
        for spec in dict.fromkeys(specs)
        if spec in families
        and spec not in SEARCHES
        and spec != "random"
        and (spec != "learned" or (nets is not None and (nets / f"{n_players}p.npz").is_file()))
    ]
    return keep


def strategy_study(game, n_players, games, seed=0, n_boot=None, agents=None, **options):
    """A round-robin (``schedule.round_robin``, duplicate deals) of ``agents`` (default
    ``lineup``) at ``n_players``, about ``games`` games in all (the same number per seating,
    at least one), read chunk by chunk (``experiments.digest``) into a :class:`Strategy`;
    ``n_boot`` bootstrap draws of the ratings (default ``ratings.N_BOOT``)."""
    from experiments import digest, plots, ratings, stats
    from experiments.marks import flag_few
    from experiments.schedule import round_robin

    if not is_whole(games) or games < 1:
        raise ValueError(f"games must be a whole number >= 1, got {games!r}")
    agents = spec_list(agents) if agents else lineup(game, n_players)  # as batch.play takes them
    seatings = len(round_robin(game, agents, n_players, 1, seed))
    per = max(1, games // seatings)
    jobs = round_robin(game, agents, n_players, per, seed)
    frame, _, _ = run(jobs, **{**SERIAL, **options})
    summed = digest.of_frame(frame, False, game, jobs)
    shares = stats.deal_win_share(summed.deals)
    rated = ratings.deal_ratings(summed.events, ratings.N_BOOT if n_boot is None else n_boot, seed)
    tables = {
        "win share": shares,
        "head to head": stats.deal_pairwise_table(summed.pairs),
        "ratings": rated.assign(deals=shares["deals"].reindex(rated.index)),
        "seats": stats.deal_seat_advantage(summed.deals, "position", by="agent"),
    }
    tables = {name: flag_few(table, always=True) for name, table in tables.items()}
    played = per * len(jobs)
    line = plots.subject(game, "round-robin", agents, [n_players], played, f"{per:,} per seating")
    return Strategy(game, n_players, tuple(agents), played, per, line, tables, summed.sums)


def compare(game, n_players, agents, games=20_000, seed=0, **options):
    """The quick path, one call: a ``strategy_study`` of exactly ``agents`` (built-in specs
    such as ``"sniper:milk=4"``, or agents of one's own made with ``agents.registry.define``)
    at ``n_players``, about ``games`` games, and its figures: ``plots.strategy_figure`` (win
    shares, head to head, ratings) and ``plots.agent_seats_of`` (each agent's win share by
    turn position). Returns the study (its ``tables`` hold every number) and the two
    figures, which a notebook shows below the cell."""
    from experiments import plots

    study = strategy_study(game, n_players, games, seed, agents=agents, **options)
    figure = plots.strategy_figure(study)
    return study, (figure, plots.agent_seats_of(study.tables["seats"], subject=study.subject))


def strategy_studies(game, games, seed=0, players=None, **options) -> list[Strategy]:
    """``strategy_study`` at every official player count of the game (or ``players``), each
    with about ``games`` games (an int, or a dict by player count)."""
    counts = players or load_game(game).official
    sizes = games if isinstance(games, dict) else dict.fromkeys(counts, games)
    return [strategy_study(game, n, sizes[n], seed, **options) for n in counts]


def strategy_table(studies) -> pd.DataFrame:
    """Every study's win shares and ratings in one table, one row per (n_players, agent):
    ``win_share`` (``ci_low``, ``ci_high``), ``fair``, ``rating`` (``rating_low``,
    ``rating_high``), ``games`` of the round-robin and ``deals``, best first within a player
    count, and the ``warning`` column of ``marks.flag_few`` (empty where a row needs none)."""
    from experiments.marks import flag_few

    rows = []
    for study in studies:
        share = study.tables["win share"]
        rating = (
            study.tables["ratings"]
            .add_prefix("rating_")
            .rename(columns={"rating_rating": "rating"})
        )
        both = share.join(rating).assign(n_players=study.n_players, games=study.games)
        rows.append(ranked(both, "win_share"))
    table = pd.concat(rows).rename_axis("agent").reset_index()
    columns = ["win_share", "ci_low", "ci_high", "fair", "rating", "rating_ci_low"]
    columns += ["rating_ci_high", "games", "deals"]
    table = table.rename(columns={"rating_ci_low": "rating_low", "rating_ci_high": "rating_high"})
    columns = [c.replace("rating_ci_", "rating_") for c in columns]
    return flag_few(table.set_index(["n_players", "agent"])[columns], always=True)

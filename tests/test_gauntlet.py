"""The gauntlet (``experiments.gauntlet``, ``giftsim gauntlet``): each agent against several
fields. Its jobs and tables do not depend on the order of the lists; a pool of one agent is
the field design; a mixed field gives every member the same share of the other seats; an
--out folder resumes without losing or repeating a game; both games run through the CLI;
the plot names what it shows; bad input is one line and exit status 2. Isolated agents play
the gauntlet they play in process, a faulty one's forfeits and why are printed and kept, and
a run with other isolation options is not resumed."""

import os
from collections import Counter

os.environ.setdefault("MPLBACKEND", "Agg")  # before pyplot is imported: no window

import numpy as np
import pandas as pd
import pytest

from agents.isolation import Isolation
from experiments import gauntlet as gauntlets
from experiments import plots, stats
from experiments.cli import main
from experiments.isolation import fault_table, secured
from experiments.manifest import read
from experiments.results import load, load_faults, long_table
from experiments.runner import run
from experiments.schedule import field_design
from tests.test_isolation import BOTS, RAISER_SAYS, SECRET, without_forfeits

TOY = {"agents": ("random", "steady", "steady:margin=2"), "players": (2, 3)}
TOY_FIELDS = ("random", "steady", "mixed", "self")
SERIAL = ["--backend", "serial", "--quiet"]


def toy_plan(agents=TOY["agents"], fields=TOY_FIELDS, players=TOY["players"], deals=40):
    return gauntlets.plan("toy", list(agents), list(fields), list(players), deals, seed=12)


@pytest.fixture(scope="module")
def toy():
    made = toy_plan()
    frame, _, _ = run(made.jobs, backend="serial", progress=False)
    return made, frame, gauntlets.table(made, frame)


def test_any_order_of_the_lists_gives_the_same_jobs():
    first = toy_plan()
    other = toy_plan(TOY["agents"][::-1], ("self", "mixed", "random", "steady"), (3, 2))
    assert other.jobs == first.jobs and other.cells == first.cells
    made = gauntlets.plan("geschenkt", ["sniper", "greedy"], ["mixed", "greedy"], [4, 3], 12)
    again = gauntlets.plan("geschenkt", ["greedy", "sniper"], ["greedy", "mixed"], [3, 4], 12)
    assert made.jobs == again.jobs


def test_any_order_of_the_lists_gives_the_same_table(toy):
    _, frame, found = toy
    other = toy_plan(TOY["agents"][::-1], TOY_FIELDS[::-1], TOY["players"][::-1])
    replayed, _, _ = run(other.jobs, backend="serial", progress=False)
    pd.testing.assert_frame_equal(replayed, frame)  # game for game
    pd.testing.assert_frame_equal(gauntlets.table(other, replayed), found)
    shown = gauntlets.display(other, found, 3)  # shown as listed
    assert list(shown.index) == ["steady:margin=2", "steady", "random"]
    assert list(shown.columns) == list(TOY_FIELDS[::-1])


def test_a_pool_of_one_agent_is_the_field_design():
    made = gauntlets.plan("geschenkt", ["sniper"], ["greedy"], [4], 50, seed=8)
    field = field_design("geschenkt", "sniper", "greedy", 4, 50, seed=8)
    keys = ("agents", "seed", "n_games", "first_index", "group")
    seatings = {tuple(getattr(j, k) for k in keys) for j in made.jobs}
    assert len(made.jobs) == 4 and seatings == {tuple(getattr(j, k) for k in keys) for j in field}
    assert made.cells[0].deals == 50


@pytest.mark.parametrize("n", [3, 4, 5])
def test_a_mixed_field_gives_every_member_the_same_share_of_the_seats(n):
    made = gauntlets.plan("geschenkt", ["learned"], ["greedy+sniper+tuned{n}p"], [n], 100)
    tuned = f"tuned{n}p"
    jobs = made.jobs
    seats = Counter()
    for job in jobs:
        for seat, agent in enumerate(job.agents):
            seats[agent, seat] += job.n_games
    per_seat = {seats["learned", s] for s in range(n)}
    assert len(per_seat) == 1  # the agent in every seat equally often
    others = Counter()
    for (agent, _), games in seats.items():
        others[agent] += games
    assert others["greedy"] == others["sniper"] == others[tuned]  # equal shares
    assert others["learned"] * (n - 1) == 3 * others["greedy"]
    at_table = {max(Counter(job.agents[1:]).values()) for job in jobs if job.agents[0] == "learned"}
    assert at_table <= {(n - 1) // 3 + ((n - 1) % 3 > 0)}  # no member two seats more
    groups = {}
    for job in jobs:
        groups.setdefault(job.group, set()).add(job.first_index)
    assert all(len(firsts) == 1 for firsts in groups.values())  # a group shares its deals
    assert len({next(iter(f)) for f in groups.values()}) == len(groups)  # its own deals
    assert made.cells[0].deals >= 100


def test_every_seat_order_of_a_table_is_played_once():
    (table,) = gauntlets.tables("a", ("b", "c", "d"), 4)
    orbits = gauntlets.orbits(table)
    seatings = [s for orbit in orbits for s in orbit]
    assert len(seatings) == len(set(seatings)) == 24  # 4! orders, 6 classes of 4 rotations
    assert len(orbits) == 6 and all(len(o) == 4 for o in orbits)
    assert gauntlets.tables("a", ("b", "c"), 2) == [("a", "b"), ("a", "c")]
    assert gauntlets.tables("a", (), 3) == [("a", "a", "a")]


def test_each_cell_is_the_statistics_of_its_own_games(toy):
    made, frame, found = toy
    cell = next(c for c in made.cells if c.field == "mixed" and c.n_players == 3)
    mine = frame[frame["job"].isin(cell.jobs)]
    share = stats.win_share(long_table(mine)).loc[cell.agent]
    row = found.loc[(3, cell.agent, "mixed")]
    assert row["win_share"] == pytest.approx(share["win_share"])
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((share["ci_low"], share["ci_high"]))
    assert 0 <= row["ci_low"] < row["win_share"] < row["ci_high"] <= 1
    assert row["games"] == len(mine) and row["deals"] == cell.deals
    own = found.loc[(3, "steady", "steady")]
    assert own["kind"] == "its own field" and own["games"] == 0
    mirror = found.loc[(2, "random", "self")]
    assert mirror["kind"] == "mirror" and mirror["gap_low"] <= mirror["gap"] <= mirror["gap_high"]


def _deal_shares(frame, cell) -> pd.Series:
    """The cell's agent's win share on each of its deals (game index), from its games."""
    mine = long_table(frame[frame["job"].isin(cell.jobs)])
    return mine[mine["agent"] == cell.agent].groupby("game_index")["win"].mean()


def test_a_paired_difference_is_the_cells_difference_with_the_error_of_its_deals(toy):
    """In a field of one agent (one seating group) the difference is the two cells' win
    shares less each other, and its error the standard deviation of the per-deal differences
    over the root of the deals: the deals are paired, not two samples."""
    made, frame, found = toy
    pairs = gauntlets.comparisons(made, frame)
    row = pairs.loc[(2, "random", "steady", "steady:margin=2")]
    cells = {c.agent: c for c in made.cells if (c.n_players, c.field) == (2, "random")}
    shares = {a: found.loc[(2, a, "random"), "win_share"] for a in ("steady", "steady:margin=2")}
    assert row["difference"] == pytest.approx(shares["steady"] - shares["steady:margin=2"])
    per_deal = _deal_shares(frame, cells["steady"]) - _deal_shares(frame, cells["steady:margin=2"])
    assert row["deals"] == len(per_deal) == 40
    assert row["se"] == pytest.approx(per_deal.std(ddof=1) / np.sqrt(len(per_deal)))
    assert row["ci_low"] < row["difference"] < row["ci_high"]
    apart = np.hypot(*(found.loc[(2, a, "random"), "ci_high"] for a in shares))
    assert row["se"] < apart  # pairing is not two independent errors (a loose check)


def test_pairs_are_every_two_agents_in_the_fields_both_played_with_holm_over_the_run(toy):
    made, frame, _ = toy
    pairs = gauntlets.comparisons(made, frame)
    fields = set(pairs.index.get_level_values("field"))
    assert "self" not in fields and fields == {"random", "steady", "mixed"}
    assert ("random", "random", "steady") not in pairs.xs(3, level="n_players").index
    assert len(pairs) == 2 * (
        1 + 1 + 3
    )  # per count: random, steady (one agent is the field), mixed
    expected = stats.holm_adjusted(pairs["p_value"])
    np.testing.assert_allclose(pairs["p_holm"], expected)
    assert (pairs["shown"] == (pairs["p_holm"] < 0.05)).all()
    assert (pairs["p_holm"] >= pairs["p_value"]).all()


def test_pairs_do_not_depend_on_the_order_listed(toy):
    """Listed the other way round, each pair is the same difference with the sign turned."""
    made, frame, _ = toy
    pairs = gauntlets.comparisons(made, frame)
    other = toy_plan(TOY["agents"][::-1], TOY_FIELDS[::-1], TOY["players"][::-1])
    turned = gauntlets.comparisons(other, frame)
    assert len(turned) == len(pairs)
    for (n, field, first, second), row in pairs.iterrows():
        back = turned.loc[(n, field, second, first)]
        assert back["difference"] == pytest.approx(-row["difference"])
        assert (back["p_holm"], back["shown"]) == pytest.approx((row["p_holm"], row["shown"]))


def test_resume_loses_and_repeats_no_game(tmp_path, capsys):
    made = toy_plan(deals=30)
    fresh, _, _ = run(made.jobs, backend="serial", progress=False)
    out = tmp_path / "g"
    args = ["gauntlet", "toy", "--agents", ",".join(TOY["agents"]), "--fields"]
    args += [",".join(TOY_FIELDS), "--players", "2,3", "--deals", "30", "--seed", "12"]
    args += [*SERIAL, "--chunk-size", "20", "--out", str(out)]
    assert main(args) == 0
    printed = capsys.readouterr().out  # each table says what its cells are
    for n in (2, 3):
        assert f"with its 95% interval by deal; fair share 1/{n} = {1 / n:.3f}\n" in printed
    chunks = sorted(out.glob("chunk-*.parquet"))
    lost = sum(len(pd.read_parquet(chunk)) for chunk in chunks[::3])
    for chunk in chunks[::3]:  # as if killed: some chunks never written, one half-written
        chunk.unlink()
    (out / f".{chunks[1].name}.999.tmp").write_bytes(b"half a file")
    capsys.readouterr()
    assert main([*args, "--resume"]) == 0
    assert f"played {lost:,} games" in capsys.readouterr().out
    _, resumed = load(out)
    assert len(resumed) == len(fresh) == sum(job.n_games for job in made.jobs)
    assert not resumed.duplicated(["job", "game_index"]).any()
    pd.testing.assert_frame_equal(resumed, fresh)
    assert not list(out.glob(".*.tmp"))
    assert main([*args, "--resume"]) == 0
    assert "nothing left to play" in capsys.readouterr().out


# A small gauntlet of No Thanks! with a built-in to isolate: two agents, a field of one agent
# and a pool, at 3 players.
ISOLABLE_FIELDS = ["random", "greedy+random"]
ISOLABLE = ["gauntlet", "geschenkt", "--agents", "greedy,sniper", "--players", "3"]
ISOLABLE += ["--fields", ",".join(ISOLABLE_FIELDS), "--deals", "4", *SERIAL]


def printed_tables(printed: str) -> str:
    """The gauntlet's tables as printed: from the first heading to the forfeits, if any."""
    return printed[printed.index("\n== ") :].split("\n== forfeits")[0]


def test_isolated_agents_play_the_gauntlet_they_play_in_process(tmp_path, capsys):
    """``--isolate greedy``: each ``greedy`` seat decides from a process of its own and plays
    exactly the games it plays in process under the same secret: the same rows, the same
    printed tables, and no forfeit."""
    printed = []
    for extra in ([], ["--isolate", "greedy", "--out", str(tmp_path / "isolated")]):
        assert main([*ISOLABLE, "--secret", str(SECRET), *extra]) == 0
        printed.append(capsys.readouterr().out)
    assert printed_tables(printed[1]) == printed_tables(printed[0])
    assert "== forfeits by agent" in printed[1] and "== forfeits" not in printed[0]
    made = gauntlets.plan("geschenkt", ["greedy", "sniper"], ISOLABLE_FIELDS, [3], 4, secret=SECRET)
    reference, _, _ = run(made.jobs, backend="serial", progress=False)
    manifest, rows = load(tmp_path / "isolated")
    assert {tuple(job["isolation"]["agents"]) for job in manifest["jobs"]} == {("greedy",)}
    pd.testing.assert_frame_equal(without_forfeits(rows), reference)


def test_the_python_api_plays_isolated_agents_the_same_gauntlet():
    """``plan`` and ``gauntlet`` take the isolation: the same rows and table as in
    process under the same secret, the fault records (none) in the table's attrs."""
    lists = (["greedy", "sniper"], ISOLABLE_FIELDS, [3], 4)
    made, found = gauntlets.gauntlet("geschenkt", *lists, seed=12, secret=SECRET)
    assert not any(job.isolation for job in made.jobs) and "faults" not in found.attrs
    greedy = Isolation(("greedy",))
    planned = gauntlets.plan("geschenkt", *lists, seed=12, secret=SECRET, isolation=greedy)
    assert planned.jobs == secured(made.jobs, SECRET, greedy)
    assert {job.secret for job in gauntlets.plan("geschenkt", *lists, isolation=greedy).jobs} != {0}
    reference, _, _ = run(made.jobs, backend="serial", progress=False)
    rows, _, _ = gauntlets.play(planned, **gauntlets.SERIAL)
    pd.testing.assert_frame_equal(without_forfeits(rows), reference)
    isolated = gauntlets.table(made, rows)
    pd.testing.assert_frame_equal(isolated, found)
    assert isolated.attrs["faults"] == []


def test_a_faulty_untrusted_bot_forfeits_and_the_gauntlet_says_why(tmp_path, capsys):
    """``raiser`` (tests/bots/faulty.py, loaded untrusted) raises at the first decision of
    every game it begins: those games are forfeits (losses) and the rest stand; the terminal,
    gauntlet.md and ``report`` show its forfeits and the explanation of the first."""
    out = tmp_path / "faulty"
    args = ["gauntlet", "geschenkt", "--agents", "raiser", "--fields", "greedy", "--players"]
    args += ["3", "--deals", "4", *SERIAL, "--untrusted-module", str(BOTS / "faulty.py")]
    args += ["--time-limit", "0.4", "--memory-limit", "600", "--secret", "11"]
    assert main([*args, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    _, frame = load(out)
    long = long_table(frame)
    raiser = long[long["agent"] == "raiser"]
    begun = int((raiser["position"] == 0).sum())
    assert begun > 0 and raiser["forfeit"].astype(bool).sum() == begun  # the games it begins
    assert not raiser.loc[raiser["forfeit"] != 0, "win"].any()  # a forfeit never wins
    table = fault_table(load_faults(out))
    assert table.loc["raiser", "forfeits"] == begun
    assert table.loc["raiser", "explanation"] == RAISER_SAYS
    forfeits = printed.split("== forfeits by agent (a forfeit is a loss)")[1].split("==")[0]
    assert f"raised {begun}" in forfeits
    cell = f"({begun} game{'s' * (begun != 1)} forfeited)"  # beside the cell's share
    assert cell in printed_tables(printed)
    assert "== why they forfeited" in printed and RAISER_SAYS in printed
    text = (out / "gauntlet.md").read_text()
    assert "## forfeits by agent" in text and "## why they forfeited" in text
    assert RAISER_SAYS in text and cell in text
    assert main(["report", str(out)]) == 0
    again = capsys.readouterr().out
    assert "== why they forfeited" in again and RAISER_SAYS in again
    assert (out / "gauntlet.md").read_text() == text


def test_a_gauntlet_with_other_isolation_options_is_not_resumed(tmp_path, capsys):
    """An isolated run draws one secret and keeps it with its isolation in its manifest: the
    same command resumes it; another time limit, or no isolation, is another experiment."""
    out = tmp_path / "g"
    args = [*ISOLABLE, "--isolate", "greedy", "--time-limit", "5", "--out", str(out)]
    assert main(args) == 0
    jobs = read(out)["jobs"]
    assert len({job["secret"] for job in jobs}) == 1 and jobs[0]["secret"] != 0
    assert {job["isolation"]["time_limit"] for job in jobs} == {5}
    next(out.glob("chunk-*.parquet")).unlink()  # as if interrupted
    capsys.readouterr()
    for changed in (["--isolate", "greedy", "--time-limit", "6"], []):
        assert main([*ISOLABLE, *changed, "--out", str(out), "--resume"]) == 2
        err = capsys.readouterr().err
        assert "holds another experiment" in err and len(err.strip().splitlines()) == 1
    assert main([*args, "--resume"]) == 0
    assert "played " in capsys.readouterr().out


@pytest.mark.parametrize(("game", "players"), [("geschenkt", 3), ("tulips", 2)])
def test_both_games_run_through_the_cli_and_report(game, players, tmp_path, capsys):
    out = tmp_path / game
    args = ["gauntlet", game, "--players", str(players), "--deals", "3", *SERIAL]
    assert main([*args, "--seed", "5", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"{players} players" in printed and "learned" in printed
    assert (
        "self: the agent's own copies in every seat (a mirror): the cell is the turn-order gap"
        in printed
    )
    assert "fewer than 30 deals" in printed  # every cell is flagged at this size
    png = out / f"gauntlet-{game}-{players}p.png"
    assert png.stat().st_size > 10_000 and png.read_bytes()[:4] == b"\x89PNG"
    text = (out / "gauntlet.md").read_text()
    assert f"giftsim gauntlet {game}" in text and f"({png.name})" in text
    assert "Holm's correction over the run's" in printed and "| first - second " in text
    png.unlink()
    assert main(["report", str(out)]) == 0  # the folder's report draws it again
    assert png.exists() and f"tuned{players}p" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    assert "written by tournament, seats or gauntlet --out" in capsys.readouterr().out


def test_the_plot_names_the_game_the_count_the_fields_and_the_games(toy):
    made, _, found = toy
    title = gauntlets.title(made, found, 3)
    games = int(found.xs(3, level="n_players")["games"].sum())
    assert title.startswith("Hidden Pile, 3 players: win share")
    assert f"{games:,} games" in title and "deals per cell" in title
    for name in ("random: 2 x random", "steady: 2 x steady", "mixed: random, steady", "self"):
        assert name in title
    figure = plots.gauntlet_chart(gauntlets.chart_data(made, found, 3), title)
    assert figure.get_suptitle() == title
    left, right = figure.axes[:2]
    labels = [t.get_text() for t in left.get_xticklabels()]
    assert labels == ["field: random", "field: steady", "field: mixed"]
    legend = [t.get_text() for t in left.get_legend().get_texts()]
    assert set(TOY["agents"]) <= set(legend) and "fair share 1/3 = 0.333" in legend
    assert [t.get_text() for t in right.get_yticklabels()] == list(TOY["agents"])
    shares = [line for line in left.lines if line.get_marker() == "o" and line.get_mfc() != "none"]
    assert shares and not any(line.get_clip_on() for line in shares)  # a share of 0 drawn whole
    plots.plt.close(figure)


def test_a_run_of_mirrors_alone_has_a_table_and_a_plot_of_gaps(tmp_path, capsys):
    """``--fields self`` alone: every cell a mirror, so no share columns were played; the table
    still has every column and the plot is the gaps' panel alone, titled as such."""
    made = toy_plan(fields=("self",), players=(3,), deals=30)
    frame, _, _ = run(made.jobs, backend="serial", progress=False)
    found = gauntlets.table(made, frame)
    assert list(found.columns) == list(gauntlets.COLUMNS)
    assert found["kind"].eq("mirror").all() and found["win_share"].isna().all()
    assert found["gap_low"].le(found["gap"]).all() and found["gap"].le(found["gap_high"]).all()
    title = gauntlets.title(made, found, 3)
    assert "turn-order gap of each agent among its own copies" in title
    figure = plots.gauntlet_chart(gauntlets.chart_data(made, found, 3), title)
    assert len(figure.axes) == 1
    assert [t.get_text() for t in figure.axes[0].get_yticklabels()] == list(TOY["agents"])
    plots.plt.close(figure)
    args = ["gauntlet", "toy", "--players", "3", "--deals", "3", "--fields", "self", *SERIAL]
    assert main([*args, "--out", str(tmp_path / "run")]) == 0
    assert "gap" in capsys.readouterr().out and (tmp_path / "run" / "gauntlet-toy-3p.png").exists()


def test_an_exploratory_seed_is_said_so(toy):
    made, _, found = toy
    assert made.caveat == "" and "exploratory" not in gauntlets.markdown(made, found, "", "x")
    used = gauntlets.plan("toy", list(TOY["agents"]), list(TOY_FIELDS), [2, 3], 40, seed=0)
    assert used.caveat.startswith("Results on seed 0 were looked at before (")
    assert used.caveat in gauntlets.markdown(used, found, "", "x")
    kept = gauntlets.Plan.from_record("toy", used.jobs, used.record())
    assert kept == used  # the manifest keeps the plan, caveat included


BAD = [
    (["--agents", "greedy,nobody"], "nobody"),
    (["--agents", "greedy,greedy"], "agent 'greedy' is listed twice"),
    (["--agents", ","], "--agents names no agent"),
    (["--fields", "greedy,nowhere"], "field 'nowhere' is not a field of geschenkt's gauntlet"),
    (["--fields", "greedy+greedy"], "field 'greedy+greedy' names an agent twice"),
    (["--fields", "greedy+"], "names no agent in one of its places"),
    (["--players", "9"], "--players must be in 2..7 for No Thanks!, got 9"),
    (["--players", "x"], "--players"),
    (["--deals", "0"], "--deals must be a whole number >= 1, got 0"),
    (["--agents", "sniper:T=nan"], "out of range"),
]


@pytest.mark.parametrize(("extra", "message"), BAD)
def test_bad_input_is_one_line_and_exit_2(extra, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base = {"--players": "3", "--deals": "2"}  # unless the row gives its own (once only)
    given = [
        word for option, value in base.items() if option not in extra for word in (option, value)
    ]
    code = main(["gauntlet", "geschenkt", *given, *SERIAL, *extra])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert message in err
    assert not list(tmp_path.iterdir())  # nothing written


def test_an_unfinished_gauntlet_reports_the_cells_it_has(tmp_path, capsys):
    """A run stopped before a cell's first game: ``report`` prints every other cell, marks that
    one and warns that the folder is unfinished (it refused the whole report)."""
    out = tmp_path / "g"
    args = ["gauntlet", "geschenkt", "--agents", "greedy", "--fields", "random,sniper"]
    assert main([*args, "--players", "3", "--deals", "4", *SERIAL, "--out", str(out)]) == 0
    jobs = read(out)["jobs"]
    for job in (j["job"] for j in jobs if "sniper" in j["agents"]):
        for chunk in out.glob(f"chunk-{job:05d}-*.parquet"):
            chunk.unlink()
    capsys.readouterr()
    assert main(["report", str(out), "--force"]) == 0
    printed = capsys.readouterr().out
    row = next(line for line in printed.splitlines() if line.startswith("greedy"))
    assert "no games yet (--resume)" in row and "[" in row  # the random field is there
    assert "incomplete" in printed
    made = gauntlets.plan("geschenkt", "greedy", "random,sniper", [3], 4)
    found = gauntlets.table(made, out)
    assert "12 games of 24 planned: unfinished" in gauntlets.title(made, found, 3)


def test_the_same_field_under_two_names_is_refused(capsys, tmp_path, monkeypatch):
    """``tuned`` and ``tuned4p`` are one field at 4 players: it would be played twice."""
    monkeypatch.chdir(tmp_path)
    args = ["gauntlet", "geschenkt", "--players", "4", "--agents", "greedy", "--deals", "2"]
    assert main([*args, "--fields", "tuned,tuned{n}p", *SERIAL]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith(
        "fields 'tuned' and 'tuned{n}p' are both 3 x tuned4p at 4 players; list each field once"
    )
    assert not list(tmp_path.iterdir())


def test_the_default_lists_at_a_count_without_tuned_agents_say_where_they_exist(capsys):
    assert main(["gauntlet", "geschenkt", "--players", "2", "--deals", "2", *SERIAL]) == 2
    err = capsys.readouterr().err
    assert "'tuned{n}p' exists at 3, 4, 5 players, not at 2: choose --players among" in err


def test_a_folder_of_another_gauntlet_is_refused_in_one_line(tmp_path, capsys):
    args = ["gauntlet", "toy", "--players", "2", *SERIAL, "--out", str(tmp_path)]
    assert main([*args, "--deals", "2"]) == 0
    capsys.readouterr()
    assert main([*args, "--deals", "3", "--resume"]) == 2
    err = capsys.readouterr().err
    assert "holds another experiment" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("wins", "deals"), [(0, 3), (3, 3), (0, 7), (0.5, 1)])
def test_a_share_interval_holds_its_share_exactly(wins, deals):
    """A share of 0 over 3 deals once got a low end of 5.6e-17, above the share, and the
    plot's error bars refused it."""
    low, high = stats.wilson(wins, deals)
    assert low <= wins / deals <= high
    low, high = stats.share_interval(wins / deals, 0.0, deals)
    assert low <= wins / deals <= high


def test_a_cell_on_one_deal_says_it_has_no_interval():
    """One deal leaves no spread to estimate: the cell says so, never ``[nan, nan]``."""
    from experiments.gauntlet import _cell_text

    field = {"kind": "field", "win_share": 0.0, "ci_low": np.nan, "ci_high": np.nan, "deals": 1}
    mirror = {"kind": "mirror", "gap": 1.0, "gap_low": np.nan, "gap_high": np.nan, "deals": 1}
    assert _cell_text(field, True) == "0.000 (no interval) †"
    assert _cell_text(mirror, True) == "gap +1.000 (no interval) †"
    sound = field | {"win_share": 0.4, "ci_low": 0.3, "ci_high": 0.5, "deals": 400}
    assert _cell_text(sound, True) == "0.400 [0.300, 0.500]"
    tiny = mirror | {"gap": -0.0002, "gap_low": -0.159, "gap_high": -0.00004, "deals": 400}
    assert _cell_text(tiny, True) == "gap +0.000 [-0.159, +0.000]"  # never "-0.000"


def test_an_agent_s_own_field_points_to_self_only_where_self_is_a_column():
    """An agent's cell in the field of itself alone is not played; it pointed to the column
    ``self`` also in tables without one."""
    from experiments.gauntlet import _cell_text

    own = {"kind": "its own field", "deals": 0}
    assert _cell_text(own, True) == "its own field (see self)"
    assert "self, not asked for here" in _cell_text(own, False)


def test_deals_per_cell_take_the_singular_for_one_deal():
    """The heading and the plot title say "1 deal", not "1 deals"; the range keeps its plural."""
    index = pd.MultiIndex.from_tuples([(3, "a", "f"), (3, "b", "f"), (4, "a", "f"), (4, "b", "f")])
    index = index.set_names(["n_players", "agent", "field"])
    found = pd.DataFrame({"deals": [1, 1, 398, 400]}, index=index)
    assert gauntlets.deals_text(found, 3) == "1 deal"
    assert gauntlets.deals_text(found, 4) == "398-400 deals"
    assert gauntlets.deal_range(found, 4) == "398-400"


def test_the_plan_line_counts_in_words():
    """One deal is "1 deal", not "1 deals" (each count with its own number)."""
    line = gauntlets.plan_line(toy_plan(deals=1)).splitlines()[0]
    assert "about 1 deal each" in line and "1 deals" not in line

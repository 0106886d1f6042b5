"""experiments.digest: a results folder read chunk by chunk gives the same tables as all its
rows in memory (what the demo ends with is checked on the README's own demo command, in
tests/test_readme.py)."""

import os

os.environ["MPLBACKEND"] = "Agg"  # before pyplot is imported anywhere: no window, no display

import numpy as np
import pandas as pd
import pytest

from experiments import commands, digest, plots, ratings, stats
from experiments.results import load, long_table, summary_of
from experiments.runner import run
from experiments.schedule import join, mirror, round_robin

SERIAL = {"backend": "serial", "progress": False}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A 4-player Tulips round-robin of three agents with a 3-player one joined to it, in
    chunks of 30 games (a deal's rotations lie in different chunks)."""
    out = tmp_path_factory.mktemp("rr") / "run"
    jobs = join(
        round_robin("tulips", ["random", "greedy", "hoarder"], 4, 30, seed=5),
        round_robin("tulips", ["greedy", "hoarder"], 3, 40, seed=6),
    )
    run(jobs, out=out, chunk_size=30, **SERIAL)
    return out


@pytest.fixture(scope="module")
def every_row(folder):
    manifest, frame = load(folder)
    return long_table(frame, manifest["game"])


@pytest.fixture(scope="module")
def summed(folder):
    return digest.of_folder(folder)


def test_head_to_head_and_ratings_from_chunks_equal_those_of_every_row(summed, every_row):
    assert summed.mixed
    streamed = stats.deal_pairwise_table(summed.pairs)
    pd.testing.assert_frame_equal(streamed, stats.pairwise_table(every_row), check_dtype=False)
    fitted = ratings.deal_ratings(summed.events, n_boot=30, seed=4)
    whole = stats.ratings(every_row, n_boot=30, seed=4)
    assert list(fitted.index) == list(whole.index)
    assert np.allclose(fitted.to_numpy(), whole.to_numpy(), atol=1e-9)


def test_shares_scores_and_seats_from_chunks_equal_those_of_every_row(summed, every_row):
    shares = stats.deal_win_share(summed.deals)
    direct = stats.win_share(every_row)
    assert np.allclose(
        shares[["win_share", "ci_low", "ci_high"]], direct[["win_share", "ci_low", "ci_high"]]
    )
    counted = summed.scores.groupby(["n_players", "agent"], observed=True)["count"].sum()
    assert counted.to_dict() == every_row.groupby(["n_players", "agent"]).size().to_dict()
    seats = stats.deal_seat_advantage(summed.deals, column="position")
    direct = stats.seat_advantage(every_row, "position")
    pd.testing.assert_frame_equal(seats, direct, check_dtype=False, check_like=True)


def test_summing_every_chunk_or_every_few_gives_the_same_sums(folder, summed, monkeypatch):
    monkeypatch.setattr(digest, "BATCH_GAMES", 30)  # a batch a chunk: many parts to sum
    monkeypatch.setattr(digest, "COLLAPSE", 1)
    again = digest.of_folder(folder)
    for field in ("deals", "pairs", "events", "scores"):
        pd.testing.assert_frame_equal(getattr(again, field), getattr(summed, field))


@pytest.mark.parametrize("games", [1, 90, 10**9])  # each chunk alone, three together, all
def test_reading_the_chunks_in_batches_of_any_size_gives_the_same_sums(
    folder, summed, monkeypatch, games
):
    monkeypatch.setattr(digest, "BATCH_GAMES", games)
    again = digest.of_folder(folder, workers=1 if games == 1 else 2)
    for field in ("sums", "deals", "pairs", "events", "scores"):
        pd.testing.assert_frame_equal(getattr(again, field), getattr(summed, field))


def chunk_games(folder, manifest) -> dict:
    """Each chunk file's games, counted from its rows."""
    files = digest.manifest_io.chunk_files(folder, manifest)
    return {path: len(pd.read_parquet(path, columns=["game_index"])) for path in files}


@pytest.mark.parametrize("cap", [30, 40, 60, 50_000])
def test_the_batches_keep_the_chunks_in_order_and_each_is_as_full_as_its_cap_allows(
    folder, cap, monkeypatch
):
    """In order, under the cap, and no batch could have taken the next one's first chunk:
    the greedy cut, whose partial chunks (the 3-player jobs' last 10 games) count as what
    they hold."""
    manifest = digest.manifest_io.read(folder)
    games = chunk_games(folder, manifest)
    assert sorted(set(games.values())) == [10, 30]
    monkeypatch.setattr(digest, "BATCH_GAMES", cap)
    batches = digest._batches(list(games), manifest)
    assert [path for batch in batches for path in batch] == list(games)
    held = [sum(games[path] for path in batch) for batch in batches]
    assert all(total <= cap for total in held)
    for total, after in zip(held[:-1], batches[1:], strict=True):
        assert total + games[after[0]] > cap
    assert (cap, len(batches)) in {(30, 90), (40, 84), (60, 45), (50_000, 1)}


def test_a_batch_holds_jobs_of_the_same_columns_alone(folder):
    """A job with luck corrections (or isolated agents) starts a batch and ends one: its rows
    have columns the others lack."""
    manifest = digest.manifest_io.read(folder)
    files = digest.manifest_io.chunk_files(folder, manifest)
    assert len(digest._batches(files, manifest)) == 1
    jobs = [dict(job) for job in manifest["jobs"]]
    jobs[2]["luck"] = "shipped"
    cut = digest._batches(files, {**manifest, "jobs": jobs})
    place = [[digest.manifest_io.chunk_place(p.name)[0] for p in batch] for batch in cut]
    assert [sorted(set(jobs_of)) for jobs_of in place] == [[0, 1], [2], list(range(3, len(jobs)))]


def test_a_digest_of_some_fields_has_those_alone_and_the_same(folder, summed):
    some = digest.of_folder(folder, fields=("sums", "deals"))
    assert some.pairs is None and some.events is None and some.scores is None
    pd.testing.assert_frame_equal(some.sums, summed.sums)
    pd.testing.assert_frame_equal(some.deals, summed.deals)
    with pytest.raises(ValueError, match=r"no such sums: \['deal'\]; choose from sums, deals"):
        digest.of_folder(folder, fields=("sums", "deal"))


def test_a_mirror_study_has_no_head_to_head(tmp_path):
    jobs = mirror("geschenkt", ["greedy", "sniper"], [3, 4], 50, seed=1)
    frame, _, _ = run(jobs, **SERIAL)
    summed = digest.of_frame(frame, False, "geschenkt")
    assert not summed.mixed and summed.pairs is None and summed.events is None
    named = commands.tables(frame, False, "geschenkt")
    assert commands.HEAD_TO_HEAD not in named and commands.SCORES not in named
    scores = named[commands.MIRROR_SCORES]  # each agent's own field at each count, not pooled
    assert list(scores.index) == [("greedy", 3), ("greedy", 4), ("sniper", 3), ("sniper", 4)]
    assert (scores["seats"] == [150, 200, 150, 200]).all()
    sums = summary_of(frame, False, jobs)
    pd.testing.assert_frame_equal(summed.sums, sums, check_dtype=False)


def test_the_report_draws_each_table_it_printed(folder, capsys, monkeypatch):
    drawn, draw = {}, plots.seat_win_share_of

    def spy(table, *args, **kwargs):
        drawn["seats"] = table
        return draw(table, *args, **kwargs)

    monkeypatch.setattr(plots, "seat_win_share_of", spy)
    named = commands.report(folder, progress=False, workers=2)
    assert drawn["seats"] is named[commands.TURNS]  # the seat plot shows the printed intervals
    written = {p.name for p in folder.glob("*.png")}
    assert written == {
        "seat_win_share.png",
        "win_rate_heatmap.png",
        "ratings.png",
        "score_distributions.png",
    }
    heat = plots.heatmap_data(named[commands.HEAD_TO_HEAD])["share"]
    assert (
        heat.loc["hoarder", "random"]
        == named[commands.HEAD_TO_HEAD].loc[("hoarder", "random"), "share"]
    )
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("share", "low", "high", "text"),
    [
        (0.2831, 0.2812, 0.2849, "28.3% [28.1, 28.5]"),
        (0.49051, 0.49012, 0.49089, "49.05% [49.01, 49.09]"),
        (0.0014, 0.0013, 0.0015, "0.14% [0.13, 0.15]"),
    ],
)
def test_percent_shows_an_interval_whose_ends_differ(share, low, high, text):
    assert commands.percent(share, low, high) == text


def test_workers_started_elsewhere_read_a_folder_named_relative_to_the_working_one(
    folder, summed, tmp_path, monkeypatch
):
    """Reused worker processes keep the working folder they started in: a relative name
    given after a change of folder must still reach the same chunks."""
    from joblib import Parallel, delayed

    monkeypatch.chdir(tmp_path)
    started_in = Parallel(n_jobs=2)(delayed(os.getcwd)() for _ in range(4))
    monkeypatch.chdir(folder.parent)
    assert str(folder.parent) not in started_in  # the workers look elsewhere
    again = digest.of_folder(folder.name, workers=2)
    pd.testing.assert_frame_equal(again.sums, summed.sums)
    pd.testing.assert_frame_equal(again.pairs, summed.pairs)


def test_an_empty_share_keeps_nothing_of_its_chunk_alive():
    """A chunk is split into shares by the top bits of the deal; a share that gets no rows
    (here all deals lie in share 0, as rows without deal seeds do) must not hold the chunk
    through a view, or memory would grow with the chunks read."""
    import gc
    import tracemalloc

    rows = 1_000_000
    deal = np.random.default_rng(0).permutation(rows).astype(np.uint64)
    tracemalloc.start()
    frame = pd.DataFrame({"deal": deal, "win_sum": np.ones(rows), "seats": 1})
    try:
        pieces = digest._shares(frame)
        assert [len(p) for p in pieces] == [rows] + [0] * (len(pieces) - 1)
        empty = pieces[1:]
        del pieces, frame
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(empty) == 2**digest.DEAL_BITS - 1
    assert held < 1_000_000, f"{held:,} bytes still held by the empty shares"


def test_rows_with_a_missing_key_are_left_out_of_the_seat_table_as_a_groupby_would():
    deals = pd.DataFrame(
        {
            "deal": np.repeat(np.arange(20, dtype=np.uint64), 2),
            "stratum": 0,
            "agent": ["a", "b"] * 20,
            "n_players": 2,
            "position": [0, 1] * 20,
            "seats": 1,
            "win_sum": [1.0, 0.0] * 20,
            "score_sum": 1.0,
        }
    )
    deals.loc[3, "agent"] = np.nan
    table = stats.deal_seat_advantage(deals, by="agent")
    agents = set(table.index.get_level_values("agent"))
    assert agents == {"a", "b"}
    assert table["games"].sum() == 39

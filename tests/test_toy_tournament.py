"""The toy third game (``tests/toy_game``, registered in ``conftest.py`` by one line) plays
tournaments through the project's own machinery: designs, the runner on the serial and the
process backends, results folders, and the statistics tables."""

import pandas as pd
import pytest

from experiments import digest, stats
from experiments.results import load, long_table
from experiments.runner import run
from experiments.schedule import field_design, join, round_robin

AGENTS = ["random", "steady", "steady:margin=4"]


@pytest.fixture(scope="module")
def jobs():
    return join(
        round_robin("toy", AGENTS, 3, 300, seed=5),
        field_design("toy", "steady", "random", 4, 300, seed=5),
    )


@pytest.fixture(scope="module")
def serial(jobs):
    frame, _, played = run(jobs, backend="serial", chunk_size=200, progress=False)
    assert played == len(jobs) * 300
    return frame


def test_toy_tournament_is_the_same_on_two_processes_and_in_a_folder(jobs, serial, tmp_path):
    run(jobs, out=tmp_path / "toy", backend="processes", workers=2, chunk_size=200, progress=False)
    manifest, frame = load(tmp_path / "toy")
    pd.testing.assert_frame_equal(frame, serial)
    assert manifest["game"] == "toy" and manifest["rules"][0]["min_pile"] == 10
    columns = ["seats", "win_share", "fair"]  # intervals differ: sums keep no deals
    sums = digest.of_folder(tmp_path / "toy", fields=("sums",)).sums
    shares = stats.summary_win_share(sums)[columns]
    expected = stats.win_share(long_table(serial))[columns]
    pd.testing.assert_frame_equal(shares, expected, check_dtype=False)


def test_toy_tournament_tables_count_every_game_once(jobs, serial):
    long = long_table(serial)
    table = stats.win_share(long)
    assert sorted(table.index) == sorted(AGENTS)
    assert (table.seats * table.win_share).sum() == pytest.approx(len(serial))
    assert stats.mean_score(long).loc["steady", "mean"] > 0
    seats = stats.seat_advantage(long[long.n_players == 4])
    assert len(seats) == 4 and seats.win_share.mean() == pytest.approx(0.25)

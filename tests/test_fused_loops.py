"""The measurement aid ``docs/perf/fused_loops.py`` plays the game loop's all-greedy games: the
ratio it reports compares the same work."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from experiments.batch import play

PATH = Path(__file__).resolve().parents[1] / "docs" / "perf" / "fused_loops.py"
spec = importlib.util.spec_from_file_location("fused_loops", PATH)
fused = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fused)


@pytest.mark.parametrize("game, players", [("geschenkt", 3), ("geschenkt", 5), ("tulips", 4)])
def test_the_fused_loop_plays_the_loops_greedy_games(game, players):
    rows = play(game, ["greedy"] * players, 500, seed=1, first_index=20, as_frame=False)
    assert np.array_equal(fused.fused_rows(game, players, 500, 1, 20), rows)

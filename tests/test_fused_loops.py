"""The measurement aid ``docs/perf/fused_loops.py`` plays the game loop's all-greedy games: the
ratio it reports compares the same work."""

import numpy as np
import pytest

from experiments.batch import play
from tests.scripts import ROOT, load_script

fused = load_script(ROOT / "docs" / "perf" / "fused_loops.py", "fused_loops")


@pytest.mark.parametrize("game, players", [("geschenkt", 3), ("geschenkt", 5), ("tulips", 4)])
def test_the_fused_loop_plays_the_loops_greedy_games(game, players):
    rows = play(game, ["greedy"] * players, 500, seed=1, first_index=20, as_frame=False)
    assert np.array_equal(fused.fused_rows(game, players, 500, 1, 20), rows)

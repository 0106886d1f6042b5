"""The measurement aid ``docs/perf/deal_regression.py`` (docs/luck.md, "A cheaper correction"):
its deal features are the deal's, and its cross-fitted regression removes what the features
explain and nothing it could only fit by chance."""

import sys

import numpy as np

from geschenkt_sim.rules import Rules
from tests.scripts import ROOT, load_script

PERF = ROOT / "docs" / "perf"
sys.path.insert(0, str(PERF))  # as ``python docs/perf/deal_regression.py`` has it: its sibling
try:
    aid = load_script(PERF / "deal_regression.py", "deal_regression")
finally:  # the other tests' imports do not look in docs/perf
    sys.path.remove(str(PERF))


def test_the_features_are_each_deals_removed_cards_and_stack():
    rows = aid.deal_rows(50, 7)
    removed, place, faces = rows[:, :33], rows[:, 33:66], rows[:, 66:]
    n_cards = Rules(n_players=4).n_cards
    assert (removed.sum(axis=1) == 33 - n_cards).all()
    for r, p in zip(removed, place, strict=True):
        assert sorted(p[r == 0] * n_cards) == list(range(n_cards))  # each place once
        assert (p[r == 1] == 0).all()
    assert (faces == removed * np.arange(3, 36)).all()
    assert len({tuple(r) for r in rows}) == 50  # every deal its own
    assert np.allclose(aid.deal_features(50, 7).mean(axis=0), 0)


def test_cross_fitting_removes_what_the_features_explain():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4000, 5))
    signal = x @ np.array([1.0, -0.5, 0.2, 0.0, 0.3])
    y = signal + rng.normal(size=4000)
    residual = aid.cross_fitted_residuals(x - x.mean(axis=0), y)
    assert np.isclose(residual.mean(), y.mean(), atol=0.05)  # the same estimand
    assert 0.9 < residual.var() < 1.1  # only the noise is left: a ratio of about 2.3


def test_cross_fitting_does_not_fit_noise():
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(400, 99)), rng.normal(size=400)
    residual = aid.cross_fitted_residuals(x - x.mean(axis=0), y)
    assert residual.var() >= y.var()  # 99 useless features: no gain, however many

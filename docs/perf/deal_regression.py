"""A measurement aid: how much of a No Thanks! field's per-deal variance the deal's visible
make-up explains, as a regression control variate would use it.

Plays a field design (``CANDIDATE`` in every seat of each deal, ``BASELINE`` in the others,
duplicate deals, the first seat rotating, as ``deal_share.py``) and regresses the candidate's
per-deal win share on features of the deal: which of the 33 cards are removed, each card's
place in the stack, and the removed cards' face values. The features have known means under
the deal's distribution, so the residual is a control-variate estimate of the same share; the
fit is cross-fitted (each half of the deals adjusted by the fit on the other half, ridge 1.0)
so that it cannot fit its own noise:

    python docs/perf/deal_regression.py CANDIDATE BASELINE DEALS SEED

Prints the share, the per-deal variance, the residual variance and their ratio (the deals a
regression adjustment would save) with a 95% bootstrap interval over deals (2,000 draws).
"""

import sys
import time

import numpy as np
from deal_share import per_deal_shares  # the aid beside this one (its folder is on the path)

from geschenkt_sim import state as nt
from geschenkt_sim.rules import Rules

PLAYERS, DRAWS, RIDGE = 4, 2000, 1.0
LOW, HIGH = 3, 35  # the cards of the standard game


def deal_rows(deals, seed) -> np.ndarray:
    """Per deal: removed (0/1) and stack place (0 to 1, 0 when removed) of every card, and
    each removed card's face value."""
    rules, state = Rules(n_players=PLAYERS).to_array(), nt.new_state()
    cards = np.arange(LOW, HIGH + 1)
    rows = np.zeros((deals, 3 * cards.size))
    for i in range(deals):
        nt.deal(rules, seed, i, i % PLAYERS, state)
        n = state[nt.N_CARDS]
        removed = (state[nt.REMOVED] >> cards) & 1
        place = np.zeros(cards.size)
        place[state[nt.DECK : nt.DECK + n] - LOW] = np.arange(n) / n
        rows[i] = np.concatenate([removed, place, removed * cards])
    return rows


def deal_features(deals, seed) -> np.ndarray:
    """:func:`deal_rows`, centred."""
    rows = deal_rows(deals, seed)
    return rows - rows.mean(axis=0)


def cross_fitted_residuals(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``y`` less its ridge fit on ``x``, each half of the rows fitted on the other half."""
    half = y.size // 2
    out = np.empty_like(y)
    for fit, apply in (
        (slice(half, None), slice(None, half)),
        (slice(None, half), slice(half, None)),
    ):
        a, b = x[fit], y[fit] - y[fit].mean()
        w = np.linalg.solve(a.T @ a + RIDGE * np.eye(a.shape[1]), a.T @ b)
        out[apply] = y[apply] - x[apply] @ w
    return out


def main(candidate, baseline, deals, seed) -> None:
    start = time.process_time()
    y = per_deal_shares("geschenkt", candidate, baseline, PLAYERS, deals, seed, secret=None)
    residual = cross_fitted_residuals(deal_features(deals, seed), y)
    draws = np.random.default_rng(0).integers(0, deals, (DRAWS, deals))
    ratios = [y[i].var() / residual[i].var() for i in draws]
    low, high = np.percentile(ratios, [2.5, 97.5])
    print(f"geschenkt: {candidate} vs {PLAYERS - 1} x {baseline}, {deals} deals (seed {seed})")
    print(f"win share {y.mean():.4f}, adjusted {residual.mean():.4f}")
    print(f"per-deal variance {y.var():.5f}, after the regression {residual.var():.5f}")
    print(f"variance ratio {y.var() / residual.var():.3f} [{low:.3f}, {high:.3f}]")
    print(f"CPU {time.process_time() - start:.1f} s")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        print("usage:", __doc__.split("\n\n")[2].strip(), file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1], sys.argv[2], *(int(a) for a in sys.argv[3:5]))

"""A measurement aid: how much of a field's per-deal variance the deal itself holds.

Plays a field design (``CANDIDATE`` in every seat of each deal, ``BASELINE`` in the others,
duplicate deals, the first seat rotating) twice over the same deals, with two agent secrets
(the agents' own random streams, ``giftsim.rng.agent_stream``), and compares the candidate's
per-deal win share between the two replays:

    python docs/perf/deal_share.py GAME CANDIDATE BASELINE PLAYERS DEALS SEED

``rho`` is the covariance of the two replays' per-deal shares over their variance: the share
of the per-deal variance that the cards explain, the rest coming from the agents' own random
choices (a deterministic pair gives 1). It is not a bound on the luck estimator (a chance
correction may also follow how the agents' choices meet the cards), but it says where the
variance of a pair lies. Its 95% interval is a bootstrap over deals (2,000 draws).
"""

import sys
import time

import numpy as np

from experiments.batch import play

DRAWS = 2000


def per_deal_shares(game, candidate, baseline, players, deals, seed, secret) -> np.ndarray:
    """The candidate's win share on each deal, averaged over its seats."""
    shares = []
    for seat in range(players):
        agents = [baseline] * players
        agents[seat] = candidate
        frame = play(game, agents, deals, seed=seed, secret=secret, first_player="rotate")
        shares.append(frame[f"win_{seat}"].to_numpy())
    return np.mean(shares, axis=0)


def rho(first: np.ndarray, second: np.ndarray) -> float:
    variance = 0.5 * (first.var(ddof=1) + second.var(ddof=1))
    return float(np.cov(first, second)[0, 1] / variance)


def main(game, candidate, baseline, players, deals, seed) -> None:
    start = time.process_time()
    first, second = (
        per_deal_shares(game, candidate, baseline, players, deals, seed, secret)
        for secret in (1, 2)
    )
    draws = np.random.default_rng(0).integers(0, deals, (DRAWS, deals))
    low, high = np.percentile([rho(first[i], second[i]) for i in draws], [2.5, 97.5])
    print(f"{game}: {candidate} vs {players - 1} x {baseline}, {deals} deals (seed {seed})")
    print(f"win share {first.mean():.4f} and {second.mean():.4f} (agent secrets 1 and 2)")
    variance = 0.5 * (first.var(ddof=1) + second.var(ddof=1))
    share = 0.5 * (first.mean() + second.mean())
    independent = share * (1 - share) / players
    print(f"per-deal variance {variance:.4f} ({players} independent games: {independent:.4f})")
    print(f"rho {rho(first, second):.3f} [{low:.3f}, {high:.3f}]")
    print(f"CPU {time.process_time() - start:.1f} s")


if __name__ == "__main__":
    if len(sys.argv) != 7:
        print("usage:", __doc__.split("\n\n")[2].strip(), file=sys.stderr)
        sys.exit(2)
    game, candidate, baseline = sys.argv[1:4]
    main(game, candidate, baseline, *(int(a) for a in sys.argv[4:7]))

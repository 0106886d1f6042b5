"""What ``giftsim train`` fits its network to: each recorded decision's target, from the
outcome of its game (the share of the win, blended with the score lead) or, with TD(lambda),
from the network's own values of the same seat's later decisions."""

from itertools import pairwise

import numpy as np

from experiments.batch import win_shares
from giftsim.game import TAIL


def targets(game, rows: np.ndarray, players: int, margin: float, scale: float) -> np.ndarray:
    """Each seat's training target per game: its share of the win, blended (weight
    ``margin``) with the logistic of its score lead over the best other seat in units of
    ``scale`` points (a smoother signal of the same thing: who is ahead, and by how much)."""
    shares = win_shares(rows[:, -len(TAIL) + TAIL.index("winners")], players)
    if margin == 0.0:
        return shares
    score = rows[:, :players].astype(np.float64) * (-1.0 if game.lower_wins else 1.0)
    others = np.stack([np.delete(score, s, axis=1).max(axis=1) for s in range(players)], 1)
    lead = 1.0 / (1.0 + np.exp(-(score - others) / scale))
    return (1.0 - margin) * shares + margin * lead


def successors(owners: np.ndarray) -> np.ndarray:
    """Per recorded decision (``owners`` rows: game, seat, decision number), the row of the
    same seat's next recorded decision in the same game, or -1 after its last."""
    game, seat, stage = owners[:, 0], owners[:, 1], owners[:, 2]
    order = np.lexsort((stage, seat, game))
    same = (game[order[1:]] == game[order[:-1]]) & (seat[order[1:]] == seat[order[:-1]])
    after = np.full(len(owners), -1, np.int64)
    after[order[:-1][same]] = order[1:][same]
    return after


def lambda_returns(outcomes, values, after, lam: float) -> np.ndarray:
    """TD(lambda) targets: ``G = outcome`` after a seat's last decision, else
    ``(1 - lam) * values[next] + lam * G[next]`` (``after``: each row's next, -1 for none).
    Computed from the last decisions back, one step of every chain at a time."""
    g = outcomes.astype(np.float64).copy()
    if len(after) == 0:
        return g.astype(np.float32)
    steps = _steps_to_end(after)
    order = np.argsort(steps, kind="stable")
    bounds = np.searchsorted(steps[order], np.arange(1, steps.max() + 2))
    for lo, hi in pairwise(bounds):
        rows = order[lo:hi]
        nxt = after[rows]
        g[rows] = (1.0 - lam) * values[nxt] + lam * g[nxt]
    return g.astype(np.float32)


def _steps_to_end(after: np.ndarray) -> np.ndarray:
    """How many decisions of the same seat follow each row (0 for its last)."""
    steps = np.zeros(len(after), np.int64)
    live = np.flatnonzero(after >= 0)
    hop = after.copy()
    while live.size:
        steps[live] += 1
        hop[live] = after[hop[live]]
        live = live[hop[live] >= 0]
    return steps

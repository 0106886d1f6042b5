"""No Thanks! scoring: each card that does not follow another card of the hand, minus chips."""

import numpy as np
from numba import njit

from geschenkt_sim.state import CHIPS, FIRST, HANDS, N_DECISIONS, N_PLAYERS
from giftsim.bits import popcount, share_out

# INDEX_BITS[k] has bit i set iff bit k of the number i is set: the sum of the positions of a
# mask's set bits is then sum(2**k * popcount(mask & INDEX_BITS[k])), with no loop over bits.
INDEX_BITS = np.array(
    [sum(1 << i for i in range(64) if (i >> k) & 1) for k in range(6)], dtype=np.uint64
)


def score_range(rules) -> tuple[int, int]:
    """The lowest and highest score one seat can have in a game under ``rules``: every chip of
    the game and no card; no chip and every card played, each heading a run of its own (the
    highest ``n_cards`` cards of the range that may be played)."""
    forced = set(rules.forced_removed)
    cards = [c for c in range(rules.lowest_card, rules.highest_card + 1) if c not in forced]
    return -rules.n_players * rules.chips, sum(sorted(cards)[len(cards) - rules.n_cards :])


@njit(cache=True)
def card_points(hand):
    """Points of a hand bit mask: the sum of the lowest card of every run."""
    heads = np.uint64(hand & ~(hand << 1))
    total = 0
    for k in range(6):
        total += popcount(heads & INDEX_BITS[k]) << k
    return total


@njit(cache=True)
def score_hand(hand, chips):
    """Final score of one seat: card points minus chips (lower is better)."""
    return card_points(hand) - chips


@njit(cache=True)
def scores(state, out):
    """Write every seat's final score into ``out[:n_players]``."""
    for p in range(state[N_PLAYERS]):
        out[p] = score_hand(state[HANDS + p], state[CHIPS + p])


@njit(cache=True)
def _keep_lowest(best, mask, seat, score):
    """Fold one seat's score into ``(best, winners' mask)``: the lowest score wins, tied lowest
    scorers all win (the one statement of the win rule)."""
    if score < best:
        return score, np.int64(1) << seat
    if score == best:
        return best, mask | (np.int64(1) << seat)
    return best, mask


@njit(cache=True)
def winner_mask(state):
    """Bit mask of the seats that win a finished game."""
    best, mask = np.int64(1) << 40, np.int64(0)
    for p in range(state[N_PLAYERS]):
        best, mask = _keep_lowest(best, mask, p, score_hand(state[HANDS + p], state[CHIPS + p]))
    return mask


@njit(cache=True)
def lowest_mask(totals):
    """Bit mask of the seats that win on ``totals`` (a match's summed scores)."""
    best, mask = np.int64(1) << 40, np.int64(0)
    for p in range(totals.shape[0]):
        best, mask = _keep_lowest(best, mask, p, totals[p])
    return mask


@njit(cache=True)
def rewards(state, out):
    """Each seat's share of the win into ``out[:n]``: ties split, the shares sum to 1."""
    share_out(winner_mask(state), state[N_PLAYERS], out)


@njit(cache=True)
def result_row(state, n, rounds, r, out, g):
    """Add round ``r`` of ``rounds`` (a finished game) to row ``g``: the total scores per seat,
    the first seat of round 0, the decisions, the winners' mask on the totals, then (``rounds >
    1``) each round's scores per seat. A single game (``rounds`` 1) is the game's own row."""
    if r == 0:
        for column in range(n + 2):  # indexed in place: a row view per game costs more
            out[g, column] = 0
        out[g, n] = state[FIRST]
    for p in range(n):
        score = score_hand(state[HANDS + p], state[CHIPS + p])
        out[g, p] += score
        if rounds > 1:
            out[g, n + 3 + r * n + p] = score
    out[g, n + 1] += state[N_DECISIONS]
    best, mask = np.int64(1) << 40, np.int64(0)
    for p in range(n):
        best, mask = _keep_lowest(best, mask, p, out[g, p])
    out[g, n + 2] = mask


@njit(cache=True)
def take_delta(hand, card):
    """Change of a hand's card points if ``card`` joins it (O(1), no rescoring)."""
    below = (hand >> (card - 1)) & 1
    above = (hand >> (card + 1)) & 1
    if below:
        return -(card + 1) if above else 0
    return -1 if above else card


def finish_key(blocks: np.ndarray) -> np.ndarray:
    """Each seat's place key in the finishing order from its result blocks (``score``), higher
    finishing better: the negated score. Equal keys are ties (for the win too: ``winner_mask``)."""
    return -blocks[:, 0]

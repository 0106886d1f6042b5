"""A plain-Python twin of the exact solver (``geschenkt_sim/solve.py``), written from the rules
(``docs/rules/no_thanks.md``) with exact fractions and memoised recursion over whole public
states. It shares no code or tables with the solver: only the rules.

States are ``(hands, chips, seat)`` before a card turns up (``hands`` a tuple of frozensets of
card numbers) and ``(hands, chips, card, pot, seat)`` at a decision. Every value is a tuple of
each seat's expected share of the win (ties split).
"""

from fractions import Fraction

import numpy as np


def memoised(fn):
    """``fn`` with its results kept in ``.memo`` (arguments -> result), for tests to read."""

    def wrapper(*args):
        if args not in wrapper.memo:
            wrapper.memo[args] = fn(*args)
        return wrapper.memo[args]

    wrapper.memo = {}
    return wrapper


def points(hand) -> int:
    """Card points: each card that does not follow another card of the hand."""
    return sum(c for c in hand if c - 1 not in hand)


class Twin:
    """No Thanks! with ``n`` seats, cards ``lowest .. highest``, ``removed`` of them out of play
    and ``chips`` each, played from the seat ``first``."""

    def __init__(self, n, lowest, highest, removed, chips):
        self.n, self.cards, self.chips = n, tuple(range(lowest, highest + 1)), chips
        self.played = len(self.cards) - removed
        self.lowest, self.highest, self.removed = lowest, highest, removed
        self.subgame = memoised(self._subgame)
        self.after = memoised(self._after)

    def start(self, first=0):
        return (frozenset(),) * self.n, (self.chips,) * self.n, first

    def result(self, hands, chips):
        scores = [points(h) - c for h, c in zip(hands, chips, strict=True)]
        best = min(scores)
        winners = scores.count(best)
        return tuple(Fraction(1, winners) if s == best else Fraction(0) for s in scores)

    def unseen(self, hands):
        taken = set().union(*hands)
        return [c for c in self.cards if c not in taken]

    def _after(self, hands, chips, seat):
        """Shares before the next card turns up, the seat ``seat`` to act on it."""
        if sum(len(h) for h in hands) == self.played:
            return self.result(hands, chips)
        cards = self.unseen(hands)
        total = [Fraction(0)] * self.n
        for card in cards:
            for p, share in enumerate(self.subgame(hands, chips, card, 0, seat)):
                total[p] += share
        return tuple(t / len(cards) for t in total)

    def took(self, hands, chips, card, pot, seat):
        hands = tuple(h | {card} if p == seat else h for p, h in enumerate(hands))
        chips = tuple(c + pot if p == seat else c for p, c in enumerate(chips))
        return hands, chips, seat

    def passed(self, hands, chips, card, pot, seat):
        chips = tuple(c - 1 if p == seat else c for p, c in enumerate(chips))
        return hands, chips, card, pot + 1, (seat + 1) % self.n

    def choice(self, hands, chips, card, pot, seat):
        """The subgame-perfect action (``"take"``/``"pass"``) and the shares it leads to: the
        seat takes when taking is worth at least as much to it as passing."""
        take = self.after(*self.took(hands, chips, card, pot, seat))
        if chips[seat] == 0:
            return "take", take
        keep = self.subgame(*self.passed(hands, chips, card, pot, seat))
        return ("take", take) if take[seat] >= keep[seat] else ("pass", keep)

    def _subgame(self, hands, chips, card, pot, seat):
        return self.choice(hands, chips, card, pot, seat)[1]

    def decisions(self, first=0):
        """Every decision state reached from the start under any play: ``(hands, chips, card,
        pot, seat)``."""
        seen, todo = set(), [self.start(first)]
        found = []
        while todo:
            hands, chips, seat = todo.pop()
            if sum(len(h) for h in hands) == self.played:
                continue
            for card in self.unseen(hands):
                pot, now = 0, chips
                while True:
                    state = (hands, now, card, pot, seat_at(seat, pot, self.n))
                    if state in seen:
                        break
                    seen.add(state)
                    found.append(state)
                    nxt = self.took(*state)
                    todo.append(nxt)
                    if now[state[4]] == 0:
                        break
                    now = self.passed(*state)[1]
                    pot += 1
        return found


def seat_at(first, pot, n):
    return (first + pot) % n


class Response:
    """Best response of seat ``me`` to a policy in every other seat, and the policy's own
    shares in every seat: ``policy(hands, chips, card, pot, seat)`` is the probability of a
    take (asked only when the seat has a chip)."""

    def __init__(self, twin, policy, me):
        self.twin, self.policy, self.me = twin, policy, me
        self.best = memoised(self._best)
        self.best_chain = memoised(self._best_chain)
        self.own = memoised(self._own)
        self.own_chain = memoised(self._own_chain)

    def _mean(self, hands, chips, seat, chain, pick):
        t = self.twin
        if sum(len(h) for h in hands) == t.played:
            return pick(t.result(hands, chips))
        cards = t.unseen(hands)
        return sum(chain(hands, chips, c, 0, seat) for c in cards) / len(cards)

    def _best(self, hands, chips, seat):
        return self._mean(hands, chips, seat, self.best_chain, lambda r: r[self.me])

    def _best_chain(self, hands, chips, card, pot, seat):
        t = self.twin
        take = self.best(*t.took(hands, chips, card, pot, seat))
        if chips[seat] == 0:
            return take
        keep = self.best_chain(*t.passed(hands, chips, card, pot, seat))
        if seat == self.me:
            return max(take, keep)
        p = self.policy(hands, chips, card, pot, seat)
        return p * take + (1 - p) * keep

    def best_action(self, hands, chips, card, pot, seat):
        """The responder's action: take iff it is worth at least passing."""
        t = self.twin
        if chips[seat] == 0:
            return "take"
        take = self.best(*t.took(hands, chips, card, pot, seat))
        keep = self.best_chain(*t.passed(hands, chips, card, pot, seat))
        return "take" if take >= keep else "pass"

    def decisions(self, first=0):
        """The responder's decisions reached from the start when the others follow the
        policy (every action it plays with a positive probability) and the responder may do
        anything: ``(hands, chips, card, pot, seat)``."""
        t, found, seen, todo = self.twin, [], set(), [self.twin.start(first)]
        while todo:
            hands, chips, seat = todo.pop()
            if (hands, chips, seat) in seen or sum(map(len, hands)) == t.played:
                continue
            seen.add((hands, chips, seat))
            for card in t.unseen(hands):
                state = (hands, chips, card, 0, seat)
                while state is not None:
                    state = self._step(state, found, todo)
        return found

    def _step(self, state, found, todo):
        """Record ``state`` if the responder acts; queue the take if it may happen; return the
        state after a pass if that may happen (else None)."""
        t = self.twin
        chips, seat = state[1], state[4]
        p = Fraction(1) if chips[seat] == 0 else None
        if seat == self.me and chips[seat] > 0:
            found.append(state)
        elif p is None:
            p = self.policy(*state)
        if p is None or p > 0:
            todo.append(t.took(*state))
        if chips[seat] > 0 and (p is None or p < 1):
            return t.passed(*state)
        return None

    def _own(self, hands, chips, seat):
        return self._mean(hands, chips, seat, self.own_chain, lambda r: np.array(r, object))

    def _own_chain(self, hands, chips, card, pot, seat):
        t = self.twin
        take = self.own(*t.took(hands, chips, card, pot, seat))
        if chips[seat] == 0:
            return take
        keep = self.own_chain(*t.passed(hands, chips, card, pot, seat))
        p = self.policy(hands, chips, card, pot, seat)
        return p * take + (1 - p) * keep

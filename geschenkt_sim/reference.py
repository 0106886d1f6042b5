"""Plain-Python reference implementation ("slow twin") of No Thanks! for differential testing.

Written from the rules of record (``docs/rules/no_thanks.md``) alone, independently of the
compiled engine: it imports only :class:`~geschenkt_sim.rules.Rules` and the action constants.
Clarity over speed; no numpy.

The caller deals: it hands over the played cards in the order they are turned up (``deck``),
the removed cards and the seat that acts first.
"""

from geschenkt_sim.rules import PASS, TAKE, Rules


def score_hand(cards, chips) -> int:
    """Score of one hand (rules §3.1): cards not following another card of the hand, minus chips.

    ``sum(c for c in hand if c - 1 not in hand) - chips``; lower is better.
    """
    hand = set(cards)
    return sum(c for c in hand if c - 1 not in hand) - chips


def winners(scores) -> list[int]:
    """All seats with the lowest score (ties are all winners, rules §3.3), in seat order."""
    scores = list(scores)
    if not scores:
        return []
    best = min(scores)
    return [seat for seat, score in enumerate(scores) if score == best]


def _check_deal(rules: Rules, deck: list[int], removed: list[int], first_player: int) -> None:
    """Raise ValueError unless ``deck`` and ``removed`` split the card range as ``rules`` says."""
    full = list(range(rules.lowest_card, rules.highest_card + 1))
    if sorted(deck + removed) != full:
        raise ValueError("deck and removed must together hold each card of the range exactly once")
    if len(removed) != rules.n_removed:
        raise ValueError(f"expected {rules.n_removed} removed cards, got {len(removed)}")
    missing = [c for c in rules.forced_removed if c not in removed]
    if missing:
        raise ValueError(f"cards {missing} must be among the removed cards in this variant")
    if isinstance(first_player, bool) or not isinstance(first_player, int):
        raise ValueError(f"first_player must be a seat number, got {first_player!r}")
    if not 0 <= first_player < rules.n_players:
        raise ValueError(f"first_player must be in 0..{rules.n_players - 1}, got {first_player}")


class ReferenceGame:
    """One game of No Thanks!, played one decision (PASS or TAKE) at a time."""

    def __init__(self, rules, deck, removed, first_player):
        """Set up a dealt game.

        rules: :class:`geschenkt_sim.rules.Rules` (``n_players``, ``chips`` = resolved chips per
        player, ``chips_visible``). deck: the played cards in the order they are turned up.
        removed: the removed cards. first_player: seat that acts first.
        """
        deck = [int(c) for c in deck]
        removed = [int(c) for c in removed]
        _check_deal(rules, deck, removed, first_player)
        self.rules = rules
        self.n_players = rules.n_players
        self.removed = sorted(removed)
        # The face-down stack; stack[0] is the face-up card while the game runs.
        self.stack = deck
        self.chips = [rules.chips] * self.n_players
        self.hands = [[] for _ in range(self.n_players)]
        self.pot = 0
        self.player = first_player
        self.n_decisions = 0

    # ----------------------------------------------------------------- queries

    def is_over(self) -> bool:
        """True once the last card of the deck has been taken."""
        return not self.stack

    def current_player(self) -> int:
        """Seat that must decide now, or -1 when the game is over."""
        return -1 if self.is_over() else self.player

    def face_up_card(self) -> int:
        """The card being offered, or -1 when the game is over."""
        return -1 if self.is_over() else self.stack[0]

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids: TAKE always, PASS only with a chip to spend; [] when over."""
        if self.is_over():
            return []
        if self.chips[self.player] > 0:
            return sorted([PASS, TAKE])
        return [TAKE]

    # ----------------------------------------------------------------- moves

    def apply(self, action: int) -> None:
        """Play ``action`` for the current player; ValueError if it is not legal now."""
        if action not in self.legal_actions():
            raise ValueError(
                f"illegal action {action!r}; legal now: {self.legal_actions()}"
                + (" (game over)" if self.is_over() else "")
            )
        if action == PASS:
            self._pass()
        else:
            self._take()
        self.n_decisions += 1

    def _pass(self) -> None:
        """Put one of the active player's chips on the card; the turn goes to the left."""
        self.chips[self.player] -= 1
        self.pot += 1
        self.player = (self.player + 1) % self.n_players

    def _take(self) -> None:
        """Take the card and its chips, turn up the next card; the same player decides again."""
        card = self.stack.pop(0)
        self.hands[self.player].append(card)
        self.hands[self.player].sort()
        self.chips[self.player] += self.pot
        self.pot = 0

    # ----------------------------------------------------------------- views

    def unseen(self) -> list[int]:
        """Cards of the range that are neither in a hand nor face up (rest of stack + removed)."""
        seen = {c for hand in self.hands for c in hand}
        if not self.is_over():
            seen.add(self.stack[0])
        full = range(self.rules.lowest_card, self.rules.highest_card + 1)
        return [c for c in full if c not in seen]

    def observation(self, seat) -> dict:
        """What ``seat`` may know: the public state, opponents' chips hidden if the rules say so."""
        if not 0 <= seat < self.n_players:
            raise ValueError(f"seat must be in 0..{self.n_players - 1}, got {seat}")
        if self.rules.chips_visible:
            chips = list(self.chips)
        else:
            chips = [n if s == seat else -1 for s, n in enumerate(self.chips)]
        return {
            "seat": seat,
            "n_players": self.n_players,
            "current_player": self.current_player(),
            "card": self.face_up_card(),
            "pot": self.pot,
            "cards_left": max(len(self.stack) - 1, 0),
            "chips": chips,
            "hands": [sorted(hand) for hand in self.hands],
            "unseen": self.unseen(),
            "n_decisions": self.n_decisions,
        }

    def scores(self) -> list[int]:
        """Each seat's score from its current hand and chips (final once the game is over)."""
        return [score_hand(hand, n) for hand, n in zip(self.hands, self.chips, strict=True)]

    def winners(self) -> list[int]:
        """All seats with the lowest score."""
        return winners(self.scores())


def turn_up_weights(rules: Rules, hands) -> dict[int, int]:
    """The chances of the next card turned face up, as weights (rules §2: the deck is shuffled,
    some cards are removed unseen, the top card is turned up): any card of the range that is in
    no hand is equally likely, the removed ones included since nobody has seen them, except the
    cards the rules always remove. ``hands``: each seat's cards taken so far."""
    taken = {c for hand in hands for c in hand}
    always = set(rules.forced_removed)
    cards = range(rules.lowest_card, rules.highest_card + 1)
    return {c: 1 for c in cards if c not in taken and c not in always}


def match_scores(round_scores) -> list[int]:
    """Scores of a match of several rounds (the rulebook's longer game): each seat's round
    scores added up; the lowest total wins (:func:`winners`)."""
    rounds = [list(scores) for scores in round_scores]
    return [sum(scores[seat] for scores in rounds) for seat in range(len(rounds[0]))]

"""Plain-Python reference implementation ("slow twin") of Gift of Tulips.

Written from the rules of record (``docs/rules/gift_of_tulips.md``) alone, independently of the
compiled engine, so that the two can be tested against each other. Clarity over speed: plain
lists and tuples.

A twin that cannot share a bug with the engine: it takes from :mod:`tulips_sim.rules` only the
action ids and the option values a user set on a ``Rules`` object (its raw fields). Every table
of record (deck make-up, removal counts, giving, keeping and majority points, majorities paid)
is typed again below, and every default (``None`` field) is resolved here, not by ``Rules``.
It deals for itself from the recorded draws: the removed cards, the seeding draws (it applies
the seeding rule of §3.5 to them), the dealt pairs and the draw pile.

Conventions
-----------
* A card is a tuple ``(variety, value)``: variety 0..3 (purple, blue, pink, orange), value 2..4.
* Action ids are those of :mod:`tulips_sim.rules` (``KEEP``, ``FESTIVAL``, ``SECRET``,
  ``GIVE + seat``, ``SETUP_FIRST``, ``SETUP_SECOND``).
* Rank of a variety: 1..k by its position in the festival order, 4 if it is not in the festival.
* Counts tables (bouquets, own secret cards) are 4x3 nested lists: ``counts[variety][value - 2]``.

Randomness is left to the caller: the deal (see :class:`Deal`), the first player and the keys
that choose which secret-festival cards are revealed are all inputs.
"""

import operator
from collections import Counter
from dataclasses import dataclass

from tulips_sim.rules import (
    FESTIVAL,
    GIVE,
    KEEP,
    SECRET,
    SETUP_FIRST,
    SETUP_SECOND,
)

PHASE_SETUP = "setup"
PHASE_FIRST = "first"
PHASE_SECOND = "second"
PHASE_OVER = "over"

KIND_KEEP = "keep"
KIND_GIVE = "give"
KIND_ADD = "add"

N_VARIETIES = 4
VALUES = (2, 3, 4)
MIN_VALUE = 2
UNRANKED = 4  # a variety not in the festival counts as 4th
SCORED_RANKS = 3  # ranks 1..3 pay majorities; rank 4 (or unranked) pays nothing

# The tables of record, typed from the rules file (not imported from tulips_sim.rules).
BASE_COPIES_OF_RECORD = 6  # copies of each (variety, value) among the 72 base cards (§10-U1)
EXTRA_COPIES_OF_RECORD = 2  # copies of each (variety, value) among the 24 cards marked 5/6
REMOVED_OF_RECORD = {2: 18, 3: 4, 4: 6, 5: 14, 6: 10}  # §3.2
GIVING_OF_RECORD = (3, 2, 1, 0)  # bonus by rank 1st, 2nd, 3rd, 4th or unranked (§2.1)
KEEPING_OF_RECORD = (0, 0, 1, 2)  # keeping points by the same ranks
_TWO = ((15, 0, 0), (10, 0, 0), (5, 0, 0), (0, 0, 0))  # §2.2, [rank][majority]
_THREE_FOUR = ((15, 10, 0), (10, 7, 0), (5, 3, 0), (0, 0, 0))
_FIVE_SIX = ((15, 10, 5), (10, 7, 4), (5, 3, 1), (0, 0, 0))
MAJORITY_OF_RECORD = {2: _TWO, 3: _THREE_FOUR, 4: _THREE_FOUR, 5: _FIVE_SIX, 6: _FIVE_SIX}
MAJORITIES_PAID = {2: 1, 3: 2, 4: 2, 5: 3, 6: 3}  # 1st only / 1st-2nd / 1st-3rd majority


# ----------------------------------------------------------------------------------------------
# The tables in force, and dealing from the recorded draws
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tables:
    """The numbers a game is played with: the tables of record unless the rules set one."""

    deck: dict  # (variety, value) -> copies in the deck used
    removed: int
    giving: tuple
    keeping: tuple
    majority: tuple  # [rank 1..4][majority 1..3]
    paid: int  # majorities paid per variety


def tables_for(rules) -> Tables:
    """Resolve ``rules``' raw option fields against the tables of record."""
    n = rules.n_players
    return Tables(
        deck=_deck_counts(rules.base_copies, rules.extra_copies, n),
        removed=REMOVED_OF_RECORD[n] if rules.n_removed is None else rules.n_removed,
        giving=GIVING_OF_RECORD if rules.giving_bonus is None else tuple(rules.giving_bonus),
        keeping=KEEPING_OF_RECORD if rules.keeping_points is None else tuple(rules.keeping_points),
        majority=MAJORITY_OF_RECORD[n] if rules.majority_points is None else rules.majority_points,
        paid=MAJORITIES_PAID[n],
    )


def _deck_counts(base, extra, n_players: int) -> dict:
    """Copies per (variety, value): the base cards, plus the 5/6 cards from 5 players on."""
    counts = {}
    for variety in range(N_VARIETIES):
        for i, value in enumerate(VALUES):
            copies = _copies(base, BASE_COPIES_OF_RECORD, variety, i)
            if n_players >= 5:
                copies += _copies(extra, EXTRA_COPIES_OF_RECORD, variety, i)
            counts[(variety, value)] = copies
    return counts


def _copies(table, of_record: int, variety: int, i: int) -> int:
    """One entry of a make-up table given per value (all varieties alike) or per variety."""
    if table is None:
        return of_record
    row = table[variety] if isinstance(table[0], list | tuple) else table
    return int(row[i])


@dataclass(frozen=True)
class Deal:
    """What the shuffle produced, as recorded: every input of a game but the players' choices.

    removed: the cards removed unseen. seeding: the cards turned up to seed the festival, in
    order (the first, any of its variety that went back into the deck, the second). dealt: one
    pair per seat. deck: the draw pile after the deal, top first, to its last card (the
    returned seeding cards are in it). first_player: the seat taking the first turn.
    reveal_keys: see :class:`ReferenceGame`. start_order: only for ``seeding_tie="random"``
    with equal seeding values, the order the coin gave (1st, 2nd).
    """

    removed: list
    seeding: list
    dealt: list
    deck: list
    first_player: int
    reveal_keys: list
    start_order: tuple | None = None


def seed_festival(seeding: list, seeding_tie: str = "first_drawn", start_order=None) -> tuple:
    """The festival's 1st and 2nd cards from the seeding draws (§3.5): the first card drawn and
    the first of another variety; the higher value goes 1st, on equal values the first drawn."""
    first, second = tuple(seeding[0]), tuple(seeding[-1])
    if len(seeding) < 2 or any(card[0] != first[0] for card in seeding[:-1]):
        raise ValueError("seeding: a first card, cards of its variety, then another variety")
    if second[0] == first[0]:
        raise ValueError("seeding: the last card drawn must be of another variety")
    if first[1] != second[1]:
        return (first, second) if first[1] > second[1] else (second, first)
    if seeding_tie == "random":
        if start_order is None or sorted(start_order) != sorted([first, second]):
            raise ValueError("a random seeding tie needs the order the coin gave")
        return tuple(tuple(c) for c in start_order)
    return first, second


def _check_deal(tables: Tables, n_players: int, deal: Deal) -> None:
    """Raise ValueError unless the deal uses exactly the deck of ``tables``."""
    counts = dict.fromkeys(tables.deck, 0)
    kept = [deal.seeding[0], deal.seeding[-1]]  # the others went back into the deck
    cards = [*deal.removed, *kept, *[c for pair in deal.dealt for c in pair], *deal.deck]
    for card in cards:
        counts[tuple(card)] += 1
    if counts != tables.deck:
        raise ValueError("removed, seeding, dealt and deck do not make up the deck of the rules")
    if len(deal.removed) != tables.removed:
        raise ValueError(f"expected {tables.removed} removed cards, got {len(deal.removed)}")
    if len(deal.dealt) != n_players or any(len(pair) != 2 for pair in deal.dealt):
        raise ValueError("dealt must hold one pair of cards per seat")


# ----------------------------------------------------------------------------------------------
# Festival helpers
# ----------------------------------------------------------------------------------------------


def add_faceup(order: list[int], totals: list[int], variety: int, value: int) -> None:
    """Add a face-up card to the festival in place (rules §4.2).

    The variety's total grows by ``value``; the variety then goes before the first stack whose
    total is equal to or lower than its new total, so the card just played wins ties.
    """
    totals[variety] += value
    if variety in order:
        order.remove(variety)
    position = len(order)
    for index, other in enumerate(order):
        if totals[other] <= totals[variety]:
            position = index
            break
    order.insert(position, variety)


def rank_of(order: list[int], variety: int) -> int:
    """Rank 1..k of ``variety`` in the festival ``order``, or 4 if it is not in the festival."""
    if variety in order:
        return order.index(variety) + 1
    return UNRANKED


def empty_counts() -> list[list[int]]:
    """A fresh 4x3 table of card counts (``[variety][value - 2]``), all zero."""
    return [[0] * len(VALUES) for _ in range(N_VARIETIES)]


def add_to_counts(counts: list[list[int]], card: tuple[int, int]) -> None:
    """Count one more ``card`` in a 4x3 counts table."""
    variety, value = card
    counts[variety][value - MIN_VALUE] += 1


def action_kind(action: int) -> str:
    """Kind of a turn action: keep, give or add (festival and secret are both add)."""
    if action == KEEP:
        return KIND_KEEP
    if action in (FESTIVAL, SECRET):
        return KIND_ADD
    return KIND_GIVE


# ----------------------------------------------------------------------------------------------
# Majority scoring
# ----------------------------------------------------------------------------------------------


def variety_strength(counts: list[list[int]], variety: int) -> tuple[int, int]:
    """(number of cards, total value) of ``variety`` in a 4x3 counts table."""
    row = counts[variety]
    n_cards = sum(row)
    value = sum(n * (MIN_VALUE + i) for i, n in enumerate(row))
    return n_cards, value


def tie_groups(rules, bouquets: list, variety: int) -> list[list[int]]:
    """Seats competing for ``variety``'s majorities, grouped by equal (count, value), best first.

    Seats with no card of the variety compete only if ``rules.zero_cards_majority``.
    """
    by_strength: dict[tuple[int, int], list[int]] = {}
    for seat, counts in enumerate(bouquets):
        strength = variety_strength(counts, variety)
        if strength[0] == 0 and not rules.zero_cards_majority:
            continue
        by_strength.setdefault(strength, []).append(seat)
    return [by_strength[key] for key in sorted(by_strength, reverse=True)]


def group_slots(rules, groups: list[list[int]]) -> list[int]:
    """Majority slot (1-based) of each tie group under ``rules.majority_ties``.

    Dense (§7.4 default): the next group takes the next slot. Competition: tied seats use up
    the slots, so a group's slot is one more than the number of seats ahead of it.
    """
    slots = []
    seats_ahead = 0
    for index, group in enumerate(groups):
        if rules.majority_ties == "dense":
            slots.append(index + 1)
        else:
            slots.append(seats_ahead + 1)
        seats_ahead += len(group)
    return slots


def majority_scores(rules, bouquets: list, order: list[int]) -> list[int]:
    """Festival majority points per seat (rules §7).

    ``bouquets`` is a list per seat of 4x3 counts tables; ``order`` the final festival order.
    Only the varieties in ranks 1..3 that are actually occupied are scored.
    """
    tables = tables_for(rules)
    scores = [0] * len(bouquets)
    for rank_index, variety in enumerate(order[:SCORED_RANKS]):
        points = tables.majority[rank_index]
        groups = tie_groups(rules, bouquets, variety)
        for group, slot in zip(groups, group_slots(rules, groups), strict=True):
            if slot > tables.paid:
                break
            for seat in group:
                scores[seat] += points[slot - 1]
    return scores


# ----------------------------------------------------------------------------------------------
# The game
# ----------------------------------------------------------------------------------------------


class ReferenceGame:
    """One game of Gift of Tulips, driven one action at a time."""

    def __init__(self, rules, deal: Deal):
        """rules: a tulips_sim.rules.Rules (only its raw option fields are read). deal: the
        recorded draws (:class:`Deal`); the twin checks them against its own tables and seeds
        the festival from them itself. reveal_keys: distinct ints, one per secret-festival
        *position*; positions count cards in the order they enter the secret festival: the
        setup cards first, in seat order 0..n-1, then the turn adds in play order. At the end,
        the min(n_revealed, size) positions with the smallest keys are revealed in ascending
        key order (this is the random choice of the 5 secret cards, made by the caller)."""
        self.rules = rules
        self.n_players = rules.n_players
        self.tables = tables_for(rules)
        _check_deal(self.tables, self.n_players, deal)
        self._check_inputs(deal.first_player, deal.reveal_keys)
        self._first_player = deal.first_player
        self._reveal_keys = list(deal.reveal_keys)
        self._deck = [tuple(card) for card in deal.deck]
        self._deck_pos = 0  # index of the top card of the draw pile
        self._to_draw = self._cards_played(len(self._deck))

        self._order: list[int] = []
        self._totals = [0] * N_VARIETIES
        self._festival_cards: list[tuple[int, int]] = []
        self.festival_start = seed_festival(deal.seeding, rules.seeding_tie, deal.start_order)
        self._seed_festival(self.festival_start)

        n = self.n_players
        self._dealt = [tuple(tuple(card) for card in pair) for pair in deal.dealt]
        self._pending_bouquet: list[tuple[int, int] | None] = [None] * n
        self._bouquets = [empty_counts() for _ in range(n)]
        self._bouquet_cards: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        self._give_points = [0] * n
        self._keep_points = [0] * n
        self._secret: list[tuple[int, int]] = []  # cards by position
        self._secret_owner: list[int] = []  # seat that put each position there
        self._own_secret = [empty_counts() for _ in range(n)]

        self._phase = PHASE_SETUP
        self._current = 0
        self._drawn: tuple[int, int] | None = None
        self._used_kind: str | None = None

        self._revealed: list[tuple[int, int]] | None = None
        self._majority: list[int] | None = None

    # -- construction helpers ------------------------------------------------------------------

    def _check_inputs(self, first_player, reveal_keys) -> None:
        """Raise ValueError on inputs that cannot start a game."""
        if not 0 <= first_player < self.n_players:
            raise ValueError(f"first_player must be a seat, got {first_player}")
        if len(set(reveal_keys)) != len(reveal_keys):
            raise ValueError("reveal_keys must be distinct")

    def _seed_festival(self, festival_start) -> None:
        """Place the two seeded cards 1st and 2nd in the order given."""
        for card in festival_start:
            variety, value = card
            self._order.append(variety)
            self._totals[variety] = value
            self._festival_cards.append(tuple(card))

    def _cards_played(self, pile: int) -> int:
        """Cards of a draw pile of ``pile`` cards that the game will draw (§5.5, §10-U6):
        whole rounds only (``equal_turns``), whole turns only (``full_turns``) or all."""
        if self.rules.game_end == "deck_out":
            return pile
        if self.rules.game_end == "full_turns":
            return pile - pile % 2
        return pile - pile % (2 * self.n_players)

    # -- public state --------------------------------------------------------------------------

    def is_over(self) -> bool:
        """True once the game has ended (and been scored)."""
        return self._phase == PHASE_OVER

    def current_player(self) -> int:
        """Seat to act (the seat choosing during setup), or -1 when the game is over."""
        return -1 if self.is_over() else self._current

    def legal_actions(self) -> list[int]:
        """Legal action ids, sorted ascending; empty when the game is over."""
        if self._phase == PHASE_OVER:
            return []
        if self._phase == PHASE_SETUP:
            return [SETUP_FIRST, SETUP_SECOND]
        actions = [KEEP, FESTIVAL, SECRET]
        actions += [GIVE + seat for seat in range(self.n_players) if seat != self._current]
        if self._phase == PHASE_SECOND:
            actions = [a for a in actions if action_kind(a) != self._used_kind]
        return sorted(actions)

    def apply(self, action: int) -> None:
        """Play ``action`` for the current player; ValueError if it is not legal."""
        if isinstance(action, bool):
            raise ValueError(f"action must be an integer id, got {action!r}")
        try:
            action = operator.index(action)
        except TypeError:
            raise ValueError(f"action must be an integer id, got {action!r}") from None
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action!r} in phase {self._phase}")
        if self._phase == PHASE_SETUP:
            self._apply_setup(action)
        elif self._phase == PHASE_FIRST:
            self._resolve(action)
            self._used_kind = action_kind(action)
            self._second_draw()
        else:
            self._resolve(action)
            self._start_turn((self._current + 1) % self.n_players)

    # -- setup ---------------------------------------------------------------------------------

    def _apply_setup(self, action: int) -> None:
        """Record one seat's secret setup choice; place all bouquet cards after the last seat.

        The face-down card goes onto the secret festival at once (position == seat; only its
        owner sees it, in ``own_secret``). The bouquet card is held back until every seat has
        chosen, so that no choice is visible to a seat that has yet to choose (§10-U3); with
        ``setup="in_turn"`` it goes face up at once instead.
        """
        seat = self._current
        card_a, card_b = self._dealt[seat]
        bouquet_card, secret_card = (card_a, card_b) if action == SETUP_FIRST else (card_b, card_a)
        self._pending_bouquet[seat] = bouquet_card
        self._add_secret(seat, secret_card)  # position == seat: seats choose in order 0..n-1
        in_turn = self.rules.setup == "in_turn"
        if in_turn:
            self._place_setup_bouquet(seat, bouquet_card)
        if seat + 1 < self.n_players:
            self._current = seat + 1
            return
        if not in_turn:
            for other, card in enumerate(self._pending_bouquet):
                self._place_setup_bouquet(other, card)
        self._start_turn(self._first_player)

    def _place_setup_bouquet(self, seat: int, card) -> None:
        """Lay a seat's setup bouquet card face up (scoring it if rules.setup_scores, §10-U2)."""
        if self.rules.setup_scores:
            self._keep_points[seat] += self._keeping_points(card[0])
        self._add_to_bouquet(seat, card)

    # -- turns ---------------------------------------------------------------------------------

    def _draw(self) -> tuple[int, int] | None:
        """Take the top card of the draw pile, or None if it is empty."""
        if self._deck_pos >= len(self._deck):
            return None
        card = self._deck[self._deck_pos]
        self._deck_pos += 1
        return card

    def _start_turn(self, seat: int) -> None:
        """Begin ``seat``'s turn with its first draw; end the game if the deck is empty, or
        under ``game_end`` if a whole round (``equal_turns``: the first player is to start
        one) or a whole turn (``full_turns``) can no longer be played."""
        self._used_kind = None
        left = len(self._deck) - self._deck_pos
        round_short = seat == self._first_player and left < 2 * self.n_players
        if (self.rules.game_end == "equal_turns" and round_short) or (
            self.rules.game_end == "full_turns" and left < 2
        ):
            self._finish()
            return
        self._drawn = self._draw()
        if self._drawn is None:
            self._finish()
            return
        self._current = seat
        self._phase = PHASE_FIRST

    def _second_draw(self) -> None:
        """Draw the turn's second card; end the game at once if the deck is empty (§10-U6)."""
        self._drawn = self._draw()
        if self._drawn is None:
            self._finish()
            return
        self._phase = PHASE_SECOND

    def _resolve(self, action: int) -> None:
        """Resolve the drawn card with ``action`` for the current player."""
        seat = self._current
        card = self._drawn
        self._drawn = None
        variety, value = card
        if action == KEEP:
            self._keep_points[seat] += self._keeping_points(variety)
            self._add_to_bouquet(seat, card)
        elif action == FESTIVAL:
            add_faceup(self._order, self._totals, variety, value)
            self._festival_cards.append(card)
        elif action == SECRET:
            self._add_secret(seat, card)
        else:
            self._give_points[seat] += value + self._giving_bonus(variety)
            self._add_to_bouquet(action - GIVE, card)

    def _keeping_points(self, variety: int) -> int:
        """Keeping points of ``variety`` at its current rank."""
        return self.tables.keeping[rank_of(self._order, variety) - 1]

    def _giving_bonus(self, variety: int) -> int:
        """Giving bonus of ``variety`` at its current rank (added to the card's value)."""
        return self.tables.giving[rank_of(self._order, variety) - 1]

    def _add_to_bouquet(self, seat: int, card: tuple[int, int]) -> None:
        """Put ``card`` face up in ``seat``'s bouquet."""
        add_to_counts(self._bouquets[seat], card)
        self._bouquet_cards[seat].append(card)

    def _add_secret(self, seat: int, card: tuple[int, int]) -> None:
        """Put ``card`` face down on the secret festival (next position), owned by ``seat``."""
        self._secret.append(card)
        self._secret_owner.append(seat)
        add_to_counts(self._own_secret[seat], card)

    # -- end of game ---------------------------------------------------------------------------

    def _finish(self) -> None:
        """End the game: reveal secret cards into the festival and score majorities."""
        self._phase = PHASE_OVER
        self._current = -1
        self._drawn = None
        self._used_kind = None
        self._revealed = []
        for position in self._reveal_positions():
            card = self._secret[position]
            add_faceup(self._order, self._totals, card[0], card[1])
            self._festival_cards.append(card)
            self._revealed.append(card)
        self._majority = majority_scores(self.rules, self._bouquets, self._order)

    def _reveal_positions(self) -> list[int]:
        """Secret positions to reveal: the smallest keys first, at most rules.n_revealed."""
        size = len(self._secret)
        if len(self._reveal_keys) < size:
            raise ValueError(f"{len(self._reveal_keys)} reveal keys for {size} secret cards")
        positions = sorted(range(size), key=lambda p: self._reveal_keys[p])
        return positions[: min(self.rules.n_revealed, size)]

    def _require_over(self) -> None:
        """Raise ValueError unless the game is over."""
        if not self.is_over():
            raise ValueError("the game is not over")

    def reveal(self) -> list[tuple[int, int]]:
        """Secret-festival cards turned face up at the end, in order."""
        self._require_over()
        return list(self._revealed)

    def majority_points(self) -> list[int]:
        """Festival majority points per seat."""
        self._require_over()
        return list(self._majority)

    def scores(self) -> list[int]:
        """Final score per seat: give + keep + majority."""
        self._require_over()
        return [
            give + keep + major
            for give, keep, major in zip(
                self._give_points, self._keep_points, self._majority, strict=True
            )
        ]

    def winners(self) -> list[int]:
        """Winning seats: highest score, then most bouquet cards; still tied = shared win."""
        self._require_over()
        keys = [
            (score, len(cards))
            for score, cards in zip(self.scores(), self._bouquet_cards, strict=True)
        ]
        best = max(keys)
        return [seat for seat, key in enumerate(keys) if key == best]

    def breakdown(self) -> list[dict]:
        """Per seat: {"give", "keep", "majority"} points."""
        self._require_over()
        return [
            {"give": give, "keep": keep, "majority": major}
            for give, keep, major in zip(
                self._give_points, self._keep_points, self._majority, strict=True
            )
        ]

    # -- observation ---------------------------------------------------------------------------

    def observation(self, seat: int) -> dict:
        """What ``seat`` sees now (public state plus its own private cards)."""
        playing = self._phase in (PHASE_FIRST, PHASE_SECOND)
        hand = None
        if self._phase == PHASE_SETUP and self._pending_bouquet[seat] is None:
            hand = [self._dealt[seat][0], self._dealt[seat][1]]
        return {
            "seat": seat,
            "n_players": self.n_players,
            "phase": self._phase,
            "current_player": self.current_player(),
            "festival_order": list(self._order),
            "totals": list(self._totals),
            "bouquets": [[list(row) for row in counts] for counts in self._bouquets],
            "give_points": list(self._give_points),
            "keep_points": list(self._keep_points),
            "deck_size": self._to_draw - self._deck_pos,
            "secret_size": len(self._secret),
            "drawn": self._drawn if playing and seat == self._current else None,
            "hand": hand,
            "own_secret": [list(row) for row in self._own_secret[seat]],
            "used_kind": self._used_kind if self._phase == PHASE_SECOND else None,
        }


# ----------------------------------------------------------------------------------------------
# The chance events of a game, one at a time
# ----------------------------------------------------------------------------------------------


class ChanceBook:
    """What each card event of a game may turn up, card by card (rules §3.2-3.6, §5.1, §6.1).

    The deck of the rules is shuffled and stays face down; each event turns up one card of it:
    ``remove`` (unseen by anyone, but a card like any other for the book: it leaves the pile),
    ``seed`` (the first seeding card, then cards until one of another variety: those of the
    first card's variety go back into the pile once it is found), ``deal`` and ``draw``. A card
    type's weight is its number of copies still face down in the pile, since the pile is shuffled
    and a card turned up is equally likely any of them. Cards are ``(variety, value)``."""

    def __init__(self, rules):
        self.face_down = Counter(tables_for(rules).deck)
        self.seeding: list = []
        self.seeded = False

    def weights(self) -> dict:
        """Weights of the next card turned up from the pile."""
        return {card: n for card, n in self.face_down.items() if n > 0}

    def turn_up(self, kind: str, card) -> None:
        """Record the card a ``remove``, ``seed``, ``deal`` or ``draw`` event turned up."""
        card = tuple(card)
        if self.face_down[card] <= 0:
            raise ValueError(f"{card} is not face down")
        self.face_down[card] -= 1
        if kind == "seed":
            self._seed(card)

    def _seed(self, card) -> None:
        self.seeding.append(card)
        first = self.seeding[0]
        if len(self.seeding) > 1 and card[0] != first[0]:
            self.seeded = True
            for back in self.seeding[1:-1]:
                self.face_down[back] += 1


def reveal_weights(secret_cards, revealed) -> dict:
    """Weights of the next secret festival card turned up at the end (rules §6.1: shuffled,
    turned up one at a time): its cards less those turned up already, by copies."""
    left = Counter(tuple(c) for c in secret_cards)
    left.subtract(tuple(c) for c in revealed)
    return {card: n for card, n in left.items() if n > 0}

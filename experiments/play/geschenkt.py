"""No Thanks! at the terminal: a seat's observation as text, its choices, the public moves."""

from experiments.play.screen import Seats, count
from geschenkt_sim.engine import HIDDEN_CHIPS
from geschenkt_sim.record import unfinished_record as unfinished_record  # for a game quit part-way
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.scoring import card_points, take_delta
from geschenkt_sim.state import (
    CARD,
    CARDS_LEFT,
    CHIPS,
    CHIPS_VISIBLE,
    HANDS,
    N_DECISIONS,
    N_PLAYERS,
    POT,
    SEAT,
    cards_of,
)

TITLE = "No Thanks!"
GOAL = "lowest score wins (the lowest card of each run, minus your chips)"
RULES_FILE = "docs/rules/no_thanks.md"


def rules_in_brief(rules) -> list[str]:
    """The rules a newcomer needs (``?`` shows them again; docs/rules/no_thanks.md)."""
    return [
        "on your turn: take the face-up card with its chips, or pass by putting a chip on it "
        "(a player out of chips must take)",
        f"cards {rules.lowest_card}..{rules.highest_card}, {rules.n_removed} of them removed "
        "unseen; the game ends when the last card is taken",
        "a card scores its number, but a run of consecutive cards scores only its lowest; each "
        "chip takes a point off",
    ]


def runs(mask) -> str:
    """The cards of a hand as runs, e.g. ``3-5 17 22`` ("-" for none)."""
    spans: list[list[int]] = []
    for card in cards_of(mask):
        if spans and card == spans[-1][1] + 1:
            spans[-1][1] = card
        else:
            spans.append([card, card])
    return " ".join(f"{a}-{b}" if b > a else str(a) for a, b in spans) or "-"


def heading(obs) -> str:
    return f"your turn, decision {int(obs[N_DECISIONS]) + 1}"


def view(obs, seats: Seats) -> list[str]:
    """The face-up card, the stack, every seat's chips (when shown) and cards, own score."""
    card, left = int(obs[CARD]), int(obs[CARDS_LEFT])
    top = f"face-up card {card} with {count(obs[POT], 'chip')} on it; {left} left in the stack"
    if card < 0:  # the game is over: every card taken
        top = "every card taken"
    rows = [_row(obs, p, seats) for p in range(obs[N_PLAYERS])]
    return [top, *rows, _own_score(obs)]


def _row(obs, seat: int, seats: Seats) -> str:
    chips = int(obs[CHIPS + seat])
    shown = "?" if chips == HIDDEN_CHIPS else str(chips)
    hand = obs[HANDS + seat]
    return f"{seats.row(seat)} chips {shown:>2}  cards {runs(hand)} ({card_points(hand)} points)"


def _own_score(obs) -> str:
    seat = obs[SEAT]
    points, chips = int(card_points(obs[HANDS + seat])), int(obs[CHIPS + seat])
    return f"your score now: {points} card points - {chips} chips = {points - chips}"


def key(action: int) -> str:
    """The letter that answers with ``action``: t(ake) or p(ass)."""
    return "t" if action == TAKE else "p"


def choice(obs, action: int, seats: Seats) -> str:
    if action == PASS:
        return "pass (pay 1 chip)"
    delta = int(take_delta(obs[HANDS + obs[SEAT]], obs[CARD]))
    return f"take (card points {delta:+d}, chips +{int(obs[POT])})"


def event(obs, action: int, seats: Seats) -> str:
    """A decision as the table sees it (every No Thanks! move is public)."""
    name, card, pot = seats.name(obs[SEAT]), int(obs[CARD]), int(obs[POT])
    if action == TAKE:
        return f"{name} took {card}" + (f" with {count(pot, 'chip')}" if pot else "")
    return f"{name} passed on {card} (now {count(pot + 1, 'chip')} on it)"


def after(obs, action: int | None) -> tuple:
    """``(hands, card, pot)`` once ``action`` (None: no action) is applied: every seat's hand,
    and the face-up card with its chips if known (a take turns up an unseen card, -1 here)."""
    hands = [int(obs[HANDS + p]) for p in range(obs[N_PLAYERS])]
    card, pot = int(obs[CARD]), int(obs[POT])
    if action == TAKE:
        hands[obs[SEAT]] |= 1 << card
        return tuple(hands), -1, 0
    return tuple(hands), card, pot + 1 if action == PASS else pot


def unseen(known, obs, seats: Seats) -> list[str]:
    """Takes by a seat without chips, which has no choice and so is never asked.

    The first takes the card last passed on, with its chips; any further one a fresh card
    with none (the order of those is not in the observation, so they are listed ascending).
    """
    hands, card, pot = known or ((0,) * int(obs[N_PLAYERS]), -1, 0)
    why = " (no chips, so no choice)" if obs[CHIPS_VISIBLE] else ""
    lines = []
    for p, hand in enumerate(hands):
        new = cards_of(int(obs[HANDS + p]) & ~hand)
        for c in sorted(new, key=lambda c: c != card):
            chips = f" with {count(pot, 'chip')}" if c == card and pot else ""
            lines.append(f"{seats.name(p)} took {c}{chips}{why}")
    return lines


def final(obs, result: dict, seats: Seats) -> list[str]:
    """Every hand and final score (chips follow from them, so they are public now)."""
    return [
        f"{seats.row(p)} score {score:>3}  cards {runs(obs[HANDS + p])}"
        for p, score in enumerate(result["scores"])
    ]

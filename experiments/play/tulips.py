"""Gift of Tulips at the terminal: a seat's observation as text, its choices, the public moves.

A card is shown as ``purple 3``. The move log names a bot's card only when the rules put it
face up (keep, give, festival); a card it adds to the secret festival and its setup choice
stay unnamed.
"""

from agents.tulips.features import immediate_points, points_now
from experiments.play.screen import Seats, count
from tulips_sim.record import unfinished_record as unfinished_record  # for a game quit part-way
from tulips_sim.rules import (
    FESTIVAL,
    GIVE,
    KEEP,
    KIND_ADD,
    KIND_GIVE,
    KIND_KEEP,
    N_RANKS,
    N_TYPES,
    N_VARIETIES,
    SECRET,
    SETUP_FIRST,
    VALUES,
    VARIETIES,
)
from tulips_sim.state import (
    BOUQUET,
    BQ_COUNT,
    DECK_LEFT,
    DRAWN,
    FIRST,
    GIVE_POINTS,
    HAND,
    KEEP_POINTS,
    N_PLAYERS,
    N_REVEALED,
    ORDER,
    OWN_SECRET,
    PHASE,
    SEAT,
    SECRET_SIZE,
    SETUP,
    TOTALS,
    USED_KIND,
    card_of,
    card_type,
    value_of,
)

TITLE = "Gift of Tulips"
GOAL = "highest score wins (giving + keeping + festival majorities)"
RULES_FILE = "docs/rules/gift_of_tulips.md"
PLACES = ("1st", "2nd", "3rd", "4th")
USED = {KIND_KEEP: "kept", KIND_GIVE: "gave", KIND_ADD: "added"}


def rules_in_brief(rules) -> list[str]:
    """The rules a newcomer needs, with the points of the rules in force (``?`` shows them
    again; docs/rules/gift_of_tulips.md has them all)."""
    keep, give = "/".join(map(str, rules.keeping)), "/".join(map(str, rules.giving))
    pays = ", ".join(
        f"{PLACES[r]} {'/'.join(str(p) for p in row[: rules.slots])}"
        for r, row in enumerate(rules.majority[:3])
    )
    end = "after the last whole round" if rules.game_end == "equal_turns" else "deck used up"
    return [
        "setup: of your two dealt cards one goes face up to your bouquet, one face down to the "
        "secret festival",
        "each turn: draw a card and keep, give or add it; then draw a second card and do one of "
        "the other two",
        f"keep: into your bouquet; you score {keep} by its variety's rank (1st/2nd/3rd/4th; a "
        "variety not in the festival ranks 4th)",
        f"give: into another's bouquet; you score its value + {give} by its rank",
        "add: face up to the festival (no points: its variety's total grows and it moves ahead "
        "of every equal or lower total), or face down to the secret festival",
        f"the end ({end}): up to {rules.n_revealed} secret festival cards, at random, are turned "
        "up into the festival; then the 1st, 2nd and 3rd varieties pay majorities to the "
        f"players with the most cards of them (then the higher total value): {pays}",
        "highest score wins; a tie goes to the most bouquet cards",
    ]


def card_text(card) -> str:
    variety, value = card_of(card)
    return f"{VARIETIES[variety]} {value}"


def cards_text(counts) -> str:
    """Cards from a table of counts by type, grouped by variety: ``purple 2 3 · blue 4``."""
    groups = []
    for v in range(N_VARIETIES):
        types = [card_type(v, value) for value in VALUES]
        values = [str(value_of(t)) for t in types for _ in range(counts[t])]
        if values:
            groups.append(f"{VARIETIES[v]} {' '.join(values)}")
    return " · ".join(groups) or "-"


def heading(obs) -> str:
    return "setup: your bouquet card" if obs[PHASE] == SETUP else "your turn"


def view(obs, seats: Seats) -> list[str]:
    """Festival, deck, own secret cards, every bouquet and its points, the card in hand."""
    secret = cards_text(obs[OWN_SECRET : OWN_SECRET + N_TYPES])
    size = int(obs[SECRET_SIZE])
    return [
        festival_text(obs),
        f"deck: {count(obs[DECK_LEFT], 'card')} left; "
        f"secret festival: {count(size, 'card')}, yours: {secret}",
        f"  (at the end only {obs[N_REVEALED]} of them, at random, or all if fewer, are turned"
        " up into the festival; the others never count)",
        f"first player: {seats.name(int(obs[FIRST]))}; then in seat order",
        *[_row(obs, p, seats) for p in range(obs[N_PLAYERS])],
        _holding(obs),
    ]


def festival_text(obs) -> str:
    """Ranked varieties with their totals, then the ones not yet in the festival."""
    ranked = [int(v) for v in obs[ORDER : ORDER + N_RANKS] if v >= 0]
    places = [f"{PLACES[r]} {VARIETIES[v]} {obs[TOTALS + v]}" for r, v in enumerate(ranked)]
    absent = [VARIETIES[v] for v in range(N_VARIETIES) if v not in ranked]
    tail = f" · not in it: {', '.join(absent)}" if absent else ""
    return f"festival: {' · '.join(places)}{tail}"


def _row(obs, seat: int, seats: Seats) -> str:
    give, keep = obs[GIVE_POINTS + seat], obs[KEEP_POINTS + seat]
    bouquet = obs[BOUQUET + seat * N_TYPES : BOUQUET + (seat + 1) * N_TYPES]
    return (
        f"{seats.row(seat)} give {give:>2} keep {keep:>2} majorities now {points_now(obs, seat):>2}"
        f"  bouquet {cards_text(bouquet)}"
    )


def _holding(obs) -> str:
    if obs[PHASE] == SETUP:
        a, b = card_text(obs[HAND]), card_text(obs[HAND + 1])
        return f"you were dealt {a} and {b}: one to your bouquet, one to the secret festival"
    used = USED.get(int(obs[USED_KIND]))
    when = f"second card, you {used} the first" if used else "first card of your turn"
    return f"you drew {card_text(obs[DRAWN])} ({when})"


def key(action: int) -> str:
    """The letters that answer with ``action``: k(eep), f(estival), s(ecret), g2 (give to
    seat 2), and at setup a or b (the first or second dealt card to the bouquet)."""
    if action >= SETUP_FIRST:
        return "ab"[action - SETUP_FIRST]
    return {KEEP: "k", FESTIVAL: "f", SECRET: "s"}.get(action, f"g{action - GIVE}")


def choice(obs, action: int, seats: Seats) -> str:
    if action >= SETUP_FIRST:
        pick = action - SETUP_FIRST
        bouquet, secret = obs[HAND + pick], obs[HAND + 1 - pick]
        return f"bouquet {card_text(bouquet)}, secret {card_text(secret)}"
    card = obs[DRAWN]
    points = immediate_points(obs, action, card)
    if action == KEEP:
        return f"keep: +{points}"
    if action == FESTIVAL:
        return f"festival: {_festival_change(obs, card)}"
    if action == SECRET:
        return "secret festival (face down)"
    return f"give to {seats.name(action - GIVE)}: +{points}"


def _festival_change(obs, card) -> str:
    """``purple 7 -> 10, 1st``: the variety's total and rank once ``card`` is added."""
    variety, value = card_of(card)
    total = int(obs[TOTALS + variety])
    ranked = [int(v) for v in obs[ORDER : ORDER + N_RANKS] if v >= 0 and v != variety]
    rank = sum(obs[TOTALS + v] > total + value for v in ranked)
    return f"{VARIETIES[variety]} {total} -> {total + value}, {PLACES[rank]}"


def event(obs, action: int, seats: Seats) -> str:
    """A decision as the table sees it: the card only where it goes face up."""
    name = seats.name(obs[SEAT])
    if action >= SETUP_FIRST:
        return f"{name} chose a bouquet card (shown once everyone has chosen)"
    if action == SECRET:
        return f"{name} put a card face down into the secret festival"
    card = obs[DRAWN]
    shown, points = card_text(card), immediate_points(obs, action, card)
    if action == KEEP:
        return f"{name} kept {shown} (+{points})"
    if action == FESTIVAL:
        return f"{name} added {shown} to the festival"
    return f"{name} gave {shown} to {seats.name(action - GIVE)} (+{points})"


def after(obs, action: int | None) -> None:
    """Nothing to carry between decisions: every Tulips decision is asked for."""


def unseen(known, obs, seats: Seats) -> list[str]:
    return []


def final(obs, result: dict, seats: Seats) -> list[str]:
    """The secret cards turned up, the final festival, every score with its parts."""
    reveal = ", ".join(f"{v} {n}" for v, n in result["reveal"]) or "none"
    rows = []
    for p, (score, parts) in enumerate(zip(result["scores"], result["breakdown"], strict=True)):
        cards = int(obs[BQ_COUNT + p * N_VARIETIES : BQ_COUNT + (p + 1) * N_VARIETIES].sum())
        rows.append(
            f"{seats.row(p)} score {score:>3} = give {parts['give']} + keep {parts['keep']}"
            f" + majorities {parts['majority']}; {count(cards, 'card')} in the bouquet"
        )
    return [f"secret festival turned up: {reveal}", festival_text(obs), *rows]

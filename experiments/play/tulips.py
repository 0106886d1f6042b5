"""Gift of Tulips at the terminal: a seat's observation as text, its choices, the public moves.

A card is shown as ``purple 3``. The move log names a bot's card only when the rules put it
face up (keep, give, festival); a card it adds to the secret festival and its setup choice
stay unnamed.
"""

import numpy as np

from agents.tulips.features import immediate_points, points_now
from experiments.play.screen import Seats, count
from tulips_sim.engine import (
    O_BOUQUET,
    O_BQ_COUNT,
    O_DECK_LEFT,
    O_DRAWN,
    O_FIRST,
    O_GIVE_POINTS,
    O_HAND,
    O_KEEP_POINTS,
    O_N_PLAYERS,
    O_N_REVEALED,
    O_ORDER,
    O_OWN_SECRET,
    O_PHASE,
    O_SEAT,
    O_SECRET_SIZE,
    O_SIZE,
    O_TOTALS,
    O_USED_KIND,
    observe,
)
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
from tulips_sim.state import SETUP, card_of, card_type, value_of

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


def public_obs(state, seat: int) -> np.ndarray:
    """The observation of ``seat`` (at the end of the game: what everyone may see)."""
    obs = np.zeros(O_SIZE, np.int64)
    observe(state, seat, obs)
    return obs


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
    return "setup: your bouquet card" if obs[O_PHASE] == SETUP else "your turn"


def view(obs, seats: Seats) -> list[str]:
    """Festival, deck, own secret cards, every bouquet and its points, the card in hand."""
    secret = cards_text(obs[O_OWN_SECRET : O_OWN_SECRET + N_TYPES])
    size = int(obs[O_SECRET_SIZE])
    return [
        festival_text(obs),
        f"deck: {count(obs[O_DECK_LEFT], 'card')} left; "
        f"secret festival: {count(size, 'card')}, yours: {secret}",
        f"  (at the end only {obs[O_N_REVEALED]} of them, at random, or all if fewer, are turned"
        " up into the festival; the others never count)",
        f"first player: {seats.name(int(obs[O_FIRST]))}; then in seat order",
        *[_row(obs, p, seats) for p in range(obs[O_N_PLAYERS])],
        _holding(obs),
    ]


def festival_text(obs) -> str:
    """Ranked varieties with their totals, then the ones not yet in the festival."""
    ranked = [int(v) for v in obs[O_ORDER : O_ORDER + N_RANKS] if v >= 0]
    places = [f"{PLACES[r]} {VARIETIES[v]} {obs[O_TOTALS + v]}" for r, v in enumerate(ranked)]
    absent = [VARIETIES[v] for v in range(N_VARIETIES) if v not in ranked]
    tail = f" · not in it: {', '.join(absent)}" if absent else ""
    return f"festival: {' · '.join(places)}{tail}"


def _row(obs, seat: int, seats: Seats) -> str:
    give, keep = obs[O_GIVE_POINTS + seat], obs[O_KEEP_POINTS + seat]
    bouquet = obs[O_BOUQUET + seat * N_TYPES : O_BOUQUET + (seat + 1) * N_TYPES]
    return (
        f"{seats.row(seat)} give {give:>2} keep {keep:>2} majorities now {points_now(obs, seat):>2}"
        f"  bouquet {cards_text(bouquet)}"
    )


def _holding(obs) -> str:
    if obs[O_PHASE] == SETUP:
        a, b = card_text(obs[O_HAND]), card_text(obs[O_HAND + 1])
        return f"you were dealt {a} and {b}: one to your bouquet, one to the secret festival"
    used = USED.get(int(obs[O_USED_KIND]))
    when = f"second card, you {used} the first" if used else "first card of your turn"
    return f"you drew {card_text(obs[O_DRAWN])} ({when})"


def key(action: int) -> str:
    """The letters that answer with ``action``: k(eep), f(estival), s(ecret), g2 (give to
    seat 2), and at setup a or b (the first or second dealt card to the bouquet)."""
    if action >= SETUP_FIRST:
        return "ab"[action - SETUP_FIRST]
    return {KEEP: "k", FESTIVAL: "f", SECRET: "s"}.get(action, f"g{action - GIVE}")


def choice(obs, action: int, seats: Seats) -> str:
    if action >= SETUP_FIRST:
        pick = action - SETUP_FIRST
        bouquet, secret = obs[O_HAND + pick], obs[O_HAND + 1 - pick]
        return f"bouquet {card_text(bouquet)}, secret {card_text(secret)}"
    card = obs[O_DRAWN]
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
    total = int(obs[O_TOTALS + variety])
    ranked = [int(v) for v in obs[O_ORDER : O_ORDER + N_RANKS] if v >= 0 and v != variety]
    rank = sum(obs[O_TOTALS + v] > total + value for v in ranked)
    return f"{VARIETIES[variety]} {total} -> {total + value}, {PLACES[rank]}"


def event(obs, action: int, seats: Seats) -> str:
    """A decision as the table sees it: the card only where it goes face up."""
    name = seats.name(obs[O_SEAT])
    if action >= SETUP_FIRST:
        return f"{name} chose a bouquet card (shown once everyone has chosen)"
    if action == SECRET:
        return f"{name} put a card face down into the secret festival"
    card = obs[O_DRAWN]
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
        cards = int(obs[O_BQ_COUNT + p * N_VARIETIES : O_BQ_COUNT + (p + 1) * N_VARIETIES].sum())
        rows.append(
            f"{seats.row(p)} score {score:>3} = give {parts['give']} + keep {parts['keep']}"
            f" + majorities {parts['majority']}; {count(cards, 'card')} in the bouquet"
        )
    return [f"secret festival turned up: {reveal}", festival_text(obs), *rows]

"""Gift of Tulips with explicit chance: the chance events of a game dealt by ``state.deal_open``.

The events (``state.CHANCE``), in the order the rules call them, with their outcomes and who
sees them:

===============  ==================================================  ========================
event            outcome (weight)                                    seen by
===============  ==================================================  ========================
``REMOVE``       a card removed unseen (type; the cards face down)   nobody
``SEED``         a card turned up to seed the festival (type; the    every seat
                 cards face down): the first, then until one of
                 another variety (the ones between go back)
``COIN``         0: the first seeding card goes 1st (1 each)         every seat
``FIRST_SEAT``   the seat taking the first turn (1 each)             every seat
``DEAL``         a card of a seat's pair, seat 0's two first (type;  that seat
                 the cards face down)
``DRAW``         the card the seat to act draws (type; the cards     that seat
                 face down)
``REVEAL``       a secret festival card turned up at the end (type;  every seat
                 the secret cards not yet turned up)
===============  ==================================================  ========================

A card type's weight is the number of cards of that type the event may turn up: the deck's
cards not yet turned up (the draw pile, before the removal and the seeding the whole deck), or
the secret festival's. The removed cards are events of their own, seen by nobody, so that every
later weight is a plain count: the cards that go back after the seeding are known to be in the
pile, not among the removed ones, which weights over "the cards seen by nobody" would miss.
The seeding's second card is drawn as the rules draw it (cards of the first one's variety go
back, and the pile is reshuffled): the same as drawing it among the other varieties, without
losing what those cards tell. ``COIN`` and ``FIRST_SEAT`` draw from the deal's stream as
``state.deal_keyed`` does, so that ``next_outcome`` replays its game.

A resolved card is swapped into its place (the top of the pile, or the next place of the
reveal) from wherever it lies among the cards the event may turn up; the engine then goes on.
Outcome ids are card types (``0..N_TYPES - 1``), seats or the coin: ``MAX_OUTCOMES`` is
``N_TYPES``.
"""

import numpy as np
from numba import njit

from giftsim.rng import below_keyed, shuffle_keyed
from tulips_sim.engine import end_game, open_setup, reveal_card
from tulips_sim.rules import (
    ACTION_NAMES,
    MAX_PLAYERS,
    N_TYPES,
    N_VALUES,
    SECRET,
    SETUP_FIRST,
    VALUES,
    VARIETIES,
)
from tulips_sim.state import (
    CHANCE,
    COIN,
    COIN_SIDES,
    COPIES,
    DEAL,
    DEALT,
    DECK,
    DECK_LEFT,
    DRAW,
    DRAWN,
    FIRST,
    FIRST_SEAT,
    LEGAL,
    N_PLAYERS,
    N_REMOVED,
    N_REVEALED,
    NO_CHANCE,
    OPEN_KEY,
    OPEN_STEP,
    PILE,
    REMOVE,
    REMOVED,
    REVEAL,
    REVEAL_KEY,
    REVEALED,
    SECRET_SIZE,
    SEED,
    SEED_DRAWS,
    SEED_N,
    SEED_RANDOM,
    SETUP_OPEN,
    START,
    TOP,
    TURN,
    seed_order,
    value_of,
    variety_of,
)

MAX_OUTCOMES = max(N_TYPES, MAX_PLAYERS)
KINDS = ("remove", "seed", "coin", "first seat", "deal", "draw", "reveal")  # kind k at k - 1
PUBLIC_ACTIONS = SETUP_FIRST * (N_TYPES + 1) + N_TYPES + 1  # codes of public_action


@njit(cache=True)
def chance_pending(state):
    """The chance event to resolve before anyone acts (``state.REMOVE`` .. ``REVEAL``), else 0."""
    return state[CHANCE]


@njit(cache=True)
def _deck_end(state):
    """Cards in the deck (``state.DECK[:end]``)."""
    end = 0
    for t in range(N_TYPES):
        end += state[COPIES + t]
    return end


@njit(cache=True)
def chance_outcomes(state, weights):
    """Write the weight of each outcome id of the pending event into ``weights`` (see the
    module docstring); return the number of outcome ids written."""
    kind = state[CHANCE]
    if kind in (COIN, FIRST_SEAT):
        count = COIN_SIDES if kind == COIN else state[N_PLAYERS]
        for k in range(count):
            weights[k] = 1
        return count
    for t in range(N_TYPES):
        weights[t] = 0
    if kind == REVEAL:
        for k in range(state[OPEN_STEP], state[SECRET_SIZE]):
            weights[state[PILE + state[REVEALED + k]]] += 1
        return N_TYPES
    for k in range(state[TOP], _deck_end(state)):
        weights[~state[DECK + k]] += 1
    return N_TYPES


@njit(cache=True)
def next_outcome(state):
    """The outcome the dealt game holds for the pending event: the card at the top of the pile,
    or what the deal's streams draw (the coin, the first seat, the revealed position)."""
    kind = state[CHANCE]
    if kind in (COIN, FIRST_SEAT):
        count = COIN_SIDES if kind == COIN else state[N_PLAYERS]
        return below_keyed(np.uint64(state[OPEN_KEY]), count)[0]
    if kind == REVEAL:
        i = state[OPEN_STEP]
        j = below_keyed(np.uint64(state[REVEAL_KEY]), state[SECRET_SIZE] - i)[0]
        return state[PILE + state[REVEALED + i + j]]
    return ~state[DECK + state[TOP]]


@njit(cache=True)
def chance_observers(state):
    """Bit mask of the seats that see the pending event's outcome (module docstring)."""
    kind = state[CHANCE]
    if kind == REMOVE:
        return np.int64(0)
    if kind == DEAL:
        return np.int64(1) << ((state[TOP] - state[N_REMOVED] - 2) // 2)
    if kind == DRAW:
        return np.int64(1) << state[TURN]
    return (np.int64(1) << state[N_PLAYERS]) - 1


@njit(cache=True)
def apply_chance(state, outcome):
    """Resolve the pending event with ``outcome`` (any outcome of positive weight), and go on
    to the next decision or chance event."""
    kind = state[CHANCE]
    if kind == REVEAL:
        _reveal(state, outcome)
    elif kind == COIN:
        _advance(state, COIN_SIDES)
        _place_start(state, outcome == 0)
    elif kind == FIRST_SEAT:
        _advance(state, state[N_PLAYERS])
        state[FIRST] = outcome
        state[CHANCE] = DEAL
    else:
        _turn_up(state, outcome)
        _after_card(state, kind, outcome)


@njit(cache=True)
def _advance(state, count):
    """Draw from the deal's stream as ``deal_keyed`` does, whatever the outcome applied."""
    state[OPEN_KEY] = np.int64(below_keyed(np.uint64(state[OPEN_KEY]), count)[1])


@njit(cache=True)
def _turn_up(state, card):
    """Put a face-down ``card`` at the top of the pile (swapped from where it lies below) and
    turn it up; the top moves on."""
    top, hidden = state[TOP], ~card
    for k in range(top, _deck_end(state)):
        if state[DECK + k] == hidden:
            state[DECK + k] = state[DECK + top]
            break
    state[DECK + top] = card
    state[TOP] = top + 1


@njit(cache=True)
def _after_card(state, kind, card):
    """What a card turned up at the top of the pile does: removed, seeding, dealt, drawn."""
    if kind == REMOVE:
        state[REMOVED + card] += 1
        if state[TOP] == state[N_REMOVED]:
            state[CHANCE] = SEED
    elif kind == SEED:
        _seeded(state, card)
    elif kind == DEAL:
        dealt = state[TOP] - state[N_REMOVED] - 2  # cards dealt, this one included
        state[DEALT + dealt - 1] = card
        if dealt == 2 * state[N_PLAYERS]:
            state[CHANCE] = NO_CHANCE
            open_setup(state)
    else:
        state[DRAWN] = card
        state[DECK_LEFT] -= 1
        state[CHANCE] = NO_CHANCE


@njit(cache=True)
def _seeded(state, card):
    """A seeding card (rules §3.5): the first, one of its variety (set aside), or the second;
    then the set-aside cards go back into the pile and the pile is reshuffled, as
    ``state.deal_keyed`` does, and the start cards are ordered (by the coin on equal values
    when the rules say)."""
    state[SEED_DRAWS + state[SEED_N]] = card
    state[SEED_N] += 1
    first = state[SEED_DRAWS]
    if state[SEED_N] == 1 or variety_of(card) == variety_of(first):
        return
    top = state[N_REMOVED]
    k = state[TOP] - 1  # where the second card lay
    if k > top + 1:  # cards went back: where they lay, the first of them in the second's place
        state[DECK + k] = ~state[DECK + top + 1]
        for q in range(top + 2, k):
            state[DECK + q] = ~state[DECK + q]
        state[DECK + top + 1] = card
        pile = state[DECK + top + 2 : DECK + _deck_end(state)]
        state[OPEN_KEY] = np.int64(shuffle_keyed(pile, np.uint64(state[OPEN_KEY])))
    state[TOP] = top + 2
    if value_of(first) != value_of(card):
        _place_start(state, value_of(first) > value_of(card))
    elif state[SEED_RANDOM]:
        state[CHANCE] = COIN
    else:
        _place_start(state, True)


@njit(cache=True)
def _place_start(state, first_wins):
    """Lay the two seeding cards 1st and 2nd; then the first seat (if drawn) or the deal."""
    first, second = state[SEED_DRAWS], state[SEED_DRAWS + state[SEED_N] - 1]
    state[START] = first if first_wins else second
    state[START + 1] = second if first_wins else first
    seed_order(state)
    state[CHANCE] = FIRST_SEAT if state[FIRST] < 0 else DEAL


@njit(cache=True)
def _reveal(state, card):
    """Turn up ``card`` as the next card of the end-game reveal: the position the reveal's
    stream picks, as ``engine.finish`` picks it, or another holding ``card``."""
    i, size = state[OPEN_STEP], state[SECRET_SIZE]
    j, key = below_keyed(np.uint64(state[REVEAL_KEY]), size - i)
    state[REVEAL_KEY] = np.int64(key)
    _swap(state, REVEALED + i, REVEALED + i + j)
    for k in range(i, size):
        if state[PILE + state[REVEALED + k]] == card:
            _swap(state, REVEALED + i, REVEALED + k)
            break
    reveal_card(state, i, card)
    state[OPEN_STEP] = i + 1
    if i + 1 == min(state[N_REVEALED], size):
        end_game(state, i + 1)
        state[LEGAL] = 0
        state[CHANCE] = NO_CHANCE


@njit(cache=True)
def _swap(state, a, b):
    state[a], state[b] = state[b], state[a]


@njit(cache=True)
def public_action(state, action):
    """What the other seats see of the decision ``action`` of the seat to act, as a code
    ``kind * (N_TYPES + 1) + shown + 1``: ``kind`` the action (``SETUP_FIRST`` for either setup
    choice, since which card of its pair a seat chose is its own), ``shown`` the card it lays
    face up, else -1 (a setup card face up at once under ``setup="in_turn"``; the drawn card
    kept, given or added face up). The bouquet cards of a simultaneous setup are shown to
    all at its end, as the observation shows them."""
    seat, shown = state[TURN], -1
    if action >= SETUP_FIRST:
        if state[SETUP_OPEN]:
            shown = state[DEALT + 2 * seat + action - SETUP_FIRST]
        action = SETUP_FIRST
    elif action != SECRET:
        shown = state[DRAWN]
    return action * (N_TYPES + 1) + shown + 1


def card_text(card: int) -> str:
    """A card type as text, such as ``"purple 3"``."""
    return f"{VARIETIES[card // N_VALUES]} {VALUES[card % N_VALUES]}"


def chance_text(kind: int, outcome: int) -> str:
    """An outcome of a ``kind`` event as text."""
    if kind == COIN:
        return "first drawn 1st" if outcome == 0 else "second drawn 1st"
    if kind == FIRST_SEAT:
        return f"seat {outcome} first"
    return card_text(outcome)


def public_text(code: int) -> str:
    """A :func:`public_action` code as text."""
    kind, shown = divmod(code, N_TYPES + 1)
    name = "setup" if kind == SETUP_FIRST else ACTION_NAMES[kind]
    return name if shown == 0 else f"{name} {card_text(shown - 1)}"


def chance_events(rules) -> int:
    """Bound on the chance events of a game under ``rules``: the removed cards, the seeding (a
    variety and one more card), the coin, the first seat, the dealt pairs, every card drawn and
    the end-game reveal."""
    drawn = rules.turn_cards - rules.unused
    seeding = max(rules.variety_sizes) + 1
    reveal = min(rules.n_revealed, rules.n_players + drawn)
    return rules.removed + seeding + 2 + 2 * rules.n_players + drawn + reveal

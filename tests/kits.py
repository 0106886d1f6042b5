"""What the game contract test (``test_game_contract.py``) needs to know of each game beyond
its ``Game`` record: a kit of three functions.

* ``variants(n)``: a few rules for ``n`` players (the options that change what is hidden).
* ``hidden_slots(state, seat)``: the state slots ``seat`` may not know now, from the game's
  documented layout (``state.py``); the test changes every one and expects the same
  observation.
* ``twin(rules, start, final)``: the game's plain-Python reference twin set up on the deal of
  ``start`` (``final`` gives what the deal left to the end, such as Tulips' reveal), with
  ``legal_actions()``, ``apply(action)``, ``scores()`` and ``winners()``.
* ``explicit_twin(rules, steps, final)``: the same twin set up on the deal that the chance
  events of an explicit-chance game (``Game.deal_open``) resolved; ``steps`` holds the game's
  steps in order, ``Chance(kind, outcome, weights, observers)`` or ``Decision(action)``.
* ``expected_chance(rules, before, twin)``: what the rules say of the next chance event after
  the steps ``before`` (``twin`` has applied their decisions): its kind (a name of
  ``Game.chance_kinds``), the weight of each outcome id with a positive one, and the seats
  that see its outcome. Written from the twin and the rules, not from the engine.

The kits of the two games of the project are below; any other game keeps its kit in its own
package, as the module ``<package>.kit`` (see ``tests/toy_game/kit.py``).
"""

import importlib
from collections import Counter
from dataclasses import dataclass
from types import SimpleNamespace

from giftsim.game import GAMES


@dataclass(frozen=True)
class Chance:
    """A chance event of an explicit-chance game: its kind's name, the outcome applied, the
    weight of each outcome id with a positive weight, and the seats that see the outcome."""

    kind: str
    outcome: int
    weights: dict
    observers: frozenset


@dataclass(frozen=True)
class Decision:
    action: int


def outcomes_of(steps, kind: str) -> list[int]:
    """The outcomes of the chance events of ``kind`` among ``steps``, in order."""
    return [s.outcome for s in steps if isinstance(s, Chance) and s.kind == kind]


def kit_of(name: str):
    """The kit of game ``name``: one of :data:`KITS`, else its package's ``kit`` module."""
    return KITS.get(name) or importlib.import_module(f"{GAMES[name]}.kit")


def _geschenkt_variants(n: int) -> list:
    from geschenkt_sim.rules import Rules

    return [Rules(n_players=n, chips_visible=False), Rules(n_players=n, variant="tactical")]


def _geschenkt_hidden(state, seat) -> list[int]:
    """The stack order, the face-up card's place in it and the removed cards (``POS``,
    ``N_CARDS``, ``REMOVED``, ``DECK``), the seat being shown, and others' chips if hidden."""
    from geschenkt_sim.state import CHIPS, CHIPS_VISIBLE, N_PLAYERS, POS, SEAT, STATE_SIZE

    hidden = [SEAT, *range(POS, STATE_SIZE)]
    if not state[CHIPS_VISIBLE]:
        hidden += [CHIPS + p for p in range(state[N_PLAYERS]) if p != seat]
    return hidden


def _geschenkt_twin(rules, start, final):
    from geschenkt_sim.reference import ReferenceGame
    from geschenkt_sim.state import FIRST, REMOVED, cards_of, deck_of

    return ReferenceGame(rules, deck_of(start), cards_of(start[REMOVED]), int(start[FIRST]))


def _geschenkt_explicit_twin(rules, steps, final):
    from geschenkt_sim.reference import ReferenceGame

    deck = outcomes_of(steps, "turn up")
    removed = [c for c in range(rules.lowest_card, rules.highest_card + 1) if c not in deck]
    first = outcomes_of(steps, "first seat") or [rules.first_player]
    return ReferenceGame(rules, deck, removed, first[0])


def _geschenkt_expected(rules, before, twin):
    """The first seat (when the rules draw it, all equally likely), then each card turned up
    (``reference.turn_up_weights``); every seat sees both."""
    from geschenkt_sim.reference import turn_up_weights

    everyone = frozenset(range(rules.n_players))
    if rules.first_player == "random" and not outcomes_of(before, "first seat"):
        return "first seat", dict.fromkeys(everyone, 1), everyone
    return "turn up", turn_up_weights(rules, twin.observation(0)["hands"]), everyone


def _tulips_variants(n: int) -> list:
    from tulips_sim.rules import Rules

    return [Rules(n_players=n), Rules(n_players=n, n_revealed=2, seeding_tie="random")]


def _tulips_hidden(state, seat) -> list[int]:
    """Everything past the observation but the seat's own secret cards, dealt pair and setup
    choice (the deck, removed cards, others' secrets and dealt pairs, the reveal key, the
    secret pile); in the observation's range the slots ``observe`` rewrites for the seat
    (``SEAT``, ``HAND``, ``OWN_SECRET``), and the drawn card unless the seat holds it."""
    from tulips_sim.rules import N_TYPES
    from tulips_sim.state import (
        DEALT,
        DRAWN,
        HAND,
        OBS_SIZE,
        OWN_SECRET,
        PENDING,
        PHASE,
        SEAT,
        SECRETS,
        SETUP,
        STATE_SIZE,
        TURN,
    )

    own = {DEALT + 2 * seat, DEALT + 2 * seat + 1, PENDING + seat}
    own |= set(range(SECRETS + seat * N_TYPES, SECRETS + (seat + 1) * N_TYPES))
    hidden = [SEAT, HAND, HAND + 1, *range(OWN_SECRET, OWN_SECRET + N_TYPES)]
    if seat != state[TURN] or state[PHASE] == SETUP:
        hidden.append(DRAWN)
    return hidden + [i for i in range(OBS_SIZE, STATE_SIZE) if i not in own]


def deal_of(rules, start_state, final_state, keys=None):
    """The engine's deal as the Tulips twin takes it: removed cards, seeding draws, dealt pairs,
    the whole draw pile (cards the game end leaves undrawn included), first player, reveal keys
    that make the twin turn up the positions the engine turned up."""
    from tulips_sim import reference
    from tulips_sim.rules import N_TYPES
    from tulips_sim.scoring import reveal_positions
    from tulips_sim.state import (
        DEALT,
        DECK,
        FIRST,
        N_REVEALED,
        REMOVED,
        REVEAL_KEY,
        SECRET_SIZE,
        SEED_DRAWS,
        SEED_N,
        START,
        TOP,
        card_of,
    )

    n = rules.n_players
    s = start_state
    if keys is None:
        positions = reveal_positions(
            final_state[REVEAL_KEY], final_state[SECRET_SIZE], final_state[N_REVEALED]
        )
        size = int(final_state[SECRET_SIZE])
        keys = [len(positions) + p for p in range(size)]
        for rank, p in enumerate(positions):
            keys[p] = rank
    removed = [card_of(t) for t in range(N_TYPES) for _ in range(s[REMOVED + t])]
    start = (card_of(s[START]), card_of(s[START + 1]))
    return reference.Deal(
        removed=removed,
        seeding=[card_of(c) for c in s[SEED_DRAWS : SEED_DRAWS + s[SEED_N]]],
        dealt=[(card_of(s[DEALT + 2 * p]), card_of(s[DEALT + 2 * p + 1])) for p in range(n)],
        deck=[card_of(c) for c in s[DECK + s[TOP] : DECK + rules.deck_size]],
        first_player=int(s[FIRST]),
        reveal_keys=keys,
        start_order=start if rules.seeding_tie == "random" else None,
    )


def reference_for(rules, start_state, final_state):
    """The Tulips reference game of the engine's deal (see :func:`deal_of`)."""
    from tulips_sim import reference

    return reference.ReferenceGame(rules, deal_of(rules, start_state, final_state))


def _tulips_explicit_twin(rules, steps, final):
    """The Tulips twin on the deal the events resolved: the draw pile is the cards drawn in
    order, then the cards never drawn; the reveal keys turn up, in order, positions of the
    secret festival (the engine's order: setup cards by seat, then the turns' adds) holding the
    revealed cards."""
    from tulips_sim import reference
    from tulips_sim.state import PILE, SECRET_SIZE, card_of

    def cards(kind):
        return [card_of(o) for o in outcomes_of(steps, kind)]

    seeding, dealt, drawn = cards("seed"), cards("deal"), cards("draw")
    left = Counter(reference.tables_for(rules).deck)
    left.subtract([*cards("remove"), seeding[0], seeding[-1], *dealt, *drawn])
    start = None
    if outcomes_of(steps, "coin"):
        start = (seeding[0], seeding[-1])[:: 1 if outcomes_of(steps, "coin")[0] == 0 else -1]
    first = outcomes_of(steps, "first seat") or [rules.first_player]
    pile = [int(c) for c in final[PILE : PILE + final[SECRET_SIZE]]]
    keys = list(range(len(pile), 2 * len(pile)))
    for rank, card in enumerate(outcomes_of(steps, "reveal")):
        position = next(p for p, c in enumerate(pile) if c == card and keys[p] >= len(pile))
        keys[position] = rank
    deal = reference.Deal(
        removed=cards("remove"),
        seeding=seeding,
        dealt=[(dealt[2 * p], dealt[2 * p + 1]) for p in range(rules.n_players)],
        deck=drawn + list(left.elements()),
        first_player=first[0],
        reveal_keys=keys,
        start_order=start,
    )
    return reference.ReferenceGame(rules, deal)


def _tulips_expected(rules, before, twin):
    """The events in the rules' order (``reference.ChanceBook`` for the cards): the removed
    cards (seen by nobody), the seeding (by all), the coin on equal seeding values under
    ``seeding_tie="random"``, the first seat when the rules draw it, the dealt pairs (by their
    seat), then a draw for the seat to act while the game runs (by it) and the end-game reveal
    (by all)."""
    from tulips_sim import reference
    from tulips_sim.state import card_of, card_type

    book = reference.ChanceBook(rules)
    for step in before:
        if isinstance(step, Chance) and step.kind in ("remove", "seed", "deal", "draw"):
            book.turn_up(step.kind, card_of(step.outcome))
    n, everyone = rules.n_players, frozenset(range(rules.n_players))
    pile = {card_type(*card): w for card, w in book.weights().items()}
    dealt = len(outcomes_of(before, "deal"))
    if len(outcomes_of(before, "remove")) < reference.tables_for(rules).removed:
        return "remove", pile, frozenset()
    if not book.seeded:
        return "seed", pile, everyone
    equal = book.seeding[0][1] == book.seeding[-1][1]
    if rules.seeding_tie == "random" and equal and not outcomes_of(before, "coin"):
        return "coin", {0: 1, 1: 1}, everyone
    if rules.first_player == "random" and not outcomes_of(before, "first seat"):
        return "first seat", dict.fromkeys(everyone, 1), everyone
    if dealt < 2 * n:
        return "deal", pile, frozenset([dealt // 2])
    if not twin.is_over():
        return "draw", pile, frozenset([twin.current_player()])
    secret = [c for p in everyone for c in _cards_of_counts(twin.observation(p)["own_secret"])]
    revealed = [card_of(o) for o in outcomes_of(before, "reveal")]
    weights = reference.reveal_weights(secret, revealed)
    return "reveal", {card_type(*card): w for card, w in weights.items()}, everyone


def _cards_of_counts(counts) -> list:
    """The cards ``(variety, value)`` of a 4x3 table of counts."""
    return [(v, 2 + i) for v, row in enumerate(counts) for i, k in enumerate(row) for _ in range(k)]


KITS = {
    "geschenkt": SimpleNamespace(
        variants=_geschenkt_variants,
        hidden_slots=_geschenkt_hidden,
        twin=_geschenkt_twin,
        explicit_twin=_geschenkt_explicit_twin,
        expected_chance=_geschenkt_expected,
    ),
    "tulips": SimpleNamespace(
        variants=_tulips_variants,
        hidden_slots=_tulips_hidden,
        twin=reference_for,
        explicit_twin=_tulips_explicit_twin,
        expected_chance=_tulips_expected,
    ),
}

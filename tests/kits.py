"""What the game contract test (``test_game_contract.py``) needs to know of each game beyond
its ``Game`` record: a kit of three functions.

* ``variants(n)``: a few rules for ``n`` players (the options that change what is hidden).
* ``hidden_slots(state, seat)``: the state slots ``seat`` may not know now, from the game's
  documented layout (``state.py``); the test changes every one and expects the same
  observation.
* ``twin(rules, start, final)``: the game's plain-Python reference twin set up on the deal of
  ``start`` (``final`` gives what the deal left to the end, such as Tulips' reveal), with
  ``legal_actions()``, ``apply(action)``, ``scores()`` and ``winners()``.

The kits of the two games of the project are below; any other game keeps its kit in its own
package, as the module ``<package>.kit`` (see ``tests/toy_game/kit.py``).
"""

import importlib
from types import SimpleNamespace

from giftsim.game import GAMES


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


KITS = {
    "geschenkt": SimpleNamespace(
        variants=_geschenkt_variants, hidden_slots=_geschenkt_hidden, twin=_geschenkt_twin
    ),
    "tulips": SimpleNamespace(
        variants=_tulips_variants, hidden_slots=_tulips_hidden, twin=reference_for
    ),
}

"""Compiled Gift of Tulips rules: legal actions, applying an action in place, observation.

An observation is the first ``OBS_SIZE`` slots of the state (layout in ``state.py``) with the
private view filled for the observing seat ``SEAT``: the card it holds (``DRAWN``, only
when it is to act), its dealt pair while it chooses at setup (``HAND``) and the counts of the
cards it put into the secret festival (``OWN_SECRET``). ``LEGAL`` is a bit mask of the legal
action ids. An agent reads the observation by these slot names of ``state.py``; nothing past
``OBS_SIZE`` is in it.

A step's helpers, the verbs the game loop calls at every step and ``state.deal_keyed`` are
inlined at Numba's IR level rather than left to LLVM's inliner: after the explicit-chance
branches were added (``_chance_draw``), its choices made a step dearer (instruction counts in
``docs/perf/README.md``). The search and learned agents' modules call them instead
(``giftsim.inlining``): copied into each of their many call sites they cost a third of a cold
compile of a search and no speed.
"""

import numpy as np
from numba import njit

from giftsim.inlining import unless_called
from tulips_sim.rules import (
    FESTIVAL,
    GIVE,
    KEEP,
    KIND_ADD,
    KIND_GIVE,
    KIND_KEEP,
    KIND_NONE,
    MAX_DECK,
    N_RANKS,
    N_TYPES,
    N_VARIETIES,
    NUM_ACTIONS,
    SECRET,
    SETUP_FIRST,
    SETUP_SECOND,
)
from tulips_sim.scoring import majority_points, pick_positions
from tulips_sim.state import (
    BOUQUET,
    BQ_COUNT,
    BQ_VALUE,
    CHANCE,
    DEALT,
    DECK,
    DECK_LEFT,
    DECK_N,
    DRAW,
    DRAWN,
    FACE_UP,
    FIRST,
    FIRST_DRAW,
    GIVE_BONUS,
    GIVE_POINTS,
    HAND,
    KEEP_POINTS,
    KEEP_PTS,
    LEGAL,
    N_DECISIONS,
    N_PLAYERS,
    N_REVEALED,
    NO_CHANCE,
    OBS_SIZE,
    OPEN_STEP,
    ORDER,
    OVER,
    OWN_SECRET,
    PENDING,
    PHASE,
    PILE,
    RANK,
    REVEAL,
    REVEAL_KEY,
    REVEALED,
    SEAT,
    SECOND_DRAW,
    SECRET_SIZE,
    SECRETS,
    SETUP,
    SETUP_OPEN,
    SETUP_SCORES,
    TOP,
    TOTALS,
    TURN,
    USED_KIND,
    card_type,
    value_of,
    variety_of,
)

_KEEP_BIT = np.int64(1) << KEEP
_ADD_BITS = (np.int64(1) << FESTIVAL) | (np.int64(1) << SECRET)
_SETUP_BITS = (np.int64(1) << SETUP_FIRST) | (np.int64(1) << SETUP_SECOND)


@njit(cache=True, inline=unless_called)
def kind_of(action):
    """Kind of a turn action: keep, give or add (festival and secret are both add)."""
    if action == KEEP:
        return KIND_KEEP
    if action in (FESTIVAL, SECRET):
        return KIND_ADD
    return KIND_GIVE


@njit(cache=True, inline=unless_called)
def is_over(state):
    return state[PHASE] == OVER


@njit(cache=True)
def is_legal(state, action):
    return 0 <= action < NUM_ACTIONS and (state[LEGAL] >> action) & 1 == 1


@njit(cache=True, inline=unless_called)
def legal_mask(state):
    """Bit mask of the legal action ids (the engine keeps it in ``LEGAL``; 0 once over)."""
    return state[LEGAL]


@njit(cache=True)
def legal_actions(state):
    """Legal action ids, ascending (a new array, from :func:`legal_mask`)."""
    mask = legal_mask(state)
    out = np.empty(NUM_ACTIONS, np.int64)
    n = 0
    for a in range(NUM_ACTIONS):
        if (mask >> a) & 1:
            out[n] = a
            n += 1
    return out[:n]


@njit(cache=True, inline=unless_called)
def _give_bits(state):
    """GIVE + s for every seat s but the one to act."""
    everyone = ((np.int64(1) << state[N_PLAYERS]) - 1) << GIVE
    return everyone & ~(np.int64(1) << (GIVE + state[TURN]))


@njit(cache=True, inline=unless_called)
def _update_legal(state):
    """Recompute ``LEGAL`` from the phase and the kind already used this turn."""
    phase = state[PHASE]
    if phase == SETUP:
        state[LEGAL] = _SETUP_BITS
    elif phase == OVER:
        state[LEGAL] = 0
    else:
        used = state[USED_KIND]
        bits = np.int64(0)
        if used != KIND_KEEP:
            bits |= _KEEP_BIT
        if used != KIND_ADD:
            bits |= _ADD_BITS
        if used != KIND_GIVE:
            bits |= _give_bits(state)
        state[LEGAL] = bits


@njit(cache=True)
def begin(state):
    """Open the setup: seat 0 chooses first. Called once after dealing; after
    ``state.deal_open`` it does nothing (the last dealt card's chance event opens the setup)."""
    if state[CHANCE] == NO_CHANCE:
        open_setup(state)


@njit(cache=True)
def open_setup(state):
    """Seat 0 is to choose its setup cards."""
    state[TURN] = 0
    state[SEAT] = 0
    show_private(state, 0)
    _update_legal(state)


@njit(cache=True, inline=unless_called)
def apply_action(state, action):
    """Apply a legal ``action`` of the seat to act, in place: a setup choice, or the drawn
    card put away; then the next card is drawn, for this seat or the next one. The draw has
    this one call, so each inlined copy of the step compiles the draw and the game's end once."""
    state[N_DECISIONS] += 1
    if state[PHASE] == SETUP:
        if _setup_choice(state, action):
            _update_legal(state)
            return
        new_turn = True
    else:
        _put_away(state, action)
        new_turn = state[PHASE] == SECOND_DRAW
        if new_turn:
            state[TURN] = state[TURN] + 1 if state[TURN] + 1 < state[N_PLAYERS] else 0
        else:
            state[USED_KIND] = kind_of(action)
            state[PHASE] = SECOND_DRAW
    if new_turn:
        state[USED_KIND] = KIND_NONE
        state[PHASE] = FIRST_DRAW
    _draw(state)
    if new_turn and state[TURN] >= 0:  # neither over nor at explicit chance's end-game reveal
        show_private(state, state[TURN])
    _update_legal(state)


@njit(cache=True)
def _setup_choice(state, action):
    """Record a seat's setup choice; its secret card goes in now, its bouquet card now (rules
    ``setup="in_turn"``) or with everyone's after the last choice (``"simultaneous"``).
    Whether a seat is still to choose (else the first seat's turn begins)."""
    seat = state[TURN]
    pick = 0 if action == SETUP_FIRST else 1
    state[PENDING + seat] = state[DEALT + 2 * seat + pick]
    _to_secret(state, seat, state[DEALT + 2 * seat + 1 - pick])
    if state[SETUP_OPEN]:
        _setup_bouquet(state, seat)
    if seat + 1 < state[N_PLAYERS]:
        state[TURN] = seat + 1
        show_private(state, seat + 1)
        return True
    if not state[SETUP_OPEN]:
        for s in range(state[N_PLAYERS]):
            _setup_bouquet(state, s)
    state[HAND] = -1
    state[HAND + 1] = -1
    state[TURN] = state[FIRST]
    return False


@njit(cache=True)
def _setup_bouquet(state, seat):
    """Lay ``seat``'s chosen setup card face up in its bouquet (scoring it if the rules say)."""
    card = state[PENDING + seat]
    if state[SETUP_SCORES]:
        state[KEEP_POINTS + seat] += state[KEEP_PTS + state[RANK + variety_of(card)] - 1]
    _to_bouquet(state, seat, card)


@njit(cache=True, inline=unless_called)
def _draw(state):
    """Turn up the top card for the seat to act, or end the game when the pile is empty."""
    if state[TOP] >= state[DECK_N]:
        state[DRAWN] = -1
        finish(state)
        return
    card = state[DECK + state[TOP]]
    if card < 0:  # explicit chance (state.deal_open): a chance event instead
        _chance_draw(state)
        return
    state[DRAWN] = card
    state[TOP] += 1
    state[DECK_LEFT] -= 1


@njit(cache=True, inline=unless_called)
def _put_away(state, action):
    """Put the drawn card where ``action`` says: the seat's bouquet, the festival face up or
    in secret, or another seat's bouquet."""
    seat = state[TURN]
    card = state[DRAWN]
    rank = state[RANK + variety_of(card)]
    if action == KEEP:
        state[KEEP_POINTS + seat] += state[KEEP_PTS + rank - 1]
        _to_bouquet(state, seat, card)
    elif action == FESTIVAL:
        add_faceup(state, variety_of(card), value_of(card))
    elif action == SECRET:
        _to_secret(state, seat, card)
    else:
        state[GIVE_POINTS + seat] += value_of(card) + state[GIVE_BONUS + rank - 1]
        _to_bouquet(state, action - GIVE, card)


@njit(cache=True, inline=unless_called)
def _to_bouquet(state, seat, card):
    variety = variety_of(card)
    state[BOUQUET + seat * N_TYPES + card] += 1
    state[BQ_COUNT + seat * N_VARIETIES + variety] += 1
    state[BQ_VALUE + seat * N_VARIETIES + variety] += value_of(card)


@njit(cache=True, inline=unless_called)
def _to_secret(state, seat, card):
    state[PILE + state[SECRET_SIZE]] = card
    state[SECRET_SIZE] += 1
    state[SECRETS + seat * N_TYPES + card] += 1
    if seat == state[SEAT]:
        state[OWN_SECRET + card] += 1  # keep the private view of the seat to act in step


@njit(cache=True, inline=unless_called)
def add_faceup(state, variety, value):
    """Add a face-up card to the festival (rules §4.2): the variety's new total goes before
    the first stack whose total is equal or lower, so the card just played wins ties."""
    state[FACE_UP + card_type(variety, value)] += 1
    state[TOTALS + variety] += value
    total = state[TOTALS + variety]
    # take the variety out of the order, keeping the others in place
    n = 0
    for r in range(N_RANKS):
        v = state[ORDER + r]
        if v >= 0 and v != variety:
            state[ORDER + n] = v
            n += 1
    pos = n
    for r in range(n):
        if state[TOTALS + state[ORDER + r]] <= total:
            pos = r
            break
    for r in range(n, pos, -1):
        state[ORDER + r] = state[ORDER + r - 1]
    state[ORDER + pos] = variety
    for r in range(n + 1, N_RANKS):
        state[ORDER + r] = -1
    for r in range(n + 1):
        state[RANK + state[ORDER + r]] = r + 1


@njit(cache=True)
def finish(state):
    """End the game: reveal the secret cards into the festival, then pay majorities."""
    size = state[SECRET_SIZE]
    scratch = state[REVEALED : REVEALED + size]
    picks = pick_positions(state[REVEAL_KEY], size, state[N_REVEALED], scratch)
    for i in range(picks):
        reveal_card(state, i, state[PILE + scratch[i]])
    end_game(state, picks)


@njit(cache=True)
def reveal_card(state, i, card):
    """Turn up ``card`` as the ``i``-th card of the end-game reveal."""
    state[REVEALED + i] = card
    add_faceup(state, variety_of(card), value_of(card))


@njit(cache=True)
def end_game(state, picks):
    """Close the game after ``picks`` cards were revealed: pay majorities."""
    if picks < MAX_DECK:
        state[REVEALED + picks] = -1
    majority_points(state)
    state[PHASE] = OVER
    state[TURN] = -1
    state[USED_KIND] = KIND_NONE


@njit(cache=True)
def _chance_draw(state):
    """Explicit chance: the top card is face down. At the pile's end mark (``DECK_N - 1``, see
    ``state.py``) the end-game reveal begins, its cards one chance event each (positions of
    the secret festival still to choose from in ``REVEALED``, as :func:`finish` keeps them);
    elsewhere the seat to act draws it (``DRAW``)."""
    state[DRAWN] = -1
    if state[TOP] < state[DECK_N] - 1:
        state[CHANCE] = DRAW
        return
    size = state[SECRET_SIZE]
    for i in range(size):
        state[REVEALED + i] = i
    state[OPEN_STEP] = 0
    state[TURN] = -1
    state[USED_KIND] = KIND_NONE
    if min(state[N_REVEALED], size) == 0:
        end_game(state, np.int64(0))  # not a literal 0: see giftsim/rng.py
    else:
        state[CHANCE] = REVEAL


@njit(cache=True, inline=unless_called)
def _private_view(state, seat, out):
    """Write ``seat``'s private view slots (own secret cards, setup pair) into ``out``."""
    for t in range(N_TYPES):
        out[OWN_SECRET + t] = state[SECRETS + seat * N_TYPES + t]
    choosing = state[PHASE] == SETUP and state[PENDING + seat] < 0
    out[HAND] = state[DEALT + 2 * seat] if choosing else -1
    out[HAND + 1] = state[DEALT + 2 * seat + 1] if choosing else -1


@njit(cache=True, inline=unless_called)
def show_private(state, seat):
    """Fill the private view slots of the state for ``seat`` (the seat to act, in the loop)."""
    state[SEAT] = seat
    _private_view(state, seat, state)


@njit(cache=True)
def show_turn(state):
    """Whether the state's first ``OBS_SIZE`` slots are the observation of the seat to act:
    always, since the engine keeps the private view filled for that seat (``show_private``)."""
    return True


@njit(cache=True)
def observe(state, seat, obs):
    """Write what ``seat`` may know into ``obs`` (the first ``OBS_SIZE`` slots of ``state.py``)."""
    for i in range(OBS_SIZE):  # an explicit loop: a slice copy allocates views here
        obs[i] = state[i]
    obs[SEAT] = seat
    _private_view(state, seat, obs)
    if seat != state[TURN] or state[PHASE] == SETUP:
        obs[DRAWN] = -1

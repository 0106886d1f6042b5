"""Known answers of the Tulips agent features on hand-built observations, and ``hoarder`` at
its defaults deciding exactly as it did before its last three parameters existed."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.registry import parse
from agents.tulips import hoarder
from agents.tulips.features import (
    all_standings,
    lead_after_card,
    lead_now,
    margin_after_add,
    unseen,
)
from experiments.games import play_slow
from giftsim.game import load_game
from tulips_sim.rules import KIND_ADD, KIND_GIVE, KIND_KEEP, Rules
from tulips_sim.state import (
    BOUQUET,
    BQ_COUNT,
    BQ_VALUE,
    COPIES,
    DRAWN,
    FACE_UP,
    GIVE_POINTS,
    KEEP_POINTS,
    OBS_SIZE,
    ORDER,
    OWN_SECRET,
    RANK,
    TOTALS,
    deal,
    new_state,
    value_of,
    variety_of,
)

PURPLE, BLUE, PINK, ORANGE = range(4)


def card(variety, value):
    """The card type of a variety and value (``variety * 3 + value - 2``)."""
    return variety * 3 + value - 2


# The position of the margin tables (4 players): festival Blue 9, Orange 6, Pink 3; seat 0
# holds two Blue 2, seat 1 a Blue 4 and three Orange 2, seat 2 a Pink 3; seats 0-2 scored 12,
# 5 and 16 points so far. Majority points now: 15 (Blue 1st), 10 + 10 (Blue 2nd, Orange 1st), 5
# (Pink 1st), 0.
STACKS = [(BLUE, 9), (ORANGE, 6), (PINK, 3)]
BOUQUETS = [(0, card(BLUE, 2), 2), (1, card(BLUE, 4), 1), (1, card(ORANGE, 2), 3)]
BOUQUETS += [(2, card(PINK, 3), 1)]
SCORES = [(10, 2), (5, 0), (15, 1), (0, 0)]


def observation(stacks=STACKS, bouquets=BOUQUETS, scores=SCORES, n_players=4, **private):
    """A 4-player observation holding only the given festival, bouquets (``(seat, card,
    copies)``) and scores (``(giving, keeping)`` per seat); ``private`` sets ``face_up``,
    ``own_secret`` (card counts), ``drawn`` and ``copies`` (per value 2, 3, 4, every variety
    alike)."""
    state = new_state()
    deal(Rules(n_players=n_players).to_array(), 0, 0, 0, state)
    state[ORDER : ORDER + 4], state[TOTALS : TOTALS + 4], state[RANK : RANK + 4] = -1, 0, 4
    for r, (variety, total) in enumerate(stacks):
        state[ORDER + r], state[TOTALS + variety], state[RANK + variety] = variety, total, r + 1
    state[BOUQUET : BQ_VALUE + 24] = 0
    for seat, kind, copies in bouquets:
        state[BOUQUET + seat * 12 + kind] += copies
        state[BQ_COUNT + seat * 4 + variety_of(kind)] += copies
        state[BQ_VALUE + seat * 4 + variety_of(kind)] += copies * value_of(kind)
    for seat, (giving, keeping) in enumerate(scores):
        state[GIVE_POINTS + seat], state[KEEP_POINTS + seat] = giving, keeping
    state[FACE_UP : FACE_UP + 12] = private.get("face_up", [0] * 12)
    state[OWN_SECRET : OWN_SECRET + 12] = private.get("own_secret", [0] * 12)
    state[DRAWN] = private.get("drawn", -1)
    state[COPIES : COPIES + 12] = np.tile(private.get("copies", (6, 6, 6)), 4)
    return state[:OBS_SIZE].copy()


def counts(*cards):
    """Card counts by type (12 slots) of the given card types."""
    out = [0] * 12
    for kind in cards:
        out[kind] += 1
    return out


# (private view, card, unseen copies): 6 copies of each card, less every one I can see.
UNSEEN = [
    ({}, card(ORANGE, 4), 6),
    ({}, card(BLUE, 4), 5),  # seat 1's bouquet
    ({}, card(ORANGE, 2), 3),
    ({"drawn": card(PINK, 3)}, card(PINK, 3), 4),  # seat 2's bouquet and my hand
    ({"face_up": counts(card(PINK, 3)), "own_secret": counts(card(PINK, 3))}, card(PINK, 3), 3),
    ({"own_secret": counts(card(BLUE, 4))}, card(BLUE, 3), 6),
]


@pytest.mark.parametrize(("private", "kind", "expected"), UNSEEN)
def test_unseen_copies_leave_out_every_card_the_seat_can_see(private, kind, expected):
    assert unseen(observation(**private), kind) == expected


def test_standings_add_points_scored_so_far_to_majority_points_now():
    standings = all_standings(observation())
    assert standings == (12 + 15, 5 + 20, 16 + 5, 0, 0, 0)
    assert lead_now(observation(), 0, standings) == 27 - 25
    assert lead_now(observation(), 1, standings) == 25 - 27


# (seat, receiver, card, margin after): a gift changes only its variety's majorities.
MARGIN_AFTER_CARD = [
    (0, 1, card(BLUE, 4), 22 - 30),  # seat 1 passes me in Blue on value: 15 and 10 swap
    (0, 0, card(BLUE, 2), 27 - 25),  # I keep leading Blue
    (0, 2, card(ORANGE, 4), 27 - 28),  # seat 2 takes Orange's second place (7) and passes 25
    (0, 3, card(ORANGE, 4), 27 - 25),  # seat 3 takes it and stays last
    (3, 3, card(PURPLE, 2), 0 - 27),  # Purple is not in the festival: nothing changes
]


@pytest.mark.parametrize(("seat", "receiver", "kind", "expected"), MARGIN_AFTER_CARD)
def test_margin_after_a_card_joins_a_bouquet(seat, receiver, kind, expected):
    obs = observation()
    assert lead_after_card(obs, seat, receiver, kind, all_standings(obs)) == expected


# (seat, card added face up, margin after): festival ranks shift, and with them every majority.
MARGIN_AFTER_ADD = [
    (0, card(PINK, 4), 27 - 26),  # Pink 7 passes Orange 6: seat 2's Pink pays 10, Orange 5
    (1, card(PINK, 4), 20 - 27),
    (0, card(ORANGE, 4), 22 - 27),  # Orange 10 passes Blue 9: my Blue pays 10, seat 1's 15
    (1, card(ORANGE, 4), 27 - 22),
    (0, card(PURPLE, 2), 27 - 25),  # Purple 2 enters 4th, below Pink 3: nothing changes
]


@pytest.mark.parametrize(("seat", "kind", "expected"), MARGIN_AFTER_ADD)
def test_margin_after_a_face_up_festival_card(seat, kind, expected):
    assert margin_after_add(observation(), seat, kind) == expected


# One unseen card only (three copies of each value-2 card; seat 1 holds the Orange ones, my
# secret cards the Purple and Pink ones, and I hold two Blue): a Blue 2, for seat 0 that leads
# Blue (1st). Keeping it is worth hoard = 3,
# giving it 2 + 3, adding it face up climb * 3 = 3, hiding it 0.
FOLLOW_UP = [(KIND_GIVE, 3.0), (KIND_KEEP, 5.0), (KIND_ADD, 5.0)]


@pytest.mark.parametrize(("used", "expected"), FOLLOW_UP)
def test_follow_up_is_the_best_action_left_for_the_unseen_cards(used, expected):
    mine = counts(*[card(PURPLE, 2)] * 3, *[card(PINK, 2)] * 3)
    obs = observation(own_secret=mine, copies=(3, 0, 0))
    assert [max(unseen(obs, kind), 0) for kind in range(12)] == counts(card(BLUE, 2))
    params = parse("hoarder", "tulips").param_row()
    assert hoarder._follow_ups(obs, params, 0)[used] == expected


@pytest.mark.parametrize("pick", [0.0, 1.0])
def test_pick_spares_the_rival_a_gift_would_carry_past_me(pick):
    """Seats 2 and 3 hold no Orange; an Orange 4 takes seat 2 past seat 1 but not seat 3."""
    obs = observation()
    params = parse(f"hoarder:pick={pick}", "tulips").param_row()
    standings = all_standings(obs)
    chosen = {
        hoarder._receiver(obs, params, 0, card(ORANGE, 4), standings, np.array([s], np.uint64))
        for s in range(1, 40)
    }
    assert chosen == ({2, 3} if pick == 0.0 else {3})


GOLDEN = Path(__file__).parent / "golden" / "hoarder_decisions.npz"


@pytest.mark.parametrize("n", [2, 4, 6])
def test_hoarder_at_its_defaults_decides_as_before_its_new_parameters(n):
    """``tests/golden/hoarder_decisions.npz`` holds every action of games 0..99 of seed 7
    played by ``hoarder`` in every seat as it was before ``race``, ``follow`` and ``pick``
    joined its parameters (made at 32f6574 from a frozen copy of that code): today's
    ``hoarder`` at its defaults plays them action for action."""
    golden = np.load(GOLDEN)
    actions, ends = golden[f"actions_{n}p"], golden[f"ends_{n}p"]
    rules, agents = load_game("tulips").rules(n_players=n), [parse("hoarder", "tulips")] * n
    start = 0
    for index, end in enumerate(ends):
        played = play_slow("tulips", rules, agents, 7, index)
        assert played.actions == actions[start:end].tolist(), f"game {index}"
        start = end


# In a fresh process with an empty cache (so that every callee compiles here, not loads): the
# features an agent reads of an observation, and how many times each callee compiled.
ONE_COMPILE_EACH = """
import numpy as np
from agents.tulips import features
from tulips_sim import scoring
from tulips_sim.rules import Rules
from tulips_sim.state import OBS_SIZE, deal, new_state

state = new_state()
deal(Rules(n_players=4).to_array(), 0, 0, 0, state)
obs = state[:OBS_SIZE].copy()
obs.flags.writeable = False  # as an agent is shown its observation
standings = features.all_standings(obs)
features.margin_after_add(obs, 0, 5)
features.lead_after_card(obs, 0, 1, 5, standings)
callees = (features.points_now, features.slot_now, features.scored_so_far)
callees += (features.rank_after_add, scoring.slot_of, scoring.strength)
print(" ".join(str(len(f.signatures)) for f in callees))
"""


def test_a_feature_compiles_once_whatever_seat_or_variety_it_is_asked_of(tmp_path):
    """A seat or variety number written into a call (``points_now(obs, 3)``) had compiled the
    callee and all below it once per number: ``points_now`` 6 times, ``slot_of`` 8. Each
    compiles once (what that saves a cold start: ``docs/perf/README.md``), but for the one
    copy of ``slot_of`` and ``strength`` kept for "no card added" (-1, -1)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    command = [sys.executable, "-c", ONE_COMPILE_EACH]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["1", "1", "1", "1", "2", "2"]

"""Known answers from docs/rules/gift_of_tulips.md, as tables, for engine and reference."""

import pytest

from tulips_sim import reference
from tulips_sim.engine import add_faceup, apply_action, begin, is_over
from tulips_sim.rules import (
    GIVING_BONUS,
    KEEPING_POINTS,
    MAJORITY_2P,
    MAJORITY_3_4P,
    MAJORITY_5_6P,
    Rules,
)
from tulips_sim.scoring import majority_points
from tulips_sim.state import (
    BQ_COUNT,
    BQ_VALUE,
    DECK_LEFT,
    MAJORITY_PTS,
    ORDER,
    PHASE,
    RANK,
    START,
    TOTALS,
    TURN,
    deal,
    new_state,
    value_of,
    variety_of,
)

PURPLE, BLUE, PINK, ORANGE = range(4)


def festival_state(stacks, n_players=4, **options):
    """A dealt state whose festival holds ``stacks`` = [(variety, total), ...] in rank order."""
    state = new_state()
    deal(Rules(n_players=n_players, **options).to_array(), 0, 0, 0, state)
    state[ORDER : ORDER + 4] = -1
    state[TOTALS : TOTALS + 4] = 0
    state[RANK : RANK + 4] = 4
    for r, (variety, total) in enumerate(stacks):
        state[ORDER + r] = variety
        state[TOTALS + variety] = total
        state[RANK + variety] = r + 1
    return state


# (festival before, card added, order after) — rules §4.2, its worked example first.
RANKING = [
    ([(BLUE, 5), (PURPLE, 2), (PINK, 2)], (ORANGE, 2), [BLUE, ORANGE, PURPLE, PINK]),
    ([(BLUE, 5), (PURPLE, 3)], (PURPLE, 2), [PURPLE, BLUE]),  # the card just played wins ties
    ([(BLUE, 5), (PURPLE, 3)], (PINK, 2), [BLUE, PURPLE, PINK]),  # a low newcomer goes last
    ([(BLUE, 6), (PURPLE, 5), (PINK, 4), (ORANGE, 3)], (ORANGE, 3), [ORANGE, BLUE, PURPLE, PINK]),
    ([(BLUE, 6), (PURPLE, 5), (PINK, 4)], (PINK, 4), [PINK, BLUE, PURPLE]),  # 8 passes 6 and 5
]


@pytest.mark.parametrize(("stacks", "card", "expected"), RANKING)
def test_festival_ranking(stacks, card, expected):
    state = festival_state(stacks)
    add_faceup(state, *card)
    assert [int(v) for v in state[ORDER : ORDER + 4] if v >= 0] == expected
    assert [int(state[RANK + v]) for v in expected] == list(range(1, len(expected) + 1))
    order = [v for v, _ in stacks]
    totals = [0] * 4
    for v, t in stacks:
        totals[v] = t
    reference.add_faceup(order, totals, *card)
    assert order == expected


# (players, options, festival, bouquets in the scored variety [(cards, value)], points)
# Row 1 is the worked example of rules §7.3 (Orange 2nd; Sara, Catherine, María).
MAJORITY = [
    (3, {}, [(BLUE, 9), (ORANGE, 6)], [(1, 4), (2, 6), (2, 4)], [0, 10, 7]),
    (3, {}, [(ORANGE, 9)], [(2, 6), (2, 6), (1, 4)], [15, 15, 10]),
    (3, {"majority_ties": "competition"}, [(ORANGE, 9)], [(2, 6), (2, 6), (1, 4)], [15, 15, 0]),
    (2, {}, [(ORANGE, 9)], [(0, 0), (0, 0)], [0, 0]),
    (2, {"zero_cards_majority": True}, [(ORANGE, 9)], [(0, 0), (0, 0)], [15, 15]),
    (5, {}, [(BLUE, 9), (ORANGE, 6)], [(3, 9), (3, 8), (3, 8), (1, 2), (0, 0)], [10, 7, 7, 4, 0]),
    (
        5,
        {"majority_ties": "competition"},
        [(BLUE, 9), (ORANGE, 6)],
        [(3, 9), (3, 8), (3, 8), (1, 2), (0, 0)],
        [10, 7, 7, 0, 0],
    ),
    (
        4,
        {},
        [(BLUE, 9), (PINK, 8), (PURPLE, 7), (ORANGE, 6)],
        [(3, 9), (1, 2), (0, 0), (0, 0)],
        [0, 0, 0, 0],
    ),  # 4th place scores nothing
    (2, {}, [(BLUE, 9), (ORANGE, 6)], [(2, 6), (3, 7)], [0, 10]),  # 2p: one majority
]


@pytest.mark.parametrize(("n", "options", "stacks", "bouquets", "expected"), MAJORITY)
def test_majority_scoring(n, options, stacks, bouquets, expected):
    state = festival_state(stacks, n, **options)
    state[BQ_COUNT : BQ_VALUE + 24] = 0
    for seat, (cards, value) in enumerate(bouquets):
        state[BQ_COUNT + seat * 4 + ORANGE] = cards
        state[BQ_VALUE + seat * 4 + ORANGE] = value
    majority_points(state)
    assert [int(x) for x in state[MAJORITY_PTS : MAJORITY_PTS + n]] == expected
    counts = [reference.empty_counts() for _ in range(n)]
    for seat, (cards, value) in enumerate(bouquets):
        for card_value in _values(cards, value):
            reference.add_to_counts(counts[seat], (ORANGE, card_value))
    order = [v for v, _ in stacks]
    assert reference.majority_scores(Rules(n_players=n, **options), counts, order) == expected


def _values(cards, total):
    """``cards`` card values in 2..4 adding up to ``total``."""
    values = [2] * cards
    for i in range(total - 2 * cards):
        values[i % cards] += 1
    return values


# (players, removed, turns per player) — rules §3.2 and §5.5.
TURNS = [(2, 18, 12), (3, 4, 10), (4, 6, 7), (5, 14, 7), (6, 10, 6)]


@pytest.mark.parametrize(("n", "removed", "turns"), TURNS)
def test_removal_and_turn_counts(n, removed, turns):
    rules = Rules(n_players=n)
    assert rules.removed == removed
    assert rules.turn_cards == 2 * n * turns
    state = new_state()
    deal(rules.to_array(), 5, n, 0, state)
    begin(state)
    taken = [0] * n
    while not is_over(state):
        if state[PHASE] == 1:
            taken[state[TURN]] += 1
            assert (state[DECK_LEFT] + 1) % 2 == 0  # an even deck at the start of each turn
        apply_action(state, _first_legal(state))
    assert taken == [turns] * n


def _first_legal(state):
    from tulips_sim.engine import legal_actions

    return legal_actions(state)[0]


def test_festival_card_tables():
    assert GIVING_BONUS == (3, 2, 1, 0)
    assert KEEPING_POINTS == (0, 0, 1, 2)
    assert MAJORITY_2P[0] == (15, 0, 0) and MAJORITY_2P[2] == (5, 0, 0)
    assert MAJORITY_3_4P[:3] == ((15, 10, 0), (10, 7, 0), (5, 3, 0))
    assert MAJORITY_5_6P[:3] == ((15, 10, 5), (10, 7, 4), (5, 3, 1))
    assert [Rules(n_players=n).deck_size for n in range(2, 7)] == [72, 72, 72, 96, 96]


@pytest.mark.parametrize("seed", range(300))
def test_seeded_festival_has_two_varieties_higher_value_first(seed):
    state = new_state()
    deal(Rules(n_players=2 + seed % 5).to_array(), seed, seed, 0, state)
    first, second = int(state[START]), int(state[START + 1])
    assert variety_of(first) != variety_of(second)
    assert value_of(first) >= value_of(second)


BAD_RULES = [
    ({"n_players": 1}, "n_players must be in 2..6"),
    ({"n_players": 7}, "n_players must be in 2..6"),
    ({"majority_ties": "fair"}, "majority_ties must be one of dense, competition"),
    ({"seeding_tie": "coin"}, "seeding_tie must be one of first_drawn, random"),
    ({"n_removed": 70}, "n_removed must be in 0..62"),
    ({"giving_bonus": (3, 2)}, "giving_bonus must be a table"),
    ({"majority_points": ((1, 2),)}, "majority_points must be a table"),
    ({"setup_scores": 1}, "setup_scores must be True or False"),
    ({"first_player": 4}, "first_player must be in 0..3"),
]


@pytest.mark.parametrize(("fields", "message"), BAD_RULES)
def test_invalid_rules_name_the_valid_range(fields, message):
    with pytest.raises(ValueError, match=message.replace(".", r"\.")):
        Rules(**fields)


def test_the_rules_page_majority_table_is_the_engines():
    """docs/rules/gift_of_tulips.md's majority table (a row a player count, a cell a majority:
    its points for the 1st / 2nd / 3rd-ranked variety) says what the engine and the reference
    pay: the page is the project's rules of record for its users."""
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / "docs" / "rules" / "gift_of_tulips.md"
    rows = [line for line in page.read_text().splitlines() if "| 1st / 2nd / 3rd |" in line]
    assert len(rows) == 3
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        counts = [int(n) for n in cells[0].replace("–", " ").split()]
        for slot, cell in enumerate(cells[2:]):
            paid = [0, 0, 0] if cell == "—" else [int(v) for v in cell.split(" / ")]
            for n in counts:
                engine = Rules(n_players=n).majority
                twin = reference.MAJORITY_OF_RECORD[n]
                assert [engine[rank][slot] for rank in range(3)] == paid, (n, slot)
                assert [twin[rank][slot] for rank in range(3)] == paid, (n, slot)

"""The exact solver (``geschenkt_sim/solve.py``) against its plain-Python twin
(``tests/exact_twin.py``, exact fractions, sharing nothing with the solver but the rules), its
index, hand-derived answers, and the ``solved`` agent that plays its tables."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geschenkt_sim import solve
from geschenkt_sim.rules import Rules
from tests.exact_twin import Twin


def variant(n, lowest, highest, removed, chips):
    return Rules(
        n_players=n,
        lowest_card=lowest,
        highest_card=highest,
        n_removed=removed,
        chips_per_player=chips,
    )


def solved(rules):
    """The solver's values and take masks (dense, by chain) of a variant."""
    layout = solve.Layout.of(rules)
    values = np.zeros((layout.n_afterstates, layout.n_players - 1))
    per_hand = layout.per_hand * layout.positions
    masks = np.zeros(layout.n_hands * per_hand, np.uint64)

    def keep(k, h0, h1, block):
        masks[h0 * per_hand : h1 * per_hand] = block

    solve.solve(layout, values, keep)
    return layout, values, masks


def positions_of(hands, lowest):
    return np.array([sum(1 << (c - lowest) for c in h) for h in hands], np.int64)


def afterstate_of(layout, hands, chips, seat):
    vec, binom, start, _ = layout.arrays()
    h = solve.hand_code(positions_of(hands, layout.lowest), vec, binom, start)
    code = solve.chips_code(np.array(chips, np.int64), binom)
    return (h * layout.n_chip_codes + code) * layout.n_players + seat


def solver_action(layout, masks, state):
    hands, chips, card, pot, seat = state
    vec, binom, start, _ = layout.arrays()
    chain, j = solve.decision_of(
        positions_of(hands, layout.lowest),
        np.array(chips, np.int64),
        card - layout.lowest,
        pot,
        seat,
        vec,
        binom,
        start,
    )
    assert chain >= 0
    return "take" if (int(masks[chain]) >> j) & 1 else "pass"


SMALL = st.tuples(
    st.integers(2, 3),  # players
    st.integers(1, 20),  # lowest card
    st.integers(2, 6),  # cards in the range
    st.integers(0, 2),  # removed
    st.integers(0, 2),  # chips each
).filter(lambda v: v[3] < v[2] and (v[0] == 2 or v[2] <= 5))


@settings(max_examples=12, deadline=None)
@given(SMALL)
def test_values_and_optimal_actions_agree_exactly_with_the_twin(case):
    """Every afterstate the twin reaches from every first seat has the twin's exact shares
    (to 1e-12), and every decision state the optimal action the twin chooses (ties take)."""
    n, lowest, size, removed, chips = case
    rules = variant(n, lowest, lowest + size - 1, removed, chips)
    layout, values, masks = solved(rules)
    twin = Twin(n, lowest, lowest + size - 1, removed, chips)
    for first in range(n):
        twin.after(*twin.start(first))
        for state in twin.decisions(first):
            assert solver_action(layout, masks, state) == twin.choice(*state)[0], state
    for (hands, chips_now, seat), exact in twin.after.memo.items():
        got = solve.shares_at(values, afterstate_of(layout, hands, chips_now, seat), n)
        assert np.allclose(got, [float(x) for x in exact], rtol=0, atol=1e-12)


# (players, cards, removed, chips) -> each position's share under optimal play, worked by hand
KNOWN = [
    # one card, no chip: the first player must take it and loses
    ((2, (5, 6), 1, 0), (Fraction(0), Fraction(1))),
    # one card, a chip each: a take costs the card, a pass makes the other take it with two
    # chips; seat 1 passes back, so seat 0 loses either way (and takes at once: ties take)
    ((2, (5, 6), 1, 1), (Fraction(0), Fraction(1))),
    # cards 1 and 2, both played, no chips: seat 0 takes the first card, then the second
    # (the taker keeps the turn): 1 + 2 is a run scoring 1, against seat 1's 0
    ((2, (1, 2), 0, 0), (Fraction(0), Fraction(1))),
    # cards 1 and 2, one played, a chip each: taking at once loses (c - 1 against -1); after
    # a pass seat 1 takes (card 1: -1 against 0, it wins; card 2: 0 against 0, a tie, and
    # passing back would tie too), so passing is worth 0 on card 1 and 1/2 on card 2
    ((2, (1, 2), 1, 1), (Fraction(1, 4), Fraction(3, 4))),
]


@pytest.mark.parametrize(("case", "shares"), KNOWN)
def test_known_answers(case, shares):
    n, (lowest, highest), removed, chips = case
    layout, values, _ = solved(variant(n, lowest, highest, removed, chips))
    got = solve.shares_at(values, solve.root(layout, 0), n)
    assert np.allclose(got, [float(s) for s in shares], rtol=0, atol=1e-15)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_index_round_trips(n):
    """Every hand code decodes to hands that code back to it; every chips code to chips that
    code back; every chain of every afterstate to a decision state that maps back to it."""
    layout = solve.Layout.of(variant(n, 3, 8, 1, 2))
    vec, binom, start, chip_rows = layout.arrays()
    hands = np.zeros(n, np.int64)
    for h in range(layout.n_hands):
        k = solve.decode_hand(h, vec, binom, start, hands)
        assert sum(bin(int(x)).count("1") for x in hands) == k
        assert solve.hand_code(hands, vec, binom, start) == h
    for code, chips in enumerate(chip_rows):
        assert chips.sum() == layout.total_chips and solve.chips_code(chips, binom) == code
    assert len(chip_rows) == layout.n_chip_codes


def test_rules_the_solver_does_not_model_are_refused():
    small = {"n_players": 2, "highest_card": 8, "n_removed": 2}
    with pytest.raises(ValueError, match="chips_visible"):
        solve.Layout.of(Rules(**small, chips_visible=False))
    with pytest.raises(ValueError, match="rounds"):
        solve.Layout.of(Rules(**small, rounds=4))
    with pytest.raises(ValueError, match="standard"):
        solve.Layout.of(Rules(n_players=2, variant="tactical"))


def test_a_table_is_looked_up_as_the_solver_decided(tmp_path):
    """``solving.lookup`` (through the ``solved`` agent's packed table) gives the solver's
    action at every decision state the twin reaches; a state of another deck is refused."""
    from experiments.solving import lookup, solve_variant

    rules = variant(3, 2, 6, 1, 1)
    solve_variant(rules, tmp_path, progress=False)
    layout, _, masks = solved(rules)
    twin = Twin(3, 2, 6, 1, 1)
    for state in twin.decisions(0):
        assert lookup(tmp_path / "policy.parquet", *state) == solver_action(layout, masks, state)
    with pytest.raises(ValueError, match=r"no state of 3 players, cards 2\.\.6"):
        lookup(tmp_path / "policy.parquet", [[], [], [9]], [1, 1, 1], 3, 0, 0)


def test_values_memory_mapped_two_levels_at_a_time_give_the_same_solution(tmp_path):
    """Under a memory limit that holds two levels of values but not all of them, the values
    are memory-mapped to disk (and the file removed after); the solution and the tables are
    those of a solve in memory. A limit below two levels is refused in one line."""
    from experiments.solving import GB, OVERHEAD, plan, solve_variant

    rules = variant(2, 3, 11, 2, 2)
    free = plan(rules)
    assert not free.mapped and free.working_bytes < free.values_bytes
    limit = (OVERHEAD + (free.working_bytes + free.values_bytes) / 2) / GB
    mapped = plan(rules, memory=limit)
    assert mapped.mapped
    a = solve_variant(rules, tmp_path / "a", progress=False)
    b = solve_variant(rules, tmp_path / "b", memory=limit, progress=False)
    assert np.array_equal(a.shares, b.shares)
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == [
        "policy.parquet",
        "values.parquet",
    ]
    for name in ("policy.parquet", "values.parquet"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    with pytest.raises(ValueError, match="does not fit"):
        plan(rules, memory=(OVERHEAD + free.working_bytes / 2) / GB)

"""Known answers from docs/rules/no_thanks.md, as tables."""

import numpy as np
import pytest

from geschenkt_sim import reference
from geschenkt_sim.rules import Rules
from geschenkt_sim.scoring import card_points, score_hand, take_delta

# (cards, chips, score) — rules file §3.2 worked examples.
SCORES = [
    ([13, 15, 16], 0, 28),
    ([13, 14, 15, 16], 0, 13),
    ([3, 7, 12, 15, 25], 8, 54),
    ([3, 10, 11, 12, 13, 20], 5, 28),
    ([4, 6, 10, 21], 0, 41),
    ([17, 18, 19, 20], 0, 17),
    ([8, 9], 0, 8),
    ([3, 8, 19, 20, 21, 35], 5, 60),
    ([7, 8, 10, 11, 12], 0, 17),
    ([], 11, -11),
]


def mask(cards):
    return np.int64(sum(1 << c for c in cards))


@pytest.mark.parametrize(("cards", "chips", "expected"), SCORES)
def test_scoring_examples(cards, chips, expected):
    assert score_hand(mask(cards), chips) == expected
    assert reference.score_hand(cards, chips) == expected


@pytest.mark.parametrize("hand", [[], [5], [5, 7], [4, 5, 6], [3, 35], [10, 11, 13, 14]])
@pytest.mark.parametrize("card", [3, 6, 12, 34, 35])
def test_take_delta_is_the_change_in_card_points(hand, card):
    if card in hand:
        return
    before = card_points(mask(hand))
    assert take_delta(mask(hand), card) == card_points(mask([*hand, card])) - before


# (n_players, chips per player) — rules file §1.2 and §1.3.
CHIPS = [(2, 11), (3, 11), (4, 11), (5, 11), (6, 9), (7, 7)]


@pytest.mark.parametrize(("n", "chips"), CHIPS)
def test_chip_table(n, chips):
    assert Rules(n_players=n).chips == chips
    assert Rules(n_players=n).n_cards == 24


def test_tactical_variant():
    rules = Rules(variant="tactical")
    assert rules.chips == 10
    assert rules.forced_removed == (10, 20, 30)


BAD_RULES = [
    ({"n_players": 1}, "n_players must be in 2..7"),
    ({"n_players": 8}, "n_players must be in 2..7"),
    ({"chips_per_player": -1}, "chips_per_player must be in 0..99"),
    ({"n_removed": 33}, "n_removed must be in 0..32 with cards 3..35, got 33"),
    ({"lowest_card": 3, "highest_card": 3}, "n_removed must be in 0..0 with cards 3..3, got 9"),
    ({"variant": "fast"}, "variant must be one of standard, tactical"),
    ({"first_player": 4}, "first_player must be in 0..3"),
    ({"first_player": "last"}, "first_player must be 'random' or a seat"),
    ({"chips_visible": "yes"}, "chips_visible must be True or False"),
]


@pytest.mark.parametrize(("fields", "message"), BAD_RULES)
def test_invalid_rules_name_the_valid_range(fields, message):
    with pytest.raises(ValueError, match=message):
        Rules(**fields)

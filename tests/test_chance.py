"""Explicit chance in distribution: games whose chance events draw their outcomes by the weights
(``Game.chance_outcomes``) end like games dealt by ``deal_keyed``.

The dealt games are the slow path's (``play_slow``), the explicit ones a loop drawing outcomes
with a NumPy generator of a fixed seed; the same built-in agents play both, from the same
games' keys. Compared, per set-up: each seat's score and the number of decisions, and what
chance decides most directly: No Thanks!'s first card and the sum of the cards played;
Tulips' festival start and each variety's final festival total and bouquet cards. A
two-sample Kolmogorov-Smirnov test compares numbers, a chi-square test categories (cells
under 5 games dropped); no p-value may fall under 0.001 (about 40 of them: a false alarm on
about 4% of fixed seeds, none on this one). The same comparison must tell a slightly wrong
chance model apart: the weights tilted toward high outcome ids (by at most +50%).
"""

import numpy as np
import pytest
from scipy import stats

from agents.drivers.slow import ask, play_slow, seat_streams
from agents.registry import parse_list
from geschenkt_sim import state as nt
from giftsim.game import load_game
from giftsim.rng import game_key
from tulips_sim import state as tu

GAMES = 1200
SEED = 2024  # the root seed of both sets of games
ALPHA = 1e-3
SETUPS = [
    ("geschenkt", 4, {}),
    ("geschenkt", 3, {"variant": "tactical"}),
    ("tulips", 2, {}),
    ("tulips", 4, {"seeding_tie": "random", "n_revealed": 2}),
]


def play_explicit(game, rules, agents, index, rng, tilt=0.0):
    """The final state of game ``index`` dealt with explicit chance, each event's outcome drawn
    by its weights (times ``1 + tilt * id / count``), the agents deciding as in the slow path."""
    n = rules.n_players
    state = np.zeros(game.state_size, np.int64)
    key = np.uint64(game_key(np.uint64(SEED), index))
    game.deal_open(rules.to_array(), key, -1, state)
    game.begin(state)
    rngs, weights = seat_streams(key, n), np.zeros(game.max_chance_outcomes, np.int64)
    while not game.is_over(state):
        if game.chance_pending(state):
            count = game.chance_outcomes(state, weights)
            p = weights[:count] * (1.0 + tilt * np.arange(count) / count)
            game.apply_chance(state, int(rng.choice(count, p=p / p.sum())))
            continue
        legal = game.legal_actions(state)
        action = legal[0] if len(legal) == 1 else ask(game, agents, state, rngs, legal)
        game.apply_action(state, action)
    return state


def features(game, rules, final) -> tuple[dict, dict]:
    """Numbers and categories of a finished game (see the module docstring)."""
    scores = np.zeros(rules.n_players, np.int64)
    game.scores(final, scores)
    numbers = {f"score {p}": scores[p] for p in range(rules.n_players)}
    more, categories = FEATURES[game.name](rules, final)
    return {**numbers, **more}, categories


def geschenkt_features(rules, final) -> tuple[dict, dict]:
    hands = final[nt.HANDS : nt.HANDS + rules.n_players]
    played = sum(c for hand in hands for c in nt.cards_of(hand))
    numbers = {"decisions": final[nt.N_DECISIONS], "cards played": played}
    return numbers, {"first card": final[nt.DECK]}


def tulips_features(rules, final) -> tuple[dict, dict]:
    numbers = {"decisions": final[tu.N_DECISIONS]}
    for v in range(4):
        numbers[f"festival {v}"] = final[tu.TOTALS + v]
        counts = final[tu.BQ_COUNT + v : tu.BQ_COUNT + 4 * rules.n_players : 4]
        numbers[f"bouquets {v}"] = counts.sum()
    return numbers, {"1st": final[tu.START], "2nd": final[tu.START + 1]}


FEATURES = {"geschenkt": geschenkt_features, "tulips": tulips_features}


def p_values(dealt: list, other: list) -> dict:
    """P-values of the difference of every feature between two lists of ``features``."""
    out = {}
    for key in dealt[0][0]:
        a, b = [[f[0][key] for f in side] for side in (dealt, other)]
        out[key] = stats.ks_2samp(a, b).pvalue
    for key in dealt[0][1]:
        a, b = [np.array([f[1][key] for f in side]) for side in (dealt, other)]
        cells = np.union1d(a, b)
        table = np.array([[np.sum(side == c) for c in cells] for side in (a, b)])
        out[key] = stats.chi2_contingency(table[:, table.min(axis=0) >= 5]).pvalue
    return out


def setup_of(name, n, options):
    game = load_game(name)
    rules = game.rules(n_players=n, **options)
    agents = parse_list(["greedy", "random"] + ["greedy"] * (n - 2), name)
    return game, rules, agents


def dealt_features(game, rules, agents) -> list:
    return [
        features(game, rules, play_slow(game, rules, agents, SEED, i, "random").final)
        for i in range(GAMES)
    ]


def explicit_features(game, rules, agents, tilt=0.0) -> list:
    rng = np.random.default_rng(SEED)
    return [
        features(game, rules, play_explicit(game, rules, agents, i, rng, tilt))
        for i in range(GAMES)
    ]


@pytest.mark.parametrize(("name", "n", "options"), SETUPS)
def test_explicit_chance_ends_like_dealt_games(name, n, options):
    game, rules, agents = setup_of(name, n, options)
    found = p_values(dealt_features(game, rules, agents), explicit_features(game, rules, agents))
    assert min(found.values()) > ALPHA, found


@pytest.mark.parametrize(("name", "n", "options"), SETUPS[::2])
def test_a_tilted_chance_model_is_told_apart(name, n, options):
    """The power check: the same comparison rejects outcomes drawn with tilted weights."""
    game, rules, agents = setup_of(name, n, options)
    dealt = dealt_features(game, rules, agents)
    tilted = explicit_features(game, rules, agents, tilt=0.5)
    assert min(p_values(dealt, tilted).values()) < ALPHA

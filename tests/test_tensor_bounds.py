"""Every tensor entry's declared bounds (``Game.tensor_bounds``) are its true range under the
rules, tested by play: over many games (random and directed players, every seat's view at every
state) no entry leaves its bounds, and each bound is reached or its block is one whose extreme
needs a particular deal, explained here and in docs/tensors.md."""

import importlib

import numpy as np
import pytest

from agents.drivers.slow import deal
from giftsim.game import load_game
from giftsim.rng import game_key

SETS = {
    "geschenkt": [
        (3, []),
        (4, []),
        (5, ["chips_visible=false"]),
        (4, ["variant=tactical"]),
        (2, ["chips_per_player=1", "n_removed=25"]),
        (7, []),
    ],
    "tulips": [
        (2, []),
        (4, []),
        (6, []),
        (3, ["game_end=full_turns"]),
        (5, ["game_end=deck_out", "setup=in_turn", "setup_scores=true"]),
        (4, ["base_copies=1,1,1/0,0,0/2,2,2/3,0,0", "n_removed=0", "game_end=deck_out"]),
        (2, ["base_copies=2,0,2/2,0,1/0,0,0/0,0,0", "n_removed=0"]),  # no turn at all
    ],
}
# Blocks whose extreme needs a particular deal (the random and directed players of this test
# reach it only by chance); docs/tensors.md gives each range and why it is the true one.
EXPLAINED = {
    "geschenkt": {},
    "tulips": {
        "totals": "every card of a variety in the festival: no two in one turn, none removed",
        "face_up": "every copy of a type in the festival (as totals)",
        "own_secret": "the seat draws that type on each of its turns",
        "bouquets": "every copy of a type in one bouquet",
        "points": "a gift of the top card of the first variety (or a keep of the last) each turn",
    },
}
# Directed players: the action each prefers whenever it is legal (else a random legal one).
RANDOM_FIRST = -1  # the first-seat value every deal draws from its own stream
PREFERRED = {"geschenkt": (None, 0, 1), "tulips": (None, 0, 1, 2, 3, 4)}


def _blocks(game, rules) -> list[str]:
    """The block name of every tensor entry, from the tensor module's layout."""
    module = importlib.import_module(game.encode.__module__)
    size = game.tensor_size(rules)
    names = []
    for block, length in module.block_sizes(rules):
        names += [block] * length
    assert len(names) == size
    return names


def _seen(game, rules, n_games: int, seed: int):
    """The lowest and highest value of every entry over ``n_games`` games, every seat's view
    at every state; each game's seats share one directed preference, ties broken at random.
    Odd games are dealt with explicit chance (``deal_open``, each event resolved with the
    dealt outcome), so the states before the deal's events are resolved are seen too."""
    rng = np.random.default_rng(seed)
    n, size = rules.n_players, game.tensor_size(rules)
    low, high = np.full(size, np.inf), np.full(size, -np.inf)
    obs, tensor = np.zeros(game.obs_size, np.int64), np.zeros(size, np.float32)
    for index in range(n_games):
        state = _start(game, rules, seed, index)
        prefer = PREFERRED[game.name][index % len(PREFERRED[game.name])]
        while True:
            for seat in range(n):
                game.observe(state, seat, obs)
                game.encode(obs, tensor)
                np.minimum(low, tensor, out=low)
                np.maximum(high, tensor, out=high)
            if game.is_over(state):
                break
            if game.chance_pending(state):
                game.apply_chance(state, game.next_outcome(state))
                continue
            legal = game.legal_actions(state)
            game.apply_action(state, prefer if prefer in legal else int(rng.choice(legal)))
    return low, high


def _start(game, rules, seed: int, index: int) -> np.ndarray:
    """Game ``index`` of ``seed`` as dealt, or (odd ``index``) opened with explicit chance."""
    if index % 2 == 0:
        return deal(game, rules, seed, index, "random")[0]
    state = np.zeros(game.state_size, np.int64)
    key = np.uint64(game_key(np.uint64(seed), index))
    game.deal_open(rules.to_array(), key, RANDOM_FIRST, state)
    game.begin(state)
    return state


CASES = [(name, n, pairs) for name, sets in SETS.items() for n, pairs in sets]


@pytest.mark.parametrize("name, players, pairs", CASES)
def test_no_entry_leaves_its_bounds_and_each_is_reached_or_explained(name, players, pairs):
    game = load_game(name)
    rules = game.rules.from_pairs(pairs, players)
    low, high = game.tensor_bounds(rules)
    seen_low, seen_high = _seen(game, rules, 240, seed=players)
    outside = np.flatnonzero((seen_low < low) | (seen_high > high))
    assert outside.size == 0, f"entries {outside.tolist()} leave their bounds"
    blocks = _blocks(game, rules)
    unreached = {blocks[k] for k in np.flatnonzero((seen_low > low) | (seen_high < high))}
    assert unreached <= set(EXPLAINED[name]), f"unexplained: {unreached - set(EXPLAINED[name])}"

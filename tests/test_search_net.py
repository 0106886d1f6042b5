"""Search agents that value their playouts' leaves by the learned network (``flatmc_net``,
``ismcts_net``): the leaf value, the truncated playout, and the network they read."""

import numpy as np
import pytest

from agents.geschenkt import leaf
from agents.registry import parse
from experiments.batch import field
from geschenkt_sim import engine, scoring
from geschenkt_sim import state as nt_state
from geschenkt_sim.rules import MAX_PLAYERS
from geschenkt_sim.rules import Rules as NtRules
from tests.strategies import random_walk


def position(seed, n, steps):
    """A No Thanks! state after ``steps`` random legal actions."""
    state = nt_state.new_state()
    nt_state.deal(NtRules(n_players=n).to_array(), seed, 0, -1, state)
    random_walk(state, engine, steps, seed)
    return state


def network(n):
    return parse("flatmc_net", "geschenkt").network(n)


@pytest.mark.parametrize("n", [3, 5])
def test_the_leaf_value_of_a_finished_game_is_its_true_shares(n):
    for seed in range(4):
        state = position(seed, n, 10_000)
        assert engine.is_over(state)
        out, truth = np.full(MAX_PLAYERS, -1.0), np.zeros(MAX_PLAYERS)
        leaf.leaf_values(state, network(n), out)
        scoring.rewards(state, truth)
        assert np.array_equal(out[:n], truth[:n])


def test_leaf_values_are_shares_read_from_each_seats_view_only():
    state = position(3, 3, 12)
    assert not engine.is_over(state) and state[nt_state.CARDS_LEFT] >= 2
    out = np.zeros(MAX_PLAYERS)
    leaf.leaf_values(state, network(3), out)
    assert ((out[:3] > 0) & (out[:3] < 1)).all()
    if leaf.NORMALISE:
        assert out[:3].sum() == pytest.approx(1.0)
    swapped = state.copy()  # the order of the face-down cards: no seat sees it
    at = nt_state.DECK + state[nt_state.POS] + 1
    swapped[at], swapped[at + 1] = state[at + 1], state[at]
    again = np.zeros(MAX_PLAYERS)
    leaf.leaf_values(swapped, network(3), again)
    assert np.array_equal(out, again)


def test_a_truncated_playout_mixes_the_leaf_value_with_the_end():
    agent = parse("ismcts_net:margin=0", "geschenkt")
    row, rng, space = agent.param_row(3), np.ones(1, np.uint64), leaf.new_space(3)
    start = position(5, 3, 4)
    at_leaf, truth = np.zeros(MAX_PLAYERS), np.zeros(MAX_PLAYERS)
    leaf.leaf_values(start, network(3), at_leaf)
    state, out = start.copy(), np.zeros(MAX_PLAYERS)
    leaf.truncated_values(state, row, 0, rng, space, out)
    scoring.rewards(state, truth)
    assert engine.is_over(state)  # played on to the end for the mix
    mixed = leaf.MIX * at_leaf[:3] + (1 - leaf.MIX) * truth[:3]
    assert np.allclose(out[:3], mixed)
    state = start.copy()
    leaf.truncated_values(state, row, 7, rng, space, out)
    assert (space[leaf.RECENT][:3] != leaf.NOT_YET).any()  # the last plies' afterstates
    state = start.copy()
    leaf.truncated_values(state, row, leaf.MAX_DEPTH, rng, space, out)
    scoring.rewards(state, truth)
    assert np.array_equal(out[:3], truth[:3])  # a game over within depth: its true shares


@pytest.mark.parametrize("name", ["flatmc_net", "ismcts_net"])
def test_search_with_the_learned_value_reads_the_network_it_is_given(name):
    agent = parse(f"{name}:net=agents/geschenkt/nets/3p.npz", "geschenkt")
    assert agent.spec.endswith("net=agents/geschenkt/nets/3p.npz")
    with pytest.raises(ValueError, match="for 3 players, not 4"):
        agent.param_row(4)


@pytest.mark.parametrize("spec", ["flatmc_net:iters=30:depth=3", "ismcts_net:iters=40:policy=5"])
def test_search_with_the_learned_value_beats_random(spec):
    result = field("geschenkt", spec, "random", 3, 8, seed=3)
    assert result["ci95"][0] > result["fair"]

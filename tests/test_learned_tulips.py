"""The Tulips ``learned`` agent: its afterstates against the engine on the true state, its
features against a plain-Python twin written from the module docstring, both sealed from hidden
slots, its choice the network's best afterstate, and its self-play recorder."""

import numpy as np
import pytest

from agents.drivers.block import recorded_block
from agents.kernels import net
from agents.registry import parse
from agents.tulips import learned
from giftsim.contract import MAX_PARAMS, read_only, scratch_size
from tests.kits import kit_of
from tulips_sim.engine import (
    apply_action,
    begin,
    is_over,
    legal_actions,
    observe,
)
from tulips_sim.game import GAME
from tulips_sim.rules import SETUP_FIRST, SETUP_SECOND, Rules
from tulips_sim.state import (
    BOUQUET,
    BQ_COUNT,
    BQ_VALUE,
    COPIES,
    DECK_LEFT,
    DENSE,
    DRAWN,
    FACE_UP,
    GIVE_POINTS,
    HAND,
    KEEP_POINTS,
    LEGAL,
    MAJORITY,
    N_PLAYERS,
    OBS_SIZE,
    ORDER,
    OVER,
    OWN_SECRET,
    PHASE,
    RANK,
    SEAT,
    SECRET_SIZE,
    SETUP,
    SLOTS,
    STATE_SIZE,
    TOP,
    TOTALS,
    TURN,
    USED_KIND,
    ZERO_WINS,
    deal,
    new_state,
)

VARIANTS = [
    Rules(n_players=2),
    Rules(n_players=4),
    Rules(n_players=6),
    Rules(n_players=3, setup="in_turn", setup_scores=True, majority_ties="competition"),
    Rules(n_players=5, zero_cards_majority=True, game_end="deck_out", n_revealed=2),
]
FESTIVAL_SLOTS = [
    *range(FACE_UP, FACE_UP + 12),
    *range(TOTALS, TOTALS + 4),
    *range(ORDER, ORDER + 4),
    *range(RANK, RANK + 4),
]


def positions(rules, games, seed):
    """``(state, seat)`` at every decision with a choice of random legal games."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        state = new_state()
        deal(rules.to_array(), seed, g, -1, state)
        begin(state)
        while not is_over(state):
            actions = legal_actions(state)
            if len(actions) > 1:
                yield state.copy(), int(state[TURN])
            apply_action(state, int(rng.choice(actions)))


def observed(state, seat):
    obs = np.zeros(OBS_SIZE, np.int64)
    observe(state, seat, obs)
    return obs


def afterstate(obs, action, word):
    out = np.zeros(OBS_SIZE, np.int64)
    learned.after(obs, action, np.array([word], np.uint64), np.zeros(STATE_SIZE, np.int64), out)
    return out


def sampled_slots(rules, before, action, true_after):
    """Slots of an afterstate that the sampled world decides (module docstring): the festival
    once the game is over, the other seats' bouquets after the last simultaneous setup."""
    if true_after[PHASE] == OVER:
        return FESTIVAL_SLOTS
    last_setup = before[PHASE] == SETUP and true_after[PHASE] != SETUP
    if last_setup and rules.setup == "simultaneous":
        seat, n = before[TURN], rules.n_players
        others = [p for p in range(n) if p != seat]
        slots = [BOUQUET + p * 12 + t for p in others for t in range(12)]
        slots += [BQ_COUNT + p * 4 + v for p in others for v in range(4)]
        slots += [BQ_VALUE + p * 4 + v for p in others for v in range(4)]
        return slots + [KEEP_POINTS + p for p in others]
    return []


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.n_players}p-{r.setup}")
def test_after_is_the_engine_on_the_true_state_with_the_next_card_hidden(rules):
    kinds = {"draw": 0, "end": 0, "setup": 0}
    for k, (state, seat) in enumerate(positions(rules, 6, 11)):
        obs = observed(state, seat)
        for action in legal_actions(state):
            true_after = state.copy()
            apply_action(true_after, action)
            expect = observed(true_after, seat)
            got = afterstate(obs, action, 1000 + k)
            drew = true_after[TOP] - state[TOP]  # a card turned up after the action
            assert drew in (0, 1) and got[DRAWN] == -1
            assert got[DECK_LEFT] == expect[DECK_LEFT] + drew == obs[DECK_LEFT]
            free = sampled_slots(rules, state, action, true_after)
            same = np.ones(OBS_SIZE, bool)
            same[[DRAWN, DECK_LEFT, *free]] = False
            assert np.array_equal(got[same], expect[same]), (k, action)
            if true_after[PHASE] == OVER:  # as many secret cards turned up, somewhere
                kinds["end"] += 1
                face_up = slice(FACE_UP, FACE_UP + 12)
                assert got[face_up].sum() == expect[face_up].sum()
            elif free:
                kinds["setup"] += 1
                assert np.array_equal(bouquet_sizes(got, rules), bouquet_sizes(expect, rules))
            kinds["draw"] += drew
    assert kinds["draw"] > 0 and kinds["end"] > 0
    assert kinds["setup"] > 0 or rules.setup == "in_turn"


def bouquet_sizes(obs, rules):
    return [obs[BQ_COUNT + 4 * p : BQ_COUNT + 4 * p + 4].sum() for p in range(rules.n_players)]


def test_after_handles_both_setup_choices_and_leaves_the_observation_alone():
    rules = Rules(n_players=4)
    state, seat = next(positions(rules, 1, 3))
    obs = observed(state, seat)
    copy = obs.copy()
    first, second = afterstate(obs, SETUP_FIRST, 7), afterstate(obs, SETUP_SECOND, 7)
    assert np.array_equal(obs, copy)
    hand = obs[HAND], obs[HAND + 1]
    for got, secret in ((first, hand[1]), (second, hand[0])):
        assert got[HAND] == got[HAND + 1] == -1 and got[TURN] == seat + 1
        assert got[OWN_SECRET + secret] == obs[OWN_SECRET + secret] + 1
        assert got[SECRET_SIZE] == obs[SECRET_SIZE] + 1


# --- the features' plain-Python twin: written from the module docstring's table ----------------


def twin_majority(obs, seat):
    """Majority points of ``seat`` if the game ended now, from the rules in the observation."""
    n, total = int(obs[N_PLAYERS]), 0
    for v in range(4):
        rank = int(obs[RANK + v])
        strengths = [(obs[BQ_COUNT + 4 * p + v], obs[BQ_VALUE + 4 * p + v]) for p in range(n)]
        mine = strengths[seat]
        if rank == 4 or (mine[0] == 0 and not obs[ZERO_WINS]):
            continue
        above = [s for s in strengths if s > mine]
        place = len(set(above)) if obs[DENSE] else len(above)
        if place < obs[SLOTS]:
            total += int(obs[MAJORITY + 3 * (rank - 1) + place])
    return total


def twin_unseen(obs, variety):
    n, count = int(obs[N_PLAYERS]), 0
    for t in range(3 * variety, 3 * variety + 3):
        count += obs[COPIES + t] - obs[FACE_UP + t] - obs[OWN_SECRET + t]
        count -= sum(obs[BOUQUET + 12 * p + t] for p in range(n))
        count -= int(obs[DRAWN] == t)
        if obs[PHASE] == SETUP:
            count -= int(obs[HAND] == t) + int(obs[HAND + 1] == t)
    return count


def twin_features(obs):
    n, me = int(obs[N_PLAYERS]), int(obs[SEAT])
    seats = [(me + r) % n for r in range(n)]
    scored = [obs[GIVE_POINTS + p] + obs[KEEP_POINTS + p] for p in seats]
    majority = [twin_majority(obs, p) for p in seats]
    standing = [s + m for s, m in zip(scored, majority, strict=True)]
    x = [s / 50 for s in scored] + [m / 30 for m in majority]
    x += [float(p == obs[TURN]) for p in seats]
    x += [obs[BQ_COUNT + 4 * p + v] / 8 for v in range(4) for p in seats]
    x += [float(obs[PHASE] == i) for i in range(4)] + [float(obs[USED_KIND] == i) for i in range(3)]
    x += [obs[DECK_LEFT] / 72, obs[SECRET_SIZE] / 20, (standing[0] - max(standing[1:])) / 30]
    x += [obs[TOTALS + v] / 40 for v in range(4)] + [(4 - obs[RANK + v]) / 3 for v in range(4)]
    x += [sum(obs[OWN_SECRET + 3 * v + k] * (k + 2) for k in range(3)) / 12 for v in range(4)]
    return np.array(x + [twin_unseen(obs, v) / 24 for v in range(4)])


def features_of(obs):
    x = np.full(learned.n_features(int(obs[N_PLAYERS])), np.nan)
    learned.features(obs, x)
    return x


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: f"{r.n_players}p-{r.majority_ties}")
def test_features_match_the_plain_python_twin_for_every_seat_and_afterstate(rules):
    n, checked = rules.n_players, 0
    assert learned.n_features(n) == 7 * n + 26
    for k, (state, turn) in enumerate(positions(rules, 3, 5)):
        views = [observed(state, seat) for seat in range(n)]
        views += [afterstate(views[turn], a, k) for a in legal_actions(state)]
        for obs in views:
            x = features_of(obs)
            assert np.allclose(x, twin_features(obs), rtol=0, atol=1e-12)
            assert np.abs(x).max() <= 2.0
            checked += 1
    assert checked > 300


def test_features_and_afterstates_are_sealed_from_hidden_slots():
    """Changing every slot a seat may not know (the pile, the others' secret cards, ...)
    changes neither its features nor its afterstates."""
    rules, kit = Rules(n_players=4), kit_of("tulips")
    rng = np.random.default_rng(9)
    for k, (state, turn) in enumerate(positions(rules, 3, 8)):
        for seat in range(rules.n_players):
            other = state.copy()
            hidden = kit.hidden_slots(state, seat)
            other[hidden] += rng.integers(1, 50, len(hidden))
            obs, again = observed(state, seat), observed(other, seat)
            assert np.array_equal(features_of(obs), features_of(again))
            if seat == turn:
                for action in legal_actions(state):
                    assert np.array_equal(afterstate(obs, action, k), afterstate(again, action, k))


# --- the choice ---------------------------------------------------------------------------


def shipped_params(players):
    params = np.zeros(MAX_PARAMS)
    params[net.NET_SLOT] = net.address_of(parse("learned", "tulips").network(players))
    return params


@pytest.mark.parametrize("players", [2, 4, 6])
def test_learned_takes_the_action_whose_afterstate_the_network_values_most(players):
    """Every action's afterstate in the world the decision's random word draws, valued by the
    network from scratch (``net.logit``): the choice is the best (ties: within rounding)."""
    params = shipped_params(players)
    flat = parse("learned", "tulips").network(players)
    for k, (state, seat) in enumerate(positions(Rules(n_players=players), 2, 4)):
        obs = observed(state, seat)
        word = np.uint64(77 + k)
        value = {
            a: net.logit(flat, features_of(afterstate(obs, a, word))) for a in legal_actions(state)
        }
        rng = np.array([word], np.uint64)
        chosen = learned.decide(read_only(obs), read_only(params), rng)  # as an entry shows them
        assert obs[LEGAL] >> chosen & 1
        assert value[chosen] >= max(value.values()) - 1e-4  # single precision
        assert rng[0] != word  # the world's draws came from the agent's stream


def test_the_work_space_fits_the_scratch_row_at_every_player_count():
    row = scratch_size(OBS_SIZE, STATE_SIZE)
    floats = 2 * learned.n_features(6) + net.MAX_HIDDEN
    assert learned.WORK_INTS + floats <= row


def test_the_recorder_keeps_one_finite_feature_row_per_decision_asked():
    rules = Rules(n_players=3)
    agents = [parse("tuned4p", "tulips")] * 3
    rows, feats, owners = recorded_block(GAME, rules, agents, 3, 0, 20, (0.1, -1))
    decisions = rows[:, 5 * 3 + 1]
    assert feats.shape == (owners.shape[0], learned.n_features(3))
    assert np.isfinite(feats).all() and set(owners[:, 0]) == set(range(20))
    assert owners.shape[0] <= decisions.sum() and owners.shape[0] > 20 * 3

"""One contract for every game of the list of games (``giftsim.game.GAMES``), the toy game of
``tests/toy_game`` included, in the spirit of Pgx's ``api_test.py``.

For many seeded games under random legal play and under every built-in compiled agent family
(search agents with few iterations): the verbs stay inside the declared sizes; the legal mask
is that of the game's reference twin at every step and only legal actions are applied (an
agent's illegal action is reported, and the game stops there); a game ends within
``Game.max_decisions``; the observation is unchanged when every slot the seat may not know is
changed (``tests/kits.py`` names them per game); the rewards are the winners' shares and
agree with the twin and the finishing order; a record replays; and the slow path plays the
compiled loop's games.

Explicit chance (``deal_open`` and the chance verbs), the same way: under random outcomes
drawn by the weights, the verbs stay inside their sizes, every event's kind, weights and
observers are those the twin and the rules give (``expected_chance`` of the kit), the game is
the twin's on the deal its events resolved, the observations hide what they should at chance
nodes too; and resolving every event with ``next_outcome`` plays the dealt game of the fast
loop, game for game, with the built-in agents.
"""

import collections.abc
import dataclasses
import inspect
import json
import re
import types
import typing
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.drivers.block import IllegalActionError
from agents.drivers.generate import driver
from agents.drivers.slow import ask, play_block_slow, seat_streams
from agents.registry import builtins, define
from agents.roster import roster
from experiments.games import play_block, play_slow
from geschenkt_sim.rules import TAKE
from giftsim.contract import first_policy, first_seat
from giftsim.game import GAMES, N_PLAYERS, TAIL, Game, load_game
from giftsim.records import RecordError
from giftsim.rng import game_key, next_float
from tests.kits import Chance, Decision, kit_of

NAMES = list(GAMES)
RANDOM_FIRST = -1  # the first-seat value every game's deal draws from its own stream
SENTINEL, PAD = -7777, 16  # a verb writing past its declared size shows in the padding
TINY_ITERS = 8


def padded(size: int):
    """A buffer of ``size`` slots followed by ``PAD`` sentinel slots, and its first part."""
    buffer = np.full(size + PAD, SENTINEL, np.int64)
    return buffer, buffer[:size]


@pytest.mark.parametrize("name", NAMES)
def test_the_record_declares_consistent_sizes_and_rules(name):
    game = load_game(name)
    assert game.name == name and game.title
    assert len(game.action_names) == game.num_actions <= 62  # legal masks are int64 bits
    assert list(game.players) == list(range(game.players[0], game.max_players + 1))
    assert set(game.official) <= set(game.players) and game.players[0] >= 2
    assert game.blocks[0] == "score" and game.max_decisions > 0
    assert 0 <= game.turn_slot < game.state_size
    assert game.max_chance_outcomes >= max(game.players) and game.chance_kinds
    assert game.public_actions >= game.num_actions
    for n in game.players:
        rules = game.rules(n_players=n)
        assert rules.n_players == n and rules.to_array().dtype == np.int64
        assert rules.to_array()[N_PLAYERS] == n  # slot 0 of the rules vector: the seats
        state = np.zeros(game.state_size, np.int64)
        game.deal_keyed(rules.to_array(), game_key(1, 0), 0, state)
        assert state[N_PLAYERS] == n and state[game.decisions_slot] == 0
        assert game.rules(**rules.as_dict()).as_dict() == rules.as_dict()
        assert game.rules.from_pairs([], n) == rules  # --rule options: none given
        assert game.row_width(rules) == len(game.blocks) * n + len(TAIL)
        assert game.chance_events(rules) > n
    with pytest.raises(ValueError):
        game.rules(n_players=game.max_players + 1)
    if game.rounds_slot >= 0:  # a game with matches: their rounds sit in the declared slot
        assert game.rules(n_players=game.players[0], rounds=3).to_array()[game.rounds_slot] == 3
    assert len(game.event_columns) == game.event_width and (game.event is None) == (
        game.event_width == 0
    )
    builtins = roster(name).builtins
    assert driver(name, "loop").play_games.py_func and builtins
    assert all(f.game == name and f.builtin and f.summary for f in builtins)


def play_randomly(game, rules, seed):
    """Deal game 0 of ``seed`` and apply uniformly random legal actions until the end,
    checking on the way that the verbs write inside the declared state size and that the
    legal mask names only declared actions, and is empty exactly when the game is over.
    Returns the start state, the state before each action, the actions and the final state."""
    buffer, state = padded(game.state_size)
    key = np.uint64(game_key(np.uint64(seed), 0))
    game.deal_keyed(rules.to_array(), key, RANDOM_FIRST, state)
    game.begin(state)
    start, states, actions = state.copy(), [], []
    rng = np.random.default_rng(seed)
    while not game.is_over(state):
        mask = int(game.legal_mask(state))
        assert 0 < mask < 1 << game.num_actions
        legal = game.legal_actions(state)
        states.append(state.copy())
        actions.append(legal[rng.integers(len(legal))])
        game.apply_action(state, actions[-1])
        assert len(actions) <= game.max_decisions
    assert game.legal_mask(state) == 0 and game.legal_actions(state) == []
    assert (buffer[game.state_size :] == SENTINEL).all()
    return start, states, actions, state


def check_observations(game, kit, rules, state, n, rng) -> None:
    """Each seat's observation fits ``obs_size``, leaves the state alone, and stays the same
    when every slot the seat may not know is changed."""
    for seat in range(n):
        buffer, obs = padded(game.obs_size)
        before = state.copy()
        game.observe(state, seat, obs)
        assert (buffer[game.obs_size :] == SENTINEL).all()
        assert np.array_equal(state, before)
        other = state.copy()
        hidden = kit.hidden_slots(state, seat)
        assert len(hidden) > 0
        other[hidden] += rng.integers(1, 50, len(hidden))
        again = np.zeros(game.obs_size, np.int64)
        game.observe(other, seat, again)
        assert np.array_equal(obs, again), f"seat {seat} sees a hidden slot"
        check_tensor(game, rules, obs, again)
    check_turn_view(game, state)


def check_tensor(game, rules, obs, again) -> None:
    """The learning tensor of an observation has the declared length and bounds, and is the
    same when every hidden slot of the state was changed (``again``)."""
    size = game.tensor_size(rules)
    tensor, same = np.full(size, np.nan, np.float32), np.zeros(size, np.float32)
    game.encode(obs, tensor)
    game.encode(again, same)
    low, high = game.tensor_bounds(rules)
    assert np.array_equal(tensor, same) and low.shape == high.shape == (size,)
    assert ((low <= tensor) & (tensor <= high)).all(), "a tensor entry outside its bounds"


def check_turn_view(game, state) -> None:
    """Where ``show_turn`` says the state's prefix is the view of the seat to act (the fast
    loops then show built-ins that prefix without a copy), it equals what ``observe`` writes
    (at a decision: while a chance event is pending nobody is to act)."""
    if game.is_over(state) or game.chance_pending(state):
        return
    shown = state.copy()
    if game.show_turn(shown):
        view = np.zeros(game.obs_size, np.int64)
        game.observe(shown, int(shown[game.turn_slot]), view)
        assert np.array_equal(shown[: game.obs_size], view), "the prefix is not the turn's view"


def check_end(game, kit, rules, start, states, actions, final) -> None:
    """Rewards are the winners' shares; the twin agrees with every legal mask, the scores and
    the winners; the result row holds the scores, decisions and winners."""
    n = rules.n_players
    rewards, scores = np.full(n, -1.0), np.zeros(n, np.int64)
    game.rewards(final, rewards)
    game.scores(final, scores)
    winners = game.winners(final)
    assert winners and all(0 <= w < n for w in winners)
    assert ((rewards >= 0) & (rewards <= 1)).all() and rewards.sum() == pytest.approx(1)
    assert list(rewards) == pytest.approx([(p in winners) / len(winners) for p in range(n)])
    twin = kit.twin(rules, start, final)
    for step, (state, action) in enumerate(zip(states, actions, strict=True)):
        assert sorted(twin.legal_actions()) == game.legal_actions(state), f"step {step}"
        twin.apply(action)
    assert twin.legal_actions() == []
    assert twin.scores() == list(scores) and twin.winners() == winners
    row = np.zeros((1, game.row_width(rules)), np.int64)
    game.result_row(final, n, 1, 0, row, 0)
    tail = len(game.blocks) * n
    assert list(row[0, :n]) == list(scores) and 0 <= row[0, tail] < n
    assert row[0, tail + TAIL.index("n_decisions")] == len(actions)
    assert row[0, tail + TAIL.index("winners")] == game.winner_mask(final)
    blocks = row[0, :tail].reshape(len(game.blocks), n).T  # one seat a row
    keys = game.finish_key(blocks)
    assert [p for p in range(n) if keys[p] == keys.max()] == winners


def check_record(game, rules, start, actions, final) -> None:
    """A record made from the deal and actions survives JSON, replays, holds the final scores
    and winners, and is refused once a number in it is changed."""
    record = game.make_record(rules, start, actions, {"seed": 1})
    assert record == game.make_record(rules, start, actions, {"seed": 1})
    record = json.loads(json.dumps(record))
    lines = game.replay(record)
    assert lines and all(isinstance(line, str) for line in lines)
    scores = np.zeros(rules.n_players, np.int64)
    game.scores(final, scores)
    assert record["scores"] == list(scores) and record["winners"] == game.winners(final)
    for key, wrong in (("scores", [*scores[:-1], scores[-1] + 1]), ("winners", [rules.n_players])):
        with pytest.raises(RecordError, match=key):
            game.replay({**record, key: [int(v) for v in wrong]})


@pytest.mark.parametrize("name", NAMES)
def test_every_verb_takes_the_arguments_its_signature_in_the_record_names(name):
    """The record's annotations are the contract tools read: each verb's function takes as many
    arguments as its ``Callable`` type lists."""
    game, hints = load_game(name), typing.get_type_hints(Game)
    checked = 0
    for field in dataclasses.fields(Game):
        verb, hint = getattr(game, field.name), hints[field.name]
        if isinstance(hint, types.UnionType):  # an optional verb: X | None
            if verb is None:
                continue
            hint = typing.get_args(hint)[0]
        args = typing.get_args(hint)
        if typing.get_origin(hint) is not collections.abc.Callable or args[0] is Ellipsis:
            continue
        function = getattr(verb, "py_func", verb)  # a Numba dispatcher's Python function
        assert len(inspect.signature(function).parameters) == len(args[0]), field.name
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_random_legal_play_keeps_the_contract(name, data):
    game, kit = load_game(name), kit_of(name)
    n = data.draw(st.sampled_from(game.players), label="players")
    rules = data.draw(st.sampled_from([game.rules(n_players=n), *kit.variants(n)]))
    seed = data.draw(st.integers(0, 2**32), label="seed")
    start, states, actions, final = play_randomly(game, rules, seed)
    rng = np.random.default_rng(seed)
    for state in [*states[:: max(len(states) // 12, 1)], final]:
        check_observations(game, kit, rules, state, n, rng)
    check_end(game, kit, rules, start, states, actions, final)
    check_record(game, rules, start, actions, final)


def tiny(family):
    """The family's default agent; a search agent with ``TINY_ITERS`` iterations."""
    return family(iters=TINY_ITERS) if "iters" in family.defaults else family()


def family_cases() -> list:
    """Every compiled built-in that plays any rules (a table's family, ``solved``, plays the
    variant it was solved for: tests/test_solve.py)."""
    return [(name, f) for name in NAMES for f in builtins(name) if f.compiled and not f.table]


# (player count as an index of Game.players, first-player policy, secret of the agents' streams)
SEATINGS = ((0, "rotate", 0), (-1, "random", 987_654_321), (1, 0, 2**64 - 5))


@pytest.mark.parametrize(("name", "family"), family_cases(), ids=lambda c: getattr(c, "name", c))
def test_builtin_agents_play_legal_bounded_games_the_same_fast_and_slow(name, family):
    game = load_game(name)
    cheap = [f for f in builtins(name) if "iters" not in f.defaults and not f.table]
    n_games = 2 if "iters" in family.defaults else 12
    for k, (players, first, secret) in enumerate(SEATINGS):
        n = game.players[players]
        agents = [tiny(family)] + [tiny(cheap[(k + s) % len(cheap)]) for s in range(n - 1)]
        rules = game.rules(n_players=n)
        fast = play_block(name, rules, agents, 40 + k, 3 * k, n_games, first, secret)
        slow = play_block_slow(game, rules, agents, 40 + k, 3 * k, n_games, first, secret)
        assert np.array_equal(fast, slow)
        tail = len(game.blocks) * n
        decisions = fast[:, tail + TAIL.index("n_decisions")]
        assert ((decisions > 0) & (decisions <= game.max_decisions)).all()
        assert ((fast[:, tail + TAIL.index("winners")] > 0) & (fast[:, tail + 2] < (1 << n))).all()


def choose(obs, params, rng):
    """Chooses the action id of its parameter ``a``, legal or not."""
    return np.int64(params[0])


def take_or_no_action(obs, params, rng):
    """No Thanks!: takes (always legal), but now and then (probability ``p``) chooses no
    action at all."""
    return np.int64(62) if next_float(rng) < params[0] else np.int64(TAKE)


def test_the_loop_names_the_game_of_an_illegal_action_deep_in_a_block():
    """The compiled loop stops at the block's first game with an illegal action and names
    it (and the slow path, playing it again, the seat): the slow path, game by game, plays
    every game before it legally and fails at it."""
    family = define("geschenkt", "takes_or_errs", take_or_no_action, {"p": 0.003})
    rules, agents, first = load_game("geschenkt").rules(n_players=3), [family()] * 3, 7
    with pytest.raises(IllegalActionError, match=r"^game \d+: seat \d \(takes_or_errs\)") as caught:
        play_block("geschenkt", rules, agents, 3, first, 400)
    reported = int(re.search(r"^game (\d+)", str(caught.value)).group(1))
    assert reported > first + 1  # deep in the block, not at its start
    for index in range(first, reported):
        play_slow("geschenkt", rules, agents, 3, index)
    with pytest.raises(IllegalActionError, match="chose illegal action 62"):
        play_slow("geschenkt", rules, agents, 3, reported)


@pytest.mark.parametrize("name", NAMES)
def test_an_agents_illegal_action_is_reported_and_not_applied(name):
    game = load_game(name)
    fixed = define(name, "fixed", choose, {"a": 0.0})
    rules = game.rules(n_players=game.players[0])
    never = (-1, game.num_actions, 62)  # no action id, the first undeclared id, the last bit
    for a in never:
        agents = [fixed(a=a)] * rules.n_players
        with pytest.raises(IllegalActionError, match=f"^game 5: seat .+ illegal action {a} "):
            play_block(name, rules, agents, 3, 5, 4)  # the loop's game, the slow path's seat
    seen = []

    def player(obs, legal):  # a plain-Python seat of the slow path: illegal at its 2nd turn
        seen.append(obs.copy())
        return legal[0] if len(seen) == 1 else game.num_actions

    with pytest.raises(IllegalActionError):
        play_slow(name, rules, [player] * rules.n_players, 3, 5)
    assert len(seen) == 2  # the game stopped at the illegal action: nobody was asked again


def test_the_tensor_layouts_are_documented_in_docs_tensors_md():
    """docs/tensors.md holds each real game's tensor layout table as its tensor module states it
    (the module docstring is the source; this keeps the doc page from going stale)."""
    import geschenkt_sim.tensor
    import tulips_sim.tensor

    page = (Path(__file__).resolve().parent.parent / "docs" / "tensors.md").read_text()
    for module in (geschenkt_sim.tensor, tulips_sim.tensor):
        assert module.__doc__.strip() in page
        for block in module.BLOCKS:
            assert f"``{block}``" in page


def max_decisions(game, rules) -> int:
    return getattr(rules, "max_decisions", game.max_decisions)


def play_explicit(game, rules, seed):
    """Deal game 0 of ``seed`` with explicit chance and play it: each chance event resolved by
    an outcome drawn by its weights, each decision a random legal action, checking the chance
    verbs' sizes on the way. Returns the steps (``Chance``, ``Decision``), the state before each
    step and the final state."""
    buffer, state = padded(game.state_size)
    key = np.uint64(game_key(np.uint64(seed), 0))
    game.deal_open(rules.to_array(), key, RANDOM_FIRST, state)
    game.begin(state)
    rng = np.random.default_rng(seed)
    steps, states = [], []
    bound = max_decisions(game, rules) + game.chance_events(rules)
    while not game.is_over(state):
        states.append(state.copy())
        kind = int(game.chance_pending(state))
        step = chance_step(game, state, kind, rng) if kind else decision_step(game, state, rng)
        steps.append(step)
        assert len(steps) <= bound
    assert game.chance_pending(state) == 0 and game.legal_mask(state) == 0
    assert (buffer[game.state_size :] == SENTINEL).all()
    return steps, states, state


def chance_step(game, state, kind, rng) -> Chance:
    """Resolve the pending event with an outcome drawn by its weights; the event as a step."""
    assert 1 <= kind <= len(game.chance_kinds)
    buffer, weights = padded(game.max_chance_outcomes)
    count = int(game.chance_outcomes(state, weights))
    assert (buffer[game.max_chance_outcomes :] == SENTINEL).all()
    assert 0 < count <= game.max_chance_outcomes
    positive = weights[:count]
    assert (positive >= 0).all() and positive.sum() > 0
    assert positive[game.next_outcome(state)] > 0  # the dealt outcome is a possible one
    observers = int(game.chance_observers(state))
    n = int(state[0])  # every game's first slot: its seats
    assert 0 <= observers < 1 << n
    outcome = int(rng.choice(count, p=positive / positive.sum()))
    game.apply_chance(state, outcome)
    weights_of = {int(o): int(w) for o, w in enumerate(positive) if w > 0}
    seen = frozenset(p for p in range(n) if (observers >> p) & 1)
    return Chance(game.chance_kinds[kind - 1], outcome, weights_of, seen)


def decision_step(game, state, rng) -> Decision:
    legal = game.legal_actions(state)
    assert legal
    action = legal[rng.integers(len(legal))]
    game.apply_action(state, action)
    return Decision(action)


def check_explicit_twin(game, kit, rules, steps, states, final) -> None:
    """Every chance event is the one the rules and the twin give (kind, weights, observers);
    every decision has the twin's legal actions; the scores and winners are the twin's."""
    twin = kit.explicit_twin(rules, steps, final)
    for i, (step, state) in enumerate(zip(steps, states, strict=True)):
        if isinstance(step, Chance):
            expected = (step.kind, step.weights, step.observers)
            assert kit.expected_chance(rules, steps[:i], twin) == expected, f"step {i}"
        else:
            assert sorted(twin.legal_actions()) == game.legal_actions(state), f"step {i}"
            twin.apply(step.action)
    scores = np.zeros(rules.n_players, np.int64)
    game.scores(final, scores)
    assert twin.legal_actions() == []
    assert twin.scores() == list(scores) and twin.winners() == game.winners(final)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_explicit_chance_keeps_the_contract_and_the_twins_weights(name, data):
    game, kit = load_game(name), kit_of(name)
    n = data.draw(st.sampled_from(game.players), label="players")
    rules = data.draw(st.sampled_from([game.rules(n_players=n), *kit.variants(n)]))
    seed = data.draw(st.integers(0, 2**32), label="seed")
    steps, states, final = play_explicit(game, rules, seed)
    assert any(isinstance(s, Chance) for s in steps) and any(isinstance(s, Decision) for s in steps)
    check_explicit_twin(game, kit, rules, steps, states, final)
    rng = np.random.default_rng(seed)
    for state in [*states[:: max(len(states) // 12, 1)], final]:
        check_observations(game, kit, rules, state, n, rng)


def play_explicit_agents(game, rules, agents, seed, index, first_player):
    """Game ``index`` of ``seed`` dealt with explicit chance, every event resolved with
    ``next_outcome`` and every decision made by the agents as the slow path asks them."""
    n = rules.n_players
    state = np.zeros(game.state_size, np.int64)
    key = np.uint64(game_key(np.uint64(seed), index))
    first = first_seat(first_policy(first_player, n), index, n)
    game.deal_open(rules.to_array(), key, first, state)
    game.begin(state)
    rngs = seat_streams(key, n)
    while not game.is_over(state):
        if game.chance_pending(state):
            game.apply_chance(state, game.next_outcome(state))
            continue
        legal = game.legal_actions(state)
        action = legal[0] if len(legal) == 1 else ask(game, agents, state, rngs, legal)
        game.apply_action(state, action)
    return state


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("first_player", ["random", "rotate"])
def test_explicit_chance_with_next_outcome_plays_the_dealt_games(name, first_player):
    """With every event resolved by ``next_outcome``, explicit chance plays the fast loop's
    games, game for game: the same result rows, with the built-in agents at every seat."""
    game = load_game(name)
    families = [f for f in builtins(name) if f.compiled and f.table is None]  # no table file
    for k, n in enumerate(game.players):
        agents = [tiny(families[(k + s) % len(families)]) for s in range(n)]
        rules = game.rules(n_players=n)
        rows = play_block(name, rules, agents, 70 + k, 0, 6, first_player)
        for g in range(rows.shape[0]):
            final = play_explicit_agents(game, rules, agents, 70 + k, g, first_player)
            row = np.zeros((1, game.row_width(rules)), np.int64)
            game.result_row(final, n, 1, 0, row, 0)
            assert np.array_equal(row[0], rows[g]), f"{n} players, game {g}"

"""The OpenSpiel Python games of ``experiments/envs/openspiel_game.py``: OpenSpiel's own
``random_sim_test`` with serialisation on every rule option of both games (and the toy game),
the chance nodes against the games' chance verbs, perfect-recall information states, the
public and private observations (and ``generate_playthrough``, which prints them), giftsim's
games played by ``GiftsimBot``s on dealt states, OpenSpiel's algorithms at small size
(``evaluate_bots`` with its MCTS bot, ``rl_environment`` with a learner, CFR and exploitability),
alpha-rank over giftsim agents, and bad input."""

import re
from pathlib import Path

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy, rl_environment
from open_spiel.python.algorithms import cfr, evaluate_bots, exploitability, mcts, tabular_qlearner
from open_spiel.python.algorithms import random_agent as os_random
from open_spiel.python.algorithms.generate_playthrough import playthrough
from open_spiel.python.egt import alpharank
from open_spiel.python.observation import make_observation

from agents.registry import parse_list
from experiments import batch
from experiments.envs import openspiel_game as og
from experiments.games import play_slow
from giftsim.game import GAMES, load_game
from giftsim.rng import game_key

NAMES = list(GAMES)
AGENT = {"geschenkt": "greedy", "tulips": "greedy", "toy": "steady"}
TINY = {"players": 2, "lowest_card": 3, "highest_card": 6, "n_removed": 1, "chips_per_player": 1}

# Every rule option of both games at a value other than its default, in a few sets.
OPTION_SETS = {
    "geschenkt": [
        {"players": 4},
        {"players": 2},
        {"players": 7, "chips_visible": False},
        {"players": 4, "variant": "tactical", "tactical_chips": "ten"},
        {"players": 5, "n_removed": 6, "chips_per_player": 3, "first_player": 2},
        {"players": 3, "lowest_card": 5, "highest_card": 20, "n_removed": 3},
    ],
    "tulips": [
        {"players": 4},
        {"players": 2, "game_end": "deck_out", "n_removed": 5},
        {"players": 3, "game_end": "full_turns", "seeding_tie": "random", "first_player": 1},
        {"players": 4, "setup": "in_turn", "majority_ties": "competition", "n_revealed": 2},
        {"players": 5, "zero_cards_majority": True, "setup_scores": True},
        {
            "players": 6,
            "base_copies": "6:5:4",
            "extra_copies": "1:2:3/2:2:2/2:2:2/3:2:1",
            "giving_bonus": "4:2:1:0",
            "keeping_points": "0:1:1:3",
            "majority_points": "20:10:5/10:7:4/5:3:1/0:0:0",
        },
    ],
}


def players_of(name: str) -> int:
    return 4 if 4 in load_game(name).players else min(load_game(name).players)


def option_cases():
    return [(name, params) for name, sets in OPTION_SETS.items() for params in sets] + [
        ("toy", {"players": 3})
    ]


@pytest.mark.parametrize(("name", "params"), option_cases())
def test_random_sim_test_with_serialisation_on_every_option_set(name, params):
    """OpenSpiel's API consistency check (legal actions, chance outcomes, clones, tensors,
    strings, serialisation at every power-of-two step) on each option set; the game string
    loads back to the same game."""
    game = og.load(name, **params)
    assert str(pyspiel.load_game(str(game))) == str(game)
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_every_rule_option_is_a_parameter_and_round_trips(name):
    """Every ``--rule`` key is a parameter; the option sets above move each off its default;
    a loaded game's rules are the rules of its parameters, and survive its game string."""
    game = og.load(name)
    spec = game.get_type().parameter_specification
    options = og._options(load_game(name))
    assert set(spec) == {"players", *options}
    moved = {key for params in OPTION_SETS[name] for key in params if params[key] != spec[key]}
    assert moved == set(spec) - {"rounds"}  # rounds other than 1 is refused (bad input)
    for params in OPTION_SETS[name]:
        loaded = og.load(name, **params)
        again = pyspiel.load_game(str(loaded))
        assert again.setup.rules == loaded.setup.rules
        assert again.get_parameters() == loaded.get_parameters()


def test_rule_parameters_mean_the_rules_options():
    """A few parameters give the ``Rules`` the same ``--rule`` text gives."""
    game = og.load("tulips", players=3, base_copies="6:5:4", n_removed=-1, first_player=2)
    rules = load_game("tulips").rules.from_pairs(
        ["base_copies=6,5,4", "n_removed=default", "first_player=2"], n_players=3
    )
    assert game.setup.rules == rules
    tiny = og.load("geschenkt", **TINY)
    assert tiny.setup.rules.n_cards == 3 and tiny.setup.rules.chips == 1


def test_bad_input_is_one_line_errors_or_openspiels_own():
    for params, wrong in (
        ({"players": 9}, "players must be in 2..7 for No Thanks!, got 9"),
        ({"rounds": 3}, "OpenSpiel plays single games: rounds must be 1, got 3"),
        ({"variant": "classic"}, "rule variant must be one of standard, tactical"),
        ({"chips_per_player": -5}, "chips_per_player must be in 0..99"),
    ):
        with pytest.raises(ValueError, match=wrong):
            og.load("geschenkt", **params)
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'seeding_tie'"):
        og.load("geschenkt", seeding_tie="random")  # an option of the other game
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter n_removed"):
        og.load("geschenkt", n_removed="3")
    with pytest.raises(ValueError, match=r"players must be in 2\.\.6 for Gift of Tulips, got 7"):
        og.load("tulips", players=7)
    state = og.load("geschenkt", players=3).new_initial_state()
    state.clone().apply_action(2)  # the first seat of three is 0, 1 or 2
    with pytest.raises(ValueError, match=r"3 is not an outcome of this chance event: \[0, 1, 2\]"):
        state.apply_action(3)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    with pytest.raises(ValueError, match=r"action 5 is illegal for seat 0 now \(legal: 0 \(pass"):
        state.apply_action(5)
    for wrong in (1.5, "take", None):
        with pytest.raises(TypeError):
            state.apply_action(wrong)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(ValueError, match=r"^the game is over: no action applies \(got 1\)$"):
        state.apply_action(1)  # it said "illegal for seat -4 now (legal: )"


@pytest.mark.parametrize("name", NAMES)
def test_chance_nodes_are_the_games_events(name):
    """Every chance node's outcomes and probabilities are the game's weights; a decision
    node's legal actions the game's; the strings name the event; along random games."""
    game, definition = og.load(name, players=players_of(name)), load_game(name)
    rng = np.random.default_rng(3)
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                weights = np.zeros(definition.max_chance_outcomes, np.int64)
                count = definition.chance_outcomes(state.board, weights)
                total = weights[:count].sum()
                expected = [(o, w / total) for o, w in enumerate(weights[:count]) if w > 0]
                assert_outcomes(state.chance_outcomes(), expected)
                assert state.legal_actions() == [o for o, _ in expected]
                kind = definition.chance_kinds[definition.chance_pending(state.board) - 1]
                text = state.action_to_string(pyspiel.PlayerId.CHANCE, expected[0][0])
                assert text.startswith(f"{kind}: ")
                outcomes, probs = zip(*expected, strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            else:
                assert state.legal_actions() == definition.legal_actions(state.board)
                state.apply_action(int(rng.choice(state.legal_actions())))


def assert_outcomes(found, expected) -> None:
    """Two lists of ``(outcome, probability)``: the same outcomes, the same probabilities."""
    assert [o for o, _ in found] == [o for o, _ in expected]
    assert [p for _, p in found] == pytest.approx([p for _, p in expected])


def test_known_chance_nodes():
    """Known answers: No Thanks!'s first card is any of the 33 cards, 1/33 each (the first
    seat, 1/4 each, before it); Tulips' first event removes a card: 12 types, 6/72 each."""
    state = og.load("geschenkt", players=4).new_initial_state()
    assert_outcomes(state.chance_outcomes(), [(s, 0.25) for s in range(4)])
    state.apply_action(1)
    assert_outcomes(state.chance_outcomes(), [(c, 1 / 33) for c in range(3, 36)])
    state = og.load("tulips", players=4).new_initial_state()
    assert_outcomes(state.chance_outcomes(), [(t, 6 / 72) for t in range(12)])
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 11) == "remove: orange 4"


def collect(state, truths, found) -> None:
    """Record, for every seat, the information state string and tensor of ``state`` with the
    seat's own history (its view after every event, the outcomes it saw, its own actions)."""
    for p, truth in enumerate(truths):
        tensor = np.asarray(state.information_state_tensor(p), np.float32).tobytes()
        found.append((p, state.information_state_string(p), tensor, truth))


def children(state, truths):
    """Every child of ``state`` with each seat's own history extended by the event."""
    definition, n = state.setup.game, len(truths)
    if state.is_chance_node():
        observers = int(definition.chance_observers(state.board))
        steps = [
            (o, [o if (observers >> p) & 1 else None for p in range(n)])
            for o, _ in state.chance_outcomes()
        ]
    else:
        seat = state.current_player()
        steps = [(a, [a if p == seat else None for p in range(n)]) for a in state.legal_actions()]
    for action, seen in steps:
        child = state.clone()
        child.apply_action(action)
        yield child, [(*t, (seen[p], child.view(p).tobytes())) for p, t in enumerate(truths)]


def roots(game):
    state = game.new_initial_state()
    return state, [((state.view(p).tobytes(),),) for p in range(game.num_players())]


def check_perfect_recall(found) -> int:
    """No string (and no tensor) stands for two different own histories of a seat, and one own
    history has one string (and one tensor); returns the number of distinct strings."""
    for column in (1, 2):
        by_info, by_truth = {}, {}
        for seat, *infos, truth in found:
            by_info.setdefault((seat, infos[column - 1]), set()).add(truth)
            by_truth.setdefault((seat, truth), set()).add(infos[column - 1])
        assert all(len(t) == 1 for t in by_info.values()), "two own histories share a state"
        assert all(len(i) == 1 for i in by_truth.values()), "one own history, two states"
    return len({(seat, string) for seat, string, *_ in found})


@pytest.mark.parametrize("options", [TINY, {**TINY, "players": 3, "chips_visible": False}])
def test_information_states_are_perfect_recall_on_the_whole_tree(options):
    """Every state of a tiny No Thanks! (chips hidden in the second): one string and tensor
    per own history, never one for two."""
    game = og.load("geschenkt", **options)
    found, stack = [], [roots(game)]
    while stack:
        state, truths = stack.pop()
        collect(state, truths, found)
        if not state.is_terminal():
            stack.extend(children(state, truths))
    assert check_perfect_recall(found) > 1000


@pytest.mark.parametrize(
    "params",
    [
        {"players": 3},
        {"players": 2, "setup": "in_turn", "seeding_tie": "random"},
        {"players": 4, "base_copies": "2:2:1", "n_removed": 2},
    ],
)
def test_tulips_information_states_are_perfect_recall(params):
    """Along random Tulips games, every state and every child of it (each outcome of a chance
    event, each legal action): one string and tensor per own history, never one for two
    (siblings at a draw, a dealt card, a removed card or another seat's setup choice give the
    seats that do not see it one history and must give them one state)."""
    game = og.load("tulips", **params)
    rng, found = np.random.default_rng(7), []
    for _ in range(2):
        state, truths = roots(game)
        while not state.is_terminal():
            collect(state, truths, found)
            kids = list(children(state, truths))
            for kid in kids:
                collect(*kid, found)
            state, truths = kids[rng.integers(len(kids))]
    assert check_perfect_recall(found) > 500


@pytest.mark.parametrize("name", NAMES)
def test_observer_views(name):
    """The observation is the seat's one-hot and Game.encode of its view; the information
    state adds each event as the seat saw it, decoded by ``event_of``: its own actions in
    order, and the outcomes it saw."""
    n = players_of(name)
    game, definition = og.load(name, players=n), load_game(name)
    state, rng = game.new_initial_state(), np.random.default_rng(0)
    for _ in range(40):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    size = definition.tensor_size(definition.rules(n_players=n))
    for seat in range(n):
        expected = np.zeros(size, np.float32)
        definition.encode(state.view(seat), expected)
        obs = np.asarray(state.observation_tensor(seat))
        assert list(obs[:n]) == [float(s == seat) for s in range(n)]
        np.testing.assert_array_equal(obs[n:], expected)
        info = np.asarray(state.information_state_tensor(seat))
        np.testing.assert_array_equal(info[: n + size], obs)
        events = [og.event_of(game.setup, c) for c in info[n + size :] if c]
        assert len(events) == len(state.full_history())
        own = [seen - 1 for actor, seen in events if actor == seat]
        mine = [a.action for a in state.full_history() if a.player == seat]
        assert own == mine
        assert state.observation_string(seat).startswith(f"p{seat} ")


@pytest.mark.parametrize("recall", [False, True])
def test_each_observer_has_a_tensor_of_its_own(recall):
    """Two observations of one game, filled from different seats, keep their own tensors (a
    shared observer made the first one's the second seat's)."""
    game = og.load("tulips", players=3)
    kind = pyspiel.IIGObservationType(perfect_recall=recall)
    first, second = make_observation(game, kind), make_observation(game, kind)
    state, rng = game.new_initial_state(), np.random.default_rng(0)
    for _ in range(30):
        state.apply_action(int(rng.choice(state.legal_actions())))
    first.set_from(state, 0)
    second.set_from(state, 1)
    tensor = state.information_state_tensor if recall else state.observation_tensor
    assert first.tensor.tolist() == tensor(0) and second.tensor.tolist() == tensor(1)
    assert first.tensor.tolist() != second.tensor.tolist()


PUBLIC = pyspiel.IIGObservationType(
    public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE
)
PRIVATE = pyspiel.IIGObservationType(
    public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER
)


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_generate_playthrough_prints_the_public_and_private_observations(name):
    """OpenSpiel's ``generate_playthrough`` (which asks for the factored observations) runs
    to the end of a game; a Tulips seat's private observation names the cards dealt to it."""
    game = og.load(name, players=3)
    lines = playthrough(str(game), action_sequence=[], seed=0).splitlines()
    public = [line for line in lines if line.startswith("PublicObservationString() = ")]
    private = [line for line in lines if line.startswith("PrivateObservationString(0) = ")]
    assert public and len(public) == len(private)  # the states it shows in full
    assert "IsTerminal() = True" in lines and public[-1].count(", ") > 20
    if name == "tulips":
        assert re.search(r"\d+: deal: \w+ \d", private[-1]) and "deal: ?" in public[-1]


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_public_and_private_observations_split_each_seats_information_state(name):
    """At every node of random games: the public observation is the same whichever seat asks;
    a seat's information-state history is its private events where it has one and the public
    events elsewhere; and an outcome that some seat does not see leaves the public observation
    as it was for any other outcome, while its observers' private observations tell them
    apart."""
    game = og.load(name, players=3)
    public, private = make_observation(game, PUBLIC), make_observation(game, PRIVATE)
    recall = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    rng, hidden = np.random.default_rng(5), 0
    for _ in range(3):
        state = game.new_initial_state()
        while not state.is_terminal():
            seen = []
            for p in range(3):
                public.set_from(state, p)
                private.set_from(state, p)
                recall.set_from(state, p)
                seen.append(public.tensor.copy())
                mine = private.dict["history"]
                merged = np.where(mine != 0, mine, public.dict["history"])
                assert np.array_equal(merged, recall.dict["history"])
                assert private.dict["player"][p] == 1
            assert all(np.array_equal(seen[0], other) for other in seen[1:])
            outcomes = [o for o, _ in state.chance_outcomes()] if state.is_chance_node() else []
            observers = int(load_game(name).chance_observers(state.board)) if outcomes else 7
            if len(outcomes) > 1 and observers != 7:  # an outcome some seat does not see
                hidden += 1
                a, b = state.child(outcomes[0]), state.child(outcomes[1])
                assert public.string_from(a, 0) == public.string_from(b, 0)
                for p in range(3):
                    told = private.string_from(a, p) != private.string_from(b, p)
                    assert told == bool((observers >> p) & 1)
            state.apply_action(int(rng.choice(state.legal_actions())))
    # Tulips: the cards removed, dealt and drawn; No Thanks! has no such event (a card
    # removed is one never turned up) and so an empty private observation
    assert hidden > 10 if name == "tulips" else hidden == 0


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_observation_types_not_served_are_refused_naming_those_that_are(name):
    game = og.load(name, players=3)
    nothing = pyspiel.IIGObservationType(
        public_info=False, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE
    )
    everyone = pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
    )
    for kind, named in ((nothing, "private_info=NONE"), (everyone, "private_info=ALL_PLAYERS")):
        with pytest.raises(ValueError, match="is not supported: a seat's own view") as raised:
            make_observation(game, kind)
        assert named in str(raised.value) and "\n" not in str(raised.value)
        assert "the public observation (public_info=True, private_info=NONE)" in str(raised.value)


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_python_answers_are_openspiels(name):
    """The methods a state answers in Python for speed give what OpenSpiel's C++ gives through
    the observers and ``_legal_actions``, at chance nodes, decisions and the end."""
    game = og.load(name, players=3)
    state, rng = game.new_initial_state(), np.random.default_rng(2)
    while True:
        assert state.is_chance_node() == pyspiel.State.is_chance_node(state)
        for p in [None, *range(3)]:
            args = () if p is None else (p,)
            assert state.legal_actions(*args) == pyspiel.State.legal_actions(state, *args)
            if p is None and state.current_player() < 0:
                with pytest.raises(ValueError, match="a tensor is a seat's"):
                    state.observation_tensor()
                continue
            seat = state.current_player() if p is None else p
            for mine, theirs in (
                (state.observation_tensor, pyspiel.State.observation_tensor),
                (state.information_state_tensor, pyspiel.State.information_state_tensor),
            ):
                assert mine(*args) == theirs(state, seat)
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("name", NAMES)
def test_dealt_states_with_giftsim_bots_play_giftsims_games(name):
    """A state dealt with game i's key, its chance events resolved with ``dealt_outcome``, and
    a table of fresh GiftsimBots play giftsim's game i: the same actions, and the returns are
    giftsim's shares of the win."""
    n = players_of(name)
    game, definition = og.load(name, players=n), load_game(name)
    specs = ["random", AGENT[name]] + ["random"] * (n - 2)
    for index in range(3):
        state = game.new_dealt_state(game_key(11, index))
        bots = [og.GiftsimBot(game, seat, spec) for seat, spec in enumerate(specs)]
        actions = []
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.dealt_outcome())
                continue
            actions.append(bots[state.current_player()].step(state))
            state.apply_action(actions[-1])
        played = play_slow(
            name, definition.rules(n_players=n), parse_list(specs, name), 11, index, "random"
        )
        assert actions == played.actions
        shares = np.zeros(definition.max_players)
        definition.rewards(played.final, shares)
        assert state.returns() == pytest.approx(list(shares[:n]))


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_evaluate_bots_with_mcts_and_giftsim_bots(name):
    """OpenSpiel's Python MCTSBot (it searches the true state: an integration check, not a fair
    opponent) plays seat 0 against giftsim agents through evaluate_bots."""
    game = og.load(name, players=3)
    rng = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    searcher = mcts.MCTSBot(game, 1.4, 6, evaluator, random_state=rng)
    bots = [searcher, og.GiftsimBot(game, 1, "greedy"), og.GiftsimBot(game, 2, "random")]
    for seed in range(2):
        state = game.new_initial_state()
        returns = evaluate_bots.evaluate_bots(state, bots, np.random.default_rng(seed))
        assert state.is_terminal() and sum(returns) == pytest.approx(1.0)
        winners = [r for r in returns if r > 0]
        assert all(r == pytest.approx(1 / len(winners)) for r in winners)


def test_rl_environment_with_a_q_learner():
    """``rl_environment`` steps the tiny No Thanks! for a tabular Q-learner against a random
    agent; every episode ends with shares of the win summing to 1."""
    game = og.load("geschenkt", **TINY)
    env = rl_environment.Environment(game, seed=1)
    learner = tabular_qlearner.QLearner(0, game.num_distinct_actions())
    agents = [learner, os_random.RandomAgent(1, game.num_distinct_actions())]
    for _ in range(300):
        step, acted = env.reset(), set()
        while not step.last():
            player = step.observations["current_player"]
            acted.add(player)
            step = env.step([agents[player].step(step).action])
        assert sum(step.rewards) == pytest.approx(1.0)
        for player in acted:  # a QLearner that never acted must not see the end
            agents[player].step(step)
    assert len(learner._q_values) > 10  # it has learnt values for many information states


def test_cfr_lowers_exploitability_on_a_tiny_deck():
    """CFR on the tiny No Thanks! (4 cards, 1 removed, 1 chip each, 2 players): in 10
    iterations NashConv falls from the uniform policy's (0.654) below a quarter of it (0.084 on
    this machine) and stays non-negative; OpenSpiel's C++ NashConv agrees."""
    game = og.load("geschenkt", **TINY)
    uniform = exploitability.nash_conv(game, policy.UniformRandomPolicy(game))
    solver = cfr.CFRSolver(game)
    for _ in range(10):
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    found = exploitability.nash_conv(game, average)
    assert 0 <= found < uniform / 4
    assert pyspiel.nash_conv(game, policy.python_policy_to_pyspiel_policy(average)) == (
        pytest.approx(found, abs=1e-9)
    )


def payoff_tables(population, n_players, n_games):
    """Alpha-rank's payoff tables of an ``n_players`` game over ``population``, one population
    per seat (OpenSpiel's single-population alpha-rank takes two-player games only): table
    ``k`` at ``(i, j, ..)`` is seat ``k``'s mean win share when the seats play agents
    ``i, j, ..``, from giftsim's batch play (first seat rotating)."""
    shape = (len(population),) * n_players
    tables = [np.zeros(shape) for _ in range(n_players)]
    for profile in np.ndindex(*shape):
        seats = [population[i] for i in profile]
        frame = batch.play("geschenkt", seats, n_games, seed=5)
        for k in range(n_players):
            tables[k][profile] = frame[f"win_{k}"].mean()
    return tables


def test_alpharank_puts_most_mass_on_the_strongest_agent():
    """Alpha-rank over random, greedy and sniper for No Thanks! (3 players), from giftsim
    tournaments: in every seat's population the agent with the most wins in the three-way
    table (the project's batch play) gets the most mass, over half of it."""
    population, n = ["random", "greedy", "sniper"], 3
    tables = payoff_tables(population, n, 400)
    _, _, pi, _, _ = alpharank.compute(tables, alpha=10.0)
    mass = np.zeros((n, len(population)))  # each seat's marginal mass per agent
    for profile, p in zip(np.ndindex(*(len(population),) * n), pi, strict=True):
        for k, i in enumerate(profile):
            mass[k, i] += p
    mixed = batch.by_agent(batch.play("geschenkt", population, 3000, seed=6))["win_share"]
    for k in range(n):
        assert population[int(np.argmax(mass[k]))] == mixed.idxmax()
        assert mass[k].max() > 0.5


def test_readme_snippet_runs(capsys):
    """The README's OpenSpiel snippet runs as written and prints the seats' shares of the win."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    snippet = next(
        block for block in blocks if "openspiel_game" in block and "evaluate_bots" in block
    )
    exec(compile(snippet, "README.md", "exec"), {})
    shares = [float(x) for x in capsys.readouterr().out.strip().strip("[]").split(",")]
    assert len(shares) == 3 and sum(shares) == pytest.approx(1.0)


def test_readme_cfr_snippet_runs(capsys):
    """The README's "from zero to a trained agent" OpenSpiel snippet runs as written: CFR's
    average policy after 10 iterations is less exploitable than the uniform policy."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    snippet = next(block for block in blocks if "CFRSolver" in block)
    exec(compile(snippet, "README.md", "exec"), {})
    uniform, trained = (float(x) for x in capsys.readouterr().out.split())
    assert 0 <= trained < uniform / 4


def test_bot_refuses_another_seats_turn():
    game = og.load("geschenkt", players=3)
    state = game.new_initial_state()
    state.apply_action(0)  # seat 0 acts first
    state.apply_action(state.chance_outcomes()[0][0])  # the first card
    with pytest.raises(ValueError, match="bot of seat 2 was asked at seat 0's turn"):
        og.GiftsimBot(game, 2, "greedy").step(state)

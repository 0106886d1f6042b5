"""The luck estimator (``agents/templates/luck.py``, ``experiments.luck``): it plays the plain
loop's games, its corrections agree with a plain-Python twin, every correction has mean zero
and the adjusted means agree with the raw ones (with the shipped network, random weights and a
constant), its intervals by deal cover 0.93-0.97, it is the same whatever the chunks and
workers, and bad input is one line with exit status 2. The measurement aid of docs/luck.md
(``docs/perf/luck_rollouts.py``, a value by playouts) plays the engine's games and never reads
the unresolved stack.

Statistical checks use |z| < 4 (a false alarm about 6e-5 per check, under 1% over all of
them); the seeds are fixed.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from agents.drivers.luck import luck_block, value_net
from agents.drivers.slow import ask, seat_streams
from agents.kernels import net
from agents.registry import parse_list
from agents.roster import roster
from experiments import luck
from experiments.batch import win_shares
from experiments.cli import main
from experiments.games import play_block
from experiments.results import deal_sums
from experiments.runner import run
from experiments.schedule import design_strata, field_design, round_robin
from giftsim.contract import first_policy, first_seat
from giftsim.game import load_game
from giftsim.rng import game_key

SERIAL = {"backend": "serial", "progress": False, "chunk_size": 10**7}
MIXES = {  # per game: a table with a random seat (decision corrections) and three others
    "geschenkt": ["greedy", "random", "sniper", "tuned4p"],
    "tulips": ["greedy", "random", "hoarder", "learned"],
}
VALUE_STREAM = 0x1234567  # the fixed stream of the estimator's sampled afterstates (luck.py)


def setup(name, players=4):
    game = load_game(name)
    return game, game.rules(n_players=players), parse_list(MIXES[name][:players], name)


def shares(game, rules, rows):
    n = rules.n_players
    return win_shares(rows[:, len(game.blocks) * n + 2], n)


def poor_network(name, players, kind):
    """A network that values the game badly: random weights, or all zeros (a constant)."""
    size = roster(name).learned.n_features(players)
    rng = np.random.default_rng(7)
    w1, b1 = rng.normal(0, 1, (16, size)), rng.normal(0, 1, 16)
    w2, b2 = rng.normal(0, 1, 16), 0.3
    if kind == "constant":
        w1, b1, w2 = 0 * w1, 0 * b1, 0 * w2
    return net.pack(w1, b1, w2, b2, players)


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
@pytest.mark.parametrize("first_player", ["rotate", "random"])
def test_the_estimator_plays_the_plain_loops_games(name, first_player):
    game, rules, agents = setup(name)
    rows, _ = luck_block(game, rules, agents, 31, 5, 40, first_player)
    assert np.array_equal(rows, play_block(name, rules, agents, 31, 5, 40, first_player))


# ---- a plain-Python twin of the corrections --------------------------------------------------


class Twin:
    """The corrections of one game, written from the ``Game`` verbs and the network's
    features, without the observer shortcut and without ``leaf.py``."""

    def __init__(self, game, rules, agents, network):
        self.game, self.rules, self.agents, self.net = game, rules, agents, network
        self.learned = roster(game.name).learned
        self.n = rules.n_players

    def share(self, view):
        x = np.zeros(self.learned.n_features(self.n), np.float32)
        self.learned.features(view, x)
        return float(net.share(self.net, x))

    def view(self, state, seat):
        view = np.zeros(self.game.obs_size, np.int64)
        self.game.observe(state, seat, view)
        return view

    def best_after(self, state, view):
        rng = np.array([VALUE_STREAM], np.uint64)
        drawn = np.zeros(self.game.state_size, np.int64)
        self.learned.after_world(view, rng, drawn)
        best = 0.0
        for action in self.game.legal_actions(state):
            world, after = np.zeros_like(drawn), np.zeros(self.game.obs_size, np.int64)
            self.learned.after_of(view, drawn, action, world, after)
            best = max(best, self.share(after))
        return best

    def values(self, state):
        out = np.zeros(self.game.max_players)
        if self.game.is_over(state):
            self.game.rewards(state, out)
            return out[: self.n]
        mover = -1 if self.game.chance_pending(state) else int(state[self.game.turn_slot])
        raw = np.array(
            [
                self.best_after(state, self.view(state, p))
                if p == mover
                else self.share(self.view(state, p))
                for p in range(self.n)
            ]
        )
        return raw / raw.sum()

    def correction(self, state, options, taken, step):
        """V after ``taken`` less the weighted mean of V over ``options`` (id: weight)."""
        total, mean, dealt = 0.0, np.zeros(self.n), None
        for option, weight in options.items():
            copy = state.copy()
            step(copy, option)
            v = self.values(copy)
            total, mean = total + weight, mean + weight * v
            dealt = v if option == taken else dealt
        return dealt - mean / total

    def probabilities(self, state):
        """The random agent's action probabilities, from its rule."""
        legal = self.game.legal_actions(state)
        seat = int(state[self.game.turn_slot])
        if self.game.name == "geschenkt":
            p = self.agents[seat].params["p"]
            return {1: p, 0: 1 - p}  # TAKE 1, PASS 0
        return dict.fromkeys(legal, 1 / len(legal))

    def play(self, seed, index):
        """Game ``index``'s corrections by kind (0 decisions, k chance kind k) and seat."""
        game, n = self.game, self.n
        out = np.zeros((len(game.chance_kinds) + 1, n))
        state = np.zeros(game.state_size, np.int64)
        key = np.uint64(game_key(np.uint64(seed), index))
        first = first_seat(first_policy("rotate", n), index, n)
        game.deal_open(self.rules.to_array(), key, first, state)
        game.begin(state)
        rngs, weights = seat_streams(key, n), np.zeros(game.max_chance_outcomes, np.int64)
        while not game.is_over(state):
            kind = int(game.chance_pending(state))
            if kind:
                count = game.chance_outcomes(state, weights)
                options = {o: int(weights[o]) for o in range(count) if weights[o] > 0}
                dealt = int(game.next_outcome(state))
                out[kind] += self.correction(state, options, dealt, game.apply_chance)
                game.apply_chance(state, dealt)
                continue
            legal = game.legal_actions(state)
            action = legal[0] if len(legal) == 1 else ask(game, self.agents, state, rngs, legal)
            seat = int(state[game.turn_slot])
            if len(legal) > 1 and self.agents[seat].name == "random":
                options = self.probabilities(state)
                out[0] += self.correction(state, options, action, game.apply_action)
            game.apply_action(state, action)
        return out


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_the_corrections_agree_with_a_plain_python_twin(name):
    game, rules, agents = setup(name)
    network = value_net(name, 4)
    _, found = luck_block(game, rules, agents, 41, 0, 3)
    twin = Twin(game, rules, agents, network)
    for g in range(3):
        expected = twin.play(41, g)
        assert np.abs(expected).sum() > 0.01  # the game has corrections to compare
        assert np.allclose(found[g], expected, atol=2e-4), f"game {g}"


# ---- mean zero: every correction, and adjusted against raw -----------------------------------


def z_scores(values: np.ndarray) -> np.ndarray:
    """Mean over axis 0 in standard errors (0 where a column does not vary)."""
    sd = values.std(axis=0, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(sd > 0, values.mean(axis=0) / (sd / np.sqrt(len(values))), 0.0)


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
@pytest.mark.parametrize("value", ["shipped", "random", "constant"])
def test_every_correction_has_mean_zero_and_adjusted_means_agree(name, value):
    """Every (kind, seat) correction's mean is within 4 standard errors of 0, and so is each
    seat's adjusted share less its raw share, over many games, with the shipped network and
    with two poor ones."""
    game, rules, agents = setup(name)
    network = value_net(name, 4) if value == "shipped" else poor_network(name, 4, value)
    games = 2000 if name == "geschenkt" else 800
    rows, found = luck_block(game, rules, agents, 51, 0, games, value=network)
    by_kind = found.reshape(games, -1)
    assert by_kind.std(axis=0).max() > 0.005  # corrections there are
    assert np.abs(z_scores(by_kind)).max() < 4
    raw = shares(game, rules, rows)
    adjusted = raw - found.sum(axis=1)
    assert np.abs(z_scores(adjusted - raw)).max() < 4
    assert np.allclose(adjusted.sum(axis=1), 1.0)  # values scaled to 1: shares still sum to 1


# ---- coverage of the intervals by deal -------------------------------------------------------

K = 1000
BAND = (0.93, 0.97)


def test_adjusted_intervals_by_deal_cover_in_a_field():
    """No Thanks! 3 players, `learned` against two `tuned3p` on duplicate deals: 1,000
    experiments of 12 deals each (cut by game index from one run), each with the adjusted
    table `giftsim tournament --luck-adjust` prints; the truth is the raw win share over all
    of them (its error is about 1/25 of an experiment's)."""
    per = 12
    jobs = luck.adjust(field_design("geschenkt", "learned", "tuned3p", 3, K * per, seed=6201))
    frame, _, _ = run(jobs, **SERIAL)
    frame["sim"] = frame["game_index"] // per
    deals = deal_sums(frame, design_strata(jobs))
    sim = frame.drop_duplicates("deal_seed").set_index("deal_seed")["sim"]
    deals["sim"] = sim.reindex(deals["deal"]).to_numpy()
    table = luck.win_share(deals, ["sim", "agent"]).xs("learned", level="agent")
    truth = np.mean([frame[f"win_{s}"][frame[f"agent_{s}"] == "learned"].mean() for s in range(3)])
    covered = float(((table["ci_low"] <= truth) & (truth <= table["ci_high"])).mean())
    assert len(table) == K
    assert BAND[0] <= covered <= BAND[1], covered
    assert table["variance_ratio"].median() > 1.0  # the shipped network helps here


# ---- reproducible; the API; round-robins ------------------------------------------------------


def test_luck_is_the_same_whatever_the_chunks_and_workers():
    jobs = luck.adjust(field_design("tulips", "learned", "hoarder", 3, 13, seed=6202))
    serial, _, _ = run(jobs, **SERIAL)
    chunked, _, _ = run(jobs, backend="serial", progress=False, chunk_size=4)
    parallel, _, _ = run(jobs, backend="processes", workers=2, progress=False, chunk_size=5)
    for other in (chunked, parallel):
        assert serial.equals(other)
    assert serial.filter(like="luck_").abs().to_numpy().sum() > 0


def test_round_robin_and_the_python_api():
    jobs = luck.adjust(round_robin("geschenkt", ["greedy", "random"], 3, 20, seed=6203))
    frame, _, _ = run(jobs, **SERIAL)
    table = luck.win_share(deal_sums(frame, design_strata(jobs)))
    assert set(table.index) == {"greedy", "random"}
    assert np.isclose(table["win_share"].sum(), table["raw_share"].sum(), atol=0.2)
    found = luck.adjusted_field("geschenkt", "learned", "tuned4p", 4, 30, seed=6204)
    assert 0 <= found["ci_low"] <= found["win_share"] <= found["ci_high"] <= 1
    assert found["deals"] == 30 and found["variance_ratio"] > 0


# ---- the command line --------------------------------------------------------------------------

BASE = ["tournament", "geschenkt", "--players", "4", "--games", "5", "--quiet"]
BASE += ["--backend", "serial"]
FIELD = [*BASE, "--design", "field", "--candidate", "greedy", "--baseline", "random"]


def test_a_mirror_is_refused(capsys):
    assert main([*BASE, "--design", "mirror", "--agents", "greedy", "--luck-adjust"]) == 2
    err = capsys.readouterr().err.strip()
    assert "designs field, round-robin, not mirror" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--summary-only"], "drop --summary-only"),
        (["--luck-net", "agents/tulips/nets/4p.npz"], "is for 'tulips', not 'geschenkt'"),
        (["--luck-net", "agents/geschenkt/nets/3p.npz"], "is for 3 players, not 4"),
        (["--rule", "rounds=3"], "plays single games"),
        (["--luck-net", "agents/geschenkt/nets"], "geschenkt/nets' is a folder; name a .npz file"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(extra, says, capsys):
    assert main([*FIELD, "--luck-adjust", *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and len(err.splitlines()) == 1


def test_the_command_prints_the_adjusted_table_and_report_reads_it(tmp_path, capsys):
    out = str(tmp_path / "run")
    assert main([*FIELD, "--luck-adjust", "--out", out]) == 0
    printed = capsys.readouterr().out
    assert luck.TABLE in printed and "variance_ratio" in printed
    assert main(["report", out]) == 0
    assert luck.TABLE in capsys.readouterr().out


def load_rollouts_aid():
    """``docs/perf/luck_rollouts.py`` as a module (its game: No Thanks!)."""
    from tests.scripts import ROOT, load_script

    return load_script(ROOT / "docs" / "perf" / "luck_rollouts.py", "luck_rollouts")


def test_the_playout_value_of_docs_perf_plays_real_games_and_has_mean_zero_luck():
    """``docs/perf/luck_rollouts.py`` (docs/luck.md, "A value that plays the game out"), on No
    Thanks!: its games are the engine's (the slow path's final scores, game for game) and its
    corrections have mean zero over 60 games."""
    from agents.drivers.slow import play_slow

    aid = load_rollouts_aid()
    game = load_game("geschenkt")
    rules = game.rules(n_players=4)
    agents = parse_list(["sniper", "greedy", "greedy", "tuned4p"], "geschenkt")
    stand = aid.stand_ins(game, rules, agents, "same")
    lucks = []
    for index in range(60):
        shares, luck, final = aid.play(game, rules, agents, 11, index, stand, 2, [0.0, 0.0])
        if index < 6:
            played, scores, won = play_slow(game, rules, agents, 11, index), *np.zeros((2, 4))
            game.scores(final, scores)
            game.rewards(played.final, won)
            assert scores.tolist() == played.scores and np.array_equal(shares, won)
        lucks.append(luck)
    lucks = np.array(lucks)
    z = lucks.mean(0) / (lucks.std(0, ddof=1) / np.sqrt(len(lucks)))
    assert np.all(np.abs(z) < 4), z


def test_the_playout_value_never_reads_the_unresolved_stack():
    """The aid's values of every outcome of an event are the same, bit for bit, when the cards
    still unseen are shuffled between the stack's unresolved places and the removed cards: the
    value is a function of the outcomes already resolved, so each correction has mean zero."""
    from geschenkt_sim.state import DECK, N_CARDS, REMOVED

    aid = load_rollouts_aid()
    game = load_game("geschenkt")
    rules = game.rules(n_players=4)
    agents = parse_list(["sniper", "greedy", "random", "tuned4p"], "geschenkt")
    stand = aid.stand_ins(game, rules, agents, "same")
    rng, checked = np.random.default_rng(3), 0
    for index in range(3):
        state = np.zeros(game.state_size, np.int64)
        game.deal_open(rules.to_array(), np.uint64(game_key(np.uint64(4), index)), 0, state)
        game.begin(state)
        streams = [np.array([s + 1], np.uint64) for s in range(4)]
        while not game.is_over(state):
            if game.chance_pending(state):
                values = [np.zeros((game.max_chance_outcomes, game.max_players)) for _ in "ab"]
                aid.outcome_values(state, *stand, 3, np.uint64(index), values[0])
                shuffled = state.copy()
                places = [i for i in range(state[N_CARDS]) if state[DECK + i] < 0]
                removed = [c for c in range(64) if (state[REMOVED] >> c) & 1]
                unseen = np.array([~state[DECK + i] for i in places] + removed)
                order = rng.permutation(len(unseen))
                if order[0] == 0:  # the first unresolved place gets another card
                    order = np.roll(order, 1)
                unseen = unseen[order]
                shuffled[[DECK + i for i in places]] = ~unseen[: len(places)]
                shuffled[REMOVED] = sum(1 << int(c) for c in unseen[len(places) :])
                assert not np.array_equal(shuffled, state) or not places
                aid.outcome_values(shuffled, *stand, 3, np.uint64(index), values[1])
                assert np.array_equal(values[0], values[1])
                checked += 1
                game.apply_chance(state, game.next_outcome(state))
                continue
            legal = game.legal_actions(state)
            action = legal[0] if len(legal) == 1 else ask(game, agents, state, streams, legal)
            game.apply_action(state, action)
    assert checked >= 60


def test_an_adjusted_share_past_an_end_is_reported_at_that_end_inside_its_interval():
    """On a few deals the corrections can take the adjusted mean past 1 (or below 0): the
    printed share and interval stay in [0, 1], the share inside its interval."""
    from experiments.luck import win_share

    deals = pd.DataFrame(
        {
            "deal": [0, 1, 2, 0, 1, 2],
            "stratum": 0,
            "agent": ["a", "a", "a", "b", "b", "b"],
            "seats": 1,
            "win_sum": [1.0, 1.0, 1.0, 0.0, 0.0, 0.0],
            "adjusted_sum": [1.3, 1.1, 1.05, -0.3, -0.1, -0.05],
        }
    )
    table = win_share(deals)
    assert table.loc["a", "win_share"] == 1.0 and table.loc["b", "win_share"] == 0.0
    assert (
        (table["ci_low"] <= table["win_share"]) & (table["win_share"] <= table["ci_high"])
    ).all()
    assert table[["ci_low", "ci_high"]].stack().between(0, 1).all()
    # a plain interval wholly past 1 ([1.11, 1.24]) cut would be [1, 1]: it is moved to 1,
    # its width kept
    past = win_share(deals.assign(adjusted_sum=[1.2, 1.15, 1.18, -0.2, -0.15, -0.18]))
    half = stats.t.ppf(0.975, 2) * np.std([1.2, 1.15, 1.18], ddof=1) / np.sqrt(3)
    assert np.allclose(past["ci_high"] - past["ci_low"], 2 * half), past
    assert past.loc["a", "ci_high"] == 1 and past.loc["b", "ci_low"] == 0
    # never silently: both rows are marked, with the note saying what was done
    from experiments.marks import PAST, flag_few, warning_notes

    flagged = flag_few(past)
    assert all(w.endswith(PAST) for w in flagged["warning"])  # and "< 30 deals"
    assert any("shown at that end" in note for note in warning_notes(flagged))
    inside = win_share(deals.assign(adjusted_sum=[0.9, 0.8, 0.95, 0.1, 0.2, 0.05]))
    assert not any(PAST in w for w in flag_few(inside)["warning"])


def test_an_adjusted_share_near_an_end_has_the_interval_of_its_own_standard_error():
    """The adjusted share is a mean of values that are not wins: its interval is mean +- t se
    cut to [0, 1], so a share just below 0 on many deals (an agent that almost never wins)
    gets [0, mean + t se], not the interval of a share of 0 on those deals (Wilson's, which
    ignored se: narrower than the raw share's beside a variance ratio of 0.04)."""
    from experiments.luck import win_share

    rng = np.random.default_rng(5)
    n = 2000
    adjusted = rng.normal(-0.001, 0.12, n)  # mean -0.001, se about 0.0027
    deals = pd.DataFrame(
        {"deal": range(n), "stratum": 0, "agent": "a", "seats": 1, "adjusted_sum": adjusted}
    ).assign(win_sum=(adjusted > 0.35).astype(float))
    row = win_share(deals).loc["a"]
    mean, se = adjusted.mean(), adjusted.std(ddof=1) / np.sqrt(n)
    t = stats.t.ppf(0.975, n - 1)
    assert row["win_share"] == max(mean, 0) and row["ci_low"] == max(mean - t * se, 0)
    assert np.isclose(row["ci_high"], mean + t * se)
    assert row["ci_high"] > 3.84 / (n + 3.84)  # wider than Wilson's interval of 0 of n


def test_no_variance_ratio_where_the_raw_share_has_no_spread():
    """Shares alike in every deal have no variance to compare: the ratio is NaN, not 0 (raw
    alike: 0 read as "the adjustment made it infinitely worse" beside a narrower interval)
    nor infinite (adjusted alike)."""
    from experiments.luck import win_share

    deals = pd.DataFrame(
        {
            "deal": [0, 1, 2, 3] * 3,
            "stratum": 0,
            "agent": ["a"] * 4 + ["b"] * 4 + ["c"] * 4,
            "seats": 2,
            "win_sum": [1.0] * 4 + [1.0, 0.0, 2.0, 1.0] * 2,
            "adjusted_sum": [1.1, 0.9, 1.05, 0.95, 1.0, 0.5, 1.5, 1.0] + [1.0] * 4,
        }
    )
    table = win_share(deals)
    assert np.isnan(table.loc["a", "variance_ratio"])
    assert table.loc["b", "variance_ratio"] == pytest.approx(4.0)
    assert np.isnan(table.loc["c", "variance_ratio"])  # no adjusted spread: not infinite

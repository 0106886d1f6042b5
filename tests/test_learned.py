"""The No Thanks! learned agent and its training: afterstates against the engine, features
against a plain-Python twin, the compiled network against NumPy, and ``giftsim train``
(a tiny run beats ``random``; runs are deterministic and resume to the same network)."""

import json
import signal
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.base import ANY, Family
from agents.drivers.slow import deal
from agents.geschenkt import learned
from agents.geschenkt.learned import NO_CARD, after, features, n_features
from agents.kernels import net
from agents.roster import roster
from experiments import train as training
from experiments.batch import field
from experiments.cli import main
from experiments.network import Network, ensemble
from experiments.targets import lambda_returns, successors
from experiments.train import (
    CONFIRM_SEED_OFFSET,
    EVAL_SEED_OFFSET,
    outputs,
    train,
)
from experiments.train_settings import TrainSettings
from geschenkt_sim.engine import (
    HIDDEN_CHIPS,
    OBS_SIZE,
    apply_action,
    is_over,
    legal_mask,
    observe,
)
from geschenkt_sim.rules import PASS, TAKE, Rules
from geschenkt_sim.state import (
    CARD,
    CARDS_LEFT,
    UNSEEN,
)
from giftsim.game import load_game

GAME = load_game("geschenkt")
SHIPPED_3P = roster("geschenkt").shipped(3)


def positions(seed: int, game_index: int, n: int, chips_visible=True):
    """Every state of one game of random legal play (its own random stream), before each
    action, with the action taken."""
    rules = Rules(n_players=n, chips_visible=chips_visible)
    state, _ = deal(GAME, rules, seed, game_index)
    rng = np.random.default_rng([seed, game_index])
    while not is_over(state):
        legal = [a for a in (PASS, TAKE) if (legal_mask(state) >> a) & 1]
        action = int(rng.choice(legal))
        yield state.copy(), action
        apply_action(state, action)


def observation(state, seat):
    obs = np.zeros(OBS_SIZE, np.int64)
    observe(state, seat, obs)
    return obs


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 1000), st.sampled_from([3, 4, 5]))
def test_an_afterstate_is_the_engines_next_observation_with_the_next_card_face_down(seed, g, n):
    for state, action in positions(seed, g, n):
        seat = int(state[1])
        mine = np.zeros(OBS_SIZE, np.int64)
        after(observation(state, seat), action, None, None, mine)
        apply_action(state, action)
        engine = observation(state, seat)
        if action == TAKE and not is_over(state):
            # the engine turned the next card up: it left the stack and is no longer unseen
            assert mine[CARD] == NO_CARD and engine[CARD] != NO_CARD
            assert mine[CARDS_LEFT] == engine[CARDS_LEFT] + 1
            assert mine[UNSEEN] == engine[UNSEEN] | (1 << int(engine[CARD]))
            engine[[CARD, CARDS_LEFT, UNSEEN]] = mine[[CARD, CARDS_LEFT, UNSEEN]]
        assert np.array_equal(mine, engine)


def twin_features(obs: np.ndarray) -> list[float]:
    """The features as the module docstring defines them, written again in plain Python."""
    n, seat, turn = int(obs[0]), int(obs[11]), int(obs[1])
    card, pot, left, unseen, total = (
        int(obs[2]),
        int(obs[3]),
        int(obs[4]),
        int(obs[5]),
        int(obs[13]),
    )
    chips = [int(obs[14 + p]) for p in range(n)]
    hands = [{c for c in range(63) if int(obs[21 + p]) >> c & 1} for p in range(n)]
    hidden = [p for p in range(n) if chips[p] == HIDDEN_CHIPS]
    known = sum(c for c in chips if c != HIDDEN_CHIPS)
    guess = (total - known - pot) / len(hidden) if hidden else 0.0
    chips = [guess if c == HIDDEN_CHIPS else float(c) for c in chips]

    def points(hand):
        return sum(c for c in hand if c - 1 not in hand)

    def fits(hand):
        near = {c + d for c in hand for d in (-1, 1)} - hand
        return sum(1 for c in near if c >= 0 and unseen >> c & 1)

    order = [(seat + r) % n for r in range(n)]
    per_seat = [
        [chips[p] / 10 for p in order],
        [points(hands[p]) / 40 for p in order],
        [
            (points(hands[p] | {card}) - points(hands[p]) - pot) / 10 if card >= 0 else 0.0
            for p in order
        ],
        [fits(hands[p]) / 5 for p in order],
        [1.0 if p == turn else 0.0 for p in order],
    ]
    scores = [points(hands[p]) - chips[p] for p in order]
    tail = [
        1.0 if card >= 0 else 0.0,
        max(card, 0) / 35,
        pot / 10,
        left / 24,
        (min(scores[1:]) - scores[0]) / 20,
    ]
    return [x for block in per_seat for x in block] + tail


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 1000), st.sampled_from([3, 5]), st.booleans())
def test_features_match_a_plain_python_twin_for_every_seat_and_afterstate(seed, g, n, visible):
    x = np.zeros(n_features(n))
    for state, action in positions(seed, g, n, visible):
        for seat in range(n):
            obs = observation(state, seat)
            views = [obs]
            if seat == state[1]:
                views.append(np.zeros(OBS_SIZE, np.int64))
                after(obs, action, None, None, views[-1])
            for view in views:
                features(view, x)
                assert np.allclose(x, twin_features(view)), (seat, view)


def test_the_compiled_network_computes_what_numpy_does():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(50, 12))
    network = Network.new(x, 7, rng)
    network.b1, network.b2 = rng.normal(size=7), np.array(0.4)
    w1, b1, w2, b2 = network.folded()
    flat = net.pack(w1, b1, w2, b2, 4)
    for row in x:
        assert net.logit(flat, row.astype(np.float32)) == pytest.approx(
            network.logits(row[None])[0], abs=1e-4
        )


def tiny(seed=1, rounds=2, games=600, **more) -> TrainSettings:
    return TrainSettings(
        "geschenkt", 3, seed=seed, rounds=rounds, games=games, eval_games=60, **more
    )


def test_a_tiny_training_run_beats_random_on_fresh_deals(tmp_path):
    out = tmp_path / "tiny.npz"
    curve = train(tiny(), out)
    assert list(curve["round"]) == [0, 1]
    record = json.loads(out.with_suffix(".json").read_text())
    assert record["baseline"] == "tuned3p" and len(record["curve"]) == 2
    result = field("geschenkt", f"learned:net={out}", "random", 3, 300, seed=777)
    assert result["ci95"][0] > 1 / 3
    confirmed = curve.attrs["confirmed"]
    assert record["confirmed"] == confirmed and confirmed["deals"] == 60


def test_the_network_written_is_scored_again_on_deals_that_did_not_choose_it(tmp_path):
    """The round is chosen on the held-out deals; its result is the field on fresh ones (the
    seed offset of neither the training games nor the held-out deals), as ``field`` gives."""
    out = tmp_path / "tiny.npz"
    curve = train(tiny(seed=3), out)
    record = json.loads(out.with_suffix(".json").read_text())
    chosen = record["curve"][record["best_round"]]
    assert chosen["win_share"] == curve["win_share"].max()
    fresh = field("geschenkt", f"learned:net={out}", "tuned3p", 3, 60, seed=3 + CONFIRM_SEED_OFFSET)
    held = field("geschenkt", f"learned:net={out}", "tuned3p", 3, 60, seed=3 + EVAL_SEED_OFFSET)
    assert held["win_share"] == chosen["win_share"]  # the choosing score, on its own deals
    confirmed = record["confirmed"]
    assert confirmed["win_share"] == fresh["win_share"] != held["win_share"]
    assert (confirmed["ci_low"], confirmed["ci_high"]) == fresh["ci95"]
    assert confirmed["games"] == 180


@pytest.mark.parametrize("game", ["geschenkt", "tulips"])
def test_a_shipped_network_carries_its_score_on_deals_that_did_not_choose_it(game):
    """The shipped 2-player networks' records (the ``.json`` and the file's own meta) hold
    ``confirmed``: the field ``train`` now scores the network written on, fresh deals
    (``CONFIRM_SEED_OFFSET``), the same numbers when played again."""
    path = roster(game).nets / "2p.npz"
    record = json.loads(path.with_suffix(".json").read_text())
    assert net.read(path)[1]["confirmed"] == record["confirmed"]
    settings = record["settings"]
    deals, seed = settings["eval_games"], settings["seed"] + CONFIRM_SEED_OFFSET
    fresh = field(game, f"learned:net={path}", settings["baseline"], 2, deals, seed)
    confirmed = record["confirmed"]
    assert confirmed["win_share"] == pytest.approx(fresh["win_share"], abs=1e-12)
    assert (confirmed["ci_low"], confirmed["ci_high"]) == pytest.approx(fresh["ci95"], abs=1e-12)
    assert confirmed["deals"] == settings["eval_games"] and confirmed["games"] == fresh["games"]


@pytest.mark.parametrize("deals", [40, 5])
def test_train_prints_the_fresh_deals_score_as_its_result(tmp_path, capsys, deals):
    """The result line and the curve; on fewer than 30 deals both carry the few-deals mark
    (the curve's ``warning`` column and note), as every other command's figures do."""
    argv = ["train", "geschenkt", "--players", "3", "--seed", "1", "--rounds", "1"]
    argv += ["--games", "300", "--eval-games", str(deals), "--out", str(tmp_path / "n.npz")]
    assert main([*argv, "--quiet"]) == 0
    confirmed = json.loads((tmp_path / "n.json").read_text())["confirmed"]
    out = capsys.readouterr().out.strip()
    last = out.splitlines()[-1]
    games = f"on {deals} fresh deals ({3 * deals} games)"
    assert "round 0, the best of the curve" in last and games in last
    assert f"wins {confirmed['win_share']:.4f} [{confirmed['ci_low']:.4f}," in last
    few = deals < 30
    assert (f"† {deals} deals, fewer than 30" in last) == few
    assert ("< 30 deals: too few deals" in out) == few and (" warning" in out) == few


@pytest.mark.parametrize(("lam", "members"), [(1.0, 1), (0.5, 2)])
def test_training_is_deterministic_and_resumes_to_the_same_network(tmp_path, lam, members):
    whole, first = tmp_path / "whole.npz", tmp_path / "part.npz"
    more = {"lam": lam, "members": members}
    train(tiny(rounds=2, games=300, **more), whole)
    train(tiny(rounds=1, games=300, **more), first)
    curve = train(tiny(rounds=2, games=300, **more), first, resume=True)  # one more round
    assert list(curve["round"]) == [0, 1]
    a, _ = net.read(whole.with_suffix(".ckpt") / "round-1.npz")
    b, _ = net.read(first.with_suffix(".ckpt") / "round-1.npz")
    for k in a:
        assert np.array_equal(a[k], b[k])


def test_resuming_a_finished_run_plays_and_writes_nothing_while_its_outputs_are_its_own(
    tmp_path, monkeypatch
):
    out = tmp_path / "done.npz"
    first = train(tiny(rounds=1, games=300), out)
    written = {path: (path.stat().st_mtime_ns, path.read_bytes()) for path in outputs(out)}
    monkeypatch.setattr(training, "generate", lambda *a, **k: pytest.fail("a game was played"))
    monkeypatch.setattr(training, "evaluate", lambda *a, **k: pytest.fail("a game was scored"))
    again = train(tiny(rounds=1, games=300), out, resume=True)
    assert again.attrs["confirmed"] == first.attrs["confirmed"]
    assert again.attrs["kept"] and not first.attrs["kept"]
    assert again.equals(first)
    assert {path: (path.stat().st_mtime_ns, path.read_bytes()) for path in outputs(out)} == written
    out.with_suffix(".png").unlink()  # an output gone: the outputs are written anew
    monkeypatch.undo()
    train(tiny(rounds=1, games=300), out, resume=True)
    assert all(path.is_file() for path in outputs(out))


def test_a_checkpoint_is_resumed_only_by_its_own_run_and_no_fewer_rounds(tmp_path):
    """--resume with another setting names the setting; with fewer rounds than the checkpoint
    holds it is refused (it kept the longer run's result under the shorter request)."""
    out = tmp_path / "two.npz"
    train(tiny(rounds=2, games=300), out)
    with pytest.raises(ValueError, match=r"differs in: seed \(1 there\)"):
        train(replace(tiny(rounds=2, games=300), seed=8), out, resume=True)
    with pytest.raises(ValueError, match="holds 2 rounds, more than --rounds 1: give --rounds 2"):
        train(tiny(rounds=1, games=300), out, resume=True)


def test_a_stop_while_the_outputs_are_written_leaves_a_run_that_resumes(tmp_path, monkeypatch):
    """Ctrl-C between two of the four outputs (here, while the plot is drawn) is held until
    all four and their checksums are written, then stops the run: the same command with
    --resume keeps them (it refused them as files the run did not write)."""
    out = tmp_path / "stopped.npz"
    drawn = training._plot

    def stopped_while_drawing(*args):
        signal.raise_signal(signal.SIGINT)
        drawn(*args)

    monkeypatch.setattr(training, "_plot", stopped_while_drawing)
    found = signal.signal(signal.SIGINT, signal.default_int_handler)  # a terminal's Ctrl-C
    try:  # (a background job, as make test in CI, starts with it ignored)
        with pytest.raises(KeyboardInterrupt):
            train(tiny(rounds=1, games=300), out)
    finally:
        signal.signal(signal.SIGINT, found)
    assert all(path.is_file() for path in outputs(out))
    monkeypatch.undo()
    again = train(tiny(rounds=1, games=300), out, resume=True)
    assert again.attrs["kept"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "9"], "--players must be in 2..7 for No Thanks!, got 9"),
        (["--players", "3", "--hidden", "500"], "hidden must be a whole number in [1, 128]"),
        (["--players", "3", "--explore", "2"], "explore must be in [0, 1]"),
        (["--players", "3", "--lam", "1.5"], "lam must be in [0, 1]"),
        (["--players", "3", "--members", "5"], "hidden x members must be at most 128, got 32 x 5"),
        (["--players", "3", "--baseline", "nobody"], "unknown agent 'nobody'"),
    ],
)
def test_bad_training_settings_are_one_line_and_exit_2(tmp_path, capsys, argv, message):
    code = main(["train", "geschenkt", "--out", str(tmp_path / "n.npz"), *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_a_network_for_another_table_or_file_is_refused_in_one_line(tmp_path, capsys):
    shipped = roster("geschenkt").shipped(4)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a network")
    wide = tmp_path / "wide.npz"
    size = n_features(3)
    w1, w2 = np.zeros((net.MAX_HIDDEN + 1, size)), np.zeros(net.MAX_HIDDEN + 1)
    net.save(wide, w1, np.zeros(net.MAX_HIDDEN + 1), w2, 0.0, {"game": "geschenkt", "players": 3})
    cases = [
        (f"learned:net={shipped}", "3", "is for 4 players, not 3"),
        (f"learned:net={tmp_path / 'none.npz'}", "3", "no such file"),
        (f"learned:net={junk}", "3", "is not a giftsim network"),
        (
            f"learned:net={wide}",
            "3",
            "has 129 hidden units; an agent's work space holds at most 128",
        ),
    ]
    for spec, players, message in cases:
        argv = ["tournament", "geschenkt", "--agents", f"{spec},greedy", "--players", players]
        code = main([*argv, "--games", "10", "--backend", "serial", "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_a_family_that_reads_a_network_keeps_the_network_slot_free():
    def family(count):
        defaults = {f"p{i}": 0.0 for i in range(count)}
        ranges = dict.fromkeys(defaults, ANY)
        return Family(
            "wide", "geschenkt", learned.decide, None, defaults, ranges, n_features=n_features
        )

    assert family(net.NET_SLOT).n_features is n_features  # every slot but the network's: fine
    with pytest.raises(ValueError, match=f"takes parameter slot {net.NET_SLOT}"):
        family(net.NET_SLOT + 1)


def test_a_run_under_a_rule_variant_plays_that_variants_games(tmp_path):
    """``--rule`` reaches every worker's games and the held-out ones: on 6 played cards
    with 3 chips each a 3-player game has at most 6 x (3 x 3 + 1) = 60 decisions, where the
    standard game's 24 cards take more."""
    from experiments.train import generate

    class Bar:
        def update(self, n):
            pass

    small = "lowest_card=3,highest_card=10,n_removed=2,chips_per_player=3"
    decisions = {}
    for pairs in (small, ""):
        settings = tiny(games=60, rules=pairs).resolved()
        decisions[pairs] = generate(settings, 0, "", 1, Bar())[2][:, 2].max()
    assert decisions[small] < 60 < decisions[""]
    out = tmp_path / "small.npz"
    train(tiny(rounds=1, games=300, rules=small), out)
    assert json.loads(out.with_suffix(".json").read_text())["settings"]["rules"] == small


def test_a_warm_network_starts_with_the_values_of_the_file_it_starts_from():
    """``--init``: the file's weights over raw features, re-expressed over this run's
    standardisation, give the same logits (training continues from the file's network)."""
    from agents.kernels import net
    from experiments.network import Network

    weights, _ = net.read(SHIPPED_3P)
    rng = np.random.default_rng(3)
    x = rng.normal(5.0, 3.0, (200, weights["w1"].shape[1]))
    warm = Network.warm(tuple(weights[k] for k in Network.NAMES), x)
    hidden = np.maximum(x @ weights["w1"].T + weights["b1"], 0.0)
    np.testing.assert_allclose(warm.logits(x), hidden @ weights["w2"] + weights["b2"], atol=1e-9)


def test_a_run_started_from_a_network_continues_from_it(tmp_path):
    """With a vanishing step size the run's network is the file it started from (weights over
    raw features, the form a network file holds); from fresh weights it is not."""
    shipped, _ = net.read(SHIPPED_3P)
    for init in (str(SHIPPED_3P), ""):
        out = tmp_path / f"run{len(init)}.npz"
        train(tiny(rounds=1, games=300, lr=1e-9, init=init), out)
        weights, _ = net.read(out)
        same = all(np.allclose(weights[k], shipped[k], atol=1e-5) for k in Network.NAMES)
        assert same is bool(init)


def test_a_rounds_data_is_the_same_on_one_worker_or_two():
    from experiments.train import generate

    class Bar:
        def update(self, n):
            pass

    settings = tiny(games=200).resolved()
    one = generate(settings, 0, "", 1, Bar(), block=200)
    two = generate(settings, 0, "", 2, Bar(), block=30)
    assert len(one[0]) > 1000
    assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.floats(0.0, 1.0))
def test_lambda_returns_match_a_plain_recursion_over_each_seats_decisions(seed, lam):
    """Shuffled decisions of several games and seats: each row's successor is the same seat's
    next decision in the same game, and the targets are the textbook recursion, run backwards
    over each seat's decisions in a plain loop."""
    rng = np.random.default_rng(seed)
    owners = [
        (g, s, d)
        for g in range(int(rng.integers(1, 4)))
        for s in range(3)
        for d in sorted(rng.choice(40, int(rng.integers(0, 6)), replace=False))
    ]
    rng.shuffle(owners)
    owners = np.array(owners, np.int64).reshape(-1, 3)
    outcomes, values = rng.random(len(owners)), rng.random(len(owners))
    expected = {}
    for g, s in {(int(g), int(s)) for g, s, _ in owners}:
        chain = sorted((int(d), i) for i, (gg, ss, d) in enumerate(owners) if (gg, ss) == (g, s))
        target = outcomes[chain[-1][1]]
        expected[chain[-1][1]] = (target, -1)
        for (_, i), (_, j) in zip(chain[-2::-1], chain[:0:-1], strict=True):
            target = (1 - lam) * values[j] + lam * target
            expected[i] = (target, j)
    after = successors(owners)
    got = lambda_returns(outcomes, values, after, lam)
    assert len(got) == len(owners)  # none at all, too
    for i, (target, j) in expected.items():
        assert after[i] == j
        assert got[i] == pytest.approx(target, abs=1e-6)


@pytest.mark.parametrize("selfplay", [0.0, 0.5, 1.0])
def test_a_rounds_seatings_split_the_games_between_the_field_and_self_play(selfplay):
    from experiments.train import lineups

    settings = tiny(games=3000)
    settings = TrainSettings(**{**settings.__dict__, "selfplay": selfplay}).resolved()
    assert lineups(settings, 0, "cand") == [(["tuned3p"] * 3, 3000, 0b111)]
    seatings = lineups(settings, 1, "cand")
    own = [games for agents, games, seats in seatings if agents == ["cand"] * 3]
    field = [(agents.index("cand"), seats, games) for agents, games, seats in seatings]
    field = [(s, mask, games) for s, mask, games in field if mask != 0b111]
    assert sum(own) == 3000 * selfplay and len(own) == (selfplay > 0)
    assert [(s, mask) for s, mask, _ in field] == [(s, 1 << s) for s in range(3)][: len(field)]
    assert sum(games for *_, games in field) == 3000 * (1 - selfplay)


def test_an_ensemble_is_one_network_whose_output_is_the_mean_of_its_members():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(50, 9))
    members = [Network.new(x * (m + 1) + m, 5, np.random.default_rng(m)) for m in range(3)]
    for m in members:
        m.b1, m.b2 = rng.normal(size=5), np.float64(rng.normal())
    w1, b1, w2, b2 = ensemble(members)
    assert w1.shape == (15, 9)
    logits = np.maximum(x @ w1.T + b1, 0.0) @ w2 + b2
    assert np.allclose(logits, np.mean([m.logits(x) for m in members], axis=0))


def test_a_checkpoint_from_before_a_setting_existed_resumes_with_its_default(tmp_path):
    out = tmp_path / "old.npz"
    train(tiny(rounds=1, games=300), out)
    progress = out.with_suffix(".ckpt") / "progress.json"
    record = json.loads(progress.read_text())
    for name in ("lam", "selfplay", "members", "rules"):
        del record["settings"][name]
    progress.write_text(json.dumps(record))
    assert list(train(tiny(rounds=2, games=300), out, resume=True)["round"]) == [0, 1]


def test_the_command_line_s_defaults_are_the_settings_defaults(tmp_path, monkeypatch):
    """``giftsim train`` given only what it requires trains with ``TrainSettings``' defaults
    (the options take them from the class: the two lists of numbers had been kept apart)."""
    seen = []
    monkeypatch.setattr(training, "train", lambda settings, *rest, **kw: seen.append(settings))
    args = ["train", "geschenkt", "--players", "3", "--out", str(tmp_path / "n.npz")]
    assert main([*args, "--quiet"]) != 0  # the stub trains nothing, so there is no curve
    assert seen == [TrainSettings("geschenkt", 3)]

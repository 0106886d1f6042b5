"""The compiled vector environment (``experiments.envs.vector``) on every game of the list: its
arrays, masks and rewards are the game's verbs', every episode is the slow path's game with the
same learner actions, lanes do not depend on how many run, and its records replay."""

import pickle
import subprocess
import sys

import numpy as np
import pytest

from agents.drivers.slow import play_slow
from agents.kernels.lanes import lane_game_index
from agents.registry import define, parse_list
from experiments.envs.table import EnvError
from experiments.envs.vector import VectorEnv
from giftsim.game import GAMES, load_game
from tests.env_helpers import NO_CHOICE, deadline

OPPONENTS = {"geschenkt": "greedy", "tulips": "greedy", "toy": "steady"}


def _players(game) -> int:
    return 3 if 3 in game.players else game.players[0]


def _random_actions(rng, mask):
    """A uniformly random legal action per lane (NumPy, outside the kernel)."""
    return (rng.random(mask.shape) * mask).argmax(axis=1)


def _tensor(game, rules, state, seat):
    obs = np.zeros(game.obs_size, np.int64)
    game.observe(state, seat, obs)
    out = np.zeros(game.tensor_size(rules), np.float32)
    game.encode(obs, out)
    return out


def _run(env, steps, seed=0):
    """Step ``env`` with random legal actions; per lane and episode (game index) the learner's
    tensors and actions, and the finished episodes' rewards, leads and final tensors."""
    rng = np.random.default_rng(seed)
    obs, mask = env.reset()
    current = [{"tensors": [], "actions": []} for _ in range(env.n_envs)]
    finished = {}
    for _ in range(steps):
        actions = _random_actions(rng, mask)
        for i in range(env.n_envs):
            current[i]["tensors"].append(obs[i].copy())
            current[i]["actions"].append(int(actions[i]))
        obs, mask, rewards, dones, info = env.step(actions)
        for i in np.flatnonzero(dones):
            index = int(info["game_index"][i])
            finished[index] = {
                **current[i],
                "reward": float(rewards[i]),
                "lead": float(info["lead"][i]),
                "final": info["final_obs"][i].copy(),
                "seat": int(info["learner_seat"][i]),
            }
            current[i] = {"tensors": [], "actions": []}
    return finished


@pytest.mark.parametrize("name", list(GAMES))
def test_shapes_dtypes_and_masks_are_the_games(name):
    game = load_game(name)
    env = VectorEnv(name, 4, _players(game), "rotate", opponents=OPPONENTS[name], seed=3)
    obs, mask = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        size = game.tensor_size(env.rules)
        assert obs.shape == (4, size) and obs.dtype == np.float32
        assert mask.shape == (4, game.num_actions) and mask.dtype == np.bool_
        for i in range(4):
            state, seat = env.lane_state(i)
            bits = int(game.legal_mask(state))
            assert list(mask[i]) == [bool((bits >> a) & 1) for a in range(game.num_actions)]
            assert mask[i].sum() >= 2  # a seat with one legal action is not asked
            assert state[game.turn_slot] == seat
            assert np.array_equal(obs[i], _tensor(game, env.rules, state, seat))
        obs, mask, rewards, dones, info = env.step(_random_actions(rng, mask))
        assert rewards.shape == (4,) and rewards.dtype == np.float32
        assert dones.shape == (4,) and dones.dtype == np.bool_
        assert info["final_obs"].shape == obs.shape
        assert np.all((rewards >= 0) & (rewards <= 1))
        assert np.all(rewards[~dones] == 0)


def _user_opponent():
    def taker(obs, params, rng):
        """Always takes the card (action 1, legal in every No Thanks! state)."""
        return 1

    return define("geschenkt", "vector_test_taker", taker)


@pytest.mark.parametrize("name", list(GAMES))
def test_episodes_are_the_slow_paths_games(name):
    """Replayed through the slow path with the same learner actions, every episode gives the
    same start, actions, learner observations, final observation, reward and score lead; the
    first observation of each episode after the first is the auto-reset one."""
    game = load_game(name)
    n = _players(game)
    env = VectorEnv(name, 3, n, "rotate", opponents=OPPONENTS[name], seed=11, record=True)
    finished = _run(env, 60)
    assert len(finished) >= 3
    kept = {record["game_index"]: record for record in env.records()}
    assert set(kept) == set(finished)
    opponents = parse_list([OPPONENTS[name]] * (n - 1), name)
    for index, episode in finished.items():
        _check_episode(game, env.rules, opponents, index, episode, kept[index])


def _check_episode(game, rules, opponents, index, episode, record):
    """The slow path's game ``index`` of the record's seed, the learner scripted."""
    n, seat = rules.n_players, episode["seat"]
    asked = iter(zip(episode["tensors"], episode["actions"], strict=True))

    def learner(obs, legal):
        tensor, action = next(asked)
        out = np.zeros(game.tensor_size(rules), np.float32)
        game.encode(obs, out)
        assert np.array_equal(out, tensor)
        return action

    players = [opponents[(s - seat - 1) % n] if s != seat else learner for s in range(n)]
    played = play_slow(game, rules, players, record["seed"], index)
    assert next(asked, None) is None  # the learner was asked exactly as often
    assert game.make_record(rules, played.start, played.actions, {}) == {
        k: v for k, v in record.items() if k not in ("agents", "seed", "game_index")
    }
    shares = np.zeros(n)
    game.rewards(played.final, shares)
    assert episode["reward"] == pytest.approx(shares[seat])
    scores = np.array(played.scores)
    others = np.delete(scores, seat)
    lead = others.min() - scores[seat] if game.lower_wins else scores[seat] - others.max()
    assert episode["lead"] == lead
    assert np.array_equal(episode["final"], _tensor(game, rules, played.final, seat))
    assert game.replay(record)  # raises on any wrong entry
    assert record["agents"][seat] == "learner"


def test_a_user_agent_opponent_plays_inside_the_kernel():
    passer = _user_opponent()
    game = load_game("geschenkt")
    env = VectorEnv("geschenkt", 2, 3, 1, opponents=[passer.name, "greedy"], seed=5, record=True)
    finished = _run(env, 80)
    assert finished
    opponents = parse_list([passer.name, "greedy"], "geschenkt")
    for index, episode in finished.items():
        assert episode["seat"] == 1
        record = next(r for r in env.records() if r["game_index"] == index)
        assert record["agents"] == ["greedy", "learner", passer.name]
        _check_episode(game, env.rules, opponents, index, episode, record)


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_a_lane_plays_the_same_games_whatever_the_number_of_lanes(name):
    game = load_game(name)
    runs = []
    for n_envs in (1, 64):
        env = VectorEnv(name, n_envs, 4, "rotate", opponents="greedy", seed=7)
        obs, mask = env.reset()
        lane0 = np.random.default_rng(1)
        others = np.random.default_rng(n_envs)
        trace = [(obs[0].copy(), mask[0].copy())]
        for _ in range(120):
            actions = _random_actions(others, mask)
            actions[0] = _random_actions(lane0, mask[:1])[0]
            obs, mask, rewards, dones, _ = env.step(actions)
            trace.append((obs[0].copy(), mask[0].copy(), rewards[0], dones[0]))
        runs.append(trace)
        assert game.tensor_size(env.rules) == obs.shape[1]
    assert sum(step[3] for step in runs[0][1:]) >= 3  # several episodes, auto-reset included
    for a, b in zip(*runs, strict=True):
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_auto_reset_begins_the_lanes_next_episode_and_seats_rotate():
    env = VectorEnv("geschenkt", 3, 4, "rotate", opponents="greedy", seed=2, record=True)
    finished = _run(env, 150)
    by_lane = {}
    for record in env.records():
        lane, k = divmod(record["game_index"], 1 << 32)
        by_lane.setdefault(lane, []).append(k)
        seat = finished[record["game_index"]]["seat"]
        assert (seat - record["first_player"]) % 4 == (lane + k) % 4
    assert sorted(by_lane) == [0, 1, 2]
    assert all(ks == list(range(len(ks))) for ks in by_lane.values())
    assert lane_game_index(2, 5) == 2 * 2**32 + 5
    env.reset()  # without a seed: each lane's next episode, no game played twice
    before = {r["game_index"] for r in env.records()}
    _run(env, 40)
    again = [r["game_index"] for r in env.records()]
    assert len(again) == len(set(again)) and set(again) > before


def test_reset_with_a_seed_starts_over_and_margin_adds_the_lead():
    plain = VectorEnv("geschenkt", 8, 4, 0, opponents="greedy", seed=4)
    margin = VectorEnv("geschenkt", 8, 4, 0, opponents="greedy", seed=4, margin=0.01)
    first = [plain.reset()[0], margin.reset()[0], plain.reset(seed=4)[0]]
    assert np.array_equal(first[0], first[1]) and np.array_equal(first[0], first[2])
    assert not np.array_equal(first[0], plain.reset(seed=5)[0])
    plain.reset(seed=4)
    seen = 0
    for _ in range(80):
        actions = np.ones(8, np.int64)  # always take: legal in every No Thanks! state
        _, _, r0, d0, info = plain.step(actions)
        _, _, r1, d1, _ = margin.step(actions)
        assert np.array_equal(d0, d1)
        assert np.allclose(r1, r0 + 0.01 * info["lead"] * d0)
        seen += d0.sum()
    assert seen > 0


def _trace(env, steps, seed=0):
    """Everything the environment returns over ``steps`` random-action steps from a reset to its
    seed, and its records and skipped counts."""
    rng = np.random.default_rng(seed)
    obs, mask = env.reset(seed=env.seed)
    trace = [obs.copy(), mask.copy()]
    for _ in range(steps):
        obs, mask, rewards, dones, info = env.step(_random_actions(rng, mask))
        trace += [obs.copy(), mask.copy(), rewards.copy(), dones.copy(), info["final_obs"].copy()]
        trace += [info["game_index"].copy(), info["learner_seat"].copy(), info["lead"].copy()]
    return trace, env.records(), env.skipped().tolist()


def _same(a, b) -> None:
    """Two traces agree: every array, every record (but the opponents' names), the skips."""
    assert all(np.array_equal(x, y) for x, y in zip(a[0], b[0], strict=True))
    assert [_games(r) for r in a[1]] == [_games(r) for r in b[1]] and a[2] == b[2]


def _games(record: dict) -> dict:
    return {k: v for k, v in record.items() if k != "agents"}


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_python_lanes_play_the_compiled_kernels_games(name):
    """``slow=True`` steps the lanes from Python (the path of Python opponents) and returns
    exactly what the compiled kernels return: arrays, infos, records, skipped episodes."""
    kwargs = dict(opponents="greedy,random,greedy", seed=13, record=True, margin=0.01)
    fast = VectorEnv(name, 5, 4, "rotate", **kwargs)
    slow = VectorEnv(name, 5, 4, "rotate", slow=True, **kwargs)
    assert slow.slow and not fast.slow
    a, b = _trace(fast, 90), _trace(slow, 90)
    _same(a, b)
    assert sum(d.sum() for d in a[0][5::8]) >= 5  # several episodes finished


def _lowest_legal_compiled(name):
    """A compiled user agent that takes the lowest legal action (the twin of ``lowest``)."""
    if name == "geschenkt":

        def first(obs, params, rng):
            """Pass (action 0), legal whenever a No Thanks! seat is asked."""
            return 0

    else:
        from tulips_sim.engine import LEGAL

        def first(obs, params, rng):
            """The lowest legal action id (``LEGAL``)."""
            a = 0
            while not (obs[LEGAL] >> a) & 1:
                a += 1
            return a

    return define(name, f"vector_test_lowest_{name}", first)


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_a_python_callable_opponent_is_asked_in_batches_for_its_seats_view(name):
    """A callable over batched tensors and masks plays as its compiled twin does; it is asked
    for all waiting lanes at once, each row the deciding seat's own tensor and legal mask."""
    game = load_game(name)
    calls = []

    def lowest(tensors, masks):
        calls.append(len(tensors))
        assert tensors.dtype == np.float32 and masks.dtype == np.bool_
        assert (masks.sum(axis=1) >= 2).all()  # a seat with one legal action is not asked
        turn = game.tensor_size(game.rules(n_players=3)) - 2 * 3  # the turn block's start
        assert (tensors[:, turn] == 1).all()  # the seat to act is the observer
        return masks.argmax(axis=1)

    twin = _lowest_legal_compiled(name)
    kwargs = dict(seed=21, record=True)
    python = VectorEnv(name, 8, 3, "rotate", opponents=[lowest, "greedy"], **kwargs)
    compiled = VectorEnv(name, 8, 3, "rotate", opponents=[twin.name, "greedy"], **kwargs)
    a, b = _trace(python, 60), _trace(compiled, 60)
    assert python.slow and a[1] and all(r["agents"].count("python:lowest") == 1 for r in a[1])
    _same(a, b)
    assert sum(calls) > len(calls) > 0  # batches of several lanes


def test_a_python_callable_opponent_plays_the_same_games_whatever_the_number_of_lanes():
    def pass_first(tensors, masks):
        return masks.argmax(axis=1)

    runs = []
    for n_envs in (1, 6):
        env = VectorEnv("geschenkt", n_envs, 4, "rotate", opponents=pass_first, seed=3)
        obs, _ = env.reset()
        trace = [obs[0].copy()]
        for _ in range(80):
            obs, _, rewards, dones, _ = env.step(np.ones(n_envs, np.int64))  # take: legal
            trace += [obs[0].copy(), rewards[0], dones[0]]
        runs.append(trace)
    assert all(np.array_equal(x, y) for x, y in zip(*runs, strict=True))


def test_a_live_network_is_read_at_every_decision_and_updated_in_place(tmp_path):
    """Opponents of a LiveNetwork play as ``learned:net=FILE`` of the same weights, inside the
    compiled kernels; after ``update`` the same environment plays as the new weights' file."""
    from agents.kernels import net
    from agents.roster import roster
    from experiments.envs.opponents import LiveNetwork

    shipped = roster("geschenkt").shipped(4)
    weights, meta = net.read(shipped)
    rng = np.random.default_rng(0)
    other = {k: v + rng.normal(0, 0.5, np.shape(v)) for k, v in weights.items()}
    changed = tmp_path / "other.npz"
    net.save(changed, other["w1"], other["b1"], other["w2"], float(other["b2"]), meta)
    live = LiveNetwork.from_file("geschenkt", 4, shipped)
    kwargs = dict(seed=6, record=True)
    env = VectorEnv("geschenkt", 4, 4, "rotate", opponents=live, **kwargs)
    assert not env.slow
    before = VectorEnv("geschenkt", 4, 4, "rotate", opponents=f"learned:net={shipped}", **kwargs)
    after = VectorEnv("geschenkt", 4, 4, "rotate", opponents=f"learned:net={changed}", **kwargs)
    first = _trace(env, 60)
    _same(first, _trace(before, 60))
    live.update(other["w1"], other["b1"], other["w2"], other["b2"])
    second = _trace(env, 60)
    _same(second, _trace(after, 60))
    assert [_games(r) for r in first[1]] != [_games(r) for r in second[1]]  # weights matter
    assert all(r["agents"].count("learned:net=live") == 3 for r in second[1])


def test_rules_that_leave_the_learner_no_choice_raise_instead_of_dealing_forever():
    """No Thanks! without chips: every move is forced, every episode skipped. The compiled
    kernel (in a subprocess: a hang there cannot be interrupted) and the Python lanes, with an
    agent and with a Python callable, each raise one line after 1,000 games in a row."""
    code = (
        "from experiments.envs.vector import VectorEnv\n"
        "env = VectorEnv('geschenkt', 4, 2, rule=['chips_per_player=0'])\n"
        "try:\n    env.reset()\nexcept ValueError as error:\n    print(error)\n"
        "print(env.skipped().tolist())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    )
    lines = done.stdout.splitlines()
    assert lines[0].startswith("the learner had no decision in 1,000 games in a row")
    assert "chips_per_player=0" in lines[0] and lines[1] == "[1000, 0, 0, 0]"
    for opponents, slow in (("greedy", True), (lambda tensors, masks: masks.argmax(1), False)):
        env = VectorEnv("geschenkt", 3, 2, opponents=opponents, rule=NO_CHOICE, slow=slow)
        for _ in range(2):  # and again: a second reset raises too (it had dealt forever)
            with deadline(60), pytest.raises(EnvError, match="no decision in 1,000 games in a"):
                env.reset()


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_the_rules_first_player_is_the_default_and_a_contradiction_is_refused(name):
    """``rule=["first_player=2"]`` plays seat 2 first in every episode (the default rotated
    the first seat while the records' rules said 2); another explicit first player is refused
    in one line, and without the rule the first seat still rotates."""
    fixed = VectorEnv(name, 3, 3, opponents="greedy", rule=["first_player=2"], record=True)
    _run(fixed, 60)
    records = fixed.records()
    assert records and {r["first_player"] for r in records} == {2}
    with pytest.raises(EnvError, match="first_player=0 contradicts the rules' first_player=2"):
        VectorEnv(name, 3, 3, rule=["first_player=2"], first_player=0)
    rotating = VectorEnv(name, 3, 3, opponents="greedy", record=True)
    _run(rotating, 60)
    assert {r["first_player"] for r in rotating.records()} == {0, 1, 2}


@pytest.mark.parametrize("slow", [False, True])
def test_a_pickled_environment_plays_on_as_the_original(slow):
    """A ``VectorEnv`` pickled mid-episode (sent to another process, say) plays the steps the
    original plays, episodes' ends and auto-resets included: its lanes travel with it and its
    kernels (compiled lanes, or the Python ones) are bound again. ``close`` releases nothing
    and leaves both playable."""
    env = VectorEnv("tulips", 4, 3, opponents="greedy", seed=5, slow=slow)
    _, mask = env.reset()
    for _ in range(3):
        _, mask, *_ = env.step(mask.argmax(axis=1))
    twin = pickle.loads(pickle.dumps(env))
    env.close()
    ended = 0
    for _ in range(40):
        actions = mask.argmax(axis=1)
        got, want = twin.step(actions), env.step(actions)
        for a, b in zip(got[:4], want[:4], strict=True):
            assert np.array_equal(a, b)
        assert all(np.array_equal(got[4][k], want[4][k]) for k in want[4])
        mask, ended = want[1], ended + int(want[3].sum())
    assert ended > 0


# Unpickles an environment and the learner's last mask, plays 40 steps and writes what it saw.
PLAY_ON = """
import pickle, sys
env, mask = pickle.loads(open(sys.argv[1], "rb").read())
seen = []
for _ in range(40):
    obs, mask, rewards, dones, _ = env.step(mask.argmax(axis=1))
    seen.append((obs, rewards, dones))
sys.stdout.buffer.write(pickle.dumps(seen))
"""


def test_a_pickled_environment_plays_on_in_another_process(tmp_path):
    """Unpickled in another process, an environment whose opponents read a network (their
    parameter rows hold its address in this process's memory) plays the steps the original
    plays here: the rows are made again where it is unpickled."""
    env = VectorEnv("geschenkt", 4, 3, opponents="learned", seed=5)
    _, mask = env.reset()
    for _ in range(3):
        _, mask, *_ = env.step(mask.argmax(axis=1))
    (tmp_path / "env.pkl").write_bytes(pickle.dumps((env, mask)))
    command = [sys.executable, "-c", PLAY_ON, str(tmp_path / "env.pkl")]
    done = subprocess.run(command, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    for obs, rewards, dones in pickle.loads(done.stdout):
        want_obs, mask, want_rewards, want_dones, _ = env.step(mask.argmax(axis=1))
        assert np.array_equal(obs, want_obs) and np.array_equal(rewards, want_rewards)
        assert np.array_equal(dones, want_dones)

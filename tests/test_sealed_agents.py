"""Sealed agents: an agent sees its own seat's observation and nothing else (a user agent its
own copy, a built-in a read-only view, both bounds-checked here), cannot change the game by
writing into it, and cannot recover the deal from its random stream.

Each test plays a user agent written as the README shows (``agents.registry.define``) that tries
one of the attacks a new user found against the unsealed loop: writing chips into the live
state, reading the removed cards past the observation, and inverting its stream's first word.
"""

import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from agents.drivers.block import AgentError
from agents.isolation import Isolation
from agents.registry import builtins, define, parse_list
from experiments.batch import play
from experiments.games import play_block, play_slow
from geschenkt_sim import engine as nt_engine
from geschenkt_sim import state as nt_state
from geschenkt_sim.rules import Rules as NtRules
from giftsim.contract import DECIDER_SIG, as_arrays
from giftsim.game import load_game
from giftsim.rng import agent_stream, game_key, siphash13, stream_from
from tulips_sim import engine as tu_engine
from tulips_sim import state as tu_state

_PASS_LIMIT = 5  # the plain rule both No Thanks! test agents follow: take once 5 chips lie on it


def nt_honest(obs, params, rng):
    seat = obs[nt_state.SEAT]
    broke = obs[nt_state.CHIPS + seat] == 0
    return 1 if broke or obs[nt_state.POT] >= _PASS_LIMIT else 0


def nt_vandal(obs, params, rng):
    """The honest rule, then 50 chips and an empty hand written into what it was shown."""
    seat = obs[nt_state.SEAT]
    broke = obs[nt_state.CHIPS + seat] == 0
    action = 1 if broke or obs[nt_state.POT] >= _PASS_LIMIT else 0
    for i in range(obs.shape[0]):
        obs[i] = 0
    obs[nt_state.CHIPS + seat] = 50
    obs[nt_state.HANDS + seat] = 0
    obs[nt_state.TURN] = seat
    return action


def tu_honest(obs, params, rng):
    legal = obs[tu_state.LEGAL]
    for action in range(16):
        if (legal >> action) & 1:
            return action
    return 0


def tu_vandal(obs, params, rng):
    """The honest rule, then every slot it was shown scribbled over."""
    legal = obs[tu_state.LEGAL]
    chosen = 0
    for action in range(16):
        if (legal >> action) & 1:
            chosen = action
            break
    for i in range(obs.shape[0]):
        obs[i] = 99
    return chosen


def nt_peek(obs, params, rng):
    """Reads where the removed cards lay when the observation was the live state's prefix."""
    return 1 if obs[nt_state.REMOVED] > 0 else 0


def tu_peek(obs, params, rng):
    """Reads a hidden slot past the observation (the deck's top, in the live state)."""
    return 0 if obs[tu_engine.OBS_SIZE + 5] >= 0 else 1


define("geschenkt", "sealed_honest", nt_honest)
define("geschenkt", "sealed_vandal", nt_vandal)
define("geschenkt", "sealed_peek", nt_peek)
define("tulips", "sealed_honest", tu_honest)
define("tulips", "sealed_vandal", tu_vandal)
define("tulips", "sealed_peek", tu_peek)


@pytest.mark.parametrize(
    ("game", "others"), [("geschenkt", "greedy"), ("tulips", "greedy"), ("geschenkt", "sniper")]
)
def test_an_agent_that_writes_into_its_observation_changes_no_game(game, others):
    n = 4
    for seat in range(n):
        vandal = [others] * n
        vandal[seat] = "sealed_vandal"
        honest = [others] * n
        honest[seat] = "sealed_honest"
        written = play(game, vandal, 300, seed=5, as_frame=False)
        assert np.array_equal(written, play(game, honest, 300, seed=5, as_frame=False))
        rules, parsed = load_game(game).rules(n_players=n), parse_list(vandal, game)
        fast = play_block(game, rules, parsed, 5, 0, 40)
        for g in range(40):  # the slow path (what `giftsim record` plays) scores the same
            played = play_slow(game, rules, parsed, 5, g)
            assert played.scores == [int(v) for v in fast[g, :n]]


def test_the_vandal_would_have_won_every_game_in_the_live_state():
    """What the copy prevents: the same writes into the live state give the writer 50 chips
    and an empty hand, so it scores far below (better than) every honest seat."""
    rules = NtRules(n_players=3)
    state = nt_state.new_state()
    nt_state.deal(rules.to_array(), 5, 0, 0, state)
    live = state[: nt_engine.OBS_SIZE]  # what the unsealed loop handed over
    nt_vandal(live, np.zeros(8), np.zeros(1, np.uint64))
    assert state[nt_state.CHIPS + 0] == 50


def _luck(game, agents):
    from agents.drivers.luck import luck_block

    definition = load_game(game)
    luck_block(definition, definition.rules(n_players=3), parse_list(agents, game), 1, 0, 20)


def _isolated(game, agents):
    play(game, agents, 20, seed=1, isolation=Isolation(("greedy",)))


@pytest.mark.parametrize(
    ("game", "driver"),
    [("geschenkt", "loop"), ("tulips", "loop"), ("geschenkt", "luck"), ("geschenkt", "isolated")],
)
def test_reading_past_the_observation_is_an_error_not_a_look_at_hidden_cards(game, driver):
    """In every compiled driver that runs a user agent in this process (the luck estimator's
    and the loop beside isolated seats raised a bare IndexError; the check is the driver's,
    not the game's)."""
    agents = ["sealed_peek", "greedy", "greedy"]
    call = {"loop": lambda: play(game, agents, 20, seed=1), "luck": lambda: _luck(game, agents)}
    with pytest.raises(AgentError, match="read outside its observation"):
        call.get(driver, lambda: _isolated(game, agents))()


def _unmix64(z: int) -> int:
    """The inverse of SplitMix64's finaliser (``giftsim.rng.mix64``), in plain Python."""
    mask = (1 << 64) - 1

    def unxorshift(x, shift):
        y = x
        for _ in range(64 // shift + 1):
            y = x ^ (y >> shift)
        return y & mask

    z = unxorshift(z, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & mask
    z = unxorshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & mask
    return unxorshift(z, 30)


def _guess_next_card(first_word: int, seat: int, rules) -> int:
    """The stream-inversion attack: undo the stream's start to get the game key, deal that
    game, and read the card under the face-up one."""
    golden = 0x9E3779B97F4A7C15
    key = (_unmix64(first_word) - golden * (seat + 2)) % (1 << 64)
    state = nt_state.new_state()
    nt_state.deal_keyed(rules.to_array(), np.uint64(key), 0, state)
    return int(state[nt_state.DECK + 1])


def test_the_stream_inversion_attack_finds_the_deal_of_an_unsealed_stream():
    """The attack works against a stream started by the game's own SplitMix steps (the old
    agent stream, ``stream_from(key, 1 + seat)``): the test has teeth."""
    rules, hits = NtRules(n_players=4), 0
    for index in range(200):
        key = np.uint64(game_key(np.uint64(7), index))
        state = nt_state.new_state()
        nt_state.deal_keyed(rules.to_array(), key, 0, state)
        word = int(stream_from(key, 1 + 2))  # seat 2's stream in the unsealed loop
        hits += _guess_next_card(word, 2, rules) == state[nt_state.DECK + 1]
    assert hits == 200


@pytest.mark.parametrize("secret", [0, 0x5EC2E7])
def test_a_sealed_stream_tells_the_next_card_no_more_often_than_chance(secret):
    rules, hits, games = NtRules(n_players=4), 0, 2000
    for index in range(games):
        key = np.uint64(game_key(np.uint64(7), index))
        state = nt_state.new_state()
        nt_state.deal_keyed(rules.to_array(), key, 0, state)
        word = int(agent_stream(key, np.uint64(secret), 2))
        hits += _guess_next_card(word, 2, rules) == state[nt_state.DECK + 1]
    chance = 1 / 32  # the next card is one of 32 cards the seat has not seen
    assert hits / games < chance + 3 * np.sqrt(chance / games)


def test_only_the_secret_stops_a_search_over_small_seeds():
    """With the default secret (0) an agent can try small root seeds and game indices until
    one reproduces its stream's first word, and then deal the game; with a secret it cannot."""
    target_key = np.uint64(game_key(np.uint64(3), 17))
    for secret, found in ((0, True), (0x9E3779B97F4A7C15, False)):
        word = agent_stream(target_key, np.uint64(secret), 1)
        matches = [
            (seed, index)
            for seed in range(8)
            for index in range(32)
            if agent_stream(np.uint64(game_key(np.uint64(seed), index)), np.uint64(0), 1) == word
        ]
        assert (matches == [(3, 17)]) is found


BOUNDS_CHECKED_RUN = """
import sys
import traceback
from agents.drivers import block, generate
from experiments.batch import play
from giftsim.game import load_game
# Every table through the loop of pointer entries, compiled once for the group: a table of one
# one-ply family would otherwise compile a loop of its own (block._loop), without a cache here.
# Both loops call the same entry with the same view (tests/test_generated_drivers.py).
block._loop = lambda game, agents: generate.driver(game.name, "loop")
game, specs, tables = sys.argv[1], sys.argv[2].split(";"), [int(n) for n in sys.argv[3:]]
for spec in specs:
    for n in tables:
        rules = {"geschenkt": {"chips_visible": n == 3}}.get(game, {})
        try:
            play(game, [spec] * n, 3, rules=load_game(game).rules(n_players=n, **rules), seed=1)
        except Exception as error:
            traceback.print_exc()
            print(game, spec, n, "failed:", repr(error)[:500], flush=True)
        else:
            print(game, spec, n, flush=True)
"""
TABLES = {"tulips": (4, 6), "geschenkt": (4, 3)}


def builtin_groups() -> list:
    """Every built-in family (a search agent with few iterations: its code is the same), one
    group per game, one-ply families first (``solved`` plays one small variant:
    tests/test_solve.py)."""
    groups = []
    for game in TABLES:
        found = [f for f in builtins(game) if not f.table]
        search = [f.name + ":iters=4" for f in found if "iters" in f.defaults]
        one_ply = [f.name for f in found if "iters" not in f.defaults]
        groups.append(pytest.param(game, one_ply + search, id=game))
    return groups


@pytest.mark.parametrize(("game", "specs"), builtin_groups())
def test_every_builtin_reads_only_its_observation_when_bounds_are_checked(game, specs, tmp_path):
    """Every built-in family plays compiled with Numba's bounds checks on: a read past the
    observation it is shown would be an IndexError, reported as AgentError. Nothing compiled
    with bounds checks can be cached (Numba: "uses dynamic globals"), so each process compiles
    the engine and the game loop again: one process per game compiles them once for all its
    families, where one per family compiled them 23 times and one per game and kind (one-ply,
    search) twice (measurements: ``docs/perf/README.md``). No time limit: on a loaded machine
    it only takes longer. LLVM
    does not optimise (``NUMBA_OPT=0``): every bounds check stays, and compiling, nearly all
    of this test's time, takes a third less."""
    command = [sys.executable, "-c", BOUNDS_CHECKED_RUN, game, ";".join(specs)]
    command += map(str, TABLES[game])
    done = subprocess.run(command, env=bounds_env(tmp_path), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    expected = [f"{game} {spec} {n}" for spec in specs for n in TABLES[game]]
    assert done.stdout.split("\n")[:-1] == expected, done.stderr[-3000:]


def bounds_env(cache) -> dict:
    return {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": str(cache), "NUMBA_OPT": "0"}


PAST_THE_END = """
import numpy as np
from numba import njit
@njit
def read(a, i):
    return a[i]
try:
    read(np.zeros(3), 5)
except IndexError:
    print("caught")
"""


def test_the_bounds_checked_build_catches_a_read_past_an_array(tmp_path):
    """The control of the test above: in its environment (bounds checks on, no LLVM
    optimisation) a compiled read past an array's end is an IndexError."""
    command = [sys.executable, "-c", PAST_THE_END]
    done = subprocess.run(command, env=bounds_env(tmp_path), capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "caught\n"), done.stderr[-2000:]


def test_a_builtin_entry_shows_the_observation_read_only():
    """A built-in's entry views the observation read-only (giftsim.contract.as_arrays), so a
    decision rule that wrote into it would not compile: the loop may show built-ins the live
    state's public prefix without a copy."""

    @njit
    def writes(obs, params, rng):
        obs[0] = 1
        return 0

    @njit
    def entry(obs, params, rng, scratch):
        o, p, r = as_arrays(obs, params, rng, 4)
        return writes(o, p, r)

    with pytest.raises(TypingError):
        entry.compile(DECIDER_SIG)


def test_the_agent_streams_hash_is_siphash_1_3_as_cpython_computes_it():
    """``giftsim.rng.siphash13`` is the standard SipHash-1-3: CPython hashes bytes with it, and
    with PYTHONHASHSEED=0 its key is zero, so both must agree on every 8-byte word."""
    words = [0, 1, 2**63, 2**64 - 1, 0x0123456789ABCDEF]
    script = f"print([hash(w.to_bytes(8, 'little')) for w in {words!r}])"
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    cpython = [int(h) for h in done.stdout.strip()[1:-1].split(",")]
    ours = [int(siphash13(np.uint64(0), np.uint64(0), np.uint64(w))) for w in words]
    assert cpython == [h - 2**64 if h >= 2**63 else h for h in ours]


def test_a_secret_keys_the_agents_streams_and_is_kept_in_the_manifest(tmp_path):
    """With a secret, random agents play other games on the same deals; the manifest keeps the
    secret, so the run is reproduced from its folder alone."""
    from dataclasses import replace

    from experiments.manifest import read
    from experiments.results import load
    from experiments.runner import run
    from experiments.schedule import Job, field_design

    jobs = field_design("geschenkt", "random", "greedy", 3, 40, seed=6)
    keyed = [replace(job, secret=2**64 - 7) for job in jobs]
    plain, _, _ = run(jobs, backend="serial", progress=False)
    run(keyed, out=tmp_path / "run", backend="serial", progress=False)
    kept = [
        Job(**{**job, "agents": tuple(job["agents"])}) for job in read(tmp_path / "run")["jobs"]
    ]
    assert {job.secret for job in kept} == {2**64 - 7}
    again, _, _ = run(kept, backend="serial", progress=False)
    scores = ["score_0", "score_1", "score_2"]
    assert load(tmp_path / "run")[1][scores].equals(again[scores])
    assert (plain["deal_seed"] == again["deal_seed"]).all()
    assert not plain[scores].equals(again[scores])

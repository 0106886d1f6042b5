"""Bad input to the learning environments, as a table: every row raises the one documented
exception type (``experiments.envs.table.EnvError``, a ValueError) with one line that names the
problem, never an AttributeError, OverflowError or TypeError from deep inside."""

import numpy as np
import pytest

from experiments.envs import gym_env, pettingzoo_env
from experiments.envs.table import EnvError
from experiments.envs.vector import VectorEnv
from geschenkt_sim.rules import Rules as NoThanksRules
from tulips_sim.rules import Rules as TulipsRules


def GiftsimEnv(game="geschenkt", **kwargs):
    return gym_env.GiftsimEnv(game, **kwargs)


def raw_env(game="geschenkt", **kwargs):
    return pettingzoo_env.raw_env(game, **kwargs)


def env(game="geschenkt", **kwargs):
    return pettingzoo_env.env(game, **kwargs)


def _stepped(make, action):
    """A fresh environment of ``make``, reset, then stepped with ``action``."""
    made = make()
    made.reset(seed=1)
    made.step(action)


def _vector(players=4, **kwargs):
    """A No Thanks! vector environment of 2 lanes."""
    return VectorEnv("geschenkt", 2, players, **{"opponents": "greedy", **kwargs})


ROWS = [
    # Gymnasium
    ("gym: step before reset", lambda: GiftsimEnv().step(0), "call reset() before step()"),
    ("gym: a float action", lambda: _stepped(GiftsimEnv, 1.5), "integer action id in 0..1"),
    ("gym: a string action", lambda: _stepped(GiftsimEnv, "take"), "integer action id"),
    ("gym: no action", lambda: _stepped(GiftsimEnv, None), "integer action id"),
    ("gym: a bool action", lambda: _stepped(GiftsimEnv, True), "integer action id"),
    ("gym: 9 players", lambda: GiftsimEnv(players=9), "n_players must be in 2..7"),
    ("gym: 1 player", lambda: GiftsimEnv("tulips", players=1), "n_players must be in 2..6"),
    ("gym: players '4'", lambda: GiftsimEnv(players="4"), "n_players must be an integer"),
    ("gym: Tulips rules", lambda: GiftsimEnv(rules=TulipsRules()), "No Thanks! rules"),
    ("gym: a string as rules", lambda: GiftsimEnv(players=4, rules="x"), "No Thanks! rules"),
    ("gym: rules and players", lambda: GiftsimEnv(players=3, rules=NoThanksRules()), "not both"),
    ("gym: an unknown rule", lambda: GiftsimEnv(rule=["speed=2"]), "speed"),
    ("gym: secret -1", lambda: GiftsimEnv(secret=-1), "secret must be in 0.."),
    ("gym: secret 2**70", lambda: GiftsimEnv(secret=2**70), "secret must be in 0.."),
    ("gym: seed -1", lambda: GiftsimEnv().reset(seed=-1), "seed must be in 0.."),
    ("gym: an opponent None", lambda: GiftsimEnv(opponents=None), "agent spec"),
    ("gym: unknown opponent", lambda: GiftsimEnv(opponents="nobody"), "valid: "),
    ("gym: unknown game", lambda: GiftsimEnv("chess"), "valid: geschenkt"),
    ("gym: learner seat 4", lambda: GiftsimEnv(learner_seat=4), "0..3"),
    ("gym: rounds 3", lambda: GiftsimEnv(rule=["rounds=3"]), "rounds must be 1"),
    ("gym: render first", lambda: GiftsimEnv(render_mode="ansi").render(), "before render()"),
    # PettingZoo
    ("aec: step before reset", lambda: raw_env().step(0), "call reset() before step()"),
    ("env(): step before reset", lambda: env().step(0), "call reset() before step()"),
    ("env(): observe before reset", lambda: env().observe("player_0"), "call reset()"),
    ("aec: a float action", lambda: _stepped(raw_env, 0.5), "integer action id"),
    ("env(): a string action", lambda: _stepped(env, "pass"), "integer action id"),
    ("aec: an illegal action", lambda: _stepped(raw_env, 5), "illegal action 5"),
    ("aec: 8 players", lambda: raw_env(players=8), "n_players must be in 2..7"),
    ("aec: Tulips rules", lambda: raw_env(rules=TulipsRules()), "No Thanks! rules"),
    ("aec: No Thanks! rules", lambda: raw_env("tulips", rules=NoThanksRules()), "Tulips rules"),
    ("aec: secret -1", lambda: raw_env(secret=-1), "secret must be in 0.."),
    ("aec: opponents a list", lambda: raw_env(opponents=["greedy"]), "dict of agent name"),
    ("aec: seed 2**64", lambda: raw_env().reset(seed=2**64), "seed must be in 0.."),
    ("aec: render before reset", lambda: raw_env(render_mode="ansi").render(), "before render()"),
    # the compiled vector environment
    ("vector: step before reset", lambda: _vector().step([0, 0]), "call reset() before"),
    ("vector: float actions", lambda: _stepped(_vector, [0.5, 1.0]), "integer action ids"),
    ("vector: huge actions", lambda: _stepped(_vector, [2**70, 1]), "integer action ids"),
    ("vector: string actions", lambda: _stepped(_vector, ["a", "b"]), "integer action ids"),
    ("vector: no actions", lambda: _stepped(_vector, None), "integer action ids"),
    ("vector: 3 actions", lambda: _stepped(_vector, [0, 1, 1]), "shape (2,)"),
    ("vector: an illegal action", lambda: _stepped(_vector, [5, 1]), "lane 0: the learner's"),
    ("vector: 9 players", lambda: _vector(9), "players must be in 2..7 for No Thanks!, got 9"),
    ("vector: players '4'", lambda: _vector("4"), "in 2..7 for No Thanks!, got '4'"),
    ("vector: Tulips rules", lambda: _vector(rules=TulipsRules()), "No Thanks! rules"),
    ("vector: a string as rules", lambda: VectorEnv("tulips", 2, 4, rules="x"), "Tulips rules"),
    ("vector: secret -1", lambda: _vector(secret=-1), "secret must be"),
    ("vector: seed -1", lambda: _vector(seed=-1), "seed must be"),
    ("vector: 0 lanes", lambda: VectorEnv("geschenkt", 0, 4), "n_envs must be"),
    ("vector: 2 opponents of 3", lambda: _vector(opponents="greedy,random"), "need 3 opponents"),
    ("vector: an opponent None", lambda: _vector(opponents=None), "an opponent is"),
    ("vector: a Tulips agent", lambda: _vector(opponents=_tulips_agent()), "tulips agent"),
    ("vector: learner seat 'left'", lambda: _vector(learner_seat="left"), "'rotate'"),
    ("vector: records without record", lambda: _vector().records(), "record=True"),
    ("vector: rounds 2", lambda: _vector(rule=["rounds=2"]), "rounds must be 1"),
    # a network the opponents read live
    ("live: players 'four'", lambda: _live("four"), "in 2..7 for No Thanks!, got 'four'"),
    ("live: 9 players", lambda: _live(9), "players must be in 2..7"),
    ("live: NaN weights", lambda: _live(4, "w1"), "w1 holds NaN or inf"),
    ("live: an update with inf", lambda: _live(4).update(*_weights("b2")), "b2 holds NaN or inf"),
]  # fmt: skip


def _weights(spoilt: str = "") -> list:
    """The shipped 4-player No Thanks! network's weights, ``spoilt`` (a name) made NaN/inf."""
    from agents.kernels import net
    from agents.roster import roster

    weights, _ = net.read(roster("geschenkt").shipped(4))
    if spoilt:
        weights[spoilt] = weights[spoilt] * np.inf
    return [weights[name] for name in ("w1", "b1", "w2", "b2")]


def _live(players, spoilt: str = ""):
    from experiments.envs.opponents import LiveNetwork

    return LiveNetwork("geschenkt", players, *_weights(spoilt))


def _tulips_agent():
    from agents.registry import parse

    return parse("greedy", "tulips")


@pytest.mark.parametrize("call, words", [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_bad_input_is_one_env_error_of_one_line(call, words):
    with pytest.raises(EnvError) as caught:
        call()
    message = str(caught.value)
    assert words in message and "\n" not in message


def test_the_exception_is_a_value_error_and_an_integer_action_of_numpy_is_fine():
    """EnvError is a ValueError (code that caught ValueError still does); NumPy integers and
    0-d integer arrays are actions, as Gymnasium's ``Discrete`` accepts them."""
    assert issubclass(EnvError, ValueError)
    gym_env = GiftsimEnv(players=3)
    seeded = gym_env.reset(seed=np.int64(2))[0]  # a seed of NumPy too
    assert np.array_equal(seeded, gym_env.reset(seed=2)[0])
    gym_env.step(np.int64(1))
    gym_env.step(np.array(1))
    vector = _vector()
    vector.reset()
    vector.step(np.ones(2, np.uint8))


def _illegal(obs, params, rng):
    """Chooses an action id that is never legal (the last bit of the legal mask)."""
    return 62


@pytest.mark.parametrize("game", ["geschenkt", "tulips"])
@pytest.mark.parametrize("compiled", [False, True], ids=["python", "compiled"])
def test_an_opponents_illegal_action_is_its_error_and_never_applied(game, compiled):
    """An opponent of ``GiftsimEnv`` or of the PettingZoo environment that chooses an illegal
    action raises ``IllegalActionError`` naming its seat, spec and the legal actions, as
    ``VectorEnv`` and ``play`` do (it was applied: Tulips wrote past the state and aborted
    the process, No Thanks! played on with a card taken by nobody)."""
    from agents.drivers.block import IllegalActionError
    from agents.registry import define

    define(game, "illegal_bot", _illegal, {}, compiled=compiled)
    gym = GiftsimEnv(game, players=3, opponents="illegal_bot", first_player=0)
    with pytest.raises(IllegalActionError) as caught:
        gym.reset(seed=0)
        for _ in range(200):  # the learner (seat 0) moves until seat 1 is asked
            gym.step(int(np.flatnonzero(gym.action_masks())[0]))
    zoo = env(game, players=3, opponents={"player_1": "illegal_bot", "player_2": "greedy"})
    with pytest.raises(IllegalActionError) as caught_too:
        zoo.reset(seed=0)
        for _ in zoo.agent_iter(200):
            zoo.step(int(np.flatnonzero(zoo.last()[0]["action_mask"])[0]))
    for error in (caught.value, caught_too.value):
        assert "seat 1 (illegal_bot) chose illegal action 62 (legal: [" in str(error), error

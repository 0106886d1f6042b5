"""The cheating techniques of the sealing review against isolated agents, in both games.

In process, an agent is trusted code: its Python frames lead to the live state and, at the
default secret, a search over small seeds finds its deal (shown here first, so the cheats are
known to work). Isolated, every technique (tests/bots/cheats.py: ``as_strided``, ``address``
with ``carray``, ``objmode`` and ``sys._getframe`` frame walking, the seed search) finds
nothing: each reader follows the hidden card no more often than chance, and plays exactly the
games of its blind twin; each writer plays exactly the games of its honest twin.
"""

import secrets
from pathlib import Path

import numpy as np
import pytest

from agents.drivers import isolated
from agents.isolation import Isolation
from agents.registry import compiling_later, load_module, parse, parse_list
from experiments.batch import play
from experiments.cli import main
from experiments.games import play_slow
from experiments.manifest import read
from experiments.results import load
from geschenkt_sim import state as nt
from geschenkt_sim.rules import TAKE
from giftsim.game import load_game
from tulips_sim import state as tu

BOTS = Path(__file__).parent / "bots"
PREFIX = {"geschenkt": "nt", "tulips": "tu"}
READERS = ("strided", "pointer", "objmode", "frames", "seeds")
WRITERS = ("strided_writer", "pointer_writer")


@pytest.fixture(scope="module")
def cheats():
    """The cheats module, loaded in this process, each agent compiled when first used
    (isolated, each family is sent to its own process pickled by value)."""
    with compiling_later():
        load_module(str(BOTS / "cheats.py"))
    import giftsim_user_cheats

    return giftsim_user_cheats


def hidden(game: str, state: np.ndarray) -> int:
    """The card a reader wants: the next face-down card (No Thanks!), the top of the draw
    pile (Tulips); -1 when none is left."""
    if game == "geschenkt":
        pos, cards = state[nt.POS], state[nt.N_CARDS]
        return int(state[nt.DECK + pos + 1]) if pos + 1 < cards else -1
    top = state[tu.TOP]
    return int(state[tu.DECK + top]) if top < state[tu.DECK_N] else -1


def follows(game: str, played, seat: int) -> tuple[int, int]:
    """``(decisions that followed the hidden card, decisions where it was hidden)`` of
    ``seat`` in a played game: the readers' rule (cheats.nt_act / tu_act) applied to the
    true state at each of its decisions, against what it did."""
    definition, state = load_game(game), played.start.copy()
    hits = asked = 0
    for action in played.actions:
        legal = definition.legal_actions(state)
        card = hidden(game, state)
        if state[definition.turn_slot] == seat and len(legal) > 1 and card >= 0:
            seeing = (
                (TAKE if card % 2 else 1 - TAKE)
                if game == "geschenkt"
                else legal[-1 if card % 2 else 0]
            )
            hits += action == seeing
            asked += 1
        definition.apply_action(state, action)
    return hits, asked


def rates(game: str, agents, games: int, secret, isolation=None) -> np.ndarray:
    """Each seat's share of its decisions that followed the hidden card, over ``games``
    games of seed 1 through the slow path (the path of ``giftsim record``)."""
    rules = load_game(game).rules(n_players=len(agents))
    table = isolated.seated(game, agents, len(agents), isolation) if isolation else agents
    counts = np.zeros((len(agents), 2))
    try:
        for index in range(games):
            played = play_slow(game, rules, table, 1, index, "rotate", secret)
            counts += [follows(game, played, s) for s in range(len(agents))]
    finally:
        isolated.close(table)
    return counts[:, 0] / counts[:, 1]


@pytest.mark.parametrize("game", ["geschenkt", "tulips"])
def test_in_process_the_frames_and_the_seed_search_see_the_hidden_card(cheats, game):
    """The cheats work where they can: trusted code in this process, at the default secret."""
    names = [f"{PREFIX[game]}_{t}" for t in ("objmode", "frames", "seeds", "blind")]
    shares = rates(game, parse_list(names, game), 6, 0)
    assert (shares[:3] == 1).all()
    assert 0.3 < shares[3] < 0.7  # the blind twin: a coin


@pytest.mark.parametrize("game", ["geschenkt", "tulips"])
def test_the_memory_scanners_find_a_state_below_their_copy(cheats, game):
    """The ``as_strided`` and ``address`` + ``carray`` cheats, called on a copy of the
    observation with a live state lying below it in the same buffer, read its hidden card,
    and the writers write into it: they find what lies there."""
    definition, prefix = load_game(game), PREFIX[game]
    rules = definition.rules(n_players=4)
    state = np.zeros(definition.state_size, np.int64)
    definition.deal_keyed(rules.to_array(), np.uint64(99), 0, state)
    definition.begin(state)
    seat = int(state[definition.turn_slot])
    buffer = np.zeros(cheats.WINDOW + 4096, np.int64)
    below = cheats.WINDOW - 5000
    buffer[below : below + definition.state_size] = state
    obs = buffer[cheats.WINDOW : cheats.WINDOW + definition.obs_size]
    definition.observe(state, seat, obs)
    params, card = np.zeros(8), hidden(game, state)
    for technique in ("strided", "pointer"):
        family = parse(f"{prefix}_{technique}", game).family
        act = cheats.nt_act if game == "geschenkt" else cheats.tu_act
        seeing = act(obs, np.zeros(1, np.uint64), card)
        for word in range(8):  # whatever its coin would say
            assert family.decide(obs, params, np.array([word], np.uint64)) == seeing
        before = buffer[below : below + definition.state_size].copy()
        parse(f"{prefix}_{technique}_writer", game).family.decide(
            obs, params, np.zeros(1, np.uint64)
        )
        assert not np.array_equal(buffer[below : below + definition.state_size], before)
        buffer[below : below + definition.state_size] = before


def chance_bound(share: float, decisions: int) -> float:
    return share + 4 * np.sqrt(share * (1 - share) / decisions)


@pytest.mark.parametrize("game", ["geschenkt", "tulips"])
def test_isolated_readers_see_nothing(cheats, game):
    """Every reader isolated, at the defaults of an isolated run (a random secret). Through
    the slow path (``giftsim record``'s), each follows the hidden card in about half of its
    decisions, as its blind twin does; in the tournament's loop (many games in flight, one
    batch per round trip) each plays exactly the games of its blind twin in process."""
    names = [f"{PREFIX[game]}_{t}" for t in READERS]
    isolation, secret = Isolation(tuple(names)), secrets.randbits(64)
    shares = rates(game, parse_list(names, game), 12, secret, isolation)
    assert (shares < chance_bound(0.5, 12 * 6)).all(), dict(zip(names, shares, strict=True))
    frame = play(game, names, 100, seed=1, isolation=isolation)
    blind = [f"{PREFIX[game]}_blind"] * len(names)
    twins = play(game, blind, 100, seed=1, secret=frame.attrs["secret"])
    scores = [f"score_{s}" for s in range(len(names))]
    assert frame[scores].equals(twins[scores])
    assert not frame.filter(like="forfeit_").to_numpy().any()


@pytest.mark.parametrize("game", ["geschenkt", "tulips"])
def test_isolated_writers_change_no_game(cheats, game):
    """The writers isolated play exactly their honest twins' games (no impossible score)."""
    prefix = PREFIX[game]
    names = [f"{prefix}_{w}" for w in WRITERS] + ["greedy", "greedy"]
    twins = [f"{prefix}_honest"] * 2 + ["greedy", "greedy"]
    frame = play(game, names, 100, seed=3, isolation=Isolation(tuple(names[:2])))
    honest = play(game, twins, 100, seed=3, secret=frame.attrs["secret"])
    scores = [f"score_{s}" for s in range(4)]
    assert frame[scores].equals(honest[scores])
    if game == "geschenkt":
        assert (frame[scores].to_numpy() >= -44).all()


@pytest.mark.parametrize("game", ["geschenkt"])  # Tulips: the seed search of the tests above
def test_a_seed_search_at_every_default_finds_nothing_from_the_command_line(cheats, game, tmp_path):
    """``giftsim tournament`` with no --seed and no --secret (the agents are those of this
    process): in process the search finds the deals (the default secret is 0), isolated the
    run's secret is random and it finds none."""
    seeds, blind = f"{PREFIX[game]}_seeds", f"{PREFIX[game]}_blind"
    args = ["tournament", game, "--design", "field", "--candidate", seeds, "--baseline", "greedy"]
    args += ["--players", "3", "--games", "20", "--backend", "serial", "--quiet"]
    for isolate, out in ((False, tmp_path / "trusted"), (True, tmp_path / "isolated")):
        extra = ["--isolate", seeds] if isolate else []
        assert main([*args, *extra, "--out", str(out)]) == 0
        secret = read(out)["jobs"][0]["secret"]
        _, frame = load(out)
        scores, same = [f"score_{s}" for s in range(3)], 0
        for _, rows in frame.groupby("job"):
            agents = [rows[f"agent_{s}"].iloc[0] for s in range(3)]
            twin = [blind if a == seeds else a for a in agents]
            first = int(rows.game_index.min())
            blind_games = play(game, twin, len(rows), seed=0, first_index=first, secret=secret)
            same += (rows[scores].to_numpy() == blind_games[scores].to_numpy()).all(axis=1).sum()
        if isolate:
            assert secret != 0 and same == len(frame)
        else:
            assert secret == 0 and same < len(frame) / 2

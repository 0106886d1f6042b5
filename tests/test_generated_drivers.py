"""The compiled drivers generated from the templates (``agents.drivers.generate``): a second
process loads every one it runs from Numba's cache, two games whose drivers have the same
signatures never share compiled code, and the generated files are written only when their
text changes."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from agents.drivers import generate

ROOT = Path(__file__).resolve().parents[1]

# Plays every driver of both games once (the game loop plain, with isolated seats and with both
# hooks, the vector environment, every search family), then reports each generated dispatcher
# that has code: its cache hits and misses in this process.
WORKLOAD = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from agents.drivers import generate
    from agents.drivers.block import event_block, recorded_block
    from agents.isolation import Isolation
    from agents.registry import parse_list
    from experiments.batch import play
    from experiments.envs.vector import VectorEnv
    from giftsim.game import load_game

    for name, field in (("geschenkt", "greedy"), ("tulips", "greedy")):
        game = load_game(name)
        rules = game.rules(n_players=3)
        play(name, [field] * 3, 3, as_frame=False)
        play(name, [field] * 3, 3, as_frame=False, isolation=Isolation((field,)))
        recorded_block(game, rules, parse_list(["learned"] * 3, name), 1, 0, 2, (0.1, -1))
        if game.event is not None:
            event_block(game, rules, parse_list([field] * 3, name), 1, 0, 2, 40)
        env = VectorEnv(name, 4, 3, "rotate", opponents=field, seed=1)
        _, mask = env.reset()
        env.step(mask.argmax(axis=1))
        for spec in ("flatmc", "ismcts", "flatmc_net", "ismcts_net"):
            play(name, [spec + ":iters=4", field, field], 1, as_frame=False)
    report = {}
    for name in ("geschenkt", "tulips"):
        for module_name, module in list(sys.modules.items()):
            if not module_name.startswith(generate.PREFIX + name + "."):
                continue
            for attr, value in vars(module).items():
                stats = getattr(value, "stats", None)
                if getattr(value, "signatures", None) and stats is not None and (
                    getattr(value, "py_func", None) and value.py_func.__module__ == module_name
                ):
                    hits = sum(stats.cache_hits.values())
                    misses = sum(stats.cache_misses.values())
                    report[f"{module_name}.{attr}"] = [hits, misses]
    print(json.dumps(report))
    """
)


def run_workload(env: dict) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", WORKLOAD], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_process_loads_every_generated_driver_from_the_cache():
    env = dict(os.environ)
    run_workload(env)  # fills the cache (or finds it filled)
    report = run_workload(env)
    kinds = {key.split(".")[1].split("__")[0] for key in report}
    assert {"loop", "vector", "flatmc", "ismcts", "flatmc_net", "ismcts_net"} <= kinds
    assert any("__selfplay_hook" in key for key in report)
    assert any("__events_hook" in key for key in report)
    assert any("loop__ask__" in key for key in report)  # a table of one family: direct calls
    missed = {key: counts for key, counts in report.items() if counts[1] or not counts[0]}
    assert not missed, f"compiled again in the second process: {missed}"


# What an isolated built-in's process relies on (its own start is tested in test_isolation.py):
# no folder of its own for drivers, Numba saving nothing ("read-only",
# ``confine.read_only_cache``), an entry of each kind compiled or loaded (generated from
# ``entry.py``: greedy, hoarder; a module's own: learned; a search's and a network search's
# driver: ismcts, flatmc_net); the cache's hits and misses.
ISOLATED_START = """
import json, sys
from agents.isolation.confine import read_only_cache
from agents.registry import family
if sys.argv[1:] == ["read-only"]:
    read_only_cache()
report = {}
for game, name in [("geschenkt", "greedy"), ("geschenkt", "learned"), ("geschenkt", "ismcts"),
                   ("geschenkt", "flatmc_net"), ("tulips", "hoarder")]:
    stats = family(game, name).entry().stats
    report[game + " " + name] = [sum(stats.cache_hits.values()), sum(stats.cache_misses.values())]
print(json.dumps(report))
"""


def test_each_kind_of_builtin_entry_loads_in_a_process_that_may_not_write_the_cache():
    """Numba's cache as an isolated agent's process uses it: read, never written
    (``agents.isolation.confine``). Once a process compiled a built-in's entry there, one
    that imports the drivers of that folder and may not write it loads an entry of each kind
    rather than compiling it again (1-17 s)."""
    env = {k: v for k, v in os.environ.items() if k != generate.PRIVATE}

    def start(*mode) -> dict:
        command = [sys.executable, "-c", ISOLATED_START, *mode]
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        return json.loads(done.stdout.strip().splitlines()[-1])

    start()  # the run's process: compiles into the cache (or finds it filled)
    report = start("read-only")
    assert len(report) == 5
    missed = {name: counts for name, counts in report.items() if counts != [1, 0]}
    assert not missed, f"compiled again in the read-only process: {missed}"


# Scrambles one word in a fresh process and says where the cache is and whether the kernel came
# from it (unoptimised, a kernel that reads a global array cannot be cached; this one reads none).
ONE_KERNEL = """
import os
import numpy as np
from giftsim.rng import mix64
mix64(np.uint64(7))
print(os.environ["NUMBA_CACHE_DIR"], sum(mix64.stats.cache_hits.values()))
"""


@pytest.mark.parametrize("level", ["0", "max"])
def test_a_kernel_compiled_at_another_optimisation_level_is_not_loaded_at_the_default(
    level, tmp_path
):
    """Numba's cache keys an entry by the code and the processor, not by ``NUMBA_OPT``: a kernel
    compiled unoptimised (to debug) would have been loaded by every later run at the default
    level, slower. Each level other than the default has a folder of its own; an unreadable
    value is Numba's default, and so is its folder."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    env["XDG_CACHE_HOME"] = str(tmp_path)

    def run(**levels) -> tuple[str, int]:
        command = [sys.executable, "-c", ONE_KERNEL]
        done = subprocess.run(command, env={**env, **levels}, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        folder, hits = done.stdout.split()
        return Path(folder).name, int(hits)

    other, hits = run(NUMBA_OPT=level)
    assert other.endswith(f"-opt{level}") and hits == 0
    default, hits = run()
    assert default == other.removesuffix(f"-opt{level}") and hits == 0  # compiled, not loaded
    assert run(NUMBA_OPT=level) == (other, 1)  # its own folder still serves its level
    assert run(NUMBA_OPT="3") == run(NUMBA_OPT="fast") == (default, 1)


TWIN_GAME = """
from dataclasses import replace

import numpy as np
from numba import njit

from tests.toy_game.game import GAME as TOY
from tests.toy_game.engine import scores as toy_scores, result_row as toy_result_row


@njit
def scores(state, out):
    toy_scores(state, out)
    for p in range(state[0]):
        out[p] = 100 - out[p]  # the twin counts every score the other way


@njit
def result_row(state, n, rounds, r, out, g):
    toy_result_row(state, n, rounds, r, out, g)
    for p in range(n):
        out[g, p] = 100 - out[g, p]


GAME = replace(TOY, name="twin", scores=scores, result_row=result_row)
"""


def test_two_games_with_the_same_signatures_do_not_share_compiled_code(tmp_path):
    """The toy game and a twin whose verbs differ but whose drivers have the same Numba
    signatures: each plays its own rows, in this process and in a second one that loads
    both from the cache."""
    package = tmp_path / "twin_game"
    package.mkdir()
    (package / "__init__.py").write_text(TWIN_GAME)
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import numpy as np
        from giftsim.game import register_game
        register_game("toy", "tests.toy_game")
        register_game("twin", "twin_game")
        from experiments.batch import play
        toy = play("toy", ["steady", "random"], 50, seed=3, as_frame=False)
        twin = play("twin", ["steady", "random"], 50, seed=3, as_frame=False)
        assert np.array_equal(twin[:, :2], 100 - toy[:, :2]), "the twin ran the toy's code"
        assert np.array_equal(twin[:, 2:], toy[:, 2:])
        print("ok")
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _ in range(2):  # the second process loads both games' drivers from the cache
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True)
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        assert done.stdout.decode().strip().endswith("ok")
    folders = {p.name.split("-")[0] for p in generate.folder_of("toy").parent.iterdir()}
    assert {"toy", "twin"} <= folders


@pytest.fixture
def own_driver_modules():
    """The generated package's modules as they were before the test (a test that generates
    into a folder of its own must not leave its modules for the next test to import)."""
    prefix = generate.PREFIX + "geschenkt"
    before = {k: m for k, m in sys.modules.items() if k.startswith(prefix)}
    yield
    for key in [k for k in sys.modules if k.startswith(prefix)]:
        del sys.modules[key]
    sys.modules.update(before)


def test_generated_files_are_written_only_when_their_text_changes(
    own_driver_modules, tmp_path, monkeypatch
):  # own_driver_modules first: its teardown runs after monkeypatch's
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.delitem(sys.modules, generate.PREFIX + "geschenkt", raising=False)
    folder = generate.folder_of("geschenkt")
    generate.package("geschenkt")
    loop = folder / "loop.py"
    stamp = loop.stat().st_mtime_ns
    assert loop.read_text() == (generate.TEMPLATES / "loop.py").read_text()
    assert "apply_action = _game.apply_action" in (folder / "game.py").read_text()
    monkeypatch.delitem(sys.modules, generate.PREFIX + "geschenkt")
    generate.package("geschenkt")  # a second process: the same text, the file untouched
    assert loop.stat().st_mtime_ns == stamp
    loop.write_text("# edited\n")
    monkeypatch.delitem(sys.modules, generate.PREFIX + "geschenkt")
    generate.package("geschenkt")
    assert loop.read_text() == (generate.TEMPLATES / "loop.py").read_text()
    assert not list(folder.glob(".*.tmp"))  # written by temporary file and rename
    shutil.rmtree(tmp_path / "drivers")
    monkeypatch.delitem(sys.modules, generate.PREFIX + "geschenkt")


def test_a_hook_variant_is_the_template_with_its_hook_line_changed():
    module = generate.driver("geschenkt", "loop", hook="events_hook")
    text = Path(module.__file__).read_text()
    template = (generate.TEMPLATES / "loop.py").read_text()
    assert text == template.replace(generate.HOOK_LINE, "from .events_hook import ")
    with pytest.raises(ValueError, match="no hook line"):
        generate.driver("geschenkt", "vector", hook="events_hook")


@pytest.mark.parametrize("kind", sorted(generate.NET_LEAF))
def test_a_search_valued_by_the_network_is_its_template_with_the_leaf_line_changed(
    kind, monkeypatch
):
    """One text per search: ``ismcts_net`` is ``ismcts.py`` importing its leaf from ``leaf.py``
    (and so for ``flatmc_net``); both leaves give every name a search takes from that line."""
    module = generate.driver("tulips", kind)
    template = (generate.TEMPLATES / f"{generate.NET_LEAF[kind]}.py").read_text()
    net_text = template.replace(generate.LEAF_LINE, "from .leaf import ")
    assert Path(module.__file__).read_text() == net_text
    plain = generate.driver("tulips", generate.NET_LEAF[kind])
    assert module.NAMES[: len(plain.NAMES)] == plain.NAMES
    assert len(module.NAMES) > len(plain.NAMES)
    assert (*plain.PLAYOUT_POLICIES, "learned") == module.PLAYOUT_POLICIES
    slots = ("DEPTH", "MIX_AT", "LEAF", "TOP") if kind == "flatmc_net" else ("DEPTH",)
    names = ["depth", "mix", "leaf", "top"][: len(slots)]
    assert [module.NAMES[getattr(module, slot)] for slot in slots] == names  # the slots read
    monkeypatch.setitem(generate.NET_LEAF, "loop_net", "loop")
    with pytest.raises(ValueError, match="no leaf line"):
        generate.driver("tulips", "loop_net")


def test_the_searches_sharing_a_text_describe_only_themselves():
    """``giftsim agents`` shows each family its part of the shared docstring: the plain one
    without its network family's paragraphs, the network one with a lead saying what it adds."""
    from agents.registry import family

    for net, plain in generate.NET_LEAF.items():
        assert f"``{net}``" not in family("tulips", plain).doc
        assert "``depth``" not in family("tulips", plain).doc
        lead = f"``{plain}`` with the learned network's value (``{net}`` below)."
        assert family("tulips", net).summary == lead
        assert f"``{net}``:" in family("tulips", net).doc


@pytest.mark.parametrize("name", ["geschenkt", "tulips"])
def test_a_table_of_one_plain_family_plays_the_pointer_loops_games(name, monkeypatch):
    """Every seat one built-in family with a generated entry: the loop that calls the entry
    directly (``block._loop``) plays the games of the loop of pointer entries, row for row."""
    from agents.drivers import block
    from agents.registry import builtins, parse_list
    from giftsim.game import load_game

    game = load_game(name)
    plain = [f.name for f in builtins(name) if f.plain_entry and not f.table]
    assert {"greedy", "random"} <= set(plain)
    rules = game.rules(n_players=4)
    pointer_loop = generate.driver(name, "loop")
    for spec in plain:
        agents = parse_list([spec] * 4, name)
        assert block._loop(game, agents).__name__.endswith("__ask__" + _entry_tag(agents[0]))
        direct = block.play_block(game, rules, agents, 5, 0, 300)
        with monkeypatch.context() as patched:
            patched.setattr(block, "_loop", lambda game, agents: pointer_loop)
            through_pointers = block.play_block(game, rules, agents, 5, 0, 300)
        assert (direct == through_pointers).all(), spec
    mixed = parse_list(["greedy", "random", "greedy", "greedy"], name)
    assert block._loop(game, mixed) is pointer_loop


def _entry_tag(agent) -> str:
    return agent.family.decider.py_func.__module__.replace(".", "_")


def test_the_seats_entries_reach_the_loop_as_addresses_looked_up_once(monkeypatch):
    """The seats' entries go to the loop as one row of addresses each (padded rows repeat the
    first seat's), looked up once per process: mixed and single-family tables play through
    the loop's one signature, again and again, with the same games."""
    from agents.drivers import block
    from agents.kernels import entries as entries_module
    from agents.registry import parse_list
    from giftsim.game import load_game

    game = load_game("geschenkt")
    rules = game.rules(n_players=3)
    for specs in (["greedy", "random", "sniper"], ["greedy"] * 3):
        agents = parse_list(specs, "geschenkt")
        addresses = block._seating(game, rules, agents, 0)[0]
        assert addresses.dtype == np.int64 and addresses.shape == (game.max_players, 3)
        assert (addresses[3:] == addresses[0]).all() and (addresses[:, [0, 2]] > 0).all()
        loop = block._loop(game, agents).play_games
        first = block.play_block(game, rules, agents, 3, 0, 5)
        before = list(loop.signatures)
        looked_up = []
        monkeypatch.setattr(entries_module, "_get_wrapper_address", looked_up.append)
        again = block.play_block(game, rules, agents, 3, 0, 5)
        monkeypatch.undo()
        assert loop.signatures == before and len(before) == 1
        assert looked_up == [] and (again == first).all()
        assert (block._seating(game, rules, agents, 0)[0] == addresses).all()

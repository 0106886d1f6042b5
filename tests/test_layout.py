"""The layout the style guide asks for, checked on the source: imports point one way (games <-
agents <- experiments), ``agents/`` has no import circle, and the generic code of
``experiments/`` names no game (a game's settings come from its records)."""

import ast
from pathlib import Path

import pytest

from giftsim.game import GAMES

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {  # a package: the packages it may import (besides itself and the standard library)
    "giftsim": set(),
    "geschenkt_sim": {"giftsim"},
    "tulips_sim": {"giftsim"},
    "agents": {"giftsim", "geschenkt_sim", "tulips_sim"},
    "experiments": {"giftsim", "geschenkt_sim", "tulips_sim", "agents"},
}
# Inside agents/: a module's floor; a module imports only modules on lower floors or its own.
FLOORS = {
    "agents.kernels": 0,
    "agents.base": 1,
    "agents.drivers.generate": 1,
    "agents.templates.game": 0,  # the stub: what a game gives its drivers, imports nothing
    "agents.templates": 2,
    "agents.geschenkt": 2,
    "agents.tulips": 2,
    "agents.roster": 3,
    "agents.registry": 4,
    "agents.isolation": 4,  # untrusted agents in processes of their own: registry, kernels
    "agents.templates.isolated": 4,  # the isolated seat's loop reads the fault codes
    "agents.drivers": 5,
}


def modules(package: str):
    for path in sorted((ROOT / package).rglob("*.py")):
        yield ".".join(path.relative_to(ROOT).with_suffix("").parts), path


def imports(path: Path) -> set[str]:
    """Every module a file imports, at any depth (function-level imports too)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


@pytest.mark.parametrize("package", sorted(LAYERS))
def test_imports_point_one_way(package):
    others = set(LAYERS) - LAYERS[package] - {package}
    for name, path in modules(package):
        wrong = {m for m in imports(path) if m.split(".")[0] in others}
        assert not wrong, f"{name} imports {sorted(wrong)}: against the layers"


def floor(module: str) -> int:
    best = max((k for k in FLOORS if module == k or module.startswith(k + ".")), key=len)
    return FLOORS[best]


def test_agents_modules_import_only_lower_floors():
    for name, path in modules("agents"):
        if name in ("agents", "agents.templates.game") or name.endswith("__init__"):
            continue
        for target in imports(path):
            if target.startswith("agents.") and target != "agents":
                assert floor(target) <= floor(name), f"{name} imports {target}: a floor up"


def words_that_name_a_game(path: Path) -> list[str]:
    """The identifiers, imported modules and one-word strings of a file that name a game
    (docstrings and prose, such as help text and examples, are not code)."""
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    names = {*GAMES, *(package.split(".")[0] for package in GAMES.values())}
    found = []
    for node in ast.walk(tree):
        words = []
        if isinstance(node, ast.Name):
            words = [node.id]
        elif isinstance(node, ast.Attribute):
            words = [node.attr]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            words = [getattr(node, "module", None) or "", *(a.name for a in node.names)]
        elif _is_word(node) and id(node) not in docstrings:
            words = [node.value]
        found += [w for w in words if any(n in w.lower().split(".") for n in names)]
    return found


def _is_word(node) -> bool:
    """A string constant of one word (not prose: help text, an example command line)."""
    value = getattr(node, "value", None) if isinstance(node, ast.Constant) else None
    return isinstance(value, str) and not any(c.isspace() for c in value)


# The exact solver's studies: the solver models No Thanks! only (``geschenkt_sim/solve.py``), so
# these modules are that game's by nature, like a module named after it.
ONE_GAME = {"experiments.solving", "experiments.exploit", "experiments.exact", "experiments.bounds"}


def test_generic_experiments_code_names_no_game():
    """A module named after a game (a terminal screen, ``experiments/play/<game>.py``) is that
    game's, and so are the exact solver's studies (``ONE_GAME``); every other module of
    ``experiments/`` reads what it needs of a game from its records (``Game``, ``Roster``)."""
    for name, path in modules("experiments"):
        if path.stem in GAMES or name in ONE_GAME:
            continue
        assert not words_that_name_a_game(path), f"{name} names a game"


def test_the_check_finds_a_game_named_in_code(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""Docstrings may say geschenkt."""\n'
        'HELP = "giftsim record tulips --agents greedy"\n'
        'MIXES = {"geschenkt": 1}\n'
        "from tulips_sim.rules import Rules\n"
    )
    assert sorted(words_that_name_a_game(sample)) == ["geschenkt", "tulips_sim.rules"]

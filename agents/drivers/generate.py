"""Compiled drivers from one template text each, instantiated per game.

A *driver* is compiled code that runs a game through its verbs: the game loop, the vector
environment's lanes, the searches. Each is one module under ``agents/templates/``, written
over the names of ``agents/templates/game.py`` (what a game gives its drivers: its ``Game``
record's verbs and sizes, its agents' search verbs). :func:`package` writes one package per
game into Numba's cache folder: a ``game.py`` that binds those names to the game's own
(:func:`binding_text`), and every template beside it, unchanged, so that a template's
``from .game import apply_action`` is the game's verb and Numba compiles a direct call to it.

Why files: Numba caches compiled code per source file and function, and its key holds no
globals, so a template ``exec``'d without a file per game would let a second game load the
first game's code from the cache. A file per game and driver is cached like any module and
loaded from the cache by the next process. The files are written atomically and only when
missing or changed (an unchanged file keeps the stamp its cache entries were made from), in
a folder named by the game and a hash of its code (so a game added by ``register_game``,
whose code is outside ``giftsim.source_hash``, still gets a fresh cache when it changes).

Variants: a template may name its *hook* on one marked line (the game loop's ``from .no_hook
import``); :func:`driver` with ``hook=`` writes a copy that imports another hook module (the
self-play recorder, the event recorder), so a hook costs the plain loop nothing. The game loop
also names how it asks an agent (``from .ask_entry import``): with ``ask=`` (the module of a
family's entry) the copy calls that entry directly (``ask_family.py``), for tables where every
seat plays that family. A search's ``_net`` family (``NET_LEAF``) is its template with the
leaf line (``from .no_net import``) importing ``leaf.py``: its walks end at the network.
"""

import functools
import hashlib
import importlib
import importlib.util
import os
import sys
import tempfile
import types
from pathlib import Path

from giftsim.game import GAMES, load_game

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
HOOK_LINE = "from .no_hook import "  # the marked line of a template that names its hook
ASK_LINE = "from .ask_entry import "  # the game loop's marked line that names how it asks
FAMILY_LINE = "from .family import "  # the entry template's import of its family's decide
LEAF_LINE = "from .no_net import "  # a search template's marked line that names its leaf
NET_LEAF = {"flatmc_net": "flatmc", "ismcts_net": "ismcts"}  # a search valued by the network
PREFIX = "giftsim_drivers_"  # generated packages are named PREFIX + game


@functools.cache
def driver(game: str, kind: str, hook: str | None = None, ask: str | None = None):
    """The compiled driver ``kind`` (a template's name, or a ``_net`` search's: its template
    with the network's leaf, ``NET_LEAF``) of ``game``; with ``hook``, the variant whose hook
    line imports the hook template ``hook`` instead of ``no_hook``; with ``ask`` (the module
    of a family's entry ``decider``), the variant that asks every seat through that entry,
    called directly. Kept per process: a block's call reads no file."""
    pkg = package(game)
    if hook is None and ask is None and kind not in NET_LEAF:
        return importlib.import_module(f"{pkg.__name__}.{kind}")
    folder = Path(pkg.__path__[0])
    name, text = kind, (TEMPLATES / f"{NET_LEAF.get(kind, kind)}.py").read_text()
    if kind in NET_LEAF:
        text = _marked(text, LEAF_LINE, "from .leaf import ", f"template {kind!r} has no leaf line")
    if hook is not None:
        name += f"__{hook}"
        text = _marked(
            text, HOOK_LINE, f"from .{hook} import ", f"template {kind!r} has no hook line"
        )
    if ask is not None:
        asker = "ask__" + ask.replace(".", "_")
        family = (TEMPLATES / "ask_family.py").read_text()
        _write(folder / f"{asker}.py", _marked(family, FAMILY_LINE, f"from {ask} import "))
        name += f"__{asker}"
        text = _marked(
            text, ASK_LINE, f"from .{asker} import ", f"template {kind!r} has no ask line"
        )
    _write(folder / f"{name}.py", text)
    return importlib.import_module(f"{pkg.__name__}.{name}")


@functools.cache
def entry(game: str, family_module: str):
    """The compiled loop's entry of the hand-written family whose ``decide`` is in the module
    ``family_module`` (``agents/templates/entry.py``, its family line importing that module)."""
    pkg = package(game)
    name = "entry__" + family_module.replace(".", "_")
    text = _marked(
        (TEMPLATES / "entry.py").read_text(), FAMILY_LINE, f"from {family_module} import "
    )
    _write(Path(pkg.__path__[0]) / f"{name}.py", text)
    return importlib.import_module(f"{pkg.__name__}.{name}").decider


def package(game: str) -> types.ModuleType:
    """The generated package of ``game``'s drivers, written on first use in this process."""
    name = PREFIX + game
    if name in sys.modules:
        return sys.modules[name]
    folder = folder_of(game)
    folder.mkdir(parents=True, exist_ok=True)
    _write(folder / "__init__.py", f'"""Compiled drivers of {game} (generated)."""\n')
    _write(folder / "game.py", binding_text(game))
    for template in templates():
        _write(folder / template.name, template.read_text())
    module = types.ModuleType(name, f"Compiled drivers of {game}, generated into {folder}.")
    module.__path__ = [str(folder)]
    module.__file__ = str(folder / "__init__.py")
    sys.modules[name] = module
    return module


def templates() -> list[Path]:
    """The template files (every module of ``agents/templates/`` but the stubs ``game.py`` and
    ``family.py`` and the per-family ``entry.py`` and ``ask_family.py``)."""
    skip = {"__init__.py", "game.py", "family.py", "entry.py", "ask_family.py"}
    return sorted(p for p in TEMPLATES.glob("*.py") if p.name not in skip)


PRIVATE = "GIFTSIM_DRIVERS"  # an isolated agent's process: its own folder for generated files


def folder_of(game: str) -> Path:
    """Where ``game``'s drivers are generated: the Numba cache folder, by game and code (in
    an isolated agent's process, which may only read that folder, its own: ``PRIVATE``)."""
    cache = os.environ.get(PRIVATE) or os.environ.get("NUMBA_CACHE_DIR") or tempfile.gettempdir()
    return Path(cache) / "drivers" / f"{game}-{_code_hash(game)}"


def binding_text(game: str) -> str:
    """The generated ``game.py``: every name of the stub ``agents/templates/game.py`` bound to
    the game's (``SOURCES`` there says where each comes from). A game without search or
    learned agents (no ``worlds`` or ``learned`` module) leaves those names out; a game
    without events gets ``agents.kernels.events.no_event``."""
    from agents.templates.game import SOURCES

    definition = load_game(game)
    lines = [
        f'"""{definition.title}: the names the driver templates use (generated from '
        'agents/templates/game.py)."""',
        "",
        "from agents.kernels.events import no_event as _no_event",
        f"from {GAMES[game]} import GAME as _game",
    ]
    sources = {"game"}
    for module in ("worlds", "learned"):
        if importlib.util.find_spec(f"{definition.agents}.{module}") is not None:
            lines.append(f"from {definition.agents} import {module} as _{module}")
            sources.add(module)
    lines.append("")
    for name, (source, attribute) in SOURCES.items():
        if source in sources:
            lines.append(f"{name} = _{source}.{attribute}")
    lines.append("event = event if event is not None else _no_event")
    return "\n".join(lines) + "\n"


def _marked(text: str, line: str, replacement: str, missing: str = "no marked line") -> str:
    """``text`` with its one marked import ``line`` replaced."""
    if text.count(line) != 1:
        raise ValueError(f"{missing} ({line!r})")
    return text.replace(line, replacement)


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, unless it holds that text already."""
    if path.is_file() and path.read_text() == text:
        return
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(temporary, path)


def _code_hash(game: str) -> str:
    """A short hash of the code a game's drivers are made of: the game's package, its agents'
    package and the templates (and this generator)."""
    definition = load_game(game)
    roots = [_folder(GAMES[game]), _folder(definition.agents), TEMPLATES, Path(__file__)]
    digest = hashlib.sha1()
    for root in roots:
        files = [root] if root.is_file() else sorted(root.rglob("*.py"))
        for path in files:
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _folder(module: str) -> Path:
    """The folder of a package (or the file of a module), found without importing it."""
    spec = importlib.util.find_spec(module)
    origin = Path(spec.origin)
    return origin.parent if origin.name == "__init__.py" else origin

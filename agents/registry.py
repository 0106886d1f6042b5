"""The registry of agent families per game, and spec strings such as ``greedy:T=-3``.

Each game's built-in families are those of its roster (``agents.roster``: one module per
hand-written family in ``agents/<game>/``, and the search drivers made from the templates);
they are registered the first time a game's agents are asked for. :func:`define` adds a
family from a notebook, a script or a module given to the command line (:func:`load_module`).

Families cross to worker processes by pickle: a built-in by name, a user family by its
definition, each with the game's package so that a game added by ``register_game`` is known
there too (``copyreg``: the reducers live here, beside the table they rebuild from).
"""

import contextlib
import copyreg
import importlib
import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
from numba import njit
from numba.core.registry import CPUDispatcher

from agents.base import ANY, Agent, Family
from agents.roster import roster
from giftsim.contract import check_action_type, pointer_entry
from giftsim.game import GAMES, load_game, register_game

_FAMILIES: dict[str, dict[str, Family]] = {}


def families(game: str) -> list[Family]:
    """All families of a game, built-ins first."""
    return list(_table(game).values())


def builtins(game: str) -> list[Family]:
    """The game's built-in families (those of ``agents/<game>/``), without user-defined ones."""
    return [f for f in families(game) if f.builtin]


def family(game: str, name: str) -> Family:
    """The family ``name`` of a game, or a ValueError listing the valid names."""
    table = _table(game)
    if name not in table:
        raise ValueError(f"unknown agent {name!r} for {game} (valid: {', '.join(table)})")
    return table[name]


def register(new: Family, origin: str = "") -> Family:
    """Add a user family under its name (a built-in name cannot be taken); ``origin``: the
    resolved path of the file that defined it, if any (:func:`source_file`)."""
    table = _table(new.game)
    if (taken := table.get(new.name)) and taken.builtin:
        raise ValueError(f"{new.name!r} is a built-in {new.game} agent; choose another name")
    table[new.name] = new
    if origin:
        _ORIGIN[(new.game, new.name)] = origin
    return new


def define(
    game: str,
    name: str,
    decide,
    defaults=None,
    doc: str | None = None,
    ranges=None,
    compiled: bool = True,
) -> Family:
    """Register a user-defined agent family and return it.

    ``decide(obs, params, rng) -> action`` is a plain function written in Numba's subset of
    Python, or an ``@njit`` one; it gets a pointer entry like the built-ins' and then runs
    inside the compiled game loop exactly as they do, bounds-checked: reading past its
    observation is an error, not a look at the hidden cards. With ``compiled=False`` it stays
    plain Python (any code: a neural network, a person) and plays through the slow path.
    ``ranges`` maps parameters to a :class:`~agents.base.Range` or :class:`~agents.base.Choice`
    (default: any finite number). Redefining a user name replaces it.
    """
    source = getattr(decide, "__module__", "") or ""
    if "random" in getattr(_code(decide), "co_names", ()):
        warnings.warn(_UNKEYED.format(name=name), stacklevel=2)
    return register(_make(game, name, decide, defaults, ranges, doc, compiled, source))


_UNKEYED = (
    "agent {name!r}: decide uses `random` (NumPy's or Python's), a stream the run does not key: "
    "its games are no longer a function of (seed, game index, rules, agents); draw from its "
    "rng with giftsim.rng.next_float(rng) or next_below(rng, n)"
)


def redefine(game, name, decide, defaults, ranges, doc, compiled, source) -> Family:
    """:func:`define` in a worker process, once per definition: an unpickled user family. A
    family of the same name is reused only if it is the same definition (same code, parameters
    and ranges), so a notebook's redefined agent is never played with its old code by a
    worker process that outlived the first run."""
    known = _table(game).get(name)
    same = known is not None and _code(known.decide) == _code(decide)
    if same and known.defaults == defaults and known.ranges == ranges:
        return known
    return register(_make(game, name, decide, defaults, ranges, doc, compiled, source))


def _code(fn):
    """The code object of a (possibly compiled) function: equal for equal definitions."""
    return getattr(getattr(fn, "py_func", fn), "__code__", None)


def _make(game, name, decide, defaults, ranges, doc, compiled, source) -> Family:
    for what, value in (("defaults", defaults), ("ranges", ranges)):
        if value is not None and not isinstance(value, dict):
            raise TypeError(
                f"agent {name!r}: {what} is a dict by parameter name (e.g. {{'milk': 4}}), got "
                f"{value!r}"
            )
    defaults = {k: _default(name, k, v) for k, v in dict(defaults or {}).items()}
    if unknown := [k for k in ranges or {} if k not in defaults]:
        raise ValueError(
            f"agent {name!r}: ranges names {', '.join(map(repr, unknown))}, not a parameter "
            f"(its parameters: {', '.join(defaults) or 'none'})"
        )
    ranges = {k: (ranges or {}).get(k, ANY) for k in defaults}
    obs_size = load_game(game).obs_size
    if compiled:
        decide = _compile(decide)
        entry = _entry(decide, obs_size)
    else:
        _check_callable(decide)
        entry = None
    doc = doc or getattr(decide, "__doc__", "") or ""
    return Family(name, game, decide, entry, defaults, ranges, doc, False, compiled, source)


_ORIGIN: dict[tuple[str, str], str] = {}  # (game, name) -> the agents module that defined it


def _default(name: str, key: str, value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"agent {name!r}: the default of parameter {key!r} must be a number, got {value!r}"
        ) from None


def load_module(target: str) -> list[Family]:
    """Import a Python file (``my_agents.py``) or module (``package.module``) whose code calls
    :func:`define`; return the families it added. Worker processes get them pickled by value.

    A one-line ValueError when the module cannot be imported, ends the program (``sys.exit``),
    defines no agent, or defines a family that another module (or a ``define`` elsewhere)
    defined before; loading one module again is allowed."""
    origin = _origin(target)
    before = {(g, f.name): f for g in GAMES for f in families(g)}
    module = _import(target)
    _pickle_by_value(module)
    added = [f for g in GAMES for f in families(g) if before.get((f.game, f.name)) is not f]
    for f in added:
        key = (f.game, f.name)
        if key in before and _ORIGIN.get(key) != origin:
            where = _ORIGIN.get(key, "a define() outside this module")
            raise ValueError(
                f"agents module {target!r} defines the {f.game} agent {f.name!r} again (already "
                f"defined by {where}); give it another name"
            )
        _ORIGIN[key] = origin
    if not added:  # an imported package module runs once: its families are those it made
        added = [f for g in GAMES for f in families(g) if _ORIGIN.get((g, f.name)) == origin]
    if not added:
        raise ValueError(
            f"agents module {target!r} defines no agents (it should call agents.registry.define)"
        )
    return added


def source_file(game: str, name: str) -> str:
    """The Python file that defined an agent family (``load_module`` of a file or of a module
    by its dotted name, an untrusted module), resolved, or "" (a built-in, a ``define``
    elsewhere)."""
    origin = _ORIGIN.get((game, name), "")
    if origin and not origin.endswith(".py"):  # a dotted name: the file it was imported from
        origin = getattr(sys.modules.get(origin), "__file__", None) or ""
    return str(Path(origin).resolve()) if origin.endswith(".py") else ""


def _origin(target: str) -> str:
    """What names an agents module: its resolved path, or its dotted name."""
    return str(Path(target).resolve()) if target.endswith(".py") else target


def _import(target: str):
    path = Path(target)
    if path.is_dir():
        raise ValueError(f"agents module {target!r} is a folder; give a .py file or a module name")
    if target.endswith(".py"):
        if not path.is_file():
            raise ValueError(f"agents module {target!r}: no such file")
        name = f"giftsim_user_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        _run(spec.loader.exec_module, module, target)
        return module
    if "/" in target or "\\" in target:
        raise ValueError(f"agents module {target!r}: a file's name ends in .py; no such module")
    try:
        return _run(importlib.import_module, target, target)
    except ModuleNotFoundError as error:
        raise ValueError(f"agents module {target!r}: {error}") from None


@contextlib.contextmanager
def no_bytecode():
    """Import without writing ``__pycache__`` beside the user's module: loading it, good or
    bad, leaves their folder as it was."""
    before, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        yield
    finally:
        sys.dont_write_bytecode = before


def _run(execute, module, target: str):
    """``execute(module)``; what it raises (an exit included) as a one-line ValueError."""
    try:
        with no_bytecode():
            return execute(module)
    except ModuleNotFoundError as error:
        if _is_the_module(error, target):
            raise  # the module asked for (or its package) is not there: the caller says so
        if error.name is None:  # raised by the module's own code
            raise ValueError(f"agents module {target!r} failed: {error}") from None
        raise ValueError(
            f"agents module {target!r} failed: it imports {error.name!r}, which Python cannot "
            "find (not installed, or not on its path)"
        ) from None
    except SystemExit as stop:
        raise ValueError(
            f"agents module {target!r} ended the program (sys.exit({stop.code!r})) while it "
            "was imported; an agents module should only define agents"
        ) from None
    except Exception as error:
        why = f"{type(error).__name__}: {error}"
        raise ValueError(f"agents module {target!r} failed: {why}") from None


def _is_the_module(error: ModuleNotFoundError, target: str) -> bool:
    """Whether ``error`` says that the module named ``target`` (a dotted name, not a file)
    or a package above it is not there, rather than something it imports."""
    if target.endswith(".py") or not error.name:
        return False
    return f"{target}.".startswith(f"{error.name}.")


def _pickle_by_value(module) -> None:
    """Let worker processes rebuild the module's functions without importing it."""
    import cloudpickle

    if not module.__name__.startswith("giftsim_user_"):
        return
    cloudpickle.register_pickle_by_value(module)


def parse(spec: str, game: str) -> Agent:
    """An agent from a spec string ``name[:key=value[:key=value ...]]``."""
    if not isinstance(spec, str):
        raise TypeError(f"an agent is a spec such as 'greedy' or 'sniper:milk=4', got {spec!r}")
    name, texts = spec_pairs(spec)
    chosen = family(game, name)
    values = {
        key: text if _is_file(chosen, key) else _number(text, key, spec)
        for key, text in texts.items()
    }
    return chosen(**values)


def spec_name(spec: str) -> str:
    """A spec's agent name: what comes before its first ``:`` (``"ismcts"`` of
    ``"ismcts:iters=400"``), whatever its pairs hold."""
    return spec.strip().split(":")[0]


def spec_pairs(spec: str) -> tuple[str, dict[str, str]]:
    """A spec's name and the text of each ``key=value`` pair (keys and values stripped); a
    one-line ValueError for a pair without ``=`` or a key given twice."""
    texts = {}
    for pair in spec.strip().split(":")[1:]:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"agent parameter {pair!r} in {spec!r} must look like key=value")
        key = key.strip()
        if key in texts:
            raise ValueError(f"agent parameter {key!r} is given twice in {spec!r}")
        texts[key] = value.strip()
    return spec_name(spec), texts


def _is_file(chosen: Family, key: str) -> bool:
    """``net=FILE`` names the network file of a family that reads one, ``table=FILE`` the
    table of a family that plays from one."""
    if key == "table":
        return chosen.table is not None
    return key == "net" and chosen.n_features is not None


def parse_list(specs, game: str) -> list[Agent]:
    """Agents from a comma-separated string or a list of specs (or agents)."""
    return [s if isinstance(s, Agent) else parse(s, game) for s in spec_list(specs)]


def spec_list(specs) -> list:
    """Specs as a list: a comma-separated string split (blank items dropped), a sequence as
    it is."""
    if isinstance(specs, str):
        return [s.strip() for s in specs.split(",") if s.strip()]
    return list(specs)


def param_table(agents: list[Agent], players: int | None = None) -> np.ndarray:
    """One ``MAX_PARAMS`` row per seat (``players``: the table's size, for agents that read a
    network trained for it)."""
    return np.stack([a.param_row(players) for a in agents])


def _table(game: str) -> dict[str, Family]:
    """The game's families, its built-ins registered on first use."""
    if game not in _FAMILIES:
        _FAMILIES[game] = {f.name: f for f in roster(game).builtins}
    return _FAMILIES[game]


def _reduce(family: Family):
    """Pickle a built-in by name, a user family by its definition (module docstring)."""
    package = GAMES.get(family.game)
    if family.builtin:
        return (_builtin_family, (family.game, family.name, package))
    decide = getattr(family.decide, "py_func", family.decide)
    definition = (family.game, family.name, decide, family.defaults, family.ranges, family.doc)
    return (_user_family, (*definition, family.compiled, family.source, package))


def _known(game: str, package: str | None) -> None:
    """Register a game that this (worker) process has not heard of."""
    if package is not None and game not in GAMES:
        register_game(game, package)


def _builtin_family(game: str, name: str, package: str | None = None) -> Family:
    _known(game, package)
    return family(game, name)


def _user_family(game, name, decide, defaults, ranges, doc, compiled, source, package=None):
    _known(game, package)
    return redefine(game, name, decide, defaults, ranges, doc, compiled, source)


copyreg.pickle(Family, _reduce)


def _compile(fn):
    if isinstance(fn, CPUDispatcher):
        fn = fn.py_func
    _check_callable(fn)
    return njit(boundscheck=True)(fn)


def _check_callable(fn) -> None:
    if not callable(fn):
        raise ValueError("decide must be a function decide(obs, params, rng) -> action")


_LATER = [False]  # set by compiling_later()


@contextlib.contextmanager
def compiling_later():
    """Within it, :func:`define` compiles no entry (``Family.entry`` compiles it on first
    use): an isolated agent's process loads a module of many agents and compiles only the
    one it plays (``agents.isolation.child``)."""
    _LATER[0] = True
    try:
        yield
    finally:
        _LATER[0] = False


def _entry(decide, obs_size: int):
    """The loop entry, compiled now, so that a bad agent fails at definition with one line."""
    if _LATER[0]:
        return pointer_entry(decide, obs_size, lazy=True)
    try:
        entry = pointer_entry(decide, obs_size)
    except Exception as error:  # Numba raises many kinds of typing errors
        raise ValueError(
            f"decide does not compile as decide(obs, params, rng): {numba_reason(error)}"
        ) from None
    check_action_type(decide)
    return entry


def numba_reason(error: Exception) -> str:
    """Numba's own explanation of a compile failure (``Untyped global name 'table': ...``),
    without the pipeline step, the source excerpt and the traceback lines around it."""
    noise = ("Failed in ", "During:", "File ", "Enable logging", ">>>", "^", "<source", "- ")
    lines = [line.strip() for line in str(error).splitlines()]
    useful = [line for line in lines if line and not line.startswith(noise)]
    return useful[0] if useful else lines[0]


def _number(text: str, key: str, spec: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"parameter {key!r} in {spec!r} must be a number, got {text!r}") from None
    return value

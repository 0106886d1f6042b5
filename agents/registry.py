"""The registry of agent families per game, and spec strings such as ``greedy:T=-3``.

Each game's built-in families live in ``agents/<game>/`` (one module per family) and register
themselves when that package is imported; :func:`define` adds a family from a notebook or
script.
"""

import importlib
import math

import numpy as np
from numba import njit
from numba.core.registry import CPUDispatcher

from agents.base import GAMES, Agent, Family
from giftsim.contract import pointer_entry

_FAMILIES: dict[str, dict[str, Family]] = {game: {} for game in GAMES}
_BUILTIN: dict[str, set[str]] = {game: set() for game in GAMES}


def register(family: Family, builtin: bool = False) -> Family:
    """Add a family under its name (a built-in name cannot be taken twice)."""
    table = _FAMILIES[family.game]
    if family.name in _BUILTIN[family.game]:
        raise ValueError(f"{family.name!r} is a built-in {family.game} agent; choose another name")
    table[family.name] = family
    if builtin:
        _BUILTIN[family.game].add(family.name)
    return family


def define(game: str, name: str, decide, defaults=None, doc: str | None = None) -> Family:
    """Register a user-defined agent family and return it.

    ``decide(obs, params, rng) -> action`` is a plain function written in Numba's subset of
    Python, or an ``@njit`` one; it gets a pointer entry like the built-ins' and then runs
    inside the compiled game loop exactly as they do. Redefining a user name replaces it.
    """
    package = _load(game)
    decide = _compile(decide)
    entry = _entry(decide, package.OBS_SIZE)
    doc = doc or decide.__doc__ or ""
    return register(Family(name, game, decide, entry, dict(defaults or {}), doc))


def families(game: str) -> list[Family]:
    """All families of a game, built-ins first."""
    _load(game)
    return list(_FAMILIES[game].values())


def builtins(game: str) -> list[Family]:
    """The game's built-in families (those of ``agents/<game>/``), without user-defined ones."""
    return [f for f in families(game) if f.name in _BUILTIN[game]]


def parse(spec: str, game: str) -> Agent:
    """An agent from a spec string ``name[:key=value[:key=value ...]]``."""
    table = {f.name: f for f in families(game)}
    name, *pairs = spec.strip().split(":")
    if name not in table:
        raise ValueError(f"unknown agent {name!r} for {game} (valid: {', '.join(table)})")
    values = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise ValueError(f"agent parameter {pair!r} in {spec!r} must look like key=value")
        values[key.strip()] = _number(value, key, spec)
    return table[name](**values)


def parse_list(specs, game: str) -> list[Agent]:
    """Agents from a comma-separated string or a list of specs (or agents)."""
    if isinstance(specs, str):
        specs = [s for s in specs.split(",") if s.strip()]
    return [s if isinstance(s, Agent) else parse(s, game) for s in specs]


def param_table(agents: list[Agent]) -> np.ndarray:
    """One ``MAX_PARAMS`` row per seat."""
    return np.stack([a.param_row() for a in agents])


def _compile(fn):
    if isinstance(fn, CPUDispatcher):
        return fn
    if not callable(fn):
        raise ValueError("decide must be a function decide(obs, params, rng) -> action")
    return njit(fn)


def _entry(decide, obs_size: int):
    """The loop entry, compiled now, so that a bad agent fails at definition with one line."""
    try:
        return pointer_entry(decide, obs_size)
    except Exception as error:  # Numba raises many kinds of typing errors
        first = str(error).strip().splitlines()[0]
        raise ValueError(f"decide does not compile as decide(obs, params, rng): {first}") from None


def _number(text: str, key: str, spec: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"parameter {key!r} in {spec!r} must be a number, got {text!r}") from None
    if not math.isfinite(value):  # nan and inf reach no decision rule sensibly
        raise ValueError(f"parameter {key!r} in {spec!r} must be a finite number, got {text!r}")
    return value


def _load(game: str):
    """The game's agent package (importing it registers the built-ins)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r} (valid: {', '.join(GAMES)})")
    return importlib.import_module(f"agents.{game}")

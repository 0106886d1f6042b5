"""The registry of agent families per game, and spec strings such as ``greedy:T=-3``.

Built-in families get kind ids ``0 .. n_builtin-1`` (the order of the game's compiled switch);
families defined by users get the ids after them, in the order they were defined.
"""

import numpy as np
from numba import njit
from numba.core.registry import CPUDispatcher

from agents.base import GAMES, Agent, Family
from giftsim.contract import DECIDE_SIG

_FAMILIES: dict[str, dict[str, Family]] = {game: {} for game in GAMES}
_BUILTIN_COUNT: dict[str, int] = {game: 0 for game in GAMES}


def register(family: Family, builtin: bool = False) -> Family:
    """Add a family; built-ins must be registered first, in their switch order."""
    table = _FAMILIES[family.game]
    if family.name in table:
        raise ValueError(f"an agent named {family.name!r} already exists for {family.game}")
    if builtin and len(table) != _BUILTIN_COUNT[family.game]:
        raise RuntimeError("built-in agents are registered before any user agent")
    table[family.name] = family
    if builtin:
        _BUILTIN_COUNT[family.game] += 1
    return family


def define(game: str, name: str, decide, defaults=None, doc: str | None = None) -> Family:
    """Register a user-defined agent family and return it.

    ``decide(obs, params, rng) -> action`` is a plain function written in Numba's subset of
    Python, or an ``@njit`` one; it is compiled with the agent signature and then runs inside
    the compiled game loop exactly as the built-ins do. Redefining a name replaces a user family.
    """
    _load(game)
    decide = as_decider(decide)
    table = _FAMILIES[game]
    if name in table and kind_of(table[name]) < _BUILTIN_COUNT[game]:
        raise ValueError(f"{name!r} is a built-in agent; choose another name")
    family = Family(name, game, decide, dict(defaults or {}), doc or decide.__doc__ or "")
    table.pop(name, None)
    return register(family)


def as_decider(fn):
    """``fn`` compiled with the agent signature ``giftsim.contract.DECIDE_SIG``."""
    if isinstance(fn, CPUDispatcher):
        if DECIDE_SIG.args in [tuple(sig) for sig in fn.signatures]:
            return fn
        fn = fn.py_func
    if not callable(fn):
        raise ValueError("decide must be a function decide(obs, params, rng) -> action")
    try:
        return njit(DECIDE_SIG)(fn)
    except Exception as error:  # Numba raises many kinds of typing errors
        first = str(error).strip().splitlines()[0]
        raise ValueError(f"decide does not compile as decide(obs, params, rng): {first}") from None


def families(game: str) -> list[Family]:
    """All families of a game, built-ins first."""
    _load(game)
    return list(_FAMILIES[game].values())


def kind_of(family: Family) -> int:
    """Kind id of a family: its position in the registry."""
    return list(_FAMILIES[family.game]).index(family.name)


def builtin_count(game: str) -> int:
    _load(game)
    return _BUILTIN_COUNT[game]


def user_deciders(game: str) -> tuple:
    """Decision functions of the user-defined families, in kind order."""
    return tuple(f.decide for f in families(game)[builtin_count(game) :])


def parse(spec: str, game: str) -> Agent:
    """An agent from a spec string ``name[:key=value[:key=value ...]]``."""
    _check_game(game)
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
    return np.stack([a.param_row() for a in agents])


def _number(text: str, key: str, spec: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"parameter {key!r} in {spec!r} must be a number, got {text!r}") from None


def _check_game(game: str) -> None:
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r} (valid: {', '.join(GAMES)})")


def _load(game: str) -> None:
    """Import the game's built-in families (they register themselves)."""
    _check_game(game)
    if game == "geschenkt":
        import agents.geschenkt  # noqa: F401

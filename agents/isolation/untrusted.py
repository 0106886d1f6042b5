"""Untrusted modules: agent files whose code never runs in this process.

``--agents-module FILE.py`` imports a file here, in the game's process: its code is trusted.
:func:`load_untrusted` instead reads the file's text and has a child of its own
(``agents.isolation.child``, describe mode) import it and report the families it defines;
each is registered here as an :class:`UntrustedFamily`, which carries the module's source but
no code: it can be named, parsed and scheduled like any family, and it plays only isolated
(a process of its own per seat, which imports the source again). It travels to worker
processes by its description and source, never by its code.
"""

import copyreg
from dataclasses import dataclass
from pathlib import Path

from agents.base import Choice, Family, Range
from agents.isolation import MEMORY_MB


@dataclass(frozen=True)
class UntrustedFamily(Family):
    """A family of an untrusted module: its description, and ``module`` = (file name, source
    text) for the processes that play it."""

    module: tuple[str, str] = ("", "")

    @property
    def untrusted(self) -> bool:
        return True

    def entry(self):
        raise ValueError(f"agent {self.name!r} is untrusted: it plays only isolated")


def describe(family: Family) -> dict:
    """A family as plain data (what a child reports of a module it imported)."""
    return {
        "game": family.game,
        "name": family.name,
        "defaults": dict(family.defaults),
        "ranges": {key: _range_data(valid) for key, valid in family.ranges.items()},
        "doc": family.doc or "",
        "compiled": bool(family.compiled),
    }


def _range_data(valid) -> list:
    if isinstance(valid, Choice):
        return ["choice", [float(v) for v in valid.values]]
    return ["range", float(valid.low), float(valid.high), bool(valid.integer)]


def _range_of(data) -> object:
    if data[0] == "choice":
        return Choice(tuple(float(v) for v in data[1]))
    return Range(float(data[1]), float(data[2]), bool(data[3]))


def family_of(data: dict, module: tuple[str, str]) -> UntrustedFamily:
    """The :class:`UntrustedFamily` of a description (checked as any family's is)."""
    defaults = {str(k): float(v) for k, v in dict(data["defaults"]).items()}
    ranges = {str(k): _range_of(v) for k, v in dict(data["ranges"]).items()}
    return UntrustedFamily(
        str(data["name"]),
        str(data["game"]),
        None,
        None,
        defaults,
        ranges,
        str(data["doc"]),
        builtin=False,
        compiled=bool(data["compiled"]),
        source=module[0],
        module=module,
    )


def load_untrusted(path, memory_mb: int = MEMORY_MB) -> list[Family]:
    """Register the agents of the untrusted file ``path`` (imported only in a child of its
    own) and return them; a one-line ValueError if the file cannot be read or imported (its
    process is asked once per process for the same text: ``host.describe``)."""
    from agents.isolation.host import describe as ask
    from agents.isolation.protocol import printable
    from agents.registry import register, source_file
    from giftsim.game import GAMES

    path = Path(path)
    if path.suffix != ".py" or not path.is_file():
        raise ValueError(f"untrusted module {str(path)!r}: no such .py file")
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"untrusted module {str(path)!r}: {error}") from None
    module = (path.name, text)
    described = ask(path.name, text, memory_mb)
    try:  # the description is the module's process's word: anything may come back
        found = [family_of(data, module) for data in described]
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
        why = printable(str(error).splitlines()[0] if str(error) else type(error).__name__)
        raise ValueError(
            f"untrusted module {str(path)!r}: its process described its agents wrongly "
            f"({type(error).__name__}: {why})"
        ) from None
    if not found:
        raise ValueError(f"untrusted module {str(path)!r} defines no agent")
    origin = str(path.resolve())
    for family in found:
        other = source_file(family.game, family.name)
        if other and other != origin:  # an --agents-module's: which one plays is not a guess
            raise ValueError(
                f"untrusted module {str(path)!r} defines {family.game} agent {family.name!r}, "
                f"which {other} defined already; rename one of them"
            )
    return [register(family, origin) for family in found if family.game in GAMES]


def _rebuild(data: dict, module: tuple[str, str], package: str | None) -> Family:
    """An untrusted family in a worker process: registered there from its description."""
    from agents.registry import _known, _table, register

    _known(data["game"], package)
    made = family_of(data, module)
    known = _table(made.game).get(made.name)
    return known if known == made else register(made)


def _reduce(family: UntrustedFamily):
    from giftsim.game import GAMES

    return (_rebuild, (describe(family), family.module, GAMES.get(family.game)))


copyreg.pickle(UntrustedFamily, _reduce)

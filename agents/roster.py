"""The agents half of a game as one record, beside its ``Game`` record: a :class:`Roster`.

Each game's agents package (``Game.agents``, e.g. ``agents/geschenkt/``) exports ``ROSTER``:
its hand-written families, the default parameters of the search families its drivers make
from the templates (``agents/templates/``), its search verbs (``worlds``) and network
features (``learned``), where its shipped networks are, and the settings the generic studies
read for it (``bench``, the strength ladder, ``make demo``, ``giftsim gauntlet``).
:func:`roster` is the one place that goes from a game's name to its agents; everything else
reads fields.
"""

import importlib
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from agents.base import Family
from agents.drivers.generate import NET_LEAF, driver
from agents.kernels import net
from giftsim.game import load_game

SEARCHES = ("flatmc", "ismcts", "flatmc_net", "ismcts_net")  # the search drivers' families


@dataclass(frozen=True)
class Bench:
    """What ``giftsim bench`` times for a game: ``mixes`` (one agent in every seat) at each of
    ``players``, the search agents at ``search_players`` on the positions of games of
    ``search_field`` (0 and "" for a game without search agents), and the vector environment
    at ``vector`` (players, the opponents' spec)."""

    mixes: tuple[str, ...]
    players: tuple[int, ...]
    search_players: int
    search_field: str
    vector: tuple[int, str] = (4, "greedy")


@dataclass(frozen=True)
class Ladder:
    """A game's strength ladder: ``rungs`` weakest first and ``branches`` (lower, upper) off
    the chain, ``{n}`` standing for the player count, at each of ``players``."""

    rungs: tuple[str, ...]
    branches: tuple[tuple[str, str], ...]
    players: tuple[int, ...]


@dataclass(frozen=True)
class Gauntlet:
    """What ``giftsim gauntlet`` plays for a game by default: each of ``agents`` against each
    of ``fields`` at each of ``players`` (``{n}`` standing for the player count). A field is
    a name and the pool of agents that fills a table's other seats, every member of the pool
    holding the same share of them (``experiments.gauntlet``); an empty pool is the agent's
    own copies (a mirror)."""

    agents: tuple[str, ...]
    fields: dict[str, tuple[str, ...]]
    players: tuple[int, ...]


@dataclass(frozen=True)
class Study:
    """A study of ``make demo``: a ``design`` of ``agents`` at each of ``players``, ``games``
    per seating at full scale."""

    design: str
    agents: tuple[str, ...]
    players: tuple[int, ...]
    games: int


@dataclass(frozen=True)
class Roster:
    """One game's agents (see the module docstring)."""

    game: str
    families: tuple[Family, ...]  # the hand-written built-ins, tuned and learned ones included
    search: dict[str, dict[str, float]]  # a search driver's defaults, by family name
    worlds: object  # module: the search verbs (agents/templates/game.py), or None
    learned: object  # module: the network's features and afterstates, or None
    nets: Path | None  # folder of the shipped networks, ``<players>p.npz`` (and ``.json``)
    bench: Bench
    ladder: Ladder
    demo: dict[str, Study] = field(default_factory=dict)  # by study name
    lineup: tuple[str, ...] = ()  # a varied table of agents, for examples and checks
    gauntlet: Gauntlet | None = None  # giftsim gauntlet's defaults (none: name them)

    @cached_property
    def builtins(self) -> tuple[Family, ...]:
        """Every built-in family: the hand-written ones, then the searches (instantiated from
        the templates for this game)."""
        return (*self.families, *(self._search(name) for name in self.search))

    def shipped(self, players: int) -> Path:
        """The shipped network for ``players`` seats, or a one-line ValueError."""
        return net.shipped(self.nets, self.game, players)

    def driver(self, kind: str, hook: str | None = None):
        """The compiled driver ``kind`` of this game (``agents.drivers.generate``)."""
        return driver(self.game, kind, hook)

    def _search(self, name: str) -> Family:
        module = self.driver(name)
        defaults = self.search[name]
        ranges = module.ranges()
        if tuple(defaults) != tuple(ranges):
            raise ValueError(f"{self.game} {name}: defaults must set {tuple(ranges)} in order")
        policies = ", ".join(f"{i} {p}" for i, p in enumerate(self.policies(name)))
        rule = module.decide.__doc__.rstrip()
        reads_net = name in NET_LEAF
        if reads_net:  # one docstring for both: say first which this is
            lead = f"``{NET_LEAF[name]}`` with the learned network's value (``{name}`` below)."
            rule = f"{lead}\n\n{rule}"
        else:  # the template's docstring ends with its network family's paragraphs
            rule = re.split(rf"\n\s*\n\s*``{name}_net``:", rule)[0]
        doc = f"{rule}\n\n    Default policies: {policies}.\n"
        return Family(
            name,
            self.game,
            module.decide,
            module.decider,
            defaults,
            ranges,
            doc,
            builtin=True,
            n_features=self.learned.n_features if reads_net else None,
            nets=self.nets if reads_net else None,
        )

    def policies(self, name: str) -> tuple[str, ...]:
        """The default policies of the search family ``name``'s playouts, by number."""
        return tuple(self.driver(name).PLAYOUT_POLICIES)


def roster(game: str) -> Roster:
    """The :class:`Roster` of a game of ``giftsim.game.GAMES`` (its agents package's
    ``ROSTER``), or a ValueError listing the games."""
    return importlib.import_module(load_game(game).agents).ROSTER

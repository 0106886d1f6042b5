"""Agent families and configured agents (a family with parameter values).

A family is a docstring, a name, named parameters (each with a default and a valid range or set)
and one decision function ``decide(obs, params, rng) -> action`` (``giftsim.contract``). A
built-in family's module declares ``PARAMS`` (defaults, in slot order) and ``RANGES`` (what each
parameter may be); its entry for the compiled loop is generated from ``decide``
(``agents/templates/entry.py``), or is the module's own lazily compiled ``decider`` where
``decide`` needs work space (the ``learned`` families). Nothing is compiled until a family first
plays, so importing the agents compiles nothing.
"""

import math
import operator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents.drivers.generate import entry
from agents.kernels import net
from agents.kernels.search import MAX_ITERS, SEARCH_PARAMS
from giftsim.contract import DECIDER_SIG, MAX_PARAMS, check_action_type, read_only


@dataclass(frozen=True)
class Range:
    """A parameter's valid values: a closed interval, whole numbers only if ``integer``."""

    low: float
    high: float
    integer: bool = False

    def check(self, value: float) -> bool:
        inside = math.isfinite(value) and self.low <= value <= self.high
        return inside and (not self.integer or float(value).is_integer())

    def __str__(self) -> str:
        kind = "a whole number" if self.integer else "a number"
        if math.isinf(self.low) and math.isinf(self.high):
            return f"any finite {kind.removeprefix('a ')}"
        return f"{kind} in [{_fmt(self.low)}, {_fmt(self.high)}]"


@dataclass(frozen=True)
class Choice:
    """A parameter's valid values: one of a few numbers (a policy id, a switch)."""

    values: tuple[float, ...]

    def check(self, value: float) -> bool:
        return value in self.values

    def __str__(self) -> str:
        return "one of " + ", ".join(_fmt(v) for v in self.values)


ANY = Range(-math.inf, math.inf)  # a weight with no natural bound: any finite number


@dataclass(frozen=True)
class Family:
    """A named decision function with named float parameters, their defaults and ranges.

    ``decide`` is ``decide(obs, params, rng) -> action`` over arrays (Numba-compiled, or plain
    Python when ``compiled`` is False: such a family plays through the slow path only);
    ``probabilities`` (optional, compiled) the probability ``decide`` gives each action
    (``giftsim.contract.PROBS_SIG``), where it is known;
    ``decider`` its entry for the compiled loop (:meth:`entry` compiles it on first use);
    ``params[i]`` is the value of the i-th name of ``defaults``. ``doc`` is the rule the agent
    follows; ``source`` where it came from (a module, for user families to be found again in
    worker processes).
    """

    name: str
    game: str
    decide: object
    decider: object
    defaults: dict[str, float] = field(default_factory=dict)
    ranges: dict[str, object] = field(default_factory=dict)
    doc: str = ""
    builtin: bool = False
    compiled: bool = True
    source: str = ""
    n_features: object = None  # features(players) of the network it reads, if it reads one
    nets: Path | None = None  # where the shipped networks it reads are (``<players>p.npz``)
    # load_table(path, players, rules=None) -> int64 array, for a family that plays from a
    # table file it must be given (``table=FILE``): the array's address rides in NET_SLOT
    table: object = None
    probabilities: object = None  # its action probabilities, if known (contract.PROBS_SIG)
    # its entry is generated from ``decide`` alone (``agents/templates/entry.py``), so a table
    # of this family alone plays in the loop that calls it directly (``block._loop``)
    plain_entry: bool = False

    def __post_init__(self) -> None:
        if len(self.defaults) > MAX_PARAMS:
            raise ValueError(f"an agent has at most {MAX_PARAMS} parameters")
        if (self.n_features or self.table) and len(self.defaults) > net.NET_SLOT:
            raise ValueError(
                f"agent {self.name!r} reads a network, whose address takes parameter slot "
                f"{net.NET_SLOT}: it has at most {net.NET_SLOT} parameters"
            )
        if not self.name.isidentifier():
            raise ValueError(f"agent names are identifiers, got {self.name!r}")
        missing = [k for k in self.defaults if k not in self.ranges]
        if missing:
            raise ValueError(f"agent {self.name!r}: parameter {missing[0]!r} has no range")
        self.check(dict(self.defaults), "default ")

    @classmethod
    def of_module(cls, name: str, game: str, module, nets: Path | None = None) -> "Family":
        """A built-in family from its module's ``decide``, ``PARAMS``, ``RANGES`` (and
        ``n_features`` if it reads a network, shipped in ``nets``); its entry for the compiled
        loop is the module's ``decider`` if it has one (to give ``decide`` work space), else
        generated (``agents/templates/entry.py``)."""
        own = getattr(module, "decider", None)
        return cls(
            name,
            game,
            module.decide,
            own or entry(game, module.__name__),
            module.PARAMS,
            module.RANGES,
            module.decide.__doc__,
            builtin=True,
            n_features=getattr(module, "n_features", None),
            nets=nets,
            table=getattr(module, "load_table", None),
            probabilities=getattr(module, "probabilities", None),
            plain_entry=own is None,
        )

    def check(self, values: dict[str, float], what: str = "") -> None:
        """Raise a one-line ValueError for a value outside its parameter's range."""
        for key, value in values.items():
            valid = self.ranges[key]
            if not valid.check(value):
                raise ValueError(
                    f"agent {self.name!r}: {what}parameter {key}={_fmt(value)} is out of range "
                    f"(valid: {valid})"
                )

    def __call__(self, **values) -> "Agent":
        """This family with some parameters changed, e.g. ``GREEDY(T=-3)``; a family that
        reads a network also takes ``net=FILE`` (default: the shipped network), one that
        plays from a table ``table=FILE`` (no default)."""
        path = self._network_file(values.pop("net", None)) if self.n_features else ""
        if self.table:
            path = self._table_file(values.pop("table", ""))
        unknown = sorted(set(values) - set(self.defaults))
        if unknown:
            files = ["net=FILE"] * bool(self.n_features) + ["table=FILE"] * bool(self.table)
            valid = ", ".join([*self.defaults, *files]) or "none"
            raise ValueError(
                f"agent {self.name!r} has no parameter {unknown[0]!r} (valid: {valid})"
            )
        given = {k: float(v) for k, v in values.items()}
        self.check(given)
        merged = {**self.defaults, **given}
        return Agent(self, tuple(merged.values()), path)

    def _table_file(self, given) -> str:
        """The absolute path of ``table=FILE``, which a family that plays from a table needs."""
        if not str(given).strip():
            raise ValueError(
                f"agent {self.name!r} needs table=FILE (a policy table written by giftsim solve "
                "--out)"
            )
        return str(Path(str(given).strip()).expanduser().resolve())

    def _network_file(self, given) -> str:
        """The absolute path of ``net=FILE`` (a worker process may not share this process's
        folder), checked to be a network of this game; "" without one (the shipped network)."""
        if given is None:
            return ""
        text = str(given).strip()
        if not text:
            raise ValueError(
                f"agent {self.name!r}: net= names no file (leave net out for the shipped network)"
            )
        path = str(Path(text).expanduser().resolve())
        net.check_file(path, self.game)
        return path

    def tuned(self, name: str, defaults: dict[str, float]) -> "Family":
        """The same rule under another name with tuned defaults (``tuned4p``: for 4 players)."""
        players = name.removeprefix("tuned").removesuffix("p")
        doc = f"``{self.name}`` tuned for {players} players (``giftsim tune``).\n\n{self.doc}"
        ordered = self(**defaults).params  # checks the names and ranges; keeps the slots' order
        if set(defaults) != set(ordered):
            raise ValueError(f"{name} must set every parameter of {self.name}")
        return Family(
            name,
            self.game,
            self.decide,
            self.decider,
            ordered,
            self.ranges,
            doc,
            self.builtin,
            n_features=self.n_features,
            nets=self.nets,
            probabilities=self.probabilities,
            plain_entry=self.plain_entry,
        )

    def entry(self):
        """The compiled loop's entry, compiled (or loaded from the cache) on first use."""
        if not self.compiled:
            raise ValueError(f"agent {self.name!r} is plain Python: it plays in the slow path")
        if not self.decider.signatures:
            self.decider.compile(DECIDER_SIG)
            self.decider.disable_compile()
            check_action_type(self.decide)
        return self.decider

    def ask(self, obs: np.ndarray, params: np.ndarray, rng: np.ndarray) -> int:
        """One decision called from Python (the slow path, the environments, ``bench``): a
        compiled ``decide`` gets its arrays typed as its loop entry gives them (a built-in's
        observation and every parameter row read-only, a user agent's observation its own
        copy), so the call runs the specialisation the entry compiled or Numba cached instead
        of compiling ``decide`` a second time for writable arrays (3-18 s for a search agent;
        a ``learned`` entry calls the network's code, not ``decide``: its small ``decide``
        compiles once, for read-only arrays). A plain-Python ``decide`` gets the arrays as
        given."""
        if not self.compiled:
            return _action_id(self.decide(obs, params, rng), self.name)
        if self.builtin:
            obs = read_only(obs)
        return int(self.decide(obs, read_only(params), rng))

    @property
    def summary(self) -> str:
        """The rule's first sentence (the docstring's opening, on one line)."""
        words = " ".join((self.doc or "").split())
        head, dot, _ = words.partition(". ")
        return head + "." if dot else head


def _action_id(answer, name: str) -> int:
    """A plain-Python ``decide``'s answer as an action id; a float or anything else that is
    not a whole number is refused (``int`` would truncate 0.7 to 0), as a compiled one is
    (``giftsim.contract.check_action_type``)."""
    try:
        return operator.index(answer)
    except TypeError:
        raise ValueError(
            f"agent {name!r} answered {answer!r}, not a whole number: an action is an int "
            "(return int(...) of a computed action)"
        ) from None


@dataclass(frozen=True)
class Agent:
    """A family with one value per parameter; ``spec`` names it on the command line."""

    family: Family
    values: tuple[float, ...]
    file: str = ""  # the file its spec names: a network (net=; "": the shipped one) or a table

    @property
    def name(self) -> str:
        return self.family.name

    @property
    def params(self) -> dict[str, float]:
        return dict(zip(self.family.defaults, self.values, strict=True))

    @property
    def spec(self) -> str:
        """Spec string: the name, then ``:key=value`` for every non-default parameter."""
        changed = [
            f"{k}={_fmt(v)}"
            for (k, d), v in zip(self.family.defaults.items(), self.values, strict=True)
            if v != d
        ]
        if self.file:
            changed.append(f"{'table' if self.family.table else 'net'}={self.file}")
        return ":".join([self.name, *changed])

    def param_row(self, players: int | None = None) -> np.ndarray:
        """The ``MAX_PARAMS`` float64 parameter vector the decision function reads; for a
        family that reads a network, slot ``NET_SLOT`` holds the address of its network for
        ``players`` seats, loaded in this process."""
        row = np.zeros(MAX_PARAMS, np.float64)
        row[: len(self.values)] = self.values
        if self.family.n_features:
            row[net.NET_SLOT] = net.address_of(self.network(players))
        if self.family.table:
            row[net.NET_SLOT] = net.address_of(self.family.table(self.file, players))
        return row

    def check_rules(self, rules) -> None:
        """Raise a one-line ValueError if this agent cannot play under ``rules``: a table
        solved for another variant, a network trained for another player count or game."""
        if self.family.table:
            self.family.table(self.file, rules.n_players, rules)
        if self.family.n_features:
            self.network(rules.n_players)

    def network(self, players: int | None) -> np.ndarray:
        """The packed network this agent reads at ``players`` seats (a one-line ValueError when
        there is none, or it was trained for another game or player count)."""
        if players is None:
            raise ValueError(f"agent {self.name!r} needs the player count to find its network")
        game, size = self.family.game, self.family.n_features(players)
        path = self.file or net.shipped(self.family.nets, game, players)
        return net.load(path, game, players, size)

    def __str__(self) -> str:
        return self.spec


def _fmt(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() else repr(value)


def search_ranges(params: dict, n_policies: int) -> dict:
    """The valid values of a search agent's parameters (``params`` names a prefix of
    ``SEARCH_PARAMS``, in order; ``n_policies`` default policies)."""
    if tuple(params) != SEARCH_PARAMS[: len(params)]:
        raise ValueError(f"search parameters must be {SEARCH_PARAMS} in order")
    valid = {
        "iters": Range(1, MAX_ITERS, integer=True),
        "policy": Choice(tuple(float(p) for p in range(n_policies))),
        "margin": Range(0.0, 100.0),
        "explore": Range(0.0, 100.0),
        "expand": Range(0, MAX_ITERS, integer=True),
        "others": Choice((0.0, 1.0)),
    }
    return {key: valid[key] for key in params}


def agent_kernels(agents, slow: bool = False) -> dict:
    """The built-in agents' kernels (loop entries, or with ``slow`` decision functions) by
    label, with the seconds each takes to compile, for ``giftsim.notice.compiling``."""
    what = {}
    for agent in agents:
        if isinstance(agent, Agent) and agent.family.builtin:
            kernel = agent.family.decide if slow else agent.family.decider
            if hasattr(kernel, "signatures"):  # compiled (a plain Python decide is not)
                search = "iters" in agent.family.defaults
                what[f"agent {agent.name}"] = (kernel, 3.0 + 15.0 * search)
    return what

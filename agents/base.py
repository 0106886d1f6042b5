"""Agent families and configured agents (a family with parameter values)."""

from dataclasses import dataclass, field

import numpy as np

from giftsim.contract import MAX_PARAMS

GAMES = ("geschenkt", "tulips")


@dataclass(frozen=True)
class Family:
    """A named decision function with named float parameters and their defaults.

    ``decide`` is a Numba-compiled ``decide(obs, params, rng) -> action`` over arrays and
    ``decider`` its pointer entry for the compiled loop (``giftsim.contract``); ``params[i]`` is
    the value of the i-th name of ``defaults``. ``doc`` is the rule the agent follows.
    """

    name: str
    game: str
    decide: object
    decider: object
    defaults: dict[str, float] = field(default_factory=dict)
    doc: str = ""

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ValueError(f"game must be one of {', '.join(GAMES)}, got {self.game!r}")
        if len(self.defaults) > MAX_PARAMS:
            raise ValueError(f"an agent has at most {MAX_PARAMS} parameters")
        if not self.name.isidentifier():
            raise ValueError(f"agent names are identifiers, got {self.name!r}")

    @classmethod
    def of_module(cls, name: str, game: str, module) -> "Family":
        """A built-in family from its module's ``decide``, ``decider`` and ``PARAMS``."""
        return cls(name, game, module.decide, module.decider, module.PARAMS, module.decide.__doc__)

    def __call__(self, **values: float) -> "Agent":
        """This family with some parameters changed, e.g. ``GREEDY(T=-3)``."""
        unknown = sorted(set(values) - set(self.defaults))
        if unknown:
            valid = ", ".join(self.defaults) or "none"
            raise ValueError(
                f"agent {self.name!r} has no parameter {unknown[0]!r} (valid: {valid})"
            )
        merged = {**self.defaults, **{k: float(v) for k, v in values.items()}}
        return Agent(self, tuple(merged.values()))

    def tuned(self, name: str, defaults: dict[str, float]) -> "Family":
        """The same rule under another name with tuned defaults (``tuned4p``: for 4 players)."""
        players = name.removeprefix("tuned").removesuffix("p")
        doc = f"``{self.name}`` tuned for {players} players (``giftsim tune``).\n\n{self.doc}"
        ordered = self(**defaults).params  # checks the names; keeps the slots' order
        if set(defaults) != set(ordered):
            raise ValueError(f"{name} must set every parameter of {self.name}")
        return Family(name, self.game, self.decide, self.decider, ordered, doc)

    @property
    def summary(self) -> str:
        """First line of the docstring."""
        return (self.doc or "").strip().splitlines()[0] if self.doc else ""


@dataclass(frozen=True)
class Agent:
    """A family with one value per parameter; ``spec`` names it on the command line."""

    family: Family
    values: tuple[float, ...]

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
        return ":".join([self.name, *changed])

    def param_row(self) -> np.ndarray:
        """The ``MAX_PARAMS`` float64 parameter vector the decision function reads."""
        row = np.zeros(MAX_PARAMS, np.float64)
        row[: len(self.values)] = self.values
        return row

    def __str__(self) -> str:
        return self.spec


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))

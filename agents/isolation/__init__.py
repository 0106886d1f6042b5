"""Isolated agents: untrusted code in an OS process of its own, one per seat.

An agent in the game's own process is trusted code (``giftsim.contract``: the seal there
guards against mistakes, not against an author who wants to cheat). An *isolated* agent plays
from a child process (``agents.isolation.child``) started as a fresh interpreter (``python
-I``, a scrubbed environment, an empty temporary folder as its working directory, no file
descriptors but its own three): it gets the game's name, the agent (its spec, or the source
text of an untrusted module) and its limits, never the state, the run's secret, seeds, game
indices or records. For each decision the parent writes the seat's observation (a copy) and
the seat's random word into memory it shares with that child alone, and reads back the action
and the advanced word (``agents.isolation.protocol``). Since the word is the one the seat
would hold in the compiled loop, an isolated agent plays exactly the games it plays in
process, for the same (root seed, game index, rules, agents, secret).

Faults are results (:data:`FAULTS`): an agent that raises, crashes, hangs past the time limit
of a decision, exceeds its memory limit (its process's address space), or answers with an
illegal or non-integer action *forfeits* that game: the rest of the game its seat plays the
lowest legal action, it cannot win the game, the other seats' results stand, and its process
is restarted (fresh) before its next decision.

Before any of the agent's code runs, the child confines itself and all it forks with the
kernel's help (``agents.isolation.confine``, Linux Landlock): no file but the Python
installation, the system's, giftsim's and Numba's cache (read: the run loads code from the
cache, so a child may not write it) and its own folder (write, where it also generates its
own drivers); no other process's ``/proc`` folder (the run's command line holds ``--out`` and
``--secret``, the results folder's manifest the secret); no TCP; no signal to the run. The
parent also makes itself non-dumpable while children run (Linux), so that an unprivileged
child cannot ``ptrace`` it. What is left: the child runs as the same OS user, may start
processes of its own (one that leaves its session can outlive the run), and on a kernel
without Landlock is not confined at all; for a hostile bot add a container, a virtual machine
or an account of its own: nothing but observations and actions needs to cross the boundary.
"""

import functools
import math
import os
import sysconfig
import traceback
from dataclasses import asdict, dataclass

from giftsim.checks import is_whole

# Fault codes of a forfeit (``forfeit_<seat>`` result columns): index into FAULTS.
NO_FAULT, RAISED, CRASHED, TIMEOUT, MEMORY, ILLEGAL, NOT_INTEGER, NO_START = range(8)
FAULTS = (
    "",  # no forfeit
    "raised",  # decide raised an exception
    "crashed",  # the agent's process ended (a signal, a hard exit)
    "timeout",  # no answer within the time limit of a decision
    "memory",  # the agent ran out of its memory limit
    "illegal",  # an action that is not legal in the state
    "not an integer",  # an answer that is not a whole number
    "no start",  # the agent's process could not be (re)started
)


def explain(error: BaseException) -> str:
    """One line of what an agent's exception says: its type, the first line of its message,
    and where in the agent's own code it was raised (the innermost frame outside Python's
    installation and giftsim's packages: not Numba's dispatcher, not the server that called
    the agent), ``(file.py:line)``, where there is such a frame: ``ValueError (bot.py:12):
    no card``, the place before the message, which a long message may not push out of the
    line kept (``Block.say``)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if _agents_own(f.filename)]
    where = f" ({os.path.basename(frames[-1].filename)}:{frames[-1].lineno})" if frames else ""
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}{where}: {text[0] if text else ''}"  # a long text is cut


def _agents_own(filename: str) -> bool:
    """Whether a traceback's file is an agent's: not of Python's installation (its library,
    its frozen modules such as ``<frozen os>``, site-packages: Numba, NumPy) nor of giftsim's
    packages."""
    if filename.startswith("<frozen "):
        return False
    path = os.path.realpath(filename)
    return not any(path.startswith(place + os.sep) for place in _not_agents())


@functools.cache
def _not_agents() -> tuple[str, ...]:
    """The folders of Python's installation and of giftsim's packages, resolved."""
    import importlib.util

    from giftsim.game import GAMES

    places = [sysconfig.get_path(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")]
    for name in ("agents", "experiments", "giftsim", *GAMES.values()):
        spec = importlib.util.find_spec(name)
        places += list(spec.submodule_search_locations or []) if spec else []
    return tuple(os.path.realpath(place) for place in dict.fromkeys(places) if place)


TIME_LIMIT = 1.0  # default seconds per decision (wall clock, generous for a loaded machine)
MEMORY_MB = 1024  # default address space of an agent's process (a child idles at ~400 MB)
WARM_UP = 10.0  # default seconds a plain-Python agent's warm-up game may take (it compiles)
MAX_WARM_UP = 50.0  # the warm-up and the start's replay of it fit in the start's limit (120 s)


@dataclass(frozen=True)
class Isolation:
    """Which agents play isolated, and their limits.

    ``agents``: names of families whose seats each play from a process of their own (a family
    of an untrusted module, ``agents.isolation.untrusted``, always does); ``time_limit``:
    seconds of wall-clock time per decision; ``memory_mb``: the address space of each agent's
    process, in MiB; ``warm_up``: seconds (at most ``MAX_WARM_UP``) a plain-Python agent may
    take to play its warm-up game, once per process, before it plays under ``time_limit`` (its
    ``@njit`` helpers compile there; one whose game does not end in time plays without it,
    ``agents.isolation.child``; the warm-up counts in the start's limit, ``host.START_LIMIT``)."""

    agents: tuple[str, ...] = ()
    time_limit: float = TIME_LIMIT
    memory_mb: int = MEMORY_MB
    warm_up: float = WARM_UP

    def __post_init__(self) -> None:
        names = self.agents
        if isinstance(names, str) or not all(isinstance(name, str) for name in names):
            raise ValueError(f"agents must be family names, such as ('greedy',), got {names!r}")
        object.__setattr__(self, "agents", tuple(names))
        _check_seconds("the time limit", self.time_limit, math.inf)
        _check_seconds("the warm-up", self.warm_up, MAX_WARM_UP)
        memory = self.memory_mb
        if not is_whole(memory) or memory <= 0:
            raise ValueError(f"the memory limit must be a positive number of MiB, got {memory}")
        object.__setattr__(self, "memory_mb", int(memory))

    def as_dict(self) -> dict:
        """A plain dict (for a job and its manifest: the warm-up is among the limits that
        decide which games a plain-Python agent forfeits)."""
        return {**asdict(self), "agents": list(self.agents)}

    @classmethod
    def of(cls, value) -> "Isolation | None":
        """An Isolation from itself, a dict (``as_dict``) or None/empty (nothing isolated)."""
        if value is None or isinstance(value, Isolation):
            return value
        return cls(**value) if value else None

    def covers(self, family) -> bool:
        """Whether ``family``'s seats play isolated."""
        return bool(getattr(family, "untrusted", False)) or family.name in self.agents


def _check_seconds(what: str, value, most: float) -> None:
    """A one-line ValueError unless ``value`` is a number of seconds in (0, ``most``]."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if not number or not math.isfinite(value) or not 0 < value <= most:
        bound = f", at most {most:g}" if math.isfinite(most) else ""
        raise ValueError(f"{what} must be a positive number of seconds{bound}, got {value!r}")

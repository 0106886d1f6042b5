"""Opponents for the vector environment beyond agent specs: a network in giftsim's own format
held in memory, which a trainer updates in place between rollouts (self-play against the
network being trained, or a frozen snapshot of it).

A giftsim network (``agents/kernels/net.py``) values a seat's afterstate features; the built-in
families that read one (``learned``, ``flatmc_net``, ``ismcts_net``) find it through an address
in their parameter row, so compiled code reads whatever the array holds at each decision. A
:class:`LiveNetwork` owns such an array: ``VectorEnv(..., opponents=live)`` (or
``live.agent("flatmc_net", iters=300)``) plays it inside the compiled kernels at full speed,
and ``live.update(w1, b1, w2, b2)`` writes new weights into the same array, so the next
decision of every opponent uses them, with nothing rebuilt or recompiled::

    live = LiveNetwork.from_file("geschenkt", 4, "agents/geschenkt/nets/4p.npz")
    env = VectorEnv("geschenkt", 256, 4, "rotate", opponents=live)
    ...                                    # a rollout against the current weights
    live.update(w1, b1, w2, b2)            # the trainer's new weights, same shapes
"""

from dataclasses import dataclass

import numpy as np

from agents.base import Agent
from agents.kernels import net
from agents.registry import family
from agents.roster import roster
from experiments.envs.table import EnvError, bad_input, load


class LiveNetwork:
    """A network of ``game`` for ``players`` seats, packed in one float32 array that the
    opponents built by :meth:`agent` read at every decision (module docstring). ``w1`` is
    ``(hidden, features)``, ``b1`` and ``w2`` ``(hidden,)``, ``b2`` a number: the layout of
    ``agents.kernels.net``, features those of the game's ``learned`` agent."""

    def __init__(self, game: str, players: int, w1, b1, w2, b2):
        with bad_input():
            self.game, self.players = game, load(game).check_players(players, "players")
        self.flat = self._pack(w1, b1, w2, b2)

    @classmethod
    def from_file(cls, game: str, players: int, path) -> "LiveNetwork":
        """A live copy of a network file (``giftsim train``'s, or a shipped one)."""
        with bad_input():
            weights, _ = net.read(path)
        return cls(game, players, weights["w1"], weights["b1"], weights["w2"], weights["b2"])

    @property
    def n_features(self) -> int:
        return int(roster(self.game).learned.n_features(self.players))

    def update(self, w1, b1, w2, b2) -> None:
        """Write new weights into the array the opponents read (same shapes as before)."""
        packed = self._pack(w1, b1, w2, b2)
        if packed.shape != self.flat.shape:
            raise EnvError(
                f"update keeps the network's shape: {self.flat.size} packed floats, got "
                f"{packed.size} (hidden units {int(self.flat[net.HIDDEN])})"
            )
        self.flat[:] = packed

    def agent(self, name: str = "learned", **params) -> Agent:
        """An opponent of the family ``name`` (one that reads a network) with this network."""
        with bad_input():
            chosen = family(self.game, name)
            if not chosen.n_features:
                raise ValueError(f"agent {name!r} reads no network")
            base = chosen(**params)
        return LiveAgent(base.family, base.values, live=self)

    def _pack(self, w1, b1, w2, b2) -> np.ndarray:
        w1 = np.asarray(w1, np.float64)
        b1, w2 = np.asarray(b1, np.float64).ravel(), np.asarray(w2, np.float64).ravel()
        hidden = w1.shape[0] if w1.ndim == 2 else -1
        if w1.ndim != 2 or w1.shape[1] != self.n_features or {b1.size, w2.size} != {hidden}:
            raise EnvError(
                f"a {self.game} network for {self.players} players has w1 (hidden, "
                f"{self.n_features}), b1 and w2 (hidden,); got w1 {w1.shape}, b1 {b1.shape}, "
                f"w2 {w2.shape}"
            )
        if hidden > net.MAX_HIDDEN:
            raise EnvError(f"at most {net.MAX_HIDDEN} hidden units, got {hidden}")
        for name, weights in (("w1", w1), ("b1", b1), ("w2", w2), ("b2", np.float64(b2))):
            if not np.isfinite(weights).all():
                raise EnvError(f"a network's weights are finite numbers: {name} holds NaN or inf")
        return net.pack(w1, b1, w2, float(b2), self.players)


@dataclass(frozen=True, eq=False)
class LiveAgent(Agent):
    """An agent that reads a :class:`LiveNetwork` instead of a network file."""

    live: LiveNetwork | None = None

    @property
    def spec(self) -> str:
        return super().spec + ":net=live"

    def network(self, players: int | None) -> np.ndarray:
        if players != self.live.players:
            raise ValueError(f"the live network is for {self.live.players} players, not {players}")
        return self.live.flat

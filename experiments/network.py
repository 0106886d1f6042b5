"""The network ``giftsim train`` fits: a one-hidden-layer perceptron over standardised features,
trained with Adam on the logistic loss (plain NumPy; the compiled agents read it packed,
``agents.kernels.net``), and an ensemble of several played as one."""

from dataclasses import dataclass, field

import numpy as np

from experiments.targets import lambda_returns


@dataclass
class Network:
    """A network being trained: weights over standardised features, their scaling, and the
    optimiser's moments (``m``, ``v``) and step count."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    m: dict = field(default_factory=dict)
    v: dict = field(default_factory=dict)
    steps: int = 0

    NAMES = ("w1", "b1", "w2", "b2")

    @classmethod
    def new(cls, x: np.ndarray, hidden: int, rng: np.random.Generator) -> "Network":
        """He-initialised weights for features like ``x`` (whose mean and spread set the
        standardisation for the whole run)."""
        inputs = x.shape[1]
        mean, scale = x.mean(axis=0), x.std(axis=0)
        scale = np.where(scale > 1e-6, scale, 1.0)
        w1 = rng.normal(0.0, np.sqrt(2.0 / inputs), (hidden, inputs))
        w2 = rng.normal(0.0, np.sqrt(1.0 / hidden), hidden)
        return cls(w1, np.zeros(hidden), w2, np.zeros(()), mean, scale)

    @classmethod
    def warm(cls, folded: tuple, x: np.ndarray) -> "Network":
        """A network that starts where ``folded`` (``(w1, b1, w2, b2)`` over raw features, a
        network file's weights) is, re-expressed over features standardised like ``x``: the
        same values, so training continues from it."""
        w1, b1, w2, b2 = (np.asarray(a, np.float64) for a in folded)
        mean, scale = x.mean(axis=0), x.std(axis=0)
        scale = np.where(scale > 1e-6, scale, 1.0)
        return cls(w1 * scale, b1 + w1 @ mean, w2.copy(), np.asarray(float(b2)), mean, scale)

    def params(self) -> dict:
        return {k: getattr(self, k) for k in self.NAMES}

    def folded(self) -> tuple:
        """``(w1, b1, w2, b2)`` over raw features: the standardisation folded into layer 1."""
        w1 = self.w1 / self.scale
        b1 = self.b1 - w1 @ self.mean
        return w1, b1, self.w2.copy(), float(self.b2)

    def logits(self, x: np.ndarray) -> np.ndarray:
        hidden = np.maximum((x - self.mean) / self.scale @ self.w1.T + self.b1, 0.0)
        return hidden @ self.w2 + self.b2

    def values(self, xs: np.ndarray, chunk: int = 1 << 18) -> np.ndarray:
        """The network's win share of standardised features ``xs``, in chunks (float32)."""
        w1, b1 = self.w1.T.astype(np.float32), self.b1.astype(np.float32)
        w2, b2 = self.w2.astype(np.float32), np.float32(self.b2)
        out = np.empty(len(xs), np.float32)
        for start in range(0, len(xs), chunk):
            hidden = np.maximum(xs[start : start + chunk] @ w1 + b1, 0.0)
            out[start : start + chunk] = 1.0 / (1.0 + np.exp(-(hidden @ w2 + b2)))
        return out


def fit(network: Network, x, y, settings, rng, after=None, fresh=True) -> float:
    """Fit ``network`` to targets ``y`` (outcomes: shares of the win) with Adam on the
    logistic loss, ``settings.epochs`` passes in minibatches; returns the last pass's mean
    loss. With ``settings.lam < 1`` each pass (but the first of a ``fresh`` network) fits the
    TD(lambda) returns under the network as it stands (:func:`lambda_returns`; ``after`` is
    each row's successor, :func:`successors`)."""
    xs = ((x - network.mean) / network.scale).astype(np.float32)
    outcomes = y.astype(np.float32)
    loss = float("nan")
    for epoch in range(settings.epochs):
        y = outcomes
        if settings.lam < 1.0 and after is not None and (epoch or not fresh):
            y = lambda_returns(outcomes, network.values(xs), after, settings.lam)
        order = rng.permutation(len(xs))
        total = 0.0
        for start in range(0, len(xs), settings.batch):
            pick = order[start : start + settings.batch]
            total += _step(network, xs[pick], y[pick], settings.lr) * len(pick)
        loss = total / max(len(xs), 1)
    return loss


def _step(network: Network, x, y, lr, beta1=0.9, beta2=0.999, eps=1e-8) -> float:
    """One Adam step on a minibatch; returns its mean logistic loss."""
    pre = x @ network.w1.T.astype(np.float32) + network.b1.astype(np.float32)
    hidden = np.maximum(pre, 0.0)
    z = hidden @ network.w2.astype(np.float32) + np.float32(network.b2)
    p = 1.0 / (1.0 + np.exp(-z))
    dz = (p - y) / len(y)
    dh = np.outer(dz, network.w2) * (pre > 0)
    grads = {"w1": dh.T @ x, "b1": dh.sum(axis=0), "w2": hidden.T @ dz, "b2": dz.sum()}
    network.steps += 1
    t = network.steps
    for name, g in grads.items():
        g = np.asarray(g, np.float64)
        m = network.m.get(name, 0.0) * beta1 + (1 - beta1) * g
        v = network.v.get(name, 0.0) * beta2 + (1 - beta2) * g * g
        network.m[name], network.v[name] = m, v
        step = lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)
        setattr(network, name, getattr(network, name) - step)
    eps32 = 1e-7
    return float(-np.mean(y * np.log(p + eps32) + (1 - y) * np.log(1 - p + eps32)))


def ensemble(networks: list) -> tuple:
    """``(w1, b1, w2, b2)`` of one network whose output is the mean of the ``networks``'
    outputs: their hidden units side by side, the output weights divided by their number."""
    parts = [network.folded() for network in networks]
    w1 = np.concatenate([p[0] for p in parts])
    b1 = np.concatenate([p[1] for p in parts])
    w2 = np.concatenate([p[2] for p in parts]) / len(parts)
    return w1, b1, w2, float(np.mean([p[3] for p in parts]))

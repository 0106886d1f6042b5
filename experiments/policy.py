"""A trained policy as a giftsim agent: :func:`from_policy` turns any callable over the
observation tensor and the legal mask (a NumPy function, a torch module, a Stable-Baselines3
model) into an agent family that plays in tournaments, ``giftsim play`` and every other place
an agent spec goes, through the slow path (plain Python, ``agents/drivers/slow.py``)::

    from experiments.policy import from_policy

    model = MaskablePPO.load("ppo.zip")
    from_policy("geschenkt", "ppo", model, players=4, scale=True)
    # now "ppo" is an agent: experiments.batch.field("geschenkt", "ppo", "greedy", 4, 1000)

A module that makes that call is what ``giftsim tournament --agents-module FILE.py`` and
``giftsim play --agents-module FILE.py`` load. The agent does for the policy what the
environments did in training: the tensor is the seat's ``Game.encode`` (divided by
:func:`tensor_scale` with ``scale=True``, as ``GiftsimEnv(..., scale=True)`` and the vector
adapters give it), and the mask is the legal actions (:func:`observed_mask`).

What the policy may be, and how it is called (``x``: the float32 tensor, ``mask``: bool, one
per action id):

* an object with ``predict`` (an SB3 model): ``predict(x, deterministic=True)``, with
  ``action_masks=mask`` when it takes them (sb3-contrib's maskable models);
* a torch module (``forward`` and ``parameters``): ``policy(torch.as_tensor(x)[None])`` without
  gradients, its outputs read as scores (logits, Q-values);
* any other callable: ``policy(x, mask)``.

It may answer with an action id, or with one score per action id (logits, probabilities,
values), of which the highest legal one is taken; tuples give their first element (SB3's
``(action, state)``). An illegal answer is an error of the agent, as for any agent.
"""

import inspect

import numpy as np

from agents.registry import define
from agents.roster import roster
from experiments.envs.table import make_rules
from giftsim.game import N_PLAYERS, load_game

_WORLD_STREAM = 0x9E3779B97F4A7C15  # the fixed stream of observed_mask's sampled world
_SCRATCH = 4096  # floats: above the tensor of any game's rules (No Thanks! at most 590)


def tensor_scale(game, rules) -> np.ndarray:
    """Each tensor entry's largest magnitude (``Game.tensor_bounds``; at least 1), by which
    ``scale=True`` divides the tensor so that every entry lies in [-1, 1]."""
    low, high = game.tensor_bounds(rules)
    return np.maximum(np.maximum(np.abs(low), np.abs(high)), 1.0).astype(np.float32)


def observed_mask(game, obs: np.ndarray) -> np.ndarray:
    """The legal actions (bool, one per action id) of the seat to act, from its observation.

    Which actions are legal is public to the seat to act (No Thanks!: its own chips; Tulips:
    the phase and the kind already used), so every world consistent with its observation has
    the same legal mask. This draws one (the game's ``worlds.world``, the search agents'
    sampler, with a fixed stream) and asks ``Game.legal_mask``: no rule is written here. A
    game without a sampler (no search agents) gets a one-line ValueError."""
    worlds = roster(game.name).worlds
    if worlds is None:
        raise ValueError(f"{game.title} has no sampled worlds: its legal mask is not observed")
    state = np.zeros(game.state_size, np.int64)
    worlds.world(obs, np.array([_WORLD_STREAM], np.uint64), state)
    bits = int(game.legal_mask(state))
    return np.array([(bits >> a) & 1 for a in range(game.num_actions)], np.bool_)


def from_policy(
    game: str,
    name: str,
    policy,
    *,
    players: int | None = None,
    rules=None,
    scale: bool = False,
    deterministic: bool = True,
    doc: str | None = None,
):
    """Register ``policy`` as the plain-Python agent family ``name`` of ``game`` and return
    the family (module docstring). ``players`` or ``rules``: the table it was trained for (the
    tensor's layout depends on them; a game at another player count is refused at its first
    decision, and other rule options are the caller's to match); ``scale``: divide the tensor
    by :func:`tensor_scale`; ``deterministic``: passed to an SB3 model's ``predict``."""
    definition = load_game(game)
    rules = make_rules(definition, players, rules)
    size, n = definition.tensor_size(rules), rules.n_players
    factor = 1.0 / tensor_scale(definition, rules) if scale else None
    call = _caller(policy, deterministic)

    def decide(obs, params, rng):
        if obs[N_PLAYERS] != n:
            raise ValueError(f"agent {name!r} plays {n}-player games, not {int(obs[N_PLAYERS])}")
        scratch = np.zeros(max(size, _SCRATCH), np.float32)  # room for any layout: no overrun
        definition.encode(obs, scratch)
        x = scratch[:size] if factor is None else scratch[:size] * factor
        mask = observed_mask(definition, obs)
        return _action(call(x, mask), mask)

    summary = f"A trained policy ({type(policy).__name__}) over the tensor and legal mask."
    return define(game, name, decide, doc=doc or summary, compiled=False)


def _caller(policy, deterministic: bool):
    """``call(x, mask)`` for the kinds of policy in the module docstring."""
    if hasattr(policy, "predict"):
        masked = "action_masks" in inspect.signature(policy.predict).parameters
        if masked:
            return lambda x, mask: policy.predict(x, deterministic=deterministic, action_masks=mask)
        return lambda x, mask: policy.predict(x, deterministic=deterministic)
    if hasattr(policy, "forward") and hasattr(policy, "parameters"):
        import torch

        def forward(x, mask):
            with torch.no_grad():
                return policy(torch.as_tensor(x)[None])[0]

        return forward
    if not callable(policy):
        raise ValueError(f"a policy is a callable, a torch module or an SB3 model; got {policy!r}")
    return policy


def _action(answer, mask: np.ndarray) -> int:
    """An action id from a policy's answer: the id itself, or the highest-scoring legal id."""
    if isinstance(answer, tuple):
        answer = answer[0]
    if hasattr(answer, "detach"):  # a torch tensor
        answer = answer.detach().cpu().numpy()
    scores = np.asarray(answer)
    if scores.size == 1:
        if scores.dtype.kind not in "iub":  # int() would truncate a probability to 0
            raise ValueError(
                f"a policy answers an action id (a whole number) or {mask.size} scores, got "
                f"{scores.reshape(()).item()!r}"
            )
        return int(scores.reshape(()))
    if scores.shape[-1:] != mask.shape:
        raise ValueError(
            f"a policy answers an action id or {mask.size} scores, got shape {scores.shape}"
        )
    return int(np.argmax(np.where(mask, scores.reshape(mask.shape), -np.inf)))

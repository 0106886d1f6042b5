"""Running a block of games through a game's compiled loop: one wrapper for every game."""

import numpy as np

from agents.base import Agent
from agents.registry import param_table
from giftsim import notice
from giftsim.contract import MAX_PARAMS, first_policy
from giftsim.rng import check_secret


class AgentError(ValueError):
    """An agent broke the contract: an illegal action, or a read outside its observation."""


class IllegalActionError(AgentError):
    """An agent returned an action that is not legal in the state it was shown."""


def run_block(
    game,
    kernel,
    rules,
    agents: list[Agent],
    root_seed: int,
    first_index: int,
    n_games: int,
    first_player,
    secret: int = 0,
) -> np.ndarray:
    """Play games ``first_index .. first_index + n_games - 1`` of ``root_seed`` with the
    game's compiled loop ``kernel(rules_vec, seed, secret, first_index, policy, entries, params,
    out)``, one agent per seat; returns the result rows (``game.row_width`` columns). The tuple
    of agent entries is padded to ``game.max_players`` so that every mix has the same Numba
    type: one compilation."""
    n = rules.n_players
    if len(agents) != n:
        raise ValueError(f"{n} players need {n} agents, got {len(agents)}")
    check_secret(secret)
    announce(f"the {game.title} game loop", kernel, agents)
    entries = tuple(a.family.entry() for a in agents)
    entries += (entries[0],) * (game.max_players - n)
    params = np.zeros((game.max_players, MAX_PARAMS), np.float64)
    params[:n] = param_table(agents)
    policy = first_policy(first_player, n)
    out = np.zeros((n_games, game.row_width(rules)), np.int64)
    seed, key = np.uint64(root_seed), np.uint64(secret)
    names = ", ".join(dict.fromkeys(a.spec for a in agents))
    try:
        bad = kernel(rules.to_array(), seed, key, first_index, policy, entries, params, out)
    except IndexError:  # only user agents are bounds-checked: the engine's reads are in range
        raise AgentError(f"an agent ({names}) read outside its observation") from None
    if bad >= 0:
        raise IllegalActionError(
            f"an agent ({names}) chose an illegal action in game {first_index + bad}; "
            "check the agents' code and parameters"
        )
    return out


def announce(label: str, kernel, agents) -> None:
    """The first-run line: what of ``kernel`` (called ``label``) and the agents is not in
    Numba's cache yet (see giftsim.notice)."""
    what = {label: kernel} if hasattr(kernel, "signatures") else {}
    for agent in agents:
        if isinstance(agent, Agent) and agent.family.builtin:
            what[f"agent {agent.name}"] = agent.family.decider
    search = sum(isinstance(a, Agent) and "iters" in a.family.defaults for a in agents)
    notice.compiling(what, seconds=3 * len(what) + 15 * search)

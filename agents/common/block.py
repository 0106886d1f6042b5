"""Running a block of games through a game's compiled loop: one wrapper for both games."""

import numpy as np

from agents.base import Agent
from agents.registry import param_table
from giftsim.contract import MAX_PARAMS, first_policy


class IllegalActionError(RuntimeError):
    """An agent returned an action that is not legal in the state it was shown."""


def run_block(
    kernel,
    max_players: int,
    width: int,
    rules,
    agents: list[Agent],
    root_seed: int,
    first_index: int,
    n_games: int,
    first_player,
) -> np.ndarray:
    """Play games ``first_index .. first_index + n_games - 1`` of ``root_seed`` with
    ``kernel(rules_vec, seed, first_index, policy, entries, params, out)``, one agent per
    seat; ``out`` has ``width`` columns. The tuple of agent entries is padded to
    ``max_players`` so that every mix has the same Numba type: one compilation."""
    n = rules.n_players
    if len(agents) != n:
        raise ValueError(f"{n} players need {n} agents, got {len(agents)}")
    entries = tuple(a.family.decider for a in agents)
    entries += (entries[0],) * (max_players - n)
    params = np.zeros((max_players, MAX_PARAMS), np.float64)
    params[:n] = param_table(agents)
    policy = first_policy(first_player, n)
    out = np.zeros((n_games, width), np.int64)
    bad = kernel(rules.to_array(), np.uint64(root_seed), first_index, policy, entries, params, out)
    if bad >= 0:
        raise IllegalActionError(f"an agent chose an illegal action in game {first_index + bad}")
    return out

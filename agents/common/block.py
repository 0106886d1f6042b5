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
    for agent in agents:
        agent.check_rules(rules)
    announce(f"the {game.title} game loop", kernel, agents)
    entries = tuple(a.family.entry() for a in agents)
    entries += (entries[0],) * (game.max_players - n)
    params = np.zeros((game.max_players, MAX_PARAMS), np.float64)
    params[:n] = param_table(agents, n)
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


def recorded_block(
    game, kernel, width, rules, agents, root_seed, first_index, n_games, recording, secret=0
):
    """Play games ``first_index .. first_index + n_games - 1`` with a game's recording loop
    (``agents/<game>/selfplay.py``: ``kernel(..., out, (explore, per_game, feats, owners,
    seats))``; ``recording`` is ``(explore, seats)``),
    in as many calls as the recorded rows need; returns ``(rows, feats, owners)``: the result
    rows, the float32 features (``width`` per decision) and int64 owners (game index, seat,
    decision number) of every decision an agent was asked."""
    n = rules.n_players
    if len(agents) != n:
        raise ValueError(f"{n} players need {n} agents, got {len(agents)}")
    check_secret(secret)
    announce(f"the {game.title} self-play recorder", kernel, agents)
    entries = tuple(a.family.entry() for a in agents)
    entries += (entries[0],) * (game.max_players - n)
    params = np.zeros((game.max_players, MAX_PARAMS), np.float64)
    params[:n] = param_table(agents, n)
    per_game = int(getattr(rules, "max_decisions", game.max_decisions))
    out = np.zeros((n_games, game.row_width(rules)), np.int64)
    feats = np.zeros((per_game + 200 * n_games, width), np.float64)
    owners = np.zeros((feats.shape[0], 3), np.int64)
    seed, key, done, parts = np.uint64(root_seed), np.uint64(secret), 0, []
    explore, seats = recording
    policy = first_policy("rotate", n)
    while done < n_games:
        rec = (float(explore), per_game, feats, owners, seats)
        start = first_index + done
        bad, games, rows = kernel(
            rules.to_array(), seed, key, start, policy, entries, params, out[done:], rec
        )
        if bad >= 0:
            raise IllegalActionError(f"an agent chose an illegal action in game {start + bad}")
        owners[:rows, 0] += start
        parts.append((feats[:rows].astype(np.float32), owners[:rows].copy()))
        done += games
    return out, np.concatenate([f for f, _ in parts]), np.concatenate([o for _, o in parts])

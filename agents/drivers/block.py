"""Blocks of games through a game's compiled loop (``agents/templates/loop.py``), plain or with
a recorder hook: one wrapper for every game.

A block is the games ``first_index .. first_index + n_games - 1`` of a root seed, one agent
per seat. The seats' entries go to the loop as an array of their addresses, padded to
``game.max_players`` rows (``agents.kernels.entries``): one compilation per game and loop for
every mix.
"""

import contextlib

import numpy as np

from agents.base import agent_kernels
from agents.drivers.generate import driver
from agents.kernels.entries import entry_addresses
from agents.registry import param_table
from giftsim import notice
from giftsim.contract import MAX_PARAMS, first_policy
from giftsim.game import Game, rounds_of
from giftsim.rng import check_secret


class AgentError(ValueError):
    """An agent broke the contract: an illegal action, or a read outside its observation."""


class IllegalActionError(AgentError):
    """An agent returned an action that is not legal in the state it was shown."""


def chose_illegal(seat: int, who: str, action, legal) -> IllegalActionError:
    """The error of seat ``seat``'s agent ``who`` choosing ``action`` where ``legal`` are the
    legal actions (the slow path and the environments, which know the seat)."""
    return IllegalActionError(
        f"seat {seat} ({who}) chose illegal action {action!r} (legal: {list(legal)})"
    )


def illegal_action(names: str, game_index: int) -> IllegalActionError:
    """The error of an illegal action by one of the agents ``names`` in game ``game_index``
    (its ``game_index``: the slow path can play that game again and name the seat)."""
    error = IllegalActionError(
        f"an agent ({names}) chose an illegal action in game {game_index}; "
        "check the agents' code and parameters"
    )
    error.game_index = game_index
    return error


@contextlib.contextmanager
def reads_checked(names: str):
    """Around a compiled loop's call: an ``IndexError`` is an agent's read outside its
    observation (only user agents are bounds-checked: the engine's reads are in range)."""
    try:
        yield
    except IndexError:
        raise AgentError(f"an agent ({names}) read outside its observation") from None


def play_block(
    game: Game, rules, agents, root_seed, first_index, n_games, first_player="rotate", secret=0
) -> np.ndarray:
    """Result rows (``game.row_width(rules)`` columns: the blocks per seat, first player,
    decisions, winners' mask, and each round's scores in a match) of games (matches, with
    ``rules.rounds > 1``) ``first_index ..`` of ``root_seed``. ``first_player``: ``"rotate"``
    (game i starts at seat i mod n), ``"random"`` or a seat."""
    kernel = _loop(game, agents).play_games
    announce(f"the {game.title} game loop", kernel, agents)
    out = np.zeros((n_games, game.row_width(rules)), np.int64)
    seating = _seating(game, rules, agents, secret)
    call = _Call(kernel, rules, root_seed, secret, first_player, seating)
    call(first_index, out, None)
    return out


def _loop(game: Game, agents):
    """The game loop for ``agents``: where every seat plays one built-in family whose entry is
    generated from its ``decide`` (the one-ply heuristics, whose decisions cost about as much
    as the call), the variant that calls that entry directly, so LLVM inlines the agent into
    the loop (the same games); else the loop of pointer entries, one compilation for every
    seating."""
    deciders = {agent.family.decider for agent in agents}
    family = agents[0].family
    if len(deciders) == 1 and family.builtin and family.plain_entry:
        return driver(game.name, "loop", ask=family.decider.py_func.__module__)
    return driver(game.name, "loop")


def recorded_block(game: Game, rules, agents, root_seed, first_index, n_games, recording, secret=0):
    """Games ``first_index ..`` of ``root_seed`` through the self-play recorder
    (``agents/templates/selfplay_hook.py``): ``recording`` is ``(explore, seats)``, the share
    of decisions played at random and the bit mask of the seats whose decisions are kept.
    Returns ``(rows, feats, owners)``: the result rows, the float32 features and the int64
    owners (game index, seat, decision number) of every kept decision, in as many calls as
    the features need. The first player rotates."""
    announce_recorder(game, agents)
    kernel = driver(game.name, "loop", hook="selfplay_hook").play_games
    n, (explore, seats) = rules.n_players, recording
    width = driver(game.name, "selfplay_hook").feature_width(n)
    per_game = int(getattr(rules, "max_decisions", game.max_decisions)) * rounds_of(rules)
    feats = np.zeros((per_game + 200 * n_games, width), np.float64)
    owners = np.zeros((feats.shape[0], 3), np.int64)
    out = np.zeros((n_games, game.row_width(rules)), np.int64)
    call = _Call(kernel, rules, root_seed, secret, "rotate", _seating(game, rules, agents, secret))
    done, parts = 0, []
    while done < n_games:
        rows = np.zeros(1, np.int64)
        hook = (float(explore), per_game, feats, owners, seats, rows, np.zeros(1, np.uint64))
        start = first_index + done
        done += call(start, out[done:], hook)
        owners[: rows[0], 0] += start  # the recorder numbers the games of its call from 0
        parts.append((feats[: rows[0]].astype(np.float32), owners[: rows[0]].copy()))
    return out, np.concatenate([f for f, _ in parts]), np.concatenate([o for _, o in parts])


def announce_loop(game: Game, agents) -> bool:
    """The game loop's first-run line (``announce``) for ``agents``; True if any of it is not
    in the cache yet."""
    return announce(f"the {game.title} game loop", driver(game.name, "loop").play_games, agents)


def announce_recorder(game: Game, agents) -> bool:
    """The self-play recorder's first-run line (``announce``) for ``agents``; True if any of
    it is not in the cache yet."""
    kernel = driver(game.name, "loop", hook="selfplay_hook").play_games
    return announce(f"the {game.title} self-play recorder", kernel, agents)


def event_block(
    game: Game, rules, agents, root_seed, first_index, n_games, max_events, first_player="rotate"
):
    """Games ``first_index ..`` of ``root_seed`` through the event recorder
    (``agents/templates/events_hook.py``): ``(rows, events)``, the result rows and int64
    ``(n_games, max_events, 3 + game.event_width)`` events: per game in order, the ply, the
    acting seat, the action and the game's event columns (``game.event_columns``); rows past
    a game's last event are -1, events past ``max_events`` are not kept."""
    kernel = driver(game.name, "loop", hook="events_hook").play_games
    announce(f"the {game.title} event recorder", kernel, agents)
    events = np.full((n_games, max_events, 3 + game.event_width), -1, np.int64)
    out = np.zeros((n_games, game.row_width(rules)), np.int64)
    call = _Call(kernel, rules, root_seed, 0, first_player, _seating(game, rules, agents, 0))
    call(first_index, out, (events, np.zeros(2, np.int64)))
    return out, events


def announce(label: str, kernel, agents, slow: bool = False) -> bool:
    """The first-run line: what of ``kernel`` (called ``label``) and the agents is not in
    Numba's cache yet (see giftsim.notice): their loop entries, or with ``slow`` the decision
    functions the slow path calls. About 3 s a kernel (1-8 s measured), 15 s more a search.
    True if any of them has no cached copy."""
    what = {label: (kernel, 3.0)} if hasattr(kernel, "signatures") else {}
    return notice.compiling(what | agent_kernels(agents, slow))


def _seating(game: Game, rules, agents, secret) -> tuple:
    """The seats' entry addresses (``agents.kernels.entries``; padded to the game's largest
    table), their parameter rows and the agents' names."""
    n = rules.n_players
    if len(agents) != n:
        raise ValueError(f"{n} players need {n} agents, got {len(agents)}")
    check_secret(secret)
    for agent in agents:
        agent.check_rules(rules)
    entries = [a.family.entry() for a in agents]
    addresses = entry_addresses(entries + entries[:1] * (game.max_players - n))
    params = np.zeros((game.max_players, MAX_PARAMS), np.float64)
    params[:n] = param_table(agents, n)
    names = ", ".join(dict.fromkeys(a.spec for a in agents))
    return addresses, params, names


class _Call:
    """One seating's calls of a compiled loop: ``call(first_index, out, hook)`` plays from
    ``first_index`` into ``out`` and returns how many games (matches) it played."""

    def __init__(self, kernel, rules, root_seed, secret, first_player, seating):
        self.kernel, self.rules_vec = kernel, rules.to_array()
        self.seed, self.key = np.uint64(root_seed), np.uint64(secret)
        self.policy = first_policy(first_player, rules.n_players)
        self.entries, self.params, self.names = seating

    def __call__(self, first_index: int, out: np.ndarray, hook) -> int:
        args = (self.rules_vec, self.seed, self.key, first_index, self.policy, self.entries)
        with reads_checked(self.names):
            played = self.kernel(*args, self.params, out, hook)
        if played < 0:  # -1 - g: match g of the block had an illegal action
            raise illegal_action(self.names, first_index - 1 - played)
        return played


def respond_block(game: Game, rules, agents, seat, search, root_seed, first_index, n_games):
    """Games ``first_index ..`` of ``root_seed`` through the rollout responder
    (``agents/templates/respond.py``): each played by the field ``agents`` alone and with
    ``seat`` played by rollouts of the field's policy (``search``: ``(rollouts, margin)``,
    worlds per legal action and decision, and the standard errors by which another action
    must beat the seat's agent's own). Returns float64 rows: the responder's share of the
    win, the field's own share in that seat on the same deal, and the decisions the responder
    rolled out at. The first player rotates (game i starts at seat i mod n)."""
    kernel = driver(game.name, "respond").respond_games
    announce(f"the {game.title} rollout responder", kernel, agents)
    entries, params, names = _seating(game, rules, agents, 0)
    out = np.zeros((n_games, 3), np.float64)
    policy = first_policy("rotate", rules.n_players)
    args = (rules.to_array(), np.uint64(root_seed), np.uint64(0), first_index, policy, entries)
    with reads_checked(names):
        bad = kernel(*args, params, seat, (int(search[0]), float(search[1])), out)
    if bad >= 0:
        raise illegal_action(names, first_index + bad)
    return out

"""Blocks of games with their luck measured (``agents/templates/luck.py``): the result rows of
the plain loop, game for game, and every seat's AIVAT-style corrections.

The value function is a network of the game's ``learned`` evaluator (its features), fixed
before the games are played: ``"shipped"`` (the game's shipped network for the player count)
or a network file (``giftsim train``'s output); :func:`value_net` loads it, or says in one
line why it cannot.
"""

import numpy as np
from numba import njit

from agents.drivers.block import _seating, announce, illegal_action, reads_checked
from agents.drivers.generate import driver
from agents.kernels import net
from agents.roster import roster
from giftsim.contract import PROBS_SIG, first_policy, read_only
from giftsim.game import Game, rounds_of

SHIPPED = "shipped"  # the value function: the game's shipped network for the player count


@njit(PROBS_SIG, cache=True)
def unknown(obs, params, out):
    """The prober of an agent whose action probabilities are not known."""
    return False


def value_net(game: str, players: int, value: str = SHIPPED) -> np.ndarray:
    """The packed network (``agents.kernels.net``) that values ``game``'s states at
    ``players`` seats: ``"shipped"`` or a network file; a one-line ValueError when there is
    none or the file is for another game, player count or feature set."""
    agents = roster(game)
    if agents.learned is None:
        raise ValueError(f"{game} has no learned evaluator: its luck cannot be measured")
    path = agents.shipped(players) if value == SHIPPED else value
    return net.load(path, game, players, agents.learned.n_features(players))


def check_rules(rules) -> None:
    """A one-line ValueError for rules the estimator does not play: matches of rounds."""
    if rounds_of(rules) > 1:
        raise ValueError(
            f"the luck estimator plays single games; got matches of {rounds_of(rules)} rounds"
        )


def probers(game: Game, agents) -> tuple[tuple, int]:
    """Each seat's prober (padded to ``game.max_players``) and the bit mask of the seats whose
    agents' action probabilities are known."""
    found, known = [], 0
    for seat, agent in enumerate(agents):
        probabilities = agent.family.probabilities
        if probabilities is None:
            found.append(unknown)
            continue
        if not probabilities.signatures:
            probabilities.compile(PROBS_SIG)
        found.append(probabilities)
        known |= 1 << seat
    return tuple(found) + (unknown,) * (game.max_players - len(found)), known


def luck_block(game: Game, rules, agents, root_seed, first_index, n_games, first_player="rotate",
               secret=0, value: np.ndarray | None = None):  # fmt: skip
    """Games ``first_index ..`` of ``root_seed`` (single games; ``first_player`` as in
    ``block.play_block``) with their luck measured by the packed network ``value`` (default:
    the shipped one). Returns ``(rows, luck)``: the result rows (those of ``play_block``) and
    float64 ``luck[g, k, s]``, seat ``s``'s corrections in game ``g`` by kind, ``k`` 0 the
    decisions of agents with known probabilities, ``k`` the chance events of kind ``k``
    (``game.chance_kinds[k - 1]``). The network goes in read-only, as a search's leaf reads
    its own: the leaf's kernels that value afterstates compile once for both."""
    check_rules(rules)
    n = rules.n_players
    value = value_net(game.name, n) if value is None else value
    kernel = driver(game.name, "luck").play_luck
    announce(f"the {game.title} luck estimator", kernel, agents)
    entries, params, names = _seating(game, rules, agents, secret)
    seat_probers, known = probers(game, agents)
    out = np.zeros((n_games, game.row_width(rules)), np.int64)
    luck = np.zeros((n_games, len(game.chance_kinds) + 1, game.max_players))
    policy = first_policy(first_player, n)
    head = (rules.to_array(), np.uint64(root_seed), np.uint64(secret), first_index, policy)
    with reads_checked(names):
        bad = kernel(*head, entries, params, seat_probers, known, read_only(value), out, luck)
    if bad >= 0:
        raise illegal_action(names, first_index + bad)
    return out, luck[:, :, :n]

"""The compiled agent contract shared by both games.

An agent's decision function is an ``@njit`` function with exactly the signature
``DECIDE_SIG``: ``decide(obs, params, rng) -> action``, where ``obs`` is the observation of the
seat to act (int64 slots, layout in the game's ``engine.py``), ``params`` the agent's float64
parameter vector (``MAX_PARAMS`` slots, unused ones 0) and ``rng`` a one-word random stream for
``giftsim.rng``. Because every decision function has the same Numba function type, a tuple of
them (one per seat) is a single type: the game loop compiles once for any mix of agents,
including agents defined in a notebook.
"""

from numba import njit, types

MAX_PARAMS = 8
DECIDE_SIG = types.int64(types.int64[::1], types.float64[::1], types.uint64[::1])

# Seat policy for the first player of game i in a batch (seats >= 0 are fixed seats).
FIRST_RANDOM = -1
FIRST_ROTATE = -2


@njit(cache=True)
def first_seat(policy, game_index, n_players):
    """First player of game ``game_index`` under a batch policy: a seat, random or rotating.

    ``FIRST_RANDOM`` is passed on to the deal, which draws the seat from the game's own stream.
    """
    if policy == FIRST_ROTATE:
        return game_index % n_players
    return policy


def first_policy(first_player, n_players: int) -> int:
    """Encode ``"rotate"``, ``"random"`` or a seat as a policy number for compiled code."""
    if first_player == "rotate":
        return FIRST_ROTATE
    if first_player == "random":
        return FIRST_RANDOM
    is_seat = isinstance(first_player, int) and not isinstance(first_player, bool)
    if is_seat and 0 <= first_player < n_players:
        return first_player
    raise ValueError(
        f"first_player must be 'rotate', 'random' or a seat in 0..{n_players - 1}, "
        f"got {first_player!r}"
    )

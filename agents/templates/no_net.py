"""The searches' plain leaf: no network, every playout to the end with the default policy.

A search template (``flatmc.py``, ``ismcts.py``) imports what ends its walks from here on one
marked line; its ``_net`` family is the same template with that line importing ``leaf.py``
instead (``agents.drivers.generate``), which gives these names the network's meaning. Here the
network's parameters are absent (their slots read zero), no policy number is the learned
agent's, and what would value a leaf plays the world out (``playouts.py``). Each function is
copied into its caller (``inline="always"``): the plain searches compile as if they called
the playouts themselves, no slower to start than before the two leaves shared a text.
"""

from numba import njit

from agents.kernels.search import POLICY

from .game import POLICIES
from .playouts import play_to_end, playout_value, values

PLAYOUT_POLICIES = POLICIES  # the default policies of the playouts, by number
LEARNED = -1  # the learned one-ply agent's policy number: none
ISMCTS_RANGES: dict = {}  # the parameters this leaf adds to ismcts's: none
FLATMC_RANGES: dict = {}  # and to flatmc's


@njit(cache=True, inline="always")
def new_space(players):
    """No work space."""
    return None


@njit(cache=True, inline="always")
def learned_action(state, params, rng, space):
    """Never asked (no policy number is ``LEARNED``): no action."""
    return -1


@njit(cache=True, inline="always")
def truncated_values(state, params, depth, mix, rng, space, out):
    """Play to the end (whatever ``depth``); every seat's value there into ``out``."""
    play_to_end(state, int(params[POLICY]), rng)
    values(state, params, out)


@njit(cache=True, inline="always")
def truncated_value(state, params, depth, mix, seat, rng, space):
    """Play to the end (whatever ``depth``); the seat's value there."""
    return playout_value(state, params, seat, rng)


@njit(cache=True, inline="always")
def own_leaf_search(obs, params, rng, state, mask, space, mix, top):
    """Never asked (``flatmc``'s ``leaf`` slot reads 0 without a network): no action."""
    return -1

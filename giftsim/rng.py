"""Counter-based random streams: every random number is a pure function of its key.

A stream is a SplitMix64 generator whose whole state is one ``uint64`` word, kept in a
one-element array so compiled code can advance it in place. Game ``i`` of a run with root
seed ``S`` draws from streams keyed by ``(S, i, stream)``: stream ``DEAL_STREAM`` deals the
cards and picks a random first player, stream ``AGENT_STREAM + seat`` feeds that seat's agent.
No generator is shared between games, so results do not depend on how games are split over
workers or chunks, and nothing touches global random state.
"""

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)
_TWO_M53 = 1.0 / 9007199254740992.0

DEAL_STREAM = 0
AGENT_STREAM = 1


@njit(cache=True)
def mix64(z):
    """SplitMix64 finaliser: a bijective, well-scrambling map of one uint64 word."""
    z = np.uint64(z)
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def stream_seed(root_seed, game_index, stream):
    """The starting state of stream ``stream`` of game ``game_index`` under ``root_seed``."""
    key = mix64(np.uint64(root_seed) + GOLDEN)
    key = mix64(key ^ np.uint64(game_index))
    return mix64(key + GOLDEN * np.uint64(stream + 1))


@njit(cache=True)
def next_u64(state):
    """Advance the stream held in ``state[0]`` and return 64 random bits."""
    state[0] += GOLDEN
    return mix64(state[0])


@njit(cache=True)
def next_float(state):
    """A uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(state) >> _S11) * _TWO_M53


@njit(cache=True)
def next_below(state, n):
    """A uniform integer in ``0 .. n-1`` for ``1 <= n < 2**32``.

    Lemire's multiply-and-shift on 32 random bits, with his rejection step, so it is exactly
    uniform and divides only in the rare rejection case.
    """
    bound = np.uint64(n)
    product = (next_u64(state) >> _S32) * bound
    low = product & _LOW32
    if low < bound:
        threshold = (_TWO32 - bound) % bound
        while low < threshold:
            product = (next_u64(state) >> _S32) * bound
            low = product & _LOW32
    return np.int64(product >> _S32)


@njit(cache=True)
def shuffle(values, state):
    """Fisher-Yates shuffle of ``values`` in place."""
    for i in range(values.shape[0] - 1, 0, -1):
        j = next_below(state, i + 1)
        values[i], values[j] = values[j], values[i]

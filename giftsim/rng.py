"""Counter-based random streams: every random number is a pure function of its key.

A stream is a SplitMix64 generator whose whole state is one ``uint64`` word, kept in a
one-element array so compiled code can advance it in place. Game ``i`` of a run with root
seed ``S`` has the key ``game_key(S, i)``; the game's own streams start from it
(``stream_from(key, stream)``, numbers below). No generator is shared between games, so results
do not depend on how games are split over workers or chunks, and nothing touches global random
state.

Agents' streams are sealed: ``agent_stream(key, secret, seat)`` is SipHash-1-3 (a keyed
pseudo-random function, the one CPython and Rust hash with) of the game key under the run's
``secret``. The game's streams are SplitMix steps, which can be undone, so a stream started by
them would hand an agent its game key and with it the deal; SipHash cannot be run backwards,
and without the secret (never given to agents; 0 unless a run sets one) not even a search over
small seeds finds the game an agent's stream came from.

==================  ======  ===========================================================
stream              number  draws
==================  ======  ===========================================================
``DEAL_STREAM``     0       the shuffle, the removed cards, a random first player
``REVEAL_STREAM``   7       Gift of Tulips: which secret-festival cards the end reveals
``EXPLORE_STREAM``  9       training: the recorder's exploring moves and sampled worlds
agents              --      ``agent_stream(key, secret, seat)``, one per seat
==================  ======  ===========================================================
"""

import numpy as np
from numba import njit

from giftsim.checks import is_whole

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

# Stream numbers are NumPy integers, not Python ints: Numba types a Python int global as a
# literal and compiles a callee once more for each literal it is passed (a cold start pays it).
DEAL_STREAM = np.int64(0)
REVEAL_STREAM = np.int64(7)  # kept from before agents' streams were sealed: Tulips deals as before
EXPLORE_STREAM = np.int64(9)
# SipHash's initial constants, "somepseudorandomlygeneratedbytes" as four words
_SIP_C0 = np.uint64(0x736F6D6570736575)
_SIP_C1 = np.uint64(0x646F72616E646F6D)
_SIP_C2 = np.uint64(0x6C7967656E657261)
_SIP_C3 = np.uint64(0x7465646279746573)
_SIP_FF = np.uint64(0xFF)
_SIP_LEN = np.uint64(8 << 56)  # the length byte of a one-word message
_SECRET_K1 = np.uint64(0x243F6A8885A308D3)  # second key word: the secret's bits, offset by pi
_S64, _R13, _R16, _R17, _R21, _R32 = (np.uint64(b) for b in (64, 13, 16, 17, 21, 32))  # rotations


@njit(cache=True)
def mix64(z):
    """SplitMix64 finaliser: a bijective, well-scrambling map of one uint64 word."""
    z = np.uint64(z)
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def game_key(root_seed, game_index):
    """The key of game ``game_index`` under ``root_seed``, from which its streams start."""
    return mix64(mix64(np.uint64(root_seed) + GOLDEN) ^ np.uint64(game_index))


@njit(cache=True)
def stream_from(key, stream):
    """The starting state of stream ``stream`` of the game with key ``key``."""
    return mix64(key + GOLDEN * np.uint64(stream + 1))


@njit(cache=True)
def _rotl(x, b):
    """``x`` rotated left by ``b`` bits (compiled once: ``b`` is one of the ``_R*`` NumPy ints,
    not a literal; LLVM inlines it)."""
    return (x << b) | (x >> (_S64 - b))


@njit(cache=True, inline="always")
def _sip_round(v0, v1, v2, v3):
    v0 += v1
    v1 = _rotl(v1, _R13) ^ v0
    v0 = _rotl(v0, _R32)
    v2 += v3
    v3 = _rotl(v3, _R16) ^ v2
    v0 += v3
    v3 = _rotl(v3, _R21) ^ v0
    v2 += v1
    v1 = _rotl(v1, _R17) ^ v2
    v2 = _rotl(v2, _R32)
    return v0, v1, v2, v3


@njit(cache=True, inline="always")
def siphash13(k0, k1, word):
    """SipHash-1-3 of the one-word message ``word`` under the key ``(k0, k1)`` (one compression
    round per message block, the word and then the length block, and three final rounds)."""
    k0, k1, m = np.uint64(k0), np.uint64(k1), np.uint64(word)
    v0, v1, v2, v3 = k0 ^ _SIP_C0, k1 ^ _SIP_C1, k0 ^ _SIP_C2, k1 ^ _SIP_C3 ^ m
    v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    v0 ^= m
    v3 ^= _SIP_LEN
    v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    v0 ^= _SIP_LEN
    v2 ^= _SIP_FF
    v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
    return v0 ^ v1 ^ v2 ^ v3


@njit(cache=True, inline="always")
def agent_stream(key, secret, seat):
    """The starting state of ``seat``'s agent stream in the game with key ``key`` of a run
    keyed with ``secret`` (one-way: see the module docstring)."""
    secret = np.uint64(secret)
    return siphash13(secret, secret ^ _SECRET_K1, np.uint64(key) + GOLDEN * np.uint64(seat + 1))


@njit(cache=True)
def advance(key):
    """One step of the stream whose state is ``key``: ``(new key, 64 random bits)``."""
    key = np.uint64(key) + GOLDEN
    return key, mix64(key)


@njit(cache=True)
def _accept(bits32, n):
    """Lemire's map of 32 random bits to ``0 .. n-1``: ``(value, accepted)``; a rejected draw
    must be redrawn, which keeps the result exactly uniform."""
    bound = np.uint64(n)
    product = bits32 * bound
    low = product & _LOW32
    accepted = low >= bound or low >= (_TWO32 - bound) % bound
    return np.int64(product >> _S32), accepted


@njit(cache=True)
def below_keyed(key, n):
    """A uniform integer in ``0 .. n-1`` (``1 <= n < 2**32``) from stream ``key``:
    ``(value, new key)``."""
    key = np.uint64(key)  # an int64 key would be widened to float64 by the loop below
    while True:
        key, bits = advance(key)
        value, accepted = _accept(bits >> _S32, n)
        if accepted:
            return value, key


@njit(cache=True)
def shuffle_keyed(values, key):
    """Fisher-Yates shuffle of ``values`` in place from stream ``key``, two swaps per 64 random
    bits; returns the new key."""
    key = np.uint64(key)  # an int64 key would be widened to float64 by the loop below
    i = values.shape[0] - 1
    while i > 0:
        key, bits = advance(key)
        for half in (bits >> _S32, bits & _LOW32):
            if i == 0:
                break
            j, accepted = _accept(half, i + 1)
            if not accepted:
                j, key = below_keyed(key, i + 1)
            values[i], values[j] = values[j], values[i]
            i -= 1
    return key


@njit(cache=True)
def next_u64(state):
    """Advance the stream held in ``state[0]`` and return 64 random bits."""
    state[0], bits = advance(state[0])
    return bits


@njit(cache=True)
def next_float(state):
    """A uniform float in [0, 1) with 53 random bits."""
    return np.float64(next_u64(state) >> _S11) * _TWO_M53


@njit(cache=True)
def next_below(state, n):
    """A uniform integer in ``0 .. n-1`` for ``1 <= n < 2**32`` (Lemire's method, exact)."""
    value, state[0] = below_keyed(state[0], n)
    return value


@njit(cache=True)
def shuffle(values, state):
    """Fisher-Yates shuffle of ``values`` in place."""
    state[0] = shuffle_keyed(values, state[0])


@njit(cache=True)
def game_keys(root_seed, first_index, out):
    """:func:`game_key` of games ``first_index ..`` into ``out`` (the deal seed of each game)."""
    for i in range(out.shape[0]):
        out[i] = game_key(root_seed, first_index + i)


MAX_SEED = 2**64 - 1
MAX_GAME_INDEX = 2**63 - 1


def check_secret(secret) -> None:
    """Raise ValueError unless ``secret`` (the key of agents' streams) is a 64-bit word."""
    if not is_whole(secret):
        raise ValueError(f"the secret must be a whole number in 0..{MAX_SEED}, got {secret!r}")
    if not 0 <= int(secret) <= MAX_SEED:
        raise ValueError(f"the secret must be in 0..{MAX_SEED}, got {secret}")


def check_seed(seed, game_index=0) -> None:
    """Raise ValueError unless ``seed`` and ``game_index`` are whole numbers in range."""
    for name, value, top in (("seed", seed, MAX_SEED), ("game index", game_index, MAX_GAME_INDEX)):
        if not is_whole(value):
            raise ValueError(f"the {name} must be a whole number in 0..{top}, got {value!r}")
        if not 0 <= int(value) <= top:
            raise ValueError(f"the {name} must be in 0..{top}, got {value}")

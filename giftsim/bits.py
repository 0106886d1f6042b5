"""Bit tricks on 64-bit masks, shared by both engines and their agents."""

import numpy as np
from numba import njit

_SWAR = np.array(
    [0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F, 0x0101010101010101],
    dtype=np.uint64,
)


@njit(cache=True)
def popcount(mask):
    """Number of set bits of a 64-bit mask (branch-free SWAR count)."""
    x = np.uint64(mask)
    x = x - ((x >> np.uint64(1)) & _SWAR[0])
    x = (x & _SWAR[1]) + ((x >> np.uint64(2)) & _SWAR[1])
    x = (x + (x >> np.uint64(4))) & _SWAR[2]
    return np.int64((x * _SWAR[3]) >> np.uint64(56))


@njit(cache=True)
def lowest_bit(mask):
    """Index of the lowest set bit of a non-zero mask (0 for 0)."""
    mask = np.int64(mask)
    return popcount((mask & -mask) - 1) if mask != 0 else np.int64(0)


@njit(cache=True)
def share_out(mask, n, out):
    """Split one win among the seats of ``mask``: ``out[p]`` is 1/k for each of its k seats,
    else 0 (``p < n``)."""
    k = popcount(mask)
    for p in range(n):
        out[p] = 1.0 / k if (mask >> p) & 1 else 0.0

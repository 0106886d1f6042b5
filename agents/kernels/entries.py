"""The seats' agents as compiled drivers take them: their entries' addresses.

A driver (the game loop, the vector environment, the luck estimator, the responder, the
isolated loop) takes its seats' entries (``giftsim.contract.DECIDER_SIG``) as an int64 array
of addresses, one row ``(c_addr, py_addr, jit_addr)`` per seat, not as a tuple of functions:
Numba's dispatcher types and unboxes a tuple of functions in Python on every call (two address
look-ups an entry), an array of ints in C. :func:`entry_at` builds in compiled code the value
Numba builds when it unboxes an entry, so the call is the same (exceptions of a bounds-checked
user agent propagate).
"""

import numpy as np
from numba import types
from numba.core import cgutils
from numba.experimental.function_type import _get_jit_address, _get_wrapper_address
from numba.extending import intrinsic

from giftsim.contract import DECIDER_SIG

ENTRY_TYPE = types.FunctionType(DECIDER_SIG)
_KNOWN: dict[int, tuple] = {}  # entry id -> (entry, its row): looked up once, kept alive


@intrinsic
def entry_at(typingctx, c_addr, py_addr, jit_addr):
    """The agent entry whose addresses are a row of :func:`entry_addresses` (compiled code
    only)."""

    def codegen(context, builder, signature, args):
        entry = cgutils.create_struct_proxy(ENTRY_TYPE)(context, builder)
        pointer = context.get_value_type(types.voidptr)
        entry.c_addr, entry.py_addr, entry.jit_addr = (builder.inttoptr(a, pointer) for a in args)
        return entry._getvalue()

    return ENTRY_TYPE(types.int64, types.int64, types.int64), codegen


def entry_addresses(entries) -> np.ndarray:
    """One row ``(c_addr, py_addr, jit_addr)`` per compiled entry. Each entry's row is looked
    up once per process, and the entry is kept alive here, since compiled code calls it at
    these addresses (an entry compiles its one signature once: ``Family.entry``)."""
    rows = []
    for entry in entries:
        if id(entry) not in _KNOWN:
            row = (_get_wrapper_address(entry, DECIDER_SIG), id(entry))
            _KNOWN[id(entry)] = (entry, (*row, _get_jit_address(entry, DECIDER_SIG)))
        rows.append(_KNOWN[id(entry)][1])
    return np.array(rows, np.int64)

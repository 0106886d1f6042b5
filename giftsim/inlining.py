"""Where a game's step verbs are inlined at Numba's IR level.

A verb compiled with ``inline=unless_called`` is copied into each caller's IR before typing
(``inline="always"``) unless the caller's module sets ``CALL_RULES = True``; there it is an
ordinary call, which LLVM may still inline. Every copy is typed and optimised again, so a
module that calls the verbs from many places (a search, its playouts and leaf) pays for the
copies at every cold compile and gains no speed from them (``docs/perf/README.md``).
"""


def unless_called(expr, caller, callee) -> bool:
    """Numba's cost model for ``inline=`` (untyped: the call, the caller's and the callee's
    IR): inline unless the calling function's module sets ``CALL_RULES``."""
    return not getattr(caller.func_id.func, "__globals__", {}).get("CALL_RULES", False)

"""The isolated agent's side of a batch (``agents.isolation.protocol``): decide rows
``H_FIRST .. H_COUNT - 1`` of the shared block, counting each answer in ``H_DONE``.

A compiled agent is called through its entry, as in the game loop (its own copy of the
observation for a user agent, read-only parameters), by :func:`serve`, one compiled call per
batch; a plain-Python agent by :func:`python_server`, with a fresh copy of the observation and
of its parameters per decision. A fault stops the batch at its row: the child writes its
code in ``H_FAULT`` and the first line of its explanation.
"""

import numpy as np
from numba import njit

from agents.isolation import MEMORY, NOT_INTEGER, RAISED, explain
from agents.isolation.protocol import H_COUNT, H_DONE, H_FAULT, H_FIRST
from agents.kernels.entries import entry_at
from giftsim.contract import address


@njit(cache=True)
def serve(entry_row, header, rows, words, actions, params, scratch, obs_size):
    """Decide the batch with the compiled entry whose addresses are ``entry_row``."""
    entry = entry_at(entry_row[0], entry_row[1], entry_row[2])
    row = address(params, 0)
    for i in range(header[H_FIRST], header[H_COUNT]):
        shown, word = address(rows, i * obs_size), address(words, i)
        actions[i] = entry(shown, row, word, address(scratch, 0))
        header[H_DONE] = i + 1


def python_server(decide, block, params: np.ndarray):
    """The batch function of a plain-Python ``decide``."""
    header = block.header

    def run():
        for i in range(header[H_FIRST], header[H_COUNT]):
            try:
                action = decide(block.rows[i].copy(), params.copy(), block.words[i : i + 1])
            except BaseException as error:
                fault_of(error, block)
                return
            if not _is_integer(action):
                block.say(f"decide returned {type(action).__name__} {action!r:.80}")
                header[H_FAULT] = NOT_INTEGER
                return
            block.actions[i] = action if -(2**63) <= action < 2**63 else -1
            header[H_DONE] = i + 1

    return run


def fault_of(error: BaseException, block) -> None:
    """Record the exception that stopped a batch (MemoryError: the memory limit)."""
    block.say(explain(error))
    block.header[H_FAULT] = MEMORY if isinstance(error, MemoryError) else RAISED


def _is_integer(action) -> bool:
    return isinstance(action, int | np.integer)

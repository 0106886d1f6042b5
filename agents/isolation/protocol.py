"""What crosses between the parent and an isolated agent's process, and how.

Each child shares one block of memory with its parent alone (an anonymous ``memfd``, passed
as a file descriptor: it has no name another process could open), laid out as

==============  ==================  ==========================================================
part            type, length        meaning
==============  ==================  ==========================================================
header          int64, ``HEADER``   the slots below
rows            int64, ``capacity   one observation per decision (a copy, ``obs_size`` slots)
                * obs_size``
words           uint64, capacity    each decision's random word in; the advanced word out
actions         int64, capacity     each decision's action out
message         bytes, ``MESSAGE``  the first line of a fault's explanation (UTF-8)
==============  ==================  ==========================================================

==============  ==  =============================================================================
header slot     at  meaning
==============  ==  =============================================================================
``H_FIRST``     0   first row of the batch (parent)
``H_COUNT``     1   rows ``H_FIRST .. H_COUNT - 1`` are the batch (parent)
``H_DONE``      2   rows answered so far (the child, after each decision)
``H_FAULT``     3   the fault of row ``H_DONE`` when the child stopped early (``FAULTS`` code)
``H_MESSAGE``   4   bytes of the message
==============  ==  =============================================================================

The handshake is one byte each way on two pipes: the parent writes ``GO`` and waits (with
the time limit) for ``DONE``; the child blocks on its read, so an idle child costs nothing.
One round trip serves every decision of the batch: the parent's driver keeps many games in
flight and sends the isolated seat's pending decisions of all of them at once. The child's
answers are read only after ``DONE``, and validated there (a child can write anything into
its own block: the count, the actions, the words are checked or only ever hurt itself).
"""

import mmap
import os

import numpy as np

H_FIRST, H_COUNT, H_DONE, H_FAULT, H_MESSAGE = 0, 1, 2, 3, 4
HEADER = 8  # int64 slots (three spare)
MESSAGE = 1024  # bytes
READY, GO, DONE = b"r", b"g", b"d"


def printable(text: str) -> str:
    """An agent process's words with every control character (a terminal's escape codes)
    shown as ``?``: they reach a terminal only so."""
    return "".join(c if c.isprintable() else "?" for c in text)


def size(capacity: int, obs_size: int) -> int:
    """Bytes of the shared block for ``capacity`` decisions of ``obs_size`` slots."""
    return 8 * (HEADER + capacity * obs_size + 2 * capacity) + MESSAGE


def create(capacity: int, obs_size: int) -> int:
    """A new anonymous shared block (its file descriptor)."""
    fd = os.memfd_create("giftsim-isolated", 0)
    os.ftruncate(fd, size(capacity, obs_size))
    return fd


class Block:
    """NumPy views of a shared block: ``header``, ``rows`` (capacity x obs_size; ``flat``, the
    same one after another), ``words``, ``actions`` and the ``message`` bytes."""

    def __init__(self, fd: int, capacity: int, obs_size: int):
        self.memory = mmap.mmap(fd, size(capacity, obs_size))
        at = 0

        def part(dtype, count):
            nonlocal at
            view = np.frombuffer(self.memory, dtype, count, at)
            at += view.nbytes
            return view

        self.header = part(np.int64, HEADER)
        self.flat = part(np.int64, capacity * obs_size)  # the rows, one after another
        self.rows = self.flat.reshape(capacity, obs_size)
        self.words = part(np.uint64, capacity)
        self.actions = part(np.int64, capacity)
        self.message = part(np.uint8, MESSAGE)

    def clear(self) -> None:
        """Zero the whole block: what an agent wrote into it (spare slots, old rows) does not
        reach its next block's processes."""
        for part in (self.header, self.flat, self.words, self.actions, self.message):
            part[:] = 0

    def say(self, text: str) -> None:
        """Write a message (its first line, cut to fit)."""
        data = (text.strip().splitlines() or [""])[0].encode()[:MESSAGE]
        self.message[: len(data)] = np.frombuffer(data, np.uint8)
        self.header[H_MESSAGE] = len(data)

    def said(self) -> str:
        """The message (what the agent's process wrote: control characters shown as ``?``)."""
        count = int(min(max(self.header[H_MESSAGE], 0), MESSAGE))
        return printable(bytes(self.message[:count]).decode(errors="replace"))

    def close(self) -> None:
        self.header = self.flat = self.rows = self.words = self.actions = self.message = None
        self.memory.close()

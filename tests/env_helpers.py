"""What the environment tests share: a deterministic learner, the bots and the README's
snippets."""

import re
import signal
from contextlib import contextmanager
from pathlib import Path

import numpy as np

BOT = {"geschenkt": "greedy", "tulips": "greedy", "toy": "random"}  # a built-in of each game
README = Path(__file__).resolve().parents[1] / "README.md"


def choose(tensor, legal):
    """A deterministic learner: a legal action picked by a hash of its tensor."""
    return legal[int(np.abs(tensor).sum() * 7) % len(legal)]


def readme_snippet(module: str) -> str:
    """The README's one Python block that imports ``module``."""
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    found = [b for b in blocks if module in b]
    assert len(found) == 1, f"expected one README block importing {module}"
    return found[0]


NO_CHOICE = ["chips_per_player=0", "first_player=0"]  # No Thanks! where nobody ever chooses


@contextmanager
def deadline(seconds: int):
    """A TimeoutError instead of a hang when the block runs over ``seconds`` (Python code: a
    compiled loop is not interrupted, so test one in a subprocess with a timeout)."""

    def expire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)

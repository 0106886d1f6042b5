"""Faulty No Thanks! bots, for ``--untrusted-module``: each plays the plain rule of its twin
(take once 5 chips lie on the card, or when out of chips) except at the first decision of a
game (no decision made yet), where it faults in its own way. A table of them therefore
faults exactly in the games where a faulty bot is the first player.

=============  ========================================================================
bot            at the first decision of a game
=============  ========================================================================
``raiser``     raises (compiled)
``looper``     loops forever (plain Python)
``crasher``    segfaults: reads address 0 through ctypes (plain Python)
``hog``        allocates without bound (plain Python)
``illegal``    answers 7, no action at all (compiled)
``fraction``   answers 0.5 (plain Python)
=============  ========================================================================
"""

import ctypes

import numpy as np

from agents.registry import define
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.state import CHIPS, N_DECISIONS, POT, SEAT


def rule(obs):
    """The twin's rule (plain Python here, and compiled into the compiled bots)."""
    broke = obs[CHIPS + obs[SEAT]] == 0
    return TAKE if broke or obs[POT] >= 5 else PASS


def raiser(obs, params, rng):
    if obs[N_DECISIONS] == 0:
        raise ValueError("the raiser raises")
    broke = obs[CHIPS + obs[SEAT]] == 0
    return TAKE if broke or obs[POT] >= 5 else PASS


def looper(obs, params, rng):
    while obs[N_DECISIONS] == 0:
        pass
    return rule(obs)


def crasher(obs, params, rng):
    if obs[N_DECISIONS] == 0:
        ctypes.string_at(0)
    return rule(obs)


def hog(obs, params, rng):
    held = []
    while obs[N_DECISIONS] == 0:
        held.append(np.empty(1 << 20))
    return rule(obs)


def illegal(obs, params, rng):
    if obs[N_DECISIONS] == 0:
        return 7
    broke = obs[CHIPS + obs[SEAT]] == 0
    return TAKE if broke or obs[POT] >= 5 else PASS


def fraction(obs, params, rng):
    return 0.5 if obs[N_DECISIONS] == 0 else rule(obs)


for bot, compiled in (
    (raiser, True),
    (looper, False),
    (crasher, False),
    (hog, False),
    (illegal, True),
    (fraction, False),
):
    define("geschenkt", bot.__name__, bot, compiled=compiled)

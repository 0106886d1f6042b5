"""No Thanks! bots that try the host's clock, for ``--untrusted-module`` (plain Python; each
plays the rule of ``faulty.py``'s twin when it does not stall).

=============  ========================================================================
bot            does
=============  ========================================================================
``toggler``    never answers, but moves the shared block's count of answered decisions
               back and forth, as if it were making progress
``slowfirst``  sleeps 1 s at the first decision of a game (none made yet)
``latejit``    honest, but calls an ``@njit`` helper (compiled when first called, longer
               than a short time limit) only from a game's fourth decision on
=============  ========================================================================
"""

import mmap
import sys
import time

import numpy as np
from numba import njit

from agents.isolation.protocol import H_DONE, H_FIRST
from agents.registry import define
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.state import CHIPS, N_DECISIONS, POT, SEAT


def rule(obs):
    broke = obs[CHIPS + obs[SEAT]] == 0
    return TAKE if broke or obs[POT] >= 5 else PASS


def toggler(obs, params, rng):
    header = np.frombuffer(mmap.mmap(int(sys.argv[2]), 64), np.int64, 8)  # the block's fd
    first = int(header[H_FIRST])
    while True:
        header[H_DONE] = first + 1
        time.sleep(0.05)
        header[H_DONE] = first
        time.sleep(0.05)


def slowfirst(obs, params, rng):
    if obs[N_DECISIONS] == 0:
        time.sleep(1.0)
    return rule(obs)


@njit
def late(obs):
    return np.sort(obs.astype(np.float64)).cumsum()[-1] + np.median(obs.astype(np.float64))


def latejit(obs, params, rng):
    if obs[N_DECISIONS] >= 3 and late(obs) < -1.0:  # never: the helper only has to compile
        return TAKE
    return rule(obs)


define("geschenkt", "toggler", toggler, compiled=False)
define("geschenkt", "latejit", latejit, compiled=False)
define("geschenkt", "slowfirst", slowfirst, compiled=False)

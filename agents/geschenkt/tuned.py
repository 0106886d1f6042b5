"""Tuned built-ins: ``sniper`` with parameters found by ``giftsim tune`` for each player count.

Each was tuned by CMA-ES against ``players - 1`` copies of ``sniper``, seat-rotated on
duplicate deals; the command, win share and 95% interval of each run
are in ``docs/tuned/geschenkt-<n>p.json`` (a test checks these values against it), e.g.::

    giftsim tune geschenkt --family sniper --players 4 --field sniper --games 5000 \\
        --generations 15 --final-games 50000 --json docs/tuned/geschenkt-4p.json
"""

TUNED = {
    "tuned3p": {
        "T": -0.4741,
        "scarcity": 24.5807,
        "milk": 4.9066,
        "run": 2.7304,
        "reserve": 5.6445,
    },
    "tuned4p": {
        "T": -2.1963,
        "scarcity": 22.9489,
        "milk": 5.0707,
        "run": 2.9506,
        "reserve": 6.0394,
    },
    "tuned5p": {
        "T": -4.4917,
        "scarcity": 23.6982,
        "milk": 5.1529,
        "run": 2.9113,
        "reserve": -0.4569,
    },
}

"""Tuned built-ins: ``sniper`` with parameters found by ``giftsim tune`` for each player count.

Each was tuned by CMA-ES against ``players - 1`` copies of ``sniper``, seat-rotated on
duplicate deals; the command, win share and 95% interval of each run
are in ``docs/tuned/geschenkt-<n>p.json`` (a test checks these values against it), e.g.::

    giftsim tune geschenkt --family sniper --players 4 --field sniper --games 5000 \\
        --generations 15 --final-games 50000 --json docs/tuned/geschenkt-4p.json
"""

TUNED = {
    "tuned3p": {"T": -0.254, "scarcity": 27.4181, "milk": 4.9395, "run": 1.7239, "reserve": 3.7694},
    "tuned4p": {
        "T": -0.3135,
        "scarcity": 16.0645,
        "milk": 5.3368,
        "run": 2.0098,
        "reserve": 2.9267,
    },
    "tuned5p": {"T": -0.6427, "scarcity": 13.6922, "milk": 6.2979, "run": 1.828, "reserve": 1.9628},
}

"""Tuned built-ins: ``hoarder`` with parameters found by ``giftsim tune`` for 2, 4 and 6 players.

Each was tuned by CMA-ES against ``players - 1`` copies of ``hoarder``, seat-rotated on
duplicate deals; the command, win share and 95% interval of each run are in
``docs/tuned/tulips-<n>p.json`` (a test checks these values against it), e.g.::

    giftsim tune tulips --family hoarder --players 4 --field hoarder --games 1000 \\
        --generations 8 --sigma 1.0 --final-games 10000 --json docs/tuned/tulips-4p.json

Finding: ``hoarder``'s defaults are a fixed point of this search. Every tuned set plays like
``hoarder`` itself on all but a few decisions, and each run's held-out win share is the fair
share within its interval; the tuned agents ship so that the ladder can show it.
"""

TUNED = {
    "tuned2p": {
        "hoard": 3.9536,
        "climb": -0.3453,
        "hide": 0.1253,
        "second": 1.8416,
        "feed": 1.9921,
    },
    "tuned4p": {
        "hoard": 0.3108,
        "climb": -1.7639,
        "hide": -0.7788,
        "second": 0.0434,
        "feed": 0.9294,
    },
    "tuned6p": {
        "hoard": 3.7814,
        "climb": 1.0639,
        "hide": -0.0839,
        "second": 0.6004,
        "feed": -0.8916,
    },
}

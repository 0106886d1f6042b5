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
    "tuned2p": {"hoard": 3.8272, "climb": 0.6372, "hide": 0.6635, "second": 1.9614, "feed": 0.403},
    "tuned4p": {
        "hoard": 1.9415,
        "climb": 0.1082,
        "hide": -0.0559,
        "second": 0.7052,
        "feed": -0.9378,
    },
    "tuned6p": {
        "hoard": 2.822,
        "climb": -0.1872,
        "hide": -1.4676,
        "second": 1.4597,
        "feed": 0.4092,
    },
}

"""Tuned built-ins: ``hoarder`` with parameters found by ``giftsim tune`` for 2, 4 and 6 players.

Each was tuned by CMA-ES over all eight of ``hoarder``'s parameters against ``players - 1``
copies of ``hoarder`` (at its defaults), seat-rotated on duplicate deals; the command, win
share and 95% interval of each run are in ``docs/tuned/tulips-<n>p.json`` (a test checks these
values against it), e.g.::

    giftsim tune tulips --family hoarder --players 4 --field hoarder --games 2000 \\
        --generations 40 --popsize 12 --sigma 0.5 --final-games 20000 \\
        --json docs/tuned/tulips-4p.json

What the tuning found is in ``docs/findings.md``, section 5.
"""

TUNED = {
    "tuned2p": {
        "hoard": 0.8851,
        "climb": -0.3917,
        "hide": -1.0632,
        "second": 0.2945,
        "feed": 1.1651,
        "race": 0.3838,
        "follow": 0.817,
        "pick": -0.915,
    },
    "tuned4p": {
        "hoard": 0.5429,
        "climb": 0.1676,
        "hide": -0.1067,
        "second": 0.5521,
        "feed": -0.3215,
        "race": 0.0343,
        "follow": 0.9746,
        "pick": 0.0966,
    },
    "tuned6p": {
        "hoard": 1.2721,
        "climb": 0.3319,
        "hide": -0.1788,
        "second": 1.0323,
        "feed": -1.5048,
        "race": 0.0254,
        "follow": 0.9018,
        "pick": 0.027,
    },
}

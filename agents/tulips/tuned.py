"""Tuned built-ins: ``hoarder`` with parameters found by ``giftsim tune`` for 2, 4 and 6 players.

Each was tuned by CMA-ES over all eight of ``hoarder``'s parameters against ``players - 1``
copies of ``hoarder`` (at its defaults), seat-rotated on duplicate deals; the command, win
share and 95% interval of each run are in ``docs/tuned/tulips-<n>p.json`` (a test checks these
values against it), e.g.::

    giftsim tune tulips --family hoarder --players 4 --field hoarder --games 2000 \\
        --generations 40 --popsize 12 --sigma 0.5 --final-games 20000 \\
        --json docs/tuned/tulips-4p.json

Finding: the gain is ``follow``, which ``hoarder``'s defaults leave off. Every run sets it
near 1 (0.82, 0.97, 0.90): on a turn's first card, weigh what the second card will be worth
with the actions left. ``hoarder`` gives first and keeps second (84% of its first cards at 4
players); ``tuned4p`` keeps first every card of a variety in 4th place or out of the festival
(2 points, against a gift's 2 to 4) and saves the gift for the second card, while still giving
cards of the top two varieties at once. On fresh deals the tuned agents win 65.5% [65.1, 66.0]
against one ``hoarder`` (fair 50%), 42.2% [41.9, 42.5] against three (25%) and 31.6% [31.3,
31.9] against five (16.7%). ``race`` stays small (0.38 at 2 players, 0.03 at 4 and 6; at 0.3 on
its own it costs ``hoarder`` about half its wins at 4 players), and ``pick`` has no effect at 2
players (one rival) and stays near 0 at 4 and 6.
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

"""No Thanks! agents: one module per hand-written family, the search verbs (``worlds``), the
network's features (``learned``), the shipped networks (``nets/``) and ``ROSTER``, the record
that the registry, the drivers and the studies read (``agents.roster``).

Nothing here compiles on import; the search families are made from the templates on first use.
"""

from pathlib import Path

from agents.base import Family
from agents.geschenkt import greedy, learned, random_agent, sniper, tuned, worlds
from agents.roster import Bench, Gauntlet, Ladder, Roster, Study

NETS = Path(__file__).parent / "nets"
SNIPER = Family.of_module("sniper", "geschenkt", sniper)
ROSTER = Roster(
    game="geschenkt",
    families=(
        Family.of_module("random", "geschenkt", random_agent),
        Family.of_module("greedy", "geschenkt", greedy),
        SNIPER,
        *(SNIPER.tuned(name, params) for name, params in tuned.TUNED.items()),
        Family.of_module("learned", "geschenkt", learned, NETS),
    ),
    search={
        "flatmc": {"iters": 1000.0, "policy": 4.0, "margin": 0.0},
        "ismcts": {
            "iters": 1100.0,
            "policy": 4.0,
            "margin": 0.3,
            "explore": 0.7,
            "expand": 30.0,
            "others": 1.0,
        },
        "flatmc_net": {
            **{"iters": 600.0, "policy": 4.0, "margin": 0.0},
            **{"depth": 0.0, "mix": 0.5, "leaf": 0.0, "top": 0.0},
        },
        "ismcts_net": {
            "iters": 850.0,
            "policy": 4.0,
            "margin": 0.3,
            "explore": 0.7,
            "expand": 30.0,
            "others": 1.0,
            "depth": 0.0,
        },
    },
    worlds=worlds,
    learned=learned,
    nets=NETS,
    bench=Bench(
        mixes=("random", "greedy", "sniper", "learned"),
        players=(3, 4, 5),
        search_players=3,
        search_field="greedy",
    ),
    ladder=Ladder(
        rungs=("random", "greedy", "sniper", "tuned{n}p", "flatmc", "ismcts"),
        branches=(("tuned{n}p", "learned"), ("ismcts", "ismcts_net")),
        players=(3, 4, 5),
    ),
    demo={
        "seats": Study("mirror", ("random", "greedy", "sniper"), (3, 4, 5), 100_000),
        "round-robin": Study("round-robin", ("random", "greedy", "sniper"), (4,), 15_000),
    },
    lineup=("greedy", "sniper", "random", "greedy:T=-3"),
    gauntlet=Gauntlet(
        agents=("random", "greedy", "sniper", "tuned{n}p", "learned"),
        fields={
            "greedy": ("greedy",),
            "tuned": ("tuned{n}p",),
            "mixed": ("greedy", "sniper", "tuned{n}p"),
            "self": (),
        },
        players=(3, 4, 5),
    ),
)

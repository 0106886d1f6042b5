"""Gift of Tulips agents: one module per hand-written family, the search verbs (``worlds``),
the network's features (``learned``), the shipped networks (``nets/``) and ``ROSTER``, the
record that the registry, the drivers and the studies read (``agents.roster``).

Nothing here compiles on import; the search families are made from the templates on first use.
"""

from pathlib import Path

from agents.base import Family
from agents.roster import Bench, Gauntlet, Ladder, Roster, Study
from agents.tulips import greedy, hoarder, learned, planner, random_agent, tuned, worlds

NETS = Path(__file__).parent / "nets"
HOARDER = Family.of_module("hoarder", "tulips", hoarder)
ROSTER = Roster(
    game="tulips",
    families=(
        Family.of_module("random", "tulips", random_agent),
        Family.of_module("greedy", "tulips", greedy),
        Family.of_module("planner", "tulips", planner),
        HOARDER,
        *(HOARDER.tuned(name, params) for name, params in tuned.TUNED.items()),
        Family.of_module("learned", "tulips", learned, NETS),
    ),
    search={
        "flatmc": {"iters": 1500.0, "policy": 2.0, "margin": 0.5},
        "ismcts": {
            "iters": 1250.0,
            "policy": 2.0,
            "margin": 0.5,
            "explore": 0.7,
            "expand": 30.0,
            "others": 0.0,
        },
        "flatmc_net": {  # flatmc's iterations: flatmc's time (docs/findings.md, section 7)
            **{"iters": 1500.0, "policy": 2.0, "margin": 0.5},
            **{"depth": 0.0, "mix": 0.75, "leaf": 1.0, "top": 0.0},
        },
        "ismcts_net": {
            "iters": 850.0,
            "policy": 2.0,
            "margin": 0.5,
            "explore": 0.7,
            "expand": 30.0,
            "others": 0.0,
            "depth": 0.0,
        },
    },
    worlds=worlds,
    learned=learned,
    nets=NETS,
    bench=Bench(
        mixes=("random", "greedy", "hoarder", "planner", "learned"),
        players=(2, 3, 4, 5, 6),
        search_players=4,
        search_field="hoarder",
    ),
    ladder=Ladder(
        rungs=("random", "greedy", "hoarder", "tuned{n}p", "flatmc", "ismcts"),
        branches=(("tuned{n}p", "learned"), ("flatmc", "flatmc_net")),
        players=(2, 4, 6),
    ),
    demo={
        "seats": Study("mirror", ("random", "greedy", "hoarder"), (2, 3, 4, 5, 6), 20_000),
        "round-robin": Study(
            "round-robin", ("random", "greedy", "hoarder", "planner"), (4,), 1_000
        ),
    },
    lineup=("hoarder", "planner", "greedy", "random"),
    gauntlet=Gauntlet(
        agents=("random", "greedy", "planner", "hoarder", "tuned{n}p", "learned"),
        fields={
            "greedy": ("greedy",),
            "tuned": ("tuned{n}p",),
            "mixed": ("greedy", "hoarder", "tuned{n}p"),
            "self": (),
        },
        players=(2, 4, 6),
    ),
)

"""Hidden Pile's built-in agents and its roster (``agents.roster``): two hand-written families,
no search and no network; its compiled drivers come from the templates like every game's."""

from agents.base import Family
from agents.roster import Bench, Gauntlet, Ladder, Roster, Study
from tests.toy_game.agents import random_agent, steady

ROSTER = Roster(
    game="toy",
    families=(
        Family.of_module("random", "toy", random_agent),
        Family.of_module("steady", "toy", steady),
    ),
    search={},
    worlds=None,
    learned=None,
    nets=None,
    bench=Bench(
        ("random", "steady"), (2, 3), search_players=0, search_field="", vector=(3, "steady")
    ),
    ladder=Ladder(rungs=("random", "steady"), branches=(), players=(2, 3)),
    demo={
        "seats": Study("mirror", ("random", "steady"), (2, 3), 2_000),
        "round-robin": Study("round-robin", ("random", "steady"), (3,), 500),
    },
    lineup=("steady", "random", "steady:margin=2"),
    gauntlet=Gauntlet(
        agents=("random", "steady", "steady:margin=2"),
        fields={
            "random": ("random",),
            "steady": ("steady",),
            "mixed": ("random", "steady"),
            "self": (),
        },
        players=(2, 3),
    ),
)

"""Hypothesis profiles: fresh random examples while developing, a fixed set on CI; and the toy
third game, registered for every test (the contract test runs on each game of the list)."""

import os

from hypothesis import settings

from giftsim.game import register_game

register_game("toy", "tests.toy_game")

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_collection_modifyitems(items) -> None:
    """The notebooks and the tests marked ``slow`` first, each group in its order: pytest-xdist
    hands each worker a run of the list and a worker that runs dry takes the end of another's,
    so that long tests left at the end kept one worker busy while the other idled."""
    items.sort(
        key=lambda item: not (item.nodeid.endswith(".ipynb") or item.get_closest_marker("slow"))
    )

"""Hypothesis profiles: fresh random examples while developing, a fixed set on CI; and the toy
third game, registered for every test (the contract test runs on each game of the list)."""

import os

from hypothesis import settings

from giftsim.game import register_game

register_game("toy", "tests.toy_game")

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

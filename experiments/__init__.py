"""Experiments: seeded batches of games -> tidy tables -> statistics -> plots; the CLI."""

import giftsim  # noqa: F401  (sets the Numba cache folder before any kernel compiles)

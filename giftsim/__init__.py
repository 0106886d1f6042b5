"""giftsim: shared low-level pieces of the two game packages.

This tiny package sits *below* both engines (``geschenkt_sim``, ``tulips_sim``): it holds only
what both need and neither owns, the counter-based random streams. Everything game-specific lives
in the game packages; agents, experiments and the CLI live above them.
"""

__version__ = "0.1.0"

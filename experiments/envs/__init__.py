"""Standard interfaces for learning over the games' compiled verbs, one module per interface.

Each module imports its optional package (``pip install giftsim[rl]``) itself: nothing here is
imported by ``import experiments``.
"""

"""Standard interfaces for learning over the games' compiled verbs, one module per interface:
PettingZoo (``pettingzoo_env``), Gymnasium (``gym_env``), OpenSpiel (``openspiel_game``).

Each module imports its optional package (``pip install giftsim[rl]``) itself: nothing here is
imported by ``import experiments``.
"""

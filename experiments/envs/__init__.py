"""Standard interfaces for learning over the games' compiled verbs, one module per interface:
the compiled vector environment (``vector``), PettingZoo (``pettingzoo_env``), Gymnasium
(``gym_env``), OpenSpiel (``openspiel_game``); ``table`` is the Python game table the PettingZoo
and Gymnasium environments share.

Each module imports its optional package (``pip install giftsim[rl]``) itself: nothing here is
imported by ``import experiments``.
"""

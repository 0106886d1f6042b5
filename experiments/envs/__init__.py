"""Standard interfaces for learning over the games' compiled verbs, one module per interface:
the compiled vector environment (``vector``; its lanes stepped from Python when an opponent is
Python, ``python_lanes``; opponents beyond agent specs, ``opponents``), the same as a
Gymnasium ``VectorEnv`` (``gym_vector``) and a Stable-Baselines3 ``VecEnv`` (``sb3_vec``),
PettingZoo (``pettingzoo_env``), Gymnasium (``gym_env``), OpenSpiel (``openspiel_game``);
``table`` is the Python game table the PettingZoo and Gymnasium environments share (and
``EnvError``, their one exception for bad input); ``speed`` measures them all.

Each module imports its optional package itself (``pip install giftsim[rl]``; ``sb3_vec``
needs ``giftsim[sb3]`` and torch): nothing here is imported by ``import experiments``.
"""

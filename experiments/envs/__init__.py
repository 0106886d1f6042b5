"""Learning environments over the games' verbs: PettingZoo (``pettingzoo_env``), Gymnasium
(``gym_env``). Each module imports its optional package (``pip install giftsim[rl]``) itself;
importing this package imports none of them."""

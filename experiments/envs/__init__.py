"""Learning interfaces over the games' compiled verbs: one module per interface (the vector
environment in ``vector.py``). Optional packages are imported inside their modules only."""

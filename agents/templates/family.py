"""Stub: the family whose entry ``entry.py`` is instantiated for (``agents.drivers.generate``
replaces the import of this module with the family's own)."""


def decide(obs, params, rng):
    raise NotImplementedError("an entry is generated per family: agents.drivers.generate")

"""Stub: the family whose entry ``entry.py`` (its ``decide``) or ``ask_family.py`` (its entry,
``decider``) is instantiated for (``agents.drivers.generate`` replaces the import of this
module with the family's own)."""


def decide(obs, params, rng):
    raise NotImplementedError("an entry is generated per family: agents.drivers.generate")


def decider(obs, params, rng, scratch):
    raise NotImplementedError("an ask is generated per family: agents.drivers.generate")

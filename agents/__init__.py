"""Agents for both games: a registry of families, spec strings, compiled decision functions.

An agent is a docstring, a name, parameters and one short compiled decision function
``decide(obs, params, rng) -> action`` (see ``giftsim.contract``). A game's built-in families
are registered the first time its agents are asked for (``agents.registry``);
:func:`agents.registry.define` adds one from a notebook or script.
"""

import giftsim  # noqa: F401  (sets the Numba cache folder before any kernel compiles)

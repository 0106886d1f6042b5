"""``giftsim.inlining``: a verb compiled with ``inline=unless_called`` is copied into each
caller's IR, except in a module that sets ``CALL_RULES = True``, where it is called."""

import pytest
from numba import njit

from agents.drivers.generate import driver
from giftsim.inlining import unless_called


@njit(inline=unless_called)
def _step(x):
    return x + 1


def _caller(module_globals: dict):
    """A compiled caller of ``_step`` defined in a module with these globals."""
    namespace = {**module_globals, "_step": _step}
    exec("def caller(x):\n    return _step(x) * 2\n", namespace)
    return njit(namespace["caller"])


def test_a_verb_is_copied_into_a_caller_and_called_from_a_module_that_says_so():
    """A copied verb is never compiled as a function of its own; a called one is, once."""
    copied, called = _caller({}), _caller({"CALL_RULES": True})
    assert (copied(1), _step.signatures) == (4, [])
    assert (called(1), len(_step.signatures)) == (4, 1)


CALLERS = ["flatmc", "flatmc_net", "ismcts", "ismcts_net", "leaf", "playouts"]  # the searches
CALLERS += ["vector", "luck", "respond", "isolated"]  # drivers whose cost is not the step


@pytest.mark.parametrize("kind", CALLERS)
def test_the_generated_modules_of_searches_and_other_drivers_call_the_verbs(kind):
    """The flag survives generation (``agents.drivers.generate``) in every template that calls
    the verbs: without it a cold compile of the Tulips vector environment took twice as long
    (``docs/perf/README.md``)."""
    assert driver("tulips", kind).CALL_RULES is True


def test_the_game_loop_copies_the_verbs_in():
    """The game loop, whose speed the copies are for, does not set the flag."""
    assert not hasattr(driver("tulips", "loop"), "CALL_RULES")

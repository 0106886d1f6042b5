"""The game loop's plain hook: it records nothing, and compiles away.

A hook module gives the loop (``loop.py``) five functions of its ``hook`` argument (any value
the loop's caller passes: ``None`` here): ``has_room(hook)`` before each match (False stops
the block early), ``started(hook, state, key)`` after each deal, ``decided(hook, state,
seat, action, mask, g)`` after each asked decision (it returns the action to play),
``acted(hook, state, action, g)`` before every action is applied and ``ended(hook, state,
g)`` after each game.
"""

from numba import njit


@njit(cache=True)
def has_room(hook):
    return True


@njit(cache=True)
def started(hook, state, key):
    pass


@njit(cache=True)
def decided(hook, state, seat, action, mask, g):
    return action


@njit(cache=True)
def acted(hook, state, action, g):
    pass


@njit(cache=True)
def ended(hook, state, g):
    pass

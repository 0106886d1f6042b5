"""The event recorder, a hook of the game loop: every action the game's ``event`` verb calls an
event, in order (``experiments.anatomy``: the price of each No Thanks! card).

The hook value is ``(events, at)``: ``events`` int64 ``(n_games, rows, 3 + EVENT_WIDTH)``, one
row per event of game ``g`` of the block (the ply, the acting seat, the action, then what
``event`` wrote); ``at`` two ints of work (the ply and the next row of the game being played).
"""

from numba import njit

from .game import EVENT_WIDTH, TURN, event
from .no_hook import decided, ended, has_room  # noqa: F401  (the loop imports them from here)

PLY, SEAT, ACTION = 0, 1, 2  # columns of an event row; the event's own numbers follow
EVENTS, AT = 0, 1  # slots of the hook value


@njit(cache=True)
def started(hook, state, key):
    hook[AT][0], hook[AT][1] = 0, 0


@njit(cache=True)
def acted(hook, state, action, g):
    """Ask the game whether ``action`` is an event; if so, add its row."""
    events, at = hook[EVENTS], hook[AT]
    ply, row = at[0], at[1]
    at[0] = ply + 1
    if row >= events.shape[1] or not event(state, action, events[g, row, 3 : 3 + EVENT_WIDTH]):
        return
    events[g, row, PLY], events[g, row, SEAT], events[g, row, ACTION] = ply, state[TURN], action
    at[1] = row + 1

"""The event verb of a game that records no events (``giftsim.game``: ``event``)."""

from numba import njit


@njit(cache=True)
def no_event(state, action, out):
    """No action is an event."""
    return False

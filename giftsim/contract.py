"""The compiled agent contract shared by every game, and where its seal ends.

An agent's rule is ``decide(obs, params, rng) -> action``, written over arrays: ``obs`` is the
observation of the seat to act (int64 slots, layout in the game's ``state.py``/``engine.py``),
``params`` the agent's ``MAX_PARAMS`` float64 parameters and ``rng`` a one-word random stream
for ``giftsim.rng``.

The compiled loop calls agents through an *entry* of the one Numba function type
``DECIDER_SIG``, which takes raw pointers, so that every seat's entry (given to the loop by its
addresses: ``agents.kernels.entries``) is of one type and the loop compiles once for any mix
of agents, user-defined ones included. The entry
views the pointers as arrays and calls ``decide`` directly. Sealing:

* a built-in's entry (:func:`as_arrays`) views the observation as a *read-only* array, so a
  built-in that wrote into it would not compile; the loop can then show it the observation
  where it already lies, the live state's public prefix, without a copy (tests run every
  built-in bounds-checked to show it reads nothing past the observation);
* a user agent's entry (:func:`pointer_entry`) copies the observation into its seat's own
  scratch row (zeros after it) and calls ``decide``, compiled bounds-checked, on that copy,
  which it may write into freely. The copy costs only user agents' decisions;
* every entry views the parameter row read-only: an agent that wrote its parameters would
  carry state from one decision to the next through the loop's parameter table, and its
  games would then depend on how a run is cut into blocks, so such a ``decide`` does not
  compile (``define`` refuses it with one line). The slow path hands each decision a fresh
  copy of the row, so a plain-Python agent's writes have no effect.

Threat model. An agent in this process (a built-in, a ``define``d agent, compiled or plain
Python) is *trusted code*: the seal above guards against mistakes (a read past the
observation is an error, a write into it changes nothing, parameters are read-only, the
random stream cannot be run back to the deal), not against an author who wants to cheat.
Compiled code can view any memory of the process (``np.lib.stride_tricks.as_strided``,
:func:`address` with ``numba.carray``, ctypes), ``numba.objmode`` and plain Python can walk
the caller's frames (``sys._getframe``) to the live state and the run's secret, and nothing
in one process can stop that. Untrusted code plays *isolated* (``agents.isolation``): in an
OS process of its own, started without this process's state, secret, seeds or records, to
which only each decision's observation (a copy) and the agent's stream word cross, and whose
faults (an exception, a crash, a hang, too much memory, an illegal action) forfeit a game
instead of stopping the run.
"""

import numpy as np
from numba import carray, njit, types
from numba.core.imputils import impl_ret_borrowed
from numba.extending import intrinsic

from giftsim.checks import is_whole

MAX_PARAMS = 8
# A seat's scratch row holds OBS_SIZE + STATE_SIZE + SCRATCH_WORK int64 slots, rounded up to
# whole cache lines (``scratch_size``): a user agent's copy of its observation, then zeros a
# built-in may use as work space (so that its decisions allocate nothing): room for a second
# state and a few vectors (the Tulips ``learned`` agent draws one world and applies each action
# to a copy of it).
SCRATCH_WORK = 1280
LINE = 8  # int64 slots in a 64-byte cache line
# entry(obs, params, rng, scratch): the observation, the seat's parameter row, its random word,
# and its own scratch row (where a user agent's entry copies the observation).
DECIDER_SIG = types.int64(
    types.CPointer(types.int64),
    types.CPointer(types.float64),
    types.CPointer(types.uint64),
    types.CPointer(types.int64),
)
# probabilities(obs, params, out) -> known: an agent family whose action probabilities are
# known writes the probability of each action id into ``out`` (``NUM_ACTIONS`` long) for the
# observation ``obs`` (a copy) and returns True (the luck estimator's decision corrections,
# ``agents/templates/luck.py``); the same signature returning False stands for "unknown".
PROBS_SIG = types.boolean(types.int64[::1], types.float64[::1], types.float64[::1])

# Seat policy for the first player of game i in a batch (seats >= 0 are fixed seats).
FIRST_RANDOM = -1
FIRST_ROTATE = -2


def scratch_size(obs_size: int, state_size: int) -> int:
    """Slots of a seat's scratch row (``OBS_SIZE + STATE_SIZE + SCRATCH_WORK``), rounded up to
    whole cache lines, so that every seat's row in a table of rows starts at the same place
    relative to the cache lines as the first (a row that straddles them makes a built-in's
    copies of a state dearer)."""
    return -(-(obs_size + state_size + SCRATCH_WORK) // LINE) * LINE


@intrinsic
def address(typingctx, array, index):
    """Pointer to ``array[index]`` of a contiguous 1-d array (compiled code only)."""
    sig = types.CPointer(array.dtype)(array, index)

    def codegen(context, builder, signature, args):
        view = context.make_array(signature.args[0])(context, builder, value=args[0])
        return builder.gep(view.data, [args[1]])

    return sig, codegen


@intrinsic
def readonly(typingctx, array):
    """The same array, typed read-only: code that writes into it does not compile."""
    sig = array.copy(readonly=True)(array)

    def codegen(context, builder, signature, args):
        return impl_ret_borrowed(context, builder, signature.return_type, args[0])

    return sig, codegen


def read_only(array: np.ndarray) -> np.ndarray:
    """A read-only view of ``array`` from Python (the array itself stays writable): compiled
    code is called with it typed as ``readonly`` gives it there, so a kernel that compiled (or
    Numba cached) for the arrays an entry shows runs that specialisation rather than compiling
    another for writable ones."""
    view = array.view()
    view.flags.writeable = False
    return view


@njit(cache=True)
def as_arrays(obs, params, rng, obs_size):
    """The pointers of a built-in's entry call viewed as the arrays ``decide`` takes, the
    observation and the parameters read-only."""
    shown = readonly(carray(obs, (obs_size,)))
    return shown, readonly(carray(params, (MAX_PARAMS,))), carray(rng, (1,))


def pointer_entry(decide, obs_size: int, lazy: bool = False):
    """Compile the loop entry of a user-defined ``decide`` (not cached: closures cannot be),
    which gets its own writable copy of the observation and its parameters read-only; with
    ``lazy``, compile it only when first asked (``Family.entry``)."""

    def entry(obs, params, rng, scratch):
        shown, own = carray(obs, (obs_size,)), carray(scratch, (obs_size,))
        for i in range(obs_size):
            own[i] = shown[i]
        row = readonly(carray(params, (MAX_PARAMS,)))
        return decide(own, row, carray(rng, (1,)))

    return njit(entry) if lazy else njit(DECIDER_SIG)(entry)


def check_action_type(decide) -> None:
    """One line (``ValueError``) if a compiled ``decide`` returns anything but a whole number:
    the entry's ``int64`` would silently truncate a float action (1.7 plays 1)."""
    for signature in getattr(decide, "nopython_signatures", ()):
        returned = signature.return_type
        if not isinstance(returned, (types.Integer, types.Boolean)):
            raise ValueError(
                f"decide returns {returned}, not a whole number: an action is an int "
                "(return int(...) of a computed action)"
            )


@njit(cache=True)
def first_seat(policy, game_index, n_players):
    """First player of game ``game_index`` under a batch policy: a seat, random or rotating.

    ``FIRST_RANDOM`` is passed on to the deal, which draws the seat from the game's own stream.
    """
    if policy == FIRST_ROTATE:
        return game_index % n_players
    return policy


def first_policy(first_player, n_players: int) -> int:
    """Encode ``"rotate"``, ``"random"`` or a seat as a policy number for compiled code."""
    if first_player == "rotate":
        return FIRST_ROTATE
    if first_player == "random":
        return FIRST_RANDOM
    if is_whole(first_player) and 0 <= first_player < n_players:
        return int(first_player)
    raise ValueError(
        f"first_player must be 'rotate', 'random' or a seat in 0..{n_players - 1}, "
        f"got {first_player!r}"
    )


def first_player_for(first_player, rules, default="rotate"):
    """The first-player policy a run plays: the given one, else the seat the rules fix, else
    ``default``. A given one that the rules' fixed seat contradicts is an error: the deal would
    play it while the records' rules say the fixed seat."""
    fixed = getattr(rules, "first_player", "random")
    if first_player is None:
        return fixed if not isinstance(fixed, str) else default
    if not isinstance(fixed, str) and first_player != fixed:
        raise ValueError(
            f"first_player={first_player!r} contradicts the rules' first_player={fixed}: "
            "give one of them"
        )
    return first_player

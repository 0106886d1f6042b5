"""The learned evaluator: a small multilayer perceptron over a game's afterstate features,
run inside the compiled loop with its weights as one float32 array.

A network maps a seat's *features* (``agents/<game>/learned.py``: a few dozen numbers read
off what the seat may know) to the logit of its expected share of the win. It has one hidden
layer of rectified units: ``logit = w2 . relu(W1 x + b1) + b2``. The weights travel as one
flat array (``pack``), header first, so that compiled code reads them through a single
pointer: an agent's parameter row carries the array's address in slot ``NET_SLOT`` (filled in
the process that plays, by :func:`address_of`), so no game loop is recompiled for another
network.

Flat layout (float32: the network is small and runs twice as fast in single precision):

==========  ==========  ==========================================================
slot        size        meaning
==========  ==========  ==========================================================
``SIZE``    1           length of the whole array
``INPUTS``  1           number of features ``F``
``HIDDEN``  1           hidden units ``H``
``PLAYERS`` 1           the player count the network was trained for
(spare)     4           zeros
``W1``      ``F * H``   first layer by input: row ``i`` holds input ``i``'s weight
                        into every hidden unit (so a zero input costs nothing, and
                        an input that changes updates the hidden layer in place)
``b1``      ``H``       first layer's biases
``w2``      ``H``       output weights
``b2``      1           output bias
==========  ==========  ==========================================================

A network file (``.npz``) holds ``w1``, ``b1``, ``w2``, ``b2`` and a JSON ``meta`` string
(game, players, features, and how it was made).
"""

import json
import os
from pathlib import Path

import numpy as np
from numba import carray, njit, types
from numba.extending import intrinsic

from giftsim import files
from giftsim.contract import MAX_PARAMS, readonly

NET_SLOT = MAX_PARAMS - 1  # the parameter slot that carries a network's address
SIZE, INPUTS, HIDDEN, PLAYERS = 0, 1, 2, 3
HEADER = 8
MAX_HIDDEN = 128  # hidden units a shipped agent's work space has room for
_LOADED: dict[tuple, np.ndarray] = {}  # packed networks by (file_key, game), kept alive


def pack(w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: float, players: int) -> np.ndarray:
    """The flat array of a network (layout in the module docstring)."""
    hidden, inputs = w1.shape
    flat = np.zeros(HEADER + hidden * inputs + 2 * hidden + 1, np.float32)
    flat[SIZE], flat[INPUTS], flat[HIDDEN], flat[PLAYERS] = flat.size, inputs, hidden, players
    body = np.concatenate([w1.T.ravel(), b1, w2, [b2]])
    flat[HEADER:] = body
    return flat


def save(path, w1, b1, w2, b2, meta: dict, force: bool = False) -> None:
    """Write a network file: its weights and its ``meta`` (game, players, features, ...),
    through a temporary file; an existing file is replaced only if ``force``
    (``giftsim.files``)."""

    def write(temporary: Path) -> None:
        with open(temporary, "wb") as f:  # np.savez would append .npz to a name without it
            np.savez(f, w1=w1, b1=b1, w2=w2, b2=np.float64(b2), meta=json.dumps(meta))

    files.write_with(path, write, force, what="network file")


def read(path) -> tuple[dict, dict]:
    """A network file's weights (``w1``, ``b1``, ``w2``, ``b2``) and its meta, checked to be a
    network (shapes that fit together, finite weights, a meta object), or a one-line
    ValueError naming the file and what is wrong with it (an empty or cut file included)."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"network file {str(path)!r} is a folder; name a .npz file")
    if not path.is_file():
        raise ValueError(f"network file {str(path)!r}: no such file")
    try:
        with np.load(path, allow_pickle=False) as data:
            weights = {k: np.asarray(data[k], np.float64) for k in ("w1", "b1", "w2", "b2")}
            meta = json.loads(str(data["meta"]))
    except Exception as error:  # numpy and zipfile raise many kinds for a damaged file
        why = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(
            f"network file {str(path)!r} is not a giftsim network (damaged, cut short or "
            f"another kind of file: {why})"
        ) from None
    _check_weights(path, weights, meta)
    return weights, meta


def _check_weights(path, weights: dict, meta) -> None:
    """Shapes ``w1 (H, F)``, ``b1 (H,)``, ``w2 (H,)``, ``b2 ()`` and finite values."""
    where = f"network file {str(path)!r}"
    if not isinstance(meta, dict):
        raise ValueError(f"{where} has no meta object (game, players)")
    w1 = weights["w1"]
    hidden = w1.shape[0] if w1.ndim == 2 else -1
    shapes = {"w1": w1.shape, "b1": (hidden,), "w2": (hidden,), "b2": ()}
    for name, shape in shapes.items():
        if hidden < 1 or weights[name].shape != shape:
            raise ValueError(
                f"{where}: {name} has shape {weights[name].shape}; a network has w1 (H, F), "
                "b1 (H,), w2 (H,) and b2 (a number)"
            )
    largest = float(np.finfo(np.float32).max)  # the network runs in float32
    for name, array in weights.items():
        if not np.isfinite(array).all():
            raise ValueError(f"{where}: {name} holds a weight that is not finite (NaN or inf)")
        if np.abs(array).max(initial=0.0) > largest:
            raise ValueError(f"{where}: {name} holds a weight too large for float32")


def check_file(path, game: str) -> None:
    """A one-line ValueError unless ``path`` is a network of ``game`` (its player count and
    features are checked when it is loaded for a table)."""
    _, meta = read(path)
    if meta.get("game") != game:
        raise ValueError(f"network {str(path)!r} is for {meta.get('game')!r}, not {game!r}")


def file_key(path) -> tuple:
    """A file as a cache key: its device and inode (the file, whatever path names it), size
    and time of last change (so a file replaced at the same path, a network retrained there,
    is not the one cached). One ``stat``, not a resolved path as well: a round-robin asks for
    it at every seating."""
    try:
        state = os.stat(path)
    except OSError:  # missing: reading it says so
        return (str(path), -1, -1)
    return (state.st_dev, state.st_ino, state.st_size, state.st_mtime_ns)


def load(path, game: str, players: int, n_features: int) -> np.ndarray:
    """The packed network of a file for ``game`` at ``players`` seats (cached per process by
    the file's path and its state: a file replaced since is read again; kept alive: compiled
    code holds its address). A one-line ValueError when it does not fit."""
    key = (*file_key(path), game, n_features)  # a file is checked for every game
    if key not in _LOADED:
        weights, meta = read(path)
        w1 = weights["w1"]
        _check_fits(path, meta, w1, game, players, n_features)
        _LOADED[key] = pack(w1, weights["b1"], weights["w2"], float(weights["b2"]), players)
    flat = _LOADED[key]
    if int(flat[PLAYERS]) != players:
        raise ValueError(
            f"network {str(path)!r} is for {int(flat[PLAYERS])} players, not {players}"
        )
    return flat


def _check_fits(path, meta, w1, game, players, n_features) -> None:
    where = f"network {str(path)!r}"
    if meta.get("game") != game:
        raise ValueError(f"{where} is for {meta.get('game')!r}, not {game!r}")
    if meta.get("players") != players:
        raise ValueError(f"{where} is for {meta.get('players')} players, not {players}")
    if w1.ndim != 2 or w1.shape[1] != n_features:
        raise ValueError(f"{where} reads {w1.shape[-1]} features; {game} has {n_features}")
    if w1.shape[0] > MAX_HIDDEN:
        raise ValueError(
            f"{where} has {w1.shape[0]} hidden units; an agent's work space holds at most "
            f"{MAX_HIDDEN}"
        )


def shipped(nets: Path | None, game: str, players: int) -> Path:
    """The shipped network of ``game`` for ``players`` seats in the folder ``nets``
    (``<players>p.npz``, with the command that made it in ``<players>p.json`` beside it), or a
    one-line ValueError."""
    path = Path(nets or "") / f"{players}p.npz"
    if nets is None or not path.is_file():
        counts = sorted(int(p.stem[:-1]) for p in Path(nets or ".").glob("*p.npz")) if nets else []
        have = ", ".join(map(str, counts)) or "none"
        raise ValueError(
            f"no shipped {game} network for {players} players (shipped: {have}); make one "
            f"with 'giftsim train {game} --players {players} --out FILE' and play learned:net=FILE"
        )
    return path


def address_of(flat: np.ndarray) -> float:
    """The address of a packed network as the float a parameter row carries (exact: addresses
    are below 2**53)."""
    return float(flat.ctypes.data)


def pointer_to(item):
    """An intrinsic that reads an int64 address as a pointer to ``item`` (a Numba type), for
    compiled code only: a network's float32 weights, a policy table's int64 words."""

    @intrinsic
    def pointer(typingctx, word):
        sig = types.CPointer(item)(types.int64)

        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], context.get_value_type(signature.return_type))

        return sig, codegen

    return pointer


_pointer = pointer_to(types.float32)


@intrinsic
def _as_floats(typingctx, pointer):
    """An int64 pointer viewed as a float32 pointer (the same bytes; compiled code only)."""
    sig = types.CPointer(types.float32)(pointer)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(signature.return_type))

    return sig, codegen


@njit(cache=True)
def work_rows(scratch, ints, floats):
    """A built-in's work space in its seat's scratch row (``giftsim.contract``): ``ints``
    int64 slots, then ``floats`` float32 slots, so that a decision allocates nothing."""
    return carray(scratch, (ints,)), carray(_as_floats(scratch), (2 * ints + floats,))[2 * ints :]


@njit(cache=True)
def weights_of(params):
    """The packed network whose address a parameter row carries, read-only."""
    at = _pointer(np.int64(params[NET_SLOT]))
    size = np.int64(carray(at, (1,))[0])
    return readonly(carray(at, (size,)))


@njit(cache=True, fastmath=True)
def first_layer(net, x, h):
    """Write the hidden units' inputs ``W1 x + b1`` for features ``x`` into ``h``."""
    inputs, hidden = np.int64(net[INPUTS]), np.int64(net[HIDDEN])
    b1 = HEADER + hidden * inputs
    for j in range(hidden):
        h[j] = net[b1 + j]
    for i in range(inputs):
        if x[i] != 0.0:
            row = HEADER + i * hidden
            for j in range(hidden):
                h[j] += net[row + j] * x[i]


@njit(cache=True, fastmath=True)
def shift(net, x_from, x_to, h):
    """Update ``h = W1 x_from + b1`` to ``W1 x_to + b1`` through the inputs that differ."""
    inputs, hidden = np.int64(net[INPUTS]), np.int64(net[HIDDEN])
    for i in range(inputs):
        change = x_to[i] - x_from[i]
        if change != 0.0:
            row = HEADER + i * hidden
            for j in range(hidden):
                h[j] += net[row + j] * change


@njit(cache=True, fastmath=True)
def output(net, h):
    """The logit from the hidden units' inputs ``h``: ``w2 . relu(h) + b2``."""
    inputs, hidden = np.int64(net[INPUTS]), np.int64(net[HIDDEN])
    w2 = HEADER + hidden * inputs + hidden
    total = net[w2 + hidden]
    for j in range(hidden):
        total += net[w2 + j] * max(h[j], 0.0)
    return total


@njit(cache=True)
def logit(net, x):
    """The network's output for features ``x`` before the logistic: the larger, the better
    for the seat (a monotone function of its estimated share of the win)."""
    h = np.empty(np.int64(net[HIDDEN]), np.float32)
    first_layer(net, x, h)
    return output(net, h)


@njit(cache=True)
def share(net, x):
    """The network's estimate of the seat's share of the win (the logistic of its logit)."""
    return 1.0 / (1.0 + np.exp(-logit(net, x)))

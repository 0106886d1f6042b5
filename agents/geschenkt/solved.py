"""``solved``: plays a policy table written by ``giftsim solve`` (``solved:table=FILE``).

A table (``policy.parquet``, or a best response's table) holds, for every chain of a solved
variant (``geschenkt_sim/solve.py``: the decisions on one card from the moment it turns up),
the pots at which the seat to act takes. It is read once per process into one int64 array
whose address rides in the parameter slot ``NET_SLOT``, as a network's does:

===========  ==================================================================
slot         meaning
===========  ==================================================================
``T_SIZE``   length of the whole array
``T_WIDTH``  pots per chain (``0 .. C``): a chain has a take bit per pot and then a bit
             that says the table holds it
``T_BSIDE``  side of the binomial table
``T_START``  length of the level starts
(spare)      zeros, up to ``HEADER``
then         the solver's layout vector (``LAY_SIZE``), the binomial table, the
             level starts, and the bits (``chain * (width + 1) + pot``, and
             ``chain * (width + 1) + width`` set for each chain of the file)
===========  ==================================================================

A table solved for other rules is refused in one line when the rules are known
(``Agent.check_rules``); in play, a state the table does not hold (other rules reaching the
loop another way, or a best response's table, which holds only the chains its responder
reaches in its own seat, played in another seat) is answered with an illegal action, which
the loop reports.
"""

import json
from pathlib import Path

import numpy as np
from numba import carray, njit, types

from agents.kernels.net import NET_SLOT, file_key, pointer_to
from geschenkt_sim import solve
from geschenkt_sim.rules import MAX_PLAYERS, PASS, TAKE
from geschenkt_sim.state import (
    CARD,
    CHIPS,
    CHIPS_VISIBLE,
    HANDS,
    HIGHEST,
    LOWEST,
    N_PLAYERS,
    N_REMOVED,
    POT,
    SEAT,
    TOTAL_CHIPS,
    TURN,
)
from giftsim.contract import readonly

PARAMS: dict[str, float] = {}
RANGES: dict[str, object] = {}
T_SIZE, T_WIDTH, T_BSIDE, T_START = 0, 1, 2, 3
HEADER = 8
NOT_IN_TABLE = -1  # the answer to a state of other rules: an illegal action
_LOADED: dict[tuple, tuple[dict, np.ndarray]] = {}  # tables by net.file_key, kept alive
_int_pointer = pointer_to(types.int64)


@njit(cache=True)
def table_of(params):
    """The packed table whose address a parameter row carries, read-only."""
    at = _int_pointer(np.int64(params[NET_SLOT]))
    return readonly(carray(at, (carray(at, (1,))[0],)))


@njit(cache=True)
def _parts(table):
    """The layout vector, binomials, level starts and take bits of a packed table."""
    side, at = table[T_BSIDE], HEADER + solve.LAY_SIZE
    lay = table[HEADER:at]
    binom = table[at : at + side * side].reshape((side, side))
    at += side * side
    start = table[at : at + table[T_START]]
    return lay, binom, start, table[at + table[T_START] :]


@njit(cache=True)
def _fits(obs, lay):
    """Whether the observation is of the rules the table was solved for."""
    n, lowest = lay[solve.LAY_PLAYERS], lay[solve.LAY_LOWEST]
    same = obs[N_PLAYERS] == n and obs[LOWEST] == lowest and obs[CHIPS_VISIBLE] == 1
    same &= obs[HIGHEST] == lowest + lay[solve.LAY_POSITIONS] - 1
    return (
        same
        and obs[N_REMOVED] == lay[solve.LAY_REMOVED]
        and (obs[TOTAL_CHIPS] == lay[solve.LAY_TOTAL_CHIPS])
    )


@njit(cache=True)
def decide(obs, params, rng):
    """Take iff the table says the seat to act takes at this pot: the optimal policy of
    ``giftsim solve`` (subgame-perfect; ties take), or a best response it wrote. Takes when
    out of chips. The table is the agent's ``table`` (``solved:table=FILE``)."""
    seat = obs[SEAT]
    if obs[CHIPS + seat] == 0:
        return TAKE
    table = table_of(params)
    if not _fits(obs, _parts(table)[0]):
        return NOT_IN_TABLE
    n, lowest = obs[N_PLAYERS], obs[LOWEST]
    hands, chips = np.zeros(MAX_PLAYERS, np.int64), np.zeros(MAX_PLAYERS, np.int64)
    for p in range(n):
        hands[p] = obs[HANDS + p] >> lowest
        chips[p] = obs[CHIPS + p]
    return lookup(table, hands[:n], chips[:n], obs[CARD] - lowest, obs[POT], obs[TURN])


@njit(cache=True)
def lookup(table, hands, chips, card, pot, turn):
    """The table's action at a public state (hands as position bits, chips now, the card up as
    a position, the pot, the seat to act), or ``NOT_IN_TABLE``."""
    lay, binom, start, bits = _parts(table)
    chain, j = solve.decision_of(hands, chips, card, pot, turn, lay, binom, start)
    if chain < 0:
        return NOT_IN_TABLE
    stride = table[T_WIDTH] + 1
    held = chain * stride + table[T_WIDTH]
    if not (bits[held >> 6] >> (held & 63)) & 1:
        return NOT_IN_TABLE
    bit = chain * stride + j
    return TAKE if (bits[bit >> 6] >> (bit & 63)) & 1 else PASS


@njit(cache=True)
def _set_bits(chains, takes, width, bits):
    """Set bit ``chain * (width + 1) + pot`` of ``bits`` for every pot of each chain's take
    mask, and bit ``chain * (width + 1) + width``: the table holds the chain."""
    for i in range(chains.shape[0]):
        for pot in range(width + 1):
            if pot == width or (takes[i] >> np.uint64(pot)) & np.uint64(1):
                bit = chains[i] * (width + 1) + pot
                bits[bit >> 6] |= np.int64(1) << (bit & 63)


def pack(layout: solve.Layout, chains: np.ndarray, takes: np.ndarray) -> np.ndarray:
    """The packed table (module docstring) of a layout's take masks per chain."""
    vec, binom, start, _ = layout.arrays()
    width = layout.pots
    n_bits = layout.n_afterstates * layout.positions * (width + 1)
    head = np.zeros(HEADER, np.int64)
    head[T_WIDTH], head[T_BSIDE], head[T_START] = width, binom.shape[0], start.size
    bits = np.zeros((n_bits + 63) // 64, np.int64)
    _set_bits(chains.astype(np.int64), takes.astype(np.uint64), width, bits)
    flat = np.concatenate([head, vec, binom.ravel(), start, bits])
    flat[T_SIZE] = flat.size
    return flat


def read(path) -> tuple[dict, np.ndarray, np.ndarray]:
    """A table file's meta (``solve.TABLE_KEY`` of its parquet metadata), chains and take
    masks, or a one-line ValueError saying what is wrong with the file."""
    import pyarrow.parquet as pq

    where = f"policy table {str(path)!r}"
    if not Path(path).is_file():
        raise ValueError(f"{where}: no such file")
    try:
        table = pq.read_table(path, columns=["chain", "take"])
        meta = json.loads((table.schema.metadata or {})[solve.TABLE_KEY.encode()])
    except (OSError, ValueError, KeyError) as error:
        why = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ValueError(f"{where} is not a giftsim policy table: {why}") from None
    if meta.get("layout") != solve.LAYOUT_VERSION:
        raise ValueError(f"{where} has layout {meta.get('layout')!r}, not {solve.LAYOUT_VERSION}")
    chains = table.column("chain").to_numpy()
    return meta, chains, table.column("take").to_numpy()


def load_table(path, players: int, rules=None) -> np.ndarray:
    """The packed table of a file (cached per process by its path and state, and kept alive:
    compiled code holds its address), checked against the player count and, when given, the
    rules: a one-line ValueError when it was solved for others."""
    key = file_key(path)  # a table replaced since is read again
    if key not in _LOADED:
        meta, chains, takes = read(path)
        layout = solve.Layout.from_variant(meta["variant"])
        _LOADED[key] = (meta, pack(layout, chains, takes))
    meta, flat = _LOADED[key]
    variant = meta["variant"]
    if variant["n_players"] != players:
        raise ValueError(
            f"policy table {str(path)!r} is for {variant['n_players']} players, not {players}"
        )
    if rules is not None:
        solve.check_same_variant(str(path), variant, rules)
    return flat

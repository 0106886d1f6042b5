"""Exact solution of small No Thanks! games by backward induction over public states.

With chips visible, nothing a player may know is hidden from another: the removed cards and
the order of the stack are hidden from every seat alike, and the next card is uniform over
the cards nobody has seen, whatever anyone played. So the game is a Markov game on public
states, and each seat's expected share of the win under a profile of Markov policies follows
by backward induction. Two players are a perfect-information stochastic zero-sum game; three
and more are solved for subgame-perfect play, each seat maximising its own share of the win.

Tie rule: where the acting seat's two actions are worth the same to it (within ``TIE_EPS``),
it **takes** the card. (Whatever the tie rule, two-player values are the zero-sum value;
from three players on the rule decides what the others get.)

Public states
-------------
A card turns up after each take, so the play falls into *chains*, one per card: the seat
that took last (or the first seat) is shown a card with no chip on it, and the seats pass in
turn until one takes. A chain starts from an *afterstate* (who holds which card, each seat's
chips, the seat to act, no card face up yet); its decision ``j`` is the one at pot ``j``, by
seat ``(seat + j) mod n``. Every public decision state (hands, chips, card, pot, seat to
act) is a decision ``j`` of one chain: the chips at the chain's start are the chips now plus
what each seat has paid into the pot. The values live on afterstates; a chain's values are
computed when its afterstate is, from those of the next level.

Index (the layout vector ``LAY_*`` and the tables of :class:`Layout`)
--------------------------------------------------------------------
Cards are *positions* ``0 .. R-1`` (card ``lowest + u``). ``n`` players, ``N_c`` cards played,
``C`` chips in the game.

=================  ==========================================================================
index              meaning
=================  ==========================================================================
hand code ``h``    the taken cards and their owners: ``level_start[k] + rank(T) * n**k +
                   owners``, ``k`` the number taken, ``rank(T) = sum_i binom(e_i, i + 1)``
                   over the taken positions ``e_0 < e_1 < ...`` (combinatorial number
                   system) and ``owners = sum_i owner(e_i) * n**i``; levels ``0 .. N_c``
chips code ``c``   the chips of each seat (pot empty, sum ``C``), ranked as a composition:
                   ``sum_i binom(b_i, i + 1)`` with bars ``b_i = c_0 + .. + c_i + i``
afterstate ``a``   ``(h * n_chip_codes + c) * n + seat to act``
chain              ``a * R + u``: the card at position ``u`` (not taken) turns up at ``a``
decision           chain and pot ``j`` (``0 .. C``): bit ``j`` of the chain's take mask
=================  ==========================================================================

Every afterstate of a level lies in one contiguous range of ``a``, so backward induction
needs only two levels at a time in memory (the arrays may be memory-mapped).
"""

from dataclasses import dataclass
from functools import cached_property
from math import comb

import numpy as np
from numba import njit, prange

from geschenkt_sim.scoring import card_points

TIE_EPS = 1e-12  # actions whose values differ by no more than this are equally good
TABLE_KEY = "giftsim"  # parquet metadata key of a table's meta (JSON)
LAYOUT_VERSION = 1  # the index below; a table of another version is refused

# The layout vector read by compiled code: slot -> meaning.
LAY_PLAYERS = 0  # seats n
LAY_POSITIONS = 1  # card positions R = highest - lowest + 1
LAY_CARDS = 2  # cards played N_c
LAY_TOTAL_CHIPS = 3  # chips in the game C
LAY_CHIP_CODES = 4  # chips codes: compositions of C into n parts
LAY_LOWEST = 5  # lowest card number
LAY_REMOVED = 6  # cards removed
LAY_CHIPS = 7  # chips per seat at the start
LAY_SIZE = 8


@dataclass(frozen=True)
class Layout:
    """The index of one variant's public states (module docstring), with its tables."""

    n_players: int
    lowest: int
    highest: int
    n_removed: int
    chips: int

    @classmethod
    def from_variant(cls, variant: dict) -> "Layout":
        """The layout of a table's variant (``as_dict``)."""
        return cls(**_layout_args(variant))

    @classmethod
    def of(cls, rules) -> "Layout":
        """The layout of ``rules`` (a ``Rules`` the solver models: see ``check_rules``)."""
        check_rules(rules)
        return cls(
            rules.n_players, rules.lowest_card, rules.highest_card, rules.n_removed, rules.chips
        )

    @property
    def positions(self) -> int:
        return self.highest - self.lowest + 1

    @property
    def n_cards(self) -> int:
        return self.positions - self.n_removed

    @property
    def total_chips(self) -> int:
        return self.n_players * self.chips

    @property
    def n_chip_codes(self) -> int:
        return comb(self.total_chips + self.n_players - 1, self.n_players - 1)

    def level_size(self, k: int) -> int:
        """Hand codes with ``k`` cards taken."""
        return comb(self.positions, k) * self.n_players**k

    @property
    def level_start(self) -> np.ndarray:
        """``level_start[k]``: the first hand code of level ``k`` (``k = 0 .. N_c + 1``)."""
        sizes = [self.level_size(k) for k in range(self.n_cards + 1)]
        return np.array(np.cumsum([0, *sizes]), np.int64)

    @property
    def n_hands(self) -> int:
        return sum(self.level_size(k) for k in range(self.n_cards + 1))

    @property
    def per_hand(self) -> int:
        """Afterstates per hand code: chips codes times seats to act."""
        return self.n_chip_codes * self.n_players

    @property
    def n_afterstates(self) -> int:
        return self.n_hands * self.per_hand

    @property
    def pots(self) -> int:
        """Decisions a chain can hold (pots ``0 .. C``): the bits of a take mask."""
        return self.total_chips + 1

    def arrays(self):
        """``(layout vector, binomials, level starts, chips table)`` for compiled code (made
        once per layout; read them, never write)."""
        return self._arrays

    @cached_property
    def _arrays(self):
        size = max(self.positions, self.total_chips + self.n_players) + 2
        binom = np.array(
            [[min(comb(a, b), 2**62) for b in range(size)] for a in range(size)], np.int64
        )
        vec = np.zeros(LAY_SIZE, np.int64)
        vec[LAY_PLAYERS], vec[LAY_POSITIONS] = self.n_players, self.positions
        vec[LAY_CARDS], vec[LAY_TOTAL_CHIPS] = self.n_cards, self.total_chips
        vec[LAY_CHIP_CODES], vec[LAY_LOWEST] = self.n_chip_codes, self.lowest
        vec[LAY_REMOVED], vec[LAY_CHIPS] = self.n_removed, self.chips
        return vec, binom, self.level_start, chip_table(self.n_players, self.total_chips, binom)

    def as_dict(self) -> dict:
        return {
            "n_players": self.n_players,
            "lowest_card": self.lowest,
            "highest_card": self.highest,
            "n_removed": self.n_removed,
            "chips_per_player": self.chips,
        }

    def describe(self) -> str:
        """``2 players, cards 1..8 (2 removed, 6 played), 2 chips each``."""
        return (
            f"{self.n_players} players, cards {self.lowest}..{self.highest} ({self.n_removed} "
            f"removed, {self.n_cards} played), {self.chips} chips each"
        )


def check_rules(rules) -> None:
    """Raise a one-line ValueError for rules the solver does not model: hidden chips (the
    game is then not one of public states), several rounds, the tactical variant (always
    removed cards), or chips beyond a take mask's 64 bits."""
    if getattr(rules, "rounds", None) is None or not hasattr(rules, "chips_visible"):
        raise ValueError("the exact solver models No Thanks! only (geschenkt)")
    if not rules.chips_visible:
        raise ValueError("the exact solver needs chips_visible=true (hidden chips are private)")
    if rules.rounds != 1:
        raise ValueError(
            f"the exact solver solves single games (rounds=1), not rounds={rules.rounds}"
        )
    if rules.variant != "standard":
        raise ValueError("the exact solver models variant=standard only (not tactical)")
    if rules.n_players * rules.chips > 63:
        raise ValueError(
            f"the exact solver handles at most 63 chips in the game, got "
            f"{rules.n_players} x {rules.chips}"
        )


def check_same_variant(where: str, variant: dict, rules) -> None:
    """Raise a one-line ValueError unless ``rules`` are the variant a table was solved for."""
    check_rules(rules)
    table = Layout(**_layout_args(variant))
    try:
        asked = Layout.of(rules)
    except ValueError as error:
        raise ValueError(f"{where} was solved for {table.describe()}: {error}") from None
    if asked != table:
        raise ValueError(f"{where} was solved for {table.describe()}, not for {asked.describe()}")


def _layout_args(variant: dict) -> dict:
    """``Layout`` arguments from a table's variant (``Layout.as_dict``)."""
    return {
        "n_players": variant["n_players"],
        "lowest": variant["lowest_card"],
        "highest": variant["highest_card"],
        "n_removed": variant["n_removed"],
        "chips": variant["chips_per_player"],
    }


def chip_table(n: int, total: int, binom: np.ndarray) -> np.ndarray:
    """Each chips code's chips per seat (row ``c`` is the composition of rank ``c``)."""
    rows = np.zeros((comb(total + n - 1, n - 1), n), np.int64)
    for bars in _bar_sets(n - 1, total + n - 1):
        chips = np.diff([-1, *bars, total + n - 1]) - 1
        rows[chips_code(chips, binom)] = chips
    return rows


def _bar_sets(k: int, size: int):
    from itertools import combinations

    return combinations(range(size), k)


@njit(cache=True)
def chips_code(chips, binom):
    """The chips code of chips per seat (their sum is the game's chips)."""
    bar, code = -1, 0
    for i in range(chips.shape[0] - 1):
        bar += chips[i] + 1
        code += binom[bar, i + 1]
    return code


@njit(cache=True)
def hand_code(hands, lay, binom, start):
    """The hand code of each seat's cards (``hands[p]``: bit ``u`` for position ``u``), or -1
    if two seats hold one card or more cards are taken than are played."""
    n, positions = lay[LAY_PLAYERS], lay[LAY_POSITIONS]
    rank, owners, k, weight = 0, 0, 0, 1
    for u in range(positions):
        owner = -1
        for p in range(n):
            if (hands[p] >> u) & 1:
                if owner >= 0:
                    return -1
                owner = p
        if owner >= 0:
            k += 1
            rank += binom[u, k]
            owners += owner * weight
            weight *= n
    if k > lay[LAY_CARDS]:
        return -1
    return start[k] + rank * weight + owners


@njit(cache=True)
def level_of(h, start):
    """The level (cards taken) of hand code ``h``."""
    k = 0
    while start[k + 1] <= h:
        k += 1
    return k


@njit(cache=True)
def decode_hand(h, lay, binom, start, hands):
    """Each seat's cards (position bits) of hand code ``h`` into ``hands``; returns the level."""
    n = lay[LAY_PLAYERS]
    k = level_of(h, start)
    taken = np.empty(max(k, 1), np.int64)
    rank, owners = _split(h - start[k], n, k)
    _unrank(rank, k, lay[LAY_POSITIONS], binom, taken)
    hands[:n] = 0
    for i in range(k):
        hands[owners % n] |= np.int64(1) << taken[i]
        owners //= n
    return k


@njit(cache=True)
def _split(index, n, k):
    """``(rank of the taken set, owners)`` of a hand code's offset in its level."""
    weight = 1
    for _ in range(k):
        weight *= n
    return index // weight, index % weight


@njit(cache=True)
def _unrank(rank, k, positions, binom, out):
    """The ``k``-subset of ``0 .. positions - 1`` of colex rank ``rank``, ascending, in ``out``."""
    e = positions - 1
    for i in range(k - 1, -1, -1):
        while binom[e, i + 1] > rank:
            e -= 1
        out[i] = e
        rank -= binom[e, i + 1]
        e -= 1


@njit(cache=True)
def paid(j, seat, start_seat, n):
    """Chips ``seat`` has put on the card in a chain begun by ``start_seat``, at pot ``j``."""
    d = seat - start_seat if seat >= start_seat else seat - start_seat + n
    return (j - d + n - 1) // n if j > d else 0


@njit(cache=True)
def chain_end(chips, start_seat, n):
    """The pot at which the seat to act has no chip left and must take."""
    end = 1 << 40
    for v in range(n):
        d = v - start_seat if v >= start_seat else v - start_seat + n
        end = min(end, d + n * chips[v])
    return end


@njit(cache=True)
def after_take(chips, start_seat, j, n, out):
    """Chips per seat after the seat acting at pot ``j`` of the chain takes (into ``out``);
    returns that seat."""
    taker = (start_seat + j) % n
    for v in range(n):
        out[v] = chips[v] - paid(j, v, start_seat, n)
    out[taker] += j
    return taker


@njit(cache=True)
def decision_of(hands, chips, card_pos, pot, turn, lay, binom, start):
    """``(chain, pot)`` of a public decision state (hands as position bits, chips now, the card
    up as a position, the pot, the seat to act), or ``(-1, -1)`` if it is not one of the
    layout's states."""
    n, total = lay[LAY_PLAYERS], lay[LAY_TOTAL_CHIPS]
    h = hand_code(hands, lay, binom, start)
    first = (turn - pot) % n
    before = np.empty(n, np.int64)
    held = 0
    for v in range(n):
        before[v] = chips[v] + paid(pot, v, first, n)
        held += before[v]
        if chips[v] < 0:
            return -1, -1
    taken = 0
    for p in range(n):
        taken |= hands[p]
    bad = h < 0 or held != total or card_pos < 0 or card_pos >= lay[LAY_POSITIONS]
    if bad or (taken >> card_pos) & 1 or pot > chain_end(before, first, n):
        return -1, -1
    a = (h * lay[LAY_CHIP_CODES] + chips_code(before, binom)) * n + first
    return a * lay[LAY_POSITIONS] + card_pos, pot


@njit(cache=True)
def shares_of(hands, chips, n, lowest, out):
    """Each seat's share of the win at the end (ties split) into ``out[:n]``."""
    best, winners = 1 << 40, 0
    for p in range(n):
        score = card_points(hands[p] << lowest) - chips[p]
        if score < best:
            best, winners = score, 1
        elif score == best:
            winners += 1
    for p in range(n):
        score = card_points(hands[p] << lowest) - chips[p]
        out[p] = 1.0 / winners if score == best else 0.0


@njit(cache=True)
def load_shares(values, a, n, out):
    """The shares of afterstate ``a`` (stored for seats ``0 .. n - 2``; the last seat's is the
    rest) into ``out[:n]``."""
    rest = 1.0
    for p in range(n - 1):
        out[p] = values[a, p]
        rest -= out[p]
    out[n - 1] = rest


@njit(cache=True)
def store_shares(values, a, n, shares):
    for p in range(n - 1):
        values[a, p] = shares[p]


@njit(cache=True)
def successors(h, k, lay, binom, start, nexts, hands):
    """Decode hand code ``h`` (level ``k``) into ``hands`` and write into ``nexts[u, t]`` the
    hand code after seat ``t`` takes the card at position ``u`` (-1 for taken positions)."""
    n, positions = lay[LAY_PLAYERS], lay[LAY_POSITIONS]
    taken = np.empty(max(k, 1), np.int64)
    rank, owners = _split(h - start[k], n, k)
    _unrank(rank, k, positions, binom, taken)
    digits = owners
    hands[:n] = 0
    for i in range(k):
        hands[digits % n] |= np.int64(1) << taken[i]
        digits //= n
    above = 0  # sum over taken positions at or above index i of binom(e, index + 2)
    for i in range(k):
        above += binom[taken[i], i + 2]
    below, i, low_weight, weight = 0, 0, 1, _power(n, k + 1)
    level = start[k + 1] if k + 1 < start.shape[0] else -1
    for u in range(positions):
        if i < k and taken[i] == u:
            below += binom[u, i + 1]
            above -= binom[u, i + 2]
            i += 1
            low_weight *= n
            nexts[u, :n] = -1
            continue
        new_rank = below + binom[u, i + 1] + above
        low, high = owners % low_weight, owners // low_weight
        for t in range(n):
            code = low + t * low_weight + high * low_weight * n
            nexts[u, t] = level + new_rank * weight + code
    return taken


@njit(cache=True)
def _power(n, e):
    out = 1
    for _ in range(e):
        out *= n
    return out


@njit(cache=True, parallel=True)
def solve_block(game, k, h0, h1, values, masks, eps):
    """Solve the afterstates of hand codes ``h0 .. h1 - 1`` (level ``k``; ``game``:
    :meth:`Layout.arrays`) from the values of level ``k + 1``: write their shares into
    ``values`` and each chain's take mask into ``masks`` (block-local chain order; 0 for a
    card already taken, since a real mask always has its last pot's bit, the forced take)."""
    for b in prange(h1 - h0):
        _solve_hand(game, h0 + b, b, k, values, masks, eps)


@njit(cache=True)
def _solve_hand(game, h, b, k, values, masks, eps):
    """One hand code's afterstates (every chips code and seat to act): each is the mean, over
    the cards that may turn up, of its chain's value under subgame-perfect play."""
    lay, binom, start, chip_rows = game
    n, positions, nch = lay[LAY_PLAYERS], lay[LAY_POSITIONS], lay[LAY_CHIP_CODES]
    nexts, hands = np.empty((positions, n), np.int64), np.empty(n, np.int64)
    successors(h, k, lay, binom, start, nexts, hands)
    if k == lay[LAY_CARDS]:
        _terminal(h, hands, lay, chip_rows, values)
        return
    chain, total = np.empty(n), np.empty(n)
    space = (np.empty(n), np.empty(n, np.int64), np.empty(lay[LAY_TOTAL_CHIPS] + 1, np.int64))
    for c in range(nch):
        for s in range(n):
            total[:] = 0.0
            row = ((b * nch + c) * n + s) * positions
            for u in range(positions):
                if nexts[u, 0] >= 0:
                    masks[row + u] = _solve_chain(
                        game, nexts[u], chip_rows[c], s, values, eps, chain, space
                    )
                    total += chain
            total /= positions - k
            store_shares(values, (h * nch + c) * n + s, n, total)


@njit(cache=True)
def chain_successors(game, nexts, chips, s, now, out):
    """The afterstate each pot's take leads to in a chain begun by seat ``s`` with ``chips``
    (``nexts[t]``: the hand code after seat ``t`` takes the card), into ``out[j]``, walking
    forward as the seats pass in turn (``now``: work space); returns the last pot, where the
    seat to act has no chip and must take."""
    lay, binom = game[0], game[1]
    n, nch = lay[LAY_PLAYERS], lay[LAY_CHIP_CODES]
    now[:n] = chips[:n]
    t = s
    for j in range(lay[LAY_TOTAL_CHIPS] + 1):
        now[t] += j
        out[j] = (nexts[t] * nch + chips_code(now, binom)) * n + t
        now[t] -= j
        if now[t] == 0:
            return j
        now[t] -= 1
        t = t + 1 if t + 1 < n else 0
    return lay[LAY_TOTAL_CHIPS]


@njit(cache=True)
def _solve_chain(game, nexts, chips, s, values, eps, out, space):
    """Subgame-perfect play of one chain, from the forced take at its end back to pot 0: the
    seat acting at pot ``j`` takes iff taking is worth at least what passing is to it (within
    ``eps``: ties take). Writes the shares at pot 0 into ``out``; returns the take mask."""
    n = game[0][LAY_PLAYERS]
    take, now, succ = space
    end = chain_successors(game, nexts, chips, s, now, succ)
    mask = np.uint64(0)
    t = (s + end) % n
    for j in range(end, -1, -1):
        load_shares(values, succ[j], n, take)
        if j == end or take[t] >= out[t] - eps:
            out[:n] = take[:n]
            mask |= np.uint64(1) << np.uint64(j)
        t = t - 1 if t > 0 else n - 1
    return mask


@njit(cache=True)
def _terminal(h, hands, lay, chip_rows, values):
    """The last level: every card is taken, the shares of the win are the game's result."""
    n, nch = lay[LAY_PLAYERS], lay[LAY_CHIP_CODES]
    shares = np.empty(n)
    for c in range(nch):
        shares_of(hands, chip_rows[c], n, lay[LAY_LOWEST], shares)
        for s in range(n):
            store_shares(values, (h * nch + c) * n + s, n, shares)


def blocks(layout: Layout, chains_per_block: int = 1 << 22):
    """The solve's work in order, last level first: ``(level, h0, h1)`` ranges of hand codes
    of about ``chains_per_block`` chains each."""
    start = layout.level_start
    per_hand = layout.per_hand * layout.positions
    step = max(1, chains_per_block // per_hand)
    for k in range(layout.n_cards, -1, -1):
        for h0 in range(int(start[k]), int(start[k + 1]), step):
            yield k, h0, min(h0 + step, int(start[k + 1]))


def solve(layout: Layout, values: np.ndarray, on_block=None, eps: float = TIE_EPS) -> None:
    """Solve every afterstate of ``layout`` into ``values`` (``n_afterstates x (n - 1)``
    float64: each seat's share of the win but the last seat's, which is the rest).

    ``on_block(level, h0, h1, masks)`` is called after each block with the take masks of its
    chains (chain ``h0 * per_hand * R + i`` is ``masks[i]``; 0 where the card is taken)."""
    game = layout.arrays()
    per_hand = layout.per_hand * layout.positions
    for k, h0, h1 in blocks(layout):
        masks = np.zeros((h1 - h0) * per_hand, np.uint64)
        solve_block(game, k, h0, h1, values, masks, eps)
        if on_block is not None:
            on_block(k, h0, h1, masks)


def root(layout: Layout, first: int = 0) -> int:
    """The afterstate of the start: no card taken, every seat its chips, ``first`` to act."""
    _, binom, _, _ = layout.arrays()
    chips = np.full(layout.n_players, layout.chips, np.int64)
    return (chips_code(chips, binom)) * layout.n_players + first


def shares_at(values: np.ndarray, a: int, n: int) -> np.ndarray:
    """Every seat's share of the win at afterstate ``a``."""
    out = np.empty(n)
    load_shares(values, a, n, out)
    return out


def decode_afterstate(layout: Layout, a: int) -> tuple[list[list[int]], list[int], int]:
    """``(hands, chips, seat to act)`` of afterstate ``a``: each seat's cards (numbers),
    chips, and the seat to act next."""
    vec, binom, start, chip_rows = layout.arrays()
    n = layout.n_players
    h, rest = divmod(a, layout.per_hand)
    code, seat = divmod(rest, n)
    hands = np.zeros(n, np.int64)
    decode_hand(h, vec, binom, start, hands)
    cards = [
        [layout.lowest + u for u in range(layout.positions) if (int(m) >> u) & 1] for m in hands
    ]
    return cards, [int(c) for c in chip_rows[code]], int(seat)


def decode_chain(layout: Layout, chain: int) -> tuple[list[list[int]], list[int], int, int]:
    """``(hands, chips, card, seat)`` of a chain: its afterstate's hands and chips, the card
    that turns up and the seat that acts on it first."""
    a, u = divmod(chain, layout.positions)
    hands, chips, seat = decode_afterstate(layout, a)
    card = layout.lowest + u
    if any(card in hand for hand in hands) or sum(map(len, hands)) == layout.n_cards:
        raise ValueError(f"chain {chain} is no chain: its card is taken or the game is over")
    return hands, chips, card, seat

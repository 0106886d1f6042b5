"""``giftsim solve``: exact solutions of small No Thanks! games (``geschenkt_sim/solve.py``),
written as parquet tables and a summary.

A folder of a solve holds

==================  ===========================================================================
file                content
==================  ===========================================================================
``policy.parquet``  one row per chain (a card turned up at an afterstate): ``chain`` (its
                    index, ``geschenkt_sim/solve.py``) and ``take`` (bit ``j``: the seat acting
                    at pot ``j`` takes); ``solved:table=FILE`` plays it
``values.parquet``  one row per afterstate: ``afterstate`` and ``share_0 ..``, each seat's
                    share of the win under optimal play from there
``summary.json``    the variant, sizes, the shares by position, the first-player advantage, the
                    tie rule, time and memory; ``summary.md`` the same for people
==================  ===========================================================================

Nothing is written until the plan fits (:func:`plan`); the files are written under temporary
names as the solve goes and renamed when it is done.
"""

import json
import os
import resource
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from experiments.words import repeated
from geschenkt_sim import solve
from giftsim.files import check_new, write_with

GB = 1e9
OVERHEAD = 0.6 * GB  # the interpreter, Numba and the block buffers
POLICY, VALUES, SUMMARY, NOTE = "policy.parquet", "values.parquet", "summary.json", "summary.md"
SELF = "solved"  # in --exploit, with no table: the policy this solve writes
TIE_RULE = (
    "subgame-perfect: the seat to act takes or passes as its own share of the win is larger; "
    f"where the two differ by at most {solve.TIE_EPS:g} it takes"
)


def available_memory() -> int:
    """Bytes of memory available to a new process now (Linux ``MemAvailable``)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class Plan:
    """What a solve needs: the values (all afterstates, or two levels when memory-mapped),
    and the tables it writes."""

    layout: solve.Layout
    values_bytes: int
    working_bytes: int  # the largest two adjacent levels of values
    table_bytes: int  # policy and values tables before compression
    budget: int
    mapped: bool  # values memory-mapped to disk

    @property
    def chains(self) -> int:
        return chains_of(self.layout)

    @property
    def memory_bytes(self) -> int:
        """Memory the solve needs: its values (two levels of them when mapped) and overhead."""
        return (self.working_bytes if self.mapped else self.values_bytes) + int(OVERHEAD)

    def describe(self) -> str:
        where = (
            f"values memory-mapped to disk ({self.values_bytes / GB:.2f} GB, "
            f"{self.working_bytes / GB:.2f} GB of them in use at a time)"
            if self.mapped
            else f"values in memory ({self.values_bytes / GB:.2f} GB)"
        )
        return (
            f"{self.layout.n_afterstates:,} afterstates, {self.chains:,} chains; {where}; "
            f"about {self.memory_bytes / GB:.2f} GB of memory in all (limit "
            f"{self.budget / GB:.1f} GB)"
        )


def chains_of(layout: solve.Layout) -> int:
    """Chains of a layout: afterstates below the last level times the cards that may turn up."""
    return sum(
        layout.level_size(k) * layout.per_hand * (layout.positions - k)
        for k in range(layout.n_cards)
    )


def plan(rules, memory: float | None = None, tables: bool = True) -> Plan:
    """The plan of a solve under ``memory`` GB (default: what is available), or a one-line
    ValueError when the values do not fit even memory-mapped two levels at a time."""
    layout = solve.Layout.of(rules)
    budget = int(memory * GB) if memory is not None else available_memory()
    width = 8 * (layout.n_players - 1)
    values = layout.n_afterstates * width
    sizes = [layout.level_size(k) * layout.per_hand * width for k in range(layout.n_cards + 1)]
    working = max(a + b for a, b in zip(sizes, [*sizes[1:], 0], strict=True))
    table = (chains_of(layout) * 16 + layout.n_afterstates * 8 * (layout.n_players + 1)) * tables
    mapped = values + OVERHEAD > budget
    if mapped and working + OVERHEAD > budget:
        raise ValueError(
            f"{layout.describe()} does not fit: {layout.n_afterstates:.3g} afterstates need "
            f"{values / GB:.3g} GB of values, and two levels at a time "
            f"{(working + OVERHEAD) / GB:.3g} GB ({working / GB:.3g} GB of values and "
            f"{OVERHEAD / GB:.3g} GB for the interpreter and Numba) where {budget / GB:.3g} GB "
            "is available (fewer cards, chips or players; --memory GB)"
        )
    return Plan(layout, values, working, table, budget, mapped)


@dataclass
class Solution:
    """A solved variant: the shares by position under optimal play, and what it cost."""

    layout: solve.Layout
    shares: np.ndarray  # by position in the turn order, the first player at 0
    seconds: float
    cpu_seconds: float
    peak_gb: float
    files: list[str] = field(default_factory=list)
    values: np.ndarray | None = None  # per afterstate, when kept in memory

    @property
    def first_player_advantage(self) -> float:
        """The first player's share of the win minus a fair share."""
        return float(self.shares[0] - 1 / self.layout.n_players)

    def summary(self, command: str = "") -> dict:
        layout = self.layout
        out = {
            "game": "geschenkt",
            "variant": layout.as_dict(),
            "cards_played": layout.n_cards,
            "afterstates": layout.n_afterstates,
            "chains": chains_of(layout),
            "shares_by_position": [float(s) for s in self.shares],
            "first_player_advantage": self.first_player_advantage,
            "tie_rule": TIE_RULE,
            "seconds": round(self.seconds, 2),
            "cpu_seconds": round(self.cpu_seconds, 2),
            "peak_memory_gb": round(self.peak_gb, 3),
            "files": self.files,
            "command": command,
        }
        if layout.n_players == 2:
            out["zero_sum_value"] = float(self.shares[0])
        return out


def shares_by_position(layout: solve.Layout, values: np.ndarray) -> np.ndarray:
    """Each position's share of the win at the start (seat 0 moving first)."""
    return solve.shares_at(values, solve.root(layout, 0), layout.n_players)


def solve_variant(
    rules,
    out: Path | None = None,
    memory: float | None = None,
    progress: bool = True,
    tables: bool = True,
    keep_values: bool = False,
) -> Solution:
    """Solve ``rules`` exactly; with ``out``, write its tables and summary there (module
    docstring). ``keep_values``: return the values of every afterstate (in memory only)."""
    the_plan = plan(rules, memory, tables)
    layout = the_plan.layout
    started, cpu = time.perf_counter(), time.process_time()
    folder = Path(out) if out is not None else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    values = _values_array(the_plan, folder)
    writer = _Writers(layout, folder if tables else None)
    try:
        with _bar(layout, progress) as bar:

            def on_block(k, h0, h1, masks):
                writer.block(values, h0, h1, masks)
                bar.update((h1 - h0) * layout.per_hand)

            solve.solve(layout, values, on_block)
        files = writer.close()
    except BaseException:
        writer.abort()
        raise
    shares = shares_by_position(layout, values)
    kept = np.array(values) if keep_values else None
    _drop_mapped(values, folder)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / GB
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    return Solution(layout, shares, seconds, cpu_seconds, peak, files, kept)


def _values_array(the_plan: Plan, folder: Path | None) -> np.ndarray:
    shape = (the_plan.layout.n_afterstates, the_plan.layout.n_players - 1)
    if not the_plan.mapped:
        return np.zeros(shape)
    path = _mapped_path(folder)
    return np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=shape)


def _mapped_path(folder: Path | None) -> Path:
    import tempfile

    base = folder if folder is not None else Path(tempfile.gettempdir())
    return base / f".values-{os.getpid()}.npy"


def _drop_mapped(values, folder) -> None:
    if isinstance(values, np.memmap):
        del values
        _mapped_path(folder).unlink(missing_ok=True)


def _bar(layout: solve.Layout, progress: bool):
    from tqdm import tqdm

    return tqdm(total=layout.n_afterstates, disable=not progress, unit="state", unit_scale=True)


class _Writers:
    """The policy and values tables, written block by block under temporary names."""

    def __init__(self, layout: solve.Layout, folder: Path | None):
        self.layout, self.folder, self.open = layout, folder, {}
        if folder is None:
            return
        meta = {"game": "geschenkt", "variant": layout.as_dict(), "layout": solve.LAYOUT_VERSION}
        self.meta = {solve.TABLE_KEY: json.dumps({**meta, "kind": "optimal"})}

    def _writer(self, name: str, table):
        import pyarrow.parquet as pq

        if name not in self.open:
            path = self.folder / f".{name}.partial"
            schema = table.schema.with_metadata(self.meta)
            self.open[name] = pq.ParquetWriter(path, schema, compression="zstd")
        return self.open[name]

    def block(self, values, h0: int, h1: int, masks: np.ndarray) -> None:
        if self.folder is None:
            return
        import pyarrow as pa

        layout = self.layout
        per_chain = layout.per_hand * layout.positions
        rows = np.flatnonzero(masks)
        policy = pa.table({"chain": rows + h0 * per_chain, "take": masks[rows]})
        self._writer(POLICY, policy).write_table(policy)
        first, last = h0 * layout.per_hand, h1 * layout.per_hand
        shares = np.asarray(values[first:last])
        columns = {"afterstate": np.arange(first, last, dtype=np.int64)}
        for p in range(layout.n_players - 1):
            columns[f"share_{p}"] = shares[:, p]
        columns[f"share_{layout.n_players - 1}"] = 1.0 - shares.sum(axis=1)
        table = pa.table(columns)
        self._writer(VALUES, table).write_table(table)

    def close(self) -> list[str]:
        done = []
        for name, writer in self.open.items():
            writer.close()
            os.replace(self.folder / f".{name}.partial", self.folder / name)
            done.append(name)
        self.open = {}
        return done

    def abort(self) -> None:
        for name, writer in self.open.items():
            writer.close()
            (self.folder / f".{name}.partial").unlink(missing_ok=True)
        self.open = {}


def write_summary(solution: Solution, folder: Path, command: str) -> None:
    """``summary.json`` and ``summary.md`` of a solve in its folder."""
    record = solution.summary(command)
    record["files"] = [*record["files"], SUMMARY, NOTE]
    (folder / SUMMARY).write_text(json.dumps(record, indent=1) + "\n")
    (folder / NOTE).write_text(markdown(solution, command) + "\n")


def report(solution: Solution) -> str:
    """The lines a person reads: shares by position, the first-player advantage, the cost."""
    layout = solution.layout
    lines = [f"exact solution of No Thanks!, {layout.describe()}"]
    lines.append(f"win share under optimal play ({TIE_RULE}):")
    for position, share in enumerate(solution.shares):
        label = " (first player)" if position == 0 else ""
        lines.append(f"  position {position}{label}: {share:.6f}")
    lines.append(
        f"exact first-player advantage: {solution.first_player_advantage:+.6f} "
        f"(share minus a fair {1 / layout.n_players:.4f})"
    )
    lines.append(
        f"solved in {solution.seconds:.1f} s wall, {solution.cpu_seconds:.1f} s CPU, "
        f"peak memory {solution.peak_gb:.2f} GB"
    )
    return "\n".join(lines)


def markdown(solution: Solution, command: str) -> str:
    layout = solution.layout
    rows = "\n".join(
        f"| {p}{' (first)' if p == 0 else ''} | {s:.6f} |" for p, s in enumerate(solution.shares)
    )
    return (
        f"# Exact solution: No Thanks!, {layout.describe()}\n\n"
        f"`{command}`\n\n"
        f"| position | win share under optimal play |\n|---|---|\n{rows}\n\n"
        f"Exact first-player advantage: {solution.first_player_advantage:+.6f} "
        f"(the first player's share minus {1 / layout.n_players:.4f}).\n\n"
        f"Play: {TIE_RULE}.\n\n"
        f"{layout.n_afterstates:,} afterstates, {chains_of(layout):,} chains; "
        f"{solution.seconds:.1f} s wall, {solution.cpu_seconds:.1f} s CPU, peak memory "
        f"{solution.peak_gb:.2f} GB. Tables: {', '.join(solution.files) or 'none'}."
    )


def rules_of(game: str, players: int, pairs) -> object:
    """The ``Rules`` of a solve from the command line, or a one-line ValueError for a game or
    rules the solver does not model."""
    if game != "geschenkt":
        raise ValueError(
            f"the exact solver models No Thanks! (geschenkt) only, not {game}: its hands are "
            "private, so its states are not public"
        )
    from geschenkt_sim.rules import Rules
    from giftsim.game import load_game

    load_game(game).check_players(players, "--players")
    rules = Rules.from_pairs(pairs, players)
    solve.check_rules(rules)
    return rules


def command(args) -> None:
    """``giftsim solve``: plan (refusing what does not fit before anything is written, the
    ``--exploit`` agents and the exploit step's memory included), solve, print and write the
    summary, then the exploitability of each ``--exploit`` agent."""
    from agents.registry import parse_list, spec_list
    from experiments import exploit

    rules = rules_of(args.game, args.players, args.rule)
    tables = args.out is not None and not args.no_tables
    the_plan = plan(rules, args.memory, tables)
    specs = spec_list(args.exploit or "")
    own = SELF in specs
    if own and not tables:
        raise ValueError(f"--exploit {SELF} (this solve's policy) needs --out and its tables")
    targets = parse_list([spec for spec in specs if spec != SELF], "geschenkt")
    for target in targets:
        target.check_rules(rules)
    _check_options(args, specs)
    if specs:  # the exploit step's memory too, before the solve and its files
        exploit.check_memory(rules, args.memory)
    _check_out(args.out)
    print(f"solving No Thanks!, {the_plan.layout.describe()}: {the_plan.describe()}", flush=True)
    solution = solve_variant(rules, args.out, args.memory, not args.quiet, tables)
    print(report(solution))
    command_line = "giftsim " + " ".join(getattr(args, "argv", []))
    if args.out is not None:
        write_summary(solution, args.out, command_line)
    if own:  # in the order given
        table = parse_list([f"{SELF}:table={args.out / POLICY}"], "geschenkt")
        targets = [table[0] if spec == SELF else targets.pop(0) for spec in specs]
    if targets:
        _exploit(rules, targets, args, command_line)
    if args.out is not None:
        print(f"\nwritten to {args.out}: {', '.join(sorted(p.name for p in args.out.iterdir()))}")


def _check_options(args, specs) -> None:
    """Refuse, before anything is solved or written, options that would fail or do nothing."""
    from experiments.exploit import MAX_QUERIES

    if args.queries is not None and not specs:
        raise ValueError("--queries goes with --exploit (queries to an agent it evaluates)")
    if args.seed is not None and not specs:
        raise ValueError("--seed goes with --exploit (the key of its queries' random streams)")
    if args.queries is not None and not 2 <= args.queries <= MAX_QUERIES:
        raise ValueError(f"--queries must be in 2..{MAX_QUERIES}, got {args.queries}")
    if twice := repeated(specs):
        raise ValueError(f"--exploit names {', '.join(twice)} more than once; name each once")
    if args.no_tables and args.out is None:
        raise ValueError("--no-tables goes with --out (it leaves the tables out of the folder)")


def _check_out(out) -> None:
    """A new or empty folder that can be written, checked before the solve starts."""
    if out is None:
        return
    if out.is_file():
        raise ValueError(f"--out {out} is a file; give a new folder")
    if out.exists() and any(out.iterdir()):
        raise ValueError(f"--out {out} is not empty; give a new folder")
    check_new(out / SUMMARY, False, "--out")


def _exploit(rules, targets, args, command_line: str) -> None:
    from experiments import exploit

    rows = []
    for target in targets:
        result = exploit.exploitability(
            rules,
            target,
            args.queries,
            args.seed or 0,
            not args.quiet,
            args.memory,
            keep=bool(args.out),
        )
        print(f"\n{result.describe()} ({result.seconds:.1f} s)")
        print(shown(result.brief()))
        queries = result.queries if result.randomised else None  # asked once per decision
        rows.append(with_intervals(result.table).assign(agent=result.agent, queries=queries))
        if args.out is not None:  # after every agent: an interrupt keeps the agents done
            exploit.write_best_responses(result, args.out)
            _write_exploit(pd_concat(rows), rules, args.out, command_line)
    if args.queries is not None and not any(row["queries"].notna().any() for row in rows):
        print("\n--queries had no use: none of these agents randomises (each asked once)")


# the range of each figure of an exploitability table, to which its interval is cut: shares
# of the win; the gain of a best response (never below 0: the agent's own play is among the
# replies it chooses from); ``gain_low``, a difference of two shares measured apart
RANGES = {"target_share": (0.0, 1.0), "best_response": (0.0, 1.0), "held_out": (0.0, 1.0)}
RANGES |= {"gain": (0.0, 1.0), "gain_low": (-1.0, 1.0)}


def with_intervals(table):
    """``table`` with a 95% interval (``_ci_low``, ``_ci_high``: the estimate +- 1.96 standard
    errors, normal, cut to the figure's range ``RANGES``) beside each estimate that has a
    standard error (``_se``); for a deterministic agent the errors are 0 and each interval is
    its exact figure."""
    from experiments.stats import Z95

    table = table.copy()
    for column in [c for c in table.columns if f"{c}_se" in table.columns]:
        low_end, high_end = _interval(table[column], Z95 * table[f"{column}_se"], column)
        at = table.columns.get_loc(column) + 1
        table.insert(at, f"{column}_ci_high", high_end)
        table.insert(at, f"{column}_ci_low", low_end)
    return table


def _interval(estimate, half, figure: str):
    """``estimate`` +- ``half`` cut to the figure's range (``RANGES``), each end kept on its
    side of the estimate (a sum's rounding may put the estimate a hair past its range)."""
    low, high = RANGES.get(figure, (-np.inf, np.inf))
    low_end = np.minimum(np.maximum(estimate - half, low), estimate)
    return low_end, np.maximum(np.minimum(estimate + half, high), estimate)


def shown(table) -> str:
    """An agent's exploitability as printed: a line per figure, a column per seat and their
    mean, each figure with its 95% interval where it has one (``exploit.csv`` keeps every
    column), and a legend that says which figure to quote."""
    import pandas as pd

    table = with_intervals(table)
    figures = [
        c for c in table.columns if c != "seat" and not c.endswith(("_se", "_ci_low", "_ci_high"))
    ]
    cells = {
        f"seat {int(row.seat)}": [_cell(row, figure, table.columns) for figure in figures]
        for _, row in table.iterrows()
    }
    cells["mean"] = [_mean_cell(table, figure) for figure in figures]
    legend = [textwrap.fill(line, LEGEND_WIDTH) for line in _legend(figures)]
    return "\n".join([pd.DataFrame(cells, index=figures).to_string(), *legend])


LEGEND_WIDTH = 100  # characters of a printed legend line


def _mean_cell(table, figure: str) -> str:
    """The mean over seats of ``figure``; its interval takes the seats' mean standard error,
    which bounds the mean's error whatever the seats' correlation (the seats share the
    agent's estimated probabilities)."""
    from experiments.stats import Z95

    estimate = float(table[figure].mean())
    text = f"{estimate:.6f}"
    if f"{figure}_se" in table.columns and figure != "target_share":  # its shares sum to 1
        low_end, high_end = _interval(estimate, Z95 * float(table[f"{figure}_se"].mean()), figure)
        text += f" [{low_end:.6f}, {high_end:.6f}]"
    return text


def _legend(figures) -> list[str]:
    """What the printed figures are, and for an agent that randomises which one to quote."""
    lines = [
        "seat: position in the turn order (0 first); target_share: the agent's share when it "
        "plays every seat; best_response: a best response's share in that seat against the "
        "agent in the others; gain = best_response - target_share; mean: over the seats (its "
        "interval from their mean error, wide enough whatever their correlation; "
        "target_share's is 1/players exactly)."
    ]
    if "gain_low" in figures:
        lines.append(
            "The agent randomises: gain answers its estimated probabilities and can overstate. "
            "Quote gain_low (held_out - target_share, the best response to half the queries "
            "played under the other half's estimates): an unbiased estimate of a strategy's "
            "gain, so a lower bound of the exploitability."
        )
    return lines


def _cell(row, figure: str, columns) -> str:
    text = f"{row[figure]:.6f}"
    if f"{figure}_ci_low" in columns:
        text += f" [{row[f'{figure}_ci_low']:.6f}, {row[f'{figure}_ci_high']:.6f}]"
    return text


def _write_exploit(table, rules, out, command_line: str) -> None:
    """``exploit.csv`` and ``exploit.md`` of the agents evaluated so far."""
    text = exploit_markdown(table, rules, command_line) + "\n"
    write_with(out / "exploit.csv", lambda path: table.to_csv(path, index=False), True)
    write_with(out / "exploit.md", lambda path: path.write_text(text), True)


def pd_concat(rows):
    import pandas as pd

    return pd.concat(rows, ignore_index=True)


def exploit_markdown(table, rules, command_line: str) -> str:
    layout = solve.Layout.of(rules)
    lines = [
        f"# Exploitability: No Thanks!, {layout.describe()}",
        "",
        f"`{command_line}`",
        "",
        "Seat = position in the turn order (0 moves first). `target_share`: the agent's own "
        "share in that seat when it plays every seat; `best_response`: a best response's "
        "share in that seat against the agent in the others; `gain` their difference. For an "
        "agent that randomises (its probabilities estimated from `queries` answers per "
        "decision) the best response answers the estimates, so `gain` can overstate; "
        "`held_out` is the share of the best response to half the queries under the other "
        "half's estimates, and `gain_low` = `held_out` - `target_share` an unbiased "
        "estimate of the gain of that strategy, whose true value is a lower bound of the "
        "exploitability. `_se`: standard errors of the estimates, `_ci_low` and `_ci_high` their "
        "95% intervals (+- 1.96 errors, cut to the figure's range: a share and `gain` in "
        "[0, 1], `gain_low` in [-1, 1]; 0 and the exact figure for a deterministic agent, "
        "asked once per decision: no `queries`).",
        "",
        table.round(4).to_markdown(index=False),
    ]
    return "\n".join(lines)


def lookup(table, hands, chips, card: int, pot: int, turn: int) -> str:
    """The action (``"take"`` or ``"pass"``) a policy table (``policy.parquet`` or a best
    response's) gives at a public state: each seat's cards (numbers) and chips now, the card
    up, the chips on it and the seat to act; a one-line ValueError for a state the table's
    variant does not have."""
    from agents.geschenkt import solved
    from geschenkt_sim.rules import TAKE

    meta, _, _ = solved.read(table)
    layout = solve.Layout.from_variant(meta["variant"])
    flat = solved.load_table(table, layout.n_players)
    cards = range(layout.lowest, layout.highest + 1)
    inside = len(hands) == len(chips) == layout.n_players and card in cards
    if inside and all(c in cards for hand in hands for c in hand):
        positions = np.array([sum(1 << (c - layout.lowest) for c in h) for h in hands], np.int64)
        at = (positions, np.array(chips, np.int64), card - layout.lowest, pot, turn)
        action = solved.lookup(flat, *at)
        if action >= 0:
            return "take" if action == TAKE else "pass"
    raise ValueError(
        f"no state of {layout.describe()}: hands {hands}, chips {chips}, card {card}, pot "
        f"{pot}, seat {turn}"
    )

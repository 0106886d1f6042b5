"""A measurement aid: what isolating an agent (``agents.isolation``) costs per decision, and a
tournament with one isolated agent.

1. *Cost per decision.* A greedy-like user agent (``docs/perf/user_greedy.py``, loaded as an
   untrusted module) decides batches of ``k`` real No Thanks! observations from its own
   process, as the loop with isolated seats sends them; the same batch is decided in this
   process by the same compiled entry (``agents.isolation.serve.serve``). The cost of
   isolation per decision is the difference divided by ``k``: its median and 99th
   percentile over the batches, in wall time and in CPU time (this process's
   ``time.process_time`` plus the worker's on-CPU time from ``/proc/PID/schedstat``), which
   does not count the time either side waits for a core on a loaded machine.
2. *A tournament.* The field of that agent, isolated, against three ``greedy`` at 4 players
   (``giftsim tournament --design field``: 4 rotations on duplicate deals) with two worker
   processes, and the same run in process: games per second, wall time.

``python docs/perf/isolation_cost.py [--batches 2000] [--games 100000]``; it prints the load
average before and after, since on a shared machine every wall-clock figure depends on it.
"""

import argparse
import os
import time
from pathlib import Path

import numpy as np

from agents.drivers.isolated import WIDTH
from agents.isolation import Isolation
from agents.isolation.host import Sandbox, end_idle
from agents.isolation.serve import serve
from agents.isolation.untrusted import load_untrusted
from agents.kernels.entries import entry_addresses
from agents.registry import load_module, parse
from experiments.runner import run
from experiments.schedule import field_design
from giftsim.contract import scratch_size
from giftsim.game import load_game

HERE = Path(__file__).resolve().parent
GAME = "geschenkt"


def observations(count: int, seed: int = 1) -> np.ndarray:
    """``count`` observations of the seat to act, from states part-way through random games."""
    definition, rng = load_game(GAME), np.random.default_rng(seed)
    rules = definition.rules(n_players=4).to_array()
    rows = np.zeros((count, definition.obs_size), np.int64)
    state = np.zeros(definition.state_size, np.int64)
    for i in range(count):
        definition.deal_keyed(rules, np.uint64(rng.integers(2**63)), i % 4, state)
        definition.begin(state)
        for _ in range(int(rng.integers(0, 40))):
            if definition.is_over(state):
                break
            definition.apply_action(state, int(rng.choice(definition.legal_actions(state))))
        if definition.is_over(state):  # start again: a finished game has no decision
            definition.deal_keyed(rules, np.uint64(i), i % 4, state)
            definition.begin(state)
        definition.observe(state, int(state[definition.turn_slot]), rows[i])
    return rows


def on_cpu(pid: int) -> float:
    """Seconds process ``pid`` has run on a CPU (Linux schedstat, nanoseconds)."""
    with open(f"/proc/{pid}/schedstat") as f:
        return int(f.read().split()[0]) / 1e9


def in_process(agent, rows: np.ndarray, words: np.ndarray) -> tuple[float, float]:
    """Wall and CPU seconds of one batch decided here by the agent's compiled entry (the
    median of 200 times)."""
    definition = load_game(GAME)
    entry_fn = agent.family.entry()
    address = entry_addresses([entry_fn])[0]
    header = np.zeros(8, np.int64)
    header[1] = len(rows)
    actions = np.zeros(len(rows), np.int64)
    scratch = np.zeros(scratch_size(definition.obs_size, definition.state_size), np.int64)
    params, flat = agent.param_row(4), rows.ravel().copy()
    times = np.zeros((201, 2))
    for i in range(201):  # the first warms up
        own = words.copy()
        wall, cpu = time.perf_counter(), time.process_time()
        serve(address, header, flat, own, actions, params, scratch, definition.obs_size)
        times[i] = time.perf_counter() - wall, time.process_time() - cpu
    return tuple(np.median(times[1:], axis=0))


def batch_costs(agents, k: int, batches: int, rows: np.ndarray) -> np.ndarray:
    """Per batch of ``k``: the isolated (wall, CPU) seconds per decision minus the in-process
    ones, in microseconds (``agents``: the agent loaded untrusted, and in process)."""
    untrusted, trusted = agents
    box = Sandbox(GAME, untrusted, 4, WIDTH, Isolation())
    box.start()
    words = np.arange(1, k + 1, dtype=np.uint64)
    base_wall, base_cpu = in_process(trusted, rows[:k], words)
    costs = np.zeros((batches, 2))
    try:
        for b in range(batches + 10):  # the first ten warm up
            box.rows[:k], box.words[:k] = rows[(b * k + np.arange(k)) % len(rows)], words
            child, cpu, wall = on_cpu(box.worker.pid), time.process_time(), time.perf_counter()
            faults = box.run(k)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            cpu += on_cpu(box.worker.pid) - child
            assert not faults.any()
            if b >= 10:
                costs[b - 10] = ((wall - base_wall) / k, (cpu - base_cpu) / k)
    finally:
        box.close()
        end_idle()
    return costs * 1e6


def tournament(games: int, isolate: bool) -> float:
    """Games per second of the field (4 rotations of ``games`` deals) with two workers."""
    jobs = field_design(GAME, "user_greedy", "greedy", 4, games, seed=1)
    if isolate:
        from experiments.isolation import isolate as mark

        jobs = mark(jobs, Isolation(("user_greedy",)))
    _, seconds, played = run(
        jobs, backend="processes", workers=2, chunk_size=50_000, progress=False
    )
    return played / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=2000, help="batches per batch size")
    parser.add_argument("--games", type=int, default=100_000, help="deals per rotation")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}, {os.cpu_count()} cores")
    load_module(str(HERE / "user_greedy.py"))  # the in-process baseline
    trusted = parse("user_greedy", GAME)
    load_untrusted(HERE / "user_greedy.py")
    agents = (parse("user_greedy", GAME), trusted)
    rows = observations(4096)
    print("cost of isolation per decision, microseconds (isolated minus in process)")
    print(f"{'batch':>6} {'wall median':>12} {'wall p99':>9} {'CPU median':>11} {'CPU p99':>8}")
    for k in (1, 16, 256, WIDTH):
        costs = batch_costs(agents, k, args.batches if k < 256 else args.batches // 4, rows)
        median, p99 = np.median(costs, axis=0), np.percentile(costs, 99, axis=0)
        print(f"{k:>6} {median[0]:>12.2f} {p99[0]:>9.2f} {median[1]:>11.2f} {p99[1]:>8.2f}")
    print(f"load average: {os.getloadavg()}")
    for isolate in (False, True):  # the family of the registry: in process, then untrusted
        load = load_untrusted if isolate else load_module
        load(str(HERE / "user_greedy.py"))
        rate = tournament(args.games, isolate)
        where = "isolated" if isolate else "in process"
        print(f"4p field of user_greedy ({where}) vs 3 greedy, 2 workers: {rate:,.0f} games/s")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()

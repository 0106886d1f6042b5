"""Blocks of games with isolated seats (``agents.isolation``): one wrapper for every game.

The trusted seats play in the compiled loop with isolated seats
(``agents/templates/isolated.py``), which keeps up to ``WIDTH`` games in flight and stops each
where an isolated seat must decide; the pending decisions of each isolated seat go to its
process in one batch (``agents.isolation.host.Sandbox``), their answers come back, and the
loop goes on. Each block decides from fresh processes (forked from a template the process
keeps per agent); the template, and the agent's folder, live on from block to block.

Beside the result rows, a block returns each seat's forfeit code per row (0: none;
``agents.isolation.FAULTS``) and what explains them: for each seat and fault code, the first
row (by row, whatever the order the games in flight faulted in) and the explanation of its
fault (:data:`Explained`). In a row with forfeits the winners are the best of the seats that
did not forfeit (by the game's ``finish_key``): a forfeit is a loss.

When a trusted seat is plain Python the block is played through the slow path instead, each
isolated seat a :class:`IsolatedSeat` of one decision at a time.
"""

import numpy as np

from agents.base import Agent
from agents.drivers.block import announce, illegal_action, reads_checked
from agents.drivers.generate import driver
from agents.drivers.slow import play_slow
from agents.isolation import ILLEGAL, Isolation
from agents.isolation.host import Sandbox, start_together
from agents.kernels.entries import entry_addresses
from giftsim.contract import MAX_PARAMS, first_policy
from giftsim.game import TAIL, Game, rounds_of
from giftsim.rng import check_secret

WIDTH = 1024  # games in flight: one round trip to an isolated seat serves up to this many

# The first forfeit of each (seat, fault code) of a block: (seat, code) -> (row, explanation).
Explained = dict[tuple[int, int], tuple[int, str]]


def play_block(
    game: Game,
    rules,
    agents,
    root_seed,
    first_index,
    n_games,
    first_player="rotate",
    secret=0,
    isolation: Isolation | None = None,
) -> tuple[np.ndarray, np.ndarray, Explained]:
    """``(rows, forfeits, explained)``: the result rows of ``agents.drivers.block.play_block``
    for the same games, an int8 ``(n_games, n_players)`` array of forfeit codes, and the first
    forfeit of each seat and code with its explanation (:data:`Explained`)."""
    isolation = isolation or Isolation()
    n = rules.n_players
    if len(agents) != n:
        raise ValueError(f"{n} players need {n} agents, got {len(agents)}")
    check_secret(secret)
    seats = [s for s, agent in enumerate(agents) if isolation.covers(agent.family)]
    trusted = [a for s, a in enumerate(agents) if s not in seats]
    if not all(a.family.compiled for a in trusted):
        return play_block_slow(
            game, rules, agents, root_seed, first_index, n_games, first_player, secret, isolation
        )
    kernel = driver(game.name, "isolated").advance
    announce(f"the {game.title} loop with isolated seats", kernel, agents)  # an isolated
    # built-in's entry compiles here too (agents.isolation.host.entry_cached)
    loop = _Loop(game, rules, agents, seats, n_games, min(WIDTH, max(n_games, 1)))
    loop.settings(root_seed, secret, first_index, first_policy(first_player, n))
    boxes = {s: Sandbox(game.name, agents[s], n, WIDTH, isolation) for s in seats}
    try:
        start_together(boxes.values(), forfeit=True)  # a seat that does not start forfeits
        loop.play(kernel, boxes)
    finally:
        for box in boxes.values():
            box.close()
    forfeits = loop.forfeits[:, :n].astype(np.int8)
    lose(game, rules, loop.out, forfeits)
    return loop.out, forfeits, loop.explained


class _Loop:
    """The arrays of one block of the isolated loop (``agents/templates/isolated.py``)."""

    def __init__(self, game: Game, rules, agents, seats, n_games: int, width: int):
        from agents.drivers.generate import driver as make

        layout = make(game.name, "isolated")
        self.rules_vec, self.width, self.seats, self.names = rules.to_array(), width, seats, ""
        self.explained: Explained = {}
        self.out = np.zeros((n_games, game.row_width(rules)), np.int64)
        self.forfeits = np.zeros((n_games, game.max_players), np.int64)
        self.slots = np.full((width, layout.SLOT_WIDTH), -1, np.int64)
        self.slots[:, layout.S_OUT] = 0
        self.wait_slot, self.mask_slot = layout.S_WAIT, layout.S_MASK
        self.match_slot = layout.S_MATCH
        self.states = np.zeros((width, game.state_size), np.int64)
        self.rngs = np.zeros((width, game.max_players), np.uint64)
        self.rows = np.zeros((width, game.obs_size), np.int64)
        self.answers = np.zeros(width, np.int64)
        self.params = np.zeros((game.max_players, MAX_PARAMS), np.float64)
        self.entries = np.zeros((game.max_players, 3), np.int64)
        self._trusted(agents, rules.n_players)

    def _trusted(self, agents, n: int) -> None:
        """The trusted seats' entry addresses and parameter rows."""
        trusted = [s for s in range(n) if s not in self.seats]
        if trusted:
            self.entries[trusted] = entry_addresses([agents[s].family.entry() for s in trusted])
        for s in trusted:
            self.params[s] = agents[s].param_row(n)
        self.names = ", ".join(dict.fromkeys(agents[s].spec for s in trusted))

    def settings(self, root_seed, secret, first_index: int, policy: int) -> None:
        mask = sum(1 << s for s in self.seats)
        self.block = np.array([first_index, policy, mask, 0], np.int64)
        self.keys = np.array([root_seed, secret], np.uint64)

    def play(self, kernel, boxes: dict) -> None:
        """Advance until no slot waits, each isolated seat answering its batch in turn."""
        while True:
            with reads_checked(self.names):
                bad, waiting = kernel(*self._arrays())
            if bad >= 0:
                raise illegal_action(self.names, int(self.block[0]) + int(bad))
            if waiting == 0:
                return
            for seat, box in boxes.items():
                self._ask(seat, box)

    def _arrays(self) -> tuple:
        """The compiled step's arguments, in its order."""
        head = (self.rules_vec, self.block, self.keys, self.entries, self.params, self.out)
        return (*head, self.slots, self.states, self.rngs, self.rows, self.answers, self.forfeits)

    def _ask(self, seat: int, box: Sandbox) -> None:
        """Send ``seat``'s pending decisions to its process; keep its answers and words."""
        pending = np.flatnonzero(self.slots[:, self.wait_slot] == seat)
        k = len(pending)
        if k == 0:
            return
        box.rows[:k] = self.rows[pending]
        box.words[:k] = self.rngs[pending, seat]
        before = len(box.faults)
        faults = box.run(k).astype(np.int64)
        texts = _said(faults, box.faults[before:], box.broken)
        actions = box.actions[:k].copy()
        legal = (self.slots[pending, self.mask_slot] >> np.clip(actions, 0, 63)) & 1
        illegal = (faults == 0) & ((actions < 0) | (actions > 62) | (legal == 0))
        if illegal.any():  # a forfeit, and a fresh process for the next decision
            faults[illegal] = ILLEGAL
            box.discard(ILLEGAL, f"action {actions[illegal][0]} is not legal")
            for i in np.flatnonzero(illegal):
                texts[int(i)] = f"action {actions[i]} is not legal"
        self._explain(seat, self.slots[pending, self.match_slot], faults, texts)
        self.answers[pending] = np.where(faults == 0, actions, -faults)
        self.rngs[pending, seat] = box.words[:k]

    def _explain(self, seat: int, matches: np.ndarray, faults: np.ndarray, texts: dict) -> None:
        """Keep the explanation of each fault of ``seat`` that forfeits its match (``matches``:
        the row of each decision; a match already forfeited keeps its first fault) where it is
        the first row of its code so far."""
        for i in np.flatnonzero(faults):
            row, code = int(matches[i]), int(faults[i])
            if self.forfeits[row, seat] == 0:
                note(self.explained, seat, code, row, texts.get(i, ""))


def _said(faults: np.ndarray, notes: list, broken: str) -> dict[int, str]:
    """The explanation of each faulted decision of a batch, by its place in the batch:
    ``Sandbox.run`` notes one fault per faulted decision, in order (``notes``), except the
    decisions after its process failed to start again, which ``broken`` explains."""
    faulted = np.flatnonzero(faults)
    texts = [why for _, why in notes] + [broken] * max(len(faulted) - len(notes), 0)
    return {int(i): text for i, text in zip(faulted, texts, strict=False)}


def note(explained: Explained, seat: int, code: int, row: int, text: str) -> None:
    """Keep ``text`` as the explanation of ``seat``'s ``code`` unless an earlier row has one."""
    kept = explained.get((seat, code))
    if kept is None or row < kept[0]:
        explained[(seat, code)] = (row, text)


def lose(game: Game, rules, out: np.ndarray, forfeits: np.ndarray) -> None:
    """Rewrite the winners of rows with forfeits: the best of the seats that did not forfeit
    (the game's ``finish_key``; no winner when every seat forfeited)."""
    rows = np.flatnonzero(forfeits.any(axis=1))
    if len(rows) == 0:
        return
    n, width = rules.n_players, len(game.blocks)
    blocks = out[rows, : width * n].reshape(len(rows), width, n).transpose(0, 2, 1)
    keys = game.finish_key(blocks.reshape(-1, width)).astype(float).reshape(len(rows), n)
    keys[forfeits[rows] != 0] = -np.inf
    best = keys.max(axis=1, keepdims=True)
    winners = (keys == best) & np.isfinite(keys)
    out[rows, width * n + TAIL.index("winners")] = (winners.astype(np.int64) << np.arange(n)).sum(1)


class IsolatedSeat:
    """An isolated seat of the slow path (``agents.drivers.slow``): each decision goes to the
    agent's process with the seat's stream word, one at a time. After a fault or an illegal
    answer it plays the lowest legal action until :meth:`new_game`; ``fault`` is the game's
    forfeit code (0: none) and ``message`` its explanation."""

    def __init__(self, game: str, agent: Agent, players: int, isolation: Isolation):
        # the loop's capacity: one template of the agent serves both (agents.isolation.host)
        self.agent, self.box = agent, Sandbox(game, agent, players, WIDTH, isolation)
        self.fault, self.message = 0, ""

    def start(self) -> "IsolatedSeat":
        self.box.spawn()
        self.box.ready_or_forfeit()
        return self

    def new_game(self) -> None:
        self.fault, self.message = 0, ""

    def with_stream(self, obs: np.ndarray, rng: np.ndarray, legal: list[int]) -> int:
        """The agent's action (``rng``: the seat's stream, advanced as the agent drew)."""
        if self.fault:
            return legal[0]
        self.box.rows[0], self.box.words[0] = obs, rng[0]
        before = len(self.box.faults)
        fault = int(self.box.run(1)[0])
        action = int(self.box.actions[0])
        message = _said(np.array([fault]), self.box.faults[before:], self.box.broken).get(0, "")
        if fault == 0 and action not in legal:
            fault, message = ILLEGAL, f"action {action} is not legal (legal: {legal})"
        if fault:
            self.fault, self.message = fault, message
            return legal[0]
        rng[0] = self.box.words[0]
        return action

    def close(self) -> None:
        self.box.close()


def seated(game: str, agents, players: int, isolation: Isolation) -> list:
    """``agents`` with each isolated one replaced by a started :class:`IsolatedSeat`."""
    table = []
    try:
        for agent in agents:
            covered = isinstance(agent, Agent) and isolation.covers(agent.family)
            table.append(
                IsolatedSeat(game, agent, players, isolation).start() if covered else agent
            )
    except BaseException:
        close(table)
        raise
    return table


def close(table) -> None:
    """End the processes of a table's isolated seats."""
    for seat in table:
        if isinstance(seat, IsolatedSeat):
            seat.close()


def play_block_slow(
    game: Game, rules, agents, root_seed, first_index, n_games, first_player, secret, isolation
):
    """:func:`play_block` game by game through the slow path (a trusted seat is plain
    Python); an isolated seat's process is restarted after each forfeit, as in the loop."""
    n, rounds = rules.n_players, rounds_of(rules)
    out = np.zeros((n_games, game.row_width(rules)), np.int64)
    forfeits = np.zeros((n_games, n), np.int8)
    explained: Explained = {}
    table = seated(game.name, agents, n, isolation)
    try:
        for g in range(n_games):
            for r in range(rounds):
                for seat in table:
                    if isinstance(seat, IsolatedSeat):
                        seat.new_game()
                index = (first_index + g) * rounds + r
                played = play_slow(game, rules, table, root_seed, index, first_player, secret)
                game.result_row(played.final, n, rounds, r, out, g)
                for s, seat in enumerate(table):
                    if isinstance(seat, IsolatedSeat) and seat.fault and not forfeits[g, s]:
                        forfeits[g, s] = seat.fault
                        note(explained, s, seat.fault, g, seat.message)
    finally:
        close(table)
    lose(game, rules, out, forfeits)
    return out, forfeits, explained

"""A measurement aid: the luck estimator with a value function that plays the game out.

``docs/luck.md`` ("A value that plays the game out") reports what this measures. It plays a
field design on duplicate deals (the candidate in each seat in turn against copies of the
baseline, the same deal each time) from Python with explicit chance, and at every chance event
(seen or not: the value reads the whole state) it values each outcome by ``K`` playouts to the
end: seats played by the *stand-ins*, further chance drawn by the game's weights from a stream
of the estimator's own (the k-th playout of every outcome of an event on the same stream, so
the outcomes are compared on nearly the same futures). The correction is the value after the
outcome dealt less the weighted mean over all outcomes, as in ``agents/templates/luck.py``.
Its mean is zero whatever the stand-ins: the value is a function of the outcomes already
resolved (including those nobody saw, such as Tulips' cards removed unseen); the dealt game's
stack of unresolved outcomes is copied with the state but never used, since the playouts draw
their chance by the weights (``tests/test_luck.py`` checks that permuting it changes no value).

Stand-ins: ``same`` (each seat's own agent: exact for deterministic agents), one agent for every
seat (``tuned4p``), or a map by agent (``flatmc_net=learned,flatmc=tuned4p``).

    python docs/perf/luck_rollouts.py GAME CANDIDATE BASELINE STAND_INS DEALS K SEED

prints the candidate's raw and adjusted win share, their variances by deal, the variance ratio
(raw over adjusted) with a 95% bootstrap interval over deals (2,000 draws), and the CPU seconds
spent valuing (compilation excluded: it is done before the clock starts).
"""

import importlib
import sys
import time

import numpy as np
from numba import njit

from agents.drivers.block import _seating
from agents.drivers.generate import package
from agents.drivers.slow import ask, seat_streams
from agents.kernels.entries import entry_at
from agents.registry import parse_list
from giftsim.bits import lowest_bit
from giftsim.contract import MAX_PARAMS, address, scratch_size
from giftsim.game import N_PLAYERS, load_game
from giftsim.rng import GOLDEN, game_key, mix64, next_below

PLAYERS = 4
GAME = sys.argv[1] if __name__ == "__main__" else "geschenkt"
G = importlib.import_module(package(GAME).__name__ + ".game")  # the game's compiled verbs
STRIDE = scratch_size(G.OBS_SIZE, G.STATE_SIZE)  # a seat's scratch row, as in the loops


@njit
def draw(state, weights, rng):
    """Resolve the pending chance event with an outcome drawn by the game's weights."""
    count = G.chance_outcomes(state, weights)
    pick = next_below(rng, weights[:count].sum())
    for o in range(count):
        if weights[o] > 0 and pick < weights[o]:
            G.apply_chance(state, o)
            return
        pick -= max(weights[o], 0)


@njit
def playout(start, entries, params, seed, work, into):
    """Play ``start`` to the end with the stand-ins ``entries``; add each seat's share."""
    state, obs, scratch, rngs, weights, shares = work
    state[:] = start
    rng = np.full(1, seed, np.uint64)
    for s in range(rngs.size):
        rngs[s] = mix64(seed + np.uint64(s + 1))
    flat = params.ravel()
    while not G.is_over(state):
        if G.chance_pending(state):
            draw(state, weights, rng)
            continue
        mask = G.legal_mask(state)
        if mask & (mask - 1) == 0:
            G.apply_action(state, lowest_bit(mask))
            continue
        seat, view = state[G.TURN], address(state, 0)
        if not G.show_turn(state):
            G.observe(state, seat, obs)
            view = address(obs, 0)
        row, own = address(flat, seat * MAX_PARAMS), address(scratch, seat * STRIDE)
        entry = entry_at(entries[seat, 0], entries[seat, 1], entries[seat, 2])
        G.apply_action(state, entry(view, row, address(rngs, seat), own))
    G.rewards(state, shares)
    for p in range(state[N_PLAYERS]):
        into[p] += shares[p]


@njit
def outcome_values(state, entries, params, playouts, seed, values):
    """Every seat's value after each outcome of the pending event: the mean share of
    ``playouts`` playouts, the k-th of every outcome on the same stream. Returns the count."""
    weights = np.zeros(G.MAX_CHANCE_OUTCOMES, np.int64)
    count = G.chance_outcomes(state, weights)
    after = np.zeros(G.STATE_SIZE, np.int64)
    work = (
        np.zeros(G.STATE_SIZE, np.int64),
        np.zeros(G.OBS_SIZE, np.int64),
        np.zeros(G.MAX_PLAYERS * STRIDE, np.int64),
        np.zeros(G.MAX_PLAYERS, np.uint64),
        np.zeros(G.MAX_CHANCE_OUTCOMES, np.int64),
        np.zeros(G.MAX_PLAYERS),
    )
    for o in range(count):
        values[o, :] = 0.0
        if weights[o] <= 0:
            continue
        after[:] = state
        G.apply_chance(after, o)
        for k in range(playouts):
            playout(after, entries, params, mix64(seed + np.uint64(k) * GOLDEN), work, values[o])
        values[o, :] /= playouts
    return count


def stand_ins(game, rules, agents, spec):
    """The compiled entries and parameters of the seats' stand-ins (module docstring)."""
    if spec == "same":
        chosen = agents
    elif "=" in spec:
        by_agent = dict(pair.split("=") for pair in spec.split(","))
        missing = sorted({a.spec for a in agents} - set(by_agent))
        if missing:
            raise SystemExit(f"stand-ins: no stand-in for {', '.join(missing)} in {spec!r}")
        chosen = parse_list([by_agent[a.spec] for a in agents], game.name)
    else:
        chosen = parse_list([spec] * len(agents), game.name)
    entries, params, _ = _seating(game, rules, chosen, 0)
    return entries, params


def play(game, rules, agents, seed, index, stand, playouts, clock):
    """Game ``index`` of ``seed`` with explicit chance: each seat's share, its luck and the
    final state."""
    key = np.uint64(game_key(np.uint64(seed), index))
    state = np.zeros(game.state_size, np.int64)
    game.deal_open(rules.to_array(), key, index % PLAYERS, state)
    game.begin(state)
    rngs, luck = seat_streams(key, PLAYERS), np.zeros(PLAYERS)
    weights = np.zeros(game.max_chance_outcomes, np.int64)
    values = np.zeros((game.max_chance_outcomes, game.max_players))
    event = 0
    while not game.is_over(state):
        if game.chance_pending(state):
            dealt, count = game.next_outcome(state), game.chance_outcomes(state, weights)
            if (weights[:count] > 0).sum() > 1:  # one possible outcome: its correction is 0
                start, stream = time.process_time(), np.uint64(mix64(key + np.uint64(event)))
                outcome_values(state, *stand, playouts, stream, values)
                clock[1] += time.process_time() - start
                w = weights[:count].astype(float)
                luck += values[dealt, :PLAYERS] - w @ values[:count, :PLAYERS] / w.sum()
            event += 1
            game.apply_chance(state, dealt)
            continue
        legal = game.legal_actions(state)
        action = legal[0] if len(legal) == 1 else ask(game, agents, state, rngs, legal)
        if action not in legal:
            raise ValueError(f"seat {state[G.TURN]} chose the illegal action {action}")
        game.apply_action(state, action)
    shares = np.zeros(PLAYERS)
    game.rewards(state, shares)
    return shares, luck, state


def main(candidate, baseline, spec, deals, playouts, seed):
    game = load_game(GAME)
    rules = game.rules(n_players=PLAYERS)
    cand, field = parse_list([candidate], GAME)[0], parse_list([baseline] * PLAYERS, GAME)
    raw, adjusted, clock = np.zeros((deals, PLAYERS)), np.zeros((deals, PLAYERS)), [0.0, 0.0]
    warm_up(game, rules, parse_list([baseline] * PLAYERS, GAME), spec, seed)
    for d in range(deals):
        for seat in range(PLAYERS):  # the same deal (game index d), the candidate in each seat
            agents = [*field[:seat], cand, *field[seat + 1 :]]
            stand = stand_ins(game, rules, agents, spec)
            shares, luck, _ = play(game, rules, agents, seed, d, stand, playouts, clock)
            raw[d, seat], adjusted[d, seat] = shares[seat], shares[seat] - luck[seat]
    raw, adjusted = raw.mean(1), adjusted.mean(1)
    a, b = raw.var(ddof=1), adjusted.var(ddof=1)
    draws = np.random.default_rng(0).integers(0, deals, (2000, deals))
    with np.errstate(divide="ignore", invalid="ignore"):  # a draw of one deal repeated
        ratios = raw[draws].var(1, ddof=1) / adjusted[draws].var(1, ddof=1)
    low, high = np.quantile(ratios[np.isfinite(ratios)], [0.025, 0.975])
    print(f"{GAME} {PLAYERS} players, {candidate} vs {baseline}, stand-ins {spec}, {deals} deals")
    print(f"raw {raw.mean():.4f} (variance by deal {a:.5f})")
    print(f"adjusted {adjusted.mean():.4f} (variance by deal {b:.5f})")
    print(f"variance ratio {a / b:.2f} [{low:.2f}, {high:.2f}]")
    per_game = clock[1] / (deals * PLAYERS)
    print(f"valuing {clock[1]:.0f} CPU-s, {per_game:.3f} s a game")


def warm_up(game, rules, agents, spec, seed):
    """Compile the valuing (one event of one game) before anything is timed."""
    state = np.zeros(game.state_size, np.int64)
    game.deal_open(rules.to_array(), np.uint64(game_key(np.uint64(seed), 0)), 0, state)
    game.begin(state)
    while not game.chance_pending(state):  # Tulips may open with decisions
        game.apply_action(state, game.legal_actions(state)[0])
    values = np.zeros((game.max_chance_outcomes, game.max_players))
    outcome_values(state, *stand_ins(game, rules, agents, spec), 1, np.uint64(1), values)


if __name__ == "__main__":
    cand_, base_, spec_, deals_, k_, seed_ = sys.argv[2:8]
    main(cand_, base_, spec_, int(deals_), int(k_), int(seed_))

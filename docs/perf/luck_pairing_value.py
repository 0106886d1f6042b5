"""A measurement aid: a value network for the luck estimator fitted to one pairing.

``agents/templates/luck.py`` reads each seat's value right after every chance outcome: the
seat to act gets the network's value of its best afterstate, every other seat the value of
its view as it stands. This script plays a field design (the candidate in each seat in turn
against copies of the baseline, the first seat rotating, no exploration) on its own root seed
and records, after every chance outcome dealt, exactly the inputs that ``values`` reads: the
features of every waiting seat's view, and those of the seat to act's afterstate of the action
it then plays (its own agent's choice; the estimator takes the best afterstate by the network).
Each row's target is its seat's share of the win in that game. A network of ``HIDDEN`` units
is then fitted to those targets with the project's own code (``experiments.network``: logistic
loss, Adam, from He-initialised weights) and written as a network file for ``--luck-net``.

    python docs/perf/luck_pairing_value.py GAME CANDIDATE BASELINE GAMES HIDDEN SEED OUT
        [EPOCHS]

``GAMES`` games per seating (4 seatings at 4 players), on root seed ``SEED`` (use one that is not
the evaluation's); the last tenth of each seating's games is held out and its mean logistic
loss printed next to that of a constant (the mean target) and of the shipped network. On a
shared machine run it with ``OPENBLAS_NUM_THREADS=1`` (the fit is NumPy).
"""

import importlib
import sys
import time
from types import SimpleNamespace

import numpy as np
from numba import njit

from agents.drivers.block import _seating
from agents.drivers.generate import package
from agents.kernels import net
from agents.kernels.entries import entry_at
from agents.registry import parse_list
from agents.roster import roster
from experiments.network import Network, fit
from giftsim.bits import lowest_bit
from giftsim.contract import MAX_PARAMS, address, first_policy, first_seat, scratch_size
from giftsim.game import N_PLAYERS, load_game
from giftsim.rng import agent_stream, game_key

PLAYERS = 4
GAME = sys.argv[1] if __name__ == "__main__" else "geschenkt"
G = importlib.import_module(package(GAME).__name__ + ".game")  # the game's compiled verbs
STRIDE = scratch_size(G.OBS_SIZE, G.STATE_SIZE)  # a seat's scratch row, as in the loops
WORLD_STREAM = 0x1234567  # the stream afterstates that sample a world draw from (as luck.py)


@njit
def record(rules_vec, root_seed, first_index, n_games, policy, entries, params, feats, owners):
    """Play games ``first_index ..`` and record after every chance outcome each waiting seat's
    view and the seat to act's afterstate of its next action (module docstring). ``owners``
    rows: game (in this block), seat. Returns the rows written and each game's shares."""
    n = rules_vec[N_PLAYERS]
    state = np.zeros(G.STATE_SIZE, np.int64)
    obs, view = np.zeros(G.OBS_SIZE, np.int64), np.zeros(G.OBS_SIZE, np.int64)
    after_obs, world = np.zeros(G.OBS_SIZE, np.int64), np.zeros(G.STATE_SIZE, np.int64)
    shown, live = address(obs, 0), address(state, 0)
    scratch = np.zeros(G.MAX_PLAYERS * STRIDE, np.int64)
    rngs, rng = np.zeros(G.MAX_PLAYERS, np.uint64), np.zeros(1, np.uint64)
    x = np.zeros(feats.shape[1], np.float64)
    shares = np.zeros((n_games, n))
    out = np.zeros(G.MAX_PLAYERS)
    flat = params.ravel()
    rows = 0
    for g in range(n_games):
        index = first_index + g
        key = game_key(root_seed, index)
        G.deal_open(rules_vec, key, first_seat(policy, index, n), state)
        G.begin(state)
        for s in range(n):
            rngs[s] = agent_stream(key, np.uint64(0), s)
        mover = -1  # the seat to act after the last chance outcome, until it acts
        while not G.is_over(state):
            if G.chance_pending(state):
                G.apply_chance(state, G.next_outcome(state))
                if G.is_over(state):
                    break
                mover = -1 if G.chance_pending(state) else state[G.TURN]
                for p in range(n):
                    if p != mover:
                        G.observe(state, p, view)
                        G.features(view, x)
                        feats[rows] = x
                        owners[rows, 0], owners[rows, 1] = g, p
                        rows += 1
                continue
            mask = G.legal_mask(state)
            seat = state[G.TURN]
            if mask & (mask - 1) == 0:
                action = lowest_bit(mask)
            else:
                shown_view = live
                if not G.show_turn(state):
                    G.observe(state, seat, obs)
                    shown_view = shown
                row, own = address(flat, seat * MAX_PARAMS), address(scratch, seat * STRIDE)
                entry = entry_at(entries[seat, 0], entries[seat, 1], entries[seat, 2])
                action = entry(shown_view, row, address(rngs, seat), own)
            if seat == mover:
                G.observe(state, seat, view)
                rng[0] = WORLD_STREAM
                G.after(view, action, rng, world, after_obs)
                G.features(after_obs, x)
                feats[rows] = x
                owners[rows, 0], owners[rows, 1] = g, seat
                rows += 1
                mover = -1
            G.apply_action(state, action)
        G.rewards(state, out)
        shares[g] = out[:n]
    return rows, shares


def play(game, candidate, baseline, games, seed, per_game=200):
    """Features, targets and (seating, game) of every recorded row, and the held-out mask (the
    last tenth of each seating's games)."""
    definition = load_game(game)
    rules = definition.rules(n_players=PLAYERS)
    width = roster(game).learned.n_features(PLAYERS)
    policy = first_policy("rotate", PLAYERS)
    xs, ys, held = [], [], []
    for s in range(PLAYERS):
        lineup = [baseline] * s + [candidate] + [baseline] * (PLAYERS - s - 1)
        entries, params, _ = _seating(definition, rules, parse_list(lineup, game), 0)
        for start in range(0, games, 5000):
            count = min(5000, games - start)
            feats = np.zeros((count * per_game, width), np.float64)
            owners = np.zeros((count * per_game, 2), np.int64)
            head = (rules.to_array(), np.uint64(seed), s * 2**30 + start, count, policy)
            rows, shares = record(*head, entries, params, feats, owners)
            xs.append(feats[:rows].astype(np.float32))
            ys.append(shares[owners[:rows, 0], owners[:rows, 1]].astype(np.float32))
            held.append(start + owners[:rows, 0] >= games - games // 10)
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(held)


def loss(p, y):
    p = np.clip(p, 1e-7, 1 - 1e-7)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def raw_values(weights, x):
    """A network file's share for raw features ``x``."""
    hidden = np.maximum(x @ weights["w1"].T + weights["b1"], 0.0)
    return 1.0 / (1.0 + np.exp(-(hidden @ weights["w2"] + weights["b2"])))


def main(game, candidate, baseline, games, hidden, seed, out, epochs=3):
    began = time.process_time()
    x, y, held = play(game, candidate, baseline, games, seed)
    played = time.process_time() - began
    print(f"recorded {len(x):,} rows from {PLAYERS * games:,} games in {played:.1f} s CPU")
    rng = np.random.default_rng([seed, hidden])
    network = Network.new(x[~held], hidden, rng)
    settings = SimpleNamespace(epochs=epochs, batch=1024, lr=0.003, lam=1.0)
    train_loss = fit(network, x[~held], y[~held], settings, rng)
    w1, b1, w2, b2 = network.folded()
    shipped, _ = net.read(roster(game).shipped(PLAYERS))
    xh, yh = x[held].astype(np.float64), y[held]
    print(f"fitted {hidden} hidden units, {epochs} epochs, in {time.process_time() - began:.1f} s")
    print(f"train loss {train_loss:.5f}")
    fitted = loss(raw_values({"w1": w1, "b1": b1, "w2": w2, "b2": b2}, xh), yh)
    old, flat = loss(raw_values(shipped, xh), yh), loss(np.full(len(yh), yh.mean()), yh)
    print(f"held-out loss: fitted {fitted:.5f}, shipped {old:.5f}, constant {flat:.5f}", end="")
    print(f" ({len(yh):,} rows)")
    meta = {"game": game, "players": PLAYERS, "pairing": [candidate, baseline]}
    meta |= {"games": games, "seed": seed, "hidden": hidden, "epochs": epochs}
    net.save(out, w1, b1, w2, b2, meta, force=True)
    print(f"wrote {out}")


if __name__ == "__main__":
    names, numbers = sys.argv[2:4], [int(a) for a in sys.argv[4:7]]
    main(GAME, *names, *numbers, sys.argv[7], *[int(a) for a in sys.argv[8:9]])

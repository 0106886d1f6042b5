"""Studies on exactly solved No Thanks! variants (notebook ``07_exact_solutions.ipynb``): the
first-player advantage under optimal play against simulated play, how exploitable each agent
is, and where the optimal policy decides otherwise than the heuristics.

Variants are scaled from the rules of record (:func:`scaled`): of ``cards`` in the range,
``9 / 33`` are removed and each seat has ``11 / 24`` of a chip per card played (rounded), as
in the 3-5 player game.
"""

import numpy as np
import pandas as pd

from experiments import exploit
from experiments.blocks import z_score
from experiments.solving import solve_variant
from geschenkt_sim import engine, solve
from geschenkt_sim import state as nt_state
from geschenkt_sim.rules import (
    HIGHEST_CARD,
    LOWEST_CARD,
    N_REMOVED,
    TAKE,
    Rules,
    default_chips,
)
from geschenkt_sim.scoring import take_delta

RECORD_CARDS = HIGHEST_CARD - LOWEST_CARD + 1
RECORD_PLAYED = RECORD_CARDS - N_REMOVED


def scaled(players: int, cards: int, lowest: int = LOWEST_CARD) -> Rules:
    """The rules of record shrunk to ``cards`` cards from ``lowest``: the same share of them
    removed and the same chips per card played (at least one removed card and one chip)."""
    removed = max(1, round(cards * N_REMOVED / RECORD_CARDS))
    chips = max(1, round(default_chips(3) * (cards - removed) / RECORD_PLAYED))
    return Rules(
        n_players=players,
        lowest_card=lowest,
        highest_card=lowest + cards - 1,
        n_removed=removed,
        chips_per_player=chips,
    )


def describe(rules: Rules) -> str:
    return solve.Layout.of(rules).describe()


def solve_table(variants) -> pd.DataFrame:
    """Per variant: each position's share under optimal play, the first-player advantage,
    and the solve's size and cost."""
    rows = []
    for rules in variants:
        solution = solve_variant(rules, progress=False, tables=False)
        layout = solution.layout
        rows.append(
            {
                "variant": layout.describe(),
                "players": layout.n_players,
                "cards": layout.positions,
                "shares by position": ", ".join(f"{s:.4f}" for s in solution.shares),
                "first-player advantage": solution.first_player_advantage,
                "afterstates": layout.n_afterstates,
                "cpu seconds": solution.cpu_seconds,
            }
        )
    return pd.DataFrame(rows)


def optimal_check(rules: Rules, games: int, seed: int, folder=None) -> pd.DataFrame:
    """The optimal policy (``solved`` with the variant's table, solved into ``folder`` or a
    temporary one) in every seat of ``games`` simulated games, seat 0 first: each position's
    simulated share against the exact one, ``z`` in units of the simulation's error."""
    with _folder(folder) as where:
        solution = solve_variant(rules, where, progress=False)
        spec = f"solved:table={where}/policy.parquet"
        sim = exploit.simulated_shares(rules, [spec] * rules.n_players, games, seed)
    sim.insert(1, "exact", solution.shares)
    differences = sim.simulated - sim.exact
    sim["z"] = [z_score(d, se) for d, se in zip(differences, sim.simulated_se, strict=True)]
    return sim.assign(variant=describe(rules))


def _folder(folder):
    """A context giving ``folder`` (made if missing), or a temporary folder removed after."""
    import contextlib
    import tempfile
    from pathlib import Path

    if folder is None:
        return tempfile.TemporaryDirectory(prefix="giftsim-solve-")
    Path(folder).mkdir(parents=True, exist_ok=True)
    return contextlib.nullcontext(str(folder))


def first_player_study(variants, agents, games: int, seed: int = 0) -> pd.DataFrame:
    """Per variant: the first player's share under optimal play (exact) and in simulated
    mirror games (every seat ``agent``, seat 0 first, ``games`` games), each with the
    advantage over a fair share; ``se`` of the simulated ones over games."""
    rows = []
    for rules in variants:
        solution = solve_variant(rules, progress=False, tables=False)
        n = rules.n_players
        base = {"variant": describe(rules), "players": n, "cards": solve.Layout.of(rules).positions}
        rows.append(
            {**base, "play": "optimal (exact)", "first_share": solution.shares[0], "se": 0.0}
        )
        for spec in agents:
            sim = exploit.simulated_shares(rules, [spec] * n, games, seed)
            row = {"play": spec, "first_share": sim.simulated[0], "se": sim.simulated_se[0]}
            rows.append({**base, **row})
    table = pd.DataFrame(rows)
    table["advantage"] = table.first_share - 1 / table.players
    return table


def exploit_study(variants, agents, queries=None, seed: int = 0, progress=False) -> pd.DataFrame:
    """Exact exploitability of each agent on each variant (``exploit.exploitability``), one
    row per agent, variant and seat, with the cost of the run. ``solved`` stands for the
    variant's own optimal policy (solved into a temporary folder)."""
    parts = []
    for rules in variants:
        for spec in agents:
            with _folder(None) as where:
                if spec == "solved":
                    solve_variant(rules, where, progress=False)
                    spec = f"solved:table={where}/policy.parquet"
                result = exploit.exploitability(rules, spec, queries, seed, progress)
            if result.agent.startswith("solved:"):
                result.agent = "solved (own table)"
            extra = {"variant": describe(rules), "agent": result.agent, "queries": result.queries}
            extra |= {"asked": result.asked, "seconds": result.seconds}
            parts.append(result.table.assign(**extra))
    return pd.concat(parts, ignore_index=True)


def simulation_check(rules: Rules, spec: str, games: int, seed: int, queries=None):
    """An agent's exploitability checked in the fast game loop: the agent in every seat, and
    each seat's best-response table against it, over ``games`` games each
    (``exploit.check_by_simulation``). For an agent that randomises, the best response is
    to its *estimated* probabilities, so its simulated share, a true best response's lower
    bound, can fall short of the estimate."""
    result = exploit.exploitability(rules, spec, queries, seed, keep=True)
    with _folder(None) as where:
        tables = exploit.write_best_responses(result, where)
        checks = exploit.check_by_simulation(rules, result, tables, games, seed)
    return checks.assign(agent=result.agent, variant=describe(rules))


def worst_seat(table: pd.DataFrame) -> pd.DataFrame:
    """Per variant and agent, the seat where a best response gains most."""
    best = table.loc[table.groupby(["variant", "agent"], sort=False).gain.idxmax()]
    return best.reset_index(drop=True)


def optimal_decisions(rules: Rules, folder=None) -> pd.DataFrame:
    """Every decision of optimal self-play (seat 0 first; the variant solved into ``folder``,
    or a temporary one) with the probability it is reached and its state: cards taken, cards
    left in the stack, the card, the pot, the acting position and its chips, the ``cost`` of
    taking (the card points it adds minus the chips on it), and the optimal action
    (``optimal``: 1 takes)."""
    with _folder(folder) as where:
        solve_variant(rules, where, progress=False)
        result = exploit.exploitability(rules, f"solved:table={where}/policy.parquet", keep=True)
    rows = exploit.self_play_decisions(result)
    layout = result.layout
    states = [_state(layout, int(d)) for d in rows.decision]
    frame = pd.DataFrame(states, columns=["hands", "chips_all", "card", "pot", "position"])
    frame["reach"], frame["optimal"] = rows["reach"].to_numpy(), rows["take"].to_numpy()
    frame["taken"] = frame.hands.map(lambda hands: sum(len(h) for h in hands))
    frame["cards_left"] = layout.n_cards - frame.taken - 1
    frame["chips"] = [c[p] for c, p in zip(frame.chips_all, frame.position, strict=True)]
    frame["cost"] = [
        _cost(h[p], card, pot)
        for h, p, card, pot in zip(frame.hands, frame.position, frame.card, frame.pot, strict=True)
    ]
    return frame


def _state(layout: solve.Layout, decision: int):
    """``(hands, chips now, card, pot, acting seat)`` of a decision slot."""
    rest, pot = divmod(decision, layout.pots)
    hands, chips, card, first = solve.decode_chain(layout, rest)
    n = layout.n_players
    now = [c - solve.paid(pot, p, first, n) for p, c in enumerate(chips)]
    return hands, now, card, pot, (first + pot) % n


def _cost(hand, card: int, pot: int) -> int:
    mask = sum(1 << c for c in hand)
    return int(take_delta(np.int64(mask), np.int64(card))) - pot


def with_agents(decisions: pd.DataFrame, rules: Rules, agents) -> pd.DataFrame:
    """``decisions`` with each agent's action at every state (column ``agent``, 1 takes),
    asked with the observation the game loop would show (a deterministic agent's answer)."""
    from agents.registry import parse

    out = decisions.copy()
    for spec in agents:
        agent = parse(spec, "geschenkt")
        row = agent.param_row(rules.n_players)
        out[spec] = [
            int(agent.family.ask(_obs(rules, s), row, np.zeros(1, np.uint64)) == TAKE)
            for s in decisions.itertuples()
        ]
    return out


def _obs(rules: Rules, s) -> np.ndarray:
    obs = np.zeros(engine.OBS_SIZE, np.int64)
    taken = 0
    for p, hand in enumerate(s.hands):
        obs[nt_state.HANDS + p] = sum(1 << c for c in hand)
        obs[nt_state.CHIPS + p] = s.chips_all[p]
        taken |= int(obs[nt_state.HANDS + p])
    cards = sum(1 << c for c in range(rules.lowest_card, rules.highest_card + 1))
    obs[nt_state.N_PLAYERS], obs[nt_state.TURN], obs[nt_state.SEAT] = (rules.n_players,) + (
        s.position,
    ) * 2
    obs[nt_state.CARD], obs[nt_state.POT], obs[nt_state.CARDS_LEFT] = s.card, s.pot, s.cards_left
    obs[nt_state.UNSEEN] = cards & ~taken & ~(1 << s.card)
    obs[nt_state.LOWEST], obs[nt_state.HIGHEST] = rules.lowest_card, rules.highest_card
    obs[nt_state.CHIPS_VISIBLE], obs[nt_state.N_REMOVED] = 1, rules.n_removed
    obs[nt_state.TOTAL_CHIPS] = rules.n_players * rules.chips
    obs[nt_state.N_DECISIONS] = s.taken + s.pot
    return obs


def agreement(decisions: pd.DataFrame, agents) -> pd.DataFrame:
    """Per agent, the share of optimal play's decisions (weighted by how often they are
    reached) where it acts as the optimal policy does, and where it does not: takes the
    optimal policy passes, or passes what it takes."""
    weight = decisions.reach / decisions.reach.sum()
    rows = []
    for spec in agents:
        taken, optimal = decisions[spec], decisions.optimal
        rows.append(
            {
                "agent": spec,
                "agrees": float((weight * (taken == optimal)).sum()),
                "takes, optimal passes": float((weight * ((taken == 1) & (optimal == 0))).sum()),
                "passes, optimal takes": float((weight * ((taken == 0) & (optimal == 1))).sum()),
            }
        )
    return pd.DataFrame(rows)


def by_cost(decisions: pd.DataFrame, bins) -> pd.DataFrame:
    """``decisions`` with ``cost`` cut into the intervals ``(bins[i], bins[i + 1]]``."""
    return decisions.assign(cost=pd.cut(decisions.cost, bins))


def take_rates(decisions: pd.DataFrame, by, agents=()) -> pd.DataFrame:
    """Reach-weighted take rates of the optimal policy and of ``agents`` grouped by the
    columns ``by`` (with each group's share of the decisions)."""
    columns = ["optimal", *agents]
    keys = [decisions[k] for k in ([by] if isinstance(by, str) else by)]
    reach = decisions.reach.groupby(keys, observed=True).sum()
    sums = decisions[columns].mul(decisions.reach, axis=0).groupby(keys, observed=True).sum()
    table = sums.div(reach, axis=0)
    table.insert(0, "share", reach / reach.sum())
    return table

"""What a learned network values: probes of its estimate on the positions it meets.

A probe takes the afterstates a table of ``learned`` agents reaches (recorded by the game's
self-play recorder, ``agents/templates/selfplay_hook.py``), changes one thing in their
features (the game's learned module names its probes: a chip more; a majority point more) and
reads how much the network's estimate of the seat's
share of the win moves. The change is averaged per game stage; the interval is over games
(a game's positions are not independent of one another).
"""

import numpy as np
import pandas as pd

from agents.drivers.block import recorded_block
from agents.kernels import net
from agents.registry import parse_list
from agents.roster import roster
from experiments.blocks import Z95
from giftsim.game import load_game


def shares(weights: dict, x: np.ndarray) -> np.ndarray:
    """The network's estimated share of the win for each row of features ``x`` (NumPy: the
    same arithmetic as the compiled ``agents.kernels.net.share``)."""
    hidden = np.maximum(x @ weights["w1"].T + weights["b1"], 0.0)
    return 1.0 / (1.0 + np.exp(-(hidden @ weights["w2"] + weights["b2"])))


def positions(game: str, players: int, spec: str, n_games: int, seed: int):
    """The afterstate features of every decision of ``n_games`` games of ``spec`` at every
    seat, with the game index and decision number of each row."""
    rules = load_game(game).rules(n_players=players)
    agents = parse_list([spec] * players, game)
    _, feats, owners = recorded_block(load_game(game), rules, agents, seed, 0, n_games, (0.0, -1))
    return feats.astype(np.float64), owners


def nudge(path, game: str, players: int, change, stage, n_games=2000, seed=0) -> pd.DataFrame:
    """Mean change of the network's estimate when ``change(x)`` edits a copy of the features
    ``x`` in place, per stage (``stage(x)``, one label per row), over the positions of a
    table of ``learned:net=path``; columns ``stage``, ``change`` and its 95% interval over
    games, ``positions``."""
    weights, _ = net.read(path)
    x, owners = positions(game, players, f"learned:net={path}", n_games, seed)
    moved = x.copy()
    change(moved)
    frame = pd.DataFrame(
        {
            "stage": stage(x),
            "game": owners[:, 0],
            "delta": shares(weights, moved) - shares(weights, x),
        }
    )
    per_game = frame.groupby(["stage", "game"])["delta"].mean().reset_index()
    table = per_game.groupby("stage")["delta"].agg(["mean", "std", "count"])
    half = Z95 * table["std"] / np.sqrt(table["count"])
    positions_per_stage = frame.groupby("stage").size()
    return pd.DataFrame(
        {
            "change": table["mean"],
            "ci_low": table["mean"] - half,
            "ci_high": table["mean"] + half,
            "games": table["count"],
            "positions": positions_per_stage,
        }
    ).reset_index()


def value_probe(game: str, name: str, path, players: int, n_games: int = 2000, seed: int = 0):
    """The probe ``name`` of a game's learned features (its ``learned.PROBES``: No Thanks!
    ``chip``, one more chip; Gift of Tulips ``majority``, five more majority points) on the
    network at ``path``: :func:`nudge`'s table, its stage column named as the probe says."""
    probes = roster(game).learned.PROBES
    if name not in probes:
        raise ValueError(f"{game} has no probe {name!r} (valid: {', '.join(probes)})")
    change, stage, stage_name = probes[name](players)
    table = nudge(path, game, players, change, stage, n_games, seed)
    return table.rename(columns={"stage": stage_name})

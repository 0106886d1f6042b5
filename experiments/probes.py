"""What a learned network values: probes of its estimate on the positions it meets.

A probe takes the afterstates a table of ``learned`` agents reaches (recorded by the game's
self-play recorder, ``agents/templates/selfplay_hook.py``), changes one thing in their features (a
chip more; a majority point more) and reads how much the network's estimate of the seat's
share of the win moves. The change is averaged per game stage; the interval is over games
(a game's positions are not independent of one another).
"""

import numpy as np
import pandas as pd

from agents.drivers.block import recorded_block
from agents.kernels import net
from agents.registry import parse_list
from experiments.games import entry
from giftsim.game import load_game

Z95 = 1.959963984540054


def shares(weights: dict, x: np.ndarray) -> np.ndarray:
    """The network's estimated share of the win for each row of features ``x`` (NumPy: the
    same arithmetic as the compiled ``agents.kernels.net.share``)."""
    hidden = np.maximum(x @ weights["w1"].T + weights["b1"], 0.0)
    return 1.0 / (1.0 + np.exp(-(hidden @ weights["w2"] + weights["b2"])))


def positions(game: str, players: int, spec: str, n_games: int, seed: int):
    """The afterstate features of every decision of ``n_games`` games of ``spec`` at every
    seat, with the game index and decision number of each row."""
    rules = entry(game).rules(n_players=players)
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


def chip_value(path, players: int, n_games: int = 2000, seed: int = 0) -> pd.DataFrame:
    """No Thanks!: what one more chip in the seat's own stack is worth (change of its
    estimated share of the win), by cards left in the stack."""
    from agents.geschenkt import learned as nt

    first = nt.PER_SEAT * players  # where the global features start
    own_chips = nt.CHIPS * players  # relative seat 0's chips

    def change(x):
        x[:, own_chips] += 0.1  # features are chips / 10
        x[:, first + nt.LEAD] += 0.05  # and its score is one point lower: lead / 20

    def stage(x):
        return np.rint(x[:, first + nt.CARDS_LEFT] * 24).astype(int)

    table = nudge(path, "geschenkt", players, change, stage, n_games, seed)
    return table.rename(columns={"stage": "cards_left"})


def majority_value(path, players: int, points: int = 5, n_games: int = 500, seed: int = 0):
    """Gift of Tulips: what ``points`` more majority points (if the game ended now) are worth
    to the seat (change of its estimated share of the win), by cards left to draw (in
    bins of 8)."""
    from agents.tulips import learned as tu

    first = tu.PER_SEAT * players  # where the global features start
    own_majority = tu.MAJORITY * players  # relative seat 0's majority points

    def change(x):
        x[:, own_majority] += points / 30.0  # features are points / 30
        x[:, first + tu.MARGIN] += points / 30.0  # and its margin over the best rival too

    def stage(x):
        return (np.rint(x[:, first + tu.DECK_LEFT] * 72) // 8 * 8).astype(int)

    table = nudge(path, "tulips", players, change, stage, n_games, seed)
    return table.rename(columns={"stage": "cards_left"})

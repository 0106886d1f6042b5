"""Draw the README's figures into docs/img/ (run from the repository root).

    .venv/bin/python docs/figures.py                      # all three at full size
    .venv/bin/python docs/figures.py nt_balance           # one of them
    GIFTSIM_SCALE=0.01 .venv/bin/python docs/figures.py --out /tmp/figures   # a quick look

Each figure is computed with the ``experiments`` calls, agents, seeds and sizes of the notebook
cell named beside it (``GIFTSIM_SCALE`` scales the sizes as in the notebooks), so the README
need not wait for a full notebook run. Titles name the game, the agents and the number of games
actually simulated (read back from the results, not from the requested sizes);
``--ismcts-games N`` plays N games per player count for the Tulips seat study's slow
``ismcts:iters=200`` panel instead of the notebook's 120.
"""

import argparse
import os
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from experiments import anatomy, plots, stats, studies, sweeps

SCALE = float(os.environ.get("GIFTSIM_SCALE", "1"))

# notebooks/03_balance_sweeps.ipynb, section 1
BALANCE_CHIPS = [3, 5, 7, 9, 11, 13, 15, 17, 19, 21]
BALANCE_REMOVED = [0, 3, 6, 9, 12, 15, 18, 21, 24]
BALANCE_SEED = 2024

# notebooks/01_first_player_advantage.ipynb, "Gift of Tulips"
SEAT_AGENTS = {"random": 200_000, "greedy": 200_000, "hoarder": 200_000, "ismcts:iters=200": 120}
SEAT_SEED = 2026

# notebooks/04_anatomy.ipynb, section 4
PRICE_AGENTS = ["sniper", "greedy"]
PRICE_SEED = 2024


def balance_grid(scale: float):
    """Notebook 03's grid: four ``sniper``s under every (removed cards, chips) variant."""
    n_games = max(300, int(100_000 * scale))
    variants = sweeps.grid(n_removed=BALANCE_REMOVED, chips_per_player=BALANCE_CHIPS)
    return sweeps.sweep("geschenkt", "sniper", variants, n_games, players=4, seed=BALANCE_SEED)


def nt_balance_figure(grid):
    """The balance grid as four heatmaps with readable labels and a title saying what ran."""
    fig, axes = plt.subplots(2, 2, figsize=(16, 12))
    panels = [
        ("first_edge", 0, 3, "First player's edge in win share (fair share 1/4 = 0)"),
        ("last_edge", 0, 3, "Last player's edge in win share (fair share 1/4 = 0)"),
        ("decisions", None, 0, "Decisions per game"),
        ("winning_score", None, 1, "Winning score (lower wins)"),
    ]
    for ax, (value, center, digits, title) in zip(axes.flat, panels, strict=True):
        plots.sweep_heatmap(
            grid, value, "n_removed", "chips_per_player", ax, center, digits, title=title
        )
    per_cell = _counts(grid["games"])
    fig.suptitle(
        f"No Thanks!, 4 players, sniper in every seat (first player rotating): {per_cell} games "
        f"per cell, {int(grid['games'].sum()):,} in all; ± half width of the 95% interval",
        fontsize=14,
    )
    fig.tight_layout()
    return fig


def seat_sums(scale: float, ismcts_games=None):
    """Notebook 01's Tulips seat study (``ismcts_games`` replaces its ismcts size if given)."""
    agents = studies.scaled(SEAT_AGENTS, scale)
    if ismcts_games is not None:
        agents["ismcts:iters=200"] = ismcts_games
    return studies.seat_study("tulips", agents, seed=SEAT_SEED)


def tulips_seats_figure(sums):
    """One panel per agent, titled with the games it played per player count."""
    per_seat = sums.assign(played=sums["games"] / sums["n_players"])  # each game fills n seats
    games = per_seat.groupby(["agent", "n_players"])["played"].sum().groupby("agent").unique()
    counts = "; ".join(
        f"{agent} {', '.join(f'{int(n):,}' for n in sorted(per))}" for agent, per in games.items()
    )
    players = sorted(sums["n_players"].unique())
    fig = plots.seat_panels(
        sums,
        "win_share",
        suptitle=(
            f"Gift of Tulips, one agent in every seat (first player rotating), "
            f"{players[0]}-{players[-1]} players: win share by turn position (95% intervals)\n"
            f"games per player count: {counts}"
        ),
    )
    fig.set_size_inches(17, 4.4)
    return fig


def price_tables(scale: float) -> dict:
    """Notebook 04's card prices: four of each agent, ``N_PRICES`` games each."""
    n_games = max(500, int(200_000 * scale))
    return {a: anatomy.events("geschenkt", [a] * 4, n_games, seed=PRICE_SEED) for a in PRICE_AGENTS}


def nt_card_prices_figure(prices: dict):
    """Per agent, the price of each card and the share of its takes in the winner's hand."""
    fig, axes = plt.subplots(len(prices), 2, figsize=(18, 5.5 * len(prices)), squeeze=False)
    for row, (agent, frame) in zip(axes, prices.items(), strict=True):
        n_games = f"{frame['game_index'].nunique():,} games"
        plots.card_prices(
            frame, row[0], title=f"Four {agent} players: price of each card ({n_games})"
        )
        title = f"Four {agent} players: cards in the winner's hand, ties included ({n_games})"
        plots.card_winner_share(frame, row[1], title=title)
    fig.suptitle("No Thanks!, 4 players, one agent in every seat (first player rotating)")
    fig.tight_layout()
    return fig


def nt_balance_facts(grid) -> str:
    """The README's numbers: the largest first-player edge and where it is."""
    best = grid.loc[grid["first_edge"].idxmax()]
    return (
        f"largest first-player edge {best.first_edge:+.1%} [{best.first_edge_low:+.1%}, "
        f"{best.first_edge_high:+.1%}] at {best.chips_per_player} chips, "
        f"{best.n_removed} removed; largest last-player edge {grid['last_edge'].max():+.1%}"
    )


def tulips_seats_facts(sums) -> str:
    """The README's numbers: first and last of four ``hoarder``s."""
    table = stats.summary_seat_table(sums).loc[("hoarder", 4)]
    first, last = table.loc[0], table.loc[3]
    return (
        f"4 hoarders: last {last.win_share:.1%} [{last.win_low:.1%}, {last.win_high:.1%}], "
        f"first {first.win_share:.1%} [{first.win_low:.1%}, {first.win_high:.1%}]"
    )


def nt_card_prices_facts(prices: dict) -> str:
    """The README's numbers: card 35 among four ``sniper``s."""
    card = anatomy.price_table(prices["sniper"]).loc[35]
    return (
        f"4 snipers, card 35: price {card.price:.2f} [{card.price_low:.2f}, "
        f"{card.price_high:.2f}], in the winner's hand {card.in_winner:.1%}"
    )


def _counts(values) -> str:
    return " / ".join(f"{int(n):,}" for n in sorted(set(values)))


FIGURES = {  # name -> (compute(scale, args), draw(data), facts(data), notebook)
    "nt_balance": (
        lambda s, a: balance_grid(s),
        nt_balance_figure,
        nt_balance_facts,
        "03_balance_sweeps",
    ),
    "tulips_seats": (
        lambda s, a: seat_sums(s, a.ismcts_games),
        tulips_seats_figure,
        tulips_seats_facts,
        "01_first_player_advantage",
    ),
    "nt_card_prices": (
        lambda s, a: price_tables(s),
        nt_card_prices_figure,
        nt_card_prices_facts,
        "04_anatomy",
    ),
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help=f"any of {', '.join(FIGURES)} (default: all)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "img")
    parser.add_argument("--ismcts-games", type=int, default=None)
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in FIGURES]
    if unknown:
        parser.error(f"unknown figure {unknown[0]!r}; choose from {', '.join(FIGURES)}")
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.names or FIGURES:
        compute, draw, facts, notebook = FIGURES[name]
        start = time.perf_counter()
        data = compute(SCALE, args)
        fig = draw(data)
        fig.savefig(args.out / f"{name}.png", dpi=100, bbox_inches="tight")
        plt.close(fig)
        seconds = time.perf_counter() - start
        print(f"{args.out / name}.png <- notebooks/{notebook}.ipynb's experiments, {seconds:.0f} s")
        print(f"  {facts(data)}", flush=True)


if __name__ == "__main__":
    main()

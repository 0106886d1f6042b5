"""Rules sweeps: the same study under many rules, one row per rules variant.

A *variant* is a dict of ``Rules`` options besides ``n_players`` (``{}`` is the rules of
record); a sweep takes a list of them (labelled ``"k=v, ..."``) or a dict ``{label: options}``.
Every variant plays the same root seed, so game ``i`` of a variant is the pure function of
``(seed, i, rules, agents)`` that ``experiments.batch.play`` plays with those rules: a sweep
over one variant is exactly one batch run (a test checks).

:func:`sweep` plays one agent in every seat with a rotating first player (every turn position
equally often) and summarises balance with :func:`balance`; :func:`field_sweep` plays
``experiments.batch.field`` (a candidate against copies of a baseline, seat-rotated on
duplicate deals) under each variant.
"""

from itertools import product

import numpy as np
import pandas as pd

from experiments import stats
from experiments.batch import field, play
from giftsim.checks import is_whole
from giftsim.game import load_game


def grid(**axes) -> list[dict]:
    """Every combination of the given option values, e.g. ``grid(n_removed=[0, 9],
    chips_per_player=[7, 11])``: four variants, the last axis varying fastest."""
    names = list(axes)
    return [dict(zip(names, values, strict=True)) for values in product(*axes.values())]


def label(options: dict) -> str:
    """``"k=v, ..."`` for a variant, ``"rules of record"`` for ``{}``."""
    return ", ".join(f"{k}={v}" for k, v in options.items()) or "rules of record"


def _labelled(variants) -> dict:
    if isinstance(variants, dict):
        return dict(variants)
    return {label(v): dict(v) for v in variants}


def balance(frame: pd.DataFrame, score_range=None) -> dict:
    """Balance of one mirror batch (``experiments.batch.play`` rows): every game holds each turn
    position once, whoever moves first.

    Every figure ``x`` with an interval comes with ``x_low`` and ``x_high`` (95%).
    ``first_share`` / ``last_share``: win share of the first / last player in the turn order
    (intervals as ``stats.seat_advantage``, every game its own deal); ``first_edge`` /
    ``last_edge``: the same minus the fair share 1/n; ``last_minus_first``: the last share
    minus the first, its interval counting their covariance (``stats.seat_gap``);
    ``spread``: best minus worst turn position; ``chi2``, ``p_value``: the test of equal win
    shares over positions (``stats.seat_test``); ``decisions``, ``winning_score``,
    ``mean_score``: means (Student t intervals on the games less one; the scores' in
    ``score_range``, a seat's lowest and highest score, when given; of width 0 where every
    game gave the same value); ``ties``: share of games with a shared win. One game: every
    interval and the test are NaN."""
    n = sum(1 for c in frame.columns if c.startswith("win_"))
    wins = frame[[f"win_{s}" for s in range(n)]].to_numpy()
    scores = frame[[f"score_{s}" for s in range(n)]].to_numpy()
    games = np.arange(len(frame))
    seat_at = (frame["first_player"].to_numpy()[:, None] + np.arange(n)) % n
    by_position = wins[games[:, None], seat_at]  # turn position 0 = first player
    share, cov = by_position.mean(axis=0), np.full((n, n), np.nan)
    if len(frame) > 1:  # one game has no covariance
        cov = np.cov(by_position, rowvar=False) / len(frame)
    z = stats.quantile(len(frame) - 1)  # every game its own deal, one stratum
    low, high = stats.share_interval(share, np.sqrt(np.diagonal(cov)), len(frame), z)
    row = {"games": len(frame), "n_players": n}
    row.update(_position("first", share[0], low[0], high[0], n))
    row.update(_position("last", share[-1], low[-1], high[-1], n))
    gap_se = np.sqrt(max(cov[0, 0] + cov[-1, -1] - 2 * cov[0, -1], 0.0))
    gap_low, gap_high = stats.gap_interval(share[-1] - share[0], gap_se, len(frame), z)
    row.update(_interval("last_minus_first", share[-1] - share[0], float(gap_low), float(gap_high)))
    row["spread"] = share.max() - share.min()
    test = stats.wald_equal_shares(share, cov, len(frame) - 1)
    row["chi2"], row["p_value"] = test["chi2"], test["p_value"]
    row.update(_mean("decisions", frame["n_decisions"].to_numpy(float), (0, np.inf)))
    best = scores[games, wins.argmax(axis=1)].astype(float)
    row.update(_mean("winning_score", best, score_range))
    row.update(_mean("mean_score", scores.mean(axis=1), score_range))
    row["ties"] = float(((wins > 0).sum(axis=1) > 1).mean())
    return row


def _position(name: str, share: float, low: float, high: float, n: int) -> dict:
    """Share and edge (share minus 1/n) of one turn position, with their intervals."""
    fair = 1 / n
    return {
        **_interval(f"{name}_share", share, low, high),
        **_interval(f"{name}_edge", share - fair, low - fair, high - fair),
    }


def _interval(name: str, value: float, low: float, high: float) -> dict:
    return {name: value, f"{name}_low": low, f"{name}_high": high}


def _mean(name: str, values: np.ndarray, bounds=None) -> dict:
    """``name``, ``name_low``, ``name_high``: mean and 95% Student t interval (NaN for one
    value), clipped into ``bounds`` (lowest, highest) when given."""
    mean, n = values.mean(), len(values)
    half = stats.quantile(n - 1) * values.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
    low, high = np.clip((mean - half, mean + half), *(bounds or (-np.inf, np.inf)))
    return _interval(name, mean, float(low), float(high))


def sweep(game: str, agent: str, variants, n_games: int, players=4, seed: int = 0):
    """``agent`` in every seat under each variant and player count (``players``: an int or a
    list): one row per (variant, n_players) with the ``variant`` label, its options as columns
    and the :func:`balance` figures of ``n_games`` games (first player rotating)."""
    definition = load_game(game)
    players = [players] if is_whole(players) else list(players)
    rows = []
    for name, options in _labelled(variants).items():
        for n in players:
            rules = definition.rules(n_players=n, **options)
            frame = play(game, [agent] * n, n_games, rules=rules, seed=seed)
            scores = definition.match_score_range(rules)
            rows.append({"variant": name, **options, **balance(frame, scores)})
    return pd.DataFrame(rows)


def field_sweep(game: str, candidates, baseline: str, variants, n_games: int, n_players=4, seed=0):
    """Each candidate against ``n_players - 1`` copies of ``baseline`` under each variant
    (``experiments.batch.field``: every seat in turn, on the same deals): one row per
    (variant, candidate) with the ``variant`` label, its options as columns, ``win_share`` and
    ``edge`` (win share minus ``fair`` = 1/n),
    each with its 95% interval (``win_share_low``, ``win_share_high``, ``edge_low``, ...), and
    ``games``."""
    definition = load_game(game)
    rows = []
    for name, options in _labelled(variants).items():
        rules = definition.rules(n_players=n_players, **options)
        for candidate in candidates:
            result = field(game, candidate, baseline, n_players, n_games, seed=seed, rules=rules)
            share, (low, high), fair = result["win_share"], result["ci95"], result["fair"]
            rows.append(
                {
                    "variant": name,
                    **options,
                    "candidate": candidate,
                    **_interval("win_share", share, low, high),
                    **_interval("edge", share - fair, low - fair, high - fair),
                    "fair": fair,
                    "games": result["games"],
                }
            )
    return pd.DataFrame(rows)


def turns(game: str, table: pd.DataFrame) -> pd.DataFrame:
    """A sweep table of a game whose rules count turns (Gift of Tulips: ``Rules.max_turns``,
    ``Rules.equal_turns``) with ``turns`` (turns in a game; under ``game_end="deck_out"`` a
    last odd card makes a half turn) and ``equal_turns`` (every player gets as many full
    turns) for each row's rules: its ``n_players`` and any rule option the table has as a
    column (absent, None or NaN: the rules of record)."""
    cls = load_game(game).rules
    options = [c for c in table.columns if c in cls.__dataclass_fields__ and c != "n_players"]
    rules = [
        cls(n_players=int(row["n_players"]), **_given(row, options)) for _, row in table.iterrows()
    ]
    equal = [r.equal_turns for r in rules]
    return table.assign(turns=[r.max_turns for r in rules], equal_turns=equal)


def _given(row, options) -> dict:
    """The row's rule options that are set (not None or NaN), as Python values (a whole
    float, as a column with gaps holds counts, as an int)."""
    given = {}
    for option in options:
        value = row[option]
        value = value.item() if hasattr(value, "item") else value
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if value is not None and not (isinstance(value, float) and np.isnan(value)):
            given[option] = value
    return given


def spread_by_turns(table: pd.DataFrame) -> pd.DataFrame:
    """Turn-order ``spread`` of a :func:`turns` table summarised per player count for
    the removal counts with and without equal turns: rows (``n_players``, ``equal_turns``),
    columns ``variants``, ``mean``, ``min``, ``max``."""
    groups = table.groupby(["n_players", "equal_turns"], sort=True)["spread"]
    return groups.agg(variants="size", mean="mean", min="min", max="max")

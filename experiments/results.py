"""Results folders as tidy tables: per-game rows (wide), their long form, summaries."""

from pathlib import Path

import numpy as np
import pandas as pd

from experiments import manifest as manifest_io


def load(folder) -> tuple[dict, pd.DataFrame]:
    """The manifest and every chunk of a results folder, in job and game order."""
    folder = Path(folder)
    manifest = manifest_io.read(folder)
    files = sorted(folder.glob("chunk-*.parquet"))
    if not files:
        return manifest, pd.DataFrame()
    frame = pd.concat((pd.read_parquet(f) for f in files), ignore_index=True)
    keys = ["job", "seat"] if manifest["summary_only"] else ["job", "game_index"]
    return manifest, frame.sort_values(keys, kind="stable").reset_index(drop=True)


def long_table(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (game, seat): job, game_index, n_players, seat, agent, first, position
    (place in the turn order, 0 = first player), score, win, plus the game's other per-seat
    blocks (e.g. give, keep, majority, cards for Tulips)."""
    seats = sorted(int(c.split("_")[1]) for c in frame.columns if c.startswith("agent_"))
    blocks = sorted({c.rsplit("_", 1)[0] for c in frame.columns if c.endswith("_0")} - {"agent"})
    parts = []
    for s in seats:
        present = frame[f"agent_{s}"].notna()
        rows = frame[present]
        part = pd.DataFrame(
            {
                "job": rows.job.to_numpy(),
                "game_index": rows.game_index.to_numpy(),
                "n_players": _n_players(rows, seats),
                "seat": s,
                "agent": rows[f"agent_{s}"].astype(str).to_numpy(),
                "first": (rows.first_player == s).to_numpy(),
            }
        )
        part["position"] = (s - rows.first_player.to_numpy()) % part["n_players"].to_numpy()
        for block in blocks:
            part[block] = rows[f"{block}_{s}"].to_numpy()
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _n_players(rows: pd.DataFrame, seats: list[int]) -> np.ndarray:
    return sum(rows[f"agent_{s}"].notna().to_numpy().astype(np.int64) for s in seats)


def summary_of(frame: pd.DataFrame, summary_only: bool, jobs=None) -> pd.DataFrame:
    """Per (job, seat, position) sums: chunk summaries added up, or computed from rows of
    the given jobs (``experiments.schedule.Job``)."""
    if not summary_only:
        from experiments.runner import summary

        frame = pd.concat(
            [summary(rows, jobs[int(j)]) for j, rows in frame.groupby("job", sort=True)],
            ignore_index=True,
        )
    keys = ["job", "n_players", "seat", "position", "agent"]
    return frame.groupby(keys, as_index=False, sort=True).sum(numeric_only=True)


def load_summary(folder) -> pd.DataFrame:
    """The sums of a results folder, read one chunk at a time (memory stays bounded)."""
    from experiments.runner import summary
    from experiments.schedule import Job

    folder = Path(folder)
    manifest = manifest_io.read(folder)
    jobs = [Job(**{**job, "agents": tuple(job["agents"])}) for job in manifest["jobs"]]
    parts = []
    for path in sorted(folder.glob("chunk-*.parquet")):
        if manifest["summary_only"]:
            chunk = pd.read_parquet(path)
        else:
            job = jobs[int(path.name.split("-")[1])]
            columns = ["first_player", "n_decisions"] + [
                f"{kind}_{s}" for s in range(job.n_players) for kind in ("win", "score")
            ]
            chunk = summary(pd.read_parquet(path, columns=columns), job)
        parts.append(chunk)
    if not parts:
        raise ValueError(f"{folder} holds no results yet")
    return summary_of(pd.concat(parts, ignore_index=True), True)

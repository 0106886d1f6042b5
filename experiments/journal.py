"""Journals: CSV files to which a long command adds each result as it finishes, so that the same
command again continues from the results it finished, playing none twice and losing none.

:func:`read_table` and :func:`append_row` are the file's side (``giftsim bound --out`` keeps
its rows with them). :class:`Journal` keeps the scores of field tournaments
(:func:`experiments.batch.field`), the unit of ``giftsim ladder`` (a step) and ``giftsim tune``
(a candidate, then the best one's final score): ``--journal FILE``.

A score is a pure function of its key: the game, the player count, the candidate's and the
field's specs, the deals and their seed, the code that plays and scores them
(:func:`scoring_code`: the engines, agents and shipped networks, and the modules that play a
field and compute its interval) and the other files its agents read (``manifest.inputs``: a
``net=`` or ``table=`` file, an agents module by path or dotted name). A score is taken from
the journal only when its whole key matches, so a journal is never read by code or files that
would play other games; rows of other keys are kept and left alone (one journal can serve
several ladders and tunes).
"""

import hashlib
import math
from pathlib import Path

import pandas as pd

from giftsim import files

# the columns of a journal of field scores, in order: the key, then the score
KEY = ("game", "players", "candidate", "field", "deals", "seed", "code", "inputs")
COLUMNS = (*KEY, "win_share", "se", "ci_low", "ci_high", "fair", "games")
NUMBERS = {name: int for name in ("players", "deals", "seed", "games")} | {
    name: float for name in ("win_share", "se", "ci_low", "ci_high", "fair")
}


class Journal:
    """The field scores of ``path`` (none yet, or no file: ``None`` keeps them in memory only),
    read and checked when made: a one-line ValueError for a path that is not such a journal,
    before anything is played."""

    def __init__(self, path=None, what: str = "--journal"):
        self.path = None if path is None else files.check_new(path, True, what)
        owner = ("a journal of giftsim ladder or tune", "an earlier ladder or tune")
        table = read_table(self.path, COLUMNS, NUMBERS, what, *owner)
        self.scores = {_key(row): _score(row) for row in table.to_dict("records")}
        self.code = scoring_code()
        self.taken = 0  # scores found here rather than played

    def key(self, game: str, candidate, field, players: int, deals: int, seed: int) -> tuple:
        """The key of a score: the agents (specs or agents) by their canonical specs."""
        from agents.registry import parse_list
        from experiments.manifest import inputs
        from experiments.schedule import Job

        agents = parse_list([candidate, field], game)
        seating = (agents[0].spec, *[agents[1].spec] * (players - 1))
        read = inputs([Job(0, game, seating, seed, deals)])
        named = " ".join(f"{Path(path).name}:{sha[:16]}" for path, sha in read.items())
        return (game, players, agents[0].spec, agents[1].spec, deals, seed, self.code, named)

    def get(self, key: tuple):
        """The score of ``key`` (as :func:`experiments.batch.field` returns it), or None."""
        score = self.scores.get(key)
        if score is not None:
            self.taken += 1
        return score

    def add(self, key: tuple, score: dict) -> None:
        """Keep a score played, and add it to the file at once."""
        self.scores[key] = score
        low, high = score["ci95"]
        values = (score["win_share"], score["se"], low, high, score["fair"], score["games"])
        if self.path is not None:
            append_row(self.path, dict(zip(COLUMNS, (*key, *values), strict=True)))

    def field(self, game: str, candidate, field, players: int, deals: int, seed: int) -> dict:
        """:func:`experiments.batch.field`, taken from the journal when it holds the score."""
        from experiments.batch import field as play_field

        key = self.key(game, candidate, field, players, deals, seed)
        score = self.get(key)
        if score is None:
            score = play_field(game, candidate, field, players, deals, seed=seed)
            self.add(key, score)
        return score


def scoring_code() -> str:
    """The hash of the code a score depends on: ``manifest.code_digest`` (the engines, agents
    and shipped networks) and the modules that play a field and compute its interval."""
    from experiments import batch, games, stats
    from experiments.manifest import code_digest

    digest = hashlib.sha1(code_digest().encode())
    for module in (batch, games, stats):
        digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()[:12]


def _key(row: dict) -> tuple:
    return tuple(row[name] for name in KEY)


def _score(row: dict) -> dict:
    return {
        "win_share": row["win_share"],
        "ci95": (row["ci_low"], row["ci_high"]),
        "se": row["se"],
        "fair": row["fair"],
        "deals": row["deals"],
        "games": row["games"],
    }


def read_table(path, columns, numbers, what: str, owner: str, writer: str, older=None):
    """The rows of a journal (none when ``path`` is None or not there yet) as a DataFrame, each
    column of ``numbers`` (a name: ``int`` or ``float``) read back exactly as written (by
    Python, whatever the pandas), the others as text; a one-line ValueError, before anything is
    run, for a file that is not ``owner`` (one ``writer`` wrote): another table, a damaged
    file, or a format ``older`` maps from its columns to what to do, so that no row is added to
    a file of the user's."""
    if path is None or not Path(path).exists():
        return pd.DataFrame(columns=list(columns))
    where = f"{what} {path}"
    try:
        table = pd.read_csv(path, keep_default_na=False, dtype=str)
    except Exception:  # pandas raises several kinds for a file that is not a CSV table
        table = None
    found = () if table is None else tuple(table.columns)
    if found in (older or {}):
        raise ValueError(f"{where} {older[found]}")
    if found != tuple(columns):
        raise ValueError(
            f"{where} is not {owner} (columns {', '.join(columns)}); give a new file, or one "
            f"{writer} wrote"
        )
    if not Path(path).read_bytes().endswith(b"\n"):
        raise ValueError(f"{where} is damaged: its last line is cut short; mend or remove it")
    for column, kind in numbers.items():
        table[column] = _numbers(table[column], kind, column, where)
    return table


def _numbers(texts: pd.Series, kind, column: str, where: str) -> list:
    """A column's numbers; a one-line ValueError naming a damaged row (not a finite number: its
    key would never be found again, and its score played and added twice, or a score that
    no run wrote would be taken)."""
    values = []
    for row, text in enumerate(texts):
        try:
            value = kind(text)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise ValueError(
                f"{where} is damaged: its row {row + 1} (below the header) has {text!r} in "
                f"column {column}, which holds numbers; mend or remove that row"
            )
        values.append(value)
    return values


def append_row(path, row: dict) -> None:
    """Add ``row`` to the CSV at ``path`` (made, with its header, if it is not there)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame([row])
    frame.to_csv(path, mode="a", header=not path.is_file(), index=False)

"""The batch play API: many games of one seating, as arrays or a tidy DataFrame.

Game ``i`` of root seed ``S`` is a pure function of ``(S, i, rules, agents)``, so a batch can
be cut into blocks of any size (and spread over workers, ``experiments.runner``) without
changing any game.

Bad arguments (an unknown game or agent, rules of another game, a count that is not a whole
number, a first player the rules contradict) raise ``ValueError`` with a one-line message,
before any game is played.
"""

import functools
import secrets

import numpy as np
import pandas as pd
from tqdm import tqdm

from agents.isolation import Isolation
from agents.isolation.host import end_idle
from agents.registry import parse_list
from experiments.blocks import ranked
from experiments.games import TAIL, play_block, play_block_isolated
from experiments.isolation import check_covers, fault_records, merged_faults, with_forfeits
from giftsim.checks import is_whole
from giftsim.contract import first_player_for
from giftsim.game import load_game
from giftsim.rng import check_seed

BLOCK = 50_000


def play(
    game: str,
    agents=("greedy",) * 4,
    n_games: int = 1000,
    rules=None,
    seed: int = 0,
    first_player=None,
    first_index: int = 0,
    progress: bool = False,
    as_frame: bool = True,
    isolation=None,
    secret: int | None = None,
):
    """Play ``n_games`` games with one agent spec (or Agent) per seat.

    ``rules``: the game's ``Rules`` (default: the rules of record for that many seats).
    ``first_player``: ``"rotate"`` (game i starts at seat i mod n), ``"random"`` or a seat;
    default: the seat the rules fix (``first_player=2``), else ``"rotate"``.
    Returns a DataFrame with one row per game (``game_index``, ``first_player``,
    ``n_decisions``, ``score_s``, ``win_s`` = seat s's share of the win, ties split, and
    ``agent_s``), or with ``as_frame=False`` the raw int64 array (the game's blocks per seat,
    then first player, decisions and the winners' bit mask: ``giftsim.game.TAIL``).
    ``isolation`` (``agents.isolation.Isolation``) plays the agents it names each from a
    process of its own; the frame then has ``forfeit_s`` columns (``experiments.isolation``)
    and the games are played under ``secret``, a random one unless given (kept in the
    frame's ``attrs["secret"]``), and why the agents forfeited is in ``attrs["faults"]``:
    per agent and fault code the forfeits and the first one's explanation
    (``experiments.isolation.fault_table`` makes it a table). ``secret`` is 0 otherwise.
    """
    definition = load_game(game)
    agent_list = parse_list(_specs(agents), game)
    rules = _rules(definition, rules, len(agent_list))
    first_player = first_player_for(first_player, rules)
    for name, value in (("n_games", n_games), ("first_index", first_index)):
        if not is_whole(value) or value < 0:
            raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
    check_seed(seed, first_index + max(n_games - 1, 0))
    isolation = Isolation.of(isolation)
    if isolation is not None:
        check_covers(isolation, agent_list)
        secret = secrets.randbits(64) if secret is None else secret
    secret = secret or 0
    blocks, lost, faults = [], [], []
    with tqdm(total=n_games, disable=not progress, unit="game", unit_scale=True) as bar:
        for start in range(0, n_games, BLOCK):
            size = min(BLOCK, n_games - start)
            where = (seed, first_index + start, size, first_player, secret)
            if isolation is None:
                blocks.append(play_block(game, rules, agent_list, *where))
            else:
                try:
                    rows, forfeits, explained = play_block_isolated(
                        game, rules, agent_list, *where, isolation
                    )
                finally:
                    end_idle()  # the isolated agents' processes end with the call
                blocks.append(rows)
                lost.append(forfeits)
                faults += fault_records(explained, forfeits, agent_list, 0, first_index + start)
            bar.update(size)
    width = definition.row_width(rules)
    raw = np.concatenate(blocks) if blocks else np.zeros((0, width), np.int64)
    if not as_frame:
        return raw
    frame = to_frame(definition, raw, agent_list, first_index)
    if isolation is not None:
        frame.attrs["secret"] = secret
        frame.attrs["faults"] = merged_faults(faults)
        n = len(agent_list)
        with_forfeits(frame, np.concatenate(lost) if lost else np.zeros((0, n), np.int8))
    return frame


def _specs(agents):
    """Agent specs as ``parse_list`` takes them: a comma-separated string or a sequence."""
    if isinstance(agents, str) or (hasattr(agents, "__iter__") and not isinstance(agents, dict)):
        return agents
    raise ValueError(f"agents must be a list of agent specs, one per seat, got {agents!r}")


def _rules(definition, rules, n_players: int):
    """The game's rules for the batch: checked to be its own ``Rules`` for that many seats."""
    if rules is None:
        return definition.rules(n_players=n_players)
    if not isinstance(rules, definition.rules):
        kind, module = type(rules), definition.rules.__module__
        raise ValueError(
            f"rules must be {module}.Rules (e.g. Rules.from_pairs(['key=value'], "
            f"{n_players})), got {kind.__module__}.{kind.__name__}"
        )
    return rules


def win_shares(winners: np.ndarray, n_players: int) -> np.ndarray:
    """Each seat's share of the win per game from the winners' bit masks (the game's
    ``winner_mask``): 1/k for each of k winners, else 0 (no winner: a game every seat
    forfeited)."""
    seats = ((winners[:, None] >> np.arange(n_players)) & 1).astype(np.float64)
    total = seats.sum(axis=1, keepdims=True)  # 0 where every seat forfeited (isolated agents)
    return np.divide(seats, total, out=np.zeros_like(seats), where=total > 0)


def to_frame(definition, raw: np.ndarray, agent_list, first_index: int) -> pd.DataFrame:
    """Tidy per-game rows from the raw array of a batch: per seat s ``score_s`` (and the
    game's other blocks, e.g. ``give_s``; ``round1_s`` .. for matches of several rounds),
    ``win_s`` and ``agent_s``."""
    return pd.DataFrame(frame_columns(definition, raw, agent_list, first_index))


def frame_columns(definition, raw: np.ndarray, agent_list, first_index: int) -> dict:
    """The columns of :func:`to_frame`, by name and in order."""
    n = len(agent_list)
    tail = len(definition.blocks) * n
    shares = win_shares(raw[:, tail + TAIL.index("winners")], n)
    columns = {
        "game_index": np.arange(first_index, first_index + len(raw)),
        "first_player": raw[:, tail + TAIL.index("first_player")].astype(np.int8),
        "n_decisions": raw[:, tail + TAIL.index("n_decisions")].astype(np.int32),
    }
    same = np.zeros(len(raw), np.int8)
    after = tail + len(TAIL)  # matches of several rounds: each round's scores from here on
    rounds = (raw.shape[1] - after) // n
    for s in range(n):
        for b, block in enumerate(definition.blocks):
            columns[f"{block}_{s}"] = raw[:, b * n + s].astype(np.int32)
        for r in range(rounds):
            columns[f"round{r + 1}_{s}"] = raw[:, after + r * n + s].astype(np.int32)
        columns[f"win_{s}"] = shares[:, s]
        columns[f"agent_{s}"] = pd.Categorical.from_codes(same, dtype=_one_name(agent_list[s].spec))
    return columns


@functools.lru_cache(maxsize=4096)
def _one_name(spec: str) -> pd.CategoricalDtype:
    """The categorical type of a column of one agent's name, made once: building it
    validates its categories, which took over half of ``to_frame``'s time on small blocks
    (a round-robin of thousands of seatings plays some of them)."""
    return pd.CategoricalDtype([spec])


def field(
    game: str, candidate, baseline, n_players: int, n_games: int, seed: int = 0, rules=None
) -> dict:
    """``candidate`` against ``n_players - 1`` copies of ``baseline``, seat-rotated on
    duplicate deals: the candidate takes every seat in turn on the same ``n_games`` deals (and
    first players), so card and seat luck cancel. Returns its win share (ties split) with its
    95% interval over deals (``ci95``: ``stats.share_interval`` of the standard error ``se``
    with Student's t on deals - 1 degrees of freedom, so inside [0, 1] and never of zero
    width), the ``deals``, the ``games`` and the share a
    seat would get by chance (``fair``)."""
    from experiments.stats import quantile, share_interval  # scipy: only when scored

    if not is_whole(n_games) or n_games < 2:
        raise ValueError(f"n_games must be a whole number >= 2 (an interval), got {n_games!r}")
    load_game(game).check_players(n_players)
    shares = np.zeros(n_games)
    for seat in range(n_players):
        agents = [baseline] * n_players
        agents[seat] = candidate
        frame = play(game, agents, n_games, rules=rules, seed=seed)
        shares += frame[f"win_{seat}"].to_numpy() / n_players
    mean = shares.mean()
    se = shares.std(ddof=1) / np.sqrt(n_games)
    low, high = share_interval(mean, se, n_games, quantile(n_games - 1))
    return {
        "win_share": mean,
        "ci95": (float(low), float(high)),
        "se": se,
        "fair": 1 / n_players,
        "deals": n_games,
        "games": n_games * n_players,
    }


def by_agent(frame: pd.DataFrame) -> pd.DataFrame:
    """Win share (ties split) and mean score per agent spec, pooled over the seats it held:
    ``seats``, ``win_share`` with its 95% interval with the game as unit (``ci_low``,
    ``ci_high``: ``stats.win_share``; an agent in several seats of one game is counted once
    per game, its seats together, since they share the game's cards), ``fair``,
    ``mean_score``, ``score_sd`` and ``deals`` (the games), the best share first (equal shares
    by name: ``blocks.ranked``)."""
    from experiments import stats  # scipy: only when summed up
    from experiments.results import long_table

    if frame.empty:
        raise ValueError("the frame holds no game: play at least one (n_games >= 1)")
    long = long_table(frame)
    table = stats.win_share(long)
    scores = long.groupby("agent")["score"].agg(mean_score="mean", score_sd="std")
    table = table.join(scores)
    columns = ["seats", "win_share", "ci_low", "ci_high", "fair", "mean_score", "score_sd"]
    return ranked(table[[*columns, "deals"]], "win_share")

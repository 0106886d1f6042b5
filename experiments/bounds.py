"""Lower bounds on how much a strong opponent can take from an agent, on the full games.

The exact exploitability of ``experiments/exploit.py`` needs a solved variant; on the full
games (No Thanks! 3-5 players, Gift of Tulips 2-4) the answer is a lower bound: what one
strategy found by search takes from the target. The *rollout responder*
(``agents/templates/respond.py``) plays one seat against the target in every other seat,
choosing each action by rollouts of the target's own policy from worlds drawn from its
observation. Each deal is played twice, by the target alone and with the responder in seat
0, the first player rotating over the deals; the gain is the responder's share of the win
less the target's own share in that seat on the same deal, and its standard error is that of
the per-deal differences (the deal is the unit of independence). The responder is a legal
strategy of its seat, so the mean gain estimates what one strategy gains: a lower bound of
the exploitability averaged over the seats (and, per position, of each seat's).

A block of deals is a pure function of (root seed, first deal, rules, target, responder), so
the bound does not depend on how the deals are cut into chunks.

The *agent responder* (:func:`agent_bound`, ``giftsim bound --responder SPEC``) is any agent
in that seat on the same deals, through the plain game loop: above all a *learned best
response*, a ``learned`` network trained by ``giftsim train --baseline TARGET --selfplay 0``
against the frozen target in every other seat (each of its decisions an afterstate valued
against that field). Its deals and the target's own games are those of the rollout
responder, game for game (``tests/test_bounds.py``), so the two bounds are paired.
"""

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.arguments import player_counts
from experiments.blocks import z_score
from experiments.journal import append_row
from experiments.words import repeated
from giftsim import files
from giftsim.game import load_game, rounds_of
from giftsim.rule_options import changed_pairs

SHIPPED = Path(__file__).resolve().parent.parent / "docs" / "bounds.csv"  # giftsim bound's rows
SHARE, FIELD_SHARE, ROLLED = 0, 1, 2  # the columns of a block's rows (``respond.py``)
CHUNK = 100  # deals per call of the compiled loop (a progress step)
ROLLOUTS = "rollouts"  # ``--responder``'s default: the rollout responder


@dataclass(frozen=True)
class Bound:
    """A responder's gain against one target at one player count."""

    game: str
    players: int
    target: str
    responder: str  # ``rollouts:R:margin=M`` or an agent's spec
    deals: int
    seed: int
    seconds: float
    rows: np.ndarray  # per deal: responder's share, target's share, decisions rolled out

    @property
    def differences(self) -> np.ndarray:
        return self.rows[:, SHARE] - self.rows[:, FIELD_SHARE]

    def summary(self) -> dict:
        """The gain over every position, its standard error and 95% interval (``stats.
        gap_interval``: a difference of two shares, inside [-1, 1] and of a width even where
        every deal gave the same gain, with Student t on the deals less one), and the cost."""
        from experiments.stats import gap_interval, quantile  # scipy: only when summed up

        gain, se = _mean_se(self.differences)
        low, high = gap_interval(gain, se, self.deals, quantile(len(self.differences) - 1))
        return {
            "game": self.game,
            "players": self.players,
            "target": self.target,
            "responder": self.responder,
            "deals": self.deals,
            "responder_share": self.rows[:, SHARE].mean(),
            "target_share": self.rows[:, FIELD_SHARE].mean(),
            "gain": gain,
            "se": se,
            "low": float(low),
            "high": float(high),
            "cpu_seconds": self.seconds,
        }

    def by_position(self) -> pd.DataFrame:
        """The gain per position of the responder in the turn order (0: first), with errors:
        deal ``i`` starts at seat ``i mod n``, so the responder (seat 0) is at position
        ``-i mod n``."""
        position = (-np.arange(self.deals)) % self.players
        rows = []
        for p in range(self.players):
            gain, se = _mean_se(self.differences[position == p])
            rows.append({"position": p, "gain": gain, "se": se})
        return pd.DataFrame(rows)


def _mean_se(values: np.ndarray) -> tuple[float, float]:
    if values.size < 2:
        return float(values.mean()) if values.size else float("nan"), float("nan")
    return float(values.mean()), float(values.std(ddof=1) / np.sqrt(values.size))


def rollout_bound(
    game: str,
    rules,
    target: str,
    deals: int,
    rollouts: int = 8,
    seed: int = 0,
    progress: bool = False,
    margin: float = 1.0,
) -> Bound:
    """The rollout responder's gain against ``target`` (a spec) in every other seat under
    ``rules`` over deals ``0 .. deals - 1`` of ``seed`` (module docstring); ``rollouts`` per
    legal action and ``margin`` as in ``agents/templates/respond.py``."""
    import time

    from tqdm import tqdm

    from agents.drivers.block import respond_block
    from agents.registry import parse

    definition = load_game(game)
    check(rules, deals, rollouts, margin)
    agents = [parse(target, game)] * rules.n_players
    respond_block(definition, rules, agents, 0, (rollouts, margin), seed, 0, 0)  # compile first
    parts, started = [], time.process_time()
    for first in tqdm(range(0, deals, CHUNK), disable=not progress, desc=f"vs {target}"):
        size = min(CHUNK, deals - first)
        parts.append(
            respond_block(definition, rules, agents, 0, (rollouts, margin), seed, first, size)
        )
    rows = np.concatenate(parts)
    seconds = time.process_time() - started
    name = responder_name(rollouts, margin)
    return Bound(game, rules.n_players, agents[0].spec, name, deals, seed, seconds, rows)


def agent_bound(
    game: str, rules, target: str, responder: str, deals: int, seed: int = 0, progress=False
) -> Bound:
    """The gain of the agent ``responder`` (a spec) in seat 0 against ``target`` in every
    other seat under ``rules``, over deals ``0 .. deals - 1`` of ``seed`` (module docstring):
    each deal through the game loop with the target alone and with the responder, the first
    player rotating. The responder is named as given (a network's path as typed); column
    ``ROLLED`` is 0 (nothing is rolled out)."""
    import time

    from tqdm import tqdm

    from agents.drivers.block import play_block
    from agents.registry import parse
    from experiments.batch import win_shares
    from giftsim.game import TAIL

    definition = load_game(game)
    check(rules, deals, 1)
    n = rules.n_players
    field = [parse(target, game)] * n
    lineup = [parse(responder, game), *field[1:]]
    winners = len(definition.blocks) * n + TAIL.index("winners")
    for table in (field, lineup):  # compile first: the CPU time is the bound's, not Numba's
        play_block(definition, rules, table, seed, 0, 0)
    rows, started = np.zeros((deals, 3)), time.process_time()
    for first in tqdm(range(0, deals, CHUNK), disable=not progress, desc=f"vs {target}"):
        size = min(CHUNK, deals - first)
        own = play_block(definition, rules, field, seed, first, size)
        played = play_block(definition, rules, lineup, seed, first, size)
        rows[first : first + size, SHARE] = win_shares(played[:, winners], n)[:, 0]
        rows[first : first + size, FIELD_SHARE] = win_shares(own[:, winners], n)[:, 0]
    seconds = time.process_time() - started
    return Bound(game, n, field[0].spec, responder, deals, seed, seconds, rows)


def responder_name(rollouts: int, margin: float) -> str:
    return f"rollouts:{rollouts}:margin={margin:g}"


def kind(responder: str) -> str:
    """A responder's kind for tables: ``rollouts, margin M``, ``learned best response`` (a
    network of ``learned`` named by file), or the agent's spec."""
    if responder.startswith("rollouts:"):
        return f"rollouts, margin {responder.split('margin=')[1]}"
    if responder.startswith("learned:") and "net=" in responder:
        return "learned best response"
    return responder


MAX_DEALS = 10_000_000  # a bound's rows (a few floats a deal) are held in memory
MAX_ROLLOUTS = 100_000  # per legal action and decision: more is days of CPU a thousand deals


def _responder(spec: str, game: str) -> list:
    """The agent ``--responder`` names (in a list); an unknown name's message lists
    ``rollouts`` among the valid ones."""
    from agents.registry import families, parse, spec_name

    names = [chosen.name for chosen in families(game)]
    name = spec_name(spec)
    if name not in names:
        raise ValueError(
            f"--responder: unknown agent {name!r} for {game} (valid: {ROLLOUTS}, the rollout "
            f"responder, or an agent: {', '.join(names)})"
        )
    try:
        return [parse(spec, game)]
    except ValueError as error:
        raise ValueError(f"--responder: {error}") from None


def check(rules, deals: int, rollouts: int, margin: float = 1.0, flag: str = "") -> None:
    """A one-line ValueError for what the responder does not do; ``flag`` goes before each
    setting's name (the command line's "--")."""
    if rounds_of(rules) != 1:
        raise ValueError("the rollout responder plays single games: use rounds=1")
    if not 2 <= deals <= MAX_DEALS:
        raise ValueError(
            f"{flag}deals must be in 2..{MAX_DEALS:,} (an error needs two; the rows are held in "
            f"memory), got {deals}"
        )
    if not 1 <= rollouts <= MAX_ROLLOUTS:
        raise ValueError(f"{flag}rollouts must be in 1..{MAX_ROLLOUTS:,}, got {rollouts}")
    if not 0 <= margin < float("inf"):
        raise ValueError(
            f"{flag}margin must be a finite number of standard errors >= 0, got {margin}"
        )


def worst_case(table: pd.DataFrame) -> pd.DataFrame:
    """Per game and target, the largest gain found over player counts and responders (the
    ``worst case`` column): its value, error, player count, responder, (where the rows have
    them) deals, ``compared`` (how many rows it is the largest of), its interval ``low``,
    ``high`` widened for them and ``highest``, the largest upper end of every row's widened
    interval. Widened: Bonferroni's, each row's interval at 1 - 0.05 / ``compared``
    (``stats.gap_interval``, Student t on the deals less one), so the chosen row's covers its
    gain at 95% whichever row the noise made the largest, and all rows' together do."""
    from experiments.stats import gap_interval, quantile  # scipy: only when summed up

    groups = table.groupby(["game", "target"])
    compared = groups["gain"].transform("size")
    deals = table["deals"] if "deals" in table else pd.Series(np.inf, table.index)
    z = quantile(deals.to_numpy(float) - 1, 1 - 0.025 / compared.to_numpy(float))
    low, high = gap_interval(table["gain"], table["se"], deals, z)
    wide = table.assign(compared=compared, low=low, high=high)
    top = wide.loc[groups["gain"].idxmax()]
    top = top.assign(highest=wide.groupby(["game", "target"])["high"].max().to_numpy())
    columns = ["game", "target", "players", "responder", "gain", "se", "compared", "low", "high"]
    columns += ["highest", *(["deals"] if "deals" in top else [])]
    return top[columns].reset_index(drop=True)


def worst_cases(game: str, path=SHIPPED, players=None) -> dict[str, str]:
    """The ``worst case`` column of ``giftsim agents`` (and, per player count ``players``, of
    the ladder): per family name of ``game``, the largest gain a responder found in the rows
    of ``path`` (its default agent or any spec of it), as text (:func:`worst_case`'s interval,
    widened for the rows compared); "none shown" when that interval reaches 0 (the bound is
    then 0: a noisy positive mean is no gain), "no gain found" when every row's lies below 0;
    no entry for a family without rows."""
    from agents.registry import spec_name

    if not Path(path).is_file():
        return {}
    table = pd.read_csv(path, keep_default_na=False)
    table = table[(table["game"] == game) & (table["rules"] == STANDARD)]
    table = table.assign(target=table["target"].map(spec_name))
    if players is not None:
        table = table[table["players"] == players]
    return {row.target: _worst_words(row) for row in worst_case(table).itertuples()}


def _worst_words(row) -> str:
    """One target's worst case: a gain shown, none shown, or every responder losing (every
    row's interval below 0: the responders found less than the agent's own play, no gain); the
    largest of several rows says how many (its interval is widened for them)."""
    figure = f"{row.gain:+.3f} [{row.low:+.3f}, {row.high:+.3f}]"
    where = f"{row.players}p, {row.responder}{_trained_against(row.responder, row.target)}"
    if row.compared > 1:
        where += f"; the largest of {row.compared} gains, its interval widened for them"
    if row.low > 0:
        return f"{figure} ({where})"
    if row.highest < 0:  # every responder's interval below 0
        return f"no gain found (the best responder's gain: {figure}; {where})"
    return f"{figure} (none shown, {where})"


def _trained_against(responder: str, target: str) -> str:
    """ ", trained against B" when ``responder`` is a network trained against another agent
    than ``target`` (the ``baseline`` its file records): its gain measures how far a best
    response to B carries over to the target, not a best response to the target itself. A
    file is looked for from the working folder, then from the repository's root (the shipped
    rows name ``docs/responders/...``); "" when there is none or it names no baseline. The
    spec's ``key=value`` pairs are read as ``agents.registry.parse`` reads them."""
    from agents.kernels.net import read as read_network
    from agents.registry import spec_name, spec_pairs

    if responder.startswith(f"{ROLLOUTS}:"):  # not an agent: it plays the field's policy
        return ""
    try:
        named = spec_pairs(responder)[1].get("net", "")
        found = [p for p in (Path(named), SHIPPED.parent.parent / named) if named and p.is_file()]
        baseline = str(read_network(found[0])[1].get("baseline", "")) if found else ""
    except ValueError:  # a row edited into no spec, or a file that is no network: no words
        return ""
    mismatched = baseline and spec_name(baseline) != spec_name(target)
    return f", trained against {baseline}" if mismatched else ""


def against_exact(
    rules,
    target: str,
    deals: int,
    rollouts: int = 8,
    seed=0,
    queries=None,
    margin=1.0,
    responder: str = ROLLOUTS,
):
    """On a solved No Thanks! variant: the bound of the rollout responder (or of the agent
    ``responder``) beside the exact exploitability (``experiments.exploit``) averaged over
    the positions, and the share of it found."""
    from experiments import exploit

    exact = exploitability_mean(exploit.exploitability(rules, target, queries=queries, seed=seed))
    if responder == ROLLOUTS:
        bound = rollout_bound("geschenkt", rules, target, deals, rollouts, seed, margin=margin)
    else:
        bound = agent_bound("geschenkt", rules, target, responder, deals, seed)
    return _compared(rules, target, exact, bound.summary())


def learned_responder(
    game: str,
    rules,
    target: str,
    out,
    games: int = 20_000,
    rounds: int = 4,
    seed: int = 0,
    init: str = "",
    hidden: int = 32,
) -> str:
    """A learned best response to ``target`` in every other seat under ``rules``: a
    ``learned`` network trained by ``giftsim train``'s loop against that frozen field only
    (``selfplay`` 0), on training seed ``seed`` (its own games; the bound's deals are
    another stream), from the network file ``init`` if given (of ``hidden`` units), written
    to ``out`` (replaced); returns its spec."""
    from experiments import train
    from experiments.train_settings import TrainSettings

    settings = TrainSettings(
        game,
        rules.n_players,
        seed=seed,
        rounds=rounds,
        games=games,
        baseline=target,
        selfplay=0.0,
        rules=",".join(changed_pairs(rules)),
        init=str(init),
        hidden=hidden,
    )
    train.train(settings, out, force=True)
    return f"learned:net={out}"


def exact_table(
    variants, targets, deals: int, rollouts: int = 8, margins=(0.0, 1.0), seed=0, learned=None
):
    """:func:`against_exact` of every target on every solved variant, per margin of the
    rollout responder and, with ``learned`` (a dict of :func:`learned_responder`'s ``folder``,
    ``games``, ``rounds`` and ``seed``), for a learned best response trained for it; per
    variant and target the best responder's row (``best``: the largest gain found)."""
    from experiments import exploit

    rows = []
    for k, rules in enumerate(variants):
        for target in targets:
            exact = exploitability_mean(exploit.exploitability(rules, target, seed=seed))
            for margin in margins:
                bound = rollout_bound(
                    "geschenkt", rules, target, deals, rollouts, seed, False, margin
                )
                rows.append(_compared(rules, target, exact, bound.summary()))
            if learned:
                options = {key: value for key, value in learned.items() if key != "folder"}
                out = Path(learned["folder"]) / f"variant{k}-{target}.npz"
                spec = learned_responder("geschenkt", rules, target, out, **options)
                bound = agent_bound("geschenkt", rules, target, spec, deals, seed)
                rows.append(_compared(rules, target, exact, bound.summary()))
    table = pd.DataFrame(rows)
    top = table.groupby(["variant", "target"], sort=False)["bound_gain"].transform("max")
    return table.assign(best=table["bound_gain"] == top)


def _compared(rules, target: str, exact: float, bound: dict) -> dict:
    from geschenkt_sim import solve

    return {
        "variant": solve.Layout.of(rules).describe(),
        "players": rules.n_players,
        "target": target,
        "responder": bound["responder"],
        "exact_gain": exact,
        "bound_gain": bound["gain"],
        "se": bound["se"],
        "found": bound["gain"] / exact if exact > 0 else float("nan"),
        "z_above_exact": z_score(bound["gain"] - exact, bound["se"]),
        "deals": bound["deals"],
        "cpu_seconds": bound["cpu_seconds"],
    }


def exploitability_mean(result) -> float:
    """An exact result's gain averaged over the positions (as the responder's seat rotates);
    for an agent that randomises, its held-out gain (a lower bound, see ``exploit``)."""
    column = "gain_low" if result.randomised else "gain"
    return float(result.table[column].mean())


def command(args) -> None:
    """``giftsim bound``: the bound of every ``--target`` at every ``--players`` (by the
    rollout responder, or the agent ``--responder``), each
    row printed and added to ``--out`` as it is found (rows already there are kept, not run
    again, and marked so: a row is kept by its key, the contents of the files its specs name
    included, :func:`inputs_text`), then the worst case per target."""
    from agents.registry import families, parse_list, spec_list

    definition = load_game(args.game)
    counts = [definition.check_players(n, "--players") for n in player_counts(args.players)]
    specs = spec_list(args.target)
    if not specs:
        names = ", ".join(family.name for family in families(args.game))
        raise ValueError(f"--target names no agent; give agent specs, comma-separated ({names})")
    agents = parse_list(specs, args.game)
    targets = [agent.spec for agent in agents]
    args.responder = args.responder.strip()
    if args.responder != ROLLOUTS:  # a bad spec or file: one line, nothing run
        agents += _responder(args.responder, args.game)
    rules = {n: _rules(definition, n, args.rule) for n in counts}
    if twice := repeated(targets):
        raise ValueError(f"--target lists {twice[0]} twice; list each agent once")
    for n in counts:
        check(rules[n], args.deals, args.rollouts, args.margin, "--")
        for agent in agents:  # a table or network of another count: before any row is run
            agent.check_rules(rules[n])
    if args.out is not None:  # a CSV that cannot be written: said before the first row is run
        files.check_new(args.out, True, "--out")
    responder = agents[-1] if args.responder != ROLLOUTS else None
    inputs = {t.spec: inputs_text(t, responder) for t in agents[: len(targets)]}
    done, rows = _done(args.out), []
    for n in counts:
        for target in targets:
            row, kept = _row(args, rules[n], target, done, inputs[target])
            rows.append(row)
            kept_note = f" [kept from an earlier run in {args.out}]" if kept else ""
            print(_line(row) + kept_note, flush=True)
    from experiments.marks import flag_few, warning_notes  # scipy: only once rows are in

    worst = flag_few(worst_case(pd.DataFrame(rows)))
    print("\nworst case (largest gain found; its interval widened for the rows compared):")
    print(worst.to_string(index=False))
    for note in warning_notes(worst):
        print(note)


def inputs_text(target, responder=None) -> str:
    """The ``--out`` row's ``inputs``: the contents of each file the target's and the agent
    responder's specs name (``net=``, ``table=``) as ``target:`` or ``responder:`` and the first
    16 hex digits of its SHA-256, space-separated ("" when they name none), so that a row is
    not kept once such a file has been replaced (a network retrained to the same path)."""
    named = [("target", target), ("responder", responder)]
    return " ".join(
        f"{role}:{files.digest(agent.file)[:16]}" for role, agent in named if agent and agent.file
    )


def _row(args, rules, target: str, done: dict, inputs: str) -> tuple[dict, bool]:
    """The CSV's row of a target at a player count, and True, or a new one, run and added to
    it, and False."""
    rollouts = args.responder == ROLLOUTS
    name = responder_name(args.rollouts, args.margin) if rollouts else args.responder
    varied = rules_text(rules)
    key = (args.game, rules.n_players, target, name, args.deals, args.seed, varied, inputs)
    row = done.get(key)
    if row is not None:
        return row, True
    if rollouts:
        search = (args.deals, args.rollouts, args.seed, not args.quiet, args.margin)
        bound = rollout_bound(args.game, rules, target, *search)
    else:
        play = (args.deals, args.seed, not args.quiet)
        bound = agent_bound(args.game, rules, target, args.responder, *play)
    row = bound.summary() | {"seed": args.seed, "rules": varied, "inputs": inputs}
    assert tuple(row) == COLUMNS  # the order _done checks an earlier file against
    if args.out is not None:
        append_row(args.out, row)
    return row, False


def _rules(record, players: int, pairs):
    if pairs:
        return record.rules.from_pairs(list(pairs), players)
    return record.rules(n_players=players)


def rules_text(rules) -> str:
    """The ``--out`` row's ``rules``: :func:`changed_pairs`, space-separated, or ``standard``."""
    return " ".join(changed_pairs(rules)) or STANDARD


STANDARD = "standard"  # the ``rules`` of a row under the rules of record
# the columns of ``--out``, in order: ``Bound.summary``, the seed, the rules and the inputs
COLUMNS = (
    *("game", "players", "target", "responder", "deals", "responder_share", "target_share"),
    *("gain", "se", "low", "high", "cpu_seconds", "seed", "rules", "inputs"),
)
KEY = ("game", "players", "target", "responder", "deals", "seed", "rules", "inputs")


def _done(path) -> dict:
    """The rows of an earlier run's CSV, by ``KEY`` (game, players, target, responder, deals,
    seed, rules, inputs); a one-line ValueError for a path that is not such a CSV
    (``journal.read_table``), before anything is run."""
    from experiments.journal import read_table

    older = {
        COLUMNS[:-2]: "was written by an older giftsim bound, without the rules of its rows; add "
        f"a column rules holding {STANDARD} to it if they were the rules of record, then a "
        "column inputs, empty (its rows whose agents read a file are then run again), or give a "
        "new file",
        COLUMNS[:-1]: "was written by an older giftsim bound, without the digests of the files "
        "its rows' agents read; add a column inputs, empty, to it (its rows whose agents read a "
        "file are then run again), or give a new file",
    }
    owner = ("a table of giftsim bound", "an earlier giftsim bound")
    table = read_table(path, COLUMNS, NUMBERS, "--out", *owner, older)
    return {tuple(row[k] for k in KEY): row for row in table.to_dict("records")}


NUMBERS = {name: int for name in ("players", "deals", "seed")} | {  # the columns holding numbers
    name: float
    for name in ("responder_share", "target_share", "gain", "se", "low", "high", "cpu_seconds")
}


def cpu_text(seconds: float) -> str:
    """Whole seconds of CPU, or 'under 1 s' (a short run is not '0 s')."""
    return "under 1 s" if seconds < 0.5 else f"{seconds:.0f} s"


def _line(row: dict) -> str:
    from experiments.stats import few_note

    few = few_note(row["deals"])
    se = f"se {row['se']:.4f}"
    if row["se"] == 0:  # the interval is then the least width a score interval has
        se += ": every deal alike, the interval is a score interval's on this many deals"
    return (
        f"{row['players']}p {row['target']}: gain {row['gain']:+.4f} "
        f"[{row['low']:+.4f}, {row['high']:+.4f}] ({se}; responder "
        f"{row['responder_share']:.4f} vs own {row['target_share']:.4f}) over {row['deals']:,} "
        f"deals, {row['responder']}, {cpu_text(row['cpu_seconds'])} of CPU"
        + (f" ({few})" if few else "")
    )

"""Training a learned evaluator by self-play (``giftsim train``): generalised policy iteration.

Each round plays games in compiled code (the self-play recorder,
``agents/templates/selfplay_hook.py``), records every asked decision's afterstate features and
pairs each with its seat's share of the win, then fits the network to those targets
(logistic loss, Adam, warm-started from the last round) on this round's decisions and the last
round's (a window of two rounds steadies the policy). Round 0's
games are played by the baseline at every seat, so the first network values the baseline's
play; from round 1 the games seat the best network so far (``learned:net=...``, best on the
held-out deals: a round that got worse does not play) once against the baseline (every seat
in turn) or, a share ``selfplay`` of them (half by default), everywhere (self-play). Acting
greedily on a value of the play it was trained on is a policy-improvement step; the next
round values the improved play. The recorder explores (a random legal action with
probability ``explore``) so that every action's afterstates are seen.

Targets are Monte Carlo (the game's outcome) by default. With ``lam`` below 1 they are
TD(lambda) returns (Sutton and Barto, section 12.1): an afterstate's target mixes the
network's value of the same seat's next afterstate with that one's own target,
``G_t = (1 - lam) V(a_{t+1}) + lam G_{t+1}``, down to the outcome after the seat's last
decision. Every pass over the data recomputes them under the network as it stands (the first
pass of a new network uses the outcomes). Most of what happens between two of a seat's
decisions (the cards drawn, the other seats' moves) then costs no variance in the target: at
4 Tulips players, where one game's outcome says little about one decision, this is what lifts
the one-ply agent above the tuned field.

With ``members`` above 1 a round fits that many networks side by side on the same data, each
from its own initialisation and shuffles, and plays them as one: their hidden units side by
side, the output the mean of theirs (:func:`ensemble`). Averaging cancels much of what one
fit owes to chance, at the cost of one network of ``members`` times the hidden units.

After each round the network plays the baseline on fixed held-out deals (seat-rotated,
``experiments.batch.field``): that learning curve picks the round written to ``--out``, so
the chosen round's figure there is biased upward (the best of several noisy scores). The
network written is then scored once more on as many fresh deals, which chose nothing: that
score (``confirmed`` in its record, ``curve.attrs["confirmed"]``) is the run's result. A
claim against other agents or fields belongs in ``giftsim ladder`` or ``giftsim gauntlet``.

A run is a pure function of its settings on a given machine: game indices come from the
round, lineup and block, never from the workers; each round's shuffles from its own seed.
Every round is checkpointed (``<out>.ckpt/``) with the optimiser's state, so ``resume``
continues an interrupted run to the same network (or extends a finished one by more rounds;
a finished run resumed with the same rounds plays and writes nothing while its outputs are the
files it wrote).
"""

import json
import time
from dataclasses import MISSING, asdict, fields
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from tqdm import tqdm

from agents.drivers.block import announce_recorder, recorded_block
from agents.kernels import net
from agents.registry import families, parse_list
from experiments.batch import field as field_share
from experiments.network import Network, ensemble, fit
from experiments.seeds import CONFIRM_SEED_OFFSET, EVAL_SEED_OFFSET
from experiments.stopping import held_stops
from experiments.targets import successors, targets
from experiments.train_settings import TrainSettings
from giftsim import files
from giftsim.checks import is_whole
from giftsim.game import load_game

ROUND_STRIDE = 2**36  # game indices of round r start at r * ROUND_STRIDE
LINEUP_STRIDE = 2**30  # ... and of its lineup k at k * LINEUP_STRIDE within the round
BLOCK = 2000  # games per task sent to a worker (at most)


def lineups(settings: TrainSettings, round_: int, candidate: str) -> list[tuple]:
    """The seatings of a round: ``(agents, games, seats)``, ``seats`` the bit mask of the
    seats whose decisions are recorded (every seat explores). Round 0: the baseline everywhere,
    every seat recorded (a more varied record than one seat's: a network trained on it plays
    better). Then the share ``selfplay`` of the games seats the candidate everywhere
    (self-play) and the rest seat it once against the baseline (in every seat in turn; only
    its decisions are recorded, so that the targets are the value of its own play)."""
    n, games, everyone = settings.players, settings.games, (1 << settings.players) - 1
    if round_ == 0:
        return [([settings.baseline] * n, games, everyone)]
    seated = [
        ([settings.baseline] * s + [candidate] + [settings.baseline] * (n - s - 1), 1 << s)
        for s in range(n)
    ]
    each, own = round(games * (1.0 - settings.selfplay)) // n, round(games * settings.selfplay)
    field = [(lineup, each, seat) for lineup, seat in seated if each]
    return [*field, *([([candidate] * n, own, everyone)] if own else [])]


def play_task(game, players, lineup, seats, seed, first, count, explore, margin, scale, pairs=""):
    """Worker task: ``count`` recorded games of one seating under the rules of ``pairs``
    (``TrainSettings.rules``), recording the seats of the mask ``seats``; returns features,
    outcome targets (:func:`targets`) and owners (game, seat, decision number) of the
    recorded decisions."""
    definition = load_game(game)
    rules = TrainSettings(game, players, rules=pairs).game_rules()
    agents = parse_list(lineup, game)
    recording = (explore, seats)
    rows, feats, owners = recorded_block(definition, rules, agents, seed, first, count, recording)
    y = targets(definition, rows, players, margin, scale)
    return feats, y[owners[:, 0] - first, owners[:, 1]].astype(np.float32), owners


def generate(settings, round_, candidate, workers: int, bar, block: int = BLOCK) -> tuple:
    """A round's training data: features, outcome targets and owners (game index, seat,
    decision number) of every recorded decision, in the order of its tasks (the same
    whatever ``workers``; game indices are unique across rounds)."""
    tasks = []
    for k, (lineup, games, seats) in enumerate(lineups(settings, round_, candidate)):
        base = round_ * ROUND_STRIDE + k * LINEUP_STRIDE
        for start in range(0, games, block):
            tasks.append((lineup, seats, base + start, min(block, games - start)))
    game, n, seed, explore = settings.game, settings.players, settings.seed, settings.explore
    blend = (settings.margin, settings.margin_scale)
    calls = [
        delayed(play_task)(game, n, *task[:2], seed, *task[2:], explore, *blend, settings.rules)
        for task in tasks
    ]
    agents = parse_list(sorted({spec for lineup, *_ in tasks for spec in lineup}), game)
    cold = announce_recorder(load_game(game), agents)
    parts = []
    for (*_, count), part in zip(tasks, _in_workers(calls, workers, cold), strict=True):
        parts.append(part)
        bar.update(count)
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(3))


def _in_workers(calls: list, workers: int, cold: bool):
    """The calls' results in order; on several workers with something to compile (``cold``),
    the first call runs alone, so that it compiles once and the other workers load it."""
    with Parallel(n_jobs=workers, return_as="generator") as parallel:
        first = 1 if cold and workers > 1 else 0
        yield from parallel(calls[:first])
        yield from parallel(calls[first:])


def evaluate(settings: TrainSettings, path: Path, offset: int = EVAL_SEED_OFFSET) -> dict:
    """The network at ``path`` (as ``learned``) against the baseline on the held-out deals
    (``offset``: ``CONFIRM_SEED_OFFSET`` for the fresh deals that confirm the choice)."""
    candidate = f"learned:net={path}"
    return field_share(
        settings.game,
        candidate,
        settings.baseline,
        settings.players,
        settings.eval_games,
        seed=settings.seed + offset,
        rules=settings.game_rules(),
    )


def train(
    settings: TrainSettings,
    out,
    workers: int = 1,
    resume=False,
    progress=False,
    command="",
    force=False,
):
    """Run (or, with ``resume``, continue) a training run; write the best round's network to
    ``out`` with its record beside it (``.json``: command, settings, learning curve) and the
    curve as ``.csv`` and ``.png``; return the learning curve as a DataFrame.

    Before any game is played, every one of those four files that exists must be one this run
    wrote (its checksum is in the checkpoint folder), or ``force`` be set: a one-line
    ValueError names the first that is not."""
    settings, out = settings.resolved(), Path(out)
    _check_learned(settings.game)
    if not (is_whole(workers) and workers >= 1):
        raise ValueError(f"--workers must be a whole number >= 1, got {workers}")
    if out.suffix != ".npz":  # before its name is used: "." or "/" have none
        raise ValueError(f"--out names the network file, which ends in .npz, got {out}")
    folder = checkpoint_folder(out)
    _check_outputs(out, folder, force)
    state = _start(settings, folder, resume)
    finished = len(state["history"]) >= settings.rounds
    total = settings.rounds * settings.games
    with tqdm(total=total, disable=not progress, unit="game", unit_scale=True) as bar:
        bar.update(len(state["history"]) * settings.games)
        for round_ in range(len(state["history"]), settings.rounds):
            bar.set_description(f"round {round_}")
            row = _round(settings, folder, round_, state, workers, bar)
            state["history"].append(row)
            _save_progress(folder, settings, state["history"])
    curve = pd.DataFrame(state["history"])
    kept = _kept_result(out, folder) if finished else None
    curve.attrs["confirmed"] = kept or _write_best(settings, out, folder, curve, command, force)
    curve.attrs["kept"] = kept is not None  # a finished run's outputs, left as they were
    return curve


OUTPUTS = (".npz", ".json", ".csv", ".png")  # what a run writes: the network and its record
WRITTEN = "outputs.json"  # in the checkpoint folder: the checksum of each output written


def outputs(out: Path) -> list[Path]:
    """The files a run with ``--out out`` writes."""
    return [out.with_suffix(suffix) for suffix in OUTPUTS]


def _check_outputs(out: Path, folder: Path, force: bool) -> None:
    """A one-line ValueError unless each output (``out`` ends in .npz) either is new, is the
    file this run's checkpoint says it wrote, or may be replaced (``force``)."""
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder} (the checkpoint folder of --out) is a file; move it away")
    for path in outputs(out):
        if path.is_dir() or (path.exists() and not (force or _ours(path, folder))):
            raise ValueError(
                f"--out {out}: {path} exists and this run did not write it; choose another "
                "--out, or add --force to replace it"
            )
        files.check_new(path, force=True)  # a folder that can be written


def _ours(path: Path, folder: Path) -> bool:
    """Whether ``path`` is the file this run wrote (the checksum its checkpoint keeps)."""
    record = folder / WRITTEN
    if not (path.is_file() and record.is_file()):
        return False
    try:
        written = json.loads(record.read_text())
    except ValueError:
        return False
    return isinstance(written, dict) and written.get(path.name) == files.digest(path)


def _kept_result(out: Path, folder: Path) -> dict | None:
    """The confirmed score of a run resumed after its last round, when every output is still
    the file it wrote (nothing is played or written again); None when one is missing or was
    changed since, so the outputs are written anew."""
    if not all(_ours(path, folder) for path in outputs(out)):
        return None
    return json.loads(out.with_suffix(".json").read_text())["confirmed"]


def _candidate(folder: Path, history: list) -> str:
    """The spec of the network that plays the next round: the best so far on the held-out
    deals (a round whose network scored worse does not play; none before round 1)."""
    if not history:
        return ""
    best = max(history, key=lambda row: row["win_share"])["round"]
    return f"learned:net={_net_path(folder, best)}"


def _round(settings, folder, round_, state, workers, bar) -> dict:
    """Play a round, fit on it and the round before (``state["last"]``), checkpoint, score."""
    began = time.perf_counter()
    history = state["history"]
    data = generate(settings, round_, _candidate(folder, history), workers, bar)
    if round_ and state["last"] is None:  # resumed: the round before is played again
        before = _candidate(folder, history[:-1])
        state["last"] = generate(settings, round_ - 1, before, workers, bar)
    window = data
    if state["last"] is not None:
        window = tuple(np.concatenate(pair) for pair in zip(state["last"], data, strict=True))
    state["last"] = data
    x, y, owners = window
    new = state["network"] is None
    rngs = [_member_rng(settings.seed, round_, m) for m in range(settings.members)]
    if new and settings.init:
        weights, _ = net.read(settings.init)
        state["network"] = [Network.warm(tuple(weights[k] for k in Network.NAMES), x)]
    elif new:
        state["network"] = [Network.new(x, settings.hidden, rng) for rng in rngs]
    after = successors(owners) if settings.lam < 1.0 else None
    fresh = new and not settings.init  # a started network's values can be bootstrapped on
    losses = [
        fit(network, x, y, settings, rng, after, fresh=fresh)
        for network, rng in zip(state["network"], rngs, strict=True)
    ]
    loss = float(np.mean(losses))
    _save_round(folder, round_, state["network"], settings)
    scored = evaluate(settings, _net_path(folder, round_))
    low, high = scored["ci95"]
    return {
        "round": round_,
        "samples": len(x),
        "loss": round(loss, 5),
        "win_share": scored["win_share"],
        "ci_low": low,
        "ci_high": high,
        "eval_games": scored["games"],
        "seconds": round(time.perf_counter() - began, 1),
    }


def checkpoint_folder(out) -> Path:
    """Where a run writing the network ``out`` keeps its checkpoint."""
    return Path(out).with_suffix(".ckpt")


def checkpointed(out) -> bool:
    """Whether a run writing ``out`` has a checkpoint to go on from (``resume``)."""
    return (checkpoint_folder(out) / PROGRESS).is_file()


PROGRESS = "progress.json"  # in the checkpoint folder: the settings and each round's scores


def _start(settings, folder: Path, resume: bool) -> dict:
    """A fresh run's state, or the checkpointed one (``resume``), checked to be the same run."""
    progress = folder / PROGRESS
    if not progress.is_file():
        if resume:
            raise ValueError(
                f"--resume: {folder} holds no checkpoint to continue; leave out --resume to "
                "start the run"
            )
        if folder.is_dir() and any(p.name != WRITTEN for p in folder.iterdir()):
            raise ValueError(f"{folder} holds files but no checkpoint of a run; remove it")
        folder.mkdir(parents=True, exist_ok=True)
        return {"history": [], "network": None, "last": None}
    if not resume:
        raise ValueError(f"{folder} holds an earlier run; pass --resume or remove it")
    try:
        saved = json.loads(progress.read_text())
        known = _but_rounds(saved["settings"])
    except (ValueError, KeyError, TypeError, AttributeError):
        raise ValueError(f"{progress} is not a readable checkpoint; remove {folder}") from None
    asked = _but_rounds(asdict(settings))
    if known != asked:
        keys = dict.fromkeys([*asked, *known])  # a setting of another version, too
        differ = ", ".join(
            f"{k} ({known.get(k)!r} there)" for k in keys if known.get(k) != asked.get(k)
        )
        raise ValueError(
            f"{folder} is a run with other settings, it differs in: {differ}; remove it to "
            "start over"
        )
    history = saved["history"]
    if len(history) > settings.rounds:
        raise ValueError(
            f"{folder} holds {len(history)} rounds, more than --rounds {settings.rounds}: give "
            f"--rounds {len(history)} or more to continue it, or remove it to start over"
        )
    last = len(history) - 1
    network = [_load_round(folder, last, m) for m in range(settings.members)] if history else None
    return {"history": history, "network": network, "last": None}


def _but_rounds(settings: dict) -> dict:
    """Settings that make a run the same run: all but ``rounds`` (a run may be extended); a
    setting a checkpoint predates takes its default (the behaviour the run had)."""
    defaults = {f.name: f.default for f in fields(TrainSettings) if f.default is not MISSING}
    return {k: v for k, v in {**defaults, **settings}.items() if k != "rounds"}


def _net_path(folder: Path, round_: int) -> Path:
    return folder / f"round-{round_}.npz"


def _member_rng(seed: int, round_: int, member: int) -> np.random.Generator:
    """A member's stream for a round's initialisation and shuffles (member 0's is the one a
    single network has always used)."""
    key = [seed, round_] if member == 0 else [seed, round_, member]
    return np.random.default_rng(key)


def _save_round(folder: Path, round_: int, networks: list, settings) -> None:
    """The round's playable network (its members as one, :func:`ensemble`), and beside it
    each member's training state (weights over standardised features, scaling, optimiser
    moments) that ``resume`` continues from."""
    meta = {"game": settings.game, "players": settings.players, "round": round_}
    net.save(_net_path(folder, round_), *ensemble(networks), meta, force=True)
    for member, network in enumerate(networks):
        arrays = {**network.params(), "mean": network.mean, "scale": network.scale}
        arrays |= {f"m_{k}": network.m[k] for k in network.NAMES}
        arrays |= {f"v_{k}": network.v[k] for k in network.NAMES}

        def write(path, arrays=arrays, steps=network.steps):
            with open(path, "wb") as f:
                np.savez(f, steps=steps, **arrays)

        files.write_with(_state_path(folder, round_, member), write, force=True)


def _state_path(folder: Path, round_: int, member: int) -> Path:
    return folder / (f"state-{round_}.npz" if member == 0 else f"state-{round_}-{member}.npz")


def _load_round(folder: Path, round_: int, member: int) -> Network:
    with np.load(_state_path(folder, round_, member)) as data:
        arrays = {k: data[k] for k in data.files}
    network = Network(*(arrays[k] for k in (*Network.NAMES, "mean", "scale")))
    network.m = {k: arrays[f"m_{k}"] for k in Network.NAMES}
    network.v = {k: arrays[f"v_{k}"] for k in Network.NAMES}
    network.steps = int(arrays["steps"])
    return network


def _save_progress(folder: Path, settings, history) -> None:
    """The run's settings and learning curve so far, replaced at once (an interruption
    leaves the old file or the new one, never a part)."""
    record = {"settings": asdict(settings), "history": history}
    partial = folder / f"{PROGRESS}.part"
    partial.write_text(json.dumps(record, indent=1))
    partial.replace(folder / PROGRESS)


def _write_best(settings, out: Path, folder: Path, curve, command: str, force: bool) -> dict:
    """Copy the best round's network to ``out``; its record to ``out``'s ``.json``, the curve
    beside them; each through a temporary file, replacing only a file this run wrote (or any,
    with ``force``), and its checksum kept in the checkpoint folder. Return its score on the
    fresh deals (``confirmed``)."""
    best = int(curve.loc[curve["win_share"].idxmax(), "round"])
    weights, meta = net.read(_net_path(folder, best))
    scored = evaluate(settings, _net_path(folder, best), CONFIRM_SEED_OFFSET)
    low, high = scored["ci95"]
    confirmed = {"win_share": float(scored["win_share"]), "ci_low": low, "ci_high": high}
    confirmed |= {"deals": int(scored["deals"]), "games": int(scored["games"])}
    record = {
        "game": settings.game,
        "players": settings.players,
        "command": command,
        "settings": asdict(settings),
        "best_round": best,
        "baseline": settings.baseline,
        "held_out": curve.iloc[best][["win_share", "ci_low", "ci_high", "eval_games"]].to_dict(),
        "confirmed": confirmed,  # on fresh deals: the held-out ones chose the round
        "curve": curve.to_dict(orient="records"),
    }
    network, text, table, figure = outputs(out)
    replace = {path: force or _ours(path, folder) for path in (network, text, table, figure)}
    arrays = (weights["w1"], weights["b1"], weights["w2"], weights["b2"])
    with held_stops():  # the outputs and their checksums as one step: an interrupted run
        net.save(network, *arrays, meta | record, force=replace[network])  # resumes
        files.write_text(text, json.dumps(record, indent=1) + "\n", replace[text], "train output")
        write = files.write_with
        write(table, lambda p: curve.to_csv(p, index=False), replace[table], "train output")
        write(figure, lambda p: _plot(settings, curve, p), replace[figure], "train output")
        written = {path.name: files.digest(path) for path in replace}
        files.write_text(folder / WRITTEN, json.dumps(written, indent=1) + "\n", force=True)
    return confirmed


def _plot(settings, curve: pd.DataFrame, path: Path) -> None:
    """The learning curve as a figure beside the network (drawn without pyplot, so no
    backend is chosen for the caller)."""
    from matplotlib.figure import Figure

    from experiments import plots

    game, n = load_game(settings.game), settings.players
    games = int(curve["eval_games"].iloc[0])
    variant = f" ({settings.rules})" if settings.rules else ""
    title = (
        f"{game.title}{variant}, {n} players: learned against {n - 1} x {settings.baseline}\n"
        f"{games:,} held-out games per round (seat-rotated deals), seed {settings.seed}"
    )
    fig = plots.training_curve(curve, title, 1 / n, ax=Figure(figsize=(7, 4.5)).subplots())
    fig.savefig(path, dpi=plots.DPI, bbox_inches="tight", format="png")


def _check_learned(game: str) -> None:
    names = {f.name for f in families(game)}
    if "learned" not in names:
        raise ValueError(f"{game} has no learned agent to train")

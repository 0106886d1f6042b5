"""Why isolated agents forfeit (``experiments.isolation``, fault records): each agent and fault
code keeps its forfeits and the explanation of the first (by job, game index, seat), in the
Python API's frames, in each chunk file of a run, in the tournament's tables, in ``report``
and its summary.md; the same whatever the backend, workers, chunk size, resume or
``--summary-only``."""

import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from agents.isolation import NO_START, RAISED, Isolation
from agents.isolation.untrusted import load_untrusted
from agents.registry import parse_list
from experiments.batch import play
from experiments.cli import main
from experiments.games import play_block_isolated
from experiments.isolation import EXPLANATION, cut, fault_table, merged_faults
from experiments.results import load_faults
from giftsim.game import load_game
from tests.test_isolation import NO_START_BOT, RAISER_SAYS, SECRET, two_seats_against_greedy

BOTS = Path(__file__).parent / "bots"
TITLE = "== why they forfeited"
ROWS = (["agent"], ["raiser"], ["teller"])  # the first words of that table's lines

# A plain-Python bot that raises at the first decision of each game (so in the games it
# begins), naming the card on offer: each game's explanation is its own.
TELLER = """
from agents.registry import define
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.state import CARD, CHIPS, N_DECISIONS, POT, SEAT


def teller(obs, params, rng):
    if obs[N_DECISIONS] == 0:
        raise ValueError(f"card {int(obs[CARD])} on offer")
    broke = obs[CHIPS + obs[SEAT]] == 0
    return TAKE if broke or obs[POT] >= 5 else PASS


define("geschenkt", "teller", teller, compiled=False)
"""


RAISE_LINE = 1 + TELLER.splitlines().index(
    '        raise ValueError(f"card {int(obs[CARD])} on offer")'
)


def untrusted_bots(tmp_path_factory, name: str, text: str) -> Path:
    """A module of bots written to a folder of its own and loaded as untrusted."""
    path = tmp_path_factory.mktemp("bots") / name
    path.write_text(text)
    load_untrusted(path, 600)
    return path


@pytest.fixture(scope="module")
def teller(tmp_path_factory) -> Path:
    return untrusted_bots(tmp_path_factory, "teller.py", TELLER)


def test_the_first_explanation_of_a_block_is_its_first_faulted_game_s_whatever_the_block(
    teller,
):
    """In one block the bot faults in many games of one round trip (each fault ends its
    worker, the rest of the batch goes to a fresh one): the explanation kept for its code is
    the one of the first game by index, the game's own (the single game's), from any start."""
    rules = load_game("geschenkt").rules(n_players=2)
    agents = parse_list(["teller", "greedy"], "geschenkt")
    isolation = Isolation((), time_limit=0.4, memory_mb=600)
    singles = [
        play_block_isolated("geschenkt", rules, agents, 7, g, 1, "rotate", SECRET, isolation)
        for g in range(8)
    ]
    said = {g: found[(0, RAISED)][1] for g, (_, _, found) in enumerate(singles) if found}
    assert sorted(said) == [0, 2, 4, 6]  # the games it begins
    assert len(set(said.values())) > 1  # the cards differ, so a game's words are its own
    for start in range(7):
        _, forfeits, explained = play_block_isolated(
            "geschenkt", rules, agents, 7, start, 8 - start, "rotate", SECRET, isolation
        )
        first = start + start % 2
        assert np.flatnonzero(forfeits[:, 0])[0] + start == first
        assert explained[(0, RAISED)] == (first - start, said[first])
        assert said[first].startswith(f"ValueError (teller.py:{RAISE_LINE}): card ")


def test_a_process_that_does_not_start_says_why(tmp_path):
    bot = NO_START_BOT.replace("nostart", "mute")  # test_isolation.py defines "nostart"
    rules, agents, isolation = two_seats_against_greedy(tmp_path, "mute", bot)
    _, forfeits, explained = play_block_isolated(
        "geschenkt", rules, agents, 1, 0, 2, "rotate", SECRET, isolation
    )
    assert forfeits[:, 0].tolist() == [NO_START, NO_START]
    row, text = explained[(0, NO_START)]
    assert row == 0 and "did not start" in text and "never starts to play" in text


def test_the_python_api_frame_keeps_the_faults():
    load_untrusted(BOTS / "faulty.py", 600)
    isolation = Isolation((), time_limit=0.4, memory_mb=600)
    frame = play("geschenkt", ["raiser", "illegal", "greedy"], 9, isolation=isolation, seed=2)
    table = fault_table(frame.attrs["faults"])
    assert table.loc["raiser", "explanation"] == RAISER_SAYS
    assert table.loc["illegal", "explanation"] == "action 7 is not legal"
    assert table.loc["raiser", "game_index"] == 0 and table.loc["illegal", "game_index"] == 1
    for agent, seat in (("raiser", 0), ("illegal", 1)):
        assert table.loc[agent, "forfeits"] == (frame[f"forfeit_{seat}"] != 0).sum() == 3


def test_records_are_cut_and_merge_to_the_first_by_job_game_and_seat():
    assert cut("x" * 1000) == "x" * (EXPLANATION - 3) + "..." and cut("short") == "short"
    records = [
        {"agent": "a", "code": 1, "forfeits": 2, "job": 1, "game_index": 0, "seat": 0},
        {"agent": "a", "code": 1, "forfeits": 3, "job": 0, "game_index": 9, "seat": 2},
        {"agent": "a", "code": 1, "forfeits": 1, "job": 0, "game_index": 9, "seat": 1},
    ]
    records = [{**r, "explanation": f"seat {r['seat']}"} for r in records]
    merged = merged_faults(records)
    assert merged == [{**records[2], "forfeits": 6}]
    assert merged_faults(merged) == merged == merged_faults(records[::-1])


def tournament(out: Path, teller: Path, *options: str) -> None:
    """Play the field of ``teller`` against two ``raiser``s (each bot faults in the games it
    begins) into ``out``, under one secret (so that every run plays the same games)."""
    args = ["tournament", "geschenkt", "--design", "field", "--candidate", "teller"]
    args += ["--baseline", "raiser", "--players", "3", "--games", "24", "--quiet"]
    args += ["--untrusted-module", str(teller), "--untrusted-module", str(BOTS / "faulty.py")]
    args += ["--time-limit", "0.4", "--memory-limit", "600", "--secret", "11"]
    assert main([*args, *options, "--out", str(out)]) == 0


def section(printed: str) -> str:
    """The table of why agents forfeited, as printed (its header and rows)."""
    assert TITLE in printed, printed
    block = printed.split(TITLE)[1].split("\n\n")[0].splitlines()[1:]
    return "\n".join(line for line in block if line.split()[:1] in (["reason"], *ROWS))


def test_tournaments_print_and_keep_the_same_explanations_whatever_the_run(
    teller, tmp_path, capsys
):
    """One field of faulty bots played serially in one chunk per seating, by two workers in
    chunks of 5 games, as summaries only, and cut short (chunks lost, the first forfeit's
    among them) and resumed: each prints and keeps the same table of explanations, and
    ``report`` prints it and writes it into summary.md."""
    tables, kept = [], []
    runs = {
        "serial": ("--backend", "serial"),
        "workers": ("--backend", "processes", "--workers", "2", "--chunk-size", "5"),
        "summaries": ("--backend", "serial", "--chunk-size", "7", "--summary-only"),
    }
    for name, options in runs.items():
        tournament(tmp_path / name, teller, *options)
        tables.append(section(capsys.readouterr().out))
        kept.append(load_faults(tmp_path / name))
    cut_short = tmp_path / "cut"
    shutil.copytree(tmp_path / "workers", cut_short)
    chunks = sorted(cut_short.glob("chunk-*.parquet"))
    for chunk in chunks[: len(chunks) // 2]:  # as if the run had stopped part-way
        chunk.unlink()
    tournament(cut_short, teller, "--backend", "serial", "--chunk-size", "5", "--resume")
    tables.append(section(capsys.readouterr().out))
    kept.append(load_faults(cut_short))
    assert all(table == tables[0] for table in tables), tables
    assert all(records == kept[0] for records in kept)
    assert f"ValueError (teller.py:{RAISE_LINE}): card " in tables[0]
    assert RAISER_SAYS in tables[0]
    table = fault_table(kept[0])
    assert table["forfeits"].to_dict() == {"raiser": 48, "teller": 24}
    assert table.loc["teller", ["job", "game_index", "seat"]].tolist() == [0, 0, 0]
    for name in (*runs, "cut"):
        assert main(["report", str(tmp_path / name), "--quiet"]) == 0
        assert section(capsys.readouterr().out) == tables[0]
        assert "## why they forfeited" in (tmp_path / name / "summary.md").read_text()
        assert RAISER_SAYS in (tmp_path / name / "summary.md").read_text()
    chunk = sorted((tmp_path / "serial").glob("chunk-*.parquet"))[-1]
    pq.write_table(pq.read_table(chunk).replace_schema_metadata(None), chunk)
    assert load_faults(tmp_path / "serial") is None  # a chunk without records: no partial table


# Plain-Python bots that end their own process at the first decision of each game (so in the
# games they begin): one exits with status 3, one sends itself SIGSEGV.
ENDERS = """
import os
import signal

from agents.registry import define
from geschenkt_sim.rules import PASS, TAKE
from geschenkt_sim.state import CHIPS, N_DECISIONS, POT, SEAT


def rule(obs):
    broke = obs[CHIPS + obs[SEAT]] == 0
    return TAKE if broke or obs[POT] >= 5 else PASS


def exiter(obs, params, rng):
    if obs[N_DECISIONS] == 0:
        os._exit(3)
    return rule(obs)


def segfaulter(obs, params, rng):
    if obs[N_DECISIONS] == 0:
        os.kill(os.getpid(), signal.SIGSEGV)
    return rule(obs)


define("geschenkt", "exiter", exiter, compiled=False)
define("geschenkt", "segfaulter", segfaulter, compiled=False)
"""
ENDED = {
    "exiter": "its process exited with status 3",
    "segfaulter": "its process was killed by SIGSEGV",
}


@pytest.fixture(scope="module")
def enders(tmp_path_factory) -> Path:
    return untrusted_bots(tmp_path_factory, "enders.py", ENDERS)


@pytest.mark.parametrize("bot", sorted(ENDED))
def test_a_record_says_how_a_crashed_agent_s_process_ended(enders, bot, tmp_path, capsys):
    """A crash's explanation names the exit status or the signal (the worker's parent, its
    template, reaps it and says), where it had been "its process ended (a crash or an exit)"
    whatever ended it."""
    path = tmp_path / "r.json"
    args = ["record", "geschenkt", "--agents", f"{bot},greedy,greedy", "--players", "3"]
    args += ["--untrusted-module", str(enders), "--out", str(path)]
    assert main(args) == 0
    said = f"crashed: {ENDED[bot]}"
    assert f"seat 0 ({bot}) forfeited round 0: {said}" in capsys.readouterr().err
    assert json.loads(path.read_text())["forfeits"] == [{"seat": 0, "round": 0, "reason": said}]


def test_a_tournament_says_how_each_crashed_agent_s_process_ended(enders, tmp_path, capsys):
    """The table "why they forfeited" of a tournament (the loop with isolated seats) and its
    fault records name the exit status and the signal."""
    out = tmp_path / "enders"
    args = ["tournament", "geschenkt", "--design", "round-robin"]
    args += ["--agents", "exiter,segfaulter,greedy", "--players", "3", "--games", "3"]
    args += ["--backend", "serial", "--untrusted-module", str(enders), "--time-limit", "0.4"]
    assert main([*args, "--memory-limit", "600", "--quiet", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    table = fault_table(load_faults(out))
    for bot, says in ENDED.items():
        assert table.loc[bot, "reason"] == "crashed" and table.loc[bot, "explanation"] == says
        assert says in printed.split(TITLE)[1]

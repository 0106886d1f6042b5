"""Every bad input ends in one line and exit status 2 (or, in Python, one ``ValueError`` of one
line), before any work is done, and changes no file.

One table row per bad input, for every command of the command line and every public
constructor of the batch API and the learning environments. Each command runs in this process
(``experiments.cli.main``) in a folder holding the files a user might have there (``WORKSPACE``:
a text file, damaged and misshapen networks, agents modules that misbehave, records, results
folders); the check compares a checksum of every file in that folder before and after, so a
refused command may neither change nor add a file. Nothing is played: every case is refused
before its first game (a case that played would also be far slower than these).

The learning environments (``experiments/envs``) raise one ``EnvError`` (a ``ValueError``) of
one line for their bad input, checked the same way.
"""

import functools
import hashlib
import io
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agents import registry
from agents.roster import roster
from experiments.cli import main

ROOT = Path(__file__).resolve().parent.parent
QUICK = ["--games", "10", "--backend", "serial", "--quiet"]
TUNE = ["tune", "geschenkt", "--family", "sniper", "--players", "4", "--field", "greedy"]
TRAIN = ["train", "geschenkt", "--players", "3", "--rounds", "1", "--games", "20"]
BOUND = ["bound", "geschenkt", "--players", "3", "--target", "greedy", "--deals", "4", "--quiet"]
FIELD = ["tournament", "geschenkt", "--design", "field", "--players", "3"]
SOLVE = ["solve", "geschenkt", "--rule", "highest_card=8", "--rule", "n_removed=1", "--quiet"]
GAUNTLET = ["gauntlet", "geschenkt", "--deals", "5", "--backend", "serial", "--quiet"]
LEARNED = ["record", "geschenkt", "--players", "3", "--agents"]  # + "learned:net=X,greedy,greedy"
NET_TOURNAMENT = ["tournament", "geschenkt", "--agents", "learned:net=nt3.npz,greedy"]
NET_3P, NET_4P = (str(ROOT / "agents" / "geschenkt" / "nets" / f"{n}p.npz") for n in (3, 4))
NET_FILES = ["trunc.npz", "empty.npz", "nan.npz", "inf.npz", "shape.npz", "text.npz"]

MODULES = {
    "exits.py": "import sys\nsys.exit(3)\n",
    "nothing.py": "X = 1\n",
    "raises.py": "raise RuntimeError('no network here')\n",
    "badnum.py": (
        "from agents.registry import define\n\n\ndef d(obs, params, rng):\n    return 0\n\n\n"
        "define('geschenkt', 'bad_input_badnum', d, {'k': 'abc'})\n"
    ),
    **{
        f"twin_{x}.py": (
            "from agents.registry import define\n\n\ndef d(obs, params, rng):\n    return 0\n\n\n"
            "define('geschenkt', 'bad_input_twin', d, {'k': 1})\n"
        )
        for x in "ab"
    },
}
MANIFEST_KEYS = '"experiment": "x", "game": "geschenkt", "design": "mirror", "seed": 0'
FILES = {  # the workspace: name -> text (networks are added by the fixture)
    "paper.txt": "a user's own notes\n",
    "user.csv": "a,b\n1,2\n",
    "user.npz": "not giftsim's\n",
    "runme.npz": "",  # placeholder name: deleted, so that only runme.csv is the user's
    "runme.csv": "the user's table\n",
    "a_file": "a file where a folder is expected\n",
    "docs/ladder.md": (ROOT / "docs" / "ladder.md").read_text(),
    "userfolder/thesis.tex": "\\documentclass{article}\n",
    "deep.json": "[" * 100_000,
    "list.json": "[1, 2]",
    "binary.dat": "\udcac\udced",  # written with surrogateescape: bytes that are not UTF-8
    "chess.json": '{"game": "chess"}',
    "unfinished.json": '{"game": "geschenkt", "unfinished": true}',
    "badmanifest/manifest.json": "[1, 2]",
    "partial/manifest.json": '{"summary_only": false, "game": "tulips"}',
    "emptyrun/manifest.json": "{" + MANIFEST_KEYS + ', "summary_only": false, "jobs": [], '
    '"versions": {}}',
    "junk.ckpt/progress.json": "junk",
    "clash.ckpt": "a file named like train's checkpoint folder\n",
    **MODULES,
}
HUGE = 2**62

CLI = [  # (id, argv, words the one line must hold)
    # bench
    ("bench-force-alone", ["bench", "--force"], "--force replaces an existing --markdown"),
    ("bench-games-0", ["bench", "--games", "0"], "--games must be at least 1, got 0"),
    ("bench-rule-game", ["bench", "--rule", "chess:x=1"], "bench --rule takes GAME:KEY=VALUE"),
    ("bench-rule-key", ["bench", "--rule", "tulips:bogus=1"], "unknown rule 'bogus' for tulips"),
    ("bench-rule-value", ["bench", "--rule", "geschenkt:rounds=0"], "rounds must be in 1..20"),
    ("bench-markdown-user-file", ["bench", "--markdown", "paper.txt"], "paper.txt already exists"),
    ("bench-markdown-in-a-file", ["bench", "--markdown", "a_file/s.md"], "a_file is not a folder"),
    ("bench-games-text", ["bench", "--games", "many"], "--games: a whole number >= 1, got 'many'"),
    # record
    ("record-agents-empty", ["record", "geschenkt", "--agents", " , "], "--agents names no agent"),
    (
        "record-force-alone",
        ["record", "geschenkt", "--force"],
        "--force replaces an existing --out",
    ),
    (
        "record-first-player-twice",
        ["record", "geschenkt", "--first-player", "1", "--rule", "first_player=2"],
        "--first-player and --rule first_player both set the first player",
    ),
    (
        "record-ragged-table",
        ["record", "tulips", "--rule", "majority_points=1,2/3"],
        "majority_points must be a table of non-negative integers of shape (4, 3) (rows of equal",
    ),
    (
        "record-keeping-overflow",
        ["record", "tulips", "--rule", f"keeping_points={HUGE},0,0,0"],
        "keeping_points must hold points in 0..1,000,000 (so that no score can overflow)",
    ),
    (
        "record-giving-overflow",
        ["record", "tulips", "--rule", "giving_bonus=3,2,1000001,0"],
        "giving_bonus must hold points in 0..1,000,000",
    ),
    (
        "record-majority-overflow",
        ["record", "tulips", "--rule", f"majority_points=15,10,0/10,7,0/5,3,0/0,0,{HUGE}"],
        "majority_points must hold points in 0..1,000,000",
    ),
    ("record-out-user-file", ["record", "geschenkt", "--out", "paper.txt"], "already exists"),
    ("record-out-folder", ["record", "geschenkt", "--out", "userfolder"], "is a folder"),
    ("record-out-in-a-file", ["record", "geschenkt", "--out", "a_file/g.json"], "not a folder"),
    ("record-net-empty-path", [*LEARNED, "learned:net=,greedy,greedy"], "net= names no file"),
    *(
        (f"record-net-{name}", [*LEARNED, f"learned:net={name},greedy,greedy"], name)
        for name in NET_FILES
    ),
    ("record-net-missing", [*LEARNED, "learned:net=none.npz,greedy,greedy"], "no such file"),
    (
        "record-net-other-game",
        [*LEARNED, "learned:net=tulips.npz,greedy,greedy"],
        "is for 'tulips', not 'geschenkt'",
    ),
    (
        "record-net-other-count",
        ["record", "geschenkt", "--agents", "learned:net=nt3.npz,greedy,greedy,greedy"],
        "is for 3 players, not 4",
    ),
    (
        "tournament-net-other-count",
        [*NET_TOURNAMENT, "--players", "4", "--out", "run-other-count", *QUICK],
        "is for 3 players, not 4",
    ),
    (
        "record-spec-key-twice",
        ["record", "geschenkt", "--agents", "greedy:T=1:T=2,greedy,greedy,greedy"],
        "agent parameter 'T' is given twice in 'greedy:T=1:T=2'",
    ),
    ("record-players", ["record", "geschenkt", "--players", "9"], "n_players must be in 2..7"),
    ("record-players-list", ["record", "geschenkt", "--players", "4,5"], "one player count, a"),
    ("record-game-index-word", ["record", "geschenkt", "--game-index", "x"], "from 0, got 'x'"),
    ("tune-players-list", ["tune", "geschenkt", "--players", "4,5"], "one player count, a who"),
    ("tune-popsize-float", ["tune", "geschenkt", "--popsize", "2.5"], "a whole number >= 2"),
    ("gauntlet-deals-float", ["gauntlet", "geschenkt", "--deals", "1.5"], "number >= 1, got '1.5'"),
    ("train-hidden-word", ["train", "geschenkt", "--hidden", "x"], "a whole number in 1..128"),
    ("train-rounds-float", ["train", "geschenkt", "--rounds", "2.0"], "a whole number in 1..1000"),
    ("solve-queries-float", ["solve", "geschenkt", "--queries", "2.5"], "a whole number in 2..254"),
    ("bound-rollouts-float", ["bound", "geschenkt", "--rollouts", "1e3"], "number in 1..100,000"),
    ("play-seat-word", ["play", "geschenkt", "--seat", "me"], "a seat, a whole number from 0"),
    (
        "tournament-memory-limit-unit",
        ["tournament", "geschenkt", "--memory-limit", "1k"],
        "a whole number of MiB in 1..16,777,216, got '1k'",
    ),
    (
        "record-agent-count",
        ["record", "geschenkt", "--agents", "greedy,greedy"],
        "--agents names 2 agents for 4 players",
    ),
    ("record-first-seat", ["record", "geschenkt", "--first-player", "9"], "a seat in 0..3"),
    ("record-first-word", ["record", "geschenkt", "--first-player", "me"], "got 'me'"),
    ("record-seed", ["record", "geschenkt", "--seed", "-1"], "a seed is a whole number in 0.."),
    ("record-secret", ["record", "geschenkt", "--secret", "abc"], "--secret takes 'random'"),
    ("record-rule-key", ["record", "geschenkt", "--rule", "speed=3"], "unknown rule 'speed'"),
    ("record-rule-form", ["record", "geschenkt", "--rule", "rounds"], "--rule takes key=value"),
    (
        "record-rule-twice",
        ["record", "geschenkt", "--rule", "rounds=2", "--rule", "rounds=3"],
        "rule rounds is given twice (rounds=2 and rounds=3); give it once",
    ),
    # agents modules (on record, and on the other commands that take them below)
    (
        "module-exits",
        ["record", "geschenkt", "--agents-module", "exits.py"],
        "agents module 'exits.py' ended the program (sys.exit(3))",
    ),
    (
        "module-defines-nothing",
        ["record", "geschenkt", "--agents-module", "nothing.py"],
        "agents module 'nothing.py' defines no agents",
    ),
    (
        "module-redefines",
        ["record", "geschenkt", "--agents-module", "twin_a.py", "--agents-module", "twin_b.py"],
        "defines the geschenkt agent 'bad_input_twin' again (already defined by",
    ),
    (
        "module-default-not-a-number",
        ["record", "geschenkt", "--agents-module", "badnum.py"],
        "agent 'bad_input_badnum': the default of parameter 'k' must be a number, got 'abc'",
    ),
    ("module-raises", ["record", "geschenkt", "--agents-module", "raises.py"], "RuntimeError"),
    ("module-folder", ["record", "geschenkt", "--agents-module", "userfolder"], "is a folder"),
    ("module-no-file", ["record", "geschenkt", "--agents-module", "no/such.py"], "no such file"),
    (
        "module-unknown",
        ["record", "geschenkt", "--agents-module", "no_such_module_xyz"],
        "No module named 'no_such_module_xyz'",
    ),
    # replay
    ("replay-missing", ["replay", "none.json"], "no such record file: none.json"),
    ("replay-not-json", ["replay", "paper.txt"], "paper.txt is not JSON"),
    ("replay-folder", ["replay", "userfolder"], "userfolder is a folder, not a record file"),
    ("replay-deep", ["replay", "deep.json"], "its JSON nests too deeply"),
    ("replay-not-object", ["replay", "list.json"], "list.json is not a record: its JSON is not"),
    ("replay-binary", ["replay", "binary.dat"], "binary.dat is not a record: not a text file"),
    ("replay-other-game", ["replay", "chess.json"], "got 'chess'"),
    ("replay-unfinished", ["replay", "unfinished.json"], "a game quit part-way"),
    (
        "replay-seed-relabelled",
        ["replay", "--quiet", "relabelled.json"],
        "record 'deck' is not what game 0 of seed 7 with agents greedy,greedy,greedy gives",
    ),
    (
        "replay-other-agents",
        ["replay", "--quiet", "other_agents.json"],
        "record 'actions' is not what game 0 of seed 8 with agents greedy,random,greedy gives",
    ),
    (
        "replay-other-first-player-policy",
        ["replay", "--quiet", "other_first.json"],
        "record 'first_player' is not what game 0 of seed 8 with agents greedy,greedy,greedy",
    ),
    (
        "replay-extra-key",
        ["replay", "--quiet", "extra_key.json"],
        "record has a key 'zzz' that a record of game 0 of seed 8 with agents greedy,greedy,greedy "
        "does not have",
    ),
    (
        "replay-agent-count",
        ["replay", "--quiet", "one_agent.json"],
        "record 'agents' names 1 agent for 3 seats",
    ),
    # demo
    ("demo-scale-huge", ["demo", "--scale", "1e9"], "at most 100"),
    ("demo-scale-zero", ["demo", "--scale", "0"], "--scale must be a positive fraction"),
    ("demo-scale-nan", ["demo", "--scale", "nan"], "--scale must be a positive fraction"),
    ("demo-out-in-a-file", ["demo", "--scale", "0.001", "--out", "a_file/d"], "is a file"),
    # tournament
    (
        "tournament-agents-empty",
        ["tournament", "geschenkt", "--agents", "", *QUICK],
        "names no agent",
    ),
    (
        "tournament-luck-net-alone",
        ["tournament", "geschenkt", "--luck-net", "x.npz", *QUICK],
        "add --luck-adjust",
    ),
    (
        "tournament-time-limit-alone",
        ["tournament", "geschenkt", "--time-limit", "5", *QUICK],
        "apply to isolated agents",
    ),
    (
        "tournament-isolated-agent-that-never-starts",
        ["tournament", "geschenkt", "--isolate", "greedy", "--memory-limit", "200", *QUICK],
        "did not start: its process ended while starting (the memory limit, 200 MiB, may be",
    ),
    (
        "tournament-candidate-without-field",
        ["tournament", "geschenkt", "--candidate", "sniper", "--baseline", "greedy", *QUICK],
        "--candidate and --baseline belong to --design field",
    ),
    (
        "tournament-field-with-agents",
        ["tournament", "geschenkt", "--design", "field", "--agents", "sniper,greedy", *QUICK],
        "--design field plays --candidate against --baseline: leave out --agents",
    ),
    (
        "tournament-field-without-baseline",
        ["tournament", "geschenkt", "--design", "field", "--candidate", "sniper", *QUICK],
        "the field design needs --candidate and --baseline",
    ),
    (
        "tournament-mirror-no-duplicate",
        ["tournament", "geschenkt", "--design", "mirror", "--no-duplicate", *QUICK],
        "--no-duplicate is for the round-robin and field designs",
    ),
    (
        "tournament-scheduler-without-dask",
        ["tournament", "geschenkt", "--scheduler", "tcp://127.0.0.1:1", *QUICK],
        "--scheduler needs --backend dask",
    ),
    (
        "tournament-dask-without-scheduler",
        ["tournament", "geschenkt", "--games", "10", "--backend", "dask", "--quiet"],
        "the dask backend needs --scheduler",
    ),
    (
        "tournament-workers-serial",
        ["tournament", "geschenkt", "--workers", "2", *QUICK],
        "--workers needs --backend processes or dask",
    ),
    (
        "tournament-workers-0",
        ["tournament", "geschenkt", "--workers", "0", "--games", "10", "--quiet"],
        "argument --workers: worker processes are a whole number >= 1",
    ),
    ("tournament-resume-no-out", ["tournament", "geschenkt", "--resume", *QUICK], "give --out"),
    (
        "tournament-resume-no-run",
        ["tournament", "geschenkt", "--resume", "--out", "typo", *QUICK],
        "--resume: typo holds no run to continue (no manifest.json); leave out --resume",
    ),
    (
        "tournament-one-agent",
        ["tournament", "geschenkt", "--agents", "greedy", *QUICK],
        "a round-robin needs at least two different agents",
    ),
    (
        "tournament-two-counts",
        ["tournament", "geschenkt", "--players", "3,4", *QUICK],
        "the round-robin design takes one player count",
    ),
    ("tournament-players-text", ["tournament", "geschenkt", "--players", "x", *QUICK], "got 'x'"),
    (
        "tournament-players-9",
        ["tournament", "geschenkt", "--players", "9", *QUICK],
        "--players must be in 2..7 for No Thanks!, got 9",
    ),
    (
        "tournament-games-0",
        ["tournament", "geschenkt", "--backend", "serial", "--games", "0"],
        "a seating plays at least one game",
    ),
    (
        "tournament-chunk-0",
        ["tournament", "geschenkt", "--chunk-size", "0", *QUICK],
        "argument --chunk-size: games per chunk are a whole number >= 1, got '0'",
    ),
    (
        "tournament-chunk-huge",
        ["tournament", "geschenkt", "--chunk-size", "10000000000", "--games", "10000000000"],
        "a chunk of 10,000,000,000 games is too large (its rows are held in memory); --chunk",
    ),
    (
        "tournament-too-many-chunks",
        ["tournament", "geschenkt", "--games", "1000000000000", "--summary-only", "--quiet"],
        "make 280,000,000 chunks; at most 1,000,000 in a run (fewer games",
    ),
    (
        "tournament-games-past-any-run",
        ["tournament", "geschenkt", "--games", "9000000000000000000"],
        "argument --games: at most 2,000,000,000,000 games a seating",
    ),
    (
        "tournament-field-same",
        [*FIELD, "--candidate", "greedy", "--baseline", "greedy:T=0", *QUICK],
        "the candidate and the baseline are the same agent (greedy)",
    ),
    ("tournament-agent", ["tournament", "geschenkt", "--agents", "bogus,greedy", *QUICK], "bogus"),
    (
        "tournament-parameter-nan",
        ["tournament", "geschenkt", "--agents", "greedy:T=nan,random", *QUICK],
        "parameter T=nan is out of range",
    ),
    (
        "tournament-parameter-unknown",
        ["tournament", "geschenkt", "--agents", "greedy:X=1,random", *QUICK],
        "has no parameter 'X'",
    ),
    (
        "tournament-parameter-form",
        ["tournament", "geschenkt", "--agents", "greedy:T,random", *QUICK],
        "must look like key=value",
    ),
    (
        "tournament-net-nan",
        [
            *("tournament", "geschenkt", "--design", "field", "--candidate", "learned:net=nan.npz"),
            *("--baseline", "greedy", "--players", "3", *QUICK),
        ],
        "holds a weight that is not finite",
    ),
    ("tournament-out-file", ["tournament", "geschenkt", *QUICK, "--out", "paper.txt"], "a file"),
    (
        "tournament-out-user-folder",
        ["tournament", "geschenkt", *QUICK, "--out", "userfolder"],
        "is not empty and has no manifest.json",
    ),
    (
        "tournament-out-in-a-file",
        ["tournament", "geschenkt", *QUICK, "--out", "a_file/run"],
        "a_file is a file, not a folder",
    ),
    (
        "tournament-rule-first-player",
        ["tournament", "geschenkt", "--rule", "first_player=9", *QUICK],
        "first_player must be in 0..3",
    ),
    (
        "tournament-rule-first-player-rotate",
        ["tournament", "tulips", "--rule", "first_player=rotate", *QUICK],
        "a rotating first player is --first-player rotate",
    ),
    (
        "tournament-rule-overflow",
        ["tournament", "tulips", "--rule", f"keeping_points={HUGE},0,0,0", *QUICK],
        "so that no score can overflow",
    ),
    ("tournament-secret", ["tournament", "geschenkt", "--secret", "-5", *QUICK], "--secret takes"),
    ("seats-players-twice", ["seats", "geschenkt", "--players", "3,3"], "--players lists 3 twice"),
    (
        "seats-agents-twice",
        ["seats", "geschenkt", "--agents", "greedy,greedy:T=0"],
        "agent greedy is listed twice; a mirror design (a seat study) lists each agent once",
    ),
    ("tournament-seed", ["tournament", "geschenkt", "--seed", "-1", *QUICK], "a seed is a whole"),
    ("tournament-design", ["tournament", "geschenkt", "--design", "swiss"], "invalid choice"),
    ("tournament-game", ["tournament", "chess"], "invalid choice: 'chess'"),
    (
        "tournament-module-exits",
        ["tournament", "geschenkt", "--agents-module", "exits.py", *QUICK],
        "ended the program",
    ),
    # seats
    ("seats-players", ["seats", "geschenkt", "--players", "9", *QUICK], "No Thanks!, got 9"),
    ("seats-agent", ["seats", "geschenkt", "--agents", "bogus", *QUICK], "unknown agent 'bogus'"),
    (
        "seats-scheduler",
        ["seats", "geschenkt", "--scheduler", "tcp://127.0.0.1:1", *QUICK],
        "--scheduler needs --backend dask",
    ),
    (
        "seats-rule",
        ["seats", "tulips", "--rule", "game_end=never", *QUICK],
        "rule game_end must be one of",
    ),
    ("seats-resume-no-out", ["seats", "geschenkt", "--resume", *QUICK], "give --out"),
    ("seats-out-file", ["seats", "geschenkt", *QUICK, "--out", "paper.txt"], "is a file"),
    # report
    ("report-missing", ["report", "nothing_here"], "nothing_here: no such folder"),
    ("report-file", ["report", "exits.py"], "exits.py is a file, not a giftsim results folder"),
    ("report-empty-name", ["report", ""], "argument folder: an empty name; name a folder"),
    ("report-user-folder", ["report", "userfolder"], "not a giftsim results folder"),
    ("report-manifest-list", ["report", "badmanifest"], "not a JSON object"),
    ("report-manifest-keys", ["report", "partial"], "it lacks experiment, design, seed, jobs"),
    ("report-no-results", ["report", "emptyrun"], "holds no results yet"),
    # tune
    ("tune-json-user-file", [*TUNE, "--json", "paper.txt"], "--json paper.txt already exists"),
    ("tune-json-shipped", [*TUNE, "--json", "docs/ladder.md"], "already exists"),
    ("tune-json-in-a-file", [*TUNE, "--json", "a_file/t.json"], "a_file is not a folder"),
    ("tune-json-folder", [*TUNE, "--json", "userfolder"], "is a folder"),
    (
        "tune-games-0",
        [*TUNE, "--games", "0"],
        "--games: deals played in memory are a whole number in 2..",
    ),
    ("tune-popsize-0", [*TUNE, "--popsize", "0"], "--popsize must be at least 2, got 0"),
    ("tune-final-0", [*TUNE, "--final-games", "0"], "a whole number in 2..10,000,000, got '0'"),
    (
        "tune-games-huge",
        [*TUNE, "--games", "10000000000000"],
        "--games: deals played in memory are a whole number in 2..10,000,000",
    ),
    ("tune-final-huge", [*TUNE, "--final-games", "10000001"], "got '10000001'"),
    ("tune-sigma-nan", [*TUNE, "--sigma", "nan"], "sigma must be a positive number"),
    (
        "tune-players",
        ["tune", "geschenkt", "--family", "sniper", "--players", "9", "--field", "greedy"],
        "n_players must be in 2..7 (2 is a variant), got 9",
    ),
    (
        "tune-field",
        ["tune", "geschenkt", "--family", "sniper", "--players", "4", "--field", "nobody"],
        "unknown agent 'nobody'",
    ),
    (
        "tune-family",
        ["tune", "geschenkt", "--family", "nobody", "--players", "4", "--field", "greedy"],
        "unknown agent 'nobody'",
    ),
    ("tune-module-nothing", [*TUNE, "--agents-module", "nothing.py"], "defines no agents"),
    ("tune-games-1", [*TUNE, "--games", "1"], "a whole number in 2..10,000,000, got '1'"),
    ("tune-final-games-1", [*TUNE, "--final-games", "1"], "--final-games: deals played in memory"),
    ("tune-sigma-word", [*TUNE, "--sigma", "abc"], "number of parameter scales, at most 10, got"),
    ("demo-scale-word", ["demo", "--scale", "abc"], "a positive fraction of the full size, at"),
    ("train-lr-word", [*TRAIN, "--lr", "fast"], "--lr: a number in (0, 1], got 'fast'"),
    (
        "tournament-time-limit-word",
        ["tournament", "geschenkt", "--isolate", "greedy", "--time-limit", "abc"],
        "a positive number of seconds, at most 86,400 (a day), got 'abc'",
    ),
    # train
    ("train-out-text", [*TRAIN, "--out", "paper.txt"], "ends in .npz, got paper.txt"),
    ("train-out-dot", [*TRAIN, "--out", "."], "ends in .npz, got ."),
    ("train-out-user-npz", [*TRAIN, "--out", "user.npz"], "user.npz exists and this run did not"),
    ("train-out-beside", [*TRAIN, "--out", "runme.npz"], "runme.csv exists and this run did not"),
    ("train-out-in-a-file", [*TRAIN, "--out", "a_file/n.npz"], "a_file is not a folder"),
    ("train-checkpoint-file", [*TRAIN, "--out", "clash.npz"], "clash.ckpt"),
    ("train-junk-checkpoint", [*TRAIN, "--out", "junk.npz", "--resume"], "not a readable check"),
    ("train-resume-no-run", [*TRAIN, "--out", "n.npz", "--resume"], "n.ckpt holds no checkpoint"),
    (
        "train-workers-0",
        [*TRAIN, "--out", "n.npz", "--workers", "0"],
        "argument --workers: worker processes are a whole number >= 1",
    ),
    ("train-workers-neg", [*TRAIN, "--out", "n.npz", "--workers", "-3"], "got '-3'"),
    ("train-players", [*TRAIN[:2], "--players", "9", "--out", "n.npz"], "must be in 2..7 for"),
    ("train-hidden", [*TRAIN, "--out", "n.npz", "--hidden", "500"], "hidden must be a whole"),
    ("train-lam", [*TRAIN, "--out", "n.npz", "--lam", "1.5"], "lam must be in [0, 1]"),
    ("train-lr-nan", [*TRAIN, "--out", "n.npz", "--lr", "nan"], "lr must be in (0, 1]"),
    ("train-members", [*TRAIN, "--out", "n.npz", "--members", "5"], "hidden x members"),
    ("train-baseline", [*TRAIN, "--out", "n.npz", "--baseline", "nobody"], "unknown agent"),
    ("train-rule-key", [*TRAIN, "--out", "n.npz", "--rule", "bogus=1"], "chips_per_player"),
    ("train-rule-rounds", [*TRAIN, "--out", "n.npz", "--rule", "rounds=2"], "use rounds=1"),
    ("train-rule-value", [*TRAIN, "--out", "n.npz", "--rule", "n_removed=40"], "n_removed"),
    ("train-init-table", [*TRAIN, "--out", "n.npz", "--init", NET_4P], "at 4 players, not"),
    ("train-init-hidden", [*TRAIN, "--out", "n.npz", "--init", NET_3P, "--hidden", "8"], "32"),
    ("train-init-missing", [*TRAIN, "--out", "n.npz", "--init", "none.npz"], "no such file"),
    # ladder
    ("ladder-out-user-file", ["ladder", "--out", "paper.txt"], "paper.txt already exists"),
    ("ladder-out-shipped", ["ladder", "--out", "docs/ladder.md"], "docs/ladder.md already"),
    ("ladder-out-in-a-file", ["ladder", "--out", "a_file/l.md"], "a_file is not a folder"),
    (
        "ladder-games-neg",
        ["ladder", "--games", "-5"],
        "--games: deals played in memory are a whole number in 0..10,000,000",
    ),
    ("ladder-games-huge", ["ladder", "--search-games", "10**13"], "got '10**13'"),
    ("ladder-nothing", ["ladder", "--games", "0", "--search-games", "0"], "has no step to play"),
    ("ladder-games-1", ["ladder", "--games", "1"], "--games must be 0 (no such steps) or at least"),
    ("ladder-search-games-1", ["ladder", "--search-games", "1"], "--search-games must be 0 (no"),
    (
        "ladder-workers-0",
        ["ladder", "--workers", "0"],
        "argument --workers: worker processes are a whole number >= 1",
    ),
    # play
    ("play-record-user-file", ["play", "geschenkt", "--record", "paper.txt"], "already exists"),
    ("play-record-in-a-file", ["play", "geschenkt", "--record", "a_file/g.json"], "not a folder"),
    ("play-seat", ["play", "tulips", "--seat", "4"], "--seat must be a seat 0..3, got 4"),
    ("play-vs-count", ["play", "geschenkt", "--vs", "greedy,greedy"], "--vs names 2 agents"),
    ("play-rule-other-game", ["play", "tulips", "--rule", "chips_visible=false"], "unknown rule"),
    ("play-match", ["play", "geschenkt", "--rule", "rounds=3"], "play plays one game"),
    (
        "play-net-nan",
        ["play", "geschenkt", "--vs", "learned:net=nan.npz,greedy,greedy"],
        "not finite",
    ),
    ("play-seed", ["play", "geschenkt", "--seed", "-1"], "a seed is a whole number in 0.."),
    ("play-module", ["play", "geschenkt", "--agents-module", "exits.py"], "ended the program"),
    # gauntlet
    (
        "gauntlet-deals-0",
        ["gauntlet", "geschenkt", "--deals", "0"],
        "--deals must be a whole number >= 1, got 0",
    ),
    (
        "gauntlet-deals-twice",
        [*GAUNTLET, "--deals", "0"],
        "--deals: given twice (5 and 0); give it once",
    ),
    ("gauntlet-field", [*GAUNTLET, "--fields", "nobody"], "field 'nobody' is not a field"),
    ("gauntlet-pool", [*GAUNTLET, "--fields", "greedy+nobody"], "unknown agent 'nobody'"),
    ("gauntlet-agent", [*GAUNTLET, "--agents", "bogus"], "unknown agent 'bogus'"),
    (
        "gauntlet-only-mirrors",
        ["gauntlet", "geschenkt", "--agents", "greedy", "--fields", "greedy", "--players", "3"],
        "every cell is an agent against a field of its own copies alone",
    ),
    ("gauntlet-players-9", [*GAUNTLET, "--players", "9"], "in 2..7 for No Thanks!, got 9"),
    ("gauntlet-players-text", [*GAUNTLET, "--players", "3,x"], "got '3,x'"),
    (
        "gauntlet-time-limit-alone",
        [*GAUNTLET, "--players", "3", "--time-limit", "5"],
        "apply to isolated agents",
    ),
    (
        "gauntlet-isolate-no-agent-of-the-run",
        [*GAUNTLET, "--players", "3", "--agents", "greedy", "--isolate", "random"],
        "--isolate names 'random', which plays nowhere in this run (agents: greedy, sniper",
    ),
    ("gauntlet-out-file", [*GAUNTLET, "--out", "paper.txt"], "is a file, not a results folder"),
    ("gauntlet-resume-no-out", [*GAUNTLET, "--resume"], "give --out"),
    ("gauntlet-resume-no-run", [*GAUNTLET, "--resume", "--out", "new"], "new holds no run"),
    ("gauntlet-scheduler", [*GAUNTLET, "--scheduler", "tcp://127.0.0.1:1"], "needs --backend"),
    ("gauntlet-workers-serial", [*GAUNTLET, "--workers", "2"], "--workers needs --backend"),
    ("gauntlet-rule", [*GAUNTLET, "--rule", "speed=3"], "unknown rule 'speed'"),
    ("gauntlet-module", [*GAUNTLET, "--agents-module", "exits.py"], "ended the program"),
    # agents
    ("agents-game", ["agents", "chess"], "invalid choice: 'chess'"),
    ("agents-module-nothing", ["agents", "--agents-module", "nothing.py"], "defines no agents"),
    (
        "agents-module-redefines",
        ["agents", "--agents-module", "twin_a.py", "--agents-module", "twin_b.py"],
        "again",
    ),
    # the command itself
    ("no-command", [], "the following arguments are required: COMMAND"),
    ("unknown-command", ["plya"], "invalid choice: 'plya'"),
    ("unknown-option", ["record", "geschenkt", "--colour", "red"], "unrecognized arguments"),
    ("solve-tulips", ["solve", "tulips", "--out", "s"], "models No Thanks! (geschenkt) only"),
    ("solve-out-file", [*SOLVE, "--out", "paper.txt"], "--out paper.txt is a file; give a new"),
    ("solve-out-in-a-file", [*SOLVE, "--out", "a_file/s"], "a_file is not a folder"),
    (
        "solve-hidden-chips",
        ["solve", "geschenkt", "--rule", "chips_visible=false", "--rule", "n_removed=2"],
        "chips_visible=true",
    ),
    # solve and bound
    ("bound-deals", ["bound", "geschenkt", "--target", "greedy", "--deals", "1"], "deals must"),
    (
        "bound-rounds",
        ["bound", "geschenkt", "--target", "greedy", "--rule", "rounds=2"],
        "rounds=1",
    ),
    ("bound-players", ["bound", "tulips", "--target", "greedy", "--players", "9"], "--players"),
    ("bound-out-user-csv", [*BOUND, "--out", "user.csv"], "user.csv is not a table of giftsim"),
    ("bound-out-text", [*BOUND, "--out", "paper.txt"], "paper.txt is not a table of giftsim"),
    ("bound-out-folder", [*BOUND, "--out", "userfolder"], "userfolder is a folder"),
    ("bound-out-in-a-file", [*BOUND, "--out", "a_file/b.csv"], "a_file is not a folder"),
    (
        "bound-unknown-responder",
        [*BOUND, "--responder", "foo"],
        "(valid: rollouts, the rollout responder, or an agent: random, greedy",
    ),
    (
        "bound-rollouts-with-responder",
        [*BOUND, "--responder", "sniper", "--rollouts", "64", "--margin", "3"],
        "--rollouts and --margin set the rollout responder; --responder sniper plays by itself",
    ),
    ("solve-queries-0", [*SOLVE, "--exploit", "random", "--queries", "0", "--out", "sq"], "2..254"),
    ("solve-queries-alone", [*SOLVE, "--queries", "8"], "--queries goes with --exploit"),
    ("solve-no-tables-alone", [*SOLVE, "--no-tables"], "--no-tables goes with --out"),
    ("solve-seed-alone", [*SOLVE, "--seed", "5"], "--seed goes with --exploit"),
    (
        "train-margin-scale-alone",
        [*TRAIN, "--out", "n.npz", "--margin-scale", "50"],
        "--margin-scale weighs the score lead of --margin: give --margin above 0",
    ),
]


def _network(folder: Path) -> None:
    """Damaged and misshapen copies of the shipped No Thanks! 3-player network."""
    shipped = roster("geschenkt").shipped(3)
    good = dict(np.load(shipped))
    data = shipped.read_bytes()
    (folder / "trunc.npz").write_bytes(data[: len(data) // 3])
    (folder / "empty.npz").write_bytes(b"")
    (folder / "text.npz").write_text("not a network\n")
    (folder / "nt3.npz").write_bytes(data)
    (folder / "tulips.npz").write_bytes(roster("tulips").shipped(4).read_bytes())
    for name, change in (("nan", math.nan), ("inf", math.inf)):
        weights = {**good, "w2": good["w2"].copy()}
        weights["w2"][0] = change
        with open(folder / f"{name}.npz", "wb") as f:
            np.savez(f, **weights)
    with open(folder / "shape.npz", "wb") as f:
        np.savez(f, **{**good, "b1": good["b1"][:-1]})


@functools.cache
def _records() -> dict[str, str]:
    """A record of game 0 of seed 8 (three ``greedy``), relabelled: as seed 7, with other
    agents, with one agent for three seats, with a first-player policy it was not played
    with, with a key no record has."""
    from experiments.games import play_slow
    from giftsim.game import load_game

    rules, agents = (
        load_game("geschenkt").rules(n_players=3),
        registry.parse_list("greedy,greedy,greedy", "geschenkt"),
    )
    played = play_slow("geschenkt", rules, agents, 8, 0)
    meta = {"agents": ["greedy"] * 3, "seed": 8, "game_index": 0}
    made = load_game("geschenkt").make_record(rules, played.start, played.actions, meta)
    return {
        "relabelled.json": json.dumps({**made, "seed": 7}),
        "other_agents.json": json.dumps({**made, "agents": ["greedy", "random", "greedy"]}),
        "one_agent.json": json.dumps({**made, "agents": ["greedy"]}),
        "other_first.json": json.dumps(
            {**made, "first_player_policy": (made["first_player"] + 1) % 3}
        ),
        "extra_key.json": json.dumps({**made, "zzz": 1}),
    }


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """A folder of a user's files as the working folder; the agent registry restored after."""
    for name, text in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, errors="surrogateescape")
    (tmp_path / "runme.npz").unlink()
    _network(tmp_path)
    for name, text in _records().items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    monkeypatch.setattr(registry, "_FAMILIES", {g: dict(t) for g, t in registry._FAMILIES.items()})
    monkeypatch.setattr(registry, "_ORIGIN", dict(registry._ORIGIN))
    return tmp_path


def checksums(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def one_line_exit_2(argv, capsys) -> str:
    """Run ``giftsim ARGV``; it must end with one line on stderr and status 2, having printed
    nothing on stdout (a design's seatings line above the error read as a run that began)."""
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's errors
        code = stop.code
    out, err = capsys.readouterr()
    assert code == 2, err
    assert out == "", out
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and "internal error" not in err
    return err


@pytest.mark.parametrize(("argv", "words"), [c[1:] for c in CLI], ids=[c[0] for c in CLI])
def test_a_bad_command_is_one_line_exit_2_and_changes_no_file(
    workspace, capsys, monkeypatch, argv, words
):
    """Python writes no bytecode here unless giftsim asks it not to (``PYTHONDONTWRITEBYTECODE``
    unset, in this process and in the processes it starts): an agents module that fails to
    load leaves no ``__pycache__`` in the user's folder."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    before = checksums(workspace)
    err = one_line_exit_2(argv, capsys)
    assert words in err
    assert checksums(workspace) == before


def test_every_command_has_bad_inputs_in_the_table():
    from experiments.cli import _parser

    commands = set(_parser()._subparsers._group_actions[0].choices)
    covered = {argv[0] for _, argv, _ in CLI if argv}
    assert commands <= covered, commands - covered


def test_no_option_is_parsed_by_bare_int():
    """argparse words a bare ``int``'s refusal "invalid int value", naming no range: every
    whole-number option says what it takes (``arguments.whole``)."""
    from experiments.cli import _parser

    bare = [
        f"{name} {action.option_strings[0]}"
        for name, command in _parser()._subparsers._group_actions[0].choices.items()
        for action in command._actions
        if action.type is int
    ]
    assert bare == []


# ---- The Python interfaces: one ValueError of one line, before anything is played ----------


def _batch(**options):
    from experiments.batch import play

    return lambda: play(**{"game": "geschenkt", "agents": ["greedy"] * 4, "n_games": 10, **options})


def _field(*args):
    from experiments.batch import field

    return lambda: field("geschenkt", *args)


def _rules(game, **fields):
    from giftsim.game import load_game

    return lambda: load_game(game).rules(**fields)


def _tulips_rules(**fields):
    from tulips_sim.rules import Rules

    return Rules(**fields)


def _geschenkt_rules(**fields):
    from geschenkt_sim.rules import Rules

    return Rules(**fields)


def _vector(**options):
    from experiments.envs.vector import VectorEnv

    return lambda: VectorEnv(**{"game": "geschenkt", "n_envs": 4, "players": 4, **options})


def _vector_step(actions):
    def run():
        env = _vector()()
        env.reset()
        env.step(actions)

    return run


def _gym(reset=False, **options):
    from experiments.envs.gym_env import GiftsimEnv

    def run():
        env = GiftsimEnv("geschenkt", **{"players": 4, **options})
        if reset:
            env.reset(seed=1)

    return run


def _pettingzoo(step_first=False, **options):
    from experiments.envs.pettingzoo_env import env

    def run():
        made = env("geschenkt", **{"players": 4, **options})
        if step_first:
            made.unwrapped.step(0)

    return run


def _openspiel(**params):
    from experiments.envs import openspiel_game

    return lambda: openspiel_game.load("geschenkt", **params)


def _parse(spec):
    from agents.registry import parse

    return lambda: parse(spec, "geschenkt")


def _define(defaults):
    def decide(obs, params, rng):
        return 0

    return lambda: registry.define("geschenkt", "bad_input_api", decide, defaults)


def _by_agent(frame):
    from experiments.batch import by_agent

    return by_agent(frame)


def _compare(**options):
    from experiments import studies

    return lambda: studies.compare("geschenkt", 3, ["greedy", "random"], **options)


def _python_answer(answer):
    def call():
        registry.define("geschenkt", "answers_py", lambda o, p, r: answer, {}, compiled=False)
        _batch(agents=["answers_py", "greedy", "greedy"], n_games=3)()

    return call


def _policy_answer(answer):
    def call():
        from experiments.policy import from_policy

        from_policy("geschenkt", "answers_policy", lambda x, m: answer, players=3)
        _batch(agents=["answers_policy", "greedy", "greedy"], n_games=3)()

    return call


def _gauntlet(**options):
    from experiments import gauntlet

    kw = {"agents": ["greedy"], "fields": ["random"], "players": 3} | options
    return lambda: gauntlet.plan("geschenkt", **kw)


def _vector_answer(opponent):
    def call():
        from experiments.envs.vector import VectorEnv

        VectorEnv("geschenkt", 4, 3, opponents=opponent, seed=1).reset()

    return call


def _long():
    from experiments import results

    return results.long_table(_batch(n_games=20)())


def _rated(**options):
    def call():
        from experiments import stats

        stats.ratings(_long(), **options)

    return call


def _panels(value):
    def call():
        from experiments import plots, studies

        plots.seat_panels(studies.seat_study("geschenkt", {"greedy": 10}, [3]), value)

    return call


API = [  # (id, call, words of the message)
    ("ratings-scale", _rated(scale="elo400"), "scale must be one of log, elo, got 'elo400'"),
    ("ratings-prior", _rated(prior=0), "prior must be a number > 0, got 0"),
    ("ratings-boot", _rated(n_boot=-1), "n_boot must be a whole number >= 0, got -1"),
    ("seat-panels-value", _panels("bogus"), "value must be one of win_share, mean_score"),
    (
        "stats-wide-frame",
        lambda: __import__("experiments.stats").stats.win_share(_batch(n_games=3)()),
        "it has a game a row (agent_0, ...); results.long_table(frame) makes the long table",
    ),
    (
        "stats-columns",
        lambda: __import__("experiments.stats").stats.win_share(_long().drop(columns="win")),
        "the table lacks columns ['win'] (it has job, game_index",
    ),
    ("batch-rules-list", _batch(rules=["n_removed=99"]), "rules must be geschenkt_sim.rules"),
    (
        "batch-rules-other-game",
        lambda: _batch(rules=_tulips_rules(n_players=4))(),
        "got tulips_sim.rules.Rules",
    ),
    ("batch-games-float", _batch(n_games=10.5), "n_games must be a whole number >= 0"),
    ("batch-games-text", _batch(n_games="10"), "n_games must be a whole number >= 0"),
    ("batch-games-negative", _batch(n_games=-1), "n_games must be a whole number >= 0"),
    ("batch-first-index", _batch(first_index=-1), "first_index must be a whole number"),
    ("batch-seed", _batch(seed=-1), "the seed must be in 0.."),
    ("batch-seed-float", _batch(seed=1.5), "the seed must be a whole number"),
    ("batch-agents-number", _batch(agents=4), "agents must be a list of agent specs"),
    ("batch-agents-unknown", _batch(agents=["bogus"] * 4), "unknown agent 'bogus'"),
    ("batch-agents-one", _batch(agents=["greedy"]), "n_players must be in 2..7"),
    ("batch-first-seat", _batch(first_player=7), "a seat in 0..3, got 7"),
    ("batch-first-seat-bool", _batch(first_player=True), "a seat in 0..3, got True"),
    ("batch-game", _batch(game="chess"), "unknown game 'chess'"),
    ("field-games-1", _field("greedy", "random", 4, 1), "n_games must be a whole number >= 2"),
    ("field-players", _field("greedy", "random", 9, 10), "n_players must be in 2..7"),
    ("field-candidate", _field("bogus", "random", 4, 10), "unknown agent 'bogus'"),
    ("field-players-0", _field("greedy", "random", 0, 10), "in 2..7 for No Thanks!, got 0"),
    ("field-players-text", _field("greedy", "random", "3", 10), "n_players must be in 2..7"),
    (
        "study-players",
        lambda: _seat_study_at([9]),
        "n_players must be in 2..7 for No Thanks!, got 9",
    ),
    ("by-agent-no-game", lambda: _by_agent(_batch(n_games=0)()), "holds no game"),
    ("compare-games-0", _compare(games=0), "games must be a whole number >= 1, got 0"),
    ("compare-games-float", _compare(games=100.5), "games must be a whole number >= 1"),
    ("python-agent-float", _python_answer(0.3), "answered 0.3, not a whole number"),
    ("policy-float", _policy_answer(0.9), "an action id (a whole number) or 2 scores, got 0.9"),
    ("gauntlet-deals-float", _gauntlet(deals=2.5), "--deals must be a whole number >= 1"),
    (
        "vector-python-opponent-shape",
        _vector_answer(lambda x, m: np.zeros(len(m) + 1, int)),
        "shape",
    ),
    ("spec-net-empty", _parse("learned:net="), "net= names no file"),
    ("spec-key-twice", _parse("greedy:T=1:T=2"), "is given twice"),
    ("define-default-text", _define({"k": "abc"}), "must be a number, got 'abc'"),
    ("define-not-callable", lambda: registry.define("geschenkt", "x", 3), "decide must be"),
    ("tulips-rules-overflow", _rules("tulips", keeping_points=(HUGE, 0, 0, 0)), "overflow"),
    ("tulips-rules-ragged", _rules("tulips", majority_points=((1, 2), (3,))), "equal length"),
    ("tulips-rules-players", _rules("tulips", n_players=7), "n_players must be in 2..6"),
    ("geschenkt-rules-chips", _rules("geschenkt", chips_per_player=-1), "chips_per_player"),
    ("vector-players", _vector(players=1), "1"),
    ("vector-lanes", _vector(n_envs=0), "0"),
    ("vector-opponent", _vector(opponents="bogus"), "unknown agent 'bogus'"),
    ("vector-seat", _vector(learner_seat=9), "9"),
    ("gym-players", _gym(players=99), "99"),
    ("gym-opponent", _gym(opponents="bogus"), "unknown agent 'bogus'"),
    ("pettingzoo-players", _pettingzoo(players=99), "99"),
    ("openspiel-players", _openspiel(players=99), "99"),
]
MARGIN_CASES = [  # found by the review: a NaN margin made every reward NaN
    ("vector-margin-nan", _vector(margin=math.nan), "margin must be a finite number"),
    ("gym-margin-nan", _gym(margin=math.nan), "margin must be a finite number"),
    ("gym-margin-text", _gym(margin="big"), "margin must be a finite number"),
]
ENV_CASES = [  # the environments' own (EnvError)
    ("vector-rules-other-game", lambda: _vector(rules=_tulips_rules(n_players=4))(), "rules"),
    ("vector-float-actions", _vector_step(np.full(4, 0.5)), "action"),
    ("gym-secret-negative", _gym(reset=True, secret=-1), "secret"),
    ("pettingzoo-step-before-reset", _pettingzoo(step_first=True), "reset"),
]


@pytest.mark.parametrize(
    ("call", "words"),
    [c[1:] for c in API]
    + [pytest.param(*c[1:]) for c in ENV_CASES]
    + [pytest.param(*c[1:]) for c in MARGIN_CASES],
    ids=[c[0] for c in API + ENV_CASES + MARGIN_CASES],
)
def test_a_bad_argument_is_one_clear_value_error(workspace, call, words):
    before = checksums(workspace)
    with pytest.raises(ValueError) as raised:
        call()
    message = str(raised.value)
    assert words in message and len(message.strip().splitlines()) == 1, message
    assert checksums(workspace) == before


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (_batch(agents=[None, "greedy", "greedy"]), "got None"),
        (_define([8]), "defaults is a dict by parameter name"),
        (lambda: _study_of_a_list(), "agents is a dict of agent spec -> games"),
    ],
    ids=["agent-none", "define-defaults-list", "seat-study-list"],
)
def test_an_argument_of_the_wrong_kind_is_one_clear_type_error(call, words):
    with pytest.raises(TypeError) as raised:
        call()
    assert words in str(raised.value) and len(str(raised.value).splitlines()) == 1


def test_numpy_whole_numbers_are_taken_where_python_ints_are():
    """One check of a whole number (``giftsim.checks.is_whole``) serves every layer: a NumPy
    integer is taken wherever a Python int is (a seat of ``first_player`` was refused), a bool
    and a float nowhere."""
    from agents.isolation import Isolation
    from experiments.batch import play
    from giftsim.checks import is_whole

    assert [is_whole(v) for v in (3, np.int64(3), np.uint8(0), -2)] == [True] * 4
    assert not any(is_whole(v) for v in (True, np.bool_(True), 3.0, np.float64(3), "3", None))
    plain = play("geschenkt", ["greedy"] * 3, n_games=4, seed=5, first_player=1)
    numpy = play(
        "geschenkt", ["greedy"] * 3, n_games=np.int64(4), seed=np.uint64(5), first_player=np.int8(1)
    )
    pd.testing.assert_frame_equal(plain, numpy)
    assert json.dumps(Isolation(memory_mb=np.int64(256)).as_dict())  # a manifest can hold it
    from experiments.envs.gym_env import GiftsimEnv
    from experiments.sweeps import sweep
    from experiments.train_settings import TrainSettings

    assert GiftsimEnv("geschenkt", players=3, learner_seat=np.int64(1)).seat == 1  # was refused
    with pytest.raises(ValueError, match=r"learner_seat must be a seat in 0\.\.2, got True"):
        GiftsimEnv("geschenkt", players=3, learner_seat=True)  # it was taken as seat 1
    TrainSettings("geschenkt", 3, rounds=np.int64(2)).check()  # "must be a whole number, got 2"
    swept = sweep("geschenkt", "greedy", {"standard": {}}, 4, players=np.int64(3))  # TypeError
    assert swept["n_players"].tolist() == [3]


def _seat_study_at(players):
    from experiments import studies

    studies.seat_study("geschenkt", {"greedy": 10}, players=players)


def _study_of_a_list():
    from experiments import studies

    studies.seat_study("geschenkt", ["greedy"], players=[3])


# ---- Output to a reader that went away ---------------------------------------------------


class ClosedPipe(io.StringIO):
    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_a_closed_standard_output_ends_quietly_with_status_0(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["agents", "geschenkt"]) == 0
    assert capsys.readouterr().err == ""


def test_piping_into_head_exits_0_without_a_word():
    pipe = f"set -o pipefail; {sys.executable} -m experiments.cli agents | head -1"
    done = subprocess.run(
        ["bash", "-c", pipe], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "geschenkt:" and done.stderr == ""


def test_replay_reads_a_record_from_a_pipe(tmp_path):
    """``giftsim replay <(giftsim record ...)``: a pipe is no regular file, but a record."""
    cli = f"{sys.executable} -m experiments.cli"
    both = f"{cli} replay <({cli} record geschenkt --players 3 --seed 2)"
    done = subprocess.run(["bash", "-c", both], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "record OK" in done.stdout

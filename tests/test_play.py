"""``giftsim play``: whole games through standard input, honest screens, records that replay."""

import io
import json
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from agents.registry import parse_list
from experiments.cli import main
from experiments.games import play_slow
from experiments.play import tulips as tulips_text
from experiments.play.screen import Seats
from geschenkt_sim.rules import ACTION_NAMES
from geschenkt_sim.rules import Rules as GeschenktRules
from giftsim.files import free_name
from giftsim.game import load_game
from tulips_sim import engine as tulips_engine
from tulips_sim import state as tulips_state
from tulips_sim.rules import FESTIVAL, GIVE, KEEP, SECRET, SETUP_FIRST, SETUP_SECOND, VARIETIES
from tulips_sim.rules import Rules as TulipsRules
from tulips_sim.state import deal, new_state

FIRST_CHOICE = "0\n" * 2000  # more answers than any game asks for
HINT = "please enter one of the numbers"
PROMPT = "your choice ["
NO_THANKS = ("geschenkt", "--players", "4", "--seat", "1", "--vs", "greedy,sniper,random")
TULIPS = ("tulips", "--players", "4", "--seat", "0", "--vs", "greedy,hoarder,random")
VARIETY = re.compile("|".join(VARIETIES))


def play(monkeypatch, capsys, *args, stdin=FIRST_CHOICE):
    """Run ``giftsim play ARGS`` in this process with ``stdin`` as the person's answers."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["play", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def played(monkeypatch, capsys, tmp_path, args, stdin=FIRST_CHOICE):
    """A finished game: its screen and its saved record (in a file of its own)."""
    path = free_name(tmp_path / "game.json")
    code, out, err = play(monkeypatch, capsys, *args, "--record", str(path), stdin=stdin)
    assert code == 0, err
    assert f"record saved to {path}" in out
    return out, json.loads(path.read_text())


def screen_before_the_end(out: str) -> str:
    return out.split("── game over")[0]


def test_a_no_thanks_game_is_the_compiled_game_and_its_record_replays(
    monkeypatch, capsys, tmp_path
):
    out, record = played(monkeypatch, capsys, tmp_path, (*NO_THANKS, "--seed", "4"))
    moves = load_game("geschenkt").replay(record)  # raises on any wrong entry
    assert record["agents"] == ["greedy", "human", "sniper", "random"]
    assert record["first_player_policy"] == "random"  # as every record says how it was chosen
    first = out.split(PROMPT)[0]  # the bots move first in this game (seed 4)
    assert "since the game began:" in first and "since your last decision" not in first
    # always answering [0] passes while chips last: the random agent with p=0 in that seat
    same = play_slow(
        "geschenkt",
        GeschenktRules(**record["rules"]),
        parse_list("greedy,random:p=0,sniper,random", "geschenkt"),
        4,
        0,
        "random",
    )
    assert record["actions"] == [ACTION_NAMES[a] for a in same.actions]
    assert out.count(PROMPT) == sum(" seat 1 passes on " in m for m in moves) > 0
    takes = re.findall(r"^  (?:you|seat \d \(\S+\)) took (\d+)", out, re.MULTILINE)
    assert sorted(map(int, takes)) == sorted(record["deck"])  # each take told once, forced too
    for seat, score in enumerate(record["scores"]):
        assert re.search(rf"seat {seat} \S+\s+score\s+{score} ", out)


def test_a_bot_with_its_own_network_plays_with_that_network(monkeypatch, capsys, tmp_path):
    """``learned:net=FILE`` at the table is that network's play, not the shipped one's: the
    record's actions are the compiled game's with the same specs (the bots' moves are noted
    by a wrapper that keeps the agent's network)."""
    net = "learned:net=docs/responders/geschenkt-3p-greedy.npz"
    args = ("geschenkt", "--players", "3", "--seat", "0", "--vs", f"{net},greedy", "--seed", "3")
    _, record = played(monkeypatch, capsys, tmp_path, args)
    assert record["agents"][::2] == ["human", "greedy"]
    assert record["agents"][1].endswith(net.split("=")[1])  # the file's whole path
    rules = GeschenktRules(**record["rules"])

    def actions(spec):
        agents = parse_list(f"random:p=0,{spec},greedy", "geschenkt")
        return [
            ACTION_NAMES[a] for a in play_slow("geschenkt", rules, agents, 3, 0, "random").actions
        ]

    assert record["actions"] == actions(net) != actions("learned")


def test_a_tulips_game_replays_and_the_record_goes_to_the_default_file(
    monkeypatch, capsys, tmp_path
):
    monkeypatch.chdir(tmp_path)
    code, out, err = play(monkeypatch, capsys, *TULIPS, "--seed", "5")
    assert code == 0, err
    path = tmp_path / "giftsim-play-tulips-5.json"
    assert "record saved to giftsim-play-tulips-5.json" in out
    record = json.loads(path.read_text())
    load_game("tulips").replay(record)
    assert record["agents"] == ["human", "greedy", "hoarder", "random"]
    mine = [[a["action"] for a in t["actions"]] for t in record["turns"] if t["player"] == 0]
    assert mine and all(kinds == ["keep", "festival"][: len(kinds)] for kinds in mine)
    assert out.count(PROMPT) == 1 + sum(len(kinds) for kinds in mine)  # setup, then each card
    assert re.search(r"winners?: |you win!|shared win: ", out)


@pytest.mark.parametrize("args", [NO_THANKS, TULIPS], ids=["geschenkt", "tulips"])
def test_bad_answers_get_a_hint_and_the_question_again(monkeypatch, capsys, tmp_path, args):
    args = (*args, "--seed", "11")
    clean_out, clean = played(monkeypatch, capsys, tmp_path, args)
    out, record = played(monkeypatch, capsys, tmp_path, args, stdin="x\n\n9\n-1\n" + FIRST_CHOICE)
    assert out.count(HINT) == 4 and clean_out.count(HINT) == 0
    assert out.count(PROMPT) == clean_out.count(PROMPT) + 4
    assert record == clean


COMPILING = "giftsim: compiling "  # the notice of a cold cache (its first run in a clone)


@pytest.mark.parametrize("args", [NO_THANKS, TULIPS], ids=["geschenkt", "tulips"])
def test_end_of_input_ends_the_game_with_one_line_and_saves_it_so_far(
    monkeypatch, capsys, tmp_path, args
):
    path = tmp_path / "game.json"
    code, out, err = play(monkeypatch, capsys, *args, "--record", str(path), stdin="0\n0\n")
    assert code == 2
    err = "".join(line for line in err.splitlines(True) if not line.startswith(COMPILING))
    assert err == (
        "giftsim play: error: input ended before the game did; the game so far is saved to "
        f"{path} (unfinished)\n"
    )
    assert out.count(PROMPT) == 3
    record = json.loads(path.read_text())
    assert record["unfinished"] and record["agents"][int(args[4])] == "human"


@pytest.mark.parametrize("signalled", [False, True], ids=["raised", "signalled"])
def test_ctrl_c_saves_the_game_so_far(signalled, monkeypatch, capsys, tmp_path):
    """Ctrl-C at a question: one line saying where the game so far is (also when the stop is
    a real SIGINT, which the command line notes for stops a library loses)."""

    class CtrlC(io.StringIO):
        """Two answers, then Ctrl-C at the third question."""

        def readline(self, *args):
            line = super().readline(*args)
            if not line and signalled:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(5)  # the handler raises here
            if not line:
                raise KeyboardInterrupt
            return line

    path = tmp_path / "game.json"
    monkeypatch.setattr(sys, "stdin", CtrlC("0\n0\n"))
    monkeypatch.setattr(signal, "getsignal", lambda s: signal.default_int_handler)  # a terminal
    code = main(["play", *NO_THANKS, "--seed", "3", "--record", str(path)])
    err = capsys.readouterr().err
    assert (code, err.strip()) == (
        130,
        f"giftsim play: interrupted; the game so far is saved to {path}",
    )
    record = json.loads(path.read_text())
    assert record["unfinished"] and len(record["actions"]) >= 2


def test_a_record_is_never_replaced(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    earlier = tmp_path / "giftsim-play-geschenkt-4.json"
    earlier.write_text("an earlier game")
    code, out, err = play(monkeypatch, capsys, *NO_THANKS, "--seed", "4")
    assert code == 0, err
    assert earlier.read_text() == "an earlier game"
    assert "record saved to giftsim-play-geschenkt-4-2.json" in out
    load_game("geschenkt").replay(
        json.loads((tmp_path / "giftsim-play-geschenkt-4-2.json").read_text())
    )
    code, out, err = play(monkeypatch, capsys, *NO_THANKS, "--seed", "4", "--record", earlier.name)
    assert code == 2 and out == "" and "already exists" in err and "--force" in err
    assert earlier.read_text() == "an earlier game"  # refused before the first move


def seat_rows(out: str) -> list[tuple[int, str, str]]:
    """``(seat, tag, chips)`` of every table row of the No Thanks! screens."""
    rows = re.findall(r"^[ *] seat (\d) (\S+)\s+chips\s+(\S+)", out, re.MULTILINE)
    return [(int(seat), tag, chips) for seat, tag, chips in rows]


@pytest.mark.parametrize("hidden", [True, False])
def test_opponents_chips_show_only_when_the_rules_show_them(monkeypatch, capsys, tmp_path, hidden):
    flags = ("--rule", "chips_visible=false") if hidden else ()
    out, record = played(monkeypatch, capsys, tmp_path, (*NO_THANKS, "--seed", "4", *flags))
    assert record["rules"]["chips_visible"] is not hidden
    rows = seat_rows(out)
    assert rows and all(chips.isdigit() for seat, tag, chips in rows if tag == "you")
    others = {chips for seat, tag, chips in rows if tag != "you"}
    assert (others == {"?"}) if hidden else all(chips.isdigit() for chips in others)
    if hidden:
        assert "no chips" not in out  # a forced take would tell that a seat's chips ran out


def test_the_tulips_screen_never_names_another_seats_secret_card(monkeypatch, capsys, tmp_path):
    out, record = played(monkeypatch, capsys, tmp_path, (*TULIPS, "--seed", "8"))
    before = screen_before_the_end(out)
    mine = " ".join(map(str, record["setup"][0]["secret"]))
    shown = re.findall(r"secret festival: \d+ cards?, yours: (.*)$", before, re.M)
    assert shown[0] == "-" and set(shown[1:]) == {mine}  # none at setup, then only its own
    hidden_moves = re.findall(r"^  seat \d .*(?:face down|chose a bouquet).*$", out, re.M)
    secrets = sum(
        a["action"] == "secret" for t in record["turns"] if t["player"] != 0 for a in t["actions"]
    )
    assert len(hidden_moves) == secrets + 3  # each secret card and each setup choice of a bot
    assert not [line for line in hidden_moves if VARIETY.search(line)]


def tulips_turn_obs(seed: int) -> np.ndarray:
    """The observation of the first seat to draw, after everyone chose at setup."""
    state = new_state()
    deal(TulipsRules().to_array(), seed, 0, 0, state)
    tulips_engine.begin(state)
    for _ in range(4):
        tulips_engine.apply_action(state, SETUP_FIRST)
    obs = np.zeros(tulips_engine.OBS_SIZE, np.int64)
    tulips_engine.observe(state, int(state[tulips_state.TURN]), obs)
    return obs


def with_other_private_view(obs: np.ndarray) -> np.ndarray:
    other = obs.copy()
    other[tulips_state.DRAWN] = (obs[tulips_state.DRAWN] + 4) % 12
    other[tulips_state.HAND : tulips_state.HAND + 2] = [7, 11]
    other[tulips_state.OWN_SECRET] += 1
    return other


def test_a_bots_move_names_its_card_only_when_it_goes_face_up():
    seats = Seats(("greedy", "human", "hoarder", "random"), 1)
    obs = tulips_turn_obs(3)
    other = with_other_private_view(obs)
    for action in (SECRET, SETUP_FIRST, SETUP_SECOND):
        assert tulips_text.event(obs, action, seats) == tulips_text.event(other, action, seats)
    drawn = tulips_text.card_text(obs[tulips_state.DRAWN])
    for action in (KEEP, FESTIVAL, GIVE + 1):
        assert drawn in tulips_text.event(obs, action, seats)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("geschenkt", "--vs", "greedy,greedy"), "--vs names 2 agents, but 4 players leave 3"),
        (("tulips", "--players", "3", "--vs", "greedy,hoarder,random"), "--vs names 3 agents"),
        (("geschenkt", "--vs", "greedy,bogus,sniper"), "unknown agent 'bogus' for geschenkt"),
        (("tulips", "--vs", "greedy,planner:x=1,random"), "has no parameter 'x'"),
        (("tulips", "--seat", "4"), "--seat must be a seat 0..3, got 4"),
        (("tulips", "--rule", "chips_visible=false"), "unknown rule 'chips_visible' for tulips"),
        (("geschenkt", "--rule", "rounds=3"), "play plays one game"),
        (("geschenkt", "--rule", "variant=fast"), "variant must be one of standard, tactical"),
        (("geschenkt", "--record", "pyproject.toml/g.json"), "pyproject.toml is not a folder"),
    ],
)
def test_bad_arguments_give_one_line_and_status_2(monkeypatch, capsys, args, message):
    code, out, err = play(monkeypatch, capsys, *args, "--seed", "1", stdin="")
    assert code == 2 and out == ""
    assert err.startswith("giftsim play: error: ") and err.count("\n") == 1
    assert message in err


@pytest.mark.parametrize(
    ("args", "letter"),
    [(NO_THANKS, "p"), (TULIPS, None)],
    ids=["geschenkt", "tulips"],
)
def test_letters_answer_like_numbers_and_question_mark_helps(
    monkeypatch, capsys, tmp_path, args, letter
):
    args = (*args, "--seed", "11")
    _, clean = played(monkeypatch, capsys, tmp_path, args)
    # Tulips: "a" chooses the first setup option, "k" keeps and "f" adds to the festival,
    # which is what answering 0 does (keep first; after keeping, the festival is option 0)
    answers = "?\n" + ("p\n" * 2000 if letter else "a\n" + "k\nf\n" * 1000)
    by_letter, record = played(monkeypatch, capsys, tmp_path, args, stdin=answers)
    assert record == clean
    assert "?: this help;  q: quit now" in by_letter and HINT not in by_letter
    assert ("[0|p] pass" if letter else "[0|k] keep") in by_letter


def test_q_quits_and_saves_the_game_so_far(monkeypatch, capsys, tmp_path):
    path = tmp_path / "game.json"
    code, out, err = play(
        monkeypatch, capsys, *TULIPS, "--seed", "5", "--record", str(path), stdin="0\ng2\nq\n"
    )
    assert code == 0, err
    record = json.loads(path.read_text())
    assert record["unfinished"] and "scores" not in record and "winners" not in record
    assert record["setup"][0]["bouquet"] is not None
    mine = [a for t in record["turns"] if t["player"] == 0 for a in t["actions"]]
    assert [a["action"] for a in mine] == ["give"] and mine[0]["to"] == 2
    assert "the game so far saved to" in out
    assert main(["replay", str(path)]) == 2
    assert "quit part-way" in capsys.readouterr().err


def test_the_tulips_screen_says_who_starts_and_how_many_secret_cards_count(
    monkeypatch, capsys, tmp_path
):
    out, record = played(monkeypatch, capsys, tmp_path, (*TULIPS, "--seed", "5"))
    first = record["first_player"]
    name = "you" if first == 0 else f"seat {first} ({record['agents'][first]})"
    before = screen_before_the_end(out)
    assert f"first player: {name}; then in seat order" in before
    assert "at the end only 5 of them, at random, or all if fewer, are turned up" in before
    assert len(record["reveal"]) == 5


def test_the_tulips_replay_names_the_cards(tmp_path):
    record = json.loads(
        subprocess.run(
            [sys.executable, "-m", "experiments.cli", "record", "tulips", "--seed", "7"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    lines = load_game("tulips").replay(record)
    move = record["turns"][0]["actions"][0]
    variety, value = move["card"]
    assert f"seat {record['turns'][0]['player']} " in lines[4] and f"{variety} {value}" in lines[4]
    setup = record["setup"][0]
    assert f"puts {' '.join(map(str, setup['bouquet']))} in its bouquet" in lines[0]
    turned = ", ".join(f"{v} {n}" for v, n in record["reveal"])
    assert f"secret festival turned up: {turned}" in lines


def test_the_tulips_rules_in_brief_open_the_game_and_answer_a_question_mark(
    monkeypatch, capsys, tmp_path
):
    path = tmp_path / "game.json"
    rule = ("--rule", "keeping_points=0,1,2,3")  # the points shown are the rules in force
    code, out, err = play(
        monkeypatch, capsys, *TULIPS, "--seed", "5", *rule, "--record", str(path), stdin="?\nq\n"
    )
    assert code == 0, err
    brief = "rules in brief (all of them: docs/rules/gift_of_tulips.md):"
    assert out.count(brief) == 2  # at the start, and after "?"
    assert out.index(brief) < out.index(PROMPT)
    for words in ("you score 0/1/2/3 by its variety's rank", "value + 3/2/1/0", "1st 15/10"):
        assert words in out.replace("\n  ", " ")
    assert all(len(line) <= 80 for line in out.split("\n── ")[0].splitlines()[2:])


def test_the_seed_is_shown_only_once_the_game_is_over(monkeypatch, capsys, tmp_path):
    """With the seed, ``giftsim record`` would show the whole deck: no screen shows it while
    the game is played, only the end (and the saved record)."""
    out, record = played(monkeypatch, capsys, tmp_path, (*NO_THANKS, "--seed", "987654"))
    assert "987654" not in screen_before_the_end(out)
    assert "seed 987654 (the same deal again: --seed 987654)" in out.split("── game over")[1]
    assert record["seed"] == 987654


def test_an_isolated_bot_plays_the_game_it_plays_in_process(monkeypatch, capsys, tmp_path):
    out, record = played(monkeypatch, capsys, tmp_path, (*NO_THANKS, "--seed", "4"))
    isolated, again = played(
        monkeypatch, capsys, tmp_path, (*NO_THANKS, "--seed", "4", "--isolate", "sniper")
    )
    assert again["actions"] == record["actions"] and again["scores"] == record["scores"]
    before_saving = (text.split("record saved to")[0] for text in (isolated, out))
    assert next(before_saving) == next(before_saving)  # the same moves, told the same way

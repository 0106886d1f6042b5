"""Terminal input and output for ``giftsim play``: who sits where, screens and the prompt."""

import textwrap
from dataclasses import dataclass

from agents.drivers.slow import Stopped

HUMAN = "human"  # the spec recorded for the person's seat


class InputEnded(Stopped, EOFError):
    """Standard input ended before the game did (the game so far is saved)."""


class Quit(Stopped):
    """The person answered ``q``: the game ends here and the record so far is saved."""


QUIT, HELP = "q", "?"


@dataclass(frozen=True)
class Seats:
    """The agent spec of every seat (``HUMAN`` at the person's) and the person's seat."""

    specs: tuple[str, ...]
    human: int

    def name(self, seat: int) -> str:
        """How the move log names a seat: "you" or "seat 2 (greedy)"."""
        return "you" if seat == self.human else f"seat {seat} ({self.specs[seat]})"

    def row(self, seat: int) -> str:
        """The left column of a table row, the person's marked with ``*``."""
        mark, tag = ("*", "you") if seat == self.human else (" ", self.specs[seat])
        return f"{mark} seat {seat} {tag:<10}"


class Console:
    """Lines out, numbered choices in; the streams are injectable for tests."""

    def __init__(self, stdin, stdout, rules=(), where: str = ""):
        self.stdin, self.stdout = stdin, stdout
        self.rules, self.where = list(rules), where  # the rules in brief, and the full ones

    def show(self, lines) -> None:
        for line in lines:
            print(line, file=self.stdout)

    def choose(self, labels: list[str], keys: list[str]) -> int:
        """The index of the choice the person picks, by number or by its letter key; ``?``
        explains the answers, ``q`` quits. Asks again until the answer is one of them."""
        self.show(menu(labels, keys))
        last = len(labels) - 1
        while True:
            answer = self._ask(f"your choice [0-{last} or {'/'.join(keys)}; ? help, q quit]: ")
            if answer.isascii() and answer.isdigit() and int(answer) <= last:
                return int(answer)
            if answer.lower() in keys:
                return keys.index(answer.lower())
            if answer == QUIT:
                raise Quit()
            if answer == HELP:
                self.show(_help(labels, keys))
                self.show(self.brief())
                continue
            self.show([f"  please enter one of the numbers 0..{last} or letters in brackets"])

    def brief(self) -> list[str]:
        """The rules in brief, and where the full rules are (lines within 80 columns)."""
        if not self.rules:
            return []
        lines = [f"rules in brief (all of them: {self.where}):"]
        for item in self.rules:
            lines += textwrap.wrap(item, 78, initial_indent="- ", subsequent_indent="  ")
        return lines

    def _ask(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            self.show([""])
            raise InputEnded("input ended before the game did")
        return line.strip()


def menu(labels: list[str], keys: list[str]) -> list[str]:
    """Numbered choices with their letter keys, on one line when they fit."""
    items = [
        f"[{i}|{key}] {label}" for i, (key, label) in enumerate(zip(keys, labels, strict=True))
    ]
    one_line = "  ".join(items)
    return [one_line] if len(one_line) <= 96 else items


def _help(labels: list[str], keys: list[str]) -> list[str]:
    return [
        "  answer with a choice's number or its letters:",
        *(
            f"    {i} or {key}: {label}"
            for i, (key, label) in enumerate(zip(keys, labels, strict=True))
        ),
        f"    {HELP}: this help;  {QUIT}: quit now (the game so far is saved as a record)",
    ]


def count(n, noun: str) -> str:
    """``1 chip``, ``3 chips``."""
    n = int(n)
    return f"{n} {noun}{'' if n == 1 else 's'}"


def rule(title: str) -> str:
    """A heading line between screens."""
    return f"\n── {title} " + "─" * max(3, 60 - len(title))

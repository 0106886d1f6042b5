"""The command line's argument types and parser: each option's value checked as it is read,
with a message that names the valid range, and a parser whose every usage error is one line
and exit status 2 (``experiments.cli`` builds the commands from these)."""

import argparse
from pathlib import Path

from experiments.seeds import CONFIRM_SEED_OFFSET, EVALUATION_SEED_OFFSET
from experiments.words import repeated


class Help(argparse.RawDescriptionHelpFormatter):
    """Help that shows each option's default (unless it has none or says it itself) and
    keeps the example's line breaks."""

    def _get_help_string(self, action):
        text = action.help or ""
        none = action.default is None or action.default is False  # 0 is a default to show
        silent = none or action.default == argparse.SUPPRESS or "default" in text
        return text if silent or not action.option_strings else f"{text} (default: %(default)s)"


def player_counts(text: str) -> list[int]:
    """``--players`` of a command that plays several counts: whole numbers separated by
    commas, each once (an empty item is a typing slip, not a count left out); the game
    checks that it takes them."""
    try:
        counts = [int(item) for item in text.split(",")]
    except ValueError:
        counts = []
    if not counts:
        raise ValueError(f"--players takes whole numbers separated by commas, got {text!r}")
    if twice := repeated(counts):
        raise ValueError(f"--players lists {twice[0]} twice; list each player count once")
    return counts


def seed(text: str, most: int | None = None, why: str = "") -> int:
    """An argparse type: a root seed, a whole number in 0..2**64-1 (``giftsim.rng``), or
    in 0..``most`` where the command needs room above it (``why``)."""
    from giftsim.rng import MAX_SEED

    most = MAX_SEED if most is None else most
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= most:
        limit = {MAX_SEED: "2**64-1", 2**63 - 1: "2**63-1"}.get(most, f"{most:,}")
        raise argparse.ArgumentTypeError(
            f"a seed is a whole number in 0..{limit}{why}, got {text!r}"
        )
    return value


def query_seed(text: str) -> int:
    """``solve``'s key of the queries' streams (an int64 slot)."""
    return seed(text, 2**63 - 1)


def tune_seed(text: str) -> int:
    """``tune``'s seed: its final score plays on seed + 2**32."""
    from giftsim.rng import MAX_SEED

    return seed(text, MAX_SEED - EVALUATION_SEED_OFFSET, " (the score plays on seed + 2**32)")


def train_seed(text: str) -> int:
    """``train``'s seed: its held-out and fresh deals are seed + 2**40 and + 2**41."""
    from giftsim.rng import MAX_SEED

    return seed(text, MAX_SEED - CONFIRM_SEED_OFFSET, " (the fresh deals are seed + 2**41)")


def workers(text: str) -> int:
    """An argparse type: worker processes, a whole number >= 1 (the cap: ``_check_workers``)."""
    return _at_least_one(text, "worker processes")


def chunk_size(text: str) -> int:
    """An argparse type: games per chunk, a whole number >= 1 (checked with the other
    options, before anything is printed)."""
    return _at_least_one(text, "games per chunk")


def whole(valid: str):
    """An argparse type: a whole number, where ``valid`` words the option's range for the
    message (the range itself is checked with the other options, where the game is known)."""
    return _number(int, valid)


def real(valid: str):
    """An argparse type: a number, where ``valid`` words the option's range for the message
    (checked where the option is used)."""
    return _number(float, valid)


def _number(kind, valid: str):
    def number(text: str):
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{valid}, got {text!r}") from None

    number.__name__ = kind.__name__  # argparse names the type in some messages
    return number


def _at_least_one(text: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{what} are a whole number >= 1, got {text!r}")
    return value


MAX_HELD = 10_000_000  # deals of a study whose games are held in memory (tune, ladder)


MAX_RUN = 2 * 10**12  # games of a run: runner.MAX_CHUNKS chunks of runner.MAX_CHUNK_SIZE


def run_games(text: str) -> int:
    """An argparse type: games per seating of a run, a whole number up to ``MAX_RUN`` (the
    lower limit, and the run's whole size, are checked with the design)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"games are a whole number, got {text!r}") from None
    if value > MAX_RUN:
        raise argparse.ArgumentTypeError(
            f"at most {MAX_RUN:,} games a seating (a run holds at most a million chunks of "
            f"2,000,000 games), got {text!r}"
        )
    return value


MORE_DEALS = " (more: giftsim tournament --out, which writes as it plays)"


def held_deals(text: str, least: int = 0, more: str = MORE_DEALS) -> int:
    """An argparse type: deals of a study played in memory, a whole number in
    ``least``..MAX_HELD (``more``: where to go for more, in the message)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not least <= value <= MAX_HELD:
        raise argparse.ArgumentTypeError(
            f"deals played in memory are a whole number in {least}..{MAX_HELD:,}{more}, got "
            f"{text!r}"
        )
    return value


def held_pairs(text: str) -> int:
    """``held_deals`` of at least 2 (an interval needs two deals), for ``tune``."""
    return held_deals(text, 2, more="")


def gigabytes(text: str) -> float:
    """An argparse type: a memory limit, a positive finite number of GB."""
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"a positive number of GB, got {text!r}")
    return value


def folder(text: str) -> Path:
    """A folder's path; an empty or blank name is refused (Path reads "" as this folder, so
    ``--out ""`` wrote a run's files among whatever the working folder held)."""
    return _named(text, "folder")


def file(text: str) -> Path:
    """A file's path; an empty or blank name is refused."""
    return _named(text, "file")


def _named(text: str, kind: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError(f"an empty name; name a {kind}")
    return Path(text)


class Once(argparse._StoreAction):
    """An option that takes one value: given twice, it is refused (argparse keeps the last,
    so ``--games 10 --games 20`` ran another experiment than the first value says)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.given = None

    def __call__(self, parser, namespace, values, option_string=None):
        if self.given is not None and option_string is not None:
            parser.error(
                f"argument {option_string}: given twice ({self.given} and {values}); give it once"
            )
        self.given = values
        super().__call__(parser, namespace, values, option_string)


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (with a hint to --help) and exit status 2, an
    option is only its whole name (an abbreviation such as ``--agents`` for
    ``--agents-module`` would run another experiment than the one typed), and an option of
    one value is given at most once (:class:`Once`)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.words = None  # what was typed to this parser, for error() (parse_known_args)
        self.register("action", None, Once)
        self.register("action", "store", Once)

    def parse_known_args(self, args=None, namespace=None):
        self.words = None if args is None else list(args)
        return super().parse_known_args(args, namespace)

    def error(self, message):
        """One line; where a command's words hold an option it does not know, that is the
        error said (argparse would first say what it missed or misread because of it: ``tune
        --fam sniper`` read ``sniper`` as the game, ``--family`` as missing)."""
        if unknown := self.unknown_options():
            message = f"unrecognized arguments: {' '.join(unknown)}"
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def unknown_options(self) -> list[str]:
        """The words typed to this command (not to ``giftsim`` itself, whose words hold the
        command's options) that look like an option and are none of its own."""
        if self._subparsers is not None or not self.words:
            return []
        words = self.words[: self.words.index("--")] if "--" in self.words else self.words
        return [
            word
            for word in words
            if word.startswith("-")
            and word != "-"  # standard input or output, as a value
            and not self._negative_number_matcher.match(word)
            and word.split("=", 1)[0] not in self._option_string_actions
        ]

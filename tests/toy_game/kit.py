"""Hidden Pile's kit for the game contract test (``tests/kits.py`` says what each verb is)."""

from tests.toy_game.engine import FIRST, OWN_SECRET, PILE, SEAT, SECRETS
from tests.toy_game.reference import ReferenceGame
from tests.toy_game.rules import MAX_PLAYERS, Rules


def variants(n: int) -> list[Rules]:
    return [Rules(n_players=n), Rules(n_players=n, min_pile=1, max_pile=4, big_takes=0)]


def hidden_slots(state, seat) -> list[int]:
    """The pile, the others' secrets, and the slots ``observe`` rewrites for the seat."""
    others = [SECRETS + p for p in range(MAX_PLAYERS) if p != seat]
    return [SEAT, OWN_SECRET, PILE, *others]


def twin(rules, start, final) -> ReferenceGame:
    secrets = [int(s) for s in start[SECRETS : SECRETS + rules.n_players]]
    return ReferenceGame(rules, int(start[PILE]), secrets, int(start[FIRST]))

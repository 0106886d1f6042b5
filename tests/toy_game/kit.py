"""Hidden Pile's kit for the game contract test (``tests/kits.py`` says what each verb is)."""

from tests.kits import outcomes_of
from tests.toy_game.engine import FIRST, OWN_SECRET, PILE, SEAT, SECRETS, STATE_SIZE
from tests.toy_game.reference import ReferenceGame
from tests.toy_game.rules import MAX_PLAYERS, Rules


def variants(n: int) -> list[Rules]:
    return [Rules(n_players=n), Rules(n_players=n, min_pile=1, max_pile=4, big_takes=0)]


def hidden_slots(state, seat) -> list[int]:
    """The pile, the others' secrets, and the slots ``observe`` rewrites for the seat."""
    others = [SECRETS + p for p in range(MAX_PLAYERS) if p != seat]
    return [SEAT, OWN_SECRET, PILE, *others, *range(SECRETS + MAX_PLAYERS, STATE_SIZE)]


def twin(rules, start, final) -> ReferenceGame:
    secrets = [int(s) for s in start[SECRETS : SECRETS + rules.n_players]]
    return ReferenceGame(rules, int(start[PILE]), secrets, int(start[FIRST]))


def explicit_twin(rules, steps, final) -> ReferenceGame:
    first = outcomes_of(steps, "first seat") or [rules.first_player]
    pile = rules.min_pile + outcomes_of(steps, "pile")[0]
    return ReferenceGame(rules, pile, outcomes_of(steps, "secret"), first[0])


def expected_chance(rules, before, twin):
    """The pile (seen by nobody), each seat's secret (by it), a drawn first seat (by all)."""
    secrets, everyone = len(outcomes_of(before, "secret")), frozenset(range(rules.n_players))
    if not outcomes_of(before, "pile"):
        return "pile", dict.fromkeys(range(rules.max_pile - rules.min_pile + 1), 1), frozenset()
    if secrets < rules.n_players:
        return "secret", dict.fromkeys(range(3), 1), frozenset([secrets])
    return "first seat", dict.fromkeys(everyone, 1), everyone

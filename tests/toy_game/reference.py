"""Plain-Python twin of Hidden Pile, written from the rules card alone (no engine imports)."""

from tests.toy_game.rules import TAKE3


class ReferenceGame:
    """One game, one action (take ``action + 1`` stones) at a time."""

    def __init__(self, rules, pile: int, secrets: list[int], first_player: int):
        self.rules, self.pile, self.secrets = rules, pile, list(secrets)
        self.turn, self.taken, self.loser = first_player, 0, None
        self.big_left = [rules.big_takes] * rules.n_players

    def legal_actions(self) -> list[int]:
        if self.loser is not None:
            return []
        return [0, 1, 2] if self.big_left[self.turn] else [0, 1]

    def apply(self, action: int) -> None:
        assert action in self.legal_actions()
        self.taken += action + 1
        self.big_left[self.turn] -= action == TAKE3
        if self.taken >= self.pile:
            self.loser = self.turn
        else:
            self.turn = (self.turn + 1) % self.rules.n_players

    def scores(self) -> list[int]:
        return [0 if p == self.loser else 1 + s for p, s in enumerate(self.secrets)]

    def winners(self) -> list[int]:
        best = max(self.scores())
        return [p for p, score in enumerate(self.scores()) if score == best]

"""Hidden Pile game records: JSON export, and replay that re-derives and checks every number.

Record keys: ``game`` ("toy"), ``rules``, ``pile``, ``secrets``, ``first_player``, ``actions``
("take1".."take3"), ``scores``, ``winners``, and any ``meta`` (agents, seed, game index).
"""

import numpy as np

from giftsim.records import RecordError, check_header, expect, seats_of
from tests.toy_game.engine import (
    FIRST,
    PILE,
    SECRETS,
    STATE_SIZE,
    apply_action,
    legal_mask,
    scores,
    set_deal,
    winner_mask,
)
from tests.toy_game.rules import ACTION_NAMES, Rules

REQUIRED = ("game", "rules", "pile", "secrets", "first_player", "actions", "scores", "winners")


def make_record(rules: Rules, start: np.ndarray, actions, meta: dict) -> dict:
    """The JSON-ready record of a game from its start state and actions (replayed to score it)."""
    final = _final(rules, start, actions)
    return {
        "game": "toy",
        "rules": rules.as_dict(),
        "pile": int(start[PILE]),
        "secrets": [int(s) for s in start[SECRETS : SECRETS + rules.n_players]],
        "first_player": int(start[FIRST]),
        "actions": [ACTION_NAMES[a] for a in actions],
        **_results(rules, final),
        **meta,
    }


def replay(record: dict) -> list[str]:
    """Re-derive the game of a record and check its numbers; the moves as text lines."""
    check_header(record, "toy", REQUIRED)
    try:
        rules = Rules(**record["rules"])
        start = np.zeros(STATE_SIZE, np.int64)
        secrets = np.array(record["secrets"], np.int64)
        set_deal(rules.to_array(), record["pile"], secrets, record["first_player"], start)
        actions = [ACTION_NAMES.index(name) for name in record["actions"]]
    except (TypeError, ValueError) as error:
        raise RecordError(f"deal: {error}") from None
    results = _results(rules, _final(rules, start, actions))
    for key in ("scores", "winners"):
        expect(key, record[key], results[key])
    return [f"{i + 1}. {ACTION_NAMES[a]}" for i, a in enumerate(actions)]


def _final(rules: Rules, start: np.ndarray, actions) -> np.ndarray:
    state = start.copy()
    for i, action in enumerate(actions):
        if not (legal_mask(state) >> action) & 1:
            raise RecordError(f"actions[{i}]: {ACTION_NAMES[action]!r} is illegal")
        apply_action(state, action)
    if legal_mask(state):
        raise RecordError(f"actions: the game is not over after {len(actions)} actions")
    return state


def _results(rules: Rules, state: np.ndarray) -> dict:
    out = np.zeros(rules.n_players, np.int64)
    scores(state, out)
    return {"scores": [int(s) for s in out], "winners": seats_of(winner_mask(state))}

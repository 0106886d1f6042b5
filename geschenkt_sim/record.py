"""No Thanks! game records: JSON export, replay with full validation, move-by-move text.

Record keys: ``game`` ("geschenkt"), ``rules`` (``n_players``, ``chips_per_player``,
``n_removed`` and the other :class:`Rules` fields), ``deck`` (the played cards in turn-up
order), ``removed``, ``first_player`` (0-based seat), ``actions`` ("take"/"pass" in order of
play), ``scores`` (final score per seat), ``winners`` (seats with the lowest score), ``agents``,
``seed``, ``game_index``.

A match of several rounds (``rules.rounds > 1``) is recorded as ``game``, ``rules``, ``rounds``
(one record of the above kind per round, each under the same rules with ``rounds`` 1),
``scores`` (the totals), ``winners`` (lowest total), ``agents``, ``seed``, ``game_index``.
"""

from dataclasses import replace

import numpy as np

from geschenkt_sim.engine import apply_action, is_legal, is_over
from geschenkt_sim.rules import ACTION_NAMES, TAKE, Rules
from geschenkt_sim.scoring import lowest_mask, scores, winner_mask
from geschenkt_sim.state import (
    CARD,
    CHIPS,
    FIRST,
    POT,
    REMOVED,
    TURN,
    cards_of,
    deck_of,
    new_state,
    set_deal,
)
from giftsim.records import RecordError, check_header, expect, rules_of, seats_of

REQUIRED = ("game", "rules", "deck", "removed", "first_player", "actions", "scores", "winners")
REQUIRED_MATCH = ("game", "rules", "rounds", "scores", "winners")


def make_record(rules: Rules, start: np.ndarray, actions, meta: dict) -> dict:
    """The JSON-ready record of a game from its start state and actions (replayed to score it)."""
    final = _replay_states(rules, start, actions)[-1]
    final_scores = _scores(rules, final)
    return {
        **_moves(rules, start, actions),
        "scores": final_scores,
        "winners": seats_of(winner_mask(final)),
        **meta,
    }


def unfinished_record(rules: Rules, start: np.ndarray, actions, meta: dict) -> dict:
    """The record of a game stopped part-way (``giftsim play``'s quit): its moves so far."""
    return {**_moves(rules, start, actions), **meta, "unfinished": True}


def _moves(rules: Rules, start: np.ndarray, actions) -> dict:
    return {
        "game": "geschenkt",
        "rules": replace(rules, rounds=1).as_dict(),
        "deck": deck_of(start),
        "removed": cards_of(start[REMOVED]),
        "first_player": int(start[FIRST]),
        "actions": [ACTION_NAMES[a] for a in actions],
    }


def make_match_record(rules: Rules, rounds, meta: dict) -> dict:
    """The record of a match from ``(start state, actions)`` per round: every round's record
    and the total scores (lowest total wins)."""
    records = [make_record(rules, start, actions, {}) for start, actions in rounds]
    totals = [sum(r["scores"][p] for r in records) for p in range(rules.n_players)]
    return {
        "game": "geschenkt",
        "rules": rules.as_dict(),
        "rounds": records,
        "scores": totals,
        "winners": seats_of(lowest_mask(np.array(totals, np.int64))),
        **meta,
    }


def replay(record: dict) -> list[str]:
    """Re-derive every state of a record, check it, and return the game move by move.

    Raises :class:`RecordError` naming the first entry that is wrong.
    """
    if isinstance(record, dict) and "rounds" in record:
        return _replay_match(record)
    rules, start, actions = _parse(record)
    states = _replay_states(rules, start, actions)
    final_scores = _scores(rules, states[-1])
    expect("scores", record["scores"], final_scores)
    winners = seats_of(winner_mask(states[-1]))
    expect("winners", record["winners"], winners)
    return _describe(states, actions, final_scores, winners)


def _replay_match(record: dict) -> list[str]:
    """Replay every round of a match record and check its totals and winners."""
    check_header(record, "geschenkt", REQUIRED_MATCH)
    rules = _rules(record["rules"])
    rounds = record["rounds"]
    if not isinstance(rounds, list) or len(rounds) != rules.rounds:
        raise RecordError(f"rounds: expected a list of {rules.rounds} round records")
    lines, totals = [], [0] * rules.n_players
    for r, game in enumerate(rounds):
        if not isinstance(game, dict) or game.get("rules") != replace(rules, rounds=1).as_dict():
            raise RecordError(f"rounds[{r}].rules: expected the match's rules with rounds 1")
        try:
            lines += [f"round {r + 1}: {line}" for line in replay(game)]
        except RecordError as error:
            raise RecordError(f"rounds[{r}].{error}") from None
        totals = [t + s for t, s in zip(totals, game["scores"], strict=True)]
    expect("scores", record["scores"], totals)
    winners = seats_of(lowest_mask(np.array(totals, np.int64)))
    expect("winners", record["winners"], winners)
    lines.append(f"match scores: {totals}  winners: {winners}")
    return lines


def _parse(record: dict):
    check_header(record, "geschenkt", REQUIRED)
    rules = _rules(record["rules"])
    start = _start(rules, record)
    return rules, start, _actions(record["actions"])


def _rules(fields) -> Rules:
    return rules_of(Rules, fields)


def _start(rules: Rules, record: dict) -> np.ndarray:
    deck, removed = record["deck"], record["removed"]
    full = list(range(rules.lowest_card, rules.highest_card + 1))
    if not isinstance(deck, list) or not isinstance(removed, list):
        raise RecordError("deck, removed: expected lists of card numbers")
    if not all(type(c) is int for c in [*deck, *removed]) or sorted(deck + removed) != full:
        raise RecordError(f"deck, removed: together they must hold each card {full[0]}..{full[-1]}")
    if len(removed) != rules.n_removed:
        raise RecordError(f"removed: expected {rules.n_removed} cards, got {len(removed)}")
    if any(c not in removed for c in rules.forced_removed):
        raise RecordError(f"removed: this variant always removes {rules.forced_removed}")
    first = record["first_player"]
    if type(first) is not int or not 0 <= first < rules.n_players:
        raise RecordError(f"first_player: expected a seat 0..{rules.n_players - 1}, got {first!r}")
    state = new_state()
    mask = sum(1 << c for c in removed)
    set_deal(rules.to_array(), np.array(deck, np.int64), mask, first, state)
    return state


def _actions(names) -> list[int]:
    if not isinstance(names, list):
        raise RecordError("actions: expected a list of 'take'/'pass'")
    for i, name in enumerate(names):
        if name not in ACTION_NAMES:
            raise RecordError(f"actions[{i}]: expected 'take' or 'pass', got {name!r}")
    return [ACTION_NAMES.index(name) for name in names]


def _replay_states(rules: Rules, start: np.ndarray, actions) -> list[np.ndarray]:
    states = [start.copy()]
    state = start.copy()
    for i, action in enumerate(actions):
        if not is_legal(state, action):
            why = "the game is over" if is_over(state) else "a seat without chips must take"
            raise RecordError(f"actions[{i}]: {ACTION_NAMES[action]!r} is illegal ({why})")
        apply_action(state, action)
        states.append(state.copy())
    if not is_over(state):
        raise RecordError(f"actions: the game is not over after {len(actions)} actions")
    return states


def _scores(rules: Rules, state: np.ndarray) -> list[int]:
    out = np.zeros(rules.n_players, np.int64)
    scores(state, out)
    return [int(s) for s in out]


def _describe(states, actions, final_scores, winners) -> list[str]:
    lines = []
    for i, (before, action) in enumerate(zip(states, actions, strict=False)):
        seat, card, pot = int(before[TURN]), int(before[CARD]), int(before[POT])
        chips = int(before[CHIPS + seat])
        verb = "takes" if action == TAKE else "passes on"
        lines.append(f"{i + 1:4d}. seat {seat} {verb} {card:2d} (pot {pot}, own chips {chips})")
    lines.append(f"scores: {final_scores}  winners: {winners}")
    return lines

"""Gift of Tulips game records: JSON export, replay with full validation, move-by-move text.

A card is written ``[variety, value]`` with variety one of "purple", "blue", "pink", "orange".
Record keys: ``game`` ("tulips"), ``rules`` (``n_players``, ``n_removed`` and the other
:class:`Rules` fields), ``removed``, ``seeding`` (the cards drawn to seed the festival, in order:
the first, any of its variety that went back, the second), ``festival_start`` (1st place
first), ``unused`` (cards the game end left in the deck, rules ``game_end``), ``setup`` (per seat
``{"bouquet": card, "secret": card}``), ``first_player``, ``turns`` (``{"player": seat,
"actions": [...]}``, each action ``{"card", "action": keep|give|festival|secret, "to" (give
only), "points"}``), ``reveal`` (secret cards turned up at the end, in order), ``scores``,
``breakdown`` (per seat ``{"give", "keep", "majority"}``), ``winners``, ``agents``, ``seed``,
``game_index``.
"""

import numpy as np

from giftsim.records import RecordError, check_header, expect, rules_of, seats_of
from tulips_sim.engine import add_faceup, apply_action, begin, is_legal, is_over
from tulips_sim.rules import (
    FESTIVAL,
    GAME_ENDS,
    GIVE,
    KEEP,
    MAX_SEED_DRAWS,
    N_TYPES,
    SECRET,
    SETUP_FIRST,
    VARIETIES,
    Rules,
    unused_cards,
)
from tulips_sim.scoring import final_scores, majority_points, winner_mask
from tulips_sim.state import (
    DEALT,
    DECK,
    DECK_N,
    DRAWN,
    FIRST,
    GIVE_POINTS,
    KEEP_POINTS,
    MAJORITY_PTS,
    N_REVEALED,
    PHASE,
    PILE,
    REMOVED,
    REVEALED,
    SECOND_DRAW,
    SECRET_SIZE,
    SEED_DRAWS,
    SEED_N,
    START,
    TURN,
    card_of,
    card_type,
    new_state,
    set_deal,
    value_of,
    variety_of,
)

RECORD_ACTIONS = {KEEP: "keep", FESTIVAL: "festival", SECRET: "secret"}  # else "give"
REQUIRED = (
    "game",
    "rules",
    "removed",
    "festival_start",
    "setup",
    "first_player",
    "turns",
    "reveal",
    "scores",
    "breakdown",
    "winners",
)


def card_json(card: int) -> list:
    variety, value = card_of(card)
    return [VARIETIES[variety], value]


def make_record(rules: Rules, start: np.ndarray, actions, meta: dict) -> dict:
    """The JSON-ready record of a game from its start state and its actions."""
    n = rules.n_players
    state = start.copy()
    setup = [{"bouquet": None, "secret": None} for _ in range(n)]
    turns = []
    for action in actions:
        _log(state, action, setup, turns)
        apply_action(state, action)
    return {
        "game": "tulips",
        "rules": rules.as_dict(),
        "removed": [card_json(t) for t in range(N_TYPES) for _ in range(start[REMOVED + t])],
        "seeding": [card_json(start[SEED_DRAWS + i]) for i in range(start[SEED_N])],
        "festival_start": [card_json(start[START]), card_json(start[START + 1])],
        "unused": [card_json(c) for c in start[DECK + start[DECK_N] : DECK + rules.deck_size]],
        "setup": setup,
        "first_player": int(start[FIRST]),
        "turns": turns,
        "reveal": [card_json(c) for c in _revealed(state)],
        **_results(state, n),
        **meta,
    }


def unfinished_record(rules: Rules, start: np.ndarray, actions, meta: dict) -> dict:
    """The record of a game stopped part-way (``giftsim play``'s quit): its moves so far."""
    record = make_record(rules, start, actions, meta)
    for key in ("reveal", "scores", "breakdown", "winners"):  # results of a finished game
        del record[key]
    return {**record, "unfinished": True}


def _log(state, action, setup, turns) -> None:
    """Append the record entry of ``action`` about to be applied to ``state``."""
    seat = int(state[TURN])
    if action >= SETUP_FIRST:
        pick = action - SETUP_FIRST
        pair = [int(state[DEALT + 2 * seat]), int(state[DEALT + 2 * seat + 1])]
        setup[seat] = {"bouquet": card_json(pair[pick]), "secret": card_json(pair[1 - pick])}
        return
    card = int(state[DRAWN])
    before = int(state[GIVE_POINTS + seat] + state[KEEP_POINTS + seat])
    entry = {"card": card_json(card), "action": RECORD_ACTIONS.get(action, "give")}
    if action >= GIVE:
        entry["to"] = int(action - GIVE)
    after = state.copy()
    apply_action(after, action)
    entry["points"] = int(after[GIVE_POINTS + seat] + after[KEEP_POINTS + seat]) - before
    if not turns or turns[-1]["player"] != seat or len(turns[-1]["actions"]) == 2:
        turns.append({"player": seat, "actions": []})
    turns[-1]["actions"].append(entry)


def _revealed(state) -> list[int]:
    cards = []
    for i in range(min(int(state[N_REVEALED]), int(state[SECRET_SIZE]))):
        cards.append(int(state[REVEALED + i]))
    return cards


def _results(state, n) -> dict:
    out = np.zeros(n, np.int64)
    final_scores(state, out)
    breakdown = [
        {
            "give": int(state[GIVE_POINTS + p]),
            "keep": int(state[KEEP_POINTS + p]),
            "majority": int(state[MAJORITY_PTS + p]),
        }
        for p in range(n)
    ]
    winners = seats_of(winner_mask(state))
    return {"scores": [int(s) for s in out], "breakdown": breakdown, "winners": winners}


# ---------------------------------------------------------------------------------- replay


def replay(record: dict) -> list[str]:
    """Re-derive every state of a record, check every rule and number, and return the game
    move by move. Raises :class:`RecordError` naming the first entry that is wrong."""
    rules, state, actions = _parse(record)
    lines = []
    for where, action, points, player, index in actions:
        lines.append(_step(state, where, action, points, player, index))
    if not is_over(state):
        raise RecordError("turns: the game is not over after the recorded turns")
    _apply_reveal(rules, state, record["reveal"])
    turned = ", ".join(f"{v} {n}" for v, n in record["reveal"]) or "none"
    lines.append(f"secret festival turned up: {turned}")
    results = _results(state, rules.n_players)
    for key in ("scores", "breakdown", "winners"):
        expect(key, record[key], results[key])
    lines.append(f"scores: {results['scores']}  winners: {results['winners']}")
    return lines


def _parse(record):
    check_header(record, "tulips", REQUIRED)
    rules = rules_of(Rules, {k: _tuples(v) for k, v in record["rules"].items()})
    setup = _setup(record["setup"], rules.n_players)
    turn_cards, actions = _turns(record["turns"], rules.n_players)
    state = _start_state(rules, record, setup, turn_cards)
    setup_actions = [(f"setup[{s}]", SETUP_FIRST, None, s, 0) for s in range(rules.n_players)]
    return rules, state, setup_actions + actions


def _tuples(value):
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def _is_int(value) -> bool:
    """A JSON whole number (not a bool, not a float)."""
    return type(value) is int


def _entry(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise RecordError(f"{where}: expected an object, got {value!r}")
    return value


def _card(value, where: str) -> int:
    ok = isinstance(value, list) and len(value) == 2 and value[0] in VARIETIES
    if not ok or not _is_int(value[1]) or value[1] not in (2, 3, 4):
        raise RecordError(
            f"{where}: a card is [variety, value] with variety one of "
            f"{', '.join(VARIETIES)} and value 2..4, got {value!r}"
        )
    return int(card_type(VARIETIES.index(value[0]), value[1]))


def _setup(entries, n: int) -> list[tuple[int, int]]:
    if not isinstance(entries, list) or len(entries) != n:
        raise RecordError(f"setup: expected one entry per seat ({n})")
    return [
        (
            _card(_entry(e, f"setup[{s}]").get("bouquet"), f"setup[{s}].bouquet"),
            _card(e.get("secret"), f"setup[{s}].secret"),
        )
        for s, e in enumerate(entries)
    ]


def _turns(turns, n: int):
    """Cards in draw order and ``(where, action id, points, player)`` per recorded action."""
    if not isinstance(turns, list):
        raise RecordError("turns: expected a list")
    cards, actions = [], []
    for t, turn in enumerate(turns):
        turn = _entry(turn, f"turns[{t}]")
        player, entries = turn.get("player"), turn.get("actions")
        if not _is_int(player) or not 0 <= player < n:
            raise RecordError(f"turns[{t}].player: expected a seat 0..{n - 1}, got {player!r}")
        if not isinstance(entries, list) or not 1 <= len(entries) <= 2:
            raise RecordError(f"turns[{t}].actions: expected a list of one or two actions")
        for a, entry in enumerate(entries):
            where = f"turns[{t}].actions[{a}]"
            entry = _entry(entry, where)
            cards.append(_card(entry.get("card"), f"{where}.card"))
            points = entry.get("points")
            if not _is_int(points):
                raise RecordError(f"{where}.points: expected a whole number, got {points!r}")
            actions.append((where, _action_id(entry, where, n), points, player, a))
    return cards, actions


def _action_id(entry, where: str, n: int) -> int:
    name = entry.get("action")
    if name == "give":
        to = entry.get("to")
        if not _is_int(to) or not 0 <= to < n:
            raise RecordError(f"{where}.to: expected a seat 0..{n - 1}, got {to!r}")
        return GIVE + to
    ids = {v: k for k, v in RECORD_ACTIONS.items()}
    if name not in ids:
        raise RecordError(f"{where}.action: expected keep, give, festival or secret, got {name!r}")
    return ids[name]


def _start_state(rules, record, setup, turn_cards) -> np.ndarray:
    for key in ("festival_start", "removed", "reveal", "seeding", "unused"):
        if not isinstance(record.get(key, []), list):
            raise RecordError(f"{key}: expected a list of cards")
    start = [_card(c, f"festival_start[{i}]") for i, c in enumerate(record["festival_start"])]
    seeding = [_card(c, f"seeding[{i}]") for i, c in enumerate(record.get("seeding", []))]
    unused = [_card(c, f"unused[{i}]") for i, c in enumerate(record.get("unused", []))]
    removed = np.zeros(N_TYPES, np.int64)
    for i, c in enumerate(record["removed"]):
        removed[_card(c, f"removed[{i}]")] += 1
    _check_composition(rules, removed, start, setup, turn_cards + unused)
    if seeding:
        _check_seeding(rules, seeding, start)
    pile = turn_cards + unused
    expected = unused_cards(len(pile), rules.n_players, GAME_ENDS.index(rules.game_end))
    if len(unused) != expected:
        raise RecordError(
            f"unused: game_end={rules.game_end} leaves {expected} of these {len(pile)} cards "
            f"undrawn, the record {len(unused)}"
        )
    first = record["first_player"]
    if not _is_int(first) or not 0 <= first < rules.n_players:
        raise RecordError(f"first_player: expected a seat 0..{rules.n_players - 1}, got {first!r}")
    state = new_state()
    dealt = np.array([c for pair in setup for c in pair], np.int64)
    set_deal(
        rules.to_array(),
        np.array(start, np.int64),
        dealt,
        np.array(pile, np.int64),
        removed,
        first,
        0,
        state,
    )
    if seeding:
        state[SEED_N] = len(seeding)
        state[SEED_DRAWS : SEED_DRAWS + len(seeding)] = seeding
    state[N_REVEALED] = 0  # the replay turns up the recorded cards itself
    begin(state)
    return state


def _check_seeding(rules, seeding, start) -> None:
    """The seeding draws (rules §3.5): a first card, any number of its variety (they went
    back), then a card of another variety; the higher value goes 1st, on equal values the
    first drawn (unless ``seeding_tie="random"``)."""
    first, last = seeding[0], seeding[-1]
    if len(seeding) > MAX_SEED_DRAWS or len(seeding) < 2:
        raise RecordError(f"seeding: expected 2..{MAX_SEED_DRAWS} cards")
    if any(variety_of(c) != variety_of(first) for c in seeding[:-1]):
        raise RecordError("seeding: every card before the last is of the first card's variety")
    if variety_of(last) == variety_of(first):
        raise RecordError("seeding: the last card is of another variety than the first")
    if sorted(start) != sorted([first, last]):
        raise RecordError("festival_start: the first and the last seeding cards")
    if value_of(first) != value_of(last) or rules.seeding_tie == "random":
        return
    if start != [first, last]:
        raise RecordError("festival_start: on equal values the first-drawn card goes 1st")


def _check_composition(rules, removed, start, setup, pile) -> None:
    counts = removed.copy()
    for card in [*start, *[c for pair in setup for c in pair], *pile]:
        counts[card] += 1
    expected = list(rules.copies_by_type)
    if list(counts) != expected:
        raise RecordError(
            "removed, festival_start, setup, turns, unused: the cards do not make up the "
            f"deck of these rules ({sum(expected)} cards, by type {expected})"
        )
    if len(start) != 2 or variety_of(start[0]) == variety_of(start[1]):
        raise RecordError("festival_start: two cards of different varieties")
    if value_of(start[0]) < value_of(start[1]):
        raise RecordError("festival_start: the higher card goes 1st")
    if int(removed.sum()) != rules.removed:
        raise RecordError(f"removed: expected {rules.removed} cards, got {int(removed.sum())}")


def _step(state, where: str, action: int, points, player: int, index: int) -> str:
    seat = int(state[TURN])
    if seat != player:
        raise RecordError(f"{where}: it is seat {seat}'s turn, the record says seat {player}")
    if index == 1 and state[PHASE] != SECOND_DRAW:
        raise RecordError(f"{where}: the turn is over after one action (the deck ran out)")
    if index == 0 and state[PHASE] == SECOND_DRAW:
        raise RecordError(f"{where}: seat {seat} still has its second card to resolve")
    if not is_legal(state, action):
        raise RecordError(f"{where}: {action_text(action)} is not legal for seat {seat} now")
    before = int(state[GIVE_POINTS + seat] + state[KEEP_POINTS + seat])
    move = move_text(state, action)
    apply_action(state, action)
    scored = int(state[GIVE_POINTS + seat] + state[KEEP_POINTS + seat]) - before
    if points is not None and points != scored:
        raise RecordError(f"{where}.points: the record says {points}, the rules give {scored}")
    return f"{where}: seat {seat} {move}" + ("" if action >= SETUP_FIRST else f" (+{scored})")


def _apply_reveal(rules, state, reveal) -> None:
    """Turn up the recorded secret cards, checking they were in the secret festival."""
    size = int(state[SECRET_SIZE])
    if not isinstance(reveal, list) or len(reveal) != min(rules.n_revealed, size):
        raise RecordError(f"reveal: expected {min(rules.n_revealed, size)} cards")
    pile = [int(c) for c in state[PILE : PILE + size]]
    for i, value in enumerate(reveal):
        card = _card(value, f"reveal[{i}]")
        if card not in pile:
            raise RecordError(f"reveal[{i}]: {value} is not left in the secret festival")
        pile.remove(card)
        add_faceup(state, variety_of(card), value_of(card))
    majority_points(state)


def move_text(state, action: int) -> str:
    """A legal ``action`` about to be applied to ``state``, with its cards: ``gives blue 2 to
    seat 1``, ``puts pink 3 in its bouquet, orange 4 face down``."""
    seat = int(state[TURN])
    if action >= SETUP_FIRST:
        pair = DEALT + 2 * seat
        pick = action - SETUP_FIRST
        bouquet, secret = _words(state[pair + pick]), _words(state[pair + 1 - pick])
        return f"puts {bouquet} in its bouquet, {secret} face down in the secret festival"
    card = _words(state[DRAWN])
    if action >= GIVE:
        return f"gives {card} to seat {action - GIVE}"
    return {
        KEEP: f"keeps {card}",
        FESTIVAL: f"adds {card} to the festival",
        SECRET: f"adds {card} to the secret festival",
    }[action]


def _words(card) -> str:
    variety, value = card_json(int(card))
    return f"{variety} {value}"


def action_text(action: int) -> str:
    if action >= SETUP_FIRST:
        return "chooses its bouquet card"
    if action >= GIVE:
        return f"gives to seat {action - GIVE}"
    return {KEEP: "keeps", FESTIVAL: "adds to the festival", SECRET: "adds to the secret"}[action]

"""``giftsim record`` and ``giftsim replay``: one game (or match) played and written as a JSON
record, and a record checked rule by rule and against its provenance. Kept apart from the other
command bodies so that these two commands import no statistics (scipy) before their game."""

import json
import sys
from pathlib import Path

from experiments import provenance
from experiments.games import GAMES
from experiments.words import count_of
from giftsim import files
from giftsim.game import load_game, rounds_of


def record(
    game, rules, specs, seed, game_index, first_player, secret, out, force=False, isolation=None
) -> None:
    """``giftsim record``: play one game (or match) through the slow path and write its JSON
    record (to ``out``, else to the terminal; an existing ``out`` is replaced only if
    ``force``, and is checked before the game is played). With ``isolation`` the isolated
    agents play from processes of their own; a forfeit is kept in the record (``forfeits``:
    seat, round and reason) and told on stderr."""
    from agents.registry import param_table, parse_list
    from giftsim.contract import first_policy

    if out:
        files.check_new(out, force)
    agents = parse_list(specs or ",".join(["greedy"] * rules.n_players), game)
    if len(agents) != rules.n_players:
        raise ValueError(
            f"--agents names {count_of(len(agents), 'agent')} for {rules.n_players} players"
        )
    first_policy(first_player, rules.n_players)  # checked before anything compiles, as
    param_table(agents, rules.n_players)  # the networks for this table
    for agent in agents:
        agent.check_rules(rules)  # a policy table solved under other rules: one line
    meta = {"agents": [a.spec for a in agents], "seed": seed, "game_index": game_index}
    meta["first_player_policy"] = first_player  # rotate, random or a seat: how it was chosen
    if secret:
        meta["secret"] = secret
    if isolation is not None:
        meta["isolated"] = list(isolation.agents)
    rounds = rounds_of(rules)
    games = _record_games(game, rules, agents, (seed, game_index, first_player, secret), isolation)
    lost = [(s, r, why) for r, (_, faults) in enumerate(games) for s, why in faults]
    if lost:
        meta["forfeits"] = [{"seat": s, "round": r, "reason": why} for s, r, why in lost]
    for s, r, why in lost:
        print(f"seat {s} ({agents[s].spec}) forfeited round {r}: {why}", file=sys.stderr)
    games = [played for played, _ in games]
    if rounds > 1:
        made = load_game(game).make_match_record(rules, [(g.start, g.actions) for g in games], meta)
    else:
        made = load_game(game).make_record(rules, games[0].start, games[0].actions, meta)
    text = json.dumps(made, indent=1)
    if out:
        files.write_text(out, text + "\n", force)
    else:
        print(text)


def _record_games(game, rules, agents, where, isolation):
    """The rounds of a recorded match (``where``: seed, index, first player, secret), each
    with its forfeits ``(seat, reason)``."""
    from agents.drivers import isolated
    from agents.isolation import FAULTS
    from experiments.games import play_slow

    seed, game_index, first_player, secret = where
    rounds = rounds_of(rules)
    indices = [game_index * rounds + r for r in range(rounds)]  # as the fast loop's matches
    if isolation is None:
        return [
            (play_slow(game, rules, agents, seed, i, first_player, secret), []) for i in indices
        ]
    table = isolated.seated(game, agents, rules.n_players, isolation)
    games = []
    try:
        for index in indices:
            seats = [seat for seat in table if isinstance(seat, isolated.IsolatedSeat)]
            for seat in seats:
                seat.new_game()
            played = play_slow(game, rules, table, seed, index, first_player, secret)
            faults = [
                (s, f"{FAULTS[seat.fault]}: {seat.message}")
                for s, seat in enumerate(table)
                if isinstance(seat, isolated.IsolatedSeat) and seat.fault
            ]
            games.append((played, faults))
    finally:
        isolated.close(table)
    return games


def replay(path: Path) -> None:
    """``giftsim replay``: check a JSON record rule by rule and that its seed, game index and
    agents make it (:mod:`experiments.provenance`), then print it (``-``: stdin)."""
    raw = sys.stdin.read() if str(path) == "-" else _read(path)
    try:
        made = json.loads(raw)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not JSON: {error}") from None
    except RecursionError:
        raise ValueError(f"{path} is not a record: its JSON nests too deeply") from None
    if not isinstance(made, dict):
        raise ValueError(f"{path} is not a record: its JSON is not an object")
    game = made.get("game")
    if game not in GAMES:
        raise ValueError(f"record 'game' must be one of {', '.join(GAMES)}, got {game!r}")
    if made.get("unfinished"):
        raise ValueError(f"{path} is a game quit part-way; replay checks finished games only")
    lines = list(load_game(game).replay(made))
    lines.append(provenance.check(made))  # then its seed, game index and agents
    print("\n".join(lines))  # only a record that passes both: else one line, the error
    print("record OK: every action legal, scores and winners confirmed")


def _read(path: Path) -> str:
    if not path.exists():  # a pipe (replay <(giftsim record ...)) is no file, but readable
        raise ValueError(f"no such record file: {path}")
    if path.is_dir():
        raise ValueError(f"{path} is a folder, not a record file")
    try:
        return path.read_text()
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a record: not a text file (a record is JSON)") from None

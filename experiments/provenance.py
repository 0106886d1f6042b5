"""Where a game record says it came from, checked: ``giftsim replay``'s second step.

A record carries its provenance beside its moves: the ``agents`` of its seats, the root ``seed``
and the ``game_index`` (and the agents' ``secret``, if one was set). A game is a pure function of
those and its rules, so a record whose seats are all agents of the game is dealt and played
again from them, through the slow path, with the first player chosen as the record says it was
(``first_player_policy``: rotate, random or a seat; older records without it: the recorded
first player, whatever policy chose it, since that seat deals the same game): the record must
come out the same, entry for entry. A record with a seat that is no agent here (a person, a
learner, an agent of a module not loaded) cannot be played again, nor can a game where an
isolated seat forfeited; its provenance is then reported as not checked, and why.

Errors are one-line ``ValueError``\\ s naming the entry that does not follow from the provenance
(a relabelled seed changes the deal; other agents change the moves).
"""

from agents.registry import parse_list
from experiments.games import play_slow
from experiments.words import count_of
from giftsim.game import load_game

META = ("agents", "seed", "game_index", "secret", "isolated", "first_player_policy")


def check(made: dict) -> str:
    """Check the provenance of a record that the rules accepted (``made``, a game or a match):
    raise a one-line ValueError if it does not hold, else return one line saying what was
    checked."""
    definition = load_game(made["game"])
    rules = definition.rules(**{k: _tuples(v) for k, v in made["rules"].items()})
    agents = made.get("agents")
    if agents is None:
        return "provenance not checked: the record names no agents"
    _check_agents(agents, rules.n_players)
    if "seed" not in made or "game_index" not in made:
        return "provenance not checked: the record has no seed and game index"
    if made.get("forfeits"):
        return "provenance not checked: a seat forfeited (its moves were not its agent's)"
    try:
        players = parse_list(agents, definition.name)
    except ValueError as error:
        return (
            f"provenance not checked (its agents cannot play here: {error}; an agent of your "
            "own plays with --agents-module)"
        )
    again = _again(definition, rules, players, made)
    played = f"a record of game {made['game_index']} of seed {made['seed']} with agents"
    played += f" {','.join(agents)}"
    for key in dict.fromkeys([*made, *again]):
        if key not in made:
            raise ValueError(f"record lacks the key {key!r} that {played} has")
        if key not in again:
            raise ValueError(
                f"record has a key {key!r} that {played} does not have (a key added or misspelt)"
            )
        if made.get(key) != again.get(key):
            raise ValueError(
                f"record {key!r} is not what game {made['game_index']} of seed {made['seed']} "
                f"with agents {','.join(agents)} gives: the record's seed, game index, agents or "
                "first-player policy are not the ones it was played with"
            )
    return (
        f"provenance OK: game {made['game_index']} of seed {made['seed']} with these agents "
        "deals and plays exactly this record"
    )


def _check_agents(agents, n_players: int) -> None:
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise ValueError(f"record 'agents' must be a list of agent specs, got {agents!r}")
    if len(agents) != n_players:
        raise ValueError(
            f"record 'agents' names {count_of(len(agents), 'agent')} for {n_players} seats: "
            "one spec per seat"
        )


def _again(definition, rules, players, made: dict) -> dict:
    """The record that the provenance of ``made`` makes, played again through the slow path."""
    seed, index, secret = made["seed"], made["game_index"], made.get("secret", 0)
    meta = {k: made[k] for k in META if k in made}
    policy = made.get("first_player_policy")
    if "rounds" in made and definition.make_match_record is not None:
        rounds = made["rounds"]
        played = [
            _play(definition, rules, players, (seed, index * len(rounds) + r, secret), game, policy)
            for r, game in enumerate(rounds)
        ]
        return definition.make_match_record(rules, [(g.start, g.actions) for g in played], meta)
    game = _play(definition, rules, players, (seed, index, secret), made, policy)
    return definition.make_record(rules, game.start, game.actions, meta)


def _play(definition, rules, players, where, game: dict, policy):
    """One game played again (``where``: seed, game index, secret), its first player chosen
    by the recorded ``policy`` (rotate, random or a seat), so that a record whose first
    player the policy would not give fails; without one (older records, environments' records)
    the recorded first player."""
    seed, index, secret = where
    first = game["first_player"] if policy is None else policy
    try:
        return play_slow(definition.name, rules, players, seed, index, first, secret)
    except ValueError as error:
        raise ValueError(f"record's provenance: {error}") from None


def _tuples(value):
    """JSON lists back as the tuples the rules hold (a points table)."""
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value

"""What a game gives its compiled drivers: the names the templates of this folder import.

The templates are written against this module (``from .game import apply_action``). It is a
stub: its functions only state their contract. ``agents.drivers.generate`` instantiates the
templates per game into a package whose ``game.py`` binds each name to the game's own, as
``SOURCES`` says: a field of the game's ``Game`` record (``giftsim.game``), or a name of its
agents' ``worlds`` (the search verbs) or ``learned`` (the network's features) module.

==================  =======================================================================
source              names
==================  =======================================================================
``Game`` record     the verbs and sizes of ``giftsim.game`` (see its verb table)
``worlds``          ``world``, ``policy_action``, ``view_key``, ``standings``,
                    ``LEAD_SCALE``, ``POLICIES``, ``NET_MIX``
``learned``         ``n_features``, ``features``, ``after``, ``after_world``, ``after_of``,
                    ``choose``
==================  =======================================================================

Every state and rules vector holds the number of seats in slot 0 (``giftsim.game.N_PLAYERS``).
"""

SOURCES = {  # name in the templates: (source, its name there)
    "deal_keyed": ("game", "deal_keyed"),
    "begin": ("game", "begin"),
    "is_over": ("game", "is_over"),
    "legal_mask": ("game", "legal_mask"),
    "apply_action": ("game", "apply_action"),
    "observe": ("game", "observe"),
    "show_turn": ("game", "show_turn"),
    "encode": ("game", "encode"),
    "scores": ("game", "scores"),
    "rewards": ("game", "rewards"),
    "result_row": ("game", "result_row"),
    "event": ("game", "event"),
    "deal_open": ("game", "deal_open"),
    "chance_pending": ("game", "chance_pending"),
    "chance_outcomes": ("game", "chance_outcomes"),
    "next_outcome": ("game", "next_outcome"),
    "apply_chance": ("game", "apply_chance"),
    "chance_observers": ("game", "chance_observers"),
    "MAX_CHANCE_OUTCOMES": ("game", "max_chance_outcomes"),
    "STATE_SIZE": ("game", "state_size"),
    "OBS_SIZE": ("game", "obs_size"),
    "NUM_ACTIONS": ("game", "num_actions"),
    "MAX_PLAYERS": ("game", "max_players"),
    "MAX_DECISIONS": ("game", "max_decisions"),
    "TURN": ("game", "turn_slot"),
    "DECISIONS": ("game", "decisions_slot"),
    "LOWER_WINS": ("game", "lower_wins"),
    "ROUNDS_SLOT": ("game", "rounds_slot"),
    "EVENT_WIDTH": ("game", "event_width"),
    "world": ("worlds", "world"),
    "policy_action": ("worlds", "policy_action"),
    "view_key": ("worlds", "view_key"),
    "standings": ("worlds", "standings"),
    "LEAD_SCALE": ("worlds", "LEAD_SCALE"),
    "POLICIES": ("worlds", "POLICIES"),
    "NET_MIX": ("worlds", "NET_MIX"),
    "n_features": ("learned", "n_features"),
    "features": ("learned", "features"),
    "after": ("learned", "after"),
    "after_world": ("learned", "after_world"),
    "after_of": ("learned", "after_of"),
    "choose": ("learned", "choose"),
}

STATE_SIZE = OBS_SIZE = NUM_ACTIONS = MAX_PLAYERS = MAX_DECISIONS = TURN = DECISIONS = 0
ROUNDS_SLOT = -1  # the rules vector's slot of a match's rounds; -1: single games only
EVENT_WIDTH = 0  # numbers ``event`` writes per event
MAX_CHANCE_OUTCOMES = 0  # outcome ids of any chance event
LOWER_WINS = False
POLICIES = ()  # the names of the default policies of the playouts, by number
LEAD_SCALE = 1.0  # points: a typical spread of final scores (score leads are in its units)
NET_MIX = 0.5  # ismcts_net's weight of the network's value against a playout's end


def _stub(*args):
    raise NotImplementedError("a template's names are bound per game: agents.drivers.generate")


# The Game record's compiled verbs (giftsim.game).
deal_keyed = begin = is_over = legal_mask = apply_action = observe = show_turn = _stub
encode = scores = rewards = result_row = event = _stub
# Explicit chance (giftsim.game's verb table): deal_open stops at every chance event.
deal_open = chance_pending = chance_outcomes = next_outcome = apply_chance = _stub
chance_observers = _stub
# The search verbs (agents/<game>/worlds.py): world(obs, rng, state) draws a state consistent
# with an observation; policy_action(state, policy, rng) is a default policy's action for the
# seat to act; view_key(state, observer) keys an information set; standings(state, out) writes
# every seat's score as it stands (final scores once over).
world = policy_action = view_key = standings = _stub
# The learned evaluator (agents/<game>/learned.py): n_features(players); features(obs, out);
# after(obs, action, rng, world, out) the acting seat's afterstate; after_world(obs, rng,
# drawn) draws what the afterstates of one decision share (a world, or nothing) and
# after_of(obs, drawn, action, world, out) writes one of them; choose(obs, params, rng, worlds,
# work, x) the one-ply agent's action with its work space given.
n_features = features = after = after_world = after_of = choose = _stub

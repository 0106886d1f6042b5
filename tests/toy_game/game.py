"""Hidden Pile as one :class:`giftsim.game.Game` record: its sizes and verbs."""

from giftsim.game import Game
from tests.toy_game import engine, record, rules

GAME = Game(
    name="toy",
    title="Hidden Pile",
    rules=rules.Rules,
    state_size=engine.STATE_SIZE,
    obs_size=engine.OBS_SIZE,
    num_actions=rules.NUM_ACTIONS,
    action_names=rules.ACTION_NAMES,
    players=tuple(range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1)),
    official=tuple(range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1)),
    max_players=rules.MAX_PLAYERS,
    max_decisions=rules.MAX_DECISIONS,
    blocks=("score",),
    lower_wins=False,
    turn_slot=engine.TURN,
    agents="tests.toy_game.agents",
    deal_keyed=engine.deal_keyed,
    begin=engine.begin,
    is_over=engine.is_over,
    legal_mask=engine.legal_mask,
    apply_action=engine.apply_action,
    observe=engine.observe,
    show_turn=engine.show_turn,
    encode=engine.encode,
    tensor_size=engine.tensor_size,
    tensor_bounds=engine.tensor_bounds,
    scores=engine.scores,
    winner_mask=engine.winner_mask,
    rewards=engine.rewards,
    result_row=engine.result_row,
    finish_key=engine.finish_key,
    make_record=record.make_record,
    replay=record.replay,
)

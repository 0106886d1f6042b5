"""Gift of Tulips as one :class:`giftsim.game.Game` record: its sizes and verbs."""

from giftsim.game import Game
from tulips_sim import engine, record, rules, scoring, state, tensor

GAME = Game(
    name="tulips",
    title="Gift of Tulips",
    rules=rules.Rules,
    state_size=state.STATE_SIZE,
    obs_size=state.OBS_SIZE,
    num_actions=rules.NUM_ACTIONS,
    action_names=rules.ACTION_NAMES,
    players=tuple(range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1)),
    official=tuple(range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1)),
    max_players=rules.MAX_PLAYERS,
    max_decisions=rules.MAX_DECISIONS,
    blocks=("score", "give", "keep", "majority", "cards"),
    lower_wins=False,
    turn_slot=state.TURN,
    agents="agents.tulips",
    deal_keyed=state.deal_keyed,
    begin=engine.begin,
    is_over=engine.is_over,
    legal_mask=engine.legal_mask,
    apply_action=engine.apply_action,
    observe=engine.observe,
    show_turn=engine.show_turn,
    encode=tensor.encode,
    tensor_size=tensor.tensor_size,
    tensor_bounds=tensor.tensor_bounds,
    scores=scoring.final_scores,
    winner_mask=scoring.winner_mask,
    rewards=scoring.rewards,
    result_row=scoring.result_row,
    finish_key=scoring.finish_key,
    make_record=record.make_record,
    replay=record.replay,
)

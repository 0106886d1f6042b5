"""No Thanks! as one :class:`giftsim.game.Game` record: its sizes and verbs."""

from geschenkt_sim import engine, record, rules, scoring, state, tensor
from giftsim.game import Game

GAME = Game(
    name="geschenkt",
    title="No Thanks!",
    rules=rules.Rules,
    state_size=state.STATE_SIZE,
    obs_size=engine.OBS_SIZE,
    num_actions=rules.NUM_ACTIONS,
    action_names=rules.ACTION_NAMES,
    players=tuple(range(rules.MIN_PLAYERS, rules.MAX_PLAYERS + 1)),
    official=tuple(range(3, rules.MAX_PLAYERS + 1)),  # 2 players is a project variant
    max_players=rules.MAX_PLAYERS,
    max_decisions=rules.MAX_DECISIONS,
    blocks=("score",),
    lower_wins=True,
    turn_slot=state.TURN,
    decisions_slot=state.N_DECISIONS,
    agents="agents.geschenkt",
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
    scores=scoring.scores,
    winner_mask=scoring.winner_mask,
    rewards=scoring.rewards,
    result_row=scoring.result_row,
    finish_key=scoring.finish_key,
    make_record=record.make_record,
    replay=record.replay,
    rounds_slot=rules.R_ROUNDS,
    make_match_record=record.make_match_record,
    event=engine.event,
    event_columns=("card", "price"),
)

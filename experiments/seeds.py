"""The root seeds a command keeps for itself: offsets added to a run's seed, so that the deals
that score a choice are deals that no search or training game (of any seed) plays. Their
results are recorded as looked at in ``experiments.ladder.USED``."""

EVALUATION_SEED_OFFSET = 2**32  # tune: the final score of the settings chosen
EVAL_SEED_OFFSET = 2**40  # train: the held-out deals that choose the round
CONFIRM_SEED_OFFSET = 2**41  # train: fresh deals that score the network written, after the choice

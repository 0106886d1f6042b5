"""The No Thanks! tensor (``geschenkt_sim.tensor.encode``, compiled) against a plain-Python
twin written from its docstring's layout over the reference game's observations: every seat's
tensor at every state of random games under random rules."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from geschenkt_sim import reference
from geschenkt_sim.engine import OBS_SIZE, apply_action, is_over, legal_actions, observe
from geschenkt_sim.tensor import encode, tensor_size
from tests.strategies import geschenkt_deals
from tests.test_geschenkt_differential import start


def twin_tensor(rules, first: int, view: dict) -> list[float]:
    """The tensor of the docstring's table, block by block, from a reference observation."""
    cards = list(range(rules.lowest_card, rules.highest_card + 1))
    n, me = view["n_players"], view["seat"]
    order = [(me + r) % n for r in range(n)]
    out = [float(c == view["card"]) for c in cards]  # card (none once the game is over)
    out += [float(view["pot"]), float(view["cards_left"])]
    out += [float(c in view["unseen"]) for c in cards]
    out += [float(view["chips"][s]) for s in order]
    for s in order:
        out += [float(c in view["hands"][s]) for c in cards]
    turn = view["current_player"]
    out += [float(turn >= 0 and r == (turn - me) % n) for r in range(n)]
    out += [float(r == (me - first) % n) for r in range(n)]
    return out


def engine_tensor(rules, state, seat) -> np.ndarray:
    obs = np.zeros(OBS_SIZE, np.int64)
    observe(state, seat, obs)
    out = np.full(tensor_size(rules), np.nan, np.float32)  # every entry must be written
    encode(obs, out)
    return out


@settings(max_examples=120, deadline=None)
@given(geschenkt_deals(), st.data())
def test_the_tensor_is_the_twins_for_every_seat_at_every_state(deal, data):
    rules, deck, removed, first = deal
    state, ref = (
        start(rules, deck, removed, first),
        reference.ReferenceGame(rules, deck, removed, first),
    )
    n = rules.n_players
    turn_block = slice(tensor_size(rules) - 2 * n, tensor_size(rules) - n)
    while True:
        over = is_over(state)
        for seat in range(n):
            got = engine_tensor(rules, state, seat)
            want = np.array(twin_tensor(rules, first, ref.observation(seat)), np.float32)
            if over:  # the game's end has no seat to act: the twin's turn block is empty
                got[turn_block] = want[turn_block] = 0.0
            np.testing.assert_array_equal(got, want)
        if over:
            break
        action = data.draw(st.sampled_from([int(a) for a in legal_actions(state)]))
        apply_action(state, action)
        ref.apply(action)

"""Shared hypothesis strategies: rules, deals and choice sequences for No Thanks!"""

from hypothesis import strategies as st

from geschenkt_sim.rules import Rules


@st.composite
def geschenkt_rules(draw):
    """Any valid rules: 2..7 players, standard or tactical, chips shown or hidden, odd sizes."""
    n = draw(st.integers(2, 7))
    variant = draw(st.sampled_from(["standard", "tactical"]))
    chips = draw(st.one_of(st.none(), st.integers(0, 15)))
    n_removed = draw(st.integers(3 if variant == "tactical" else 0, 20))
    return Rules(
        n_players=n,
        chips_per_player=chips,
        n_removed=n_removed,
        variant=variant,
        chips_visible=draw(st.booleans()),
    )


@st.composite
def geschenkt_deals(draw):
    """Rules, a deck order, the removed cards and a first seat."""
    rules = draw(geschenkt_rules())
    cards = list(range(rules.lowest_card, rules.highest_card + 1))
    forced = list(rules.forced_removed)
    free = draw(st.permutations([c for c in cards if c not in forced]))
    n_random = rules.n_removed - len(forced)
    removed = forced + list(free[:n_random])
    deck = list(free[n_random:])
    first = draw(st.integers(0, rules.n_players - 1))
    return rules, deck, removed, first


@st.composite
def tulips_rules(draw):
    """Any valid Tulips rules: 2..6 players and every option of rules file §10."""
    from tulips_sim.rules import REMOVED_BY_PLAYERS
    from tulips_sim.rules import Rules as TulipsRules

    n = draw(st.integers(2, 6))
    standard = draw(st.booleans())
    n_removed = None if standard else draw(st.integers(0, REMOVED_BY_PLAYERS[n] + 3))
    return TulipsRules(
        n_players=n,
        n_removed=n_removed,
        n_revealed=draw(st.sampled_from([5, 0, 2, 40])),
        majority_ties=draw(st.sampled_from(["dense", "competition"])),
        setup_scores=draw(st.booleans()),
        zero_cards_majority=draw(st.booleans()),
        seeding_tie=draw(st.sampled_from(["first_drawn", "random"])),
    )


def random_walk(state, engine, steps, seed) -> bool:
    """Apply up to ``steps`` uniformly random legal actions; True if the game is then over."""
    import numpy as np

    from giftsim.rng import next_below

    rng = np.array([seed], np.uint64)
    for _ in range(steps):
        if engine.is_over(state):
            break
        legal = engine.legal_actions(state)
        engine.apply_action(state, legal[next_below(rng, len(legal))])
    return bool(engine.is_over(state))


def quick(family):
    """The family's default agent, but a search agent with few iterations (tests stay fast)."""
    return family(iters=QUICK_ITERS) if "iters" in family.defaults else family()


QUICK_ITERS = 40


def assert_same_decisions(families, obs, twin) -> None:
    """Every family decides the same on two observations, and leaves them unchanged (search
    agents with :func:`quick` settings)."""
    import numpy as np

    for family in families:
        params = quick(family).param_row()
        shown = obs.copy()
        first = family.decide(obs, params, np.array([7], np.uint64))
        assert first == family.decide(twin, params, np.array([7], np.uint64)), family.name
        assert np.array_equal(obs, shown)  # the fast loop shows the live state: agents only read

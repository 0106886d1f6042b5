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
def _table(draw, shape, high):
    """A table of non-negative integers of ``shape`` (one or two dimensions)."""
    if len(shape) == 1:
        return tuple(draw(st.integers(0, high)) for _ in range(shape[0]))
    return tuple(draw(_table((shape[1],), high)) for _ in range(shape[0]))


@st.composite
def tulips_make_up(draw):
    """``base_copies`` and ``extra_copies``: of record (None), per value or per variety."""
    kind = draw(st.sampled_from(["record", "per value", "per variety"]))
    if kind == "record":
        return None, None
    shape = (3,) if kind == "per value" else (4, 3)
    return draw(_table(shape, 8)), draw(_table(shape, 3))


@st.composite
def tulips_rules(draw):
    """Any valid Tulips rules: 2..6 players, every option of rules file §10, point tables,
    deck make-ups, removal counts and a fixed first player drawn too (a drawn make-up or
    removal count that cannot seed and deal falls back to the tables of record)."""
    from tulips_sim.rules import GAME_ENDS, REMOVED_BY_PLAYERS, SETUPS
    from tulips_sim.rules import Rules as TulipsRules

    n = draw(st.integers(2, 6))
    base, extra = draw(tulips_make_up())
    options = {
        "n_players": n,
        "n_revealed": draw(st.sampled_from([5, 0, 2, 40])),
        "majority_ties": draw(st.sampled_from(["dense", "competition"])),
        "setup_scores": draw(st.booleans()),
        "zero_cards_majority": draw(st.booleans()),
        "seeding_tie": draw(st.sampled_from(["first_drawn", "random"])),
        "first_player": draw(st.one_of(st.just("random"), st.integers(0, n - 1))),
        "setup": draw(st.sampled_from(SETUPS)),
        "game_end": draw(st.sampled_from(GAME_ENDS)),
        "giving_bonus": draw(st.one_of(st.none(), _table((4,), 5))),
        "keeping_points": draw(st.one_of(st.none(), _table((4,), 5))),
        "majority_points": draw(st.one_of(st.none(), _table((4, 3), 20))),
    }
    n_removed = draw(st.one_of(st.none(), st.integers(0, REMOVED_BY_PLAYERS[n] + 3)))
    try:
        return TulipsRules(**options, base_copies=base, extra_copies=extra, n_removed=n_removed)
    except ValueError:
        return TulipsRules(**options)


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


def assert_same_decisions(families, obs, twin, players) -> None:
    """Every family decides the same on two observations of a ``players``-seat game, and
    leaves them unchanged (search agents with :func:`quick` settings; learned agents with the
    shipped network of the player count)."""
    import numpy as np

    for family in families:
        params = quick(family).param_row(players)
        shown = obs.copy()
        first = family.ask(obs, params, np.array([7], np.uint64))
        assert first == family.ask(twin, params, np.array([7], np.uint64)), family.name
        assert np.array_equal(obs, shown)  # the fast loop shows the live state: agents only read

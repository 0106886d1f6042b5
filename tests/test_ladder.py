"""The ladder's verdicts: Holm over the steps of a run, exploratory seeds, edges not ties."""

import re
from pathlib import Path

import numpy as np
import pandas as pd

from experiments import ladder


def test_holm_steps_down_and_stops_at_the_first_failure():
    p = [0.001, 0.02, 0.012, 0.0001, 0.5]
    # sorted: 0.0001 <= .025/5, 0.001 <= .025/4, 0.012 > .025/3 -> stop
    assert ladder.holm(p).tolist() == [True, False, False, True, False]
    assert ladder.holm([0.03]).tolist() == [False]
    assert ladder.holm([0.02]).tolist() == [True]


def test_holm_controls_the_family_wise_error_under_the_null():
    rng = np.random.default_rng(0)
    any_false = [ladder.holm(rng.random(30)).any() for _ in range(4000)]
    assert np.mean(any_false) <= 0.025 + 0.006


def steps_table(p_values):
    n = len(p_values)
    return pd.DataFrame(
        {
            "game": "tulips",
            "players": 6,
            "upper": [f"u{i}" for i in range(n)],
            "lower": [f"l{i}" for i in range(n)],
            "win_share": 0.2,
            "ci_low": 0.17,
            "ci_high": 0.23,
            "fair": 1 / 6,
            "games": 600,
            "deals": 100,
            "p_value": p_values,
        }
    )


def test_a_step_is_shown_only_after_holm_on_a_fresh_seed():
    table = ladder.judge(steps_table([1e-6, 0.017, 0.02]), seed=ladder.FRESH_SEED)
    assert table["shown"].tolist() == [True, False, False]  # 0.017 > 0.025 / 2: stop
    text = ladder.markdown(table, ["ladder"], ladder.FRESH_SEED)
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(rows) == 3 and not any("tie" in row for row in rows)
    assert "edge in [+0.003, +0.063]" in text
    assert "A step is a claim in one field" in text  # not an order of strength
    used = ladder.judge(steps_table([1e-6, 1e-6]), seed=0)
    assert not used["shown"].any() and used["holm"].all()
    assert "Exploratory" in ladder.markdown(used, ["ladder"], 0)


def test_a_small_real_ladder_gives_p_values_and_verdicts():
    table = ladder.ladder(["geschenkt"], n_games=60, search_games=0, seed=ladder.FRESH_SEED)
    assert len(table) == 12 and table["p_value"].between(0, 1).all()
    assert (table["upper"] == "learned").sum() == 3
    assert table.loc[table["upper"] == "greedy", "shown"].all()  # greedy crushes random
    # p and the interval say the same: p < 0.025 exactly when the lower end clears the fair share
    clears = table["ci_low"] > table["fair"]
    assert ((table["p_value"] < 0.025) == clears).all() and clears.any() and not clears.all()


def test_a_step_on_too_few_deals_is_not_shown_and_says_so():
    few = ladder.judge(steps_table([1e-6]).assign(deals=4, games=24), seed=ladder.FRESH_SEED)
    assert few["holm"].all() and not few["shown"].any()
    text = ladder.markdown(few, ["ladder"], ladder.FRESH_SEED)
    assert "not shown (passes Holm; † 4 deals, fewer than 30: coverage not assured)" in text


def test_the_default_seed_is_fresh_and_the_command_line_uses_it():
    from experiments.cli import _parser

    assert ladder.FRESH_SEED not in ladder.USED
    assert _parser().parse_args(["ladder"]).seed == ladder.FRESH_SEED
    assert {0, 7, 11, 2027, 9001} <= set(ladder.USED)  # looked at, whether or not they chose


SEED_IN_DOCS = re.compile(r"(?:--seed |seeds? |\(seed |seed=)(\d[\d_,]*)|\| [\d,]+ \((\d+)\) \|")


def test_every_seed_the_docs_report_on_is_listed_as_looked_at():
    """A seed the docs or the README show results on (``--seed N``, "seed N", a table's
    "deals (seed)" cell) is in ``USED``: a ladder on it is exploratory."""
    root = Path(__file__).resolve().parents[1]
    pages = [*sorted((root / "docs").rglob("*.md")), root / "README.md"]
    shown = {
        int((m.group(1) or m.group(2)).replace(",", "").replace("_", "")): page.name
        for page in pages
        for m in SEED_IN_DOCS.finditer(page.read_text())
    }
    assert {5, 6, 240102, 240301, 777000} <= set(shown)  # the patterns find them
    missing = {seed: page for seed, page in shown.items() if seed not in ladder.USED}
    assert missing == {}


def test_each_step_names_its_upper_agents_worst_case():
    """The column comes from the shipped bounds at the step's player count; an agent with no
    row there is "not bounded", never a blank or a zero."""
    table = ladder.judge(steps_table([1e-6]), seed=ladder.FRESH_SEED)
    table = pd.concat([table.assign(players=2, upper="greedy"), table.assign(upper="greedy")])
    text = ladder.markdown(table, ["ladder"], ladder.FRESH_SEED)
    assert "| upper's worst case |" in text
    rows = [line for line in text.splitlines() if line.startswith("| `greedy`")]
    assert "(2p, " in rows[0] or ", 2p, " in rows[0], rows[0]  # the step's own player count
    assert rows[0].split("|")[-2].strip().startswith("+")  # tulips greedy 2p has rows
    assert rows[1].endswith("| not bounded |")  # no 6-player rows of tulips

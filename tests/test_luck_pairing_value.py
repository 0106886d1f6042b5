"""The measurement aid ``docs/perf/luck_pairing_value.py`` (docs/luck.md, "A value fitted to
the pairing"): it records a row per seat after each chance outcome with that seat's share of
the win as target, holds out the last tenth of each seating's games, and writes a network the
luck estimator takes (``--luck-net``)."""

from agents.kernels import net
from agents.roster import roster
from experiments.cli import main
from tests.scripts import ROOT, load_script

aid = load_script(ROOT / "docs" / "perf" / "luck_pairing_value.py", "luck_pairing_value")


def test_rows_are_each_seats_view_with_its_share_of_the_win_as_target():
    x, y, held = aid.play("geschenkt", "learned", "tuned4p", 40, 3)
    width = net.read(roster("geschenkt").shipped(4))[0]["w1"].shape[1]
    assert x.shape[1] == width  # the features the shipped network reads
    assert len(x) == len(y) == len(held) and len(x) > 40 * 4 * 4  # many outcomes a game
    assert ((y >= 0) & (y <= 1)).all() and 0 < y.mean() < 1
    assert 0.05 < held.mean() < 0.15  # the last tenth of each seating's games


def test_its_network_is_one_the_luck_estimator_takes(tmp_path, capsys):
    out = tmp_path / "pair.npz"
    aid.main("geschenkt", "learned", "tuned4p", 40, 4, 3, out, epochs=1)
    assert "held-out loss: fitted" in capsys.readouterr().out
    field = ["tournament", "geschenkt", "--design", "field", "--candidate", "learned"]
    field += ["--baseline", "tuned4p", "--players", "4", "--games", "8", "--seed", "1"]
    assert main([*field, "--luck-adjust", "--luck-net", str(out), "--backend", "serial"]) == 0
    printed = capsys.readouterr().out
    assert "== luck-adjusted win share by agent" in printed and "variance_ratio" in printed

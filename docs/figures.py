"""Copy the README's figures out of the executed notebooks (run from the repository root).

    .venv/bin/python docs/figures.py

Each figure is the first PNG output of the notebook cell whose source contains the given text,
so the images are exactly what the committed full-size notebook runs drew.
"""

import base64
from pathlib import Path

import nbformat

FIGURES = {
    "nt_balance.png": ("03_balance_sweeps.ipynb", "CHIPS = [3, 5, 7"),
    "nt_card_prices.png": ("04_anatomy.ipynb", "sniper_prices = anatomy.card_prices"),
    "tulips_seats.png": ("01_first_player_advantage.ipynb", 'plots.seat_panels(tu, "win_share")'),
}


def first_png(notebook: Path, marker: str) -> bytes:
    """The first PNG output of the first code cell of ``notebook`` containing ``marker``."""
    for cell in nbformat.read(notebook, as_version=4).cells:
        if cell.cell_type == "code" and marker in cell.source:
            for output in cell.get("outputs", []):
                if "image/png" in output.get("data", {}):
                    return base64.b64decode(output["data"]["image/png"])
    raise SystemExit(f"no figure in {notebook} after a cell containing {marker!r}")


def main() -> None:
    root = Path(__file__).resolve().parents[1]
    for name, (notebook, marker) in FIGURES.items():
        (root / "docs" / "img" / name).write_bytes(first_png(root / "notebooks" / notebook, marker))
        print(f"docs/img/{name} <- notebooks/{notebook}")


if __name__ == "__main__":
    main()

"""What tests of files outside the packages share: loading such a file (an example, a
measurement aid under ``docs/perf``) as a module."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load_script(path: Path, name: str):
    """The Python file ``path`` run as a module named ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

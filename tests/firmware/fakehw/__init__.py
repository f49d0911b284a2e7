"""Stand-ins for MicroPython's hardware modules (rp2, machine), loaded under their own
names and put in sys.modules by the tests (CPython) and the mp_*.py scripts (unix port)."""

import importlib.util
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).parent


def load(name: str) -> ModuleType:
    """A fresh copy of fakehw/<name>.py (its class-level registries start empty)."""
    spec = importlib.util.spec_from_file_location(f"fakehw_{name}", HERE / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


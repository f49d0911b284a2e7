"""Stand-ins for MicroPython's hardware modules (rp2, machine), loaded under their own
names and put in sys.modules by the tests (CPython) and the mp_*.py scripts (unix port)."""

import contextlib
import importlib
import importlib.util
import sys
from collections.abc import Iterator
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



@contextlib.contextmanager
def imported(module: str, fakes: dict[str, ModuleType]) -> Iterator[ModuleType]:
    """`module` imported afresh with `fakes` standing in as sys.modules entries; every entry
    it touched is put back afterwards."""
    saved = {k: sys.modules.get(k) for k in (*fakes, module)}
    sys.modules.update(fakes)
    sys.modules.pop(module, None)
    try:
        yield importlib.import_module(module)
    finally:
        for k, m in saved.items():
            if m is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = m

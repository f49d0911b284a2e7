"""Run every benchmark in bench/ (`make bench` / `python -m bench`), or the ones named."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    here = Path(__file__).parent
    names = argv or sorted(
        m.name for m in pkgutil.iter_modules([str(here)]) if not m.name.startswith("_")
    )
    saved = sys.argv
    try:
        for name in names:
            print(f"== bench.{name} ==", flush=True)
            module = importlib.import_module(f"bench.{name}")
            # each benchmark runs as `python -m bench.NAME` with no arguments would: one that
            # reads sys.argv must not take the benchmark names for its own arguments
            sys.argv = [f"bench.{name}"]
            module.main()
            print(flush=True)
    finally:
        sys.argv = saved
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

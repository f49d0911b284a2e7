"""`python -m bench NAME` runs each named benchmark as `python -m bench.NAME` would, with no
arguments: a benchmark that reads sys.argv must not see the benchmark names (bench.host once
printed its header and measured nothing)."""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any

import pytest

import bench.__main__ as runner


def test_each_benchmark_sees_no_arguments(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[list[str]] = []

    def fake(name: str) -> Any:
        module = types.ModuleType(name)
        module.main = lambda: seen.append(list(sys.argv))  # type: ignore[attr-defined]
        return module

    monkeypatch.setattr(importlib, "import_module", fake)
    before = list(sys.argv)
    assert runner.main(["host", "engine"]) == 0
    assert seen == [["bench.host"], ["bench.engine"]]
    assert sys.argv == before
    out = capsys.readouterr().out
    assert "== bench.host ==" in out and "== bench.engine ==" in out


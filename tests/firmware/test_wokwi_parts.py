"""Every generated Wokwi diagram is valid for the parts it uses.

hardware/wokwi/<type>.json lists each Wokwi part's pin names and documented attributes, with
the Wokwi pages they come from; every connection endpoint and every attribute in every
generated diagram must be one of them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from dialbox.firmware_tools import bundle, hardware

PARTS_DIR = hardware.repo_root() / "hardware" / "wokwi"
PART_FILES = sorted(PARTS_DIR.glob("*.json"))
BOARDS = bundle.boards()


def _diagram(board: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (hardware.repo_root() / "hardware" / board / "diagram.json").read_text()
    )
    return data


@pytest.mark.parametrize("path", PART_FILES, ids=lambda p: p.stem)
def test_part_data_is_sourced_and_well_formed(path: Path) -> None:
    data = json.loads(path.read_text())
    assert data["type"] == path.stem
    assert data["sources"] and all(s.startswith("https://") for s in data["sources"])
    pins = data["pins"]
    assert pins and len(pins) == len(set(pins)) and all(isinstance(p, str) for p in pins)
    assert isinstance(data["attrs"], dict)
    if data["builtin_ws2812"] is not None:
        assert data["builtin_ws2812"] in pins


def test_the_esp32_s3_board_has_four_grounds_only() -> None:
    pins = hardware.wokwi_part("board-esp32-s3-devkitc-1")["pins"]
    assert [p for p in pins if p.startswith("GND")] == ["GND.1", "GND.2", "GND.3", "GND.4"]


@pytest.mark.parametrize("board", BOARDS)
def test_every_connection_endpoint_is_a_pin_of_its_part(board: str) -> None:
    diagram = _diagram(board)
    assert set(diagram) <= {
        "version", "author", "editor", "parts", "connections", "serialMonitor", "dependencies",
    }  # fmt: skip
    ids = [p["id"] for p in diagram["parts"]]
    assert len(ids) == len(set(ids)), "duplicate part id"
    types = {p["id"]: p["type"] for p in diagram["parts"]}
    known = {p.stem for p in PART_FILES}
    assert set(types.values()) <= known, "a part type without a pin list in hardware/wokwi/"
    wired: set[str] = set()
    for conn in diagram["connections"]:
        assert len(conn) == 4 and isinstance(conn[2], str) and isinstance(conn[3], list)
        for end in conn[:2]:
            part_id, _, pin = end.partition(":")
            assert part_id in types, f"{end}: no part {part_id!r}"
            pins = hardware.wokwi_part(types[part_id])["pins"]
            assert pin in pins, f"{end}: {types[part_id]} has no pin {pin!r}"
            wired.add(part_id)
    assert wired == set(ids), "a part with no wire"


@pytest.mark.parametrize("board", BOARDS)
def test_every_attribute_is_documented_and_micropython_is_pinned(board: str) -> None:
    diagram = _diagram(board)
    for part in diagram["parts"]:
        documented = hardware.wokwi_part(part["type"])["attrs"]
        assert set(part["attrs"]) <= set(documented), f"{part['id']}: undocumented attribute"
        assert all(isinstance(v, str) for v in part["attrs"].values())
    mcu = next(p for p in diagram["parts"] if p["id"] == "mcu")
    env = mcu["attrs"]["env"]
    assert env == hardware.WOKWI_MICROPYTHON
    assert re.fullmatch(r"micropython-\d{8}-v\d+\.\d+\.\d+", env)

"""Board profiles, generated wiring tables and Wokwi diagrams agree with each other."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dialbox.firmware_tools import bundle, hardware

BOARDS = bundle.boards()


def test_the_three_boards_have_profiles() -> None:
    assert BOARDS == ["esp32s3_devkitc", "pico2_w", "pico_w"]


def test_generated_files_are_up_to_date() -> None:
    for path, text in hardware.outputs().items():
        assert path.exists(), f"{path} missing: run `dialbox firmware hardware`"
        assert path.read_text() == text, f"{path} drifted: run `dialbox firmware hardware`"


@pytest.mark.parametrize("board", BOARDS)
def test_profile_is_complete_and_pins_are_unique(board: str) -> None:
    prof: dict[str, Any] = bundle.profile(board)
    assert prof["board"] == board
    assert len(prof["encoders"]) == 3
    assert prof["counts_per_detent"] in (1, 2, 4)
    pins = [p for e in prof["encoders"] for p in (e["a"], e["b"])]
    pins += [prof["button"]["pin"], prof["led"]["pin"], prof["oled"]["sda"], prof["oled"]["scl"]]
    assert len(pins) == len(set(pins)), "a pin is used twice"
    if prof["encoder_driver"] == "pio":
        assert all(e["b"] == e["a"] + 1 for e in prof["encoders"]), "PIO needs B = A + 1"


@pytest.mark.parametrize("board", BOARDS)
def test_wokwi_diagram_wires_match_the_profile(board: str) -> None:
    prof: dict[str, Any] = bundle.profile(board)
    diagram = json.loads((hardware.repo_root() / "hardware" / board / "diagram.json").read_text())
    types = sorted(p["type"] for p in diagram["parts"])
    assert types.count("wokwi-ky-040") == 3
    assert {"wokwi-pushbutton", "wokwi-neopixel", "board-ssd1306"} <= set(types)
    wired = {a: b for a, b, *_ in diagram["connections"]}
    pin = str(prof["wokwi"]["pin"])
    for name, e in zip(("left", "centre", "right"), prof["encoders"], strict=True):
        assert wired[f"enc_{name}:CLK"] == "mcu:" + pin.format(e["a"])
        assert wired[f"enc_{name}:DT"] == "mcu:" + pin.format(e["b"])
    assert wired["lock:1.l"] == "mcu:" + pin.format(prof["button"]["pin"])
    assert wired["led:DIN"] == "mcu:" + pin.format(prof["led"]["pin"])
    assert wired["oled:SDA"] == "mcu:" + pin.format(prof["oled"]["sda"])
    assert wired["oled:SCL"] == "mcu:" + pin.format(prof["oled"]["scl"])


@pytest.mark.parametrize("board", BOARDS)
def test_pinout_table_names_every_profile_pin(board: str) -> None:
    prof: dict[str, Any] = bundle.profile(board)
    text = (hardware.repo_root() / "hardware" / board / "pinout.md").read_text()
    label = "GP" if prof["mcu"].startswith("rp2") else "GPIO"
    for e in prof["encoders"]:
        assert f"| CLK (A) | {label}{e['a']} |" in text
        assert f"| DT (B) | {label}{e['b']} |" in text

"""Board profiles, generated wiring pages, Wokwi diagrams, netlists and BOMs agree."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dialbox.firmware_tools import bundle, hardware

BOARDS = bundle.boards()


def test_the_boards_have_profiles() -> None:
    # The ESP32-S3-DevKitC-1 comes in two revisions whose on-board RGB LED is on different
    # pins; the firmware reads only led.pin, so each revision is its own profile.
    assert BOARDS == ["esp32s3_devkitc", "esp32s3_devkitc_v1_0", "pico2_w", "pico_w"]


def test_generated_files_are_up_to_date() -> None:
    outputs = hardware.outputs()
    for board in BOARDS:
        for name in ("pinout.md", "diagram.json", "netlist.net", "bom.md"):
            assert hardware.repo_root() / "hardware" / board / name in outputs
    for path, text in outputs.items():
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
    pins.append(prof["battery"]["adc_pin"])
    assert len(pins) == len(set(pins)), "a pin is used twice"
    if prof["encoder_driver"] == "pio":
        assert all(e["b"] == e["a"] + 1 for e in prof["encoders"]), "PIO needs B = A + 1"


@pytest.mark.parametrize("board", BOARDS)
def test_battery_is_sensed_before_the_booster_on_an_adc_free_of_wifi(board: str) -> None:
    prof: dict[str, Any] = bundle.profile(board)
    bat = prof["battery"]
    assert set(bat) == {"adc_pin", "divider", "low_mv"}  # the firmware's schema, no wifi_shared
    assert bat["divider"] == 2 and bat["low_mv"] == 3400
    if str(prof["mcu"]).startswith("rp2"):
        # GP26-28 are ADC0-2; GP29 (ADC3, VSYS/3) is the wireless chip's SPI clock.
        assert bat["adc_pin"] == 26
    else:
        # ADC1 is GPIO1-10 on the ESP32-S3; ADC2 is unusable while WiFi runs.
        assert bat["adc_pin"] == 1
    # A full 1S LiPo (4.2 V) halved stays inside a 3.3 V ADC.
    assert 4200 / bat["divider"] < 3300


def test_devkitc_revisions_drive_their_own_led_pin() -> None:
    v11, v10 = bundle.profile("esp32s3_devkitc"), bundle.profile("esp32s3_devkitc_v1_0")
    assert (v11["revision"], v11["led"]["pin"]) == ("v1.1", 38)  # also Wokwi's model
    assert (v10["revision"], v10["led"]["pin"]) == ("v1.0", 48)
    assert v11["led"]["onboard"] and v10["led"]["onboard"]
    same = {k: v for k, v in v11.items() if k not in ("board", "name", "revision", "led", "wokwi")}
    assert same == {
        k: v for k, v in v10.items() if k not in ("board", "name", "revision", "led", "wokwi")
    }


@pytest.mark.parametrize("board", BOARDS)
def test_wokwi_diagram_wires_match_the_profile(board: str) -> None:
    prof: dict[str, Any] = bundle.profile(board)
    diagram = json.loads((hardware.repo_root() / "hardware" / board / "diagram.json").read_text())
    types = sorted(p["type"] for p in diagram["parts"])
    assert types.count("wokwi-ky-040") == 3
    assert {"wokwi-pushbutton", "board-ssd1306", "wokwi-potentiometer"} <= set(types)
    mcu = next(p for p in diagram["parts"] if p["id"] == "mcu")
    assert mcu["type"] == prof["wokwi"]["part"]
    assert mcu["attrs"]["env"] == hardware.WOKWI_MICROPYTHON
    wired = {a: b for a, b, *_ in diagram["connections"]}
    pin = str(prof["wokwi"]["pin"])
    for name, e in zip(("left", "centre", "right"), prof["encoders"], strict=True):
        assert wired[f"enc_{name}:CLK"] == "mcu:" + pin.format(e["a"])
        assert wired[f"enc_{name}:DT"] == "mcu:" + pin.format(e["b"])
    assert wired["lock:1.l"] == "mcu:" + pin.format(prof["button"]["pin"])
    builtin = hardware.wokwi_part(prof["wokwi"]["part"])["builtin_ws2812"]
    if str(prof["led"]["pin"]) == str(builtin):
        assert "wokwi-neopixel" not in types  # the board model's own LED is the status LED
    else:
        assert wired["led:DIN"] == "mcu:" + pin.format(prof["led"]["pin"])
        assert wired["led:VDD"] == "mcu:" + prof["wokwi"]["v5"]  # the 5 V rail, not 3V3
    assert wired["oled:SDA"] == "mcu:" + pin.format(prof["oled"]["sda"])
    assert wired["oled:SCL"] == "mcu:" + pin.format(prof["oled"]["scl"])
    assert wired["bat:SIG"] == "mcu:" + pin.format(prof["battery"]["adc_pin"])


@pytest.mark.parametrize("board", BOARDS)
def test_pinout_table_names_every_profile_pin(board: str) -> None:
    prof: dict[str, Any] = bundle.profile(board)
    text = (hardware.repo_root() / "hardware" / board / "pinout.md").read_text()
    label = "GP" if prof["mcu"].startswith("rp2") else "GPIO"
    for e in prof["encoders"]:
        assert f"| A (KY-040: CLK) | {label}{e['a']} |" in text
        assert f"| B (KY-040: DT) | {label}{e['b']} |" in text
    assert f"| 1 | {label}{prof['button']['pin']} |" in text
    assert f"| SDA | {label}{prof['oled']['sda']} |" in text
    assert f"| SCL | {label}{prof['oled']['scl']} |" in text
    assert f"| VBAT / 2 | {label}{prof['battery']['adc_pin']} (ADC" in text
    led = prof["led"]
    if led.get("onboard"):
        assert f"| on-board RGB LED | {label}{led['pin']} |" in text
    else:
        assert f"| A (2) | {label}{led['pin']} |" in text  # through the level shifter

"""The schematic of each board: SKiDL's ERC passes, the netlist matches the profile and the BOM.

The ERC is SKiDL's: pin-type conflicts (two outputs on a net, an output on a power output, a
no-connect pin wired), unconnected pins, nets with one pin and nets nobody drives. Any error or
warning fails `make test`.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from dialbox.firmware_tools import bundle, hardware, netlist

BOARDS = bundle.boards()


def _nets(text: str) -> dict[str, set[tuple[str, str]]]:
    """Net name -> {(ref, pin)} parsed back out of a KiCad netlist."""
    out: dict[str, set[tuple[str, str]]] = {}
    for block in text.split("(net\n")[1:]:
        name = re.search(r'\(name "([^"]*)"\)', block)
        assert name is not None
        out[name.group(1)] = set(re.findall(r'\(ref "([^"]+)"\)\s*\(pin "([^"]+)"\)', block))
    return out


def _components(text: str) -> list[str]:
    return re.findall(r'\(comp\s*\(ref "([^"]+)"\)', text)


@pytest.mark.parametrize("board", BOARDS)
def test_erc_is_clean(board: str) -> None:
    assert netlist.erc(board) == []


def test_erc_finds_a_short_between_two_supplies() -> None:
    d = netlist.design("pico_w")
    u1 = d.part("U1")
    vbus = u1.pin("VBUS")[0].num  # a power output, driven by USB
    u1.nets[vbus] = netlist.V3  # ... onto the 3.3 V regulator's output
    messages, _ = netlist.check(d)
    assert any(m.startswith("ERROR") and "+3V3" in m for m in messages)


def test_erc_finds_a_dangling_wire() -> None:
    d = netlist.design("esp32s3_devkitc")
    d.part("DS1").nets["3"] = "SCL_NOWHERE"  # the OLED's SCL to a net no other pin is on
    messages, _ = netlist.check(d)
    assert any("SCL_NOWHERE" in m for m in messages)


def test_skidl_writes_no_log_files() -> None:
    sk = netlist._skidl()
    assert sk.logger.rt_logger.log_file_handlers == []
    assert sk.logger.erc_logger.log_file_handlers == []


@pytest.mark.parametrize("board", ["pico_w", "esp32s3_devkitc"])
def test_netlist_is_deterministic(board: str) -> None:
    _, again = netlist.check(netlist.design(board))
    assert again == netlist.netlist_text(board)
    assert '(date "")' in again and "SKiDL Line" not in again


@pytest.mark.parametrize("board", BOARDS)
def test_netlist_puts_every_profile_pin_on_its_net(board: str) -> None:
    prof: dict[str, Any] = bundle.profile(board)
    d = netlist.design(board)
    nets = _nets(netlist.netlist_text(board))
    u1 = d.part("U1")
    gp = "GP{}" if prof["mcu"].startswith("rp2") else "GPIO{}"

    def on(net: str, gpio: int) -> bool:
        return ("U1", u1.pin(gp.format(gpio))[0].num) in nets[net]

    for wheel, e in zip(("LEFT", "CENTRE", "RIGHT"), prof["encoders"], strict=True):
        assert on(f"ENC_{wheel}_A_IN", e["a"]) and on(f"ENC_{wheel}_B_IN", e["b"])
    assert on("LOCK_BTN", prof["button"]["pin"])
    assert on("I2C0_SDA", prof["oled"]["sda"]) and on("I2C0_SCL", prof["oled"]["scl"])
    assert on("VBAT_SENSE", prof["battery"]["adc_pin"])
    # The divider's top is on the cell itself (before the booster), not on the 5 V rail.
    top = d.between(netlist.VBAT, netlist.VBAT_SENSE)
    assert [p.value for p in top] == ["100k 1%"]
    assert {("BT1", "1"), (top[0].ref, "1")} <= nets["VBAT"]
    assert d.between(d.led_supply, netlist.VBAT_SENSE) == []
    if prof["led"].get("onboard"):
        assert "LED1" not in {ref for n in nets.values() for ref, _ in n}
    else:
        assert on("LED_DATA_3V3", prof["led"]["pin"])
        # WS2812B VDD and the level shifter's VCC on the 5 V rail, DIN behind 330 Ohm.
        assert {("LED1", "1"), ("U2", "5")} <= nets[d.led_supply]
        assert ("LED1", "4") in nets["LED_DIN"]
        assert [p.value for p in d.between("LED_DATA_5V", "LED_DIN")] == ["330"]


@pytest.mark.parametrize("board", BOARDS)
def test_encoder_channels_have_the_bourns_filter(board: str) -> None:
    d = netlist.design(board)
    for wheel in ("LEFT", "CENTRE", "RIGHT"):
        for ch in ("A", "B"):
            contact, pin = f"ENC_{wheel}_{ch}", f"ENC_{wheel}_{ch}_IN"
            assert [p.value for p in d.between(netlist.V3, contact)] == ["10k"]
            assert [p.value for p in d.between(contact, pin)] == ["10k"]
            assert [p.value for p in d.between(pin, netlist.GND)] == ["10nF"]


@pytest.mark.parametrize("board", BOARDS)
def test_bom_lists_every_netlist_part_once_for_one_and_six(board: str) -> None:
    text = (hardware.repo_root() / "hardware" / board / "bom.md").read_text()
    listed: list[str] = []
    for row in text.splitlines():
        cells = [c.strip() for c in row.strip("|").split("|")]
        if len(cells) == 7 and cells[1].isdigit():
            refs = cells[0].split(", ")
            assert int(cells[1]) == len(refs)
            assert int(cells[2]) == netlist.TABLE_OF * len(refs)
            listed += refs
    assert sorted(listed) == sorted(_components(netlist.netlist_text(board)))
    assert "PEC11R-4220F-S0024" in text and "24 detents" in text

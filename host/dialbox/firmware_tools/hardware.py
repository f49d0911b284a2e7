"""Wiring tables and Wokwi diagrams generated from the board profiles (they cannot drift)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from dialbox.firmware_tools.bundle import boards, profile
from dialbox.paths import repo_root

__all__ = ["outputs", "pinout_markdown", "repo_root", "wiring", "wokwi_diagram", "write_all"]

WHEELS = ("left", "centre", "right")
GENERATED = (
    "Generated from firmware/boards/{board}.json by `dialbox firmware hardware`; do not edit."
)


def _pin(prof: dict[str, Any], gpio: int) -> str:
    fmt = str(prof["wokwi"]["pin"])
    return fmt.format(gpio)


def wiring(prof: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(part, part pin, board pin, note) for every connection a maker solders."""
    label = "GP{}" if str(prof["mcu"]).startswith("rp2") else "GPIO{}"
    rows: list[tuple[str, str, str, str]] = []
    for e in prof["encoders"]:
        part = f"{e['wheel']} wheel encoder (KY-040)"
        rows.append((part, "CLK (A)", label.format(e["a"]), "pull-up on board"))
        rows.append((part, "DT (B)", label.format(e["b"]), "pull-up on board"))
        if e.get("push") is not None:
            rows.append((part, "SW", label.format(e["push"]), "optional push"))
        rows.append((part, "+ / GND", "3V3 / GND", ""))
    btn = prof["button"]
    level = "active low, internal pull-up" if btn.get("active_low", True) else "active high"
    rows.append(("lock button", "leg 1", label.format(btn["pin"]), level))
    rows.append(("lock button", "leg 2", "GND" if btn.get("active_low", True) else "3V3", ""))
    led = prof["led"]
    rows.append(("status LED (WS2812)", "DIN", label.format(led["pin"]), "330 R in series"))
    rows.append(("status LED (WS2812)", "VDD / GND", "3V3 / GND", "100 nF across VDD-GND"))
    o = prof["oled"]
    rows.append(
        (f"OLED SSD1306 (I2C{o['i2c']}, 0x{o['address']:02x})", "SDA", label.format(o["sda"]), "")
    )
    rows.append(
        (f"OLED SSD1306 (I2C{o['i2c']}, 0x{o['address']:02x})", "SCL", label.format(o["scl"]), "")
    )
    rows.append(("OLED SSD1306", "VCC / GND", "3V3 / GND", ""))
    bat = prof.get("battery")
    if bat:
        rows.append(("battery sense", "VSYS / 3", label.format(bat["adc_pin"]), "on-board divider"))
    return rows


def pinout_markdown(board: str) -> str:
    prof = profile(board)
    lines = [
        f"# {prof['name']} wiring",
        "",
        GENERATED.format(board=board),
        "",
        f"MicroPython firmware: `{prof['micropython']}` ({prof['micropython_url']}). "
        f"Encoder driver: `{prof['encoder_driver']}`, {prof['counts_per_detent']} counts "
        "per detent.",
        "",
        "| part | part pin | board pin | note |",
        "|---|---|---|---|",
    ]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in wiring(prof)]
    return "\n".join(lines) + "\n"


def wokwi_diagram(board: str) -> dict[str, Any]:
    """A Wokwi diagram.json: the board, three KY-040, a pushbutton, a NeoPixel, an SSD1306."""
    prof = profile(board)
    w = prof["wokwi"]
    gnd = [str(w["gnd"]).format(i) for i in range(1, 9)]
    parts: list[dict[str, Any]] = [
        {"type": w["part"], "id": "mcu", "top": 0, "left": 0, "attrs": {}},
    ]
    conns: list[list[Any]] = []

    def wire(a: str, b: str, colour: str) -> None:
        conns.append([a, b, colour, []])

    for i, e in enumerate(prof["encoders"]):
        pid = f"enc_{WHEELS[i]}"
        parts.append({"type": "wokwi-ky-040", "id": pid, "top": -160, "left": 140 * i, "attrs": {}})
        wire(f"{pid}:CLK", f"mcu:{_pin(prof, e['a'])}", "green")
        wire(f"{pid}:DT", f"mcu:{_pin(prof, e['b'])}", "blue")
        wire(f"{pid}:VCC", f"mcu:{w['v3']}", "red")
        wire(f"{pid}:GND", f"mcu:{gnd[i]}", "black")
    parts.append({"type": "wokwi-pushbutton", "id": "lock", "top": 120, "left": 220,
                  "attrs": {"color": "red", "label": "lock"}})  # fmt: skip
    wire("lock:1.l", f"mcu:{_pin(prof, prof['button']['pin'])}", "orange")
    wire("lock:2.l", f"mcu:{gnd[3]}", "black")
    parts.append({"type": "wokwi-neopixel", "id": "led", "top": 200, "left": 220, "attrs": {}})
    wire("led:DIN", f"mcu:{_pin(prof, prof['led']['pin'])}", "purple")
    wire("led:VDD", f"mcu:{w['v3']}", "red")
    wire("led:VSS", f"mcu:{gnd[4]}", "black")
    o = prof["oled"]
    parts.append({"type": "board-ssd1306", "id": "oled", "top": 120, "left": -220,
                  "attrs": {"i2cAddress": f"0x{o['address']:02x}"}})  # fmt: skip
    wire("oled:SDA", f"mcu:{_pin(prof, o['sda'])}", "yellow")
    wire("oled:SCL", f"mcu:{_pin(prof, o['scl'])}", "white")
    wire("oled:VCC", f"mcu:{w['v3']}", "red")
    wire("oled:GND", f"mcu:{gnd[5]}", "black")
    diagram: dict[str, Any] = {
        "version": 1,
        "author": "dialbox",
        "editor": "wokwi",
        "parts": parts,
        "connections": conns,
        "dependencies": {},
    }
    if "note" in w:
        diagram["note"] = w["note"]
    return diagram


def outputs() -> dict[Path, str]:
    """Every generated file under hardware/ and its exact content."""
    root = repo_root() / "hardware"
    out: dict[Path, str] = {}
    for b in boards():
        out[root / b / "pinout.md"] = pinout_markdown(b)
        out[root / b / "diagram.json"] = json.dumps(wokwi_diagram(b), indent=2) + "\n"
    return out


def write_all() -> list[Path]:
    written = []
    for path, text in outputs().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            written.append(path)
    return written

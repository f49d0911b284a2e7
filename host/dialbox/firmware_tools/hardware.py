"""Wiring pages, Wokwi diagrams, netlists and BOMs generated from the board profiles.

Everything under hardware/<board>/ comes from firmware/boards/<board>.json (through the design
in `dialbox.firmware_tools.netlist`), so none of it can drift from what the firmware drives:

- pinout.md: the wiring table, power and battery notes, the Wokwi notes and every net;
- diagram.json: a Wokwi diagram, valid for the parts in hardware/wokwi/*.json;
- netlist.net: the KiCad netlist (SKiDL), whose ERC runs in `make test`;
- bom.md: the bill of materials of the same design;
- schematic.svg: the schematic drawn from the same design (`schematic`).

The build guide's pictures and tables come from the same design too: docs/build/step-*.svg
(the schematic with one wiring step's parts highlighted) and the sections of
docs/build-guide.md between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->` (the
parts lists for one controller and for a table, and each step's parts).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from dialbox.enclosure.layout import layout as enclosure_layout
from dialbox.firmware_tools import netlist, schematic
from dialbox.firmware_tools.bundle import boards, profile
from dialbox.paths import repo_root

__all__ = [
    "GUIDE_BOARD",
    "WOKWI_MICROPYTHON",
    "guide_sections",
    "guide_text",
    "outputs",
    "pinout_markdown",
    "repo_root",
    "wiring",
    "wokwi_diagram",
    "wokwi_part",
    "write_all",
]

WHEELS = ("left", "centre", "right")
GENERATED = (
    "Generated from firmware/boards/{board}.json by `dialbox firmware hardware`; do not edit."
)
WOKWI_MICROPYTHON = "micropython-20260406-v1.28.0"
"""The MicroPython that Wokwi runs, pinned in the board part's attrs.env: 1.28.0, the release
of the project's mpy-cross (wokwi-features issues #651 and #1115 name the attribute and the
release)."""
VBAT_NOMINAL_MV = 3900
"""Where the Wokwi battery stand-in starts: a LiPo half charged."""


@cache
def wokwi_part(part_type: str) -> dict[str, Any]:
    """Pin names (and documented attrs) of one Wokwi part, from hardware/wokwi/<type>.json."""
    data: dict[str, Any] = json.loads(
        (repo_root() / "hardware" / "wokwi" / f"{part_type}.json").read_text()
    )
    return data


def _label(prof: dict[str, Any], gpio: int) -> str:
    return (f"GP{gpio}" if str(prof["mcu"]).startswith("rp2") else f"GPIO{gpio}")  # fmt: skip


def _adc(prof: dict[str, Any], gpio: int) -> str:
    if str(prof["mcu"]).startswith("rp2"):
        return f"ADC{gpio - 26}"
    return f"ADC1_CH{gpio - 1}"


def _refs(parts: list[netlist.Placed]) -> str:
    return ", ".join(f"{p.ref} {p.value}" for p in parts)


def wiring(prof: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(part, part pin, board pin, through / note) for every connection a maker solders."""
    d = netlist.design(str(prof["board"]))
    lab = _label
    rows: list[tuple[str, str, str, str]] = []
    encs = [p for p in d.parts if p.spec is netlist.ENCODER]
    for e, enc in zip(prof["encoders"], encs, strict=True):
        part = f"{e['wheel']} wheel encoder ({enc.ref})"
        for ch, ky in (("A", "CLK"), ("B", "DT")):
            contact, pin_net = enc.nets[ch], f"{enc.nets[ch]}_IN"
            series = d.between(contact, pin_net)
            pull = d.between(netlist.V3, contact)
            cap = d.between(pin_net, netlist.GND)
            rows.append((part, f"{ch} (KY-040: {ky})", lab(prof, e[ch.lower()]),
                         f"through {_refs(series)}; {_refs(pull)} pull-up to 3V3 at {ch} "
                         f"(not with a KY-040: it has its own); {_refs(cap)} to GND at the "
                         "board pin"))  # fmt: skip
        if e.get("push") is not None:
            rows.append((part, "S1 (KY-040: SW)", lab(prof, e["push"]), "S2 to GND"))
        rows.append((part, "C (KY-040: GND, + to 3V3)", "GND", ""))
    btn = prof["button"]
    sw = d.on("LOCK_BTN", netlist.BUTTON.symbol)[0]
    low = btn.get("active_low", True)
    rows.append((f"lock button ({sw.ref})", "1", lab(prof, btn["pin"]),
                 "active low, internal pull-up" if low else "active high"))  # fmt: skip
    rows.append((f"lock button ({sw.ref})", "2", "GND" if low else "3V3", ""))
    led = prof["led"]
    supply = d.led_supply
    if led.get("onboard"):
        rev = prof.get("revision", "")
        rows.append(("status LED", "on-board RGB LED", lab(prof, led["pin"]),
                     f"on the board itself ({rev}): nothing to wire"))  # fmt: skip
    else:
        buf = d.on("LED_DATA_3V3", netlist.BUFFER.symbol)[0]
        ws = d.on("LED_DIN", netlist.WS2812B.symbol)[0]
        r = d.between("LED_DATA_5V", "LED_DIN")
        dec = [p for p in d.between(supply, netlist.GND) if "LED" in p.note]
        rows.append((f"level shifter ({buf.ref} 74AHCT1G125)", "A (2)", lab(prof, led["pin"]),
                     "3.3 V data in"))  # fmt: skip
        rows.append((f"level shifter ({buf.ref} 74AHCT1G125)", "~OE (1), GND (3)", "GND",
                     "always enabled"))  # fmt: skip
        rows.append((f"level shifter ({buf.ref} 74AHCT1G125)", "VCC (5)", supply,
                     "100 nF to GND at the pin"))  # fmt: skip
        rows.append((f"level shifter ({buf.ref} 74AHCT1G125)", "Y (4)", "-",
                     f"to the LED's DIN through {_refs(r)}"))  # fmt: skip
        rows.append((f"status LED ({ws.ref} WS2812B)", "DIN (4)", "-",
                     f"from {buf.ref} Y through {_refs(r)}"))  # fmt: skip
        rows.append(
            (
                f"status LED ({ws.ref} WS2812B)",
                "VDD (1) / VSS (3)",
                f"{supply} / GND",
                f"{_refs(dec)} from {supply} to GND at the LED",
            )
        )
    o = prof["oled"]
    oled = f"OLED SSD1306 (I2C{o['i2c']}, 0x{o['address']:02x})"
    rows.append((oled, "SDA", lab(prof, o["sda"]), "module's own pull-ups"))
    rows.append((oled, "SCL", lab(prof, o["scl"]), "module's own pull-ups"))
    rows.append((oled, "VCC / GND", "3V3 / GND", "3V3, so that its pull-ups pull to 3.3 V"))
    bat = prof.get("battery")
    if bat:
        top = d.between(netlist.VBAT, netlist.VBAT_SENSE)
        under = d.between(netlist.VBAT_SENSE, netlist.GND)
        bottom = [p for p in under if p.spec is netlist.RESISTOR]
        cap = [p for p in under if p.spec is netlist.CAPACITOR]
        boost = d.on(netlist.VBOOST, netlist.BOOSTER.symbol)[0]
        diode = d.between(supply, netlist.VBOOST)
        switch = d.between(netlist.BOOST_EN, netlist.GND)
        pin = f"{lab(prof, bat['adc_pin'])} ({_adc(prof, bat['adc_pin'])})"
        rows.append(("battery sense", f"VBAT / {bat['divider']}", pin,
                     f"{_refs(top)} from the booster's BAT pin, {_refs(bottom)} to GND, "
                     f"{_refs(cap)} to GND at the board pin"))  # fmt: skip
        rows.append((f"booster ({boost.ref} PowerBoost 1000C)", "5V", supply,
                     f"through {_refs(diode)} (anode at the booster)"))  # fmt: skip
        rows.append((f"booster ({boost.ref} PowerBoost 1000C)", "GND", "GND", ""))
        rows.append((f"booster ({boost.ref} PowerBoost 1000C)", "EN", "-",
                     f"{_refs(switch)} to GND: closed = off"))  # fmt: skip
        rows.append(
            (
                f"booster ({boost.ref} PowerBoost 1000C)",
                "BAT / JST",
                "-",
                "the LiPo plugs into the booster's JST socket; BAT feeds the divider",
            )
        )
    return rows


def _power_notes(prof: dict[str, Any]) -> list[str]:
    d = netlist.design(str(prof["board"]))
    pico = str(prof["mcu"]).startswith("rp2")
    lines: list[str] = []
    if pico:
        lines.append(
            "- **Power.** USB feeds VSYS through the Pico's own Schottky diode (VSYS is about "
            "VBUS - 0.3 V, 4.7 V from a 5.0 V port). A cordless build ORs the PowerBoost's "
            "5.2 V into VSYS through a second Schottky diode, as the Pico W datasheet "
            "recommends for a second supply (VSYS about 4.9 V). The Pico's 3V3(OUT) feeds the "
            "encoders, the OLED and the pull-ups."
        )
        lines.append(
            "- **Status LED.** The WS2812B needs 3.5-5.3 V (it is characterised at 4.5-5.5 V) "
            "and a DIN high level of at least 0.7 x VDD (3.3 V at VDD = 4.7 V: a 3.3 V GPIO "
            "has no margin), so it runs from VSYS and its DIN is driven by a 74AHCT1G125 on "
            "VSYS (TTL-level inputs: 2.0 V is high), through 330 Ohm. The "
            "74AHCT1G125 is specified from 4.5 V: a USB port or cable that sags VBUS below "
            "about 4.8 V takes VSYS under that."
        )
    else:
        lines.append(
            "- **Power.** USB powers the board. A cordless build feeds the PowerBoost's 5.2 V "
            "into the 5V pin through a Schottky diode. Espressif documents the USB ports, the "
            "5V pin and the 3V3 pin as mutually exclusive supplies: switch the booster off "
            "before plugging USB in."
        )
        rev = prof.get("revision", "")
        other = "esp32s3_devkitc_v1_0" if rev == "v1.1" else "esp32s3_devkitc"
        lines.append(
            f"- **Status LED.** The board's own RGB LED, on GPIO{prof['led']['pin']} on the "
            f"{rev} board (the other revision is profile `{other}`; hardware/README.md says "
            "how to tell them apart). It is powered and wired on the board: no level shifter."
        )
    bat = prof.get("battery")
    if bat:
        pin = f"{_label(prof, bat['adc_pin'])} ({_adc(prof, bat['adc_pin'])})"
        at_pin = bat["low_mv"] / bat["divider"] / 1000
        why = ("GP29/ADC3 (VSYS/3 on the board) is the wireless chip's SPI clock while WiFi "
               "runs, and VSYS is 4.9 V behind the booster whatever the battery holds" if pico
               else "ADC2 cannot be read while WiFi runs")  # fmt: skip
        lines.append(
            f"- **Battery.** The cell's own voltage (VBAT, before the booster, 3.0-4.2 V) is "
            f"halved by 100k/100k (1 %) with 100 nF at the pin and read on {pin}; {why}. The "
            f"firmware reports a low battery below {bat['low_mv']} mV ({at_pin:.2f} V at the "
            f"pin). The divider draws VBAT / 200 kOhm, about 21 uA, all the time."
        )
        lines.append(
            f"- **USB-only build.** Leave out the booster, the cell, the diode and the switch, "
            f"and connect the divider's top to {d.led_supply} instead of VBAT: the pin then "
            f"reads about half the supply and never reports a low battery."
        )
    lines.append(
        "- **Encoders.** Each A/B contact has the filter Bourns suggests for the PEC11R: "
        "10 kOhm pull-up at the contact, 10 kOhm in series, 10 nF to GND at the board pin "
        "(about 0.1 ms falling, 0.2 ms rising). The firmware also turns on the internal "
        "pull-up of each encoder pin: it sits behind the 10 kOhm series resistor, so a closed "
        "contact reads about 0.55 V on an RP2040 (pull-up 50-80 kOhm, low below 0.8 V) and "
        "about 0.6 V on an ESP32-S3 (about 45 kOhm, low below 0.25 x 3.3 V): harmless. A "
        "KY-040 module already carries 10 kOhm pull-ups on CLK and DT: with it, fit only the "
        "series resistors and the capacitors."
    )
    return lines


def _wokwi_notes(prof: dict[str, Any]) -> list[str]:
    w = prof["wokwi"]
    lines = [
        f'- The board part pins MicroPython with `"env": "{WOKWI_MICROPYTHON}"` (1.28.0, '
        "the release of the project's mpy-cross). Without it Wokwi runs whatever default its "
        "template or board definition names.",
        "- Not simulated: the encoders' RC filters (the KY-040 parts connect straight to the "
        "pins) and the booster and cell. A potentiometer (`bat`) on the battery pin stands in "
        "for VBAT / 2: turn it below "
        f"{prof['battery']['low_mv'] / prof['battery']['divider'] / 3300:.0%} of its travel "
        "for a low battery (Wokwi does no full analog simulation: the pin reads the knob "
        "position).",
        "- Wokwi documents ADC simulation for its ESP32 boards; its wokwi-pi-pico page lists "
        "the RP2040's ADC as not simulated and the Pico W model's ADC is not documented, so "
        "there the stand-in may read nothing."
        if str(prof["mcu"]).startswith("rp2")
        else "- Wokwi documents ADC simulation for the ESP32-S3.",
    ]
    if not prof["led"].get("onboard"):
        lines.append(
            "- Wokwi has no 74AHCT1G125 and its NeoPixel ignores supply voltage and logic "
            f"levels: DIN is wired straight to {_label(prof, prof['led']['pin'])} and VDD to "
            f"{w['v5']}."
        )
    if "note" in w:
        lines.append(f"- {w['note']}.")
    return lines


def pinout_markdown(board: str) -> str:
    prof = profile(board)
    lines = [
        f"# {prof['name']} wiring",
        "",
        GENERATED.format(board=board),
        "",
        f"MicroPython firmware: `{prof['micropython']}` ({prof['micropython_url']}). "
        f"Encoder driver: `{prof['encoder_driver']}`, {prof['counts_per_detent']} counts "
        "per detent. Parts list: [bom.md](bom.md); KiCad netlist: [netlist.net](netlist.net); "
        "Wokwi: [diagram.json](diagram.json).",
        "",
        "| part | part pin | board pin | through / note |",
        "|---|---|---|---|",
    ]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in wiring(prof)]
    lines += ["", "## Power, LED, battery, encoders", "", *_power_notes(prof)]
    lines += ["", "## Wokwi", "", *_wokwi_notes(prof)]
    lines += ["", "## Every net", "",
              "The netlist as a table (`ref.pin (name)`); unlisted pins are left open.", "",
              *netlist.nets_markdown(board)]  # fmt: skip
    return "\n".join(lines) + "\n"


def wokwi_diagram(board: str) -> dict[str, Any]:
    """A Wokwi diagram.json: the board, three KY-040, a pushbutton, the LED, an SSD1306 and a
    potentiometer standing in for the battery divider."""
    prof = profile(board)
    w = prof["wokwi"]
    mcu = wokwi_part(str(w["part"]))
    gnds = [p for p in mcu["pins"] if str(p).startswith("GND.")]
    used = [0]

    def gnd() -> str:
        used[0] += 1
        return f"mcu:{gnds[(used[0] - 1) % len(gnds)]}"

    def pin(gpio: int) -> str:
        return "mcu:" + str(w["pin"]).format(gpio)

    parts: list[dict[str, Any]] = [
        {"type": w["part"], "id": "mcu", "top": 0, "left": 0,
         "attrs": {"env": WOKWI_MICROPYTHON}},
    ]  # fmt: skip
    conns: list[list[Any]] = []

    def wire(a: str, b: str, colour: str) -> None:
        conns.append([a, b, colour, []])

    for i, e in enumerate(prof["encoders"]):
        pid = f"enc_{WHEELS[i]}"
        parts.append({"type": "wokwi-ky-040", "id": pid, "top": -160, "left": 140 * i, "attrs": {}})
        wire(f"{pid}:CLK", pin(e["a"]), "green")
        wire(f"{pid}:DT", pin(e["b"]), "blue")
        wire(f"{pid}:VCC", f"mcu:{w['v3']}", "red")
        wire(f"{pid}:GND", gnd(), "black")
        if e.get("push") is not None:
            wire(f"{pid}:SW", pin(e["push"]), "orange")
    parts.append({"type": "wokwi-pushbutton", "id": "lock", "top": 120, "left": 220,
                  "attrs": {"color": "red", "label": "lock"}})  # fmt: skip
    wire("lock:1.l", pin(prof["button"]["pin"]), "orange")
    wire("lock:2.l", gnd(), "black")
    led = prof["led"]
    if str(led["pin"]) != str(mcu.get("builtin_ws2812")):
        parts.append({"type": "wokwi-neopixel", "id": "led", "top": 200, "left": 220, "attrs": {}})
        wire("led:DIN", pin(led["pin"]), "purple")
        wire("led:VDD", f"mcu:{w['v5']}", "red")
        wire("led:VSS", gnd(), "black")
    o = prof["oled"]
    parts.append({"type": "board-ssd1306", "id": "oled", "top": 120, "left": -220,
                  "attrs": {"i2c-address": f"0x{o['address']:02x}"}})  # fmt: skip
    wire("oled:SDA", pin(o["sda"]), "yellow")
    wire("oled:SCL", pin(o["scl"]), "white")
    wire("oled:VCC", f"mcu:{w['v3']}", "red")
    wire("oled:GND", gnd(), "black")
    bat = prof.get("battery")
    if bat:
        value = round(VBAT_NOMINAL_MV / bat["divider"] / 3300 * 1023)
        parts.append({"type": "wokwi-potentiometer", "id": "bat", "top": 200, "left": -220,
                      "attrs": {"value": str(value)}})  # fmt: skip
        wire("bat:SIG", pin(bat["adc_pin"]), "gray")
        wire("bat:VCC", f"mcu:{w['v3']}", "red")
        wire("bat:GND", gnd(), "black")
    return {
        "version": 1,
        "author": "dialbox",
        "editor": "wokwi",
        "parts": parts,
        "connections": conns,
        "dependencies": {},
    }


def _bom_extras(prof: dict[str, Any]) -> list[tuple[int, str, str, str]]:
    shell = enclosure_layout(prof["board"]).shell
    size = f"{shell.width:g} x {shell.depth:g} x {shell.height:g} mm"
    return [
        (3, "knob for a 6 mm D shaft, printed with the wheel faces", "3D printed",
         "left: 8 directions, centre: 0-9 on colours, right: A-D"),
        (1, "micro-USB data cable", "", "power and the serial link (all three boards "
         "have micro-USB)"),
        (1, "perfboard 50 x 70 mm, female headers for the board, hook-up wire", "", ""),
        (1, f"enclosure, two parts, {size}", "3D printed",
         "`dialbox hardware enclosure`; docs/build-guide.md"),
    ]  # fmt: skip


GUIDE_BOARD = "pico_w"
"""The board the build guide's step pictures are drawn for (the Picos share one design)."""
_MARK = re.compile(r"(<!-- generated:([a-z0-9-]+) -->\n).*?(<!-- /generated:\2 -->)", re.S)


def _board_families() -> list[tuple[list[str], netlist.Design]]:
    """Boards whose BOMs are the same part for part, with one design of each."""
    fams: list[tuple[list[str], netlist.Design]] = []
    for b in boards():
        d = netlist.design(b)
        key = sorted((p.spec.description, p.value, p.group) for p in d.parts[1:])
        for names, other in fams:
            if sorted((p.spec.description, p.value, p.group) for p in other.parts[1:]) == key:
                names.append(b)
                break
        else:
            fams.append(([b], d))
    return sorted(fams, key=lambda f: GUIDE_BOARD not in f[0])  # the guide's board first


def _parts_rows(group: str) -> list[str]:
    fams = _board_families()
    items: dict[tuple[str, str], dict[int, list[str]]] = {}
    for i, (_, d) in enumerate(fams):
        for p in d.parts:
            if p.group != group:
                continue
            what = p.spec.description if p is not d.parts[0] else "the board"
            value = p.value if p is not d.parts[0] else ""
            items.setdefault((what, value), {}).setdefault(i, []).append(p.ref)
    rows = []
    for (what, value), per in items.items():
        cells = []
        for i, (_, d) in enumerate(fams):
            refs = per.get(i, [])
            if what == "the board":
                cells.append(f"1 / {netlist.TABLE_OF} ({d.parts[0].ref}): {d.parts[0].spec.buy}")
            elif refs:
                cells.append(f"{len(refs)} / {len(refs) * netlist.TABLE_OF} ({', '.join(refs)})")
            else:
                cells.append("-")
        rows.append(f"| {what} | {value} | " + " | ".join(cells) + " |")
    return rows


def _parts_markdown() -> str:
    fams = _board_families()
    head = " | ".join(" or ".join(f"`{b}`" for b in sorted(names, reverse=True))
                      + ": one / a table" for names, _ in fams)  # fmt: skip
    rule = "|---|---|" + "---|" * len(fams)
    lines = [f"Quantities for one controller / for a table of {netlist.TABLE_OF} "
             "(with the references of the netlist); each board's own list, with what to buy, "
             "is `hardware/<board>/bom.md`.", "",
             "**Every controller**", "", f"| part | value | {head} |", rule,
             *_parts_rows("controller"), "",
             "**Cordless (battery) builds only**", "", f"| part | value | {head} |", rule,
             *_parts_rows("battery"), "",
             "**Not on the netlist**", "", f"| item | one / a table of {netlist.TABLE_OF} | "
             "source | note |", "|---|---|---|---|"]  # fmt: skip
    for qty, item, source, note in _bom_extras(profile(GUIDE_BOARD)):
        lines.append(f"| {item} | {qty} / {qty * netlist.TABLE_OF} | {source} | {note} |")
    return "\n".join(lines) + "\n"


def _step_markdown(step: schematic.Step) -> str:
    d = netlist.design(GUIDE_BOARD)
    refs = schematic.step_parts(d, step.slug)
    parts = [d.part(r) for r in refs]
    listed = ", ".join(f"{p.ref} ({p.value})" for p in parts)
    return (
        f"![Step {step.n}: {step.title}](build/step-{step.n}-{step.slug}.svg)\n\n"
        f"*{step.title}: the parts of this step in blue ({d.title}).* Parts: {listed}.\n"
    )


def guide_sections() -> dict[str, str]:
    """The generated sections of docs/build-guide.md, by marker name."""
    out = {"parts": _parts_markdown()}
    for step in schematic.STEPS:
        out[f"step-{step.n}"] = _step_markdown(step)
    return out


def guide_text(current: str) -> str:
    """The build guide with every generated section filled in from the design."""
    sections = guide_sections()

    def fill(m: re.Match[str]) -> str:
        name = m.group(2)
        if name not in sections:
            raise ValueError(f"docs/build-guide.md: no generated section {name!r}")
        return m.group(1) + sections[name] + m.group(3)

    return _MARK.sub(fill, current)


def outputs() -> dict[Path, str]:
    """Every generated file (under hardware/, docs/build/ and the build guide's generated
    sections) and its exact content."""
    root = repo_root() / "hardware"
    out: dict[Path, str] = {}
    for b in boards():
        prof = profile(b)
        gen = GENERATED.format(board=b)
        out[root / b / "pinout.md"] = pinout_markdown(b)
        out[root / b / "diagram.json"] = json.dumps(wokwi_diagram(b), indent=2) + "\n"
        out[root / b / "netlist.net"] = netlist.netlist_text(b)
        out[root / b / "bom.md"] = netlist.bom_markdown(b, gen, _bom_extras(prof))
        out[root / b / "schematic.svg"] = schematic.schematic_svg(b)
    docs = repo_root() / "docs"
    for step in schematic.STEPS:
        out[docs / "build" / f"step-{step.n}-{step.slug}.svg"] = schematic.step_svg(
            GUIDE_BOARD, step.slug
        )
    guide = docs / "build-guide.md"
    if guide.exists():
        out[guide] = guide_text(guide.read_text())
    return out


def write_all() -> list[Path]:
    written = []
    for path, text in outputs().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            written.append(path)
    return written

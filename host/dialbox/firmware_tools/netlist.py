"""One controller's schematic from its board profile: parts, pins, nets, ERC, netlist and BOM.

`design(board)` turns firmware/boards/<board>.json into a `Design`: every part with every pin
and the net each pin is on. The same `Design` gives

- the KiCad netlist (`netlist_text`, through SKiDL, hardware/<board>/netlist.net),
- SKiDL's electrical rules check (`erc`; `make test` fails on any error or warning),
- the bill of materials (`bom_markdown`, hardware/<board>/bom.md), and
- the net table of the wiring page (`nets_markdown`).

No KiCad library is needed: every part is defined here with its pins (module header pins are
numbered and named as on the board makers' pinouts). Footprints are not assigned: the
controller is hand-wired on perfboard; assign them in KiCad to lay out a PCB.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from dialbox.firmware_tools.bundle import profile

__all__ = [
    "TABLE_OF",
    "Design",
    "PartSpec",
    "PinSpec",
    "Placed",
    "bom_markdown",
    "check",
    "design",
    "erc",
    "nets_markdown",
    "netlist_text",
]

TABLE_OF = 6
"""Controllers at one table: the BOM gives quantities for one controller and for this many."""

WHEELS = ("left", "centre", "right")
NC = ""
"""Net name of a pin left unconnected (SKiDL's no-connect net)."""

GND, V3 = "GND", "+3V3"
VBAT, VBOOST, BOOST_EN, VBAT_SENSE = "VBAT", "VBOOST", "BOOST_EN", "VBAT_SENSE"


@dataclass(frozen=True)
class PinSpec:
    num: str
    name: str
    kind: str
    """SKiDL pin type: INPUT, OUTPUT, BIDIR, TRISTATE, PASSIVE, PWRIN, PWROUT."""


@dataclass(frozen=True)
class PartSpec:
    """One kind of part: its symbol (pins) and what to buy."""

    symbol: str
    description: str
    pins: tuple[PinSpec, ...]
    buy: str
    """Manufacturer part number or module name, with an example where there is one."""
    note: str = ""


@dataclass
class Placed:
    """A part in one controller: reference, value, spec and the net of every pin (by number)."""

    ref: str
    spec: PartSpec
    value: str
    nets: dict[str, str] = field(default_factory=dict)
    group: str = "controller"
    """BOM section: "controller" (every build) or "battery" (cordless builds only)."""
    note: str = ""
    """What this one part is for (netlist field "Note", wiring page)."""
    role: str = ""
    """What parts of this kind and value are for (BOM note); defaults to `note`."""

    def pin(self, name_or_num: str) -> list[PinSpec]:
        return [p for p in self.spec.pins if name_or_num in (p.num, p.name)]


@dataclass
class Design:
    board: str
    title: str
    parts: list[Placed]
    power_flags: tuple[str, ...]
    """Nets driven by a source that is not on this netlist (KiCad's PWR_FLAG): GND, and the
    module's own USB-fed rail (Pico VSYS from VBUS through its diode D1, DevKitC 5V)."""
    led_supply: str
    """The 5 V rail that feeds the WS2812B and its level shifter (VSYS / +5V)."""

    def part(self, ref: str) -> Placed:
        return next(p for p in self.parts if p.ref == ref)

    def between(self, a: str, b: str) -> list[Placed]:
        """The two-pin parts with one pin on net `a` and the other on net `b`."""
        return [p for p in self.parts if len(p.spec.pins) == 2
                and sorted(p.nets.values()) == sorted((a, b))]  # fmt: skip

    def on(self, net: str, symbol: str) -> list[Placed]:
        """The parts of one symbol with a pin on `net`."""
        return [p for p in self.parts if p.spec.symbol == symbol and net in p.nets.values()]

    def nets(self) -> dict[str, list[tuple[str, PinSpec]]]:
        """Net name -> (ref, pin) for every connected pin, nets and nodes sorted."""
        out: dict[str, list[tuple[str, PinSpec]]] = {}
        for p in self.parts:
            for pin in p.spec.pins:
                net = p.nets.get(pin.num, NC)
                if net != NC:
                    out.setdefault(net, []).append((p.ref, pin))
        return {k: sorted(v, key=lambda n: (_natural(n[0]), _natural(n[1].num))) for k, v in
                sorted(out.items())}  # fmt: skip


def _natural(s: str) -> tuple[Any, ...]:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s))


def _two(kind: str = "PASSIVE", a: str = "~", b: str = "~") -> tuple[PinSpec, ...]:
    return (PinSpec("1", a, kind), PinSpec("2", b, kind))


# ---------------------------------------------------------------------------------------------
# Parts. Pin numbers and names follow the makers' pinouts (cited in hardware/README.md).

# Raspberry Pi Pico W / Pico 2 W: the 40-pin castellated header (same on both boards).
_PICO_HEADER: tuple[tuple[int, str], ...] = (
    (1, "GP0"), (2, "GP1"), (3, "GND"), (4, "GP2"), (5, "GP3"), (6, "GP4"), (7, "GP5"),
    (8, "GND"), (9, "GP6"), (10, "GP7"), (11, "GP8"), (12, "GP9"), (13, "GND"), (14, "GP10"),
    (15, "GP11"), (16, "GP12"), (17, "GP13"), (18, "GND"), (19, "GP14"), (20, "GP15"),
    (21, "GP16"), (22, "GP17"), (23, "GND"), (24, "GP18"), (25, "GP19"), (26, "GP20"),
    (27, "GP21"), (28, "GND"), (29, "GP22"), (30, "RUN"), (31, "GP26"), (32, "GP27"),
    (33, "AGND"), (34, "GP28"), (35, "ADC_VREF"), (36, "3V3(OUT)"), (37, "3V3_EN"), (38, "GND"),
    (39, "VSYS"), (40, "VBUS"),
)  # fmt: skip
_PICO_KIND = {
    "GND": "PWRIN", "AGND": "PWRIN", "3V3(OUT)": "PWROUT", "VSYS": "PWRIN", "VBUS": "PWROUT",
    "RUN": "INPUT", "3V3_EN": "INPUT", "ADC_VREF": "PASSIVE",
}  # fmt: skip

# ESP32-S3-DevKitC-1 (v1.0 and v1.1 share the headers): J1 and J3, 22 pins each.
_DEVKITC_J1 = ("3V3", "3V3", "RST", "GPIO4", "GPIO5", "GPIO6", "GPIO7", "GPIO15", "GPIO16",
               "GPIO17", "GPIO18", "GPIO8", "GPIO3", "GPIO46", "GPIO9", "GPIO10", "GPIO11",
               "GPIO12", "GPIO13", "GPIO14", "5V", "G")  # fmt: skip
_DEVKITC_J3 = ("G", "TX", "RX", "GPIO1", "GPIO2", "GPIO42", "GPIO41", "GPIO40", "GPIO39",
               "GPIO38", "GPIO37", "GPIO36", "GPIO35", "GPIO0", "GPIO45", "GPIO48", "GPIO47",
               "GPIO21", "GPIO20", "GPIO19", "G", "G")  # fmt: skip
_DEVKITC_KIND = {"3V3": "PWROUT", "5V": "PWRIN", "G": "PWRIN", "RST": "INPUT"}


def _module_spec(prof: dict[str, Any]) -> PartSpec:
    if str(prof["mcu"]).startswith("rp2"):
        pins = tuple(PinSpec(str(n), name, _PICO_KIND.get(name, "BIDIR"))
                     for n, name in _PICO_HEADER)  # fmt: skip
        return PartSpec(
            "RaspberryPi_Pico_W_Header",
            "Raspberry Pi Pico W / Pico 2 W, 40-pin header (pin 33 is AGND)",
            pins,
            "Raspberry Pi Pico W or Pico 2 W (with or without soldered headers)",
        )
    pins = tuple(PinSpec(f"J1-{i}", name, _DEVKITC_KIND.get(name, "BIDIR"))
                 for i, name in enumerate(_DEVKITC_J1, 1))  # fmt: skip
    pins += tuple(PinSpec(f"J3-{i}", name, _DEVKITC_KIND.get(name, "BIDIR"))
                  for i, name in enumerate(_DEVKITC_J3, 1))  # fmt: skip
    return PartSpec(
        "ESP32-S3-DevKitC-1_Headers",
        "Espressif ESP32-S3-DevKitC-1, headers J1 and J3 (TX = GPIO43, RX = GPIO44)",
        pins,
        "Espressif ESP32-S3-DevKitC-1-N8R8 (N8R8: GPIO35-37 belong to the octal PSRAM)",
    )


ENCODER = PartSpec(
    "RotaryEncoder_Switch",
    "Incremental encoder, 24 detents / 24 pulses per turn, push switch",
    (PinSpec("A", "A", "PASSIVE"), PinSpec("B", "B", "PASSIVE"), PinSpec("C", "C", "PASSIVE"),
     PinSpec("S1", "S1", "PASSIVE"), PinSpec("S2", "S2", "PASSIVE")),
    "Bourns PEC11R-4220F-S0024 (20 mm flatted shaft), or a KY-040 module",
    "24 pulses per turn = one full quadrature cycle per detent (4 counts). A KY-040 module "
    "(typically 20 detents) carries its own 10 kΩ pull-ups on CLK (A) and DT (B): leave out the "
    "A/B pull-up resistors with it",
)  # fmt: skip
BUTTON = PartSpec(
    "SW_Push", "Momentary push button, normally open", _two(),
    "12 mm tactile switch with cap, or a panel-mount push button (e.g. E-Switch PV5S64012)",
)  # fmt: skip
POWER_SWITCH = PartSpec(
    "SW_SPST", "Slide switch (two of its terminals used)", _two(),
    "SPDT slide switch, e.g. C&K OS102011MA1QN1",
    "turns the booster off by pulling its EN to GND",
)  # fmt: skip
RESISTOR = PartSpec("R", "Resistor, 1/4 W", _two(), "")
CAPACITOR = PartSpec("C", "Capacitor", _two(), "")
SCHOTTKY = PartSpec(
    "D_Schottky", "Schottky diode, 1 A 20 V", (PinSpec("1", "K", "PASSIVE"),
                                                PinSpec("2", "A", "PASSIVE")),
    "1N5817 (DO-41)",
)  # fmt: skip
WS2812B = PartSpec(
    "WS2812B", "Addressable RGB LED (VDD 3.5-5.3 V, DIN high >= 0.7 VDD)",
    (PinSpec("1", "VDD", "PWRIN"), PinSpec("2", "DOUT", "OUTPUT"),
     PinSpec("3", "VSS", "PWRIN"), PinSpec("4", "DIN", "INPUT")),
    "Worldsemi WS2812B (5050), e.g. on a single-LED breakout",
)  # fmt: skip
BUFFER = PartSpec(
    "74AHCT1G125", "Single bus buffer, 3-state, TTL-level inputs (VCC 4.5-5.5 V)",
    (PinSpec("1", "~{OE}", "INPUT"), PinSpec("2", "A", "INPUT"), PinSpec("3", "GND", "PWRIN"),
     PinSpec("4", "Y", "TRISTATE"), PinSpec("5", "VCC", "PWRIN")),
    "Texas Instruments SN74AHCT1G125DBVR (SOT-23-5; on perfboard use a SOT-23 adapter, "
    "or one gate of an SN74AHCT125N, DIP-14, with the unused inputs tied to GND)",
)  # fmt: skip
OLED = PartSpec(
    "SSD1306_I2C_Module", "0.96\" 128x64 SSD1306 OLED module, I2C (pin order varies: check it)",
    (PinSpec("1", "GND", "PWRIN"), PinSpec("2", "VCC", "PWRIN"), PinSpec("3", "SCL", "INPUT"),
     PinSpec("4", "SDA", "BIDIR")),
    "generic 4-pin SSD1306 I2C module, address 0x3C",
    "powered from 3V3 so that its on-board I2C pull-ups pull to 3.3 V",
)  # fmt: skip
BOOSTER = PartSpec(
    "PowerBoost_1000C", "Adafruit PowerBoost 1000C: LiPo charger + 5.2 V boost (pins by label)",
    (PinSpec("BAT", "BAT", "PWRIN"), PinSpec("GND", "GND", "PWRIN"),
     PinSpec("5V", "5V", "PWROUT"), PinSpec("EN", "EN", "INPUT"),
     PinSpec("LBO", "LBO", "OUTPUT"), PinSpec("VS", "VS", "PWROUT"),
     PinSpec("USB", "USB", "PWROUT")),
    "Adafruit 2465 (PowerBoost 1000C)",
    "charge through its own micro-USB socket; EN is pulled up on the module",
)  # fmt: skip
BATTERY = PartSpec(
    "Battery_Cell", "1S LiPo cell, 3.0-4.2 V, JST-PH plug",
    (PinSpec("1", "+", "PWROUT"), PinSpec("2", "-", "PASSIVE")),
    "3.7 V LiPo, 1000-2000 mAh, with protection circuit and JST-PH 2-pin plug",
    "plugs into the PowerBoost's JST socket (same nodes as its BAT and GND pins)",
)  # fmt: skip


# ---------------------------------------------------------------------------------------------
# The design of one controller.


class _Builder:
    def __init__(self, prof: dict[str, Any]) -> None:
        self.prof = prof
        self.parts: list[Placed] = []
        self.counters: dict[str, int] = {}

    def add(self, prefix: str, spec: PartSpec, value: str, group: str = "controller",
            note: str = "", role: str = "") -> Placed:  # fmt: skip
        n = self.counters.get(prefix, 0) + 1
        self.counters[prefix] = n
        p = Placed(f"{prefix}{n}", spec, value, group=group, note=note, role=role or note)
        self.parts.append(p)
        return p

    def two(self, prefix: str, spec: PartSpec, value: str, a: str, b: str,
            group: str = "controller", note: str = "", role: str = "") -> Placed:  # fmt: skip
        p = self.add(prefix, spec, value, group, note, role)
        p.nets.update({"1": a, "2": b})
        return p

    def gpio_name(self, gpio: int) -> str:
        return f"GP{gpio}" if str(self.prof["mcu"]).startswith("rp2") else f"GPIO{gpio}"

    def mcu(self, u: Placed, gpio: int, net: str) -> None:
        pins = u.pin(self.gpio_name(gpio))
        if len(pins) != 1:
            raise ValueError(f"{self.prof['board']}: no header pin for GPIO{gpio}")
        if u.nets.get(pins[0].num, NC) not in (NC, net):
            raise ValueError(f"{self.prof['board']}: GPIO{gpio} used twice")
        u.nets[pins[0].num] = net


def design(board: str) -> Design:
    """The schematic of one controller built on `board`, from its profile."""
    prof = profile(board)
    b = _Builder(prof)
    pico = str(prof["mcu"]).startswith("rp2")
    u1 = b.add("U", _module_spec(prof), str(prof["name"]))
    for pin in u1.spec.pins:  # every ground pin; the first 3V3 pin is the 3.3 V rail
        if pin.name in ("GND", "AGND", "G"):
            u1.nets[pin.num] = GND
    u1.nets[u1.pin("3V3(OUT)" if pico else "3V3")[0].num] = V3
    supply = "VSYS" if pico else "+5V"
    u1.nets[u1.pin("VSYS" if pico else "5V")[0].num] = supply

    # Encoders: Bourns' suggested filter per channel (10 kΩ pull-up at the contact, 10 kΩ in
    # series, 10 nF to GND at the MCU pin); C is the common contact.
    for i, e in enumerate(prof["encoders"]):
        wheel = WHEELS[i].upper()
        enc = b.add("ENC", ENCODER, "PEC11R-4220F-S0024", note=f"{WHEELS[i]} wheel",
                    role="one per wheel")  # fmt: skip
        enc.nets["C"] = GND
        for ch in ("A", "B"):
            contact, pin_net = f"ENC_{wheel}_{ch}", f"ENC_{wheel}_{ch}_IN"
            enc.nets[ch] = contact
            b.two("R", RESISTOR, "10k", V3, contact, note=f"{WHEELS[i]} {ch} pull-up",
                  role="encoder A/B pull-ups (leave out with KY-040 modules) and series "
                  "resistors")  # fmt: skip
            b.two("R", RESISTOR, "10k", contact, pin_net, note=f"{WHEELS[i]} {ch} series",
                  role="encoder A/B pull-ups (leave out with KY-040 modules) and series "
                  "resistors")  # fmt: skip
            b.two("C", CAPACITOR, "10nF", pin_net, GND, note=f"{WHEELS[i]} {ch} filter",
                  role="encoder A/B filter, at the board pin")  # fmt: skip
            b.mcu(u1, int(e[ch.lower()]), pin_net)
        if e.get("push") is not None:
            enc.nets["S1"] = f"ENC_{wheel}_SW"
            enc.nets["S2"] = GND
            b.mcu(u1, int(e["push"]), f"ENC_{wheel}_SW")

    btn = prof["button"]
    b.two("SW", BUTTON, "lock", "LOCK_BTN", GND if btn.get("active_low", True) else V3,
          note="lock button")  # fmt: skip
    b.mcu(u1, int(btn["pin"]), "LOCK_BTN")

    led = prof["led"]
    if led.get("onboard"):
        # The DevKitC's own RGB LED, driven and powered on the board: nothing to wire.
        pass
    else:
        b.mcu(u1, int(led["pin"]), "LED_DATA_3V3")
        buf = b.add("U", BUFFER, "74AHCT1G125", note="3.3 V -> 5 V level shifter for DIN")
        buf.nets.update({"1": GND, "2": "LED_DATA_3V3", "3": GND, "4": "LED_DATA_5V",
                         "5": supply})  # fmt: skip
        b.two("C", CAPACITOR, "100nF", supply, GND, note="level shifter decoupling")
        b.two("R", RESISTOR, "330", "LED_DATA_5V", "LED_DIN", note="in series with DIN")
        ws = b.add("LED", WS2812B, "WS2812B", note="status LED")
        ws.nets.update({"1": supply, "3": GND, "4": "LED_DIN"})
        b.two("C", CAPACITOR, "100nF", supply, GND, note="LED decoupling, at the LED")
        b.two("C", CAPACITOR, "10uF", supply, GND, note="LED reservoir, at the LED")

    o = prof["oled"]
    sda, scl = f"I2C{o['i2c']}_SDA", f"I2C{o['i2c']}_SCL"
    disp = b.add("DS", OLED, "SSD1306 128x64", note=f"I2C address 0x{int(o['address']):02X}")
    disp.nets.update({"1": GND, "2": V3, "3": scl, "4": sda})
    b.mcu(u1, int(o["sda"]), sda)
    b.mcu(u1, int(o["scl"]), scl)

    bat = prof.get("battery")
    if bat:
        cell = b.add("BT", BATTERY, "LiPo 1S", group="battery")
        cell.nets.update({"1": VBAT, "2": GND})
        boost = b.add("U", BOOSTER, "PowerBoost 1000C", group="battery")
        boost.nets.update({"BAT": VBAT, "GND": GND, "5V": VBOOST, "EN": BOOST_EN})
        b.two(
            "D",
            SCHOTTKY,
            "1N5817",
            supply,
            VBOOST,
            group="battery",
            note=f"ORs the booster into {supply}; keeps the booster from being back-fed",
        )
        b.two("SW", POWER_SWITCH, "power", BOOST_EN, GND, group="battery",
              note="closed = off")  # fmt: skip
        div = int(bat["divider"])
        if div != 2:
            raise ValueError(f"{board}: the netlist knows the 100k/100k divider (2), not {div}")
        b.two("R", RESISTOR, "100k 1%", VBAT, VBAT_SENSE, note="battery divider, top",
              role="battery divider")  # fmt: skip
        b.two("R", RESISTOR, "100k 1%", VBAT_SENSE, GND, note="battery divider, bottom",
              role="battery divider")  # fmt: skip
        b.two("C", CAPACITOR, "100nF", VBAT_SENSE, GND, note="battery divider, at the ADC pin")
        b.mcu(u1, int(bat["adc_pin"]), VBAT_SENSE)

    for p in b.parts:  # every pin named: unlisted ones are left open (no-connect)
        for pin in p.spec.pins:
            p.nets.setdefault(pin.num, NC)
    return Design(board, str(prof["name"]), b.parts, (GND, supply), supply)


# ---------------------------------------------------------------------------------------------
# SKiDL: the circuit, its ERC and the KiCad netlist.

_SKIDL: Any = None


def _skidl() -> Any:
    """Import SKiDL quietly, without the log files it writes into the working directory."""
    global _SKIDL
    if _SKIDL is None:
        cwd = os.getcwd()
        sink = io.StringIO()
        with tempfile.TemporaryDirectory() as tmp:
            os.chdir(tmp)  # SKiDL opens <script>.log / .erc here on import ...
            try:
                with contextlib.redirect_stderr(sink), contextlib.redirect_stdout(sink):
                    import skidl  # type: ignore[import-untyped]

                    skidl.logger.stop_log_file_output()  # ... and removes them again here
            finally:
                os.chdir(cwd)
        for lg in (skidl.logger.rt_logger, skidl.logger.erc_logger):  # no console chatter
            for h in list(lg.handlers):
                if type(h) is logging.StreamHandler:
                    lg.removeHandler(h)
        _SKIDL = skidl
    return _SKIDL


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(f"{record.levelname}: {record.getMessage()}")


@contextlib.contextmanager
def _collected(logger: Any) -> Iterator[_Collect]:
    h = _Collect()
    logger.addHandler(h)
    try:
        yield h
    finally:
        logger.removeHandler(h)


@contextlib.contextmanager
def _untraced() -> Iterator[None]:
    """Skip SKiDL's per-object call-stack capture (inspect.stack() for every part and net):
    it only feeds the netlist's "SKiDL Line" fields, which are turned off, and is most of the
    build time."""
    mods: list[Any] = [sys.modules["skidl.circuit"], sys.modules["skidl.node"]]
    saved = [m.get_skidl_trace for m in mods]
    for m in mods:
        m.get_skidl_trace = list
    try:
        yield
    finally:
        for m, f in zip(mods, saved, strict=True):
            m.get_skidl_trace = f


def _circuit(d: Design) -> Any:
    sk = _skidl()
    with _untraced():
        return _build(sk, d)


def _build(sk: Any, d: Design) -> Any:
    circ = sk.Circuit()
    circ.no_files = True
    templates: dict[str, Any] = {}
    pins: dict[tuple[str, str], Any] = {}
    for p in d.parts:
        t = templates.get(p.spec.symbol)
        if t is None:
            t = sk.Part(
                tool=sk.SKIDL, name=p.spec.symbol, dest=sk.TEMPLATE,
                description=p.spec.description,
                pins=[sk.Pin(num=q.num, name=q.name, func=getattr(sk.Pin.types, q.kind))
                      for q in p.spec.pins],
            )  # fmt: skip
            templates[p.spec.symbol] = t
        part = t(circuit=circ, ref=p.ref, value=p.value, tag=p.ref)
        part.fields["BOM"] = _buy(p)
        if p.note:
            part.fields["Note"] = p.note
        for q in part.pins:
            pins[(p.ref, str(q.num))] = q
    nets: dict[str, Any] = {}
    for p in d.parts:
        for num, name in p.nets.items():
            pin = pins[(p.ref, num)]
            if name == NC:
                circ.NC += pin
                continue
            net = nets.get(name)
            if net is None:
                net = nets[name] = sk.Net(name, circuit=circ)
            net += pin
    for name in d.power_flags:
        nets[name].drive = sk.POWER
    return circ


def check(d: Design) -> tuple[list[str], str]:
    """SKiDL's ERC messages (warnings and errors) and the normalised KiCad netlist of `d`."""
    sk = _skidl()
    circ = _circuit(d)
    with _collected(sk.logger.erc_logger) as found:
        circ.ERC()
    saved = sk.empty_footprint_handler
    sk.empty_footprint_handler = lambda _part: None  # perfboard build: no footprints
    try:
        with _collected(sk.logger.rt_logger):
            text = str(circ.generate_netlist(tool=sk.KICAD8, do_backup=False, track_src=False))
    finally:
        sk.empty_footprint_handler = saved
    return found.messages, _normalise(text, d.board)


@cache
def _checked(board: str) -> tuple[tuple[str, ...], str]:
    """check(design(board)), built once per process."""
    messages, text = check(design(board))
    return tuple(messages), text


def _normalise(text: str, board: str) -> str:
    """The netlist without what changes from run to run (date, script path, SKiDL version)."""
    text = re.sub(r'\(source "[^"]*"\)', f'(source "firmware/boards/{board}.json")', text)
    text = re.sub(r'\(date "[^"]*"\)', '(date "")', text)
    text = re.sub(r'\(tool "SKiDL[^"]*"\)', '(tool "SKiDL")', text)
    return text.rstrip("\n") + "\n"


def erc(board: str) -> list[str]:
    """SKiDL's ERC of the board's circuit: every warning and error (an empty list is clean)."""
    return list(_checked(board)[0])


def netlist_text(board: str) -> str:
    """The KiCad (version D, KiCad 6+) netlist of one controller on `board`."""
    return _checked(board)[1]


# ---------------------------------------------------------------------------------------------
# Markdown: BOM and net table.


_BUY = {
    ("R", "10k"): "Yageo CFR-25JB-52-10K (any 5 % 1/4 W)",
    ("R", "330"): "Yageo CFR-25JB-52-330R (any 5 % 1/4 W)",
    ("R", "100k 1%"): "Yageo MFR-25FBF52-100K (1 % metal film)",
    ("C", "10nF"): "ceramic, X7R, 16 V or more",
    ("C", "100nF"): "Kemet C322C104K5R5TA (any X7R ceramic, 16 V or more)",
    ("C", "10uF"): "ceramic X5R/X7R 10 V or more, or a 16 V electrolytic",
}


def _buy(p: Placed) -> str:
    return _BUY.get((p.spec.symbol, p.value), p.spec.buy)


def _bom_rows(d: Design, group: str) -> list[tuple[list[str], Placed]]:
    rows: dict[tuple[str, str], tuple[list[str], Placed]] = {}
    for p in d.parts:
        if p.group != group:
            continue
        key = (p.spec.symbol, p.value)
        if key not in rows:
            rows[key] = ([], p)
        rows[key][0].append(p.ref)
    return sorted(rows.values(), key=lambda r: _natural(r[0][0]))


def bom_markdown(board: str, generated: str, extras: list[tuple[int, str, str, str]]) -> str:
    """The bill of materials of `board`, from the same design as the netlist.

    `extras` are the items that are not on the netlist: (qty, item, source, note).
    """
    d = design(board)
    lines = [
        f"# {d.title}: bill of materials",
        "",
        generated,
        "",
        f"Quantities for one controller and for a table of {TABLE_OF}. Every part below is on "
        f"the netlist ([netlist.net](netlist.net), KiCad); references match it and the wiring "
        f"page ([pinout.md](pinout.md)).",
        "",
    ]
    sections = (("controller", "Every controller"),
                ("battery", "Cordless (battery) builds only"))  # fmt: skip
    for group, title in sections:
        rows = _bom_rows(d, group)
        if not rows:
            continue
        lines += [f"## {title}", "",
                  f"| refs | qty | qty x{TABLE_OF} | value | part | buy | note |",
                  "|---|---|---|---|---|---|---|"]  # fmt: skip
        for refs, p in rows:
            roles = sorted({q.role for q in d.parts if q.ref in refs and q.role})
            note = "; ".join(x for x in [*roles, p.spec.note] if x)
            lines.append(
                f"| {', '.join(refs)} | {len(refs)} | {len(refs) * TABLE_OF} | {p.value} "
                f"| {p.spec.description} | {_buy(p)} | {note} |"
            )
        lines.append("")
    lines += ["## Not on the netlist", "", f"| qty | qty x{TABLE_OF} | item | source | note |",
              "|---|---|---|---|---|"]  # fmt: skip
    for qty, item, source, note in extras:
        lines.append(f"| {qty} | {qty * TABLE_OF} | {item} | {source} | {note} |")
    return "\n".join(lines) + "\n"


def nets_markdown(board: str) -> list[str]:
    """One table row per net: name and every pin on it (ref.pin name)."""
    d = design(board)
    rows = ["| net | pins |", "|---|---|"]
    for net, nodes in d.nets().items():
        pins = ", ".join(f"{ref}.{pin.num}" + (f" ({pin.name})" if pin.name not in ("~", pin.num)
                         else "") for ref, pin in nodes)  # fmt: skip
        rows.append(f"| {net} | {pins} |")
    return rows

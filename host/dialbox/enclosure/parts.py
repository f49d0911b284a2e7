"""Part dimensions of the enclosure: the ONE table every size comes from.

SAMPLE DIMENSIONS — MEASURE YOUR PARTS. The figures below are typical values of the parts
named (makers' drawings where the project had them, common clone modules otherwise), in mm.
Clone modules differ by tenths of a millimetre and sometimes by more (OLED glass offsets,
USB connector overhang, encoder tab position): measure yours with calipers, change the
numbers here and run `dialbox hardware generate` (or `dialbox hardware enclosure --board
NAME --out DIR`). Everything else (the shell, every cut-out, every boss) follows.

Axes of a module (see `Module`): u runs along the board towards its USB end, v across it
(positive to the left of u, seen from the component side), w up from the top of its PCB.
"""

from __future__ import annotations

from dataclasses import dataclass

SAMPLE = "sample dimensions — measure your parts"
"""The label every table and page that shows these figures carries."""


@dataclass(frozen=True)
class Connector:
    """A USB socket on a board's edge at its +u end."""

    v: float
    """centre across the board (mm, from the board's centre line)"""
    width: float
    height: float
    """above the top of the PCB"""
    overhang: float
    """how far the socket's mouth stands out past the board's edge"""


@dataclass(frozen=True)
class Module:
    """A development board (or any flat module) lying component side up."""

    key: str
    title: str
    length: float
    """along u (towards the USB end)"""
    width: float
    pcb: float
    """PCB thickness"""
    top_height: float
    """tallest part above the PCB top (USB socket, shield can, module)"""
    standoff_height: float
    """room under the board (soldered wires, header pins): the height of its supports"""
    supports: tuple[tuple[float, float], ...]
    """(u, v) of each support under the board"""
    screw_pilot: float
    """pilot hole of a support (an M2 self-tapping screw through the board's mounting hole);
    0: plain pads (a board without mounting holes: foam tape or a drop of hot glue)"""
    support_diameter: float
    usb: tuple[Connector, ...]
    onboard_led: tuple[float, float] | None = None
    """(u, v) of an on-board status LED that shows through a light pipe, if any"""
    led_height: float = 1.0


@dataclass(frozen=True)
class Encoder:
    """An EC11-style panel-mount rotary encoder (Bourns PEC11R and clones)."""

    body_width: float
    body_depth: float
    depth_below_panel: float
    """body + pins + soldered wires, from the underside of the panel"""
    bushing_diameter: float
    """threaded bushing (M7 x 0.75): the panel hole is sized on it"""
    bushing_length: float
    shaft_diameter: float
    shaft_length: float
    """from the mounting face"""
    tab_offset: float
    """anti-rotation lug: distance of its centre from the shaft axis (towards the back)"""
    tab_width: float
    """across (tangential)"""
    tab_length: float
    """radial"""
    nut_thickness: float
    knob_diameter: float
    knob_height: float


@dataclass(frozen=True)
class Oled:
    """A 0.96\" 128x64 SSD1306 I2C module, glass up, header edge towards the back."""

    width: float
    depth: float
    pcb: float
    holes: tuple[tuple[float, float], ...]
    """(x, y) of the mounting holes from the PCB centre"""
    hole_pilot: float
    boss_diameter: float
    glass_width: float
    glass_depth: float
    glass_thickness: float
    glass_offset: tuple[float, float]
    """glass centre from the PCB centre"""
    active_width: float
    active_depth: float
    active_offset: tuple[float, float]
    """active area centre from the PCB centre"""
    depth_below_pcb: float
    """header pins and soldered wires"""
    columns: int
    rows: int


@dataclass(frozen=True)
class Button:
    """A 12 mm tactile switch with a round cap, on a small perfboard carrier."""

    body: float
    """square body side"""
    cap_diameter: float
    height: float
    """from the carrier's face to the top of the cap"""
    protrusion: float
    """how far the cap stands out of the side wall"""
    carrier_width: float
    carrier_thickness: float


@dataclass(frozen=True)
class LightPipe:
    """A 5 mm LED or light pipe (clear acrylic rod) through the top wall."""

    diameter: float
    sleeve_diameter: float
    sleeve_length: float
    led_board: float
    """side of the LED's breakout board (WS2812B on a small PCB)"""
    led_board_height: float


@dataclass(frozen=True)
class Block:
    """A plain box-shaped part: a LiPo cell, the PowerBoost 1000C."""

    title: str
    length: float
    """along y (front to back)"""
    width: float
    """along x"""
    height: float


@dataclass(frozen=True)
class Plug:
    """The moulded body of a micro-USB plug: the wall opening must pass it."""

    width: float
    height: float


@dataclass(frozen=True)
class Clearances:
    """Fit and print rules."""

    hole: float
    """diametral clearance of round holes (bushing, light pipe, cap): 0.2-0.6 for FDM"""
    slot: float
    """clearance of each side of a slot (anti-rotation tab, carrier)"""
    window_margin: float
    """OLED window past the active area, each side"""
    usb_margin: float
    """wall opening past a USB socket, each side (at least)"""
    plug: float
    """wall opening past the plug body, each side"""
    bay: float
    """cell / block bay past the part, each side"""
    fit_gap: float
    """between the top shell's wall and the tray's lip"""
    min_wall: float
    """thinnest wall or web anywhere (FDM, 0.4 mm nozzle: four perimeters)"""
    max_overhang_deg: float
    """steepest downward-facing face allowed, from vertical, in print orientation"""


MODULES: dict[str, Module] = {
    "pico_w": Module(
        "pico_w", "Raspberry Pi Pico W", length=51.0, width=21.0, pcb=1.0, top_height=2.8,
        standoff_height=5.0,
        supports=((23.5, 5.7), (23.5, -5.7), (-23.5, 5.7), (-23.5, -5.7)),
        screw_pilot=1.7, support_diameter=5.0,
        usb=(Connector(v=0.0, width=7.5, height=2.8, overhang=1.3),),
    ),
    "pico2_w": Module(
        "pico2_w", "Raspberry Pi Pico 2 W", length=51.0, width=21.0, pcb=1.0, top_height=2.8,
        standoff_height=5.0,
        supports=((23.5, 5.7), (23.5, -5.7), (-23.5, 5.7), (-23.5, -5.7)),
        screw_pilot=1.7, support_diameter=5.0,
        usb=(Connector(v=0.0, width=7.5, height=2.8, overhang=1.3),),
    ),
    "esp32s3_devkitc_1": Module(
        "esp32s3_devkitc_1", "Espressif ESP32-S3-DevKitC-1", length=69.0, width=25.5, pcb=1.6,
        top_height=3.3, standoff_height=10.0,
        supports=((31.5, 0.0), (-31.5, 0.0), (0.0, 0.0)),
        screw_pilot=0.0, support_diameter=6.0,
        usb=(Connector(v=8.0, width=7.5, height=2.8, overhang=0.8),
             Connector(v=-8.0, width=7.5, height=2.8, overhang=0.8)),
        onboard_led=(24.5, -4.0), led_height=1.0,
    ),
}  # fmt: skip

ENCODER = Encoder(
    body_width=12.0, body_depth=13.2, depth_below_panel=13.5, bushing_diameter=7.0,
    bushing_length=7.0, shaft_diameter=6.0, shaft_length=20.0, tab_offset=7.0, tab_width=1.2,
    tab_length=1.6, nut_thickness=2.0, knob_diameter=24.0, knob_height=14.0,
)  # fmt: skip

OLED = Oled(
    width=27.3, depth=27.8, pcb=1.2,
    holes=((11.75, 11.9), (-11.75, 11.9), (11.75, -11.9), (-11.75, -11.9)),
    hole_pilot=1.6, boss_diameter=4.0,
    glass_width=26.7, glass_depth=19.3, glass_thickness=1.4, glass_offset=(0.0, 0.0),
    active_width=21.74, active_depth=10.86, active_offset=(0.0, 1.0),
    depth_below_pcb=8.0, columns=128, rows=64,
)  # fmt: skip

BUTTON = Button(
    body=12.0, cap_diameter=11.5, height=12.0, protrusion=1.0, carrier_width=20.0,
    carrier_thickness=1.6,
)  # fmt: skip

LIGHT_PIPE = LightPipe(
    diameter=5.0, sleeve_diameter=8.6, sleeve_length=6.0, led_board=12.0, led_board_height=3.0,
)  # fmt: skip

BATTERY = Block("1S LiPo 1000 mAh (503450), with protection board", length=34.0, width=50.0,
                height=5.0)  # fmt: skip
BOOSTER = Block("Adafruit PowerBoost 1000C", length=36.2, width=22.9, height=7.5)
BOOSTER_USB = Connector(v=-3.0, width=7.5, height=2.8, overhang=0.8)
"""The PowerBoost's charging socket, on its back edge (v: across x, from its centre)."""
BOOSTER_STANDOFF = 3.0

PLUG = Plug(width=10.6, height=7.0)

CLEARANCES = Clearances(
    hole=0.4, slot=0.2, window_margin=2.0, usb_margin=0.5, plug=0.4, bay=1.0, fit_gap=0.2,
    min_wall=1.6, max_overhang_deg=45.0,
)  # fmt: skip


def table() -> list[tuple[str, str, str]]:
    """(part, dimension, value) rows of every figure above, for the docs and the manifest."""
    rows: list[tuple[str, str, str]] = []
    for m in MODULES.values():
        rows.append((m.title, "board", f"{m.length:g} x {m.width:g} x {m.pcb:g} "
                     f"(tallest part {m.top_height:g} above)"))
        kind = (f"M2 screws, pilot {m.screw_pilot:g}" if m.screw_pilot else "pads (no holes)")
        where = ", ".join(f"({u:g}, {v:g})" for u, v in m.supports)
        rows.append((m.title, "supports", f"{m.standoff_height:g} high, {kind}, at {where}"))
        for c in m.usb:
            rows.append((m.title, "micro-USB socket", f"{c.width:g} x {c.height:g} at v "
                         f"{c.v:g}, {c.overhang:g} past the edge"))
        if m.onboard_led is not None:
            rows.append((m.title, "on-board RGB LED", f"at (u, v) = {m.onboard_led}"))
    e = ENCODER
    rows += [
        ("EC11-style encoder", "body", f"{e.body_width:g} x {e.body_depth:g}, "
         f"{e.depth_below_panel:g} below the panel with pins and wires"),
        ("EC11-style encoder", "bushing / shaft", f"M7 x 0.75 bushing {e.bushing_diameter:g}, "
         f"{e.bushing_length:g} long; shaft {e.shaft_diameter:g} D, {e.shaft_length:g} long"),
        ("EC11-style encoder", "anti-rotation tab", f"{e.tab_width:g} x {e.tab_length:g}, "
         f"{e.tab_offset:g} from the axis"),
        ("knob (printed)", "diameter x height", f"{e.knob_diameter:g} x {e.knob_height:g}"),
    ]
    o = OLED
    rows += [
        ("0.96\" SSD1306 128x64 module", "PCB", f"{o.width:g} x {o.depth:g} x {o.pcb:g}, "
         f"M2 holes at (±{o.holes[0][0]:g}, ±{o.holes[0][1]:g})"),
        ("0.96\" SSD1306 128x64 module", "glass", f"{o.glass_width:g} x {o.glass_depth:g} x "
         f"{o.glass_thickness:g}"),
        ("0.96\" SSD1306 128x64 module", "active area", f"{o.active_width:g} x "
         f"{o.active_depth:g}, centre {o.active_offset} from the PCB centre"),
        ("12 mm tactile button", "body / cap", f"{BUTTON.body:g} square, cap "
         f"{BUTTON.cap_diameter:g}, {BUTTON.height:g} from the carrier to the cap top"),
        ("5 mm LED / light pipe", "diameter", f"{LIGHT_PIPE.diameter:g}, sleeve "
         f"{LIGHT_PIPE.sleeve_diameter:g} x {LIGHT_PIPE.sleeve_length:g}"),
        (BATTERY.title, "cell", f"{BATTERY.width:g} x {BATTERY.length:g} x {BATTERY.height:g}"),
        (BOOSTER.title, "board", f"{BOOSTER.width:g} x {BOOSTER.length:g}, "
         f"{BOOSTER.height:g} high with its sockets"),
        ("micro-USB plug", "moulded body", f"{PLUG.width:g} x {PLUG.height:g}"),
    ]
    return rows

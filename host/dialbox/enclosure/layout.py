"""Pure geometry of one board's enclosure: the shell, every cut-out, boss, rib and the blocks
of the parts inside, computed from the board's profile (firmware/boards/<board>.json), its
mechanical layout (mechanical.json beside this file) and the part table (parts.py).

No CAD import here: the CAD model (model.py), the renders, the manifest and the tests all
read the same `Layout`, so a cut-out cannot be in one and not the other.

Axes: x across (left to right, seen from the player), y front (player) to back, z up from the
underside; x = y = 0 at the box centre. Two printable parts meet at z = `Shell.split`:

- the bottom tray (z 0 .. split, plus a lip that rises inside the top shell), printed as it
  sits: floor on the bed;
- the top shell (z split .. height), printed upside down: its top face on the bed.

Every opening in a side wall is cut from the parting plane (a notch open to the rim of each
part it crosses), so neither part has a bridge or an overhang: nothing needs supports.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

from dialbox.enclosure import parts as P
from dialbox.paths import firmware_dir

PartName = Literal["top", "bottom"]
Face = Literal["top", "back", "right"]
PARTS: tuple[PartName, ...] = ("top", "bottom")
MECHANICAL = Path(__file__).with_name("mechanical.json")
OLED_GAP = 0.3
"""between the OLED glass and the underside of the top wall"""
LUG_HEIGHT = 0.8
"""how far the encoder's anti-rotation lug stands off its mounting face"""
RIB_HEIGHT = 4.0


class LayoutError(ValueError):
    """A board or layout that cannot be built, said in one line."""


@dataclass(frozen=True)
class Shell:
    width: float
    depth: float
    height: float
    split: float
    corner_radius: float
    wall: float
    """side wall of the top shell"""
    top: float
    """top wall"""
    floor: float
    lip: float
    """thickness of the tray's lip"""
    lip_height: float
    fit_gap: float

    @property
    def tray_wall(self) -> float:
        """The tray's side wall: under the top shell's wall, the fit gap and the lip."""
        return self.wall + self.fit_gap + self.lip

    @property
    def lid_inner(self) -> float:
        """z of the underside of the top wall."""
        return self.height - self.top


@dataclass(frozen=True)
class Cutout:
    """An opening through a wall. Face coordinates: top face (x, y); back face (x, z); right
    face (y, z). (x, y, z) is the centre on the outer face."""

    name: str
    parts: tuple[PartName, ...]
    face: Face
    shape: Literal["circle", "rect"]
    x: float
    y: float
    z: float
    width: float
    """circle: diameter; rect: along the face's first axis"""
    height: float
    """circle: diameter; rect: along the face's second axis"""
    depth: float
    """from the outer face inwards"""
    fits: str
    """what passes through it"""
    clearance: float
    """diametral (circles) or per side (rects) over what passes"""

    def along(self) -> tuple[float, float]:
        """The centre in face coordinates."""
        if self.face == "top":
            return self.x, self.y
        if self.face == "back":
            return self.x, self.z
        return self.y, self.z


@dataclass(frozen=True)
class Feature:
    """Material added to a part: a standoff, boss, sleeve or rib (vertical)."""

    name: str
    part: PartName
    shape: Literal["cylinder", "box"]
    x: float
    y: float
    z0: float
    z1: float
    width: float
    """cylinder: diameter; box: along x"""
    length: float
    """cylinder: diameter; box: along y"""
    bore: float = 0.0
    """a pilot hole (diameter) from the free end: the top of a tray feature, the bottom of a
    top-shell feature"""
    bore_depth: float = 0.0


@dataclass(frozen=True)
class Block:
    """A part inside the box (or through a wall) as a simple solid: the tests check that no
    block meets the printed parts, the exploded render draws them."""

    name: str
    group: str
    shape: Literal["box", "cylinder_z", "cylinder_x"]
    x: float
    y: float
    z: float
    """centre"""
    sx: float
    sy: float
    sz: float

    def bounds(self) -> tuple[tuple[float, float], tuple[float, float], tuple[float, float]]:
        return ((self.x - self.sx / 2, self.x + self.sx / 2),
                (self.y - self.sy / 2, self.y + self.sy / 2),
                (self.z - self.sz / 2, self.z + self.sz / 2))  # fmt: skip


@dataclass(frozen=True)
class Layout:
    board: str
    title: str
    module: P.Module
    shell: Shell
    cutouts: tuple[Cutout, ...]
    features: tuple[Feature, ...]
    blocks: tuple[Block, ...]
    facts: tuple[tuple[str, float], ...]
    """derived figures a builder needs (light pipe length, screw lengths...)"""

    def cutout(self, name: str) -> Cutout:
        for c in self.cutouts:
            if c.name == name:
                return c
        raise KeyError(name)

    def block(self, name: str) -> Block:
        for b in self.blocks:
            if b.name == name:
                return b
        raise KeyError(name)

    def fact(self, name: str) -> float:
        return dict(self.facts)[name]

    def part_bounds(self, part: PartName) -> tuple[tuple[float, float, float],
                                                  tuple[float, float, float]]:
        """The bounding box of a part (min, max) in assembled position."""
        s = self.shell
        lo = (-s.width / 2, -s.depth / 2, 0.0 if part == "bottom" else s.split)
        hi = (s.width / 2, s.depth / 2, s.split + s.lip_height if part == "bottom" else s.height)
        return lo, hi


def boards() -> list[str]:
    """Boards that have a profile (firmware/boards/) and so an enclosure."""
    return sorted(p.stem for p in (firmware_dir() / "boards").glob("*.json"))


@cache
def mechanical() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(MECHANICAL.read_text())
    return data


def _r(v: float) -> float:
    return round(v, 3)


def _even_up(v: float) -> float:
    return float(math.ceil(v / 2.0) * 2)


def _profile(board: str) -> dict[str, Any]:
    path = firmware_dir() / "boards" / f"{board}.json"
    if board not in boards():
        raise LayoutError(f"unknown board {board!r}; boards: {', '.join(boards())}")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def layout(board: str) -> Layout:
    """The enclosure of one board (LayoutError: one line saying what is missing)."""
    prof = _profile(board)
    mech = mechanical()
    if board not in mech["boards"]:
        raise LayoutError(f"board {board!r} has no mechanical layout in {MECHANICAL.name} "
                          "(add it under \"boards\")")
    m: dict[str, Any] = {**mech["defaults"], **mech["boards"][board]}
    module_key = str(m["module"])
    if module_key not in P.MODULES:
        raise LayoutError(f"board {board!r}: unknown module {module_key!r} in "
                          f"{MECHANICAL.name}; modules: {', '.join(P.MODULES)}")
    return _build(board, str(prof.get("name", board)), prof, m, P.MODULES[module_key])


def _build(board: str, title: str, prof: dict[str, Any], m: dict[str, Any],
           mod: P.Module) -> Layout:
    C = P.CLEARANCES
    oled_prof = prof.get("oled") or {}
    if (oled_prof.get("width"), oled_prof.get("height")) != (P.OLED.columns, P.OLED.rows):
        raise LayoutError(f"board {board!r}: the part table has a {P.OLED.columns}x"
                          f"{P.OLED.rows} OLED, the profile asks for "
                          f"{oled_prof.get('width')}x{oled_prof.get('height')}")
    encoders = prof.get("encoders") or []
    if not encoders:
        raise LayoutError(f"board {board!r}: the profile has no encoders")
    onboard_led = bool((prof.get("led") or {}).get("onboard"))
    if onboard_led and mod.onboard_led is None:
        raise LayoutError(f"board {board!r}: the profile's LED is on board, but module "
                          f"{mod.key!r} has no on-board LED position in parts.py")
    cordless = "battery" in prof

    usb_overhang = max(c.overhang for c in mod.usb)
    wall, gap = float(m["wall"]), C.fit_gap
    tray_wall = wall + gap + C.min_wall
    need = mod.length + usb_overhang + float(m["module_back_gap"]) + 2 * tray_wall + 2.0
    if cordless:
        need = max(need, P.BOOSTER.length + P.BOOSTER_USB.overhang
                   + float(m["module_back_gap"]) + 2 * tray_wall + 2.0)
    sh = Shell(
        width=float(m["width"]), depth=max(float(m["depth_min"]), _even_up(need)),
        height=float(m["height"]), split=float(m["split"]),
        corner_radius=float(m["corner_radius"]), wall=wall, top=float(m["top"]),
        floor=float(m["floor"]), lip=C.min_wall, lip_height=float(m["lip_height"]),
        fit_gap=gap,
    )
    W, D, H = sh.width, sh.depth, sh.height
    tw = sh.tray_wall
    back_in, front_in = D / 2 - tw, -D / 2 + tw
    cut: list[Cutout] = []
    feat: list[Feature] = []
    blk: list[Block] = []
    facts: list[tuple[str, float]] = []

    def wall_parts(z0: float, z1: float) -> tuple[PartName, ...]:
        out: list[PartName] = []
        if z1 > sh.split:
            out.append("top")
        if z0 < sh.split + sh.lip_height:
            out.append("bottom")
        return tuple(out)

    # The module, long side front to back, its USB end at the back wall.
    mx = float(m["module_x"])
    my = back_in - float(m["module_back_gap"]) - usb_overhang - mod.length / 2
    pcb0 = sh.floor + mod.standoff_height

    def world(u: float, v: float) -> tuple[float, float]:
        return mx - v, my + u

    blk.append(Block("module", "module", "box", mx, my, pcb0 + (mod.pcb + mod.top_height) / 2,
                     mod.width, mod.length, mod.pcb + mod.top_height))
    for i, (u, v) in enumerate(mod.supports, 1):
        x, y = world(u, v)
        feat.append(Feature(f"module support {i}", "bottom", "cylinder", x, y,
                            sh.floor - 0.5, pcb0, mod.support_diameter, mod.support_diameter,
                            mod.screw_pilot, mod.standoff_height - 1.0 if mod.screw_pilot else 0))
    plug_w = P.PLUG.width + 2 * C.plug
    plug_h = P.PLUG.height + 2 * C.plug

    def usb(name: str, x: float, y_edge: float, z_pcb_top: float, c: P.Connector) -> None:
        z = z_pcb_top + c.height / 2
        blk.append(Block(f"{name} socket", "module" if name.startswith("usb") else "booster",
                         "box", x, y_edge + (c.overhang - 2.0) / 2, z, c.width, c.overhang + 2.0,
                         c.height))
        w = max(plug_w, c.width + 2 * C.usb_margin)
        h = max(plug_h, c.height + 2 * C.usb_margin)
        cut.append(Cutout(name, wall_parts(z - h / 2, z + h / 2), "back", "rect", x, D / 2, z,
                          w, h, tw, f"micro-USB plug {P.PLUG.width:g} x {P.PLUG.height:g} to a "
                          f"{c.width:g} x {c.height:g} socket", C.plug))

    for i, c in enumerate(mod.usb, 1):
        x, _ = world(0, c.v)
        usb("usb" if len(mod.usb) == 1 else f"usb {i}", x, my + mod.length / 2,
            pcb0 + mod.pcb, c)

    # The wheels: a row across the front half, in the profile's order.
    e = P.ENCODER
    yw = -D / 2 + float(m["wheels_from_front"])
    pitch = float(m["wheel_pitch"])
    for i, enc in enumerate(encoders):
        x = (i - (len(encoders) - 1) / 2) * pitch
        name = f"encoder {enc.get('wheel', i + 1)}"
        cut.append(Cutout(name, ("top",), "top", "circle", x, yw, H,
                          e.bushing_diameter + C.hole, e.bushing_diameter + C.hole, sh.top,
                          f"M7 bushing {e.bushing_diameter:g} (shaft {e.shaft_diameter:g})",
                          C.hole))
        cut.append(Cutout(f"{name} tab", ("top",), "top", "rect", x, yw + e.tab_offset, H,
                          e.tab_width + 2 * C.slot, e.tab_length + 2 * C.slot, sh.top,
                          f"anti-rotation lug {e.tab_width:g} x {e.tab_length:g}", C.slot))
        blk.append(Block(f"{name} body", "encoder", "box", x, yw,
                         sh.lid_inner - e.depth_below_panel / 2, e.body_width, e.body_depth,
                         e.depth_below_panel))
        blk.append(Block(f"{name} bushing", "encoder", "cylinder_z", x, yw,
                         sh.lid_inner + (sh.top + e.nut_thickness) / 2, e.bushing_diameter,
                         e.bushing_diameter, sh.top + e.nut_thickness))
        blk.append(Block(f"{name} lug", "encoder", "box", x, yw + e.tab_offset,
                         sh.lid_inner + LUG_HEIGHT / 2, e.tab_width, e.tab_length, LUG_HEIGHT))
    facts.append(("encoder thread above the top wall", _r(e.bushing_length - sh.top)))

    # The OLED behind the wheels, glass against the top wall, header edge to the back.
    o = P.OLED
    ox, oy = float(m["oled_x"]), D / 2 - float(m["oled_from_back"])
    wx, wy = ox + o.active_offset[0], oy + o.active_offset[1]
    cut.append(Cutout("oled window", ("top",), "top", "rect", wx, wy, H,
                      o.active_width + 2 * C.window_margin, o.active_depth + 2 * C.window_margin,
                      sh.top, f"active area {o.active_width:g} x {o.active_depth:g}",
                      C.window_margin))
    glass_top = sh.lid_inner - OLED_GAP
    glass_bottom = glass_top - o.glass_thickness
    blk.append(Block("oled glass", "oled", "box", ox + o.glass_offset[0], oy + o.glass_offset[1],
                     (glass_top + glass_bottom) / 2, o.glass_width, o.glass_depth,
                     o.glass_thickness))
    blk.append(Block("oled board", "oled", "box", ox, oy, glass_bottom - o.pcb / 2, o.width,
                     o.depth, o.pcb))
    for i, (hx, hy) in enumerate(o.holes, 1):
        feat.append(Feature(f"oled boss {i}", "top", "cylinder", ox + hx, oy + hy, glass_bottom,
                            sh.lid_inner + 0.5, o.boss_diameter, o.boss_diameter, o.hole_pilot,
                            sh.lid_inner - glass_bottom + sh.top / 2))

    # The status LED: a light pipe in a sleeve, over the module's own LED or a WS2812B board.
    lp = P.LIGHT_PIPE
    sleeve_end = sh.lid_inner - lp.sleeve_length
    if onboard_led:
        assert mod.onboard_led is not None
        lx, ly = world(*mod.onboard_led)
        led_top = pcb0 + mod.pcb + mod.led_height
    else:
        lx, ly = ox + float(m["led_from_oled"]), oy
        led_top = sleeve_end
        blk.append(Block("led board", "led", "box", lx, ly, sleeve_end - lp.led_board_height / 2,
                         lp.led_board, lp.led_board, lp.led_board_height))
    cut.append(Cutout("led", ("top",), "top", "circle", lx, ly, H, lp.diameter + C.hole,
                      lp.diameter + C.hole, sh.top + lp.sleeve_length,
                      f"{lp.diameter:g} mm light pipe", C.hole))
    feat.append(Feature("led sleeve", "top", "cylinder", lx, ly, sleeve_end, sh.lid_inner + 0.5,
                        lp.sleeve_diameter, lp.sleeve_diameter))
    blk.append(Block("light pipe", "led", "cylinder_z", lx, ly, (led_top + H) / 2, lp.diameter,
                     lp.diameter, H - led_top))
    facts.append(("light pipe length", _r(H - led_top)))

    # The lock button in the right-hand wall, on the parting plane, on a perfboard carrier.
    b = P.BUTTON
    by, bz = -D / 2 + float(m["button_from_front"]), sh.split
    d = b.cap_diameter + C.hole
    cut.append(Cutout("button", wall_parts(bz - d / 2, bz + d / 2), "right", "circle",
                      W / 2, by, bz, d, d, tw, f"{b.cap_diameter:g} mm cap", C.hole))
    face = W / 2 + b.protrusion - b.height
    carrier_h = 2 * (bz - sh.floor)
    blk.append(Block("button carrier", "button", "box", face - b.carrier_thickness / 2, by,
                     sh.floor + carrier_h / 2, b.carrier_thickness, b.carrier_width, carrier_h))
    body_h = 3.5
    blk.append(Block("button switch", "button", "box", face + body_h / 2, by, bz, body_h,
                     b.body, b.body))
    cap_len = W / 2 + b.protrusion - (face + body_h)
    blk.append(Block("button cap", "button", "cylinder_x", face + body_h + cap_len / 2, by, bz,
                     cap_len, b.cap_diameter, b.cap_diameter))
    for side in (-1, 1):
        ry = by + side * (b.carrier_width / 2 - 1.5)
        for name, rx in (("back", face - b.carrier_thickness - C.slot - C.min_wall / 2),
                         ("front", face + C.slot + C.min_wall / 2)):
            feat.append(Feature(f"button rib {name} {'+-'[side < 0]}", "bottom", "box", rx, ry,
                                sh.floor - 0.5, sh.floor + RIB_HEIGHT + 2, C.min_wall, 4.0))

    if cordless:
        # The cell in a ribbed bay at the front, the PowerBoost at the back right.
        cell = P.BATTERY
        bw, bl = cell.width + 2 * C.bay, cell.length + 2 * C.bay
        bx, byy = float(m["battery_x"]), front_in + bl / 2
        blk.append(Block("battery", "battery", "box", bx, byy, sh.floor + cell.height / 2,
                         cell.width, cell.length, cell.height))
        rib = C.min_wall
        for name, rx, ry, sx, sy in (
            ("left", bx - bw / 2 - rib / 2, byy, rib, bl - 10),
            ("right", bx + bw / 2 + rib / 2, byy, rib, bl - 10),
            ("back", bx, byy + bl / 2 + rib / 2, bw - 10, rib),
        ):
            feat.append(Feature(f"battery rib {name}", "bottom", "box", rx, ry, sh.floor - 0.5,
                                sh.floor + RIB_HEIGHT, sx, sy))
        pb = P.BOOSTER
        px = float(m["booster_x"])
        py = back_in - float(m["module_back_gap"]) - P.BOOSTER_USB.overhang - pb.length / 2
        pz0 = sh.floor + P.BOOSTER_STANDOFF
        blk.append(Block("booster", "booster", "box", px, py, pz0 + pb.height / 2, pb.width,
                         pb.length, pb.height))
        for i, (sx_, sy_) in enumerate(((-1, -1), (1, -1), (-1, 1), (1, 1)), 1):
            feat.append(Feature(f"booster pad {i}", "bottom", "cylinder",
                                px + sx_ * (pb.width / 2 - 3.0), py + sy_ * (pb.length / 2 - 3.0),
                                sh.floor - 0.5, pz0, 5.0, 5.0))
        usb("charge usb", px + P.BOOSTER_USB.v, py + pb.length / 2, pz0 + 1.6, P.BOOSTER_USB)

    facts.append(("module standoff height", mod.standoff_height))
    facts.append(("encoder bodies above the module", _r(
        sh.lid_inner - e.depth_below_panel - (pcb0 + mod.pcb + mod.top_height))))
    return Layout(board, title, mod, sh, tuple(cut), tuple(feat), tuple(blk), tuple(facts))


def _rounded(obj: Any) -> Any:
    if isinstance(obj, float):
        return _r(obj)
    if isinstance(obj, tuple | list):
        return [_rounded(x) for x in obj]
    return obj


def describe(lay: Layout) -> dict[str, Any]:
    """The layout as JSON data (rounded to 0.001 mm): the manifest's part per board."""
    s = lay.shell
    return {
        "title": lay.title,
        "module": lay.module.key,
        "shell": {
            "width": s.width, "depth": s.depth, "height": s.height, "split": s.split,
            "wall": s.wall, "top": s.top, "floor": s.floor, "tray_wall": _r(s.tray_wall),
            "lip_height": s.lip_height, "fit_gap": s.fit_gap,
        },
        "cutouts": [
            {"name": c.name, "parts": list(c.parts), "face": c.face, "shape": c.shape,
             "centre": _rounded((c.x, c.y, c.z)), "size": _rounded((c.width, c.height)),
             "depth": _r(c.depth), "fits": c.fits}
            for c in lay.cutouts
        ],
        "features": [
            {"name": f.name, "part": f.part, "at": _rounded((f.x, f.y)),
             "z": _rounded((f.z0, f.z1))}
            for f in lay.features
        ],
        "blocks": [
            {"name": b.name, "centre": _rounded((b.x, b.y, b.z)),
             "size": _rounded((b.sx, b.sy, b.sz))}
            for b in lay.blocks
        ],
        "facts": {k: v for k, v in lay.facts},
    }  # fmt: skip

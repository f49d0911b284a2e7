"""A schematic you can read: one SVG per board, drawn from the netlist's design.

`netlist.design(board)` is the one description of the circuit: the KiCad netlist, the ERC,
the BOM and the wiring page all come from it, and so does this drawing. Every part is drawn
from the design's parts and nets: which resistor is an encoder pull-up, which capacitor sits
at a board pin, what the divider taps, all of it is found through the nets (`Design.between`,
`Design.on`), never written down a second time here. A part the drawing does not place, or a
net it does not label, is an error (`ValueError`): a change to the design cannot leave the
drawing silently behind.

The module is drawn once with every pin the design connects (grounds grouped); the blocks
around it (encoders and their filters, the lock button, the LED and its level shifter, the
OLED, battery and power) meet it at net labels: a label's name is the net's name in the
netlist, and the module's pins carry the same labels.

`schematic_svg(board)` gives hardware/<board>/schematic.svg; `step_svg(board, step)` the same
drawing with one build step's parts highlighted and the rest greyed (docs/build/step-*.svg,
docs/build-guide.md). Both use schemdraw's own SVG writer with text as <text> elements (no
embedded fonts, no ids, no dates): the same design gives byte-identical files.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from xml.etree import ElementTree

import schemdraw
import schemdraw.elements

from dialbox.firmware_tools import netlist
from dialbox.firmware_tools.bundle import profile
from dialbox.firmware_tools.netlist import Design, Placed

SVG_NS = "http://www.w3.org/2000/svg"

__all__ = ["STEPS", "Step", "schematic_svg", "step_parts", "step_svg"]

elm: Any = schemdraw.elements
"""(schemdraw's chained element methods are typed on the base class: used untyped here)"""

INK = "black"
HIGHLIGHT = "#0b5fb4"
GREY = "#b8b8b8"
FONT = 11


@dataclass(frozen=True)
class Step:
    """One wiring step of the build guide: its number, file-name word and title."""

    n: int
    slug: str
    title: str


STEPS = (
    Step(1, "module", "The board on its headers, power and ground rails"),
    Step(2, "encoders", "The three encoders with their pull-ups and RC filters"),
    Step(3, "button", "The lock button"),
    Step(4, "led", "The status LED and its level shifter"),
    Step(5, "oled", "The OLED on I2C"),
    Step(6, "battery", "Battery, booster, power switch and the battery-sense divider"),
)


def step_parts(d: Design, slug: str) -> list[str]:
    """The references a build step fits, found through the design's nets and specs."""
    module = d.parts[0]
    if slug == "module":
        return [module.ref]
    if slug == "encoders":
        return [p.ref for p in d.parts if p is not module
                and any(n.startswith("ENC_") for n in p.nets.values())]  # fmt: skip
    if slug == "button":
        return [p.ref for p in d.on("LOCK_BTN", netlist.BUTTON.symbol)]
    if slug == "led":
        led = [p for p in d.parts if p is not module and p.group == "controller"
               and (any(n.startswith("LED_") for n in p.nets.values())
                    or p.spec is netlist.WS2812B
                    or (p in d.between(d.led_supply, netlist.GND)))]  # fmt: skip
        return [p.ref for p in led]
    if slug == "oled":
        return [p.ref for p in d.parts if p.spec is netlist.OLED]
    if slug == "battery":
        return [p.ref for p in d.parts if p is not module and (p.group == "battery"
                or netlist.VBAT_SENSE in p.nets.values())]  # fmt: skip
    raise ValueError(f"no build step {slug!r}")


def _pin_label(name: str) -> str:
    return name.replace("~{", "~").replace("}", "")


class _Sheet:
    """One drawing: places parts, remembers which refs and nets it has drawn."""

    def __init__(self, d: Design, lit: set[str] | None) -> None:
        self.d = d
        self.lit = lit
        self.refs: set[str] = set()
        self.labels: set[str] = set()
        self.dw = schemdraw.Drawing(canvas="svg", show=False, fontsize=FONT, lw=1.6)
        # signal nets of the lit parts: their labels at the module light up too
        self.lit_nets = {n for p in d.parts[1:] if lit is not None and p.ref in lit
                         for n in p.nets.values()} - {"", netlist.GND, netlist.V3,
                                                      d.led_supply}  # fmt: skip

    # ---------------------------------------------------------------- colours, primitives

    def ink(self, *refs: str) -> str:
        if self.lit is None:
            return INK
        return HIGHLIGHT if any(r in self.lit for r in refs) else GREY

    def add(self, e: Any, *refs: str, lit: bool = False) -> Any:
        lit = lit or (self.lit is not None and any(r in self.lit for r in refs))
        e.color(HIGHLIGHT if lit else self.ink(*refs))
        if lit:
            e.linewidth(2.6)
        self.refs.update(refs)
        return self.dw.add(e)

    def tag(self, at: Any, net: str, direction: str, ref: str, note: str = "") -> None:
        """A net label at `at`, pointing away along `direction` ("left" / "right")."""
        text = net + (f" {note}" if note else "")
        w = 0.2 * len(text) + 0.8
        t = elm.Tag(width=w).at(at).label(text, fontsize=FONT - 1)
        t = t.left() if direction == "left" else t.right()
        self.add(t, ref, lit=net in self.lit_nets and ref == self.d.parts[0].ref)
        self.labels.add(net)

    def wire(self, at: Any, net: str, ref: str, halign: str = "left", dy: float = 0.15) -> None:
        """A wire's net name, small, just above `at` (nets between two parts, no label)."""
        e = elm.Label().at((at[0], at[1] + dy)).theta(0)
        self.add(e.label(net, halign=halign, valign="bottom", fontsize=FONT - 3), ref)
        self.labels.add(net)

    def rail(self, at: Any, net: str, ref: str, up: bool) -> None:
        """A power rail at `at`: GND as the ground symbol, any other rail as a named arrow."""
        if net == netlist.GND:
            self.add(elm.Ground().at(at), ref)
        else:
            e = elm.Vdd().at(at).label(net, fontsize=FONT - 1)
            self.add(e if up else e.down(), ref)
        self.labels.add(net)

    def two(self, p: Placed, at: Any, direction: str, length: float = 2.4) -> Any:
        """A two-pin part from `at`, labelled with its reference and value."""
        kind = p.spec
        if kind is netlist.RESISTOR:
            e: Any = elm.Resistor()
        elif kind is netlist.CAPACITOR:
            e = elm.Capacitor()
        elif kind is netlist.SCHOTTKY:
            e = elm.Schottky()
        elif kind is netlist.BUTTON:
            e = elm.Button()
        elif kind is netlist.POWER_SWITCH:
            e = elm.Switch()
        else:
            raise ValueError(f"{p.ref}: no two-pin symbol for {kind.symbol}")
        e = getattr(e.at(at), direction)().length(length)
        side = "top" if direction in ("left", "right") else "bottom"
        e = e.label(f"{p.ref}\n{p.value}", loc=side, fontsize=FONT - 1)
        return self.add(e, p.ref)

    def box(self, p: Placed, at: Any, left: list[str], right: list[str], title: str,
            spacing: float = 1.0, bottom: tuple[str, ...] = (),
            anchor: str = "") -> Any:  # fmt: skip
        """A multi-pin part as a box; pins by number (anchors p<num>), the first of a side
        at the top."""
        sides = (("L", left), ("R", right), ("B", list(bottom)))
        pins = [elm.IcPin(name=_pin_label(q.name) if q.name != q.num else None, pin=q.num,
                          side=side, anchorname=f"p{q.num}")
                for side, nums in sides
                for num in (nums if side == "B" else reversed(nums))
                for q in p.spec.pins if q.num == num]  # fmt: skip
        ic: Any = elm.Ic(pins=pins)
        for side, _ in sides:
            ic = ic.side(side, spacing=spacing if side != "B" else 0, pinlabel_size=FONT - 1,
                         label_size=FONT)  # fmt: skip
        if anchor:
            ic = ic.anchor(f"p{anchor}")
        ic = ic.at(at).theta(0).label(f"{p.ref}\n{title}", loc="top", fontsize=FONT)
        return self.add(ic, p.ref)

    def nc(self, at: Any, ref: str) -> None:
        self.add(elm.NoConnect().at(at), ref)

    def note(self, at: tuple[float, float], text: str, *refs: str) -> None:
        e = elm.Label().at(at).theta(0).label(text, halign="left", fontsize=FONT - 1)
        self.add(e, *refs)

    # ---------------------------------------------------------------- blocks

    def module(self, x: float, y: float) -> None:
        """The board: every connected pin, grounds grouped into one; net labels outside."""
        d = self.d
        u = d.parts[0]
        gpio = [q for q in u.spec.pins if u.nets[q.num] not in ("", netlist.GND)
                and q.num not in self._power_pins(u)]  # fmt: skip
        gnds = [q.num for q in u.spec.pins if u.nets[q.num] == netlist.GND]
        left = [q for q in gpio if u.nets[q.num].startswith(("ENC_", "LOCK"))]
        right = [q for q in gpio if q not in left]
        power = [q for q in u.spec.pins if q.num in self._power_pins(u)]
        pins = [elm.IcPin(name=q.name, pin=q.num, side="L", anchorname=f"p{i}")
                for i, q in reversed(list(enumerate(left)))]  # fmt: skip
        rights = [*right, *power]
        pins += [elm.IcPin(name=q.name, pin=q.num, side="R", anchorname=f"r{i}")
                 for i, q in reversed(list(enumerate(rights)))]  # fmt: skip
        ground = elm.IcPin(name="GND", pin=",".join(gnds), side="B", anchorname="gnd")
        ic = elm.Ic(pins=[*pins, ground]).side("L", spacing=1.2, pad=1.2, pinlabel_size=FONT - 1)
        ic = ic.side("R", spacing=1.2, pad=1.2, pinlabel_size=FONT - 1)
        ic = ic.side("B", pinlabel_size=FONT - 1)
        ic = ic.at((x, y)).theta(0).label(f"{u.ref}\n{u.value}", loc="top", fontsize=FONT + 1)
        self.add(ic, u.ref)
        for i, q in enumerate(left):
            self.tag(getattr(ic, f"p{i}"), u.nets[q.num], "left", u.ref)
        for i, q in enumerate(rights):
            anchor = getattr(ic, f"r{i}")
            net = u.nets[q.num]
            if q in power:
                self.add(elm.Line().at(anchor).right(0.6), u.ref)
                self.rail(self.dw.here, net, u.ref, up=True)
            else:
                self.tag(anchor, net, "right", u.ref)
        self.rail(ic.gnd, netlist.GND, u.ref, up=False)
        flags = ", ".join(d.power_flags)
        self.note((x, y - 2.2), f"power flags (sources on the board): {flags}", u.ref)

    def _gpio(self, gpio: int) -> str:
        return (f"GP{gpio}" if str(profile(self.d.board)["mcu"]).startswith("rp2")
                else f"GPIO{gpio}")  # fmt: skip

    def _power_pins(self, u: Placed) -> list[str]:
        rails = {netlist.V3, self.d.led_supply}
        return [q.num for q in u.spec.pins if u.nets[q.num] in rails]

    def encoder(self, enc: Placed, x: float, y: float) -> float:
        """One encoder at (x, y) (top left): per channel a pull-up at the contact, a series
        resistor, a capacitor at the board pin and the pin's net label; C to GND. Returns
        the y of the next block."""
        d = self.d
        box = self.box(enc, (x, y - 8.6), [], ["A", "B"], enc.note, spacing=5.6,
                       bottom=("C",))  # fmt: skip
        self.add(elm.Line().at(box.pC).down(0.4), enc.ref)
        self.rail(self.dw.here, enc.nets["C"], enc.ref, up=False)
        for ch in ("A", "B"):
            contact = enc.nets[ch]
            pin_net = f"{contact}_IN"
            (pull,) = d.between(netlist.V3, contact)
            (series,) = d.between(contact, pin_net)
            (cap,) = d.between(pin_net, netlist.GND)
            self.add(elm.Line().at(getattr(box, f"p{ch}")).right(0.8), enc.ref)
            node = self.dw.here
            self.add(elm.Dot().at(node), pull.ref, series.ref)
            up = self.two(pull, node, "up", 2.0)
            self.rail(up.end, netlist.V3, pull.ref, up=True)
            s = self.two(series, node, "right", 2.6)
            self.add(elm.Dot().at(s.end), cap.ref)
            c = self.two(cap, s.end, "down", 1.6)
            self.rail(c.end, netlist.GND, cap.ref, up=False)
            self.add(elm.Line().at(s.end).right(0.8), series.ref)
            self.tag(self.dw.here, pin_net, "right", series.ref)
            self.wire((node[0] + 0.15, node[1] - 0.75), contact, enc.ref)
        return y - 12.5

    def button(self, x: float, y: float) -> None:
        (sw,) = self.d.on("LOCK_BTN", netlist.BUTTON.symbol)
        self.tag((x, y), "LOCK_BTN", "left", sw.ref)
        b = self.two(sw, (x, y), "right", 2.0)
        other = sw.nets["2"] if sw.nets["1"] == "LOCK_BTN" else sw.nets["1"]
        self.rail(b.end, other, sw.ref, up=other != netlist.GND)
        self.note((x + 3.0, y + 0.3), f"{sw.note}: to {other} when pressed", sw.ref)

    def led(self, x: float, y: float) -> None:
        d = self.d
        supply = d.led_supply
        if not d.on("LED_DIN", netlist.WS2812B.symbol):
            pin = self._gpio(int(profile(d.board)["led"]["pin"]))
            self.note((x, y), f"status LED: the board's own RGB LED on {pin} (nothing to wire)")
            return
        (buf,) = d.on("LED_DATA_3V3", netlist.BUFFER.symbol)
        (ws,) = d.on("LED_DIN", netlist.WS2812B.symbol)
        (r,) = d.between("LED_DATA_5V", "LED_DIN")
        decoupling = d.between(supply, netlist.GND)
        at_buf = [p for p in decoupling if "level shifter" in p.note]
        at_led = [p for p in decoupling if p not in at_buf]
        ub = self.box(buf, (x, y), ["2", "1", "3"], ["4", "5"], "74AHCT1G125 level shifter",
                      spacing=1.0)  # fmt: skip
        self.tag(ub.p2, "LED_DATA_3V3", "left", buf.ref)
        for num in ("1", "3"):
            self.add(elm.Line().at(getattr(ub, f"p{num}")).left(0.5), buf.ref)
            self.rail(self.dw.here, buf.nets[num], buf.ref, up=False)
        self.add(elm.Line().at(ub.p5).right(1.0), buf.ref)
        vcc = self.dw.here
        self.add(elm.Dot().at(vcc), buf.ref)
        self.tag(vcc, supply, "right", buf.ref)
        for p in at_buf:
            c = self.two(p, vcc, "down", 1.6)
            self.rail(c.end, netlist.GND, p.ref, up=False)
        self.add(elm.Line().at(ub.p4).right(2.0), buf.ref)
        self.wire((ub.p4[0] + 0.4, ub.p4[1]), "LED_DATA_5V", buf.ref)
        res = self.two(r, self.dw.here, "right", 2.4)
        self.add(elm.Line().at(res.end).right(1.8), r.ref)
        self.wire((res.end[0] + 0.2, res.end[1]), "LED_DIN", r.ref)
        wl = self.box(ws, self.dw.here, ["4", "2"], ["1", "3"], "WS2812B status LED",
                      spacing=1.0, anchor="4")  # fmt: skip
        self.nc(wl.p2, ws.ref)
        self.add(elm.Line().at(wl.p3).right(0.5), ws.ref)
        self.rail(self.dw.here, ws.nets["3"], ws.ref, up=False)
        self.add(elm.Line().at(wl.p1).right(0.8), ws.ref)
        vdd = self.dw.here
        self.add(elm.Dot().at(vdd), ws.ref)
        self.rail(vdd, supply, ws.ref, up=True)
        for i, p in enumerate(at_led):
            self.add(elm.Line().at(vdd).right(1.2 + 1.6 * i), p.ref)
            c = self.two(p, self.dw.here, "down", 1.6)
            self.rail(c.end, netlist.GND, p.ref, up=False)

    def oled(self, x: float, y: float) -> None:
        (ds,) = [p for p in self.d.parts if p.spec is netlist.OLED]
        o = self.box(ds, (x, y), ["4", "3"], ["2", "1"], "SSD1306 OLED module", spacing=1.0)
        for num in ("4", "3"):
            self.tag(getattr(o, f"p{num}"), ds.nets[num], "left", ds.ref)
        self.add(elm.Line().at(o.p2).right(0.8), ds.ref)
        self.rail(self.dw.here, ds.nets["2"], ds.ref, up=True)
        self.add(elm.Line().at(o.p1).right(0.6), ds.ref)
        self.rail(self.dw.here, ds.nets["1"], ds.ref, up=False)
        self.note(
            (x + 4.6, y - 0.4), f"{ds.note}; I2C pull-ups\non the module, to {netlist.V3}", ds.ref
        )

    def battery(self, x: float, y: float) -> None:
        d = self.d
        if not [p for p in d.parts if p.group == "battery"]:
            return
        (cell,) = [p for p in d.parts if p.spec is netlist.BATTERY]
        (boost,) = d.on(netlist.VBOOST, netlist.BOOSTER.symbol)
        (diode,) = d.between(d.led_supply, netlist.VBOOST)
        (switch,) = d.between(netlist.BOOST_EN, netlist.GND)
        (top,) = d.between(netlist.VBAT, netlist.VBAT_SENSE)
        under = d.between(netlist.VBAT_SENSE, netlist.GND)
        (bottom,) = [p for p in under if p.spec is netlist.RESISTOR]
        (cap,) = [p for p in under if p.spec is netlist.CAPACITOR]
        # the VBAT node: the cell below it, the booster's BAT to the right, the divider left
        vbat = (x, y)
        cordless = ", ".join(p.ref for p in d.parts if p.group == "battery")
        self.note((x - 6.0, y + 2.6), f"cordless builds only: {cordless}; a USB-only build "
                  f"ties {netlist.VBAT} (the divider's top) to {d.led_supply}",
                  *cordless.split(", "))  # fmt: skip
        self.add(elm.Dot().at(vbat), cell.ref)
        self.wire((x + 0.2, y), netlist.VBAT, cell.ref)
        self.add(elm.Line().at(vbat).down(0.8), cell.ref)
        bt = self.add(elm.BatteryCell().down().length(2.0)
                      .label(f"{cell.ref}\n{cell.value}", loc="bottom", fontsize=FONT - 1),
                      cell.ref)  # fmt: skip
        self.rail(bt.end, netlist.GND, cell.ref, up=False)
        self.add(elm.Line().at(vbat).right(4.5), boost.ref)
        ub = self.box(boost, self.dw.here, ["BAT", "EN", "GND"], ["5V", "LBO", "VS", "USB"],
                      "PowerBoost 1000C", spacing=1.0, anchor="BAT")  # fmt: skip
        self.add(elm.Line().at(ub.pGND).left(0.5), boost.ref)
        self.rail(self.dw.here, netlist.GND, boost.ref, up=False)
        self.add(elm.Line().at(ub.pEN).left(1.5), boost.ref)
        self.wire((self.dw.here[0] - 0.15, self.dw.here[1] - 1.4), netlist.BOOST_EN, boost.ref,
                  halign="right")  # fmt: skip
        self.add(elm.Line().down(2.2), switch.ref)
        sw = self.two(switch, self.dw.here, "down", 1.6)
        self.rail(sw.end, netlist.GND, switch.ref, up=False)
        for num in ("LBO", "VS", "USB"):
            self.nc(getattr(ub, f"p{num}"), boost.ref)
        self.add(elm.Line().at(ub.p5V).right(1.8), boost.ref)
        self.wire((ub.p5V[0] + 0.5, ub.p5V[1]), netlist.VBOOST, boost.ref)
        di = self.two(diode, self.dw.here, "right", 2.4)
        self.add(elm.Line().at(di.end).right(0.6), diode.ref)
        self.rail(self.dw.here, d.led_supply, diode.ref, up=True)
        # the divider from VBAT down to GND, the capacitor at the ADC pin
        self.add(elm.Line().at(vbat).left(1.8), top.ref)
        r1 = self.two(top, self.dw.here, "down", 2.0)
        tap = r1.end
        self.add(elm.Dot().at(tap), bottom.ref)
        r2 = self.two(bottom, tap, "down", 2.0)
        self.rail(r2.end, netlist.GND, bottom.ref, up=False)
        self.add(elm.Line().at(tap).left(2.0), cap.ref)
        node = self.dw.here
        self.add(elm.Dot().at(node), cap.ref)
        c = self.two(cap, node, "down", 2.0)
        self.rail(c.end, netlist.GND, cap.ref, up=False)
        self.add(elm.Line().at(node).left(0.8), cap.ref)
        self.tag(self.dw.here, netlist.VBAT_SENSE, "left", top.ref)

    # ---------------------------------------------------------------- the sheet

    def draw(self) -> str:
        d = self.d
        self.note((0.0, 4.0), f"{d.title}: schematic, drawn from the design of "
                  f"hardware/{d.board}/netlist.net. Net labels of the same name are one net; "
                  "parts: bom.md, wiring: pinout.md.")  # fmt: skip
        y = 0.0
        for enc in [p for p in d.parts if p.spec is netlist.ENCODER]:
            y = self.encoder(enc, 0.0, y)
        self.module(20.0, -16.0)
        self.button(18.0, -31.0)
        self.oled(36.0, -2.0)
        self.led(35.0, -13.0)
        self.battery(40.0, -27.0)
        missing = [p.ref for p in d.parts if p.ref not in self.refs]
        if missing:
            raise ValueError(f"{d.board}: the schematic does not draw {', '.join(missing)}")
        unlabelled = [n for n, nodes in d.nets().items()
                      if len({r for r, _ in nodes}) > 1 and n not in self.labels]  # fmt: skip
        if unlabelled:
            raise ValueError(f"{d.board}: nets not drawn: {', '.join(unlabelled)}")
        # schemdraw writes through ElementTree, whose namespace prefixes are global: a
        # library imported later (build123d's svgpathtools) maps the SVG namespace to `svg:`,
        # so the same drawing would come out as <svg:svg> after the enclosure was built
        ElementTree.register_namespace("", SVG_NS)
        svg = self.dw.get_imagedata("svg")
        text = svg.decode() if isinstance(svg, bytes) else str(svg)
        return text.rstrip("\n") + "\n"


def schematic_svg(board: str) -> str:
    """hardware/<board>/schematic.svg: the whole controller."""
    return _Sheet(netlist.design(board), None).draw()


def step_svg(board: str, slug: str) -> str:
    """The schematic with one build step's parts highlighted, the others grey."""
    d = netlist.design(board)
    return _Sheet(d, set(step_parts(d, slug))).draw()

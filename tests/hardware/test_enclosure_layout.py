"""The enclosure's layout (pure geometry, no CAD): positions from the profiles, clearances and
design rules, and the committed manifest's layout part against a fresh one."""

from __future__ import annotations

import itertools
import json
import math

import pytest

from dialbox.enclosure import parts as P
from dialbox.enclosure.layout import (
    Block,
    Cutout,
    Layout,
    LayoutError,
    boards,
    describe,
    layout,
    mechanical,
)
from dialbox.firmware_tools.bundle import profile
from dialbox.paths import repo_root
from tests.hardware._enclosure import layouts

BOARDS = boards()
C = P.CLEARANCES


def test_every_board_profile_has_an_enclosure() -> None:
    assert {"pico_w", "pico2_w", "esp32s3_devkitc", "esp32s3_devkitc_v1_0"} <= set(BOARDS)
    assert sorted(mechanical()["boards"]) == BOARDS, "a mechanical layout for every profile"
    assert set(layouts()) == set(BOARDS)


def test_an_unknown_board_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(LayoutError) as e:
        layout("pico_x")
    assert "unknown board 'pico_x'" in str(e.value)
    assert all(b in str(e.value) for b in BOARDS)
    assert "\n" not in str(e.value)


def _outline(c: Cutout) -> tuple[float, float, float, float]:
    a, b = c.along()
    return a - c.width / 2, a + c.width / 2, b - c.height / 2, b + c.height / 2


def _gap(c1: Cutout, c2: Cutout) -> float:
    """Material left between two openings in one face."""
    if c1.shape == c2.shape == "circle":
        (a1, b1), (a2, b2) = c1.along(), c2.along()
        return math.hypot(a1 - a2, b1 - b2) - (c1.width + c2.width) / 2
    if c1.shape == "circle" or c2.shape == "circle":
        circ, rect = (c1, c2) if c1.shape == "circle" else (c2, c1)
        a, b = circ.along()
        x0, x1, y0, y1 = _outline(rect)
        dx, dy = max(x0 - a, 0.0, a - x1), max(y0 - b, 0.0, b - y1)
        return math.hypot(dx, dy) - circ.width / 2
    p0, p1, q0, q1 = _outline(c1)
    r0, r1, s0, s1 = _outline(c2)
    return math.hypot(max(r0 - p1, p0 - r1, 0.0), max(s0 - q1, q0 - s1, 0.0))


@pytest.mark.parametrize("board", BOARDS)
def test_wheels_follow_the_profile(board: str) -> None:
    lay, prof = layouts()[board], profile(board)
    wheels = [e["wheel"] for e in prof["encoders"]]
    holes = [lay.cutout(f"encoder {w}") for w in wheels]
    assert len(holes) == 3
    xs = [h.x for h in holes]
    assert xs == sorted(xs), "left, centre, right from the player's side"
    pitch = float(mechanical()["defaults"]["wheel_pitch"])
    assert [round(b - a, 6) for a, b in itertools.pairwise(xs)] == [pitch, pitch]
    assert len({h.y for h in holes}) == 1
    assert pitch >= P.ENCODER.knob_diameter + 4, "thumbs must not catch the next knob"
    for h in holes:
        tab = lay.cutout(f"{h.name} tab")
        assert (tab.x, round(tab.y - h.y, 6)) == (h.x, P.ENCODER.tab_offset)
        body = lay.block(f"{h.name} body")
        assert (body.x, body.y) == (h.x, h.y)
        knob = P.ENCODER.knob_diameter / 2
        for other in ("oled window", "led"):
            o = lay.cutout(other)
            assert _gap(h, o) + h.width / 2 > knob, f"the {h.name} knob covers the {other}"


@pytest.mark.parametrize("board", BOARDS)
def test_the_led_sits_where_the_profile_puts_it(board: str) -> None:
    lay, prof = layouts()[board], profile(board)
    led = lay.cutout("led")
    mod = lay.block("module")
    (x0, x1), (y0, y1), _ = mod.bounds()
    over_module = x0 < led.x < x1 and y0 < led.y < y1
    if prof["led"].get("onboard"):
        assert over_module, "an on-board LED: the light pipe stands on the module's LED"
        assert lay.module.onboard_led is not None
        u, v = lay.module.onboard_led
        assert (round(led.x, 6), round(led.y, 6)) == (round(mod.x - v, 6), round(mod.y + u, 6))
        pipe = lay.block("light pipe")
        assert math.isclose(pipe.z - pipe.sz / 2, mod.z + mod.sz / 2 - lay.module.top_height
                            + lay.module.led_height)
    else:
        assert not over_module
        assert lay.block("led board").z < lay.shell.lid_inner
    assert lay.fact("light pipe length") > 0


@pytest.mark.parametrize("board", BOARDS)
def test_the_module_stands_on_its_supports_with_usb_at_the_back(board: str) -> None:
    lay = layouts()[board]
    mod, s = lay.block("module"), lay.shell
    pcb_bottom = mod.z - mod.sz / 2
    supports = [f for f in lay.features if f.name.startswith("module support")]
    assert len(supports) == len(lay.module.supports) >= 3
    (x0, x1), (y0, y1), _ = mod.bounds()
    for f in supports:
        assert f.z1 == pcb_bottom and f.z0 < s.floor
        assert x0 < f.x < x1 and y0 < f.y < y1
        if lay.module.screw_pilot:
            assert f.bore == lay.module.screw_pilot and f.bore_depth < f.z1 - s.floor
    assert math.isclose(pcb_bottom, s.floor + lay.module.standoff_height)
    sockets = [b for b in lay.blocks if b.name.startswith("usb")]
    assert len(sockets) == len(lay.module.usb)
    for sock, conn in zip(sockets, lay.module.usb, strict=True):
        # the module lies with u (its USB end) to the back and v to the left (-x)
        assert math.isclose(sock.x, mod.x - conn.v)
        assert math.isclose(sock.z, pcb_bottom + lay.module.pcb + conn.height / 2)
        opening = lay.cutout(sock.name.removesuffix(" socket"))
        assert (opening.x, opening.z) == (sock.x, sock.z), "the opening centred on its socket"
        assert sock.y + sock.sy / 2 <= s.depth / 2 - s.tray_wall, "the socket is inside"
        assert sock.y + sock.sy / 2 >= s.depth / 2 - s.tray_wall - 1.0, "and at the wall"


@pytest.mark.parametrize("board", BOARDS)
def test_clearances(board: str) -> None:
    lay = layouts()[board]
    e = P.ENCODER
    for c in lay.cutouts:
        if c.name.startswith("encoder") and not c.name.endswith("tab"):
            assert 0.2 <= c.width - e.bushing_diameter <= 0.6, c
            assert c.width > e.shaft_diameter
        elif c.name.endswith("tab"):
            assert 0.2 <= c.width - e.tab_width <= 0.6 and 0.2 <= c.height - e.tab_length <= 0.6
        elif c.name == "led":
            assert 0.2 <= c.width - P.LIGHT_PIPE.diameter <= 0.6
        elif c.name == "button":
            assert 0.2 <= c.width - P.BUTTON.cap_diameter <= 0.6
    # the OLED window covers the active area, computed from the module's own block
    board_block = lay.block("oled board")
    ax, ay = board_block.x + P.OLED.active_offset[0], board_block.y + P.OLED.active_offset[1]
    w = lay.cutout("oled window")
    assert w.x - w.width / 2 <= ax - P.OLED.active_width / 2 - 1.0
    assert w.x + w.width / 2 >= ax + P.OLED.active_width / 2 + 1.0
    assert w.y - w.height / 2 <= ay - P.OLED.active_depth / 2 - 1.0
    assert w.y + w.height / 2 >= ay + P.OLED.active_depth / 2 + 1.0
    # ... but the glass stays under the top wall, all round
    glass = lay.block("oled glass")
    assert glass.sx > w.width and glass.sy > w.height
    # every USB opening covers its socket with at least 0.5 mm all round, and passes the plug
    for sock in (b for b in lay.blocks if b.name.endswith("socket")):
        c = lay.cutout(sock.name.removesuffix(" socket"))
        assert c.face == "back"
        assert c.x - c.width / 2 <= sock.x - sock.sx / 2 - 0.5
        assert c.x + c.width / 2 >= sock.x + sock.sx / 2 + 0.5
        assert c.z - c.height / 2 <= sock.z - sock.sz / 2 - 0.5
        assert c.z + c.height / 2 >= sock.z + sock.sz / 2 + 0.5
        assert c.width >= P.PLUG.width and c.height >= P.PLUG.height


@pytest.mark.parametrize("board", BOARDS)
def test_walls_and_webs_are_thick_enough(board: str) -> None:
    lay = layouts()[board]
    s = lay.shell
    assert min(s.wall, s.top, s.floor, s.lip) >= C.min_wall >= 1.6
    assert math.isclose(s.tray_wall, s.wall + s.fit_gap + s.lip)
    for face in ("top", "back", "right"):
        on_face = [c for c in lay.cutouts if c.face == face]
        for c1, c2 in itertools.combinations(on_face, 2):
            assert _gap(c1, c2) >= C.min_wall, f"{c1.name} / {c2.name}"
    # top openings stay over the cavity, clear of the side walls and their rounded corners
    inner_x, inner_y = s.width / 2 - s.wall, s.depth / 2 - s.wall
    for c in (c for c in lay.cutouts if c.face == "top"):
        x0, x1, y0, y1 = _outline(c)
        assert -inner_x + C.min_wall <= x0 and x1 <= inner_x - C.min_wall, c.name
        assert -inner_y + C.min_wall <= y0 and y1 <= inner_y - C.min_wall, c.name
    # wall openings stay clear of the corner radius and above the floor
    for c in (c for c in lay.cutouts if c.face != "top"):
        half = (s.width if c.face == "back" else s.depth) / 2
        x0, x1, z0, _ = _outline(c)
        assert -half + s.corner_radius + C.min_wall <= x0 and x1 <= half - s.corner_radius
        assert z0 >= s.floor


def _overlap(a: Block, b: Block) -> float:
    vol = 1.0
    for (a0, a1), (b0, b1) in zip(a.bounds(), b.bounds(), strict=True):
        vol *= max(0.0, min(a1, b1) - max(a0, b0))
    return vol


@pytest.mark.parametrize("board", BOARDS)
def test_the_parts_inside_do_not_collide_and_fit_the_box(board: str) -> None:
    lay = layouts()[board]
    s = lay.shell
    blocks = list(lay.blocks)
    for a, b in itertools.combinations(blocks, 2):
        touching = {a.group, b.group} <= {"module"} or a.group == b.group
        if "light pipe" in (a.name, b.name) and "module" in (a.group, b.group):
            touching = True  # the pipe stands on the module's own LED
        if not touching:
            assert _overlap(a, b) < 1e-6, f"{a.name} meets {b.name}"
    for b in blocks:
        (x0, x1), (y0, y1), (z0, z1) = b.bounds()
        outside_ok = b.name.endswith(("bushing", "lug", "cap", "light pipe"))
        if not outside_ok:
            assert -s.width / 2 + s.wall <= x0 and x1 <= s.width / 2 - s.wall, b.name
            assert -s.depth / 2 + s.wall <= y0 and y1 <= s.depth / 2 - s.wall, b.name
            assert s.floor <= z0 and z1 <= s.lid_inner, b.name
    assert lay.fact("encoder bodies above the module") >= 1.0


def test_side_openings_are_notches_from_the_parting_plane() -> None:
    """Each wall opening is cut in every part whose wall it crosses (and so, from the rim)."""
    for lay in layouts().values():
        s = lay.shell
        for c in (c for c in lay.cutouts if c.face != "top"):
            z0, z1 = c.z - c.height / 2, c.z + c.height / 2
            assert ("top" in c.parts) == (z1 > s.split), c.name
            assert ("bottom" in c.parts) == (z0 < s.split + s.lip_height), c.name
        assert lay.cutout("button").parts == ("top", "bottom")


def test_the_committed_manifest_layout_matches_a_fresh_one() -> None:
    """docs/build/enclosure.json: regenerate with `dialbox hardware generate`."""
    committed = json.loads((repo_root() / "docs" / "build" / "enclosure.json").read_text())
    assert sorted(committed["boards"]) == BOARDS
    assert committed["parts"] == [list(r) for r in P.table()]
    for board, lay in layouts().items():
        fresh = json.loads(json.dumps(describe(lay)))
        entry = {k: v for k, v in committed["boards"][board].items()
                 if k not in ("solids", "pictures")}  # fmt: skip
        assert entry == fresh, f"{board} drifted: run `dialbox hardware generate`"


def test_the_part_table_is_labelled_sample() -> None:
    assert "measure your parts" in P.SAMPLE
    assert "MEASURE YOUR PARTS" in (P.__doc__ or "")
    assert "measure your parts" in (repo_root() / "hardware" / "README.md").read_text()


def _all(lay: Layout) -> list[str]:
    return [c.name for c in lay.cutouts]


def test_every_board_has_every_opening() -> None:
    for board, lay in layouts().items():
        names = _all(lay)
        for want in ("encoder left", "encoder centre", "encoder right", "oled window", "led",
                     "button", "charge usb"):
            assert want in names, (board, want)
        assert sum(n.startswith("usb") for n in names) == len(lay.module.usb)
        assert "battery" in [b.name for b in lay.blocks]

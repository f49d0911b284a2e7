"""The enclosure's solids (build123d): every cut-out where the layout says, material around
it, walls as thick as the rules, no overhang in print orientation, the two parts closing
without overlap, every part inside clear of both, and the manifest's solid figures."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("build123d")

from dialbox.enclosure import parts as P  # noqa: E402
from dialbox.enclosure.layout import PARTS, Cutout, Layout, PartName, boards  # noqa: E402
from dialbox.enclosure.model import block_solid, common_volume, printable  # noqa: E402
from dialbox.enclosure.render import board_manifest, mesh  # noqa: E402
from dialbox.paths import repo_root  # noqa: E402
from tests.hardware._enclosure import models  # noqa: E402

BOARDS = boards()
OUT = 0.5
"""How far past a cut-out's edge material must be found."""
IN = 0.3
"""How far inside a cut-out's edge it must be open."""


def inside(solid: Any, x: float, y: float, z: float) -> bool:
    return bool(solid.is_inside((x, y, z)))


def _wall_zrange(lay: Layout, part: PartName) -> tuple[float, float]:
    s = lay.shell
    return (0.0, s.split) if part == "bottom" else (s.split, s.height - s.top)


def _point(lay: Layout, c: Cutout, a: float, z: float, inset: float) -> tuple[float, float,
                                                                            float]:
    """A point in a side wall: `a` along it, `inset` in from the outer face."""
    s = lay.shell
    if c.face == "back":
        return a, s.depth / 2 - inset, z
    return s.width / 2 - inset, a, z


def _probes(lay: Layout, c: Cutout, part: PartName) -> Iterator[tuple[str, tuple[float, float,
                                                                               float], bool]]:
    """(what, point, material expected) around one cut-out in one part."""
    s = lay.shell
    if c.face == "top":
        zm = s.height - s.top / 2
        yield "centre", (c.x, c.y, zm), False
        for z in (s.height - 0.05, s.lid_inner + 0.05):
            yield "axis", (c.x, c.y, z), False
        if c.shape == "circle":
            for r, material in ((c.width / 2 + OUT, True), (c.width / 2 - IN, False)):
                for k in range(8):
                    t = k * math.pi / 4
                    yield (f"{k * 45} deg r {r:g}",
                           (c.x + r * math.cos(t), c.y + r * math.sin(t), zm), material)
        else:
            for d, material in ((OUT, True), (-IN, False)):
                for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1),
                               (-1, 1)):
                    yield (f"edge {dx},{dy} {d:+g}", (c.x + dx * (c.width / 2 + d),
                                                      c.y + dy * (c.height / 2 + d), zm), material)
        return
    lo, hi = _wall_zrange(lay, part)
    wall = s.tray_wall if part == "bottom" else s.wall
    a, zc = c.along()
    z0, z1 = zc - c.height / 2, zc + c.height / 2
    zl, zh = max(z0, lo), min(z1, hi)
    if zh <= zl:
        return
    zm = (zl + zh) / 2
    yield "centre", _point(lay, c, a, zm, wall / 2), False
    if c.shape == "circle":
        sign = -1 if part == "bottom" else 1  # the half away from the part's rim
        for r, material in ((c.width / 2 + OUT, True), (c.width / 2 - IN, False)):
            for deg in (0, 30, 60, 90, 120, 150, 180):
                t = math.radians(deg)
                z = zc + sign * r * math.sin(t)
                if lo < z < hi:
                    yield (f"{deg} deg r {r:g}", _point(lay, c, a + r * math.cos(t), z, wall / 2),
                           material)
        return
    for side in (-1, 1):
        yield f"side {side}", _point(lay, c, a + side * (c.width / 2 + OUT), zm, wall / 2), True
        yield f"in side {side}", _point(lay, c, a + side * (c.width / 2 - IN), zm, wall / 2), False
    for z in (z0 + IN, z1 - IN):  # open right to its edges
        if lo < z < hi:
            yield f"in edge z {z:g}", _point(lay, c, a, z, wall / 2), False
    # away from the part's rim (the opening is a notch open at the rim)
    if part == "bottom" and z0 - OUT > s.floor:
        yield "below", _point(lay, c, a, z0 - OUT, wall / 2), True
    if part == "top" and z1 + OUT < hi:
        yield "above", _point(lay, c, a, z1 + OUT, wall / 2), True


@pytest.mark.parametrize("board", BOARDS)
def test_every_cutout_is_open_where_the_layout_puts_it_and_closed_around_it(board: str) -> None:
    model = models()[board]
    lay = model.layout
    checked = 0
    for c in lay.cutouts:
        for part in c.parts:
            solid = model.part(part)
            for what, p, material in _probes(lay, c, part):
                assert inside(solid, *p) == material, f"{board} {part} {c.name} {what} at {p}"
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("board", BOARDS)
def test_encoder_shafts_and_the_light_pipe_pass_the_top_wall(board: str) -> None:
    model = models()[board]
    lay = model.layout
    s = lay.shell
    for c in lay.cutouts:
        if c.face == "top" and c.shape == "circle":
            steps = 20
            for k in range(steps + 1):  # a line along the axis through the whole wall
                z = s.lid_inner - 1.0 + k * (s.top + 2.0) / steps
                assert not inside(model.top, c.x, c.y, z), (c.name, z)
                # and a thin cylinder: the shaft of what passes, minus nothing
                r = (c.width - P.CLEARANCES.hole) / 2 - 0.05
                for t in range(0, 360, 45):
                    x = c.x + r * math.cos(math.radians(t))
                    y = c.y + r * math.sin(math.radians(t))
                    assert not inside(model.top, x, y, z), (c.name, z, t)


@pytest.mark.parametrize("board", BOARDS)
def test_walls_are_at_least_the_minimum_thick(board: str) -> None:
    model = models()[board]
    s = model.layout.shell
    top, bottom = model.top, model.bottom
    assert min(s.wall, s.top, s.floor, s.lip) >= 1.6
    e = 0.05
    # side walls of the top shell, measured on the left wall (no opening there)
    z = (s.split + s.lid_inner) / 2
    for y in (-s.depth / 4, 0.0, s.depth / 4):
        assert inside(top, -s.width / 2 + e, y, z) and inside(top, -s.width / 2 + s.wall - e, y, z)
        assert not inside(top, -s.width / 2 + s.wall + e, y, z)
    # the tray's wall, its floor, and the top wall at a corner clear of openings
    for y in (-s.depth / 4, 0.0):
        assert inside(bottom, -s.width / 2 + s.tray_wall - e, y, s.split / 2)
        assert not inside(bottom, -s.width / 2 + s.tray_wall + e, y, s.split / 2)
    x, y = -s.width / 2 + 12, -s.depth / 2 + 8
    assert inside(bottom, x, y, e) and inside(bottom, x, y, s.floor - e)
    assert not inside(bottom, x, y, s.floor + e)
    assert inside(top, x, y, s.height - e) and inside(top, x, y, s.lid_inner + e)
    assert not inside(top, x, y, s.lid_inner - e)


def _overhangs(shape: Any) -> int:
    """Triangles facing down more than the rule allows that are not on the bed."""
    import numpy as np

    v, t = mesh(shape, 0.05)
    tri = v[t]
    n = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    length = np.linalg.norm(n, axis=1)
    keep = length > 1e-9
    n, tri = n[keep] / length[keep, None], tri[keep]
    limit = math.cos(math.radians(P.CLEARANCES.max_overhang_deg))
    down = n[:, 2] < -limit - 1e-6
    on_bed = tri[:, :, 2].max(axis=1) < tri[:, :, 2].min() + 1e-6
    return int((down & ~on_bed).sum())


@pytest.mark.parametrize("board", BOARDS)
def test_no_overhang_in_print_orientation(board: str) -> None:
    model = models()[board]
    for part in PARTS:
        shape = printable(model, part)
        bb = shape.bounding_box()
        assert abs(bb.min.Z) < 1e-6, "stands on the bed"
        assert _overhangs(shape) == 0, f"{board} {part}: overhangs (would need supports)"
    # the check bites: the top shell the right way up has its whole top wall overhanging
    assert _overhangs(model.top) > 0


@pytest.mark.parametrize("board", BOARDS)
def test_the_parts_close_without_overlap(board: str) -> None:
    model = models()[board]
    s = model.layout.shell
    assert common_volume(model.top, model.bottom) < 1e-3
    tb, bb = model.top.bounding_box(), model.bottom.bounding_box()
    assert math.isclose(tb.min.Z, s.split, abs_tol=1e-6), "the top shell's rim on the parting plane"
    assert math.isclose(bb.max.Z, s.split + s.lip_height, abs_tol=1e-6)
    for b in (tb, bb):
        assert (round(b.min.X, 6), round(b.max.X, 6)) == (-s.width / 2, s.width / 2)
        assert (round(b.min.Y, 6), round(b.max.Y, 6)) == (-s.depth / 2, s.depth / 2)
    # the top shell's wall sits on the tray's wall: material just above and below the plane,
    # and the lip rises inside the top shell's wall with the fit gap between
    y, e = 0.0, 0.05
    x = -s.width / 2 + s.wall / 2
    assert inside(model.top, x, y, s.split + e) and inside(model.bottom, x, y, s.split - e)
    z = s.split + s.lip_height / 2
    assert inside(model.top, -s.width / 2 + s.wall - e, y, z)
    assert not inside(model.top, -s.width / 2 + s.wall + s.fit_gap / 2, y, z)
    assert not inside(model.bottom, -s.width / 2 + s.wall + s.fit_gap / 2, y, z)
    assert inside(model.bottom, -s.width / 2 + s.wall + s.fit_gap + e, y, z)
    assert inside(model.bottom, -s.width / 2 + s.tray_wall - e, y, z)


@pytest.mark.parametrize("board", BOARDS)
def test_every_part_inside_is_clear_of_both_printed_parts(board: str) -> None:
    model = models()[board]
    for b in model.layout.blocks:
        solid = block_solid(b)
        for part in PARTS:
            assert common_volume(model.part(part), solid) < 1e-3, f"{b.name} meets the {part}"
    # and the module really rests on its supports: material right under its PCB
    mod = model.layout.block("module")
    for u, v in model.layout.module.supports:
        assert inside(model.bottom, mod.x - v + 0.01 if model.layout.module.screw_pilot == 0
                      else mod.x - v + model.layout.module.support_diameter / 2 - 0.3,
                      mod.y + u, mod.z - mod.sz / 2 - 0.05)


def test_the_committed_manifest_solids_match_fresh_ones() -> None:
    committed = json.loads((repo_root() / "docs" / "build" / "enclosure.json").read_text())
    for board, model in models().items():
        fresh = json.loads(json.dumps(board_manifest(model)))
        assert committed["boards"][board] == fresh, (
            f"{board} drifted: run `dialbox hardware generate`")

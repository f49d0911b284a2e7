"""The two printable parts of an enclosure as solids (build123d, the `hardware` extra).

The model only interprets a `layout.Layout`: the shell, then every `Feature` added, then every
`Cutout` and pilot hole removed. Solids are in assembled position (z up from the underside of
the tray); `printable` turns a part to its print orientation for the STL files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dialbox.enclosure.layout import PARTS, Block, Cutout, Feature, Layout, PartName

try:
    import build123d as bd
except ImportError as e:  # pragma: no cover - the `hardware` extra is missing
    raise ImportError(
        "the enclosure needs build123d: pip install -e '.[hardware]'"
    ) from e

EPS = 0.5
"""How far a tool reaches past the face it cuts, and a feature into the wall it stands on."""


@dataclass(frozen=True)
class Model:
    layout: Layout
    top: Any
    """build123d Part, assembled position"""
    bottom: Any

    def part(self, name: PartName) -> Any:
        return self.top if name == "top" else self.bottom


def _prism(width: float, depth: float, radius: float, z0: float, z1: float) -> Any:
    sketch = bd.RectangleRounded(width, depth, max(radius, 0.5))
    return bd.Pos(0, 0, z0) * bd.extrude(sketch, amount=z1 - z0)


def _box(x0: float, x1: float, y0: float, y1: float, z0: float, z1: float) -> Any:
    return bd.Pos((x0 + x1) / 2, (y0 + y1) / 2, (z0 + z1) / 2) * bd.Box(
        x1 - x0, y1 - y0, z1 - z0
    )


def _cylinder_z(x: float, y: float, diameter: float, z0: float, z1: float) -> Any:
    return bd.Pos(x, y, (z0 + z1) / 2) * bd.Cylinder(diameter / 2, z1 - z0)


def block_solid(b: Block) -> Any:
    """A block (a part inside) as a solid, for collision checks and pictures."""
    if b.shape == "box":
        return bd.Pos(b.x, b.y, b.z) * bd.Box(b.sx, b.sy, b.sz)
    if b.shape == "cylinder_z":
        return bd.Pos(b.x, b.y, b.z) * bd.Cylinder(b.sx / 2, b.sz)
    return bd.Pos(b.x, b.y, b.z) * (bd.Rot(0, 90, 0) * bd.Cylinder(b.sy / 2, b.sx))


def _feature(f: Feature) -> Any:
    if f.shape == "cylinder":
        return _cylinder_z(f.x, f.y, f.width, f.z0, f.z1)
    return _box(f.x - f.width / 2, f.x + f.width / 2, f.y - f.length / 2, f.y + f.length / 2,
                f.z0, f.z1)


def _bore(f: Feature) -> Any:
    if f.part == "bottom":
        return _cylinder_z(f.x, f.y, f.bore, f.z1 - f.bore_depth, f.z1 + EPS)
    return _cylinder_z(f.x, f.y, f.bore, f.z0 - EPS, f.z0 + f.bore_depth)


def _tools(c: Cutout, part: PartName, lay: Layout) -> list[Any]:
    """The solids a cut-out removes from one part: through the wall, and for a side wall,
    on to the rim of the part (a notch open at the parting plane: no bridge to print)."""
    s = lay.shell
    if c.face == "top":
        z0, z1 = s.height - c.depth - EPS, s.height + EPS
        if c.shape == "circle":
            return [_cylinder_z(c.x, c.y, c.width, z0, z1)]
        return [_box(c.x - c.width / 2, c.x + c.width / 2, c.y - c.height / 2,
                     c.y + c.height / 2, z0, z1)]
    # side walls: a = position along the wall, z up
    a, z = c.along()
    rim_lo, rim_hi = (s.split - EPS, z) if part == "top" else (z, s.split + s.lip_height + EPS)
    w, h = c.width, c.height
    tools: list[Any] = []
    if c.face == "back":
        y0, y1 = s.depth / 2 - c.depth - EPS, s.depth / 2 + EPS
        if c.shape == "circle":
            tools.append(bd.Pos(a, (y0 + y1) / 2, z) * (bd.Rot(90, 0, 0)
                                                       * bd.Cylinder(w / 2, y1 - y0)))
        else:
            tools.append(_box(a - w / 2, a + w / 2, y0, y1, z - h / 2, z + h / 2))
        if rim_hi > rim_lo:
            tools.append(_box(a - w / 2, a + w / 2, y0, y1, rim_lo, rim_hi))
        return tools
    x0, x1 = s.width / 2 - c.depth - EPS, s.width / 2 + EPS
    if c.shape == "circle":
        tools.append(bd.Pos((x0 + x1) / 2, a, z) * (bd.Rot(0, 90, 0)
                                                   * bd.Cylinder(w / 2, x1 - x0)))
    else:
        tools.append(_box(x0, x1, a - w / 2, a + w / 2, z - h / 2, z + h / 2))
    if rim_hi > rim_lo:
        tools.append(_box(x0, x1, a - w / 2, a + w / 2, rim_lo, rim_hi))
    return tools


def _finish(body: Any, part: PartName, lay: Layout) -> Any:
    feats = [f for f in lay.features if f.part == part]
    if feats:
        body = body.fuse(*[_feature(f) for f in feats])
    tools = [t for c in lay.cutouts if part in c.parts for t in _tools(c, part, lay)]
    tools += [_bore(f) for f in feats if f.bore > 0]
    if tools:
        body = body.cut(*tools)
    solids = body.solids()
    if len(solids) != 1:
        raise RuntimeError(f"{lay.board} {part}: {len(solids)} solids, expected one")
    return solids[0]


def build(lay: Layout) -> Model:
    s = lay.shell
    W, D, R = s.width, s.depth, s.corner_radius
    tw, inset = s.tray_wall, s.wall + s.fit_gap
    tray = _prism(W, D, R, 0.0, s.split) - _prism(W - 2 * tw, D - 2 * tw, R - tw, s.floor,
                                                  s.split + EPS)
    lip = _prism(W - 2 * inset, D - 2 * inset, R - inset, s.split - EPS,
                 s.split + s.lip_height) - _prism(W - 2 * tw, D - 2 * tw, R - tw,
                                                  s.split - 2 * EPS, s.split + s.lip_height + EPS)
    bottom = _finish(tray.fuse(lip), "bottom", lay)
    shell = _prism(W, D, R, s.split, s.height) - _prism(W - 2 * s.wall, D - 2 * s.wall,
                                                       R - s.wall, s.split - EPS, s.lid_inner)
    top = _finish(shell, "top", lay)
    return Model(lay, top, bottom)


def common_volume(a: Any, b: Any) -> float:
    """The volume two solids share (0.0 when they do not meet)."""
    shared = a.intersect(b)
    if shared is None:
        return 0.0
    items = shared if isinstance(shared, list) else [shared]
    return float(sum(getattr(x, "volume", 0.0) for x in items))


def printable(model: Model, part: PartName) -> Any:
    """A part in its print orientation, standing on z = 0: the tray as it sits, the top shell
    upside down (its top face on the bed)."""
    if part == "bottom":
        return model.bottom
    return bd.Pos(0, 0, model.layout.shell.height) * (bd.Rot(180, 0, 0) * model.top)


def write_stl(model: Model, out_dir: Path, step: bool = False) -> list[Path]:
    """<board>-top.stl and <board>-bottom.stl in print orientation (and .step if asked)."""
    written: list[Path] = []
    for part in PARTS:
        solid = printable(model, part)
        path = out_dir / f"{model.layout.board}-{part}.stl"
        if not bd.export_stl(solid, str(path), tolerance=0.02, angular_tolerance=0.15):
            raise OSError(f"{path}: the STL could not be written")
        written.append(path)
        if step:
            spath = out_dir / f"{model.layout.board}-{part}.step"
            if not bd.export_step(solid, str(spath)):
                raise OSError(f"{spath}: the STEP file could not be written")
            written.append(spath)
    return written

"""`dialbox hardware`: the printable enclosure of a controller, and every generated hardware file.

- `enclosure --board NAME --out DIR [--step]`: <board>-top.stl and <board>-bottom.stl (and
  STEP), each in its print orientation;
- `render --board NAME --out DIR`: the four PNG pictures of the build guide;
- `generate`: everything committed that is generated from the board profiles: hardware/<board>/
  (pinouts, Wokwi diagrams, netlists, BOMs, schematics: `dialbox firmware hardware`) and
  docs/build/ (the enclosure manifest and pictures).

`--board all` takes every board. Bad input is one line and status 2.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dialbox.enclosure.layout import Layout
    from dialbox.enclosure.model import Model


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "hardware", help="the printable enclosure (STL, pictures) and all generated hardware "
        "files",
        description="The controller's two-part printable enclosure, generated from the board "
        "profile (firmware/boards/<board>.json), host/dialbox/enclosure/mechanical.json and the "
        "part table host/dialbox/enclosure/parts.py (sample dimensions: measure your parts).",
    )
    hsub = p.add_subparsers(dest="hardware_command", metavar="ACTION")

    e = hsub.add_parser("enclosure", help="write <board>-top.stl and <board>-bottom.stl "
                        "(print orientation)")
    e.add_argument("--board", required=True, help="board profile name, or 'all'")
    e.add_argument("--out", type=Path, required=True, help="output directory (created)")
    e.add_argument("--step", action="store_true", help="also write STEP files")
    e.set_defaults(func=run_enclosure)

    r = hsub.add_parser("render", help="PNG pictures: assembled, exploded, top and bottom part")
    r.add_argument("--board", required=True, help="board profile name, or 'all'")
    r.add_argument("--out", type=Path, required=True, help="output directory (created)")
    r.set_defaults(func=run_render)

    g = hsub.add_parser("generate", help="regenerate every committed hardware file: "
                        "hardware/<board>/ and docs/build/enclosure*")
    g.add_argument("--no-pictures", action="store_true",
                   help="leave the PNG pictures alone (the manifest is still written)")
    g.set_defaults(func=run_generate)


def _layouts(board: str) -> list[Layout]:
    from dialbox.cli import Failure
    from dialbox.enclosure.layout import LayoutError, boards, layout

    names = boards() if board == "all" else [board]
    try:
        return [layout(b) for b in names]
    except LayoutError as e:
        raise Failure(str(e)) from None


def _model(lay: Layout) -> Model:
    from dialbox.cli import FAILED, Failure
    from dialbox.enclosure.model import build

    try:
        return build(lay)
    except RuntimeError as e:
        raise Failure(f"{lay.board}: the model failed: {e}", FAILED) from None


def _out_dir(path: Path) -> Path:
    """The output directory, created if need be (Failure: one line saying why it cannot)."""
    from dialbox.cli import Failure

    if path.exists() and not path.is_dir():
        raise Failure(f"--out {path}: not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise Failure(f"--out {path}: cannot create it ({e.strerror or e})") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise Failure(f"--out {path}: not writable")
    return path


def run_enclosure(args: argparse.Namespace) -> int:
    from dialbox.cli import FAILED, Failure

    lays = _layouts(args.board)
    _needs_extra()
    out = _out_dir(args.out)
    from dialbox.enclosure.model import write_stl

    for lay in lays:
        model = _model(lay)
        try:
            paths = write_stl(model, out, step=args.step)
        except OSError as e:
            raise Failure(str(e), FAILED) from None
        s = lay.shell
        print(f"{lay.board}: {s.width:g} x {s.depth:g} x {s.height:g} mm, split at "
              f"{s.split:g} mm; top shell printed upside down, tray flat, no supports")
        for path in paths:
            print(f"wrote {path}")
    return 0


def _needs_extra() -> None:
    """Failure (one line) unless the `hardware` extra's CAD and plotting libraries import."""
    from dialbox.cli import Failure

    try:
        import build123d  # noqa: F401
        import matplotlib  # noqa: F401
    except ImportError as e:
        raise Failure(f"{e.name or e} is missing: the enclosure needs the `hardware` extra "
                      "(pip install -e '.[hardware]')") from None


def run_render(args: argparse.Namespace) -> int:
    lays = _layouts(args.board)
    _needs_extra()
    out = _out_dir(args.out)
    from dialbox.enclosure.render import render

    for lay in lays:
        for path in render(_model(lay), out):
            print(f"wrote {path}")
    return 0


def run_generate(args: argparse.Namespace) -> int:
    from dialbox.firmware_tools import hardware

    _layouts("all")  # every board has a layout before anything is written
    _needs_extra()  # before anything is written
    for path in hardware.write_all():
        print(f"wrote {path}")
    from dialbox.enclosure.render import write_docs

    for path in write_docs(pictures=not args.no_pictures):
        print(f"wrote {path}")
    return 0

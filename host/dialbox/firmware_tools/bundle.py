"""Build a controller bundle: the firmware and codec compiled to .mpy for one board (or the sim)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dialbox.firmware_tools.compile_check import mpy_cross
from dialbox.paths import firmware_dir, protocol_dir, repo_root

SIM = "sim"
"""The pseudo-board of the simulated controller (virtual HAL, no hardware drivers)."""

# HAL modules each encoder driver needs; everything else under hal/ is shared.
_DRIVER_MODULES = {
    "pio": {"encoders_rp2.py", "encoders_irq.py"},
    "pcnt": {"encoders_esp32.py", "encoders_irq.py"},
    "irq": {"encoders_irq.py"},
}
_HAL_HARDWARE = {
    "board.py",
    "wifi.py",
    "ssd1306.py",
    "encoders_rp2.py",
    "encoders_esp32.py",
    "encoders_irq.py",
}
_SIM_ONLY = {"virtual.py", "sim.py", "sim_auto.py"}
_HOST_ONLY_KEYS = ("name", "micropython", "micropython_url", "wokwi")
"""Profile keys only the host's tools read (wiring pages, Wokwi diagrams): left out of the
board's board.json, which is written compact (the bundle's size budget counts it)."""


@dataclass(frozen=True)
class Bundle:
    """A built bundle: where it is, the files it holds (relative paths) and their bytes."""

    board: str
    root: Path
    files: tuple[str, ...]

    @property
    def mpy_bytes(self) -> int:
        return sum((self.root / f).stat().st_size for f in self.files if f.endswith(".mpy"))

    @property
    def total_bytes(self) -> int:
        return sum((self.root / f).stat().st_size for f in self.files)


def boards() -> list[str]:
    """The board names that have a profile in firmware/boards/."""
    return sorted(p.stem for p in (firmware_dir() / "boards").glob("*.json"))


def profile(board: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((firmware_dir() / "boards" / f"{board}.json").read_text())
    return data


def _wanted(rel: Path, board: str) -> bool:
    name = rel.name
    if rel.parts[0] != "dialbox_fw":
        return False
    if board == SIM:
        return not (len(rel.parts) > 2 and rel.parts[1] == "hal" and name in _HAL_HARDWARE)
    if name in _SIM_ONLY:
        return False
    if len(rel.parts) > 2 and rel.parts[1] == "hal" and name.startswith("encoders_"):
        driver = str(profile(board).get("encoder_driver", "irq"))
        return name in _DRIVER_MODULES.get(driver, set())
    return True


def sources(board: str) -> list[tuple[Path, str]]:
    """(source file, path in the bundle without suffix) for every module the board runs."""
    fw = firmware_dir()
    out: list[tuple[Path, str]] = []
    for src in sorted(fw.rglob("*.py")):
        rel = src.relative_to(fw)
        if "__pycache__" in rel.parts or not _wanted(rel, board):
            continue
        out.append((src, str(rel.with_suffix(""))))
    codec_dir = protocol_dir() / "dialbox_protocol"
    out.append((codec_dir / "__init__.py", "dialbox_protocol/__init__"))
    out.append((codec_dir / "codec.py", "dialbox_protocol/codec"))
    out.append((codec_dir / "strictjson.py", "dialbox_protocol/strictjson"))
    return out


def _digest(board: str) -> str:
    h = hashlib.sha256(board.encode())
    for src, rel in sources(board):
        h.update(rel.encode())
        h.update(src.read_bytes())
    if board != SIM:
        h.update(board_json(board).encode())
    return h.hexdigest()[:16]


def build(board: str, out_dir: Path | None = None) -> Bundle:
    """Compile the board's modules with mpy-cross into out_dir (default build/firmware/<board>).

    The board profile goes in as board.json (board_json: without the host-only keys) and
    main.py stays source (MicroPython runs main.py by name). A bundle whose sources are
    unchanged is reused.
    """
    root = out_dir if out_dir is not None else repo_root() / "build" / "firmware" / board
    stamp = root / ".stamp"
    digest = _digest(board)
    if stamp.exists() and stamp.read_text() == digest:
        return Bundle(board, root, _listing(root))
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    for src, rel in sources(board):
        out = root / f"{rel}.mpy"
        out.parent.mkdir(parents=True, exist_ok=True)
        proc = subprocess.run(
            [mpy_cross(), "-s", f"{rel}.py", "-o", str(out), str(src)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"mpy-cross failed on {src}: {proc.stderr.strip()}")
    if board != SIM:
        shutil.copy(firmware_dir() / "main.py", root / "main.py")
        (root / "board.json").write_text(board_json(board))
    stamp.write_text(digest)
    return Bundle(board, root, _listing(root))


def board_json(board: str) -> str:
    """The profile as the board gets it: what the firmware reads, compact JSON."""
    prof = {k: v for k, v in profile(board).items() if k not in _HOST_ONLY_KEYS}
    return json.dumps(prof, separators=(",", ":")) + "\n"


def _listing(root: Path) -> tuple[str, ...]:
    return tuple(
        sorted(
            str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.name != ".stamp"
        )
    )

"""Compile every firmware file and the shared codec with mpy-cross; fail loudly on any error."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from dialbox.paths import codec_file, firmware_dir


def sources() -> list[Path]:
    """Every .py that runs on a controller: firmware/** plus the shared codec."""
    files = sorted(p for p in firmware_dir().rglob("*.py") if "__pycache__" not in p.parts)
    return [*files, codec_file(), codec_file().with_name("strictjson.py")]


def mpy_cross() -> str:
    exe = Path(sys.executable).with_name("mpy-cross")
    return str(exe) if exe.exists() else "mpy-cross"


def compile_all(out_dir: Path) -> list[str]:
    """Compile each source into out_dir; return the error texts (empty when all compiled)."""
    errors: list[str] = []
    for i, src in enumerate(sources()):
        out = out_dir / f"{i}_{src.stem}.mpy"
        proc = subprocess.run(
            [mpy_cross(), "-o", str(out), str(src)], capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            errors.append(f"{src}: {proc.stderr.strip() or proc.stdout.strip()}")
    return errors


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        srcs = sources()
        errors = compile_all(Path(tmp))
    for e in errors:
        print(e, file=sys.stderr)
    print(f"mpy-cross: {len(srcs) - len(errors)} of {len(srcs)} files compiled")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())

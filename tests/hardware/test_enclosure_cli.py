"""`dialbox hardware`: STL files written and readable, bad input in one line, the committed
pictures present."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from dialbox.cli import main
from dialbox.enclosure.layout import boards, layout
from dialbox.paths import repo_root

BUILD = repo_root() / "docs" / "build"
VIEWS = ("assembled", "exploded", "top", "bottom")
PICTURE_PX = (640, 480)


def _run(argv: list[str]) -> int:
    """main's status, also for argparse's own errors (which exit)."""
    try:
        return main(argv)
    except SystemExit as e:
        return int(e.code or 0)


def _stl(path: Path) -> tuple[int, tuple[float, ...], tuple[float, ...]]:
    """Triangle count and bounding box of a binary STL (checked against its size)."""
    data = path.read_bytes()
    (count,) = struct.unpack_from("<I", data, 80)
    assert len(data) == 84 + 50 * count, "a binary STL of `count` triangles"
    lo = [float("inf")] * 3
    hi = [float("-inf")] * 3
    for i in range(count):
        vals = struct.unpack_from("<12f", data, 84 + 50 * i)
        for k in range(3):
            x, y, z = vals[3 + 3 * k: 6 + 3 * k]
            for j, v in enumerate((x, y, z)):
                lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
    return count, tuple(lo), tuple(hi)


def test_enclosure_writes_two_stl_files_in_print_orientation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("build123d")
    out = tmp_path / "new" / "dir"
    assert main(["hardware", "enclosure", "--board", "pico_w", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "printed upside down" in said and "no supports" in said
    s = layout("pico_w").shell
    want = {"top": (s.width, s.depth, s.height - s.split),
            "bottom": (s.width, s.depth, s.split + s.lip_height)}
    assert sorted(p.name for p in out.iterdir()) == ["pico_w-bottom.stl", "pico_w-top.stl"]
    for part, size in want.items():
        count, lo, hi = _stl(out / f"pico_w-{part}.stl")
        assert count > 500
        assert lo[2] == pytest.approx(0.0, abs=1e-3), "stands on the bed"
        for j in range(3):
            assert hi[j] - lo[j] == pytest.approx(size[j], abs=1e-3)


@pytest.mark.parametrize("argv, says", [
    (["--board", "pico_x", "--out", "{tmp}"], "unknown board 'pico_x'; boards: esp32s3_devkitc"),
    (["--board", "pico_w", "--out", "{tmp}/file"], "not a directory"),
    (["--board", "pico_w", "--out", "{tmp}/file/below"], "cannot create it"),
    (["--board", "pico_w", "--out", "/proc/dialbox-enclosure"], "cannot create it"),
    (["--out", "{tmp}"], "the following arguments are required: --board"),
    (["--board", "pico_w"], "the following arguments are required: --out"),
])
@pytest.mark.parametrize("action", ["enclosure", "render"])
def test_bad_input_is_one_line_and_status_2(
        action: str, argv: list[str], says: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("x")
    args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert _run(["hardware", action, *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"dialbox hardware {action}: "), err
    assert says in err
    assert "Traceback" not in err


def test_an_unwritable_out_dir_is_refused(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    import os

    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        if os.access(ro, os.W_OK):  # root: permissions do not stop it, a kernel directory does
            ro = Path("/proc/sys")
            if not ro.is_dir() or os.access(ro, os.W_OK):
                pytest.skip("no directory here that this user cannot write to")
        assert _run(["hardware", "enclosure", "--board", "pico_w", "--out", str(ro)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"--out {ro}: not writable" in err, err
    finally:
        (tmp_path / "ro").chmod(0o700)


def test_no_action_names_the_actions(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["hardware"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "enclosure, generate, render" in err


def test_render_writes_four_small_pictures(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("build123d")
    pytest.importorskip("matplotlib")
    assert main(["hardware", "render", "--board", "pico2_w", "--out", str(tmp_path)]) == 0
    for view in VIEWS:
        _check_png(tmp_path / f"enclosure-pico2_w-{view}.png")
    assert capsys.readouterr().out.count("wrote ") == 4


def _check_png(path: Path) -> None:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", path
    assert struct.unpack(">II", data[16:24]) == PICTURE_PX, path
    assert 2_000 < len(data) < 150_000, (path, len(data))


@pytest.mark.parametrize("board", boards())
def test_the_committed_pictures_are_there(board: str) -> None:
    """docs/build/enclosure-<board>-<view>.png (`dialbox hardware generate`): present, a PNG
    of the expected size, small. Pixels are not compared (they vary with matplotlib's
    version); the manifest, docs/build/enclosure.json, is compared exactly elsewhere."""
    for view in VIEWS:
        _check_png(BUILD / f"enclosure-{board}-{view}.png")
    committed = sorted(p.name for p in BUILD.glob("enclosure-*.png"))
    assert committed == sorted(f"enclosure-{b}-{v}.png" for b in boards() for v in VIEWS)


def test_generate_regenerates_the_hardware_files_and_the_enclosure_docs(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`generate` runs `dialbox firmware hardware`'s own code and the enclosure's (both
    replaced here by recorders: the real ones write into the checkout)."""
    pytest.importorskip("build123d")
    from dialbox.enclosure import render
    from dialbox.firmware_tools import hardware

    calls: list[str] = []

    def write_all() -> list[Path]:
        calls.append("hardware")
        return []

    def write_docs(pictures: bool = True) -> list[Path]:
        calls.append(f"docs {pictures}")
        return []

    monkeypatch.setattr(hardware, "write_all", write_all)
    monkeypatch.setattr(render, "write_docs", write_docs)
    assert main(["hardware", "generate"]) == 0
    assert main(["hardware", "generate", "--no-pictures"]) == 0
    assert calls == ["hardware", "docs True", "hardware", "docs False"]


@pytest.mark.parametrize("action", ["enclosure", "render"])
def test_without_the_hardware_extra_it_says_what_to_install(
        action: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "build123d", None)  # import build123d: ImportError
    out = tmp_path / "out"
    assert _run(["hardware", action, "--board", "pico_w", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "build123d is missing" in err, err
    assert "pip install -e '.[hardware]'" in err
    assert not out.exists(), "nothing created"

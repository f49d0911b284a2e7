"""The schematics (hardware/<board>/schematic.svg), the build guide's step pictures
(docs/build/step-*.svg) and the generated sections of docs/build-guide.md: drawn from the same
design as the netlist and the BOM, complete against them, and byte-for-byte reproducible.

The checks read the written files the way a person does (the SVG's text, the KiCad netlist,
the BOM table), not the drawing code's own bookkeeping.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from dialbox.firmware_tools import bundle, hardware, netlist, schematic

BOARDS = bundle.boards()
SVG = "{http://www.w3.org/2000/svg}"


def _texts(svg: str) -> list[tuple[str, str]]:
    """(text, fill colour) of every text line in an SVG."""
    root = ET.fromstring(svg)
    out = []
    for t in root.iter(f"{SVG}text"):
        fill = t.get("fill", "")
        for span in t.iter(f"{SVG}tspan"):
            out.append(((span.text or "").strip(), fill))
    return out


def _netlist_nets(board: str) -> dict[str, set[str]]:
    """Net name -> the refs on it, read from the written KiCad netlist."""
    text = (hardware.repo_root() / "hardware" / board / "netlist.net").read_text()
    nets: dict[str, set[str]] = {}
    for block in text.split("(net\n")[1:]:
        name = re.search(r'\(name "([^"]*)"\)', block)
        assert name is not None
        nets[name.group(1)] = set(re.findall(r'\(ref "([^"]+)"\)', block))
    return nets


def _bom_refs(board: str) -> list[str]:
    text = (hardware.repo_root() / "hardware" / board / "bom.md").read_text()
    refs: list[str] = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 7 and re.fullmatch(r"[A-Z]+\d+(, [A-Z]+\d+)*", cells[0]):
            refs += cells[0].split(", ")
    return refs


def test_the_drawings_and_the_guide_are_generated_outputs() -> None:
    # so test_generated_files_are_up_to_date (tests/firmware/test_hardware.py) covers them
    outputs = hardware.outputs()
    root = hardware.repo_root()
    for board in BOARDS:
        assert root / "hardware" / board / "schematic.svg" in outputs
    for step in schematic.STEPS:
        assert root / "docs" / "build" / f"step-{step.n}-{step.slug}.svg" in outputs
    assert root / "docs" / "build-guide.md" in outputs


@pytest.mark.parametrize("board", BOARDS)
def test_every_part_of_the_bom_and_every_net_is_on_the_schematic(board: str) -> None:
    svg = (hardware.repo_root() / "hardware" / board / "schematic.svg").read_text()
    words = {w for text, _ in _texts(svg) for w in re.split(r"[\s,;:()]+", text) if w}
    refs = _bom_refs(board)
    assert refs and len(refs) == len(netlist.design(board).parts)
    assert [r for r in refs if r not in words] == []
    # every net joining two parts is labelled (a net label, a wire's name or, for the
    # ground, the ground symbol at the module's GND pin); the rest are single-part nets
    nets = {n: r for n, r in _netlist_nets(board).items() if len(r) > 1}
    assert netlist.GND in nets and netlist.V3 in nets
    assert [n for n in nets if n not in words] == []


@pytest.mark.parametrize("board", BOARDS)
def test_every_profile_pin_is_labelled_on_the_module(board: str) -> None:
    prof = bundle.profile(board)
    svg = (hardware.repo_root() / "hardware" / board / "schematic.svg").read_text()
    text = " ".join(t for t, _ in _texts(svg))
    name = "GP{}" if str(prof["mcu"]).startswith("rp2") else "GPIO{}"
    pins = [p for e in prof["encoders"] for p in (e["a"], e["b"])]
    pins += [prof["button"]["pin"], prof["led"]["pin"], prof["oled"]["sda"], prof["oled"]["scl"]]
    pins.append(prof["battery"]["adc_pin"])
    missing = [p for p in pins if not re.search(rf"\b{name.format(p)}\b", text)]
    assert missing == []


@pytest.mark.parametrize("board", BOARDS)
def test_the_schematic_is_reproducible_and_self_contained(board: str) -> None:
    a = schematic.schematic_svg(board)
    assert a == schematic.schematic_svg(board)
    assert a.startswith("<svg ") and a.endswith("</svg>\n")
    # no embedded fonts, images, scripts, ids or dates that could change from run to run
    for word in ("@font-face", "<image", "<script", " id=", "<metadata"):
        assert word not in a
    ET.fromstring(a)  # well-formed


def test_each_step_picture_highlights_its_parts_and_greys_the_rest() -> None:
    d = netlist.design(hardware.GUIDE_BOARD)
    seen: set[str] = set()
    for step in schematic.STEPS:
        lit = set(schematic.step_parts(d, step.slug))
        assert lit, step
        assert not lit & seen, f"{step.slug}: parts of another step"
        seen |= lit
        path = hardware.repo_root() / "docs" / "build" / f"step-{step.n}-{step.slug}.svg"
        svg = path.read_text()
        assert svg == schematic.step_svg(hardware.GUIDE_BOARD, step.slug)
        colours = {t.split()[0]: fill for t, fill in _texts(svg) if t}
        for ref in lit:
            assert colours[ref] == schematic.HIGHLIGHT, (step.slug, ref)
        for ref in {p.ref for p in d.parts} - lit:
            assert colours[ref] == schematic.GREY, (step.slug, ref)
    assert seen == {p.ref for p in d.parts}  # every part is fitted in some step


def test_the_build_guide_has_every_generated_section_and_picture() -> None:
    root = hardware.repo_root()
    guide = (root / "docs" / "build-guide.md").read_text()
    for name in hardware.guide_sections():
        assert f"<!-- generated:{name} -->" in guide and f"<!-- /generated:{name} -->" in guide
    assert guide == hardware.guide_text(guide)
    for link in re.findall(r"\]\(([^)#]+\.(?:svg|png|md))\)", guide):
        assert (root / "docs" / link).resolve().exists(), link
    # the parts list: every part of the reference board's BOM, with its quantity for a table
    parts = guide.split("<!-- generated:parts -->")[1].split("<!-- /generated:parts -->")[0]
    for ref in _bom_refs(hardware.GUIDE_BOARD):
        assert re.search(rf"\b{ref}\b", parts), ref
    assert f"12 / {12 * netlist.TABLE_OF} (R1, R2" in parts
    readme = (root / "README.md").read_text()
    assert "docs/build-guide.md" in readme


def test_a_part_the_drawing_does_not_place_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    real = netlist.design

    def extra(board: str) -> netlist.Design:
        d = real(board)
        d.parts.append(netlist.Placed("R99", netlist.RESISTOR, "1k", {"1": "X", "2": "Y"}))
        return d

    monkeypatch.setattr(netlist, "design", extra)
    with pytest.raises(ValueError, match="R99"):
        schematic.schematic_svg("pico_w")


def test_the_svg_names_no_absolute_path() -> None:
    svg = (hardware.repo_root() / "hardware" / "pico_w" / "schematic.svg").read_text()
    assert str(Path.home()) not in svg and str(hardware.repo_root()) not in svg


def test_the_schematic_is_the_same_after_a_library_remaps_the_svg_namespace() -> None:
    """ElementTree's namespace prefixes are global: build123d (the enclosure) maps the SVG
    namespace to `svg:` when it is imported; the schematic must not change with it."""
    ET.register_namespace("svg", schematic.SVG_NS)  # as svgpathtools does at import
    try:
        text = schematic.schematic_svg("pico_w")
    finally:
        ET.register_namespace("", schematic.SVG_NS)
    assert text.startswith("<svg ")
    assert text == (hardware.repo_root() / "hardware" / "pico_w" / "schematic.svg").read_text()

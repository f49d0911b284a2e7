"""Pieces that move on the table screen, in Debian's Chromium: Pixoid's cubes and Outspeed's
Ships travel along their way after a reveal instead of jumping, and jump straight to their
end when motion is reduced.

States come from rehearsal games (`helpers.Recorded`); each check finds its moment in the
states (a cube that moves, a stack of Bugs, cubes not yet placed, the rear board taken away)
and pushes it through the screen's feed. No durations are asserted: an animation is checked by
its keyframes (from the old place, Pix by Pix or zone by zone, to the new one) and by where the
piece stands once every animation is finished; with motion off (``<body data-motion="off">``,
or ``prefers-reduced-motion: reduce``) by where it stands at once. Screenshots land in
artifacts/displays/motion-*.png (gitignored).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from dialbox.displays.public import TableView
from tests.displays.helpers import Recorded, artifacts, screen_page

pytestmark = [pytest.mark.timeout(180)]

PIX = 56
"""A Pix on Pixoid's board (SVG units)."""

SHOWING = "seq => window.dialbox.log.some(e => e.seq === seq)"
FINISH = "() => document.getAnimations().forEach(a => a.finish())"
MOTION = """off => { if (off) document.body.dataset.motion = 'off';
                    else delete document.body.dataset.motion; }"""

BOX = """const box = (e) => {
  const r = e.getBoundingClientRect();
  return [r.left, r.top, r.right, r.bottom];
};"""
PIECES = """() => {
  """ + BOX + """
  const svg = document.querySelector('svg[data-board=pixoid]');
  const maze = svg.querySelector('[data-maze]');
  return {
    maze: box(maze), svg: box(svg),
    size: [svg.getBoundingClientRect().width, svg.getBoundingClientRect().height],
    pieces: [...svg.querySelectorAll('[data-piece]')].map(e => {
      const a = e.getAnimations();
      return { piece: Number(e.dataset.piece), pix: e.dataset.pix,
        moving: e.classList.contains('moving'), from: e.dataset.from || null, animations: a.length,
        frames: a.length ? a[0].effect.getKeyframes().map(f => f.transform) : [],
        end: e.style.transform, box: box(e.querySelector('rect[data-cube]')),
        cell: box(svg.querySelector(`rect[data-pix="${e.dataset.pix}"]`)) };
    }),
    stacks: [...svg.querySelectorAll('[data-stack]')]
      .map(e => [e.dataset.stack, Number(e.dataset.count)]),
    unplaced: [...document.querySelectorAll('#board [data-unplaced]')]
      .map(e => Number(e.dataset.unplaced)),
    cols: [...svg.querySelectorAll('text[data-col]')].map(e => e.textContent),
    rows: [...svg.querySelectorAll('text[data-row]')].map(e => e.textContent),
    pixes: [...svg.querySelectorAll('rect[data-pix]')].map(e => e.dataset.pix),
  };
}"""
SHIPS = """() => {
  """ + BOX + """
  const svg = document.querySelector('svg[data-board=outspeed]');
  const slide = svg.querySelector('[data-slide]');
  return {
    svg: box(svg), size: [svg.getBoundingClientRect().width, svg.getBoundingClientRect().height],
    slide: slide.getAnimations().map(a => a.effect.getKeyframes().map(f => f.transform)),
    ships: [...svg.querySelectorAll('[data-ship]')].map(e => {
      const a = e.getAnimations();
      return { ship: Number(e.dataset.ship), zone: Number(e.dataset.zone),
        moving: e.classList.contains('moving'), animations: a.length,
        frames: a.length ? a[0].effect.getKeyframes().map(f => f.transform) : [],
        end: e.style.transform, box: box(e.querySelector('polygon')),
        cell: box(svg.querySelector(`rect[data-zone="${e.dataset.zone}"]`)) };
    }),
  };
}"""


def xy(transform: str) -> tuple[float, float]:
    """The translation of a CSS transform written as translate(x, y) or translateX(x)."""
    m = re.search(r"translate\(\s*(-?[\d.]+)px,\s*(-?[\d.]+)px", transform)
    if m:
        return float(m[1]), float(m[2])
    m = re.search(r"translateX\(\s*(-?[\d.]+)px", transform)
    assert m, transform
    return float(m[1]), 0.0


def centre(box: list[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def inside(point: tuple[float, float], box: list[float]) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def pix_name(p: int, n: int) -> str:
    return f"{chr(97 + p % n)}{p // n + 1}"


def steps(a: int, b: int, n: int) -> int:
    """Pix from one to the other along rows and columns."""
    return abs(a % n - b % n) + abs(a // n - b // n)


MOVE_TEXT = r"\b([a-z]\d{1,2}) to ([a-z]\d{1,2})\b"
"""Pix names in the game's log: "The Bug of seat 4 dials left 8: h3 to a3."."""


# ---------------------------------------------------------------- moments from the recordings


def pixoid_moments(rec: Recorded) -> dict[str, Any]:
    """A move (before, after) with a cube going two Pix or more, a stack of Bugs, cubes not
    yet placed."""
    states = [s for s in rec.states if s.board and s.board.get("board")]
    n = states[0].board["board"]["size"]  # type: ignore[index]
    found: dict[str, Any] = {"n": n}
    for a, b in zip(states, states[1:], strict=False):
        ca, cb = a.board["cubes"], b.board["cubes"]  # type: ignore[index]
        if min(ca) < 0 or min(cb) < 0 or ca == cb or "move" in found:
            continue
        if any(steps(x, y, n) >= 2 for x, y in zip(ca, cb, strict=True)):
            found["move"] = (a, b)
    for s in states:
        b = s.board
        bugs = [p for i, p in enumerate(b["cubes"]) if i != b["pixoid"] and p >= 0]  # type: ignore[index]
        if len(set(bugs)) < len(bugs) and "stack" not in found:
            found["stack"] = s
        if -1 in b["cubes"] and any(p >= 0 for p in b["cubes"]) and "unplaced" not in found:  # type: ignore[index]
            found["unplaced"] = s
    assert {"move", "stack", "unplaced"} <= set(found), f"the recording lacks {found.keys()}"
    return found


def outspeed_moments(rec: Recorded) -> dict[str, Any]:
    """A move on the same boards (before, after), and one where the rear board goes."""
    states = [s for s in rec.states if s.board and "zones" in s.board]
    found: dict[str, Any] = {}
    for a, b in zip(states, states[1:], strict=False):
        za, zb = a.board["zones"], b.board["zones"]  # type: ignore[index]
        if None in za or None in zb or za == zb:
            continue
        same = a.board["rear"] == b.board["rear"]  # type: ignore[index]
        far = max(abs(x - y) for x, y in zip(za, zb, strict=True)) >= 2
        if same and far and "move" not in found:
            found["move"] = (a, b)
        if not same and "rear" not in found:
            found["rear"] = (a, b)
    assert {"move", "rear"} <= set(found), f"the recording lacks {found.keys()}"
    return found


# ---------------------------------------------------------------- the page


async def on_page(profile: Path, look: Any) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with screen_page(profile) as (page, feed, _frames, errors):

        async def push(view: TableView) -> None:
            sent = feed.publish(view)
            await page.wait_for_function(SHOWING, arg=sent.seq)

        await look(page, push, seen)
        seen["errors"] = list(errors)
    return seen


async def look_at_pixoid(found: dict[str, Any], page: Any, push: Any,
                         seen: dict[str, Any]) -> None:
    before, after = found["move"]
    # Motion on: the cubes travel after the reveal, and end where the view puts them.
    await push(before)
    await page.evaluate(FINISH)
    seen["before"] = await page.evaluate(PIECES)
    await push(after)
    seen["moving"] = await page.evaluate(PIECES)
    await page.screenshot(path=artifacts() / "motion-pixoid-moving.png")
    await page.evaluate(FINISH)
    seen["moved"] = await page.evaluate(PIECES)
    # Motion off: straight to the end, no animation at all (and back again).
    await page.evaluate(MOTION, True)
    await push(before)
    seen["off"] = await page.evaluate(PIECES)
    await page.evaluate(MOTION, False)
    # The system's reduced motion does the same.
    await page.emulate_media(reduced_motion="reduce")
    await push(after)
    seen["reduced"] = await page.evaluate(PIECES)
    await page.emulate_media(reduced_motion="no-preference")
    # In a box scaled by a CSS transform (more than the page's own fit-to-box scale), motion on.
    await push(before)
    await page.evaluate(FINISH)
    await page.add_style_tag(content="#main { transform: scale(0.55); transform-origin: 0 0; }")
    await push(after)
    seen["scaled-moving"] = await page.evaluate(PIECES)
    await page.evaluate(FINISH)
    seen["scaled"] = await page.evaluate(PIECES)
    await page.add_style_tag(content="#main { transform: none; }")
    # A stack of Bugs; cubes not yet placed.
    for key in ("stack", "unplaced"):
        await push(found[key])
        await page.evaluate(FINISH)
        seen[key] = await page.evaluate(PIECES)
        await page.screenshot(path=artifacts() / f"motion-pixoid-{key}.png")


async def look_at_moves(game: str, keys: tuple[str, ...], facts: str, found: dict[str, Any],
                        page: Any, push: Any, seen: dict[str, Any]) -> None:
    """Each (before, after) pair of `keys`: the pieces' facts at rest before, while moving
    (with a picture) and once every animation has finished."""
    for key in keys:
        before, after = found[key]
        await push(before)
        await page.evaluate(FINISH)
        seen[key + "-before"] = await page.evaluate(facts)
        await push(after)
        seen[key + "-moving"] = await page.evaluate(facts)
        await page.screenshot(path=artifacts() / f"motion-{game}-{key}.png")
        await page.evaluate(FINISH)
        seen[key + "-moved"] = await page.evaluate(facts)


async def look_at_outspeed(found: dict[str, Any], page: Any, push: Any,
                           seen: dict[str, Any]) -> None:
    await look_at_moves("outspeed", ("move", "rear"), SHIPS, found, page, push, seen)
    before, after = found["move"]
    await page.evaluate(MOTION, True)
    await push(before)
    seen["off"] = await page.evaluate(SHIPS)
    await page.evaluate(MOTION, False)
    await page.emulate_media(reduced_motion="reduce")
    await push(after)
    seen["reduced"] = await page.evaluate(SHIPS)


# ---------------------------------------------------------------- Pixoid


def check_at_rest(facts: dict[str, Any], cubes: list[int], n: int) -> None:
    """Every cube on the maze stands in its own Pix, unanimated."""
    on_board = {i: pix_name(p, n) for i, p in enumerate(cubes) if p >= 0}
    assert {p["piece"]: p["pix"] for p in facts["pieces"]} == on_board
    for p in facts["pieces"]:
        assert p["animations"] == 0 and not p["moving"]
        assert inside(centre(p["box"]), p["cell"]), p


def test_pixoid_cubes_walk_the_corridors_and_jump_with_motion_off(tmp_path: Path) -> None:
    found = pixoid_moments(Recorded("pixoid", seed=1).play())
    n = found["n"]

    async def look(page: Any, push: Any, seen: dict[str, Any]) -> None:
        await look_at_pixoid(found, page, push, seen)

    seen = asyncio.run(on_page(tmp_path / "chromium-profile", look))
    assert seen["errors"] == []
    before, after = found["move"]
    was, now = before.board["cubes"], after.board["cubes"]
    check_at_rest(seen["before"], was, n)

    # Right after the reveal: each cube that moved runs from its old Pix, Pix by Pix along the
    # corridor (a straight run between walls), to where it stands now.
    moving = {p["piece"]: p for p in seen["moving"]["pieces"]}
    old = {p["piece"]: p for p in seen["before"]["pieces"]}
    moved = [i for i in range(len(now)) if was[i] != now[i]]
    assert moved and any(len(moving[i]["frames"]) >= 3 for i in moved)
    for i in range(len(now)):
        p = moving[i]
        if was[i] == now[i]:
            continue
        assert p["moving"] and p["animations"] >= 1 and p["from"] == pix_name(was[i], n)
        frames = [xy(f) for f in p["frames"]]
        assert frames[0] == xy(old[i]["end"]) and frames[-1] == xy(p["end"])
        assert len(frames) == steps(was[i], now[i], n) + 1
        for a, b in zip(frames[1:-1], frames[2:-1], strict=False):  # the Pix in between
            assert abs(a[0] - b[0]) + abs(a[1] - b[1]) == PIX
    # Once the animations are over every cube stands in its new Pix; the maze never moved.
    check_at_rest(seen["moved"], now, n)
    assert seen["moving"]["svg"] == seen["moved"]["svg"] == seen["before"]["svg"]

    # Motion off, and the system's reduced motion: the end at once, no animation.
    check_at_rest(seen["off"], was, n)
    check_at_rest(seen["reduced"], now, n)

    # In a box scaled by a transform: the same animations, the same ends, scaled.
    assert any(p["animations"] for p in seen["scaled-moving"]["pieces"])
    check_at_rest(seen["scaled"], now, n)
    assert seen["scaled"]["size"][0] == pytest.approx(0.55 * seen["moved"]["size"][0], rel=0.02)

    # The maze's coordinates, as the game's log names Pix ("h3 to a3").
    got = seen["moved"]
    assert got["cols"] == [chr(97 + k) for k in range(n)]
    assert got["rows"] == [str(k + 1) for k in range(n)]
    named = {p for e in after.events for m in re.findall(MOVE_TEXT, e.text) for p in m}
    assert named and named <= set(got["pixes"])

    # A stack of Bugs: every cube in a place of its own, and the count on the Pix.
    stack = found["stack"].board
    got = seen["stack"]
    check_at_rest(got, stack["cubes"], n)
    shared = {p for p in stack["cubes"] if stack["cubes"].count(p) > 1 and p >= 0}
    assert sorted(got["stacks"]) == sorted([pix_name(p, n), stack["cubes"].count(p)]
                                           for p in shared)
    boxes = [p["box"] for p in got["pieces"]]
    assert not any(overlap(a, b) for k, a in enumerate(boxes) for b in boxes[k + 1:])

    # Cubes not yet placed: beside the maze in the tray, never drawn on (or off) the maze.
    early = found["unplaced"].board
    got = seen["unplaced"]
    check_at_rest(got, early["cubes"], n)
    assert got["unplaced"] == [i for i, p in enumerate(early["cubes"]) if p < 0]
    assert all(inside(centre(p["box"]), got["maze"]) for p in got["pieces"])


# ---------------------------------------------------------------- Outspeed


def check_ships(facts: dict[str, Any], zones: list[int | None]) -> None:
    racing = {i: z for i, z in enumerate(zones) if z is not None}
    assert {s["ship"]: s["zone"] for s in facts["ships"]} == racing
    for s in facts["ships"]:
        assert s["animations"] == 0 and not s["moving"]
        x, _y = centre(s["box"])
        assert s["cell"][0] <= x <= s["cell"][2], s


def test_outspeed_ships_race_along_the_track_and_jump_with_motion_off(tmp_path: Path) -> None:
    found = outspeed_moments(Recorded("outspeed", seed=1).play())

    async def look(page: Any, push: Any, seen: dict[str, Any]) -> None:
        await look_at_outspeed(found, page, push, seen)

    seen = asyncio.run(on_page(tmp_path / "chromium-profile", look))
    assert seen["errors"] == []
    before, after = found["move"]
    was, now = before.board["zones"], after.board["zones"]
    check_ships(seen["move-before"], was)

    # Each Ship that moved races zone by zone along its own lane from its old zone.
    old = {s["ship"]: s for s in seen["move-before"]["ships"]}
    for s in seen["move-moving"]["ships"]:
        i = s["ship"]
        if was[i] == now[i]:
            assert s["animations"] == 0
            continue
        assert s["moving"] and s["animations"] >= 1
        frames = [xy(f) for f in s["frames"]]
        assert len(frames) == abs(now[i] - was[i]) + 1
        assert frames[0] == xy(old[i]["end"]) and frames[-1] == xy(s["end"])
        assert len({y for _x, y in frames}) == 1  # its lane
        steps = {round(b[0] - a[0]) for a, b in zip(frames, frames[1:], strict=False)}
        assert len(steps) <= 2 and all(abs(d) >= 60 for d in steps)  # a zone at a time
    check_ships(seen["move-moved"], now)
    assert seen["move-moving"]["svg"] == seen["move-moved"]["svg"]

    # The rear board taken away: the track slides back by a board while the Ships race on.
    before, after = found["rear"]
    assert seen["rear-moving"]["slide"], "the track does not slide"
    (start, end), = seen["rear-moving"]["slide"]
    assert xy(start)[0] > 0 and xy(end)[0] == 0
    check_ships(seen["rear-moved"], after.board["zones"])
    assert seen["rear-moving"]["svg"] == seen["rear-moved"]["svg"]

    # Motion off, and reduced motion: at the end at once.
    check_ships(seen["off"], found["move"][0].board["zones"])
    check_ships(seen["reduced"], found["move"][1].board["zones"])


# ---------------------------------------------------------------- PIP Cycle

RIDERS = """() => {
  """ + BOX + """
  const svg = document.querySelector('[data-board=pipcycle] svg[data-grid]');
  const frames = (a) => a.effect.getKeyframes().map(f => [f.transform, f.opacity ?? null]);
  return {
    svg: box(svg),
    points: Object.fromEntries([...svg.querySelectorAll('circle[data-point]')].map(c =>
      [c.dataset.point, [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))]])),
    riders: [...svg.querySelectorAll('[data-rider]')].map(e => {
      const a = e.getAnimations();
      return { rider: Number(e.dataset.rider), at: e.dataset.at,
        moving: e.classList.contains('moving'), from: e.dataset.from || null,
        animations: a.length, frames: a.length ? frames(a[0]) : [],
        end: e.style.transform, box: box(e.querySelector('rect')),
        point: box(svg.querySelector(`circle[data-point="${e.dataset.at}"]`)) };
    }),
    wrecks: [...svg.querySelectorAll('[data-crashing]')].map(e => {
      const a = e.getAnimations();
      return { rider: Number(e.dataset.crashing), animations: a.length,
        frames: a.length ? frames(a[0]) : [], opacity: getComputedStyle(e).opacity };
    }),
  };
}"""


def drawn(board: dict[str, Any]) -> dict[str, Any]:
    """The board as PIP Cycle's renderer draws it: while the next round's riders are placed,
    the round that just ended (its riders, its last Movement)."""
    prev = board.get("previous")
    if prev and board.get("phase") == "place":
        return {**board, "riders": prev["riders"], "last_move": prev["last_move"]}
    return board


def pipcycle_moments(rec: Recorded) -> dict[str, Any]:
    """A Movement of two points or more (before, after), and one that ends in a crash."""
    states = [s for s in rec.states if s.board and "riders" in s.board]
    found: dict[str, Any] = {}
    for a, b in zip(states, states[1:], strict=False):
        ba, bb = drawn(a.board), drawn(b.board)  # type: ignore[arg-type]
        was = {r["id"]: r["at"] for r in ba["riders"]}
        now = {r["id"]: r["at"] for r in bb["riders"]}
        lm = bb["last_move"]
        if not lm or lm["rider"] not in was or was[lm["rider"]] != lm["path"][0]:
            continue
        moved = {i for i in was if i in now and was[i] != now[i]}
        if (lm["crash"] is None and moved == {lm["rider"]} and len(lm["path"]) >= 3
                and now[lm["rider"]] == lm["path"][-1] and "move" not in found):
            found["move"] = (a, b)
        if (lm["crash"] and lm["rider"] not in now and len(lm["path"]) >= 2 and not moved
                and "crash" not in found):
            found["crash"] = (a, b)
    assert {"move", "crash"} <= set(found), f"the recording lacks {found.keys()}"
    return found


async def look_at_pipcycle(found: dict[str, Any], page: Any, push: Any,
                           seen: dict[str, Any]) -> None:
    await look_at_moves("pipcycle", ("move", "crash"), RIDERS, found, page, push, seen)
    before, after = found["move"]
    await page.evaluate(MOTION, True)
    await push(before)
    await push(after)
    seen["off"] = await page.evaluate(RIDERS)
    await page.evaluate(MOTION, False)
    await push(before)
    await page.evaluate(FINISH)
    await page.emulate_media(reduced_motion="reduce")
    await push(after)
    seen["reduced"] = await page.evaluate(RIDERS)


def check_riders(facts: dict[str, Any], board: dict[str, Any]) -> None:
    """Every rider stands on its point, unanimated; nothing left of a crashed one."""
    assert {r["rider"]: r["at"] for r in facts["riders"]} == \
        {r["id"]: r["at"] for r in drawn(board)["riders"]}
    for r in facts["riders"]:
        assert r["animations"] == 0 and not r["moving"], r
        assert centre(r["box"]) == pytest.approx(centre(r["point"]), abs=1), r
        assert xy(r["end"]) == tuple(facts["points"][r["at"]])
    assert all(w["animations"] == 0 and w["opacity"] == "0" for w in facts["wrecks"])


def test_pipcycle_riders_ride_their_movement_and_jump_with_motion_off(tmp_path: Path) -> None:
    found = pipcycle_moments(Recorded("pipcycle", seed=7, players=3).play())

    async def look(page: Any, push: Any, seen: dict[str, Any]) -> None:
        await look_at_pipcycle(found, page, push, seen)

    seen = asyncio.run(on_page(tmp_path / "chromium-profile", look))
    assert seen["errors"] == []

    # The rider that moved rides its Movement point by point ("c4-c5-d5"), from where it stood
    # to where the rules put it; the others stay still.
    before, after = found["move"]
    check_riders(seen["move-before"], before.board)
    lm = drawn(after.board)["last_move"]
    points = seen["move-moving"]["points"]
    for r in seen["move-moving"]["riders"]:
        if r["rider"] != lm["rider"]:
            assert r["animations"] == 0, r
            continue
        assert r["moving"] and r["animations"] >= 1 and r["from"] == lm["path"][0]
        assert [xy(t) for t, _o in r["frames"]] == [tuple(points[p]) for p in lm["path"]]
        assert r["at"] == lm["path"][-1] and xy(r["end"]) == tuple(points[lm["path"][-1]])
    assert lm["rider"] in {r["rider"] for r in seen["move-moving"]["riders"]}
    check_riders(seen["move-moved"], after.board)
    assert seen["move-moving"]["svg"] == seen["move-moved"]["svg"] == seen["move-before"]["svg"]

    # A crash: the rider rides its path to the crash and fades there; then it is off the grid.
    before, after = found["crash"]
    check_riders(seen["crash-before"], before.board)
    lm = drawn(after.board)["last_move"]
    wrecks = seen["crash-moving"]["wrecks"]
    assert [w["rider"] for w in wrecks] == [lm["rider"]]
    frames = wrecks[0]["frames"]
    assert [xy(t) for t, _o in frames[:-1]] == [tuple(points[p]) for p in lm["path"]]
    assert xy(frames[-1][0]) == tuple(points[lm["path"][-1]]) and float(frames[-1][1]) == 0
    assert lm["rider"] not in {r["rider"] for r in seen["crash-moving"]["riders"]}
    check_riders(seen["crash-moved"], after.board)

    # Motion off, and the system's reduced motion: at the end at once, unanimated.
    before, after = found["move"]
    check_riders(seen["off"], after.board)
    check_riders(seen["reduced"], after.board)

"""The table screen's layout, from a phone to a TV, in Debian's Chromium.

Every registered game is played on a rehearsal table (`helpers.Recorded`); three of its
moments (a sealed prompt all locked, that prompt revealed, the final scores: the same moments
as `python -m dialbox.displays.screenshots`) are pushed through the screen's feed to one
page, which is looked at in three viewports (390x844, 1280x800, 1920x1080):

- no panel (header, notices, focus, menu, lobby, board, seats, reveal, what happened,
  devices), its overflowing content included, overlaps another;
- the board is fitted, never clipped: wholly inside its box; at least 80% of the phone's width
  (and the phone scrolls downwards only); wholly inside the viewport on the laptop and TV;
- at 1920x1080 (the TV layout) the key text (the question or "Final scores", seat names,
  scores, status badges) is drawn at 40 px or more, as seen (a fitted box's scale counted),
  the seats (and their scores) are in view, and the prompt's chips give way to the seats';
- the reveal never pushes the board down, the previous reveal is gone once the next prompt is
  all locked, and a reveal that comes with the next prompt already open (as the daemon
  publishes it) stays until that prompt moves.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from dialbox.displays.public import TableView
from dialbox.displays.screenshots import MOMENTS, SIZES, moments, players_for, resize, show
from dialbox.engine import game_names
from tests.displays.helpers import Recorded, screen_page

pytestmark = [pytest.mark.timeout(180)]

PANELS = ["#top", "#notices", "#focus", "#menu", "#lobby", "#board", "#seats", "#reveal",
          "#events", "#devices"]
"""The page's top-level panels: none may overlap another."""

LOOK = """panels => {
  const shown = (e) => {
    if (!e) return false;
    const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && cs.visibility !== "hidden" && cs.display !== "none";
  };
  const clip = (e) => {  // what of e its clipping ancestors let show
    // Up the chain of containing blocks: a fixed box escapes every ancestor but a transformed
    // one, an absolute box every static one; each containing block's overflow clips.
    let c = [-1e9, -1e9, 1e9, 1e9];
    let pos = getComputedStyle(e).position;
    for (let a = e.parentElement; a; a = a.parentElement) {
      const cs = getComputedStyle(a);
      const contains = cs.transform !== "none" || cs.filter !== "none";
      if (pos === "fixed" && !contains) continue;
      if (pos === "absolute" && cs.position === "static" && !contains) continue;
      pos = cs.position;
      if (cs.overflowX === "visible" && cs.overflowY === "visible") continue;
      const r = a.getBoundingClientRect();
      c = [Math.max(c[0], r.left), Math.max(c[1], r.top),
           Math.min(c[2], r.right), Math.min(c[3], r.bottom)];
    }
    return c;
  };
  const box = (e) => {  // a panel and every element in it, as drawn
    let u = null;
    for (const x of [e, ...e.querySelectorAll("*")]) {
      const r = x.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      const c = clip(x);
      const b = [Math.max(r.left, c[0]), Math.max(r.top, c[1]),
                 Math.min(r.right, c[2]), Math.min(r.bottom, c[3])];
      if (b[2] - b[0] <= 0.5 || b[3] - b[1] <= 0.5) continue;
      u = u ? [Math.min(u[0], b[0]), Math.min(u[1], b[1]),
               Math.max(u[2], b[2]), Math.max(u[3], b[3])] : b;
    }
    return u;
  };
  const rect = (e) => {
    const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  const seen = (e) => {  // the font size as drawn: computed size times the scale of a fitted box
    const h = e.offsetHeight;
    const scale = h ? e.getBoundingClientRect().height / h : 1;
    return parseFloat(getComputedStyle(e).fontSize) * scale;
  };
  const found = {};
  for (const sel of panels) {
    const e = document.querySelector(sel);
    const b = shown(e) ? box(e) : null;
    if (b) found[sel] = b;  // (a panel scrolled out of its column is not drawn)
  }
  const key = [];
  const ptext = document.querySelector("#prompt .ptext");
  if (shown(ptext)) key.push(["question", seen(ptext)]);
  const rtitle = document.querySelector("#result .rtitle");
  if (shown(rtitle)) key.push(["final scores", seen(rtitle)]);
  for (const [what, sel] of [["seat name", ".who"], ["score", ".score"], ["status", ".status"]]) {
    for (const e of document.querySelectorAll("#seats .seat " + sel)) {
      if (shown(e)) key.push([what, seen(e)]);
    }
  }
  const board = document.querySelector("#board");
  const reveal = document.querySelector("#reveal");
  return {
    layout: getComputedStyle(document.documentElement).getPropertyValue("--layout").trim(),
    view: [innerWidth, innerHeight],
    scroll: [document.scrollingElement.scrollWidth, document.scrollingElement.scrollHeight],
    panels: found,
    board: board && board.firstElementChild ? rect(board) : null,
    boardBox: rect(document.querySelector("#board-box")),
    scale: board ? Number(board.dataset.scale || 1) : null,
    key,
    seats: [...document.querySelectorAll("#seats .seat")].map(rect),
    chips: [...document.querySelectorAll("#prompt .chip")].some(shown),
    reveal: shown(reveal) ? Number(reveal.dataset.pid) : null,
    alllocked: shown(document.querySelector("#alllocked")),
    result: shown(document.querySelector("#result")),
  };
}"""


def overlaps(panels: dict[str, list[float]]) -> list[str]:
    """Pairs of panels whose drawn boxes overlap (by more than a pixel's rounding)."""
    out = []
    names = sorted(panels)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            pa, pb = panels[a], panels[b]
            w = min(pa[2], pb[2]) - max(pa[0], pb[0])
            h = min(pa[3], pb[3]) - max(pa[1], pb[1])
            if w > 1 and h > 1:
                out.append(f"{a} and {b} overlap by {w:.0f}x{h:.0f} px")
    return out


def inside(r: list[float], box: list[float], slack: float = 1.0) -> bool:
    return (r[0] >= box[0] - slack and r[1] >= box[1] - slack and r[2] <= box[2] + slack
            and r[3] <= box[3] + slack)


def daemon_like(states: list[TableView]) -> tuple[TableView, TableView] | None:
    """A reveal published together with the next prompt, open with nobody dialling yet (as
    the daemon publishes it), and the state in which someone starts dialling that prompt."""
    for i, st in enumerate(states):
        p, r = st.prompt, st.reveal
        if (p is None or r is None or p.pid <= r.pid or p.phase != "open"
                or any(a.status != "waiting" for a in p.asks)):
            continue
        moved = next((s for s in states[i + 1:] if s.prompt is not None
                      and s.prompt.pid == p.pid
                      and any(a.status != "waiting" for a in s.prompt.asks)), None)
        if moved is not None:
            # a reveal this page has not shown yet: the prompt before the one open
            return st, moved
    return None


async def look_at_games(profile: Path, recorded: dict[str, list[TableView]]) -> dict[str, Any]:
    games = list(recorded)
    seen: dict[str, Any] = {"looks": {}, "pids": {}}
    async with screen_page(profile) as (page, feed, _frames, errors):
        for game, states in recorded.items():
            for moment, views in moments(states).items():
                sent = await show(page, feed, views)
                seen["pids"][game, moment] = (
                    sent.prompt.pid if sent.prompt else None,
                    sent.reveal.pid if sent.reveal else None)
                for w, h in SIZES:
                    await resize(page, w, h)
                    seen["looks"][game, moment, w] = await page.evaluate(LOOK, PANELS)

        # The daemon publishes a reveal with the next prompt already open: it stays up
        # until that prompt moves (someone dials), then clears.
        first = daemon_like(recorded[games[0]])
        assert first is not None, "no reveal published with the next prompt open"
        await resize(page, *SIZES[1])
        for key, view in zip(("with-next", "next-moves"), first, strict=True):
            await show(page, feed, [view])
            seen[key] = (await page.evaluate(LOOK, PANELS))["reveal"]
        seen["daemon-like"] = first[0].reveal.pid if first[0].reveal else None
        seen["errors"] = list(errors)
    return seen


def test_the_screen_fits_every_game_from_a_phone_to_a_tv(tmp_path: Path) -> None:
    games = game_names()
    recorded = {g: Recorded(g, players=players_for(g)).play().states for g in games}
    seen = asyncio.run(look_at_games(tmp_path / "chromium-profile", recorded))
    assert seen["errors"] == []
    problems: list[str] = []
    for game in games:
        for moment in MOMENTS:
            prompt_pid, reveal_pid = seen["pids"][game, moment]
            for w, h in SIZES:
                look = seen["looks"][game, moment, w]
                where = f"{game} at {moment}, {w}x{h}:"
                problems += [f"{where} {o}" for o in overlaps(look["panels"])]
                layout = look["layout"]
                assert layout == {390: "phone", 1280: "desk", 1920: "tv"}[w], where
                board, box = look["board"], look["boardBox"]
                if board is None:
                    problems.append(f"{where} no board")
                    continue
                if not inside(board, box):
                    problems.append(f"{where} the board {board} is clipped by its box {box}")
                if layout == "phone":
                    if board[2] - board[0] < 0.8 * w:
                        problems.append(f"{where} the board is {board[2] - board[0]:.0f} px wide")
                    if look["scroll"][0] > w:
                        problems.append(f"{where} the page scrolls sideways "
                                        f"({look['scroll'][0]} px wide)")
                else:
                    view = [0, 0, w, h]
                    if not inside(board, view):
                        problems.append(f"{where} the board {board} is not all in view")
                    if not all(inside(r, view) for r in look["seats"]):
                        problems.append(f"{where} a seat (and its score) is out of view")
                if w == 1920:
                    small = [(what, round(px, 1)) for what, px in look["key"] if px < 40]
                    if small:
                        problems.append(f"{where} key text under 40 px: {small}")
                    whats = {what for what, _px in look["key"]}
                    if not {"seat name"} <= whats or not whats & {"question", "final scores"}:
                        problems.append(f"{where} key text missing: {sorted(whats)}")
                    if look["chips"]:
                        problems.append(f"{where} the prompt's chips are shown beside the seats'")
                # boards that fit by rearranging rather than shrinking (their own CSS)
                scale = look["scale"]
                if game == "stadium" and layout == "phone" and scale < 0.8:
                    problems.append(f"{where} Stadium's board is drawn at scale {scale}")
                if game == "trial-of-the-gods" and layout != "phone":
                    least = 0.5 if moment == "result" else 0.6  # (the end adds the final rankings)
                    if scale < least:
                        problems.append(f"{where} the board is drawn at scale {scale} < {least}")
                # what each moment shows
                if moment == "lock":
                    if not look["alllocked"] or look["reveal"] is not None:
                        problems.append(f"{where} all locked {look['alllocked']}, "
                                        f"reveal {look['reveal']} (the previous one is gone)")
                elif moment == "reveal":
                    if look["reveal"] != prompt_pid or look["alllocked"]:
                        problems.append(f"{where} reveal {look['reveal']}, not {prompt_pid}")
                    before = seen["looks"][game, "lock", w]["board"]
                    if before is not None and board[1] > before[1] + 1:
                        problems.append(f"{where} the reveal pushed the board down "
                                        f"({before[1]:.0f} -> {board[1]:.0f} px)")
                elif not look["result"]:
                    problems.append(f"{where} no final scores")
                if layout != "phone" and moment != "result":
                    before = seen["looks"][game, "lock", w]["board"]
                    if before is not None and abs(board[1] - before[1]) > 1:
                        problems.append(f"{where} the board moved from {before[1]:.0f} px "
                                        f"to {board[1]:.0f} px")
    assert problems == [], "\n".join(problems)

    # A reveal that came with the next prompt open: up until that prompt moves.
    assert seen["with-next"] == seen["daemon-like"] is not None
    assert seen["next-moves"] is None

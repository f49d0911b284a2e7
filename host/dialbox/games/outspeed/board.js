// Outspeed's board on the dialbox table screen: the Progression boards with Ships and
// Forcefields (a Ship races along its own lane zone by zone after a reveal, and the track
// slides on when its rear board is taken away), the Track tile's routes, each Ship's Fuel and
// Bonus tokens. Loaded by the page after screen.js; see docs/displays.md, "A game's board renderer".
"use strict";
(() => {
  const { h, s, hex, seatOf, seatName, style } = window.Dialbox;
  const ROUTE_COLOURS = { red: "e53935", yellow: "fdd835", green: "43a047" };

  const PER = 7;               // zones on a Progression board
  const ZW = 66, BG = 16, P = 10, HEAD = 26, LANE = 30;  // zone width, gap between boards, margin, zone header, lane
  const FLIP_MS = 700;         // a reveal's cards turn over first (screen.css, .flip), then Ships move
  const STEP_MS = 170;         // per zone travelled
  const MOVE_MAX_MS = 2000;

  style("outspeed", `
.os-panel .track { width: 100%; }
.os-panel .track svg { width: 100%; height: auto; display: block; }
.os-panel .os-ship { will-change: transform; }
.os-panel .routes { display: grid; grid-template-columns: repeat(3, 1fr); gap: 8px; margin-top: 12px; }
.os-panel .route { border-radius: 10px; padding: 10px; background: var(--panel2); border-top: 8px solid; }
.os-panel .route.off { border-top-style: dashed; border-top-color: #5a636e !important;
  color: #9aa5b1; background: #1a2027; }  /* unlit: greyed, its words still readable */
.os-panel .route .rt { font-weight: 700; font-size: 18px; text-transform: capitalize; }
`);

  // ------------------------------------------------------------ geometry

  const boardX = (k) => P + k * (PER * ZW + BG);
  function zoneX(z, rear) {  // a zone's left edge, its boards counted from the rear board in play
    const i = z - rear;
    return boardX(Math.floor(i / PER)) + (((i % PER) + PER) % PER) * ZW;
  }
  const laneY = (i) => P + HEAD + i * LANE + LANE / 2;
  const at = (x, y) => `translate(${x}px, ${y}px)`;

  // ------------------------------------------------------------ motion
  // Drawn afresh for every state (and each second while nothing changes): each Ship's last zone
  // and, while it races, its run are remembered here; a redraw during a run goes on with it.

  const motion = { game: null, reveal: null, revealAt: -Infinity, rear: null, zones: new Map(), runs: new Map(), slide: null };

  function motionOff() {
    return document.body.dataset.motion === "off"
      || window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  const over = (run, now) => now - run.t0 >= run.delay + run.duration;

  function follow(v, b) {
    const game = [v.table, v.number, v.game, (b.zones || []).length].join("|");
    if (game !== motion.game) {
      Object.assign(motion, { game, reveal: v.reveal ? v.reveal.pid : null, revealAt: -Infinity, rear: null, slide: null });
      motion.zones.clear();
      motion.runs.clear();
    }
    const now = performance.now(), off = motionOff();
    // A move waits for the cards of its reveal to finish turning over (in the same state or an earlier one).
    if (v.reveal && v.reveal.pid !== motion.reveal) { motion.reveal = v.reveal.pid; motion.revealAt = now; }
    const delay = Math.max(0, motion.revealAt + FLIP_MS - now);
    const rear = b.rear || 0;
    let longest = 0;
    (b.zones || []).forEach((z, i) => {
      const was = motion.zones.get(i);
      let run = motion.runs.get(i);
      if (off) run = null;
      else if (was !== undefined && was !== null && was !== z) {
        const step = z === null ? 0 : Math.sign(z - was);
        const path = [was];
        for (let q = was; step && q !== z; q += step) path.push(q + step);
        run = { z, from: was, path, t0: now, delay, duration: Math.min(MOVE_MAX_MS, Math.max(1, path.length - 1) * STEP_MS) };
      }
      if (run && (run.z !== z || over(run, now))) run = null;
      if (run) { motion.runs.set(i, run); longest = Math.max(longest, run.duration); } else motion.runs.delete(i);
      motion.zones.set(i, z);
    });
    // The rear board taken away: the whole track slides back by the boards it lost.
    if (!off && motion.rear !== null && motion.rear !== rear) {
      motion.slide = { by: zoneX(rear, motion.rear) - zoneX(rear, rear), from: motion.rear, t0: now, delay,
        duration: Math.max(longest, 3 * STEP_MS) };
    }
    if (off || (motion.slide && over(motion.slide, now))) motion.slide = null;
    motion.rear = rear;
    return now;
  }

  function play(el, frames, run, now, fill) {
    const a = el.animate(frames, { duration: run.duration, delay: run.delay, fill: fill || "backwards", easing: "ease-in-out" });
    a.currentTime = Math.max(0, now - run.t0);
    return a;
  }

  // ------------------------------------------------------------ drawing

  function ship(v, i, extra) {
    const col = hex(seatOf(v, i).colour);
    return s("g", { class: "os-ship", ...extra },
      s("title", {}, seatName(v, i) + "'s Ship"),
      s("polygon", { points: "-24,-11 13,-11 25,0 13,11 -24,11 -17,0", fill: col, stroke: "#0b1016", "stroke-width": 1.5 }),
      s("text", { x: -2, y: 5.5, "text-anchor": "middle", "font-size": 16, "font-weight": 700, fill: "#111" }, String(i + 1)));
  }

  function trackSvg(v, b) {
    const rear = b.rear || 0, boards = b.boards || 2;
    const ff = b.forcefields || {};
    const zones = b.zones || [];
    const lanes = Math.max(1, zones.length);
    // As wide as the boards in play: two, but for the rare moment a third is added ahead
    // (the rear one goes at the end of that Resolution).
    const W = boardX(Math.max(2, boards)) - BG + P, H = P + HEAD + lanes * LANE + 6 + P;
    const now = follow(v, b);
    const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, width: W, "data-board": "outspeed", "data-rear": rear,
      role: "img", "aria-label": `Outspeed track: zones ${rear} to ${rear + boards * PER - 1}` });
    const slide = motion.slide;
    const g = s("g", { "data-slide": slide ? slide.by : 0 });
    svg.append(g);
    const first = slide ? Math.min(rear, slide.from) : rear;  // while sliding, the board taken away goes too
    for (let k = Math.floor((first - rear) / PER); k < boards; k++) {  // (k < 0: the board taken away, sliding off)
      const x0 = boardX(k);
      g.append(s("rect", { x: x0 - 4, y: P - 4, width: PER * ZW + 8, height: H - 2 * P + 8, rx: 10, fill: "#111820",
        "data-pboard": k }));
      for (let j = 0; j < PER; j++) {
        const z = rear + k * PER + j, x = x0 + j * ZW;
        const f = ff[z];
        g.append(s("rect", { x: x + 2, y: P, width: ZW - 4, height: H - 2 * P, rx: 6, fill: "#1f2a36",
          stroke: f ? "#00acc1" : "none", "stroke-width": 3, "data-zone": z }));
        g.append(s("text", { x: x + 6, y: P + 16, "font-size": 14, fill: "#8a97a6", "data-zone-label": z }, String(z)));
        if (f) g.append(s("text", { x: x + ZW - 6, y: P + 16, "text-anchor": "end", "font-size": 13, fill: "#7fe7f3",
          "data-forcefield": z }, "◈×" + f));
      }
    }
    zones.forEach((z, i) => {
      const run = motion.runs.get(i);
      const y = laneY(i);
      if (z === null || z === undefined) {  // eliminated: fades out where it was
        if (!run) return;
        const x = zoneX(run.from, rear) + ZW / 2;
        const el = ship(v, i, { "data-ghost": i, style: "transform:" + at(x, y) + ";opacity:0" });
        g.append(el);
        play(el, [{ opacity: 1 }, { opacity: 0 }], run, now, "both");
        return;
      }
      const x = zoneX(z, rear) + ZW / 2;
      const el = ship(v, i, { "data-ship": i, "data-zone": z, style: "transform:" + at(x, y) });
      g.append(el);
      if (run) {
        el.classList.add("moving");
        el.setAttribute("data-from", run.from);
        play(el, run.path.map((q) => ({ transform: at(zoneX(q, rear) + ZW / 2, y) })), run, now)
          .finished.then(() => { el.classList.remove("moving"); el.removeAttribute("data-from"); }, () => {});
      }
    });
    if (slide) play(g, [{ transform: `translateX(${slide.by}px)` }, { transform: "translateX(0px)" }], slide, now);
    return svg;
  }

  function outspeedBoard(v, b) {
    const track = h("div", { class: "track" }, trackSvg(v, b));
    const tile = b.tile || { routes: {} };
    const routes = h("div", { class: "routes" }, ["red", "yellow", "green"].map((c) => {
      const r = tile.routes[c];
      return h("div", { class: "route" + (r ? "" : " off"), "data-route": c, style: "border-color:" + hex(ROUTE_COLOURS[c]) },
        h("div", { class: "rt" }, c + " " + { red: "A", yellow: "B", green: "C" }[c],
          r && r.condition ? h("span", { class: "badge" }, r.condition) : null),
        h("div", {}, r ? (r.effect || r.text) : "light off"));
    }));
    const fuel = (b.fuel || []).map((f, i) => h("div", { class: "fuel", "data-seat": i },
      h("span", {}, h("span", { class: "dot", style: "background:" + hex(seatOf(v, i).colour) }), " ", seatName(v, i)),
      b.alive && !b.alive[i] ? h("span", { class: "badge bad" }, "eliminated")
        : h("div", { class: "bar" }, h("div", { style: `width:${Math.min(100, f * 100 / 20)}%;background:${hex(seatOf(v, i).colour)}` })),
      h("b", {}, f + " fuel" + (Array.isArray(b.tokens) ? " · " + (typeof b.tokens[i] === "number" ? b.tokens[i] : b.tokens[i].length) + " tok" : ""))));
    return h("div", { class: "panel os-panel" },
      h("div", { class: "board-head" }, h("span", { class: "big" }, "Outspeed"),
        h("span", { class: "badge" }, "turn " + b.turn), h("span", { class: "badge" }, b.phase),
        h("span", { class: "badge" }, (b.tiles_left ?? "?") + " tiles left"), h("span", { class: "badge" }, "side " + b.side)),
      track,
      h("h2", { style: "margin-top:12px" }, (tile.finish ? "Finish Line tile " : "Track tile ") + (tile.number ?? "") + (tile.title ? " — " + tile.title : "")),
      routes,
      h("h2", { style: "margin-top:12px" }, "Fuel and Bonus tokens"), fuel);
  }

  (window.DialboxBoards = window.DialboxBoards || {}).outspeed = outspeedBoard;
})();

// PIP Cycle's board on the dialbox table screen: the grid of points with every claimed line in
// its player's colour, the riders (dice showing their Pips, an arrow for their facing), this
// round's crashes, the card check of the exchange (face up, in check order, the winner marked),
// each player's trophies, dice in reserve and hand (counted: card backs only), the deck.
// After a reveal a rider rides its Movement point by point instead of jumping.
// Loaded by the page after screen.js; see docs/displays.md, "A game's board renderer".
"use strict";
(() => {
  const { h, s, hex, stat, seatOf, seatName, style } = window.Dialbox;
  const SUIT_SIGNS = { H: "♥", D: "♦", S: "♠", C: "♣" };
  const SUIT_INK = { H: "#d32f2f", D: "#e65100", S: "#1a237e", C: "#1b5e20" };
  const EDGE_WORDS = { S: "south", N: "north", W: "west", E: "east" };
  const CAUSES = { edge: "off the edge", line: "on a claimed line", occupied: "onto a rider" };
  const HOW = { wins: "moves: winning card", club: "moves: Club", match: "moves: rank match" };
  // pip positions on a die (unit square -1..1), by Pip Value
  const PIPS = {
    1: [[0, 0]], 2: [[-1, -1], [1, 1]], 3: [[-1, -1], [0, 0], [1, 1]],
    4: [[-1, -1], [1, -1], [-1, 1], [1, 1]], 5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
    6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
  };
  const FACING_STEP = { N: [0, -1], E: [1, 0], S: [0, 1], W: [-1, 0] };  // on screen (y down)
  const TURN_OVER_MS = 700;    // the reveal's cards turn over (screen.css, .flip) before riders ride
  const LEG_MS = 180;          // per point ridden
  const RIDE_MAX_MS = 2000;    // a long ride goes faster

  style("pipcycle", `
.pc-panel { min-width: min(360px, calc(100vw - 32px)); }
.pc-wrap { display: flex; gap: 16px; align-items: flex-start; flex-wrap: wrap; }
.pc-wrap > svg { flex: 0 1 auto; width: min(100%, 66vh); min-width: min(100%, 280px); height: auto; }
.pc-side { flex: 1 1 300px; min-width: 0; display: flex; flex-direction: column; gap: 12px; }
.pc-player { background: var(--panel2); border-radius: 10px; padding: 8px 10px; border-left: 8px solid; }
.pc-player .pc-name { font-weight: 700; font-size: 18px; display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
.pc-row { display: flex; gap: 6px; align-items: center; flex-wrap: wrap; margin-top: 5px; font-size: 14px; }
.pc-row .k { color: var(--dim); min-width: 70px; font-size: 12px; text-transform: uppercase; }
.pc-die { display: inline-block; width: 20px; height: 20px; border-radius: 5px; border: 2px solid #fff; }
.pc-die.reserve { opacity: .9; }
.pc-back { display: inline-block; width: 18px; height: 26px; border-radius: 3px; border: 2px solid #dfe6ee;
  background: repeating-linear-gradient(45deg, #2b4d7a, #2b4d7a 3px, #1d3557 3px, #1d3557 6px); }
.pc-check { display: flex; gap: 8px; flex-wrap: wrap; }
.pc-card { width: 78px; border-radius: 9px; background: #f6f3ea; color: #111; text-align: center;
  padding: 4px 3px 5px; border-top: 8px solid; position: relative; }
.pc-card .r { font-size: 30px; font-weight: 800; line-height: 1.05; }
.pc-card .who { font-size: 12px; font-weight: 600; color: #333; }
.pc-card .how { font-size: 11px; color: #444; margin-top: 2px; }
.pc-card.win { outline: 4px solid var(--gold); box-shadow: 0 0 14px var(--gold); }
.pc-card .star { position: absolute; top: -14px; right: -8px; background: var(--gold); color: #111;
  border-radius: 999px; font-size: 11px; font-weight: 800; padding: 1px 6px; }
.pc-crashes { margin: 0; padding-left: 18px; font-size: 14px; }
.pc-crashes li { margin-bottom: 2px; }
.pc-panel .pc-rider { will-change: transform; }
`);

  const num = (x) => (typeof x === "number" ? x : Array.isArray(x) ? x.length : 0);
  const parsePoint = (name) => {
    const m = /^([a-z])(\d+)$/.exec(String(name || "").trim().toLowerCase());
    return m ? [m[1].charCodeAt(0) - 97, Number(m[2]) - 1] : null;
  };
  const pointName = (x, y) => String.fromCharCode(97 + x) + (y + 1);
  const colourOf = (v, i) => hex(seatOf(v, i).colour);
  function inkOn(c) {  // dark or light pips for a die of colour "rrggbb"
    const n = parseInt(c || "888888", 16);
    const lum = 0.299 * (n >> 16) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255);
    return lum > 150 ? "#111" : "#fff";
  }
  const cardText = (card) => String(card).slice(0, -1) + (SUIT_SIGNS[String(card).slice(-1)] || "");

  // ------------------------------------------------------------ riding
  // Every state draws the board anew (and so does the page's once-a-second redraw), so the
  // riders' last points and their rides in progress live here, outside the drawing: a ride
  // starts when a rider's point changes and a redraw mid-ride resumes it where it has got to.
  // A rider that crashed rides to its crash and fades out there (it is off the grid in the view).

  const riding = { key: null, pid: null, shownAt: -Infinity, last: new Map(), rides: new Map(), wrecks: new Map() };

  const stillWanted = () => document.body.dataset.motion !== "off"
    && !window.matchMedia("(prefers-reduced-motion: reduce)").matches;

  const spot = (x, y) => `translate(${x}px, ${y}px)`;
  const samePoint = (a, z) => !!a && !!z && a[0] === z[0] && a[1] === z[1];

  function pointsRidden(b, id, from, to) {
    // The points from `from` to `to`: the Movement's own path when the view holds it for this
    // rider, otherwise along the row and then the column (one point at a time either way).
    const lm = b.last_move;
    if (lm && lm.rider === id && Array.isArray(lm.path)) {
      const pts = lm.path.map(parsePoint);
      if (pts.length > 1 && pts.every(Boolean) && samePoint(pts[0], from) && samePoint(pts[pts.length - 1], to)) return pts;
    }
    const pts = [from];
    let [x, y] = from;
    while (x !== to[0]) { x += Math.sign(to[0] - x); pts.push([x, y]); }
    while (y !== to[1]) { y += Math.sign(to[1] - y); pts.push([x, y]); }
    return pts;
  }

  function track(v, b, X, Y) {
    // Compare each rider's point with the one drawn last; start a ride for each that changed.
    const key = [v.table, v.number, v.game, b.grid || 9].join("|");
    if (key !== riding.key) {
      Object.assign(riding, { key, pid: v.reveal ? v.reveal.pid : null, shownAt: -Infinity });
      riding.last.clear(); riding.rides.clear(); riding.wrecks.clear();
    }
    const now = performance.now(), on = stillWanted();
    if (v.reveal && v.reveal.pid !== riding.pid) { riding.pid = v.reveal.pid; riding.shownAt = now; }
    const wait = Math.max(0, riding.shownAt + TURN_OVER_MS - now);
    const timed = (pts, extra) => ({ frames: pts.map(([x, y]) => ({ transform: spot(X(x), Y(y)) })), t0: now, wait,
      length: Math.min(RIDE_MAX_MS, Math.max(1, pts.length - 1) * LEG_MS), ...extra });
    const done = (ride) => now - ride.t0 >= ride.wait + ride.length;
    const here = new Map((b.riders || []).map((r) => [r.id, r]));
    for (const r of here.values()) {
      const before = riding.last.get(r.id);
      let ride = on ? riding.rides.get(r.id) : null;
      if (on && before && before.at !== r.at) {
        const pts = pointsRidden(b, r.id, [before.x, before.y], [r.x, r.y]);
        ride = timed(pts, { to: r.at, from: before.at });
      }
      if (ride && (ride.to !== r.at || done(ride))) ride = null;
      if (ride) riding.rides.set(r.id, ride); else riding.rides.delete(r.id);
    }
    // Riders gone since the last draw: the one whose Movement crashed rides its path first.
    const lm = b.last_move;
    for (const [id, before] of riding.last) {
      if (here.has(id)) continue;
      riding.rides.delete(id);
      const pts = lm && lm.crash && lm.rider === id && Array.isArray(lm.path) ? lm.path.map(parsePoint) : [];
      if (on && pts.length && pts.every(Boolean) && samePoint(pts[0], [before.x, before.y])) {
        const ride = timed(pts, { rider: before, end: pts[pts.length - 1] });
        ride.frames = ride.frames.map((f) => ({ ...f, opacity: 1 }));
        ride.frames.push({ transform: ride.frames[ride.frames.length - 1].transform, opacity: 0 });
        riding.wrecks.set(id, ride);
      }
    }
    for (const [id, ride] of riding.wrecks) if (!on || done(ride) || here.has(id)) riding.wrecks.delete(id);
    riding.last = new Map([...here].map(([id, r]) => [id, { ...r }]));
    return now;
  }

  function ride(el, run, now, from) {
    // Play a ride (or go on with it) on an element that already stands where it ends.
    if (from) { el.classList.add("moving"); el.setAttribute("data-from", from); }
    const anim = el.animate(run.frames, { duration: run.length, delay: run.wait, fill: "backwards", easing: "ease-in-out" });
    anim.currentTime = Math.max(0, now - run.t0);
    if (from) anim.finished.then(() => { el.classList.remove("moving"); el.removeAttribute("data-from"); }, () => {});
    return anim;
  }

  function die(v, r, attrs) {
    // A rider drawn round (0, 0): its transform puts it on its point (and a ride animates it).
    const half = 17, col = seatOf(v, r.seat).colour;
    const g = s("g", { class: "pc-rider", ...attrs });
    const [dx, dy] = FACING_STEP[r.facing] || [0, -1];
    const tip = [dx * (half + 13), dy * (half + 13)];
    const base = [dx * (half + 2), dy * (half + 2)];
    const side = [-dy * 9, dx * 9];
    g.append(s("polygon", { points: `${tip[0]},${tip[1]} ${base[0] + side[0]},${base[1] + side[1]} ${base[0] - side[0]},${base[1] - side[1]}`,
      fill: "#ffffff", stroke: "#111", "stroke-width": 1.5, "data-arrow": r.facing }));
    g.append(s("rect", { x: -half, y: -half, width: 2 * half, height: 2 * half, rx: 6, fill: hex(col),
      stroke: "#ffffff", "stroke-width": 2.5 }));
    for (const [px, py] of PIPS[r.pips] || []) {
      g.append(s("circle", { cx: px * 9, cy: py * 9, r: 3.4, fill: inkOn(col) }));
    }
    return g;
  }

  // ------------------------------------------------------------ drawing

  function grid(v, b) {
    const n = b.grid || 9;
    const C = 56, P = 44;
    const W = (n - 1) * C + 2 * P;
    const X = (x) => P + x * C;
    const Y = (y) => P + (n - 1 - y) * C;  // row 1 at the bottom (south)
    const svg = s("svg", { viewBox: `0 0 ${W} ${W}`, width: W, "data-grid": n,
      role: "img", "aria-label": `PIP Cycle grid ${n} by ${n}` });
    svg.append(s("rect", { x: P / 2, y: P / 2, width: W - P, height: W - P, rx: 10, fill: "#101a24" }));
    // each player's starting edge, in its colour, just outside the points
    const edgeAt = { S: [X(0), Y(0) + 14, X(n - 1), Y(0) + 14], N: [X(0), Y(n - 1) - 14, X(n - 1), Y(n - 1) - 14],
      W: [X(0) - 14, Y(0), X(0) - 14, Y(n - 1)], E: [X(n - 1) + 14, Y(0), X(n - 1) + 14, Y(n - 1)] };
    (b.edges || []).forEach((e, i) => {
      const c = edgeAt[e];
      if (c) svg.append(s("line", { x1: c[0], y1: c[1], x2: c[2], y2: c[3], stroke: colourOf(v, i),
        "stroke-width": 4, "stroke-linecap": "round", opacity: 0.75, "data-edge": e, "data-seat": i }));
    });
    // labels: column letters south and north, row numbers west and east
    for (let k = 0; k < n; k++) {
      const letter = String.fromCharCode(97 + k), row = String(k + 1);
      const t = (x, y, text, kind) => s("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central",
        "font-size": 17, "font-weight": 600, fill: "#9fb0c2", [kind]: text }, text);
      svg.append(t(X(k), W - 10, letter, "data-col"), t(X(k), 10, letter, "data-col-top"),
        t(10, Y(k), row, "data-row"), t(W - 10, Y(k), row, "data-row-right"));
    }
    // faint guide lines between all neighbours, then the points
    for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) {
      if (x + 1 < n) svg.append(s("line", { x1: X(x), y1: Y(y), x2: X(x + 1), y2: Y(y), stroke: "#1e2c3a", "stroke-width": 2 }));
      if (y + 1 < n) svg.append(s("line", { x1: X(x), y1: Y(y), x2: X(x), y2: Y(y + 1), stroke: "#1e2c3a", "stroke-width": 2 }));
    }
    // claimed lines, in claim order, in the colour of the player who claimed them
    for (const ln of b.lines || []) {
      const [x1, y1, x2, y2, seat] = ln;
      svg.append(s("line", { x1: X(x1), y1: Y(y1), x2: X(x2), y2: Y(y2), stroke: colourOf(v, seat),
        "stroke-width": 8, "stroke-linecap": "round", "data-line": `${pointName(x1, y1)}-${pointName(x2, y2)}`,
        "data-seat": seat }, s("title", {}, `${pointName(x1, y1)}-${pointName(x2, y2)}: ${seatName(v, seat)}`)));
    }
    for (let y = 0; y < n; y++) for (let x = 0; x < n; x++)
      svg.append(s("circle", { cx: X(x), cy: Y(y), r: 4.5, fill: "#c9d4df", "data-point": pointName(x, y) }));
    // the last Movement's path, dashed, so the table sees where it went
    const lm = b.last_move;
    if (lm && Array.isArray(lm.path) && lm.path.length > 1) {
      const pts = lm.path.map(parsePoint).filter(Boolean).map(([x, y]) => `${X(x)},${Y(y)}`).join(" ");
      svg.append(s("polyline", { points: pts, fill: "none", stroke: "#ffffff", "stroke-width": 2,
        "stroke-dasharray": "5 5", opacity: 0.8, "data-last-move": lm.rider }));
    }
    const now = track(v, b, X, Y);
    // this round's crashes: the line hit (if any) outlined, a red burst on the point
    for (const c of b.crashes || []) {
      const at = parsePoint(c.at);
      if (!at) continue;
      const [cx, cy] = [X(at[0]), Y(at[1])];
      const g = s("g", { "data-crash": c.rider, "data-seat": c.seat, "data-cause": c.cause, "data-at": c.at });
      if (c.cause === "line" && c.where) {
        const [a, z] = String(c.where).split("-").map(parsePoint);
        if (a && z) g.append(s("line", { x1: X(a[0]), y1: Y(a[1]), x2: X(z[0]), y2: Y(z[1]), stroke: "#ffffff",
          "stroke-width": 3, "stroke-dasharray": "6 4", "data-crash-line": c.where }));
      }
      g.append(s("circle", { cx, cy, r: 21, fill: "none", stroke: "#ff1744", "stroke-width": 3 }),
        s("path", { d: `M${cx - 12} ${cy - 12}L${cx + 12} ${cy + 12}M${cx + 12} ${cy - 12}L${cx - 12} ${cy + 12}`,
          stroke: "#ff1744", "stroke-width": 6, "stroke-linecap": "round" }),
        s("title", {}, crashWords(v, c)));
      svg.append(g);
      const wreck = riding.wrecks.get(c.rider);  // the burst shows once its rider gets there
      if (wreck) g.animate([{ opacity: 0 }, { opacity: 1 }],
        { duration: 150, delay: wreck.wait + wreck.length - (now - wreck.t0), fill: "backwards" });
    }
    // the riders: a die in the player's colour with its Pips, a triangle on its facing side;
    // a rider that just moved rides there from its last point, one that crashed rides to its end
    for (const [id, wreck] of riding.wrecks) {
      const [ex, ey] = wreck.end;
      const g = die(v, wreck.rider, { "data-crashing": id, "aria-hidden": "true",
        style: `transform:${spot(X(ex), Y(ey))};opacity:0` });
      svg.append(g);
      ride(g, wreck, now);
    }
    for (const r of b.riders || []) {
      const g = die(v, r, { "data-rider": r.id, "data-seat": r.seat, "data-at": r.at, "data-facing": r.facing,
        "data-pips": r.pips, style: "transform:" + spot(X(r.x), Y(r.y)) });
      g.append(s("title", {}, `${seatName(v, r.seat)} rider on ${r.at}, facing ${r.facing}, ${r.pips} Pips`));
      svg.append(g);
      const run = riding.rides.get(r.id);
      if (run) ride(g, run, now, run.from);
    }
    return svg;
  }

  function crashWords(v, c) {
    const where = c.cause === "line" ? ` ${c.where}` : "";
    return `${seatName(v, c.seat)}'s rider crashed ${CAUSES[c.cause] || c.cause}${where} at ${c.at}` +
      (c.by === null || c.by === undefined ? " (die out of the game)" : ` (trophy for ${seatName(v, c.by)})`);
  }

  function players(v, b) {
    const n = b.players || (b.reserve || []).length;
    const out = [];
    for (let i = 0; i < n; i++) {
      const trophies = (b.trophies || [])[i] || [];
      const reserve = (b.reserve || [])[i] || 0;
      const onGrid = (b.riders || []).filter((r) => r.seat === i).length;
      const hand = num((b.hands || [])[i]);  // a count: the public view holds no cards
      const lost = (b.lost || [])[i] || 0;
      out.push(h("div", { class: "pc-player", "data-player": i, style: "border-color:" + colourOf(v, i) },
        h("div", { class: "pc-name" }, h("span", { class: "dot", style: "background:" + colourOf(v, i) }), seatName(v, i),
          h("span", { class: "badge" }, (EDGE_WORDS[(b.edges || [])[i]] || "") + " edge"),
          i === b.starter ? h("span", { class: "badge ok" }, "starts the check") : null),
        h("div", { class: "pc-row", "data-trophies": trophies.length }, h("span", { class: "k" }, "Trophies"),
          trophies.length ? trophies.map((o) => h("span", { class: "pc-die", "data-trophy": o, title: seatName(v, o) + "'s die",
            style: "background:" + colourOf(v, o) })) : h("span", { class: "badge" }, "none"),
          h("b", {}, String(trophies.length))),
        h("div", { class: "pc-row", "data-reserve": reserve }, h("span", { class: "k" }, "Dice"),
          Array.from({ length: reserve }, () => h("span", { class: "pc-die reserve", "data-reserve-die": i,
            style: "background:" + colourOf(v, i) })),
          h("span", {}, `${reserve} in reserve · ${onGrid} riding` + (lost ? ` · ${lost} lost` : ""))),
        h("div", { class: "pc-row", "data-hand-count": hand }, h("span", { class: "k" }, "Hand"),
          Array.from({ length: hand }, () => h("span", { class: "pc-back" })),
          h("span", {}, hand + (hand === 1 ? " card" : " cards")))));
    }
    return out;
  }

  function check(v, b) {
    const c = b.check;
    if (!c || !Array.isArray(c.order)) {
      return h("div", { class: "pc-check", "data-check": "none" }, h("span", { class: "badge" }, "no card check yet this round"));
    }
    const win = c.winner || [];
    const done = b.resolved || [];
    const cards = c.order.map(([seat, card], k) => {
      const isWin = seat === win[0] && card === win[1];
      const r = done.find((e) => e.seat === seat && e.card === card);
      const how = !r ? "to resolve" : r.how === "suit" ? "Pips " + (r.pips ? r.pips.join("→") : "changed")
        : HOW[r.how] || r.how;
      const suit = String(card).slice(-1);
      return h("div", { class: "pc-card" + (isWin ? " win" : ""), "data-check-card": card, "data-seat": seat,
        "data-order": k, "data-winner": isWin ? "1" : null, "data-how": r ? r.how : "pending",
        style: "border-top-color:" + colourOf(v, seat) },
      isWin ? h("span", { class: "star" }, "★ wins") : null,
      h("div", { class: "r", style: "color:" + (SUIT_INK[suit] || "#111") }, cardText(card)),
      h("div", { class: "who" }, seatName(v, seat)),
      h("div", { class: "how" }, how));
    });
    return h("div", {}, h("h2", {}, `Card check · exchange ${c.exchange ?? "?"} (in check order)`),
      h("div", { class: "pc-check", "data-check": c.exchange ?? "" }, cards));
  }

  function crashList(v, b) {
    const list = b.crashes || [];
    if (list.length) {
      return h("div", {}, h("h2", {}, b.ended ? `Round ${b.ended} ended` : "Crashes this round"),
        h("ul", { class: "pc-crashes", "data-crash-list": list.length }, list.map((c) => h("li", {}, crashWords(v, c)))));
    }
    // A crash that ends a round is only seen in the round's record once the next one starts.
    const prev = (b.rounds || [])[(b.rounds || []).length - 1];
    if (prev && prev.crashes && prev.crashes.length && b.round > prev.round) {
      return h("div", {}, h("h2", {}, `Round ${prev.round} ended`),
        h("ul", { class: "pc-crashes", "data-last-round-crashes": prev.crashes.length },
          prev.crashes.map((c) => h("li", {}, crashWords(v, c)))));
    }
    return null;
  }

  function pipcycleBoard(v, b) {
    const result = b.result;
    const prev = b.previous;
    if (prev && b.phase === "place") {
      // the round that just ended stays drawn (its crash, its card check) while the riders
      // of the next round are placed
      b = { ...b, lines: prev.lines, riders: prev.riders, crashes: prev.crashes,
        check: prev.check, last_move: prev.last_move, ended: prev.round };
    }
    return h("div", { class: "panel pc-panel", "data-board": "pipcycle" },
      h("div", { class: "board-head" }, h("span", { class: "big" }, "PIP Cycle"),
        h("span", { class: "badge" }, "round " + (b.round ?? "–")), h("span", { class: "badge" }, "exchange " + (b.exchange ?? "–")),
        h("span", { class: "badge" + (b.phase === "over" ? " ok" : "") }, b.phase || ""),
        b.ended ? h("span", { class: "badge warn", "data-round-ended": b.ended },
          `round ${b.ended} ended: place the riders for round ${b.round}`) : null,
        b.crashed ? h("span", { class: "badge warn" }, "crash this round: no Grid Escalation") : null,
        result && result.text ? h("span", { class: "badge ok", "data-result": "1" }, result.text) : null),
      h("div", { class: "pc-wrap" }, grid(v, b),
        h("div", { class: "pc-side" },
          h("div", { class: "stats" }, stat("Deck", num(b.pile)), stat("Played", num(b.played))),
          check(v, b), crashList(v, b), players(v, b))));
  }

  (window.DialboxBoards = window.DialboxBoards || {}).pipcycle = pipcycleBoard;
})();

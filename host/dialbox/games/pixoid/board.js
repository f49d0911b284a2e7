// Pixoid's board on the dialbox table screen: the maze with its walls and coordinates, the
// cubes (moving Pix by Pix along the corridors after a reveal), the cubes still to place, and
// the scores. Loaded by the page after screen.js; see docs/displays.md, "A game's board renderer".
"use strict";
(() => {
  const { h, s, hex, stat, seatOf, seatName, style } = window.Dialbox;

  const C = 56, P = 34;        // one Pix; the margin around the maze that holds its coordinates
  const FLIP_MS = 700;         // a reveal's cards turn over first (screen.css, .flip), then cubes move
  const STEP_MS = 150;         // per Pix travelled
  const MOVE_MAX_MS = 1800;    // a long way is walked faster
  const SIDE = { pixoid: 34, bug: 26, stacked: 20 };          // a cube's width on the board
  // Cubes sharing a Pix: where each sits round the Pix's middle, and where the count goes.
  const QUARTERS = [[-12, -12], [12, -12], [-12, 12], [12, 12]];
  const STACKS = {
    2: { slots: [[-12, -6], [12, -6]], badge: [0, 17] },
    3: { slots: QUARTERS.slice(0, 3), badge: [12, 12] },
    4: { slots: QUARTERS, badge: [0, 0] },
  };

  style("pixoid", `
.pixoid-wrap { display: flex; gap: 16px; align-items: flex-start; flex-wrap: wrap; }
.pixoid-wrap > svg { width: min(100%, 60vh); height: auto; flex: 0 1 auto; }
.pixoid-side { flex: 1 1 260px; min-width: 0; }
.pixoid-tray { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; margin: 12px 0 4px;
  padding: 8px 10px; border-radius: 10px; background: var(--panel2); }
.pixoid-tray .k { font-size: 12px; color: var(--dim); text-transform: uppercase; }
.pixoid-tray .none { font-size: 14px; color: var(--dim); line-height: 26px; }
.pixoid-chip { display: inline-block; min-width: 26px; height: 26px; border-radius: 5px; border: 2px solid #111;
  color: #111; font-weight: 700; text-align: center; line-height: 22px; font-size: 14px; }
.pixoid-chip.pixoid { border-color: #fff; }
svg[data-board=pixoid] .pixoid-piece { will-change: transform; }
`);

  const colName = (c) => String.fromCharCode(97 + c);
  const pixName = (p, n) => colName(p % n) + (Math.floor(p / n) + 1);  // "c4": as the game's log
  const onBoard = (p, n) => Number.isInteger(p) && p >= 0 && p < n * n;

  // ------------------------------------------------------------ motion
  // The board is drawn afresh for every state (and again each second while nothing changes),
  // so what moves is remembered here: each cube's last end and, while it travels, its run.
  // A redraw during a run starts the run's animation at the time already elapsed.

  const motion = { game: null, reveal: null, revealAt: -Infinity, at: new Map(), runs: new Map() };

  function motionOff() {
    return document.body.dataset.motion === "off"
      || window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  }

  function corridor(walls, n, from, to) {
    // The Pix a cube passes from `from` to `to` through open sides (a move is a straight run
    // between walls, which this finds; anything else takes the shortest way round).
    const step = [-n, 1, n, -1];  // wall bits: 0 up, 1 right, 2 down, 3 left
    const back = new Map([[from, -1]]);
    const queue = [from];
    while (queue.length && !back.has(to)) {
      const p = queue.shift();
      for (let d = 0; d < 4; d++) {
        const q = p + step[d];
        const sameRow = d % 2 === 0 || Math.floor(q / n) === Math.floor(p / n);
        if ((walls[p] >> d) & 1 || !onBoard(q, n) || !sameRow || back.has(q)) continue;
        back.set(q, p);
        queue.push(q);
      }
    }
    if (!back.has(to)) return [from, to];
    const path = [];
    for (let p = to; p !== -1; p = back.get(p)) path.unshift(p);
    return path;
  }

  const place = (x, y, k) => `translate(${x}px, ${y}px) scale(${k})`;

  function follow(v, b, ends) {
    // Compare each cube's end with the last one drawn; a cube that moved gets a run.
    const board = b.board || {};
    const n = board.size || 0;
    const game = [v.table, v.number, v.game, board.name, n].join("|");
    if (game !== motion.game) {
      motion.game = game;
      motion.at.clear();
      motion.runs.clear();
      motion.reveal = v.reveal ? v.reveal.pid : null;
      motion.revealAt = -Infinity;
    }
    const now = performance.now(), off = motionOff();
    // A move waits for the cards of its reveal to finish turning over (in the same state or an earlier one).
    if (v.reveal && v.reveal.pid !== motion.reveal) { motion.reveal = v.reveal.pid; motion.revealAt = now; }
    const delay = Math.max(0, motion.revealAt + FLIP_MS - now);
    for (const [piece, end] of ends) {
      const was = motion.at.get(piece);
      const key = end ? place(end.x, end.y, end.k) : null;
      let run = motion.runs.get(piece);
      if (off || !end) run = null;
      else if (was !== undefined && (was ? was.key : null) !== key) {
        let frames, steps;
        if (was) {  // along the corridor, Pix by Pix
          const path = corridor(board.walls || [], n, was.p, end.p);
          const mid = path.slice(1, -1).map((p) => place(P + (p % n) * C + C / 2, P + Math.floor(p / n) * C + C / 2, end.k));
          frames = [was.key, ...mid, key].map((t) => ({ transform: t }));
          steps = Math.max(1, path.length - 1);
        } else {    // placed on its Starting Pix: dropped in
          frames = [{ transform: place(end.x, end.y, end.k * 1.6), opacity: 0 }, { transform: key, opacity: 1 }];
          steps = 2;
        }
        run = { key, from: was ? pixName(was.p, n) : "", frames, t0: now,
          delay, duration: Math.min(MOVE_MAX_MS, steps * STEP_MS) };
      }
      if (run && (run.key !== key || now - run.t0 >= run.delay + run.duration)) run = null;
      if (run) motion.runs.set(piece, run); else motion.runs.delete(piece);
      motion.at.set(piece, end ? { ...end, key } : null);
    }
    return now;
  }

  function animate(el, run, now) {
    // Play (or go on playing) a run: the element itself already stands at its end.
    el.classList.add("moving");
    el.setAttribute("data-from", run.from);
    const a = el.animate(run.frames, { duration: run.duration, delay: run.delay, fill: "backwards", easing: "ease-in-out" });
    a.currentTime = Math.max(0, now - run.t0);
    a.finished.then(() => { el.classList.remove("moving"); el.removeAttribute("data-from"); }, () => {});
    return a;
  }

  // ------------------------------------------------------------ drawing

  function maze(n, walls, starts, bonus) {
    const W = n * C + 2 * P;
    const svg = s("svg", { viewBox: `0 0 ${W} ${W}`, width: W, "data-board": "pixoid", "data-size": n,
      role: "img", "aria-label": `Pixoid maze, ${n} by ${n}: columns a to ${colName(n - 1)}, rows 1 to ${n} from the top` });
    svg.append(s("rect", { x: P, y: P, width: n * C, height: n * C, rx: 6, fill: "#14301f", "data-maze": n }));
    // coordinates as the log names them: column letters above and below, row numbers (1 at the top) either side
    const label = (x, y, text, attr) => s("text", { x, y, "text-anchor": "middle", "dominant-baseline": "central",
      "font-size": 17, "font-weight": 600, fill: "#9fb0c2", [attr]: text }, text);
    for (let k = 0; k < n; k++) {
      const mid = P + k * C + C / 2;
      svg.append(label(mid, P / 2, colName(k), "data-col"), label(mid, W - P / 2, colName(k), "data-col-bottom"),
        label(P / 2, mid, String(k + 1), "data-row"), label(W - P / 2, mid, String(k + 1), "data-row-right"));
    }
    for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) {
      const x = P + c * C, y = P + r * C, p = r * n + c;
      svg.append(s("rect", { x: x + 2, y: y + 2, width: C - 4, height: C - 4, rx: 5, fill: "#1d4029", stroke: "#2d5a3b",
        "data-pix": pixName(p, n) }));
      const si = starts.indexOf(p);
      if (si >= 0) svg.append(s("text", { x: x + C / 2, y: y + C / 2 + 6, "text-anchor": "middle", fill: "#5f8f6d", "font-size": 18 },
        String.fromCharCode(65 + si)));
      if (bonus.has(p)) svg.append(s("rect", { x: x + C / 2 - 9, y: y + C / 2 - 9, width: 18, height: 18, fill: "#ffffff",
        transform: `rotate(45 ${x + C / 2} ${y + C / 2})`, "data-bonus": p }));
    }
    // walls: bit 0 up, 1 right, 2 down, 3 left
    const wall = (x1, y1, x2, y2) => svg.append(s("line", { x1, y1, x2, y2, stroke: "#e8f0ff", "stroke-width": 6, "stroke-linecap": "round" }));
    for (let p = 0; p < walls.length; p++) {
      const x = P + (p % n) * C, y = P + Math.floor(p / n) * C, w = walls[p];
      if (w & 1) wall(x, y, x + C, y);
      if (w & 2) wall(x + C, y, x + C, y + C);
      if (w & 4) wall(x, y + C, x + C, y + C);
      if (w & 8) wall(x, y, x, y + C);
    }
    return svg;
  }

  function cube(v, b, i, end) {
    // One cube drawn round (0, 0) and put in place by its transform (which a run animates).
    const col = hex(seatOf(v, i).colour);
    const big = i === b.pixoid;
    const side = big ? SIDE.pixoid : SIDE.bug;
    return s("g", { class: "pixoid-piece", "data-piece": i, "data-pix": end.name, "data-role": big ? "pixoid" : "bug",
      style: "transform:" + place(end.x, end.y, end.k) },
      s("title", {}, (big ? "Pixoid, " : "Bug " + (i + 1) + ", ") + seatName(v, i) + ", on " + end.name),
      s("rect", { x: -side / 2, y: -side / 2, width: side, height: side, rx: big ? 5 : 4, fill: col,
        stroke: big ? "#fff" : "#111", "stroke-width": big ? 3 : 1.5, "data-cube": i }),
      s("text", { x: 0, y: big ? 7 : 5.5, "text-anchor": "middle", "font-size": big ? 20 : 16, "font-weight": 700, fill: "#111" },
        big ? "P" : String(i + 1)));
  }

  function pixoidBoard(v, b) {
    const board = b.board || {};
    const n = board.size || 0;
    const starts = board.starts || [];
    const cubes = b.cubes || [];
    const svg = maze(n, board.walls || [], starts, new Set(b.bonus || []));

    // Where each cube ends: alone in the middle of its Pix, or in a corner when several share it.
    const at = new Map();
    cubes.forEach((p, i) => { if (onBoard(p, n)) at.set(p, [...(at.get(p) || []), i]); });
    const ends = new Map();
    cubes.forEach((p, i) => {
      if (!onBoard(p, n)) { ends.set(i, null); return; }
      const stack = at.get(p), k = stack.indexOf(i);
      const [dx, dy] = stack.length > 1 ? (STACKS[stack.length] || STACKS[4]).slots[k % 4] : [0, 0];
      const full = i === b.pixoid ? SIDE.pixoid : SIDE.bug;
      ends.set(i, { p, name: pixName(p, n), x: P + (p % n) * C + C / 2 + dx, y: P + Math.floor(p / n) * C + C / 2 + dy,
        k: stack.length > 1 ? SIDE.stacked / full : 1 });
    });
    const now = follow(v, b, ends);

    // Bugs first, Pixoid on top; each moving cube goes on with its run.
    const order = [...ends.keys()].sort((a, c) => (a === b.pixoid) - (c === b.pixoid));
    const arriving = new Map();  // Pix -> the longest run ending there
    for (const i of order) {
      const end = ends.get(i);
      if (!end) continue;
      const el = cube(v, b, i, end);
      svg.append(el);
      const run = motion.runs.get(i);
      if (run) {
        animate(el, run, now);
        const last = run.delay + run.duration - (now - run.t0);
        if (last > (arriving.get(end.p) || 0)) arriving.set(end.p, last);
      }
    }
    // A badge with the count on every Pix that holds several cubes (shown once they arrive).
    for (const [p, stack] of at) {
      if (stack.length < 2) continue;
      const [dx, dy] = (STACKS[stack.length] || STACKS[4]).badge;
      const x = P + (p % n) * C + C / 2 + dx, y = P + Math.floor(p / n) * C + C / 2 + dy;
      const badge = s("g", { class: "pixoid-stack", "data-stack": pixName(p, n), "data-count": stack.length },
        s("title", {}, stack.length + " cubes on " + pixName(p, n)),
        s("circle", { cx: x, cy: y, r: 8, fill: "#111", stroke: "#fff", "stroke-width": 1.5 }),
        s("text", { x, y: y + 3.5, "text-anchor": "middle", "font-size": 10, "font-weight": 700, fill: "#fff" }, "×" + stack.length));
      svg.append(badge);
      if (arriving.has(p)) badge.animate([{ opacity: 0 }, { opacity: 0, offset: 0.99 }, { opacity: 1 }],
        { duration: arriving.get(p), fill: "backwards" });
    }

    // Cubes not on the maze yet (before they are placed): beside it, never on it. The tray
    // stays when it is empty, so the board keeps its size as the cubes go down.
    const unplaced = cubes.map((p, i) => (onBoard(p, n) ? null : i)).filter((i) => i !== null);
    const tray = h("div", { class: "pixoid-tray", "data-tray": unplaced.length },
      h("span", { class: "k" }, "To place"),
      unplaced.length ? unplaced.map((i) => h("span", { class: "pixoid-chip" + (i === b.pixoid ? " pixoid" : ""),
        "data-unplaced": i, title: (i === b.pixoid ? "Pixoid, " : "Bug " + (i + 1) + ", ") + seatName(v, i),
        style: "background:" + hex(seatOf(v, i).colour) }, i === b.pixoid ? "P" : String(i + 1)))
        : h("span", { class: "none" }, "every cube is on the maze"));

    const scores = (b.scores || []).map((sc, i) => h("div", { class: "fuel", "data-seat": i },
      h("span", {}, h("span", { class: "dot", style: "background:" + hex(seatOf(v, i).colour) }), " ", seatName(v, i)),
      h("span", {}, i === b.pixoid ? "Pixoid" : "Bug"), h("b", {}, String(sc))));
    return h("div", { class: "panel" },
      h("div", { class: "board-head" }, h("span", { class: "big" }, "Pixoid"),
        h("span", { class: "badge" }, board.name || "maze")),
      h("div", { class: "pixoid-wrap" }, svg,
        h("div", { class: "pixoid-side" }, h("div", { class: "stats" },
          stat("Round", (b.round ?? "–") + (b.rounds ? " / " + b.rounds : "")), stat("Turn", b.turn ?? "–"),
          stat("Reserve", b.reserve ?? "–"), stat("Bonus taken", b.bonus_taken ?? 0)),
          tray,
          h("h2", { style: "margin-top:14px" }, "Scores"), scores)));
  }

  (window.DialboxBoards = window.DialboxBoards || {}).pixoid = pixoidBoard;
})();

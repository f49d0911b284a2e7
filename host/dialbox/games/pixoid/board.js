// Pixoid's board on the dialbox table screen: the maze, its walls, the cubes and the scores.
// Loaded by the page after screen.js; see docs/displays.md, "A game's board renderer".
"use strict";
(() => {
  const { h, s, hex, stat, seatOf, seatName, style } = window.Dialbox;

  style("pixoid", `
.pixoid-wrap { display: flex; gap: 16px; align-items: flex-start; flex-wrap: wrap; }
.pixoid-wrap svg { width: min(100%, 56vh); height: auto; }
`);

  function pixoidBoard(v, b) {
    const board = b.board || {};
    const n = board.size || 0;
    const walls = board.walls || [];
    const starts = board.starts || [];
    const bonus = new Set(b.bonus || []);
    const cubes = b.cubes || [];
    const C = 56, P = 24;
    const svg = s("svg", { viewBox: `0 0 ${n * C + 2 * P} ${n * C + 2 * P}`, width: n * C + 2 * P, "data-board": "pixoid" });
    svg.append(s("rect", { x: P, y: P, width: n * C, height: n * C, rx: 6, fill: "#14301f" }));
    for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) {
      const x = P + c * C, y = P + r * C, p = r * n + c;
      svg.append(s("rect", { x: x + 2, y: y + 2, width: C - 4, height: C - 4, rx: 5, fill: "#1d4029", stroke: "#2d5a3b" }));
      const si = starts.indexOf(p);
      if (si >= 0) svg.append(s("text", { x: x + C / 2, y: y + C / 2 + 6, "text-anchor": "middle", fill: "#5f8f6d", "font-size": 18 }, String.fromCharCode(65 + si)));
      if (bonus.has(p)) svg.append(s("rect", { x: x + C / 2 - 9, y: y + C / 2 - 9, width: 18, height: 18, fill: "#ffffff", transform: `rotate(45 ${x + C / 2} ${y + C / 2})`, "data-bonus": p }));
    }
    // walls: bit 0 up, 1 right, 2 down, 3 left
    const wall = (x1, y1, x2, y2) => svg.append(s("line", { x1, y1, x2, y2, stroke: "#e8f0ff", "stroke-width": 6, "stroke-linecap": "round" }));
    for (let p = 0; p < walls.length; p++) {
      const r = Math.floor(p / n), c = p % n, x = P + c * C, y = P + r * C, w = walls[p];
      if (w & 1) wall(x, y, x + C, y);
      if (w & 2) wall(x + C, y, x + C, y + C);
      if (w & 4) wall(x, y + C, x + C, y + C);
      if (w & 8) wall(x, y, x, y + C);
    }
    const at = {};
    cubes.forEach((p, i) => { if (p !== null && p !== undefined) (at[p] = at[p] || []).push(i); });
    for (const [p, who] of Object.entries(at)) {
      const r = Math.floor(p / n), c = p % n;
      who.forEach((i, k) => {
        const x = P + c * C + C / 2 + (k - (who.length - 1) / 2) * 16, y = P + r * C + C / 2;
        const col = hex(seatOf(v, i).colour);
        if (i === b.pixoid) {
          svg.append(s("rect", { x: x - 17, y: y - 17, width: 34, height: 34, rx: 5, fill: col, stroke: "#fff", "stroke-width": 3, "data-cube": i }));
          svg.append(s("text", { x, y: y + 7, "text-anchor": "middle", "font-size": 20, "font-weight": 700, fill: "#111" }, "P"));
        } else {
          svg.append(s("rect", { x: x - 11, y: y - 11, width: 22, height: 22, rx: 4, fill: col, stroke: "#111", "data-cube": i }));
          svg.append(s("text", { x, y: y + 5, "text-anchor": "middle", "font-size": 13, "font-weight": 700, fill: "#111" }, String(i + 1)));
        }
      });
    }
    const scores = (b.scores || []).map((sc, i) => h("div", { class: "fuel", "data-seat": i },
      h("span", {}, h("span", { class: "dot", style: "background:" + hex(seatOf(v, i).colour) }), " ", seatName(v, i)),
      h("span", {}, i === b.pixoid ? "Pixoid" : "Bug"), h("b", {}, String(sc))));
    return h("div", { class: "panel" },
      h("div", { class: "board-head" }, h("span", { class: "big" }, "Pixoid"),
        h("span", { class: "badge" }, board.name || "maze")),
      h("div", { class: "pixoid-wrap" }, svg,
        h("div", {}, h("div", { class: "stats" },
          stat("Round", (b.round ?? "–") + (b.rounds ? " / " + b.rounds : "")), stat("Turn", b.turn ?? "–"),
          stat("Reserve", b.reserve ?? "–"), stat("Bonus taken", b.bonus_taken ?? 0)),
          h("h2", { style: "margin-top:14px" }, "Scores"), scores)));
  }

  (window.DialboxBoards = window.DialboxBoards || {}).pixoid = pixoidBoard;
})();

// Outspeed's board on the dialbox table screen: the Progression boards with Ships and
// Forcefields, the Track tile's routes, each Ship's Fuel and Bonus tokens.
// Loaded by the page after screen.js; see docs/displays.md, "A game's board renderer".
"use strict";
(() => {
  const { h, hex, seatOf, seatName, style } = window.Dialbox;
  const ROUTE_COLOURS = { red: "e53935", yellow: "fdd835", green: "43a047" };

  style("outspeed", `
.track { display: flex; gap: 6px; overflow-x: auto; padding-bottom: 6px; }
.pboard { display: flex; gap: 3px; padding: 6px; border-radius: 10px; background: #111820; }
.zone { width: 62px; min-height: 120px; border-radius: 6px; background: #1f2a36; position: relative;
  display: flex; flex-direction: column; align-items: center; gap: 4px; padding: 18px 2px 4px; }
.zone .zn { position: absolute; top: 2px; left: 4px; font-size: 11px; color: var(--dim); }
.zone.ff { box-shadow: inset 0 0 0 3px #00acc1; }
.zone .ffmark { font-size: 12px; color: #7fe7f3; }
.ship { width: 40px; height: 22px; clip-path: polygon(0 0, 75% 0, 100% 50%, 75% 100%, 0 100%, 12% 50%);
  font-size: 12px; font-weight: 700; color: #111; text-align: center; line-height: 22px; }
.routes { display: grid; grid-template-columns: repeat(3, 1fr); gap: 8px; margin-top: 12px; }
.route { border-radius: 10px; padding: 10px; background: var(--panel2); border-top: 8px solid; }
.route.off { opacity: .35; }
.route .rt { font-weight: 700; font-size: 18px; text-transform: capitalize; }
`);

  function outspeedBoard(v, b) {
    const rear = b.rear || 0, boards = b.boards || 2, per = 7;
    const ff = b.forcefields || {};
    const zones = b.zones || [];
    const track = h("div", { class: "track", "data-board": "outspeed" });
    for (let k = 0; k < boards; k++) {
      const pb = h("div", { class: "pboard" });
      for (let z = rear + k * per; z < rear + (k + 1) * per; z++) {
        const ships = zones.map((zz, i) => (zz === z ? i : null)).filter((i) => i !== null);
        pb.append(h("div", { class: "zone" + (ff[z] ? " ff" : ""), "data-zone": z },
          h("span", { class: "zn" }, z),
          ff[z] ? h("span", { class: "ffmark" }, "◈ ×" + ff[z]) : null,
          ships.map((i) => h("div", { class: "ship", "data-ship": i, style: "background:" + hex(seatOf(v, i).colour) }, String(i + 1)))));
      }
      track.append(pb);
    }
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
    return h("div", { class: "panel" },
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

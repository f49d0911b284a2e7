// The dialbox table screen: renders each public TableView pushed over /live. No libraries.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const STATUS_WORDS = {
  empty: "empty seat", waiting: "waiting", programming: "dialling…", locked: "locked",
  offline: "offline", revealed: "revealed",
};
const PHASE_WORDS = {
  open: "Dial your choice, then press to lock.",
  alllocked: "All locked — revealing every choice at once.",
  revealed: "Revealed.",
  void: "A reveal did not match its lock: this turn is asked again.",
};
const TEAM_COLOURS = { blue: "1e88e5", red: "e53935" };
const ROUTE_COLOURS = { red: "e53935", yellow: "fdd835", green: "43a047" };

// What the page showed, for tests and for anyone debugging a table: one entry per render.
const shown = { log: [], frames: 0, strip: 0 };
window.dialbox = shown;

let current = null;       // the last TableView
let revealShown = null;   // pid of the reveal on screen
let trials = null;        // Stadium Trial summaries (static JSON)

// ---------------------------------------------------------------- little DOM helpers

function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "style") el.style.cssText = v;
    else if (k.startsWith("data-")) el.setAttribute(k, String(v));
    else el[k] = v;
  }
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined || kid === false) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

function s(tag, attrs, ...kids) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const kid of kids.flat()) {
    if (kid === null || kid === undefined) continue;
    el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return el;
}

const $ = (id) => document.getElementById(id);
const hex = (c) => "#" + (c || "888888");
function seatOf(v, i) {
  return v.seats[i] || { seat: i, name: "Seat " + (i + 1), colour: "888888" };
}
function seatName(v, i) { return seatOf(v, i).name; }

// ---------------------------------------------------------------- header, notices, seats

function renderHeader(v) {
  const game = v.games.find((g) => g.name === v.game);
  $("game-title").textContent = game ? game.title : (v.game || "—");
  const stage = { lobby: "lobby", playing: "playing", over: "game over" }[v.stage];
  $("stage").textContent = stage;
  $("stage").className = "badge" + (v.stage === "playing" ? " ok" : "");
}

function renderNotices(v) {
  $("notices").replaceChildren(...v.notices.map((n) =>
    h("div", { class: "notice " + n.level, "data-code": n.code }, n.text)));
}

function seatMeta(st) {
  if (st.occupant === "empty") return "nobody here yet";
  if (st.occupant === "bot") return "bot";
  const parts = [st.uid, st.transport];
  if (st.link !== null) parts.push("link " + Math.round(st.link * 100) + "%");
  if (st.heartbeat_age !== null) parts.push("heard " + st.heartbeat_age.toFixed(1) + " s ago");
  if (st.firmware) parts.push("fw " + st.firmware);
  return parts.filter(Boolean).join(" · ");
}

function seatStatus(v, st) {
  if (v.prompt) {
    const ask = v.prompt.asks.find((a) => a.seat === st.seat);
    if (ask && st.status !== "offline") return ask.status;
  }
  return st.status;
}

function renderSeats(v) {
  const rows = v.seats.map((st) => {
    const status = seatStatus(v, st);
    return h("div", { class: "seat", "data-seat": st.seat, "data-status": status },
      h("span", { class: "swatch", style: "background:" + hex(st.colour) }),
      h("span", { class: "who" }, st.name, teamOf(v, st.seat) ? h("span", { class: "badge" }, teamOf(v, st.seat)) : null),
      h("span", { class: "status " + status }, status === "locked" ? "✔ locked" : STATUS_WORDS[status]),
      h("span", { class: "meta" }, seatMeta(st)));
  });
  $("seats").replaceChildren(h("h2", {}, "Seats"), ...rows);
}

// ---------------------------------------------------------------- prompt, all locked, reveal

function renderPrompt(v) {
  const p = v.prompt;
  const el = $("prompt");
  if (!p) {
    el.dataset.phase = "none";
    el.removeAttribute("data-pid");
    el.replaceChildren(h("h2", {}, "Now"), h("div", { class: "phase" },
      v.stage === "lobby" ? "Waiting for the game to start." :
      v.stage === "over" ? "The game is over." : "Resolving…"));
    return;
  }
  el.dataset.phase = p.phase;
  el.dataset.pid = p.pid;
  const locked = p.asks.filter((a) => a.status === "locked" || a.status === "revealed").length;
  el.replaceChildren(
    h("h2", {}, p.sealed ? "Secret choice" : "Open choice"),
    h("div", { class: "ptext" }, p.text),
    h("div", { class: "phase" }, p.sealed && p.phase === "open"
      ? PHASE_WORDS.open + " " + locked + " of " + p.asks.length + " locked."
      : (!p.sealed && p.phase === "open" ? seatName(v, p.asks[0].seat) + " is choosing." : PHASE_WORDS[p.phase])),
    h("div", { class: "chips" }, p.asks.map((a) =>
      h("span", { class: "chip " + a.status, "data-seat": a.seat, "data-status": a.status },
        h("span", { class: "dot", style: "background:" + hex(seatOf(v, a.seat).colour) }),
        seatName(v, a.seat) + " · " + STATUS_WORDS[a.status]))));
  $("alllocked").hidden = p.phase !== "alllocked";
}

function faceEl(f) {
  return h("span", { class: "face", style: "background:" + hex(f.colour) }, f.label);
}

function renderReveal(v) {
  const r = v.reveal;
  const el = $("reveal");
  if (!r) { el.hidden = true; return; }
  if (r.pid === revealShown) return;
  revealShown = r.pid;
  el.hidden = false;
  el.dataset.pid = r.pid;
  const bySeat = [...r.choices].sort((a, b) => a.seat - b.seat);
  const cards = h("div", { class: "cards" }, bySeat.map((c) =>
    h("div", { class: "choice", "data-seat": c.seat, style: "border-color:" + hex(seatOf(v, c.seat).colour) },
      h("div", { class: "name" }, seatName(v, c.seat)),
      h("div", { class: "faces" }, c.faces.map(faceEl)),
      h("div", { class: "ctext" }, c.text))));
  el.classList.remove("flip");
  el.replaceChildren(h("h2", {}, r.sealed ? "Reveal" : "Answer"), h("div", { class: "ptext" }, r.text), cards);
  void el.offsetWidth; // restart the animation: every card turns over at the same moment
  el.classList.add("flip");
}

function renderEvents(v) {
  const list = $("event-list");
  list.replaceChildren(...v.events.slice(-14).map((e) => h("li", { "data-kind": e.kind }, e.text)));
  list.scrollTop = list.scrollHeight;
}

function teamOf(v, i) {
  if (seatOf(v, i).team) return seatOf(v, i).team;
  return v.game === "stadium" ? (i % 2 ? "Red Sunz" : "Blue Starz") : "";
}

function renderResult(v) {
  const el = $("result");
  if (v.stage !== "over" || !v.result) { el.hidden = true; return; }
  el.hidden = false;
  const r = v.result;
  const order = Object.keys(r.scores).map(Number).sort((a, b) => r.scores[b] - r.scores[a]);
  el.replaceChildren(h("h1", {}, "Final scores"), h("div", { class: "text" }, r.text),
    h("table", {}, order.map((i) => h("tr", { class: r.winners.includes(i) ? "winner" : "" },
      h("td", {}, h("span", { class: "dot", style: "background:" + hex(seatOf(v, i).colour) }), " ", seatName(v, i)),
      h("td", { class: "team" }, teamOf(v, i)),
      h("td", {}, r.winners.includes(i) ? "★ winner" : ""),
      h("td", {}, String(r.scores[i]))))));
}

// ---------------------------------------------------------------- lobby

function renderLobby(v) {
  const el = $("lobby");
  el.hidden = v.stage !== "lobby";
  if (el.hidden) return;
  const rows = v.seats.map((st) => h("tr", { "data-seat": st.seat },
    h("td", {}, h("span", { class: "dot", style: "background:" + hex(st.colour) }), " ", st.name),
    h("td", {}, st.occupant === "controller" ? st.uid : st.occupant),
    h("td", {}, st.transport || "—"),
    h("td", {}, st.link === null ? "—" : Math.round(st.link * 100) + "%"),
    h("td", {}, st.heartbeat_age === null ? "—" : st.heartbeat_age.toFixed(1) + " s"),
    h("td", {}, st.firmware || "—")));
  const pg = v.progress;
  el.replaceChildren(h("div", { class: "lobby-grid" },
    h("div", { class: "panel controllers" }, h("h2", {}, "Controllers"),
      h("table", {}, h("tr", {}, ["Seat", "Controller", "Transport", "Link", "Heartbeat", "Firmware"].map((t) => h("th", {}, t))), rows),
      pg ? h("div", {}, h("div", {}, pg.label + " " + pg.done + "/" + pg.total),
        h("div", { class: "progress" }, h("div", { style: "width:" + (100 * pg.done / Math.max(1, pg.total)) + "%" }))) : null),
    h("div", {},
      h("div", { class: "panel" }, h("h2", {}, "Pairing"),
        v.pairing.length ? v.pairing.map((p) => h("div", { class: "pair", "data-uid": p.uid }, p.text))
          : h("div", { class: "phase" }, "Plug in or switch on a controller to join.")),
      h("div", { class: "panel games" }, h("h2", {}, "Game"),
        h("ul", {}, v.games.map((g) => h("li", { class: g.name === v.game ? "chosen" : "", "data-game": g.name },
          g.title, " ", h("span", { class: "badge" }, g.players + " players"))))))));
}

// ---------------------------------------------------------------- boards

function stat(k, val) { return h("div", { class: "stat" }, h("div", { class: "k" }, k), h("div", { class: "v" }, val)); }

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

function talkBadge(talk) {
  if (!talk) return null;
  const cls = talk === "allowed" ? "ok" : talk === "forbidden" ? "bad" : "warn";
  const words = talk === "allowed" ? "Talking allowed" : talk === "forbidden" ? "No talking" : "Talk: " + talk;
  return h("span", { class: "badge talk " + cls, "data-talk": talk }, words);
}

function stadiumBoard(v, b) {
  const info = (trials && trials.trials) || {};
  // The Trial in play: `trial` {key, name, talk, summary} (older views: `stage` {trial, ...}).
  const t = b.trial || b.stage || {};
  const stage = { trial: t.key || t.trial, name: t.name, talk: t.talk, summary: t.summary };
  const track = h("div", { class: "trials", "data-board": "stadium" }, (b.track || []).map((key, i) => {
    const known = info[key];
    const revealed = i < b.revealed;
    return h("div", { class: "trial" + (revealed ? "" : " back") + (i === b.revealed - 1 && stage.trial ? " current" : ""), "data-trial": i },
      h("span", { class: "tn" }, revealed ? (known ? known.name : key) : key), h("span", {}, "#" + (i + 1)));
  }));
  const cur = stage.trial ? info[stage.trial] : null;
  const rules = stage.trial ? h("div", { class: "rules", "data-trial-rules": stage.trial },
    h("div", { class: "board-head" }, h("span", { class: "big" }, stage.name || stage.trial), talkBadge(stage.talk)),
    stage.summary || (cur ? cur.rules : "")) : null;
  const medals = h("div", { class: "medals" }, ["blue", "red"].map((t, ti) => {
    const raw = (b.medals || {})[t] || {};
    const m = Array.isArray(raw) ? { gold: raw[0], silver: raw[1], bronze: raw[2] } : raw;
    const icons = [];
    for (const kind of ["gold", "silver", "bronze"]) for (let k = 0; k < (m[kind] || 0); k++)
      icons.push(h("span", { class: "medal " + kind }, kind[0].toUpperCase()));
    return h("div", { class: "team", "data-team": t, style: "border-color:" + hex(TEAM_COLOURS[t]) },
      h("div", { class: "tname" }, t === "blue" ? "Blue Starz" : "Red Sunz", " ",
        h("span", { class: "badge" }, ((b.points || [])[ti] ?? 0) + " points")),
      h("div", {}, icons.length ? icons : h("span", { class: "badge" }, "no Medals yet")));
  }));
  const energy = (b.energy || []).map((e, i) => h("div", { class: "fuel", "data-seat": i },
    h("span", {}, h("span", { class: "dot", style: "background:" + hex(seatOf(v, i).colour) }), " ", seatName(v, i),
      i === b.first ? " ⚑" : ""),
    h("div", { class: "bar" }, h("div", { style: `width:${e * 100 / 30}%;background:${hex(i % 2 ? TEAM_COLOURS.red : TEAM_COLOURS.blue)}` })),
    h("b", {}, e + "⚡" + (b.score && b.score[i] !== null && b.score[i] !== undefined
      ? " · score " + b.score[i] : ""))));
  return h("div", { class: "panel" },
    h("div", { class: "board-head" }, h("span", { class: "big" }, "Stadium"),
      h("span", { class: "badge" }, "Trial " + (b.revealed || 0) + " of " + (b.track || []).length)),
    track, rules, medals, h("h2", {}, "Athletes' Energy (team colour bar, ⚑ first player)"), energy);
}

function genericBoard(v, b) {
  return h("div", { class: "panel" }, h("h2", {}, v.game || "board"),
    h("pre", { style: "white-space:pre-wrap;font-size:12px" }, JSON.stringify(b, null, 1)));
}

const BOARDS = { pixoid: pixoidBoard, outspeed: outspeedBoard, stadium: stadiumBoard };

function renderBoard(v) {
  const el = $("board");
  if (!v.board || v.stage === "lobby") { el.replaceChildren(); return; }
  el.replaceChildren((BOARDS[v.game] || genericBoard)(v, v.board));
}

// ---------------------------------------------------------------- the strip

function drawStrip(pixels) {
  const el = $("strip");
  if (el.children.length !== pixels.length) {
    el.replaceChildren(...pixels.map(() => h("i")));
  }
  pixels.forEach((c, i) => { el.children[i].style.background = "#" + c; });
  shown.strip++;
}

// ---------------------------------------------------------------- render and record

function render(v) {
  current = v;
  renderHeader(v);
  renderNotices(v);
  renderLobby(v);
  renderBoard(v);
  renderSeats(v);
  renderPrompt(v);
  if (!v.prompt) $("alllocked").hidden = true;
  renderReveal(v);
  renderEvents(v);
  renderResult(v);
  const prompt = $("prompt");
  shown.log.push({
    seq: v.seq,
    stage: v.stage,
    pid: prompt.dataset.pid ? Number(prompt.dataset.pid) : null,
    phase: prompt.dataset.phase,
    allLockedShown: !$("alllocked").hidden,
    seats: [...document.querySelectorAll("#seats .seat")].map((e) => [Number(e.dataset.seat), e.dataset.status]),
    revealPid: $("reveal").hidden ? null : Number($("reveal").dataset.pid),
    choices: [...document.querySelectorAll("#reveal .choice")].map((e) => [Number(e.dataset.seat), e.querySelector(".ctext").textContent]),
    notices: [...document.querySelectorAll("#notices .notice")].map((e) => e.textContent),
  });
}

function connect() {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/live");
  ws.onopen = () => { $("link").textContent = "live"; $("link").className = "badge ok"; };
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    shown.frames++;
    if (msg.type === "table") render(msg.state);
    else if (msg.type === "strip") drawStrip(msg.pixels);
  };
  ws.onclose = () => {
    $("link").textContent = "reconnecting…";
    $("link").className = "badge bad";
    setTimeout(connect, 1000);
  };
}

fetch("/static/stadium-trials.json").then((r) => r.json()).then((j) => {
  trials = j;
  if (current) render(current);
}).catch(() => {});
connect();

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

// What the page showed, for tests and for anyone debugging a table: one entry per render.
const shown = { log: [], frames: 0, strip: 0 };
window.dialbox = shown;

let current = null;       // the last TableView
let revealShown = null;   // the reveal on screen (revealId)
let revealSeen = { id: null, base: "", cleared: false };  // when the reveal on screen goes

// ---------------------------------------------------------------- little DOM helpers

const { h } = window.dialboxDom;  // (dom.js)

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
// The seat as people call it: the player's name with the colour ("Anna (Blue)"), or the colour.
function seatLabel(v, i) {
  const st = seatOf(v, i);
  return st.player ? st.player + " (" + st.name + ")" : st.name;
}

// ---------------------------------------------------------------- header, notices, seats

function renderHeader(v) {
  const game = v.games.find((g) => g.name === v.game);
  const next = v.menu ? gameTitle(v, v.menu.choice || {}) : "";
  $("game-title").textContent = v.stage === "menu"
    ? (next ? "Next: " + next : "Choosing the next game")
    : (game ? game.title : (v.game || "—"));
  const stage = { lobby: "lobby", playing: "playing", over: "game over", menu: "menu" }[v.stage];
  $("stage").textContent = stage;
  $("stage").className = "badge" + (v.stage === "playing" ? " ok" : v.stage === "menu" ? " warn" : "");
}

function renderNotices(v) {
  $("notices").replaceChildren(...v.notices.map((n) =>
    h("div", { class: "notice " + n.level, "data-code": n.code }, n.text)));
}

function seatMeta(st) {
  // A controller's link, for the devices drawer (not for the players' seat panel).
  if (st.occupant === "empty") return "nobody here yet";
  if (st.occupant === "bot") return "bot";
  // a paired phone offline has no link facts: its uid (ph-...) still says it is a phone
  const parts = [st.uid, st.transport || (st.uid && st.uid.startsWith("ph-") ? "phone" : null)];
  if (st.link !== null) parts.push("link " + Math.round(st.link * 100) + "%");
  if (st.heartbeat_age !== null) parts.push("heard " + st.heartbeat_age.toFixed(1) + " s ago");
  if (st.rtt_ms !== null && st.rtt_ms !== undefined) parts.push("RTT " + Math.round(st.rtt_ms) + " ms");
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

function ended(v) {
  // The final scores are up: after the game, and over the idle menu until someone opens it.
  return Boolean(v.result) && (v.stage === "over" || (v.stage === "menu" && v.menu && v.menu.stage === "idle"));
}

function seatScore(v, i) {
  // A seat's score: the final one, else the game's public `scores` (one number per seat) if
  // its view has them; null for a game that keeps its score on its own board.
  if (ended(v) && v.result.scores[i] !== undefined) return v.result.scores[i];
  const sc = v.board && v.stage === "playing" ? v.board.scores : null;
  if (Array.isArray(sc) && sc.length === v.seats.length && typeof sc[i] === "number") return sc[i];
  return null;
}

function renderSeats(v) {
  // For the players: who sits where, their team or role, score and status. The link details
  // are in the devices drawer.
  const rows = v.seats.map((st) => {
    const status = seatStatus(v, st);
    const score = seatScore(v, st.seat);
    const won = ended(v) && v.result.winners.includes(st.seat);
    return h("div", { class: "seat" + (won ? " winner" : ""), "data-seat": st.seat, "data-status": status },
      h("span", { class: "swatch", style: "background:" + hex(st.colour), "aria-hidden": "true" }),
      h("span", { class: "who" }, st.player
        ? [h("span", { class: "player", "data-player": st.player }, st.player), " ", h("span", { class: "colour-name" }, st.name)]
        : st.name,
      teamOf(v, st.seat) ? h("span", { class: "badge" }, teamLabel(v, st.seat)) : null),
      score === null ? null : h("span", { class: "score", "data-score": score, "aria-label": (won ? "winner, " : "") + "score " + score },
        (won ? "★ " : "") + score),
      ended(v) && status !== "offline" ? null  // the game is over: the scores are the news
        : h("span", { class: "status " + status }, status === "locked" ? "✔ locked" : STATUS_WORDS[status]),
      st.role ? h("span", { class: "role" }, st.role) : null);
  });
  $("seats").replaceChildren(h("h2", { id: "seats-title" }, "Seats"), ...rows);
  renderDevices(v);
}

function renderDevices(v) {
  // The devices drawer: each seat's controller and its link (transport, link quality,
  // heartbeat, round trip, firmware), or "bot".
  const seated = v.seats.filter((st) => st.occupant !== "empty");
  const offline = seated.filter((st) => st.occupant === "controller" && !st.online).length;
  const controllers = seated.filter((st) => st.occupant === "controller").length;
  const count = $("device-count");
  count.textContent = controllers + (controllers === 1 ? " controller" : " controllers") + (offline ? ", " + offline + " offline" : "");
  count.className = "badge" + (offline ? " bad" : "");
  $("device-list").replaceChildren(h("ul", { class: "devices" }, seated.map((st) =>
    h("li", { class: st.occupant === "controller" && !st.online ? "offline" : "", "data-device-seat": st.seat },
      h("span", { class: "dot", style: "background:" + hex(st.colour), "aria-hidden": "true" }), " ",
      h("span", { class: "dname" }, seatLabel(v, st.seat)), " ",
      h("span", { class: "dmeta" }, seatMeta(st))))));
}

// ---------------------------------------------------------------- joining with a phone

let joinShown = "";       // the codes on screen ("seat:code,..."), redrawn only on a change
let phoneUrl = null;      // where phones open the page (GET /phone/address), asked once

function renderJoin(v) {
  // Each free seat's one-time join code and its QR code (of /phone?code=CODE): a phone that
  // scans it becomes that seat's controller. Codes are public on purpose (docs/displays.md).
  const el = $("join");
  const codes = v.join || [];
  el.hidden = codes.length === 0;
  const key = codes.map((j) => j.seat + ":" + j.code).join(",");
  if (key === joinShown) return;
  joinShown = key;
  if (!codes.length) { el.replaceChildren(); return; }
  if (phoneUrl === null) {
    phoneUrl = "";
    fetch("/phone/address").then((r) => r.json()).then((a) => {
      phoneUrl = a.url || "";
      const u = $("join-url");
      if (u) u.textContent = phoneUrl;
    }).catch(() => { phoneUrl = null; });
  }
  el.replaceChildren(
    h("h2", { id: "join-title" }, "Join with a phone"),
    h("p", { class: "hint" }, "Scan a code, or open ", h("span", { id: "join-url" }, phoneUrl || "/phone"),
      " and type it. Each code seats one phone."),
    h("ul", { class: "joins" }, codes.map((j) => h("li", { class: "join-code", "data-seat": j.seat },
      h("img", { src: "/phone/qr/" + j.code + ".svg", alt: "QR code: join as " + j.name, width: 120, height: 120 }),
      h("span", { class: "jname" }, j.name),
      h("span", { class: "jcode", "data-code": j.code }, j.code)))));
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
      v.stage === "over" ? "The game is over." :
      v.stage === "menu" ? "Choosing the next game on the controllers." : "Resolving…"));
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
        seatLabel(v, a.seat) + " · " + STATUS_WORDS[a.status]))));
  $("alllocked").hidden = p.phase !== "alllocked";
}

function faceEl(f) {
  return h("span", { class: "face", style: "background:" + hex(f.colour) }, f.label);
}

function promptKey(p) {
  return p ? p.pid + " " + p.phase + " " + p.asks.map((a) => a.seat + ":" + a.status).join(",") : "";
}

function revealId(v) {
  // A reveal is its prompt's pid in this game of this table (a new game may count anew).
  return v.reveal ? v.table + " " + v.game + " " + v.number + " " + v.reveal.pid : null;
}

function revealStays(v) {
  // A reveal shows from the state that brings it until the table moves on: the next prompt
  // opens after it or, when it came with the next prompt already open (the daemon asks at
  // once), until that prompt moves (someone dials or locks). Then it clears until the next.
  const r = v.reveal;
  if (!r) return false;
  if (revealId(v) !== revealSeen.id) revealSeen = { id: revealId(v), base: promptKey(v.prompt), cleared: false };
  else if (v.prompt && v.prompt.pid > r.pid && promptKey(v.prompt) !== revealSeen.base) revealSeen.cleared = true;
  return !revealSeen.cleared;
}

function renderReveal(v) {
  const r = v.reveal;
  const el = $("reveal");
  if (!revealStays(v)) { el.hidden = true; return; }
  el.hidden = false;
  if (revealId(v) === revealShown) return;
  revealShown = revealId(v);
  el.dataset.pid = r.pid;
  const bySeat = [...r.choices].sort((a, b) => a.seat - b.seat);
  const cards = h("div", { class: "cards" }, bySeat.map((c) =>
    h("div", { class: "choice", "data-seat": c.seat, style: "border-color:" + hex(seatOf(v, c.seat).colour) },
      h("div", { class: "name" }, seatLabel(v, c.seat)),
      h("div", { class: "faces" }, c.faces.map(faceEl)),
      h("div", { class: "ctext" }, c.text))));
  el.classList.remove("flip");
  const title = h("h2", {}, r.sealed ? "Reveal" : "Answer");
  if (r.verified) {  // every choice hashes to the commitment its seat locked
    title.append(" ", h("span", { class: "verified", title: "every choice matches its lock" }, "✓ verified"));
  }
  el.replaceChildren(title, h("div", { class: "ptext" }, r.text), cards);
  void el.offsetWidth; // restart the animation: every card turns over at the same moment
  el.classList.add("flip");
}

function renderEvents(v) {
  const list = $("event-list");
  list.replaceChildren(...v.events.slice(-14).map((e) => h("li", { "data-kind": e.kind }, e.text)));
  list.scrollTop = list.scrollHeight;
}

function teamOf(v, i) { return seatOf(v, i).team || ""; }
// A team as people read it: the name the game's view gives its key (Stadium: Starz, Sunz),
// else the key itself.
function teamLabel(v, i) {
  const key = teamOf(v, i), names = (v.board || {}).team_names || {};
  return names[key] || key;
}

function renderResult(v) {
  // At the end of a game; and, when the table turns to its menu at once, until someone
  // opens the menu (the last game's result stays in the state while the menu is idle).
  // Shown in the focus, in place of the question; each seat shows its score too.
  const el = $("result");
  const show = ended(v);
  el.hidden = !show;
  $("focus").dataset.show = show ? "result" : "prompt";
  $("focus").hidden = v.stage === "menu" && !show;  // the menu asks its own question
  if (!show) return;
  const r = v.result;
  const idle = v.stage === "menu";
  const order = Object.keys(r.scores).map(Number).sort((a, b) => r.scores[b] - r.scores[a]);
  el.replaceChildren(
    h("div", { class: "rhead" }, h("h2", { class: "rtitle", id: "result-title" }, "Final scores"),
      h("div", { class: "text" }, r.text)),
    idle ? h("div", { class: "hint" }, "Any controller opens the menu for the next game.") : "",
    h("ol", { class: "rscores" }, order.map((i) => h("li", { class: r.winners.includes(i) ? "winner" : "", "data-seat": i },
      h("span", { class: "dot", style: "background:" + hex(seatOf(v, i).colour), "aria-hidden": "true" }),
      h("span", { class: "rname" }, seatLabel(v, i)),
      teamOf(v, i) ? h("span", { class: "rteam badge" }, teamLabel(v, i)) : null,
      h("span", { class: "pts" }, (r.winners.includes(i) ? "★ " : "") + r.scores[i])))));
}

// ---------------------------------------------------------------- lobby

function renderLobby(v) {
  const el = $("lobby");
  el.hidden = v.stage !== "lobby";
  if (el.hidden) return;
  const rows = v.seats.map((st) => h("tr", { "data-seat": st.seat },
    h("td", {}, h("span", { class: "dot", style: "background:" + hex(st.colour) }), " ", seatLabel(v, st.seat)),
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
          : h("div", { class: "phase" }, (v.join || []).length
            ? "Plug in or switch on a controller, or join with a phone (codes beside the seats)."
            : "Plug in or switch on a controller to join.")),
      h("div", { class: "panel games" }, h("h2", {}, "Game"),
        h("ul", {}, v.games.map((g) => h("li", { class: g.name === v.game ? "chosen" : "", "data-game": g.name },
          g.title, " ", h("span", { class: "badge" }, g.players + " players"))))))));
}

// ---------------------------------------------------------------- the console's menu

const MENU_STAGES = {
  idle: "waiting for a controller", game: "choosing a game", setup: "setting up",
  options: "options", vote: "vote", name: "taking a name", spell: "spelling a name",
};
const WHEELS = ["left", "centre", "right"];
const CHOICE_KEYS = [["title", "Game"], ["players", "Players"], ["variant", "Variant"], ["bot", "Bots"]];
let menuSaid = "";        // what the menu's live region last announced

function gameTitle(v, choice) {
  // The chosen game's title: the menu's own, else the registry's, else its name.
  if (choice.title) return choice.title;
  const game = v.games.find((g) => g.name === choice.game);
  return game ? game.title : (choice.game || "");
}

function menuWheel(w, i) {
  // One wheel as a vertical list of its faces: the one the chooser's wheel shows now
  // highlighted (aria-current), the faces it may not stop on dimmed.
  const where = WHEELS[i];
  if (!w) return h("div", { class: "mwheel empty", "data-wheel": where, "aria-hidden": "true" });
  const allowed = new Set(w.allowed.length ? w.allowed : w.faces.map((_, k) => k));
  const list = h("ol", { class: "mfaces", "aria-label": where + " wheel, " + w.label },
    w.faces.map((f, k) => h("li", {
      class: "mface" + (k === w.at ? " at" : "") + (allowed.has(k) ? "" : " off"),
      "data-face": k, "aria-current": k === w.at ? "true" : null,
    }, f, allowed.has(k) ? null : h("span", { class: "sr-only" }, " (not available)"))));
  return h("div", { class: "mwheel", "data-wheel": where, "data-at": w.at, role: "group",
    "aria-label": where + " wheel: " + w.label + ", showing " + (w.faces[w.at] ?? "nothing") },
    h("div", { class: "mlabel" }, w.label), list);
}

function yesNo(val) {
  if (val === true) return "on";
  if (val === false) return "off";
  return plain(val);
}

function menuChoice(v, m) {
  const c = m.choice || {};
  const rows = [];
  for (const [k, label] of CHOICE_KEYS) {
    const val = k === "title" ? gameTitle(v, c) : c[k];
    if (val !== undefined && val !== null && val !== "") rows.push([k, label, plain(val)]);
  }
  const opts = c.options && typeof c.options === "object" ? Object.entries(c.options) : [];
  for (const [k, val] of Object.entries(c)) {
    if (["game", "title", "players", "variant", "bot", "options"].includes(k)) continue;
    if (val !== undefined && val !== null && val !== "") rows.push([k, k, plain(val)]);
  }
  if (!rows.length && !opts.length) return null;
  return h("div", { class: "mchoice", role: "group", "aria-label": "Chosen so far" },
    h("h3", {}, "Chosen so far"),
    h("dl", {}, rows.map(([k, label, val]) => [h("dt", {}, label), h("dd", { "data-choice": k }, val)]),
      opts.length ? [h("dt", {}, "Options"), h("dd", { "data-choice": "options" },
        h("ul", { class: "mopts" }, opts.map(([name, on]) =>
          h("li", { class: on ? "on" : "off", "data-option": name }, name + ": " + yesNo(on)))))] : null));
}

function menuVotes(v, m) {
  if (m.stage !== "vote" && !m.votes.length) return null;
  const given = new Map(m.votes.map((x) => [x.seat, x.yes]));
  const seats = [...new Set([...m.voters, ...m.votes.map((x) => x.seat)])];
  const yes = m.votes.filter((x) => x.yes).length;
  const waiting = seats.filter((i) => !given.has(i)).length;
  return h("div", { class: "mvotes", role: "group", "aria-label": "Votes" },
    h("h3", {}, "Votes"),
    h("div", { class: "mtally", "aria-live": "polite" },
      yes + " for, " + (m.votes.length - yes) + " against" + (waiting ? ", " + waiting + " still to vote" : "")),
    h("ul", { class: "chips" }, seats.map((i) => {
      const vote = given.has(i) ? (given.get(i) ? "yes" : "no") : "pending";
      return h("li", { class: "chip vote " + vote, "data-vote-seat": i, "data-vote": vote },
        h("span", { class: "dot", style: "background:" + hex(seatOf(v, i).colour), "aria-hidden": "true" }),
        seatLabel(v, i) + " · " + { yes: "✔ yes", no: "✘ no", pending: "still to vote" }[vote]);
    })));
}

function menuLast(m) {
  const parts = [];
  if (m.last) {
    parts.push(h("div", { class: "mlast", "data-last-game": m.last.game },
      h("span", { class: "k" }, "Last game" + (m.last.number ? " (#" + m.last.number + ")" : "") + ": "),
      h("span", { class: "title" }, m.last.title || m.last.game),
      m.last.text ? [" — ", h("span", { class: "text" }, m.last.text)] : null));
  }
  parts.push(h("div", { class: "mgames" }, m.games === 1 ? "1 game played at this table"
    : m.games + " games played at this table"));
  return parts;
}

function renderMenu(v) {
  const el = $("menu");
  const m = v.stage === "menu" ? v.menu : null;
  el.hidden = !m;
  if (!m) { menuSaid = ""; return; }
  el.dataset.stage = m.stage;
  const chooser = m.chooser === null || m.chooser === undefined ? null : seatOf(v, m.chooser);
  const wheels = m.wheels.some(Boolean) ? h("div", { class: "mwheels" }, m.wheels.map(menuWheel)) : null;
  el.replaceChildren(...[
    h("h2", { id: "menu-title" }, "Menu ", h("span", { class: "badge", "data-menu-stage": m.stage }, MENU_STAGES[m.stage] || m.stage)),
    h("div", { class: "mtext", id: "menu-question" }, m.text),
    chooser ? h("div", { class: "mchooser", "data-chooser": m.chooser, style: "border-color:" + hex(chooser.colour) },
      h("span", { class: "swatch", style: "background:" + hex(chooser.colour), "aria-hidden": "true" }),
      seatLabel(v, m.chooser) + (m.stage === "vote" ? " asks the table" : " is choosing"))
      : h("div", { class: "mchooser none" }, "Any seated controller can open the menu."),
    wheels,
    h("div", { class: "mside" }, menuChoice(v, m), menuVotes(v, m)),
    m.note ? h("div", { class: "mnote", role: "status" }, m.note) : null,
    h("div", { class: "mfoot" }, menuLast(m))].filter(Boolean));
  // Keep each wheel's current face in sight in a long list (a name spelled letter by letter).
  for (const list of el.querySelectorAll(".mfaces")) {
    const at = list.querySelector(".mface.at");
    if (at && list.scrollHeight > list.clientHeight) {
      list.scrollTop = at.offsetTop - (list.clientHeight - at.offsetHeight) / 2;
    }
  }
  // One short sentence for a screen reader when the question or a wheel's face changes.
  const faces = m.wheels.filter(Boolean).map((w) => w.label + ": " + (w.faces[w.at] ?? ""));
  const say = [m.text, ...faces].join(". ");
  if (say !== menuSaid) { menuSaid = say; $("menu-say").textContent = say; }
}

// ---------------------------------------------------------------- boards

function stat(k, val) { return h("div", { class: "stat" }, h("div", { class: "k" }, k), h("div", { class: "v" }, val)); }

// Each game draws its own board: its package's board.js (served at /games/<game>/board.js)
// registers `DialboxBoards[game] = (view, board) => Element`, using the helpers on
// `window.Dialbox` (docs/displays.md, "A game's board renderer"). The page's <script> tags
// load the board of every registered game after this file; a game the page does not know yet
// (say a plug-in registered after the page loaded) has its board.js loaded on demand.
window.DialboxBoards = window.DialboxBoards || {};
const boardLoads = {};    // game -> "loading" | "loaded" | "failed" (on-demand loads)

function style(id, css) {
  // A board's own CSS, added once to the page (as <style data-board-style="id">).
  if (document.querySelector(`style[data-board-style="${CSS.escape(id)}"]`)) return;
  document.head.append(h("style", { "data-board-style": id }, css));
}

function redraw() {
  // Draw the board of the current state again (a board's data arrived, its script loaded).
  if (current) renderBoard(current);
}

window.Dialbox = Object.freeze({ h, s, hex, stat, seatOf, seatName, seatLabel, teamOf, teamLabel,
  style, redraw });

function loadBoard(game) {
  // A board script the page has no <script> tag for: ask the server once, redraw when loaded.
  const src = "/games/" + encodeURIComponent(game) + "/board.js";
  if (boardLoads[game] || document.querySelector(`script[data-board-game="${CSS.escape(game)}"]`)) return;
  boardLoads[game] = "loading";
  const el = document.createElement("script");
  el.src = src;
  el.dataset.boardGame = game;
  el.onload = () => { boardLoads[game] = "loaded"; redraw(); };
  el.onerror = () => { boardLoads[game] = "failed"; el.remove(); };
  document.head.append(el);
}

function plain(val) {
  if (val === null || val === undefined) return "—";
  if (typeof val !== "object") return String(val);
  if (Array.isArray(val) && val.every((x) => x === null || typeof x !== "object"))
    return val.map((x) => (x === null ? "—" : String(x))).join(", ");
  return JSON.stringify(val);
}

function genericBoard(v, b) {
  // A game without a board.js: its public view as a readable key/value table.
  const game = v.games.find((g) => g.name === v.game);
  return h("div", { class: "panel", "data-board": "generic" },
    h("div", { class: "board-head" }, h("span", { class: "big" }, game ? game.title : (v.game || "Board")),
      h("span", { class: "badge" }, "public view")),
    h("table", { class: "kv" }, Object.entries(b).map(([k, val]) =>
      h("tr", { "data-key": k }, h("th", {}, k), h("td", {}, plain(val))))));
}

function renderBoard(v) {
  const el = $("board");
  const box = $("board-box");
  if (!v.board || v.stage === "lobby" || v.stage === "menu") { el.replaceChildren(); box.hidden = true; return; }
  box.hidden = false;
  const draw = v.game ? window.DialboxBoards[v.game] : undefined;
  if (!draw && v.game) loadBoard(v.game);
  let board;
  try {
    board = (draw || genericBoard)(v, v.board);
  } catch (e) {
    // A broken board must not blank the rest of the screen: show the generic one, and report
    // the error as uncaught (the console, the browser tests) without stopping this render.
    board = genericBoard(v, v.board);
    setTimeout(() => { throw e; });
  }
  el.replaceChildren(board);
  fitBoard(true);
}

// ---------------------------------------------------------------- layout: phone, desk, tv

// The layout follows the window by media queries (screen.css): "phone" (600 px wide or less,
// or under 480 px high: one column that scrolls downwards), "tv" (1600 px wide and more: sizes
// from the screen's height) or "desk"; screen.css names it in --layout. ?tv=1 asks for the TV
// layout on a smaller window (a kiosk browser that reports one), ?tv=0 never gives it.
const TV_PARAM = new URLSearchParams(location.search).get("tv");
if (TV_PARAM === "1" || TV_PARAM === "0") document.documentElement.dataset.tv = TV_PARAM;

function layoutMode() {
  return getComputedStyle(document.documentElement).getPropertyValue("--layout").trim() || "desk";
}

const LAYOUTS = ["phone", "desk", "tv"];

function fit(box, el, fillHeight, zoom) {
  // Scale `el` (in `box`, transform-origin top left) so that the whole of it shows in the
  // box, centred across: laid out at the box's width divided by `zoom` (or at its own
  // min-content width when it cannot be narrower: a long track), then scaled to the box's
  // width and, with fillHeight, to its height (never above `zoom`). When the height limits,
  // the content is laid out wider (fewer, longer rows) while that lets it grow. A box without
  // a height of its own (fillHeight false) gets the scaled content's height.
  // The fit is kept for the layout in force (custom properties --fit-<layout>-*, which
  // screen.css applies in that layout only), its width and offset as shares of the box's
  // width: when the window changes, the page shows at once this content's fit for the new
  // layout (or, not fitted yet, the content at the box's width, unscaled) until it is fitted.
  const mode = layoutMode();
  const keep = (e, k, v) => e.style.setProperty("--fit-" + mode + "-" + k, v);
  const W = box.clientWidth;
  if (!W || !el.firstElementChild) return 1;
  const H = fillHeight ? box.clientHeight : Infinity;
  el.style.position = "absolute";
  el.style.width = "min-content";
  const least = el.offsetWidth;
  const measure = (lw) => {
    el.style.width = lw + "px";
    const nw = Math.max(lw, el.scrollWidth), nh = el.scrollHeight + 1;
    return { lw, nw, nh, kw: W / nw, kh: H / nh, k: Math.min(W / nw, H / nh, zoom) };
  };
  let lo = measure(Math.max(W / zoom, least));
  let best = lo;
  if (lo.kh < lo.kw) {  // the height limits: search the layout width where both limits meet
    let hi = W / lo.kh;
    for (let i = 0; i < 5 && hi > lo.lw * 1.02; i++) {
      const mid = measure((lo.lw + hi) / 2);
      if (mid.k > best.k) best = mid;
      if (mid.kh < mid.kw) lo = mid; else hi = mid.lw;
    }
    // Content that gets no shorter when wider (a square maze) is laid out as wide as its
    // scale allows: it fills the box across rather than leaving bands at its sides.
    if (best.kw > best.k * 1.01) {
      const wide = measure(W / best.k);
      if (wide.k >= best.k * 0.995) best = wide;
    }
  }
  el.style.removeProperty("position");
  el.style.removeProperty("width");
  keep(el, "pos", "absolute");
  keep(el, "w", (100 * best.lw / W) + "%");
  keep(el, "l", (100 * Math.max(0, (W - best.nw * best.k) / 2) / W) + "%");
  keep(el, "t", Math.abs(best.k - 1) < 0.001 ? "none" : "scale(" + best.k + ")");
  keep(box, "h", fillHeight ? "auto" : Math.ceil(best.nh * best.k) + "px");
  el.dataset.scale = best.k.toFixed(3);
  return best.k;
}

function unfit(box, el) {
  // New content: no layout's fit holds any more.
  for (const mode of LAYOUTS) {
    for (const k of ["pos", "w", "l", "t"]) el.style.removeProperty("--fit-" + mode + "-" + k);
    box.style.removeProperty("--fit-" + mode + "-h");
  }
  delete el.dataset.scale;
}

function tvZoom() {
  // A TV larger than 1080p at 1 CSS px per pixel (3840x2160): a board is laid out as on
  // 1920x1080, then scaled up as everything else (--u in screen.css).
  if (layoutMode() !== "tv") return 1;
  return Math.max(1, Math.min(innerHeight / 1080, innerWidth / 1920));
}

let boardDrawn = "";      // the board's markup its fits were measured for
const boardFits = {};     // layout -> the box and window its fit was measured in
const boardScales = {};   // layout -> the scale of that fit (data-scale says the one shown)

function fitBoard(drawn) {
  // A board is drawn afresh for every state, mostly the same as before (a heartbeat, a seat
  // dialling): the same markup in the same box keeps its fit without measuring it again.
  const box = $("board-box");
  const el = $("board");
  if (drawn && el.innerHTML !== boardDrawn) {
    boardDrawn = el.innerHTML;
    unfit(box, el);
    for (const mode of LAYOUTS) { delete boardFits[mode]; delete boardScales[mode]; }
  }
  if (box.hidden) return;
  const mode = layoutMode();
  const at = box.clientWidth + "x" + (mode === "phone" ? "" : box.clientHeight) + " " + innerWidth + "x" + innerHeight;
  if (boardFits[mode] === at) {  // kept: the scale shown is this layout's
    if (boardScales[mode] !== undefined) el.dataset.scale = boardScales[mode];
    return;
  }
  fit(box, el, mode !== "phone", tvZoom());
  boardFits[mode] = at;
  boardScales[mode] = el.dataset.scale;
}

function fitFocus(drawn) {
  if (drawn) unfit($("focus"), $("focus-fit"));
  fit($("focus"), $("focus-fit"), layoutMode() !== "phone", 1);
}

let fitting = false;
function refit() {
  // Once per frame at most: a new layout (the window resized, the header wrapped).
  if (fitting) return;
  fitting = true;
  requestAnimationFrame(() => { fitting = false; fitFocus(); fitBoard(); });
}

addEventListener("resize", () => { fitFocus(); fitBoard(); });
if (window.ResizeObserver) {
  const seen = new WeakMap();
  const watch = new ResizeObserver((entries) => {
    // A box's new width, or a desk or tv box's new height, calls for a new fit (a phone's
    // boxes take their height from the fit itself).
    const phone = layoutMode() === "phone";
    let again = false;
    for (const e of entries) {
      const size = e.contentRect.width + "x" + (phone ? "" : e.contentRect.height);
      if (seen.get(e.target) !== size) { seen.set(e.target, size); again = true; }
    }
    if (again) refit();
  });
  watch.observe($("focus"));
  watch.observe($("board-box"));
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
  renderMenu(v);
  renderBoard(v);
  renderSeats(v);
  renderJoin(v);
  renderPrompt(v);
  if (!v.prompt) $("alllocked").hidden = true;
  renderReveal(v);
  renderEvents(v);
  renderResult(v);
  fitFocus(true);
  fitBoard();  // again: the notices, focus or side may have changed the board's box
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
    menu: $("menu").hidden ? null : {
      stage: $("menu").dataset.stage,
      at: [...document.querySelectorAll("#menu .mwheel")].map((e) => (e.dataset.at === undefined ? null : Number(e.dataset.at))),
      votes: [...document.querySelectorAll("#menu [data-vote-seat]")].map((e) => [Number(e.dataset.voteSeat), e.dataset.vote]),
    },
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

// The replay page (/replay/<table>/<n>) draws journaled states with the same renderers and
// does not follow the live table.
window.DialboxScreen = Object.freeze({ render });

// Connect once the page has run every script, the boards' included.
if (document.body.dataset.mode !== "replay") {
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", connect);
  else connect();
}

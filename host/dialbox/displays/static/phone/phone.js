// The dialbox phone controller page: pairing, the WebSocket link (/phone/link, one protocol v1
// frame per text message), the three wheels, the lock button, the reveal and the seat's own
// private view. The protocol itself is controller.js (as the firmware's core) over codec.js.
"use strict";

import * as C from "./codec.js";
import { Controller, STATES as S, WHEEL_NAMES } from "./controller.js";
import * as store from "./store.js";

const $ = (id) => document.getElementById(id);
const now = () => Math.floor(performance.now());
const HOLD_MS = 600;     // long press = unlock
const DETENT_PX = 36;    // a drag this long turns a wheel one face
const FACE_PX = 56;      // one face's height in the wheel's window (phone.css --face)

// What the page did, for tests and for anyone debugging a phone: frames both ways (text).
const debug = { frames: [], ready: false, ctl: null, sha: C.useSha256() };
window.dialboxPhone = debug;

let ctl = null;
let ws = null;
let wsOnline = false;      // this socket's session was welcomed
let backoff = 500;
let retryAt = 0;
let retryTimer = null;
let stopped = false;       // no more reconnects (the pairing is refused)
let queue = Promise.resolve();

const { h } = window.dialboxDom;  // (/static/dom.js, loaded before this module)

function buzz(pattern) {
  if (navigator.vibrate) {
    try {
      navigator.vibrate(pattern);
    } catch {
      // no haptics here
    }
  }
}

/** Run fn after everything queued before it (frames and presses are handled one at a time,
 * each may await a hash or the store), then send what it produced and draw. */
function enqueue(fn) {
  queue = queue.then(fn).catch((e) => {
    console.error(e);
    if (ctl) {
      ctl.notice = "page error: " + (e && e.message ? e.message : e);
      ctl.changed = true;
    }
  }).then(() => {
    flush();
    if (ctl && ctl.changed) render();
  });
  return queue;
}

function flush() {
  if (!ctl) return;
  for (const frame of ctl.session.take()) {
    const text = frame.endsWith("\n") ? frame.slice(0, -1) : frame;
    if (ws && ws.readyState === WebSocket.OPEN) {
      ws.send(text);
      debug.frames.push(["up", text]);
    }
  }
  if (ctl.state === S.ERROR && ctl.error && [C.E_AUTH, C.E_DEVICE].includes(ctl.error.code)) {
    stopped = true;  // this pairing is refused: knocking again would not help
  }
  if (ctl.session.online && !wsOnline) {
    wsOnline = true;
    backoff = 500;
  }
}

// ---------------------------------------------------------------- pairing

function showPairing(message) {
  document.body.dataset.view = "pairing";
  $("pair-view").hidden = false;
  $("play-view").hidden = true;
  $("pair-error").textContent = message || "";
}

async function pair(code) {
  const clean = code.trim().toUpperCase().replace(/[\s-]/g, "");
  const err = $("pair-error");
  if (!/^[A-Z0-9]{4,12}$/.test(clean)) {
    err.textContent = "Type the code shown on the table screen (letters and digits).";
    return false;
  }
  $("pair-button").disabled = true;
  err.textContent = "";
  try {
    const r = await fetch("/phone/pair", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ code: clean }),
    });
    let body = null;
    try {
      body = await r.json();
    } catch {
      body = null;
    }
    if (!r.ok) {
      err.textContent = (body && body.error) || `The table refused the code (HTTP ${r.status}).`;
      return false;
    }
    if (!body || typeof body.uid !== "string" || !C.deviceKey(body.key)) {
      err.textContent = "The table's answer was not a pairing: try again.";
      return false;
    }
    const p = { uid: body.uid, key: body.key, table: String(body.table || ""),
                seat: Number.isInteger(body.seat) ? body.seat : null };
    const before = await store.get("pairing");
    if (!before || before.uid !== p.uid) {  // another device id: nothing of the old one counts
      await store.del("lock");
      await store.del("closed");
    }
    await store.put("pairing", p);
    history.replaceState(null, "", location.pathname);  // a reload must not pair again
    start(p);
    return true;
  } catch (e) {
    err.textContent = "Could not reach the table: " + (e && e.message ? e.message : e);
    return false;
  } finally {
    $("pair-button").disabled = false;
  }
}

async function forgetPairing(message) {
  stopped = true;
  const sock = ws;
  ws = null;
  if (sock) sock.close(1000, "left the table");
  await store.del("pairing");
  await store.del("lock");
  await store.del("closed");
  ctl = null;
  debug.ctl = null;
  showPairing(message);
}

// ---------------------------------------------------------------- the link

function linkUrl() {
  return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/phone/link";
}

function connect() {
  if (stopped) return;
  retryTimer = null;
  wsOnline = false;
  let sock;
  try {
    sock = new WebSocket(linkUrl());
  } catch (e) {
    scheduleRetry();
    return;
  }
  ws = sock;
  renderLink();
  sock.onmessage = (ev) => {
    if (typeof ev.data !== "string" || ws !== sock || !ctl) return;
    debug.frames.push(["down", ev.data]);
    const msg = C.decodeFrame(ev.data);
    enqueue(() => ctl.handle(msg, now()));
  };
  sock.onclose = () => {
    if (ws !== sock) return;
    ws = null;
    enqueue(() => ctl.linkLost());
    scheduleRetry();
  };
}

function scheduleRetry() {
  if (stopped || retryTimer) return;
  const wait = Math.round(backoff * (0.8 + 0.4 * Math.random()));
  backoff = Math.min(backoff * 2, 8000);
  retryAt = Date.now() + wait;
  retryTimer = setTimeout(connect, wait);
  renderLink();
}

function tick() {
  if (!ctl) return;
  enqueue(() => {
    ctl.tick(now());
    if (wsOnline && !ctl.session.online && ws) {
      // three seconds without a frame from the host: this socket is dead, open another
      const dead = ws;
      ws = null;
      dead.close(4000, "silence");
      scheduleRetry();
    }
  });
  renderLink();
}

// ---------------------------------------------------------------- wheels

const wheelEls = [];

function buildWheels() {
  const box = $("wheels");
  box.replaceChildren();
  wheelEls.length = 0;
  for (let i = 0; i < 3; i++) {
    const name = WHEEL_NAMES[i];
    const prev = h("button", { type: "button", class: "turn prev", "aria-label": `${name} wheel: previous face` }, "▲");
    const next = h("button", { type: "button", class: "turn next", "aria-label": `${name} wheel: next face` }, "▼");
    const strip = h("div", { class: "strip", role: "none" });
    const win = h("div", { class: "window", tabindex: 0, role: "listbox", "aria-label": `${name} wheel`,
                           "data-wheel": i }, strip);
    const off = h("p", { class: "off" }, "not used");
    const el = h("div", { class: "wheel", role: "group", "aria-label": `${name} wheel`, "data-wheel": i },
      prev, win, off, next, h("p", { class: "wheel-name", "aria-hidden": "true" }, name));
    prev.addEventListener("click", () => turn(i, -1));
    next.addEventListener("click", () => turn(i, 1));
    win.addEventListener("keydown", (ev) => {
      const d = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[ev.key];
      if (d) {
        ev.preventDefault();
        turn(i, d);
      }
    });
    dragToTurn(win, i);
    box.append(el);
    wheelEls.push({ el, win, strip, prev, next, off, key: null });
  }
}

/** Swipe or drag a wheel's window, up/left = next face, down/right = previous: one face per
 * DETENT_PX, as the finger goes. */
function dragToTurn(win, i) {
  let drag = null;
  win.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0) return;
    drag = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, done: 0 };
    try {
      win.setPointerCapture(ev.pointerId);
    } catch {
      // a synthetic pointer cannot be captured: moves still arrive on the window
    }
  });
  win.addEventListener("pointermove", (ev) => {
    if (!drag || ev.pointerId !== drag.id) return;
    const dy = drag.y - ev.clientY;
    const dx = drag.x - ev.clientX;
    const d = Math.abs(dy) >= Math.abs(dx) ? dy : dx;
    const steps = Math.trunc(d / DETENT_PX);
    if (steps !== drag.done) {
      turn(i, steps - drag.done);
      drag.done = steps;
    }
    ev.preventDefault();
  });
  const end = (ev) => {
    if (drag && ev.pointerId === drag.id) drag = null;
  };
  win.addEventListener("pointerup", end);
  win.addEventListener("pointercancel", end);
}

function turn(i, detents) {
  enqueue(() => {
    const r = ctl.turn(i, detents, now());
    if (!r) return;
    if (r.moved) buzz(8);
    const w = ctl.wheels[i];
    const note = $("skip-note");
    if (r.skipped.length) {
      const labels = r.skipped.map((k) => w.faces[k][0]).join(", ");
      note.textContent = `${WHEEL_NAMES[i]} wheel skipped ${labels}: not allowed now.`;
    } else if (r.moved) {
      note.textContent = "";
    }
  });
}

function textOn(colour) {
  const c = parseInt(colour || "888888", 16);
  const lum = (0.299 * ((c >> 16) & 255) + 0.587 * ((c >> 8) & 255) + 0.114 * (c & 255)) / 255;
  return lum > 0.55 ? "#111" : "#fff";
}

function renderWheels(st) {
  const show = [S.PROGRAMMING, S.LOCKED, S.ALLLOCKED].includes(st)
    || (st === S.CONNECTING && ctl.record && ctl.record.wheels);
  const anyActive = ctl.wheels.some((w) => w.active);
  $("wheels").hidden = !(show && anyActive);
  const editable = st === S.PROGRAMMING;
  ctl.wheels.forEach((w, i) => {
    const we = wheelEls[i];
    const key = JSON.stringify([w.faces, w.allowed]);
    we.el.classList.toggle("off", !w.active);
    we.el.classList.toggle("fixed", !editable);
    we.win.hidden = !w.active;
    we.off.hidden = w.active;
    we.prev.disabled = we.next.disabled = !editable || !w.active;
    if (!w.active) {
      we.strip.replaceChildren();
      we.key = key;
      return;
    }
    if (we.key !== key) {
      we.key = key;
      const face = (k, copy) => {
        const [label, , colour] = w.faces[k];
        const ok = w.isAllowed(k);
        return h("div", {
          role: copy ? null : "option", id: copy ? null : `w${i}f${k}`,
          class: (ok ? "face" : "face no") + (copy ? " copy" : "")
            + (label.length > 5 ? " long" : label.length > 3 ? " mid" : ""),
          "aria-disabled": ok || copy ? null : "true", "aria-hidden": copy ? "true" : null,
          "data-face": copy ? null : k,
          style: ok ? `--fbg:#${colour};--ffg:${textOn(colour)}` : null,
        }, h("span", { class: "label" }, label), ok ? null : h("span", { class: "why" }, "not allowed now"));
      };
      const n = w.faces.length;
      // the wheel goes round: the last face above the first, the first below the last
      we.strip.replaceChildren(face(n - 1, true), ...w.faces.map((_f, k) => face(k, false)),
        face(0, true));
    }
    we.strip.querySelectorAll("[role=option]").forEach(
      (o, k) => o.setAttribute("aria-selected", String(k === w.index)));
    we.win.setAttribute("aria-activedescendant", `w${i}f${w.index}`);
    if (editable) we.win.removeAttribute("aria-disabled");
    else we.win.setAttribute("aria-disabled", "true");
    we.win.tabIndex = editable ? 0 : -1;
    we.strip.style.transform = `translateY(${-w.index * FACE_PX}px)`;
    we.win.dataset.index = w.index;
    const f = w.face();
    we.win.dataset.label = f ? f[0] : "";
    we.win.style.setProperty("--ring", f ? "#" + f[2] : "#888");
  });
}

// ---------------------------------------------------------------- the lock button

function lockButton() {
  const b = $("lock");
  let timer = null;
  let held = false;
  const down = () => {
    held = false;
    clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      held = true;
      b.classList.remove("holding");
      enqueue(async () => {
        const r = await ctl.hold(now());
        if (r === "unlocked" || r === "given up") buzz([20, 40, 20]);
        else if (r === "refused") buzz(60);
      });
    }, HOLD_MS);
    b.classList.add("holding");
  };
  const up = (fire) => {
    b.classList.remove("holding");
    if (timer === null) return;
    clearTimeout(timer);
    timer = null;
    if (fire && !held) {
      enqueue(async () => {
        if ((await ctl.press(now())) === "locked") buzz(30);
      });
    }
  };
  b.addEventListener("pointerdown", (ev) => {
    if (ev.button === 0) down();
  });
  b.addEventListener("pointerup", () => up(true));
  b.addEventListener("pointercancel", () => up(false));
  b.addEventListener("pointerleave", () => up(false));
  b.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" && ev.key !== " ") return;
    ev.preventDefault();
    if (!ev.repeat) down();
  });
  b.addEventListener("keyup", (ev) => {
    if (ev.key !== "Enter" && ev.key !== " ") return;
    ev.preventDefault();
    up(true);
  });
  // A click that no pointer or key of ours made (a screen reader's activation): a tap.
  let ours = 0;
  for (const kind of ["pointerdown", "pointerup", "keydown", "keyup"]) {
    b.addEventListener(kind, () => { ours = Date.now(); }, true);
  }
  b.addEventListener("click", (ev) => {
    ev.preventDefault();
    if (Date.now() - ours < 800) return;
    enqueue(async () => {
      if ((await ctl.press(now())) === "locked") buzz(30);
    });
  });
  b.addEventListener("contextmenu", (ev) => ev.preventDefault());
}

// ---------------------------------------------------------------- drawing

const STATE_KEYS = {
  [S.CONNECTING]: "connecting", [S.WAIT_SEAT]: "waiting", [S.IDLE]: "idle",
  [S.PROGRAMMING]: "programming", [S.LOCKED]: "locked", [S.ALLLOCKED]: "alllocked",
  [S.REVEALED]: "revealed", [S.ERROR]: "error",
};

function renderLink() {
  const el = $("link");
  if (!ctl) return;
  let text;
  let cls;
  if (ctl.session.online && ws) {
    text = "online";
    cls = "ok";
  } else if (ws && ws.readyState === WebSocket.CONNECTING) {
    text = "connecting…";
    cls = "wait";
  } else if (ws) {
    text = "joining…";
    cls = "wait";
  } else if (stopped) {
    text = "offline";
    cls = "bad";
  } else {
    const s = Math.max(1, Math.ceil((retryAt - Date.now()) / 1000));
    text = `offline — retrying in ${s} s`;
    cls = "bad";
  }
  if (el.textContent !== text) el.textContent = text;
  el.className = "link " + cls;
  document.body.dataset.link = cls;
}

const seatName = (seat) => `Seat ${seat + 1}`;

function say(text) {
  $("say").textContent = text;
}

let wakeLock = null;

async function keepAwake() {
  // the screen stays on while a question is open (where the browser allows it)
  if (wakeLock || !navigator.wakeLock || document.visibilityState !== "visible") return;
  try {
    wakeLock = await navigator.wakeLock.request("screen");
    wakeLock.addEventListener("release", () => { wakeLock = null; });
  } catch {
    wakeLock = null;
  }
}

function render() {
  if (!ctl) return;
  ctl.changed = false;
  for (const ev of ctl.events.splice(0)) {
    // felt, and said to a screen reader (the page's polite live region)
    if (ev === "prompt") {
      buzz(15);
      keepAwake();
      say("New question: " + (ctl.prompt ? ctl.prompt.text : ""));
    } else if (ev === "alllocked") {
      buzz(20);
      say("Everyone has locked: revealing.");
    } else if (ev === "revealed") {
      buzz([30, 30, 30]);
      say("Revealed. " + (ctl.results ? ctl.results.summary : ""));
    }
  }
  const st = ctl.viewState();
  document.body.dataset.state = STATE_KEYS[st] || "idle";
  debug.state = STATE_KEYS[st];
  const seatText = ctl.seat === null ? "no seat yet"
    : ctl.seat < 0 ? "waiting for a seat"
      : `${seatName(ctl.seat)} · ${ctl.name || "#" + ctl.colour}`;
  $("seat-text").textContent = seatText;
  document.documentElement.style.setProperty("--seat", "#" + (ctl.colour || "888888"));
  $("table-name").textContent = ctl.table ? "table " + ctl.table : "";
  renderLink();

  const headline = ctl.headline || (ctl.view && ctl.view.headline) || "";
  $("headline").hidden = !headline || st === S.PROGRAMMING;
  $("headline").textContent = headline;

  const p = ctl.prompt;
  const rec = ctl.record;
  let title = "";
  let line = "";
  switch (st) {
    case S.CONNECTING:
      title = rec ? "Locked — reconnecting…" : "Connecting to the table…";
      line = rec ? "Your lock is kept on this phone; it comes back with the link." : "";
      break;
    case S.WAIT_SEAT: title = "Waiting for a seat"; break;
    case S.IDLE: title = "Waiting for the next question…"; break;
    case S.PROGRAMMING:
      title = p.text;
      line = p.live ? "Everyone sees this as you dial it."
        : p.sealed ? "Dial your choice in secret, then lock it." : "Dial your answer, then send it.";
      break;
    case S.LOCKED:
      title = p ? p.text : rec && rec.text ? rec.text : "Locked";
      line = rec && rec.sealed
        ? "Locked. Only a sealed commitment left this phone" + (ctl.hostHasCommit ? "; the table holds it." : ".")
        : "Sent.";
      break;
    case S.ALLLOCKED: title = "All locked — revealing…"; line = "Every seat has locked: the choices are revealed together."; break;
    case S.REVEALED: title = "Waiting for the next question…"; break;
    case S.ERROR: title = "This phone cannot play"; line = ctl.error ? ctl.error.text : ""; break;
    default: break;
  }
  $("prompt-text").textContent = title;
  $("state-line").textContent = line;
  renderWheels(st);
  if (st !== S.PROGRAMMING) $("skip-note").textContent = "";

  const b = $("lock");
  let label = "Lock";
  let usable = false;
  if (st === S.PROGRAMMING) {
    label = p.sealed ? "Lock" : "Send";
    usable = true;
  } else if (st === S.LOCKED) {
    const canUnlock = (p ? p.unlock : rec && rec.unlock) && rec && rec.sealed;
    label = canUnlock ? "Locked — hold to unlock" : "Locked";
    usable = Boolean(canUnlock);
  } else if (st === S.ALLLOCKED) {
    label = "All locked";
  } else {
    label = "Waiting";
  }
  b.hidden = ![S.PROGRAMMING, S.LOCKED, S.ALLLOCKED].includes(st);
  const mayUnlock = p ? p.unlock && p.sealed : Boolean(rec && rec.unlock);
  $("lock-hint").textContent = !p || p.sealed
    ? "Tap to lock your choice." + (mayUnlock ? " Hold for a moment to unlock." : " It cannot be changed after.")
    : "Tap to send your answer.";
  b.textContent = label;
  b.setAttribute("aria-disabled", String(!usable));
  b.dataset.mode = st === S.PROGRAMMING ? "lock" : st === S.LOCKED ? "locked" : "wait";

  renderResult();
  renderMine();
  const notice = ctl.alarm ? ctl.alarm + (ctl.notice ? " — " + ctl.notice : "")
    : st === S.ERROR ? "" : ctl.notice || "";
  $("notice").textContent = notice;
  $("leave").hidden = Boolean(rec);
  $("rejoin").hidden = !(st === S.ERROR && ctl.error && [C.E_AUTH, C.E_DEVICE].includes(ctl.error.code));
  debug.ready = true;
}

function renderResult() {
  const r = ctl.results;
  $("result").hidden = !r;
  if (!r) return;
  $("result-title").textContent = !r.choices.length ? "Asked again"
    : r.verified ? "Revealed ✓ verified" : "Revealed";
  $("result-summary").textContent = r.summary;
  $("result-choices").replaceChildren(...r.choices.map(([seat, labels]) => h("li", {
    class: seat === ctl.seat ? "me" : null, "data-seat": seat,
  }, h("span", { class: "who" }, seat === ctl.seat ? "You" : seatName(seat)),
  h("span", { class: "what" }, labels))));
}

// The seat's own view (seatview): nicer words for the keys the games use, the rest as they are.
const LABELS = {
  hands: "Your hand", hand: "Your hand", tokens: "Your bonus tokens", drawing: "You draw",
  offer: "Offered to you", role: "Your role", energy: "Energy", fuel: "Fuel",
  alive: "Still racing", zones: "Zones", cubes: "Cubes", bonus: "Bonus", scores: "Score",
  score: "Score", turns: "Turns", edges: "Edges", played: "Played", reserve: "Reserve",
  lost: "Lost", initiative: "Initiative", controllers: "Your controllers",
};
const SKIP = new Set(["you", "seat", "too_big", "controllers"]);
const PAIRS = new Set(["drawing", "offer"]);  // [seat, what]: what that seat is given

/** A value of the view, as far as it is this seat's: a per-seat list whose entry for this
 * seat is a list (the others' are counts) gives that entry; a [seat, what] pair gives `what`
 * for this seat and nothing for another. */
function ownPart(v, seat, key) {
  if (PAIRS.has(key) && Array.isArray(v) && v.length === 2 && Number.isInteger(v[0])) {
    return v[0] === seat ? v[1] : undefined;
  }
  if (Array.isArray(v) && v.length > seat && seat >= 0 && Array.isArray(v[seat])
      && v.every((x, k) => k === seat || typeof x === "number")) {
    return v[seat];
  }
  if (Array.isArray(v) && v.length === 2 && Number.isInteger(v[0]) && Array.isArray(v[1])) {
    return v[0] === seat ? v[1] : undefined;
  }
  return v;
}

const SUITS = { H: "♥", D: "♦", S: "♠", C: "♣" };

function show(v, game) {
  if (game === "pipcycle" && typeof v === "string" && /^\d+[HDSC]$/.test(v)) {
    return v.slice(0, -1) + SUITS[v.slice(-1)];  // a card: 5S -> 5♠
  }
  if (Array.isArray(v)) return v.length ? v.map((x) => show(x, game)).join(", ") : "none";
  if (v === null || v === undefined) return "—";
  if (v === true) return "yes";
  if (v === false) return "no";
  if (typeof v === "object") {
    return Object.entries(v).map(([k, x]) => `${k} ${show(x, game)}`).join(", ");
  }
  return String(v);
}

/** The seat's view in two panels: what only this seat may know (`private`), and its own
 * figures that the table screen shows everyone too (`own`). */
function renderMine() {
  const v = ctl.view;
  const parts = { private: [], own: [] };
  if (v && v.phase !== "menu") {
    const seat = Number.isInteger(v.seat) ? v.seat : ctl.seat;
    for (const part of ["private", "own"]) {
      const o = v[part];
      if (!o || typeof o !== "object") continue;
      for (const [k, raw] of Object.entries(o)) {
        if (SKIP.has(k)) continue;
        const val = ownPart(raw, seat, k);
        if (val === undefined) continue;
        parts[part].push([LABELS[k] || k.replace(/_/g, " "), show(val, v.game), k]);
      }
    }
    if (v.private && v.private.too_big) {
      parts.private.push(["Note", "your view is too large to show here", "too_big"]);
    }
  }
  for (const [panel, list, items] of [["mine", "mine-list", parts.private],
                                       ["seat", "seat-list", parts.own]]) {
    $(panel).hidden = !items.length;
    $(list).replaceChildren(...items.flatMap(([label, text, key]) => [
      h("dt", { "data-key": key }, label), h("dd", { "data-key": key }, text)]));
  }
}

// ---------------------------------------------------------------- start

async function start(p) {
  stopped = false;
  const record = await store.get("lock");
  const closed = await store.get("closed");
  ctl = new Controller({ uid: p.uid, key: C.deviceKey(p.key), store: store.lockStore,
                         record, closed });
  ctl.table = p.table;
  debug.ctl = ctl;
  debug.durable = store.durable;
  document.body.dataset.view = "play";
  $("pair-view").hidden = true;
  $("play-view").hidden = false;
  render();
  connect();
}

async function boot() {
  buildWheels();
  lockButton();
  $("pair-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    pair($("code").value);
  });
  $("leave").addEventListener("click", () => {
    if (ctl && ctl.record) return;
    if (window.confirm("Leave this table? You will need a new join code to come back.")) {
      forgetPairing("You left the table. Join again with a code.");
    }
  });
  document.addEventListener("click", (ev) => {
    if (ev.target && ev.target.id === "rejoin") forgetPairing("");
  });
  setInterval(tick, 50);
  let p = await store.get("pairing");
  if (!(p && p.uid && C.deviceKey(p.key))) p = null;
  const code = new URLSearchParams(location.search).get("code");
  history.replaceState(null, "", location.pathname);  // a reload must not use it again
  const held = p ? await store.get("lock") : null;
  if (code && !held) {
    // a code scanned or followed on purpose: join with it; if the table refuses it, a
    // phone already at a seat goes back there, saying why
    showPairing("");
    $("code").value = code;
    if (await pair(code) || !p) return;
    const why = $("pair-error").textContent;
    await start(p);
    ctl.notice = "that join code was not used: " + why;
    render();
  } else if (p) {
    await start(p);
    if (code) {
      ctl.notice = "you hold a locked choice here: the join code was not used";
      render();
    }
  } else {
    showPairing("");
  }
}

boot();

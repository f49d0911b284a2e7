// The phone controller's protocol state machine: the firmware's core/session.py,
// core/wheels.py and core/controller.py in JavaScript, sans I/O. The page (phone.js) feeds it
// decoded frames, wheel turns, presses and ticks, one at a time (each may await a hash or the
// store), and writes whatever collects in session.out to the WebSocket.
//
// The sealed guarantees are the firmware's: on lock of a sealed prompt only the commitment
// leaves (the selection and nonce are written to the store first); the reveal goes out only
// after an `alllocked` that lists this seat's own commitment; a `revealed` is shown only
// after its own reveal and every other seat's commitment are checked.
"use strict";

import * as C from "./codec.js";

export const STATES = {
  CONNECTING: "connecting", WAIT_SEAT: "waiting for seat", IDLE: "idle",
  PROGRAMMING: "programming", LOCKED: "locked", ALLLOCKED: "all locked",
  REVEALED: "revealed", ERROR: "error",
};
const S = STATES;

export const MAX_IN_FLIGHT = 4;
const SEEN = 16;
const CLOSED = 16;
export const RTO = [250, 2000];  // the WebSocket link: as serial (the host's side does too)
export const SILENCE_MS = 3000;  // the host pings every second: three missed = link lost
const DIAL_MS = 100;
// As the firmware's, but uid_in_use: after a WiFi drop the host refuses the new link until
// it has noticed the old one is silent (3 s), then identifies again: a phone waits for that
// instead of showing an error.
const FATAL = [C.E_VERSION, C.E_TABLE, C.E_DEVICE, C.E_SEAT, C.E_AUTH];
const OLD_LINK = "the table still holds this phone's old link: joining again in a moment";
export const FW_VERSION = "page-1";

// ---------------------------------------------------------------- session (core/session.py)

export class Session {
  constructor(rto = RTO) {
    this.rto0 = rto[0];
    this.rtoMax = rto[1];
    this.seq = 0;
    this.online = false;
    this.inflight = [];  // [seq, frame, due, rto, name, args]
    this.queue = [];     // [name, args]
    this.out = [];
    this.seenSeqs = new Array(SEEN).fill(0);
    this.seenI = 0;
  }

  restart(now, firstName, firstArgs) {
    const pending = this.inflight.map((e) => [e[4], e[5]]).concat(this.queue);
    this.inflight = [];
    this.queue = [[firstName, firstArgs]].concat(pending.filter((q) => q[0] !== firstName));
    this.seq = 0;
    this.seenSeqs.fill(0);
    this.online = true;
    this.pump(now);
  }

  offline() {
    if (!this.online) return;
    this.online = false;
    this.queue = this.inflight.map((e) => [e[4], e[5]]).concat(this.queue);
    this.inflight = [];
  }

  send(name, args, now) {
    if (C.isReliable(name)) {
      this.queue.push([name, args]);
      this.pump(now);
    } else {
      this.out.push(C.encode(name, 0, args));
    }
  }

  pump(now) {
    while (this.online && this.queue.length && this.inflight.length < MAX_IN_FLIGHT) {
      const [name, args] = this.queue[0];
      const seq = this.seq >= C.MAX_SEQ ? 1 : this.seq + 1;
      const frame = C.encode(name, seq, args);
      this.inflight.push([seq, frame, now + this.rto0, this.rto0, name, args]);
      this.queue.shift();
      this.seq = seq;
      this.out.push(frame);
    }
  }

  acked(ref, now) {
    const i = this.inflight.findIndex((e) => e[0] === ref);
    if (i < 0) return false;
    this.inflight.splice(i, 1);
    this.pump(now);
    return true;
  }

  seen(seq) {
    return this.seenSeqs.includes(seq);
  }

  remember(seq) {
    this.seenSeqs[this.seenI] = seq;
    this.seenI = (this.seenI + 1) % SEEN;
  }

  tick(now) {
    if (!this.online) return;
    this.pump(now);
    for (const e of this.inflight) {
      if (now - e[2] >= 0) {
        this.out.push(e[1]);
        e[3] = Math.min(e[3] * 2, this.rtoMax);
        e[2] = now + e[3];
      }
    }
  }

  pending(name) {
    return this.inflight.some((e) => e[4] === name) || this.queue.some((q) => q[0] === name);
  }

  take() {
    const out = this.out;
    this.out = [];
    return out;
  }
}

// ---------------------------------------------------------------- wheels (core/wheels.py)

export const WHEEL_NAMES = ["Left", "Centre", "Right"];

export class Wheel {
  constructor(position, spec = null) {
    this.position = position;
    this.faces = null;
    this.allowed = 0;
    this.index = -1;
    if (spec !== null && spec !== undefined) {
      const [faces, allowed, start] = spec;
      this.faces = faces !== null ? faces : C.DEFAULT_FACES[position];
      this.allowed = Number(allowed);
      this.index = Number(start);
      if (!this.isAllowed(this.index)) this.step(1);
    }
  }

  get active() {
    return this.faces !== null;
  }

  isAllowed(i) {
    return Math.floor(this.allowed / 2 ** i) % 2 === 1;
  }

  /** Move by whole detents (sign = direction), skipping disallowed faces; the faces skipped
   * are returned (for the page to say why), and whether the wheel moved. */
  step(detents) {
    const skipped = [];
    if (this.faces === null || detents === 0) return { moved: false, skipped };
    const n = this.faces.length;
    const d = detents > 0 ? 1 : -1;
    let moved = false;
    for (let k = 0; k < detents * d; k++) {
      let i = this.index;
      for (let j = 0; j < n; j++) {
        i = (((i + d) % n) + n) % n;
        if (this.isAllowed(i)) break;
        if (!skipped.includes(i)) skipped.push(i);
      }
      if (i !== this.index) moved = true;
      this.index = i;
    }
    return { moved, skipped };
  }

  face() {
    return this.faces === null ? null : this.faces[this.index];
  }
}

export function fromPrompt(wheels) {
  return [0, 1, 2].map((i) => new Wheel(i, wheels[i]));
}

export function idleWheels() {
  return [new Wheel(0), new Wheel(1), new Wheel(2)];
}

const selection = (wheels) => wheels.map((w) => w.index);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// ---------------------------------------------------------------- the controller

export class Controller {
  /**
   * uid, key (bytes) from pairing; store: {saveLock(rec), clearLock(), saveClosed(pids)}
   * (async, IndexedDB in the page); record / closed: what the store held at load.
   */
  constructor({ uid, key, store, record = null, closed = null, caps = ["seatview"],
                silenceMs = SILENCE_MS }) {
    this.uid = uid;
    this.key = key;
    this.store = store;
    this.caps = caps;
    this.silenceMs = silenceMs;
    this.session = new Session(RTO);
    this.state = S.CONNECTING;
    this.linked = false;
    this.lastRx = 0;
    this.seat = null;
    this.colour = "ffffff";
    this.table = "";
    this.name = "";
    this.prompt = null;  // {pid, sealed, unlock, text, live, wheels}
    this.live = false;
    this.dial = false;
    this.dialAt = null;
    this.wheels = idleWheels();
    this.edited = false;
    this.programmingPid = null;
    this.hostHasCommit = false;
    this.results = null;  // {pid, choices, summary, verified}
    this.alarm = null;
    this.error = null;    // {code, text}
    this.notice = null;
    this.headline = "";
    this.view = null;     // the seat's own view (seatview), parsed
    this.closed = Array.isArray(closed) && closed.length === CLOSED ? closed : new Array(CLOSED).fill(-1);
    this.record = record && record.sealed && record.uid === uid ? record : null;
    if (this.record) {
      this.state = S.LOCKED;
      if (this.record.wheels) {  // shown while the host has not re-sent the prompt yet
        this.wheels = fromPrompt(this.record.wheels);
        this.wheels.forEach((w, i) => { w.index = this.record.sel[i]; });
      }
    }
    this.changed = true;
    this.mark = 0;
    this.events = [];  // what happened, for the page's haptics and announcements
  }

  send(name, args, now) {
    this.session.send(name, args, now);
  }

  set(state) {
    this.state = state;
    this.changed = true;
  }

  fail(code, reason) {
    this.error = { code, text: reason };
    this.set(S.ERROR);
  }

  pid() {
    if (this.record) return this.record.pid;
    if (this.prompt) return this.prompt.pid;
    return null;
  }

  wireState() {
    switch (this.state) {
      case S.LOCKED: return "locked";
      case S.ALLLOCKED: return "alllocked";
      case S.REVEALED: return "revealed";
      case S.PROGRAMMING: return this.edited ? "editing" : "idle";
      default: return "idle";
    }
  }

  snapshotArgs() {
    let c = null;
    if (this.record && this.record.sealed && this.state !== S.REVEALED) c = this.record.commitment;
    return [this.pid(), this.wireState(), c];
  }

  // ------------------------------------------------------------ inputs

  async handle(msg, now) {
    this.lastRx = now;
    if (!this.linked && this.session.online) {
      this.linked = true;
      this.changed = true;
    }
    if (msg instanceof C.DecodeError) {
      if (msg.name === "identify" && (msg.code === C.E_VERSION || msg.code === C.E_TABLE)) {
        await this.hello("");
        this.fail(msg.code, "host: " + msg.codeName() + " (reload the page: it may be old)");
      }
      return;
    }
    const t = msg.t;
    const seq = msg.seq;
    if (seq) {
      if (!this.session.online && t !== "welcome" && t !== "config") {
        this.send("error", [C.E_STATE, C.NO_SESSION, seq], now);
        return;
      }
      if (t !== "welcome" && this.session.seen(seq)) {
        this.session.out.push(C.encode("ack", 0, [seq]));
        return;
      }
      this.mark = this.session.out.length;
      if (await this.dispatch(t, msg, seq, now)) return;  // not now: the host sends it again
      this.session.remember(seq);
      this.session.out.splice(this.mark, 0, C.encode("ack", 0, [seq]));
      return;
    }
    this.mark = this.session.out.length;
    await this.dispatch(t, msg, seq, now);
  }

  async dispatch(t, msg, seq, now) {
    switch (t) {
      case "ack": this.session.acked(msg.ref, now); break;
      case "ping": this.send("pong", [msg.ms], now); break;
      case "identify": await this.hello(msg.challenge); break;
      case "welcome": this.welcome(msg, now); break;
      case "prompt": return this.onPrompt(msg, now);
      case "alllocked": await this.allLocked(msg, now); break;
      case "revealed": await this.revealed(msg, now); break;
      case "status":
        if (this.record && msg.pid === this.record.pid) {
          this.hostHasCommit = msg.state === "locked";
          this.changed = true;
        }
        break;
      case "headline":
        this.headline = msg.text.slice(0, 60);
        this.changed = true;
        break;
      case "seatview": this.seatview(msg); break;
      case "error": this.onError(msg); break;
      case "config":
        this.send("error", [C.E_CONFIG, "a phone is not provisioned over its link", seq], now);
        break;
      case "pong": break;
      default:
        if (["hello", "snapshot", "commit", "uncommit", "reveal", "dial"].includes(t)) {
          this.send("error", [C.E_DIRECTION, t + " goes controller to host", seq], now);
        }
    }
    return false;
  }

  async hello(challenge) {
    const mac = this.key ? await C.helloMac(this.key, challenge, this.uid) : "";
    this.session.out.push(C.encode("hello", 0, [C.PROTOCOL_VERSION, C.TABLE_HASH, FW_VERSION,
      "phone", this.uid, this.caps, mac]));
  }

  welcome(msg, now) {
    this.seat = msg.seat;
    this.colour = msg.colour;
    this.table = msg.table;
    this.name = msg.name;
    this.linked = true;
    this.error = null;
    if (this.notice === OLD_LINK) this.notice = null;  // joined again: it is over
    const rec = this.record;
    if (rec && rec.sealed) {
      if (this.state !== S.ALLLOCKED) this.set(S.LOCKED);
    } else if (this.seat < 0) {
      this.set(S.WAIT_SEAT);
    } else if ([S.CONNECTING, S.WAIT_SEAT, S.ERROR].includes(this.state) || rec) {
      if (rec) this.prompt = null;
      this.record = null;
      this.set(S.IDLE);
    }
    this.changed = true;
    this.session.restart(now, "snapshot", this.snapshotArgs());
  }

  onPrompt(msg, now) {
    const pid = msg.pid;
    if (this.closed.includes(pid)) return false;
    const rec = this.record;
    if (rec && rec.pid !== pid) return true;  // a lock on another prompt is not settled yet
    this.alarm = null;
    if (!rec) this.notice = null;
    this.prompt = { pid, sealed: msg.sealed, unlock: msg.unlock, text: msg.text,
                    live: msg.live && !msg.sealed, wheels: msg.wheels };
    this.live = msg.live && !msg.sealed;  // never live when sealed, whatever the host says
    this.dial = false;
    this.dialAt = null;
    this.results = null;
    if (rec && rec.pid === pid) {  // re-sent after a reconnect: stay locked
      this.wheels = fromPrompt(msg.wheels);
      this.wheels.forEach((w, i) => { w.index = rec.sel[i]; });
      if (!rec.sealed && !this.session.pending("reveal")) {
        this.send("reveal", [pid, rec.sel, rec.nonce], now);
      }
      if (this.state !== S.LOCKED && this.state !== S.ALLLOCKED) this.set(S.LOCKED);
      this.changed = true;
      return false;
    }
    if (this.state === S.PROGRAMMING && this.programmingPid === pid) {
      this.dial = this.live;
      return false;
    }
    this.programmingPid = pid;
    this.wheels = fromPrompt(msg.wheels);
    this.edited = false;
    this.set(S.PROGRAMMING);
    this.events.push("prompt");
    return false;
  }

  async allLocked(msg, now) {
    const pid = msg.pid;
    if (this.closed.includes(pid)) return;
    const rec = this.record;
    if (!rec || rec.pid !== pid || !rec.sealed) {
      this.send("error", [C.E_PROMPT, `no commitment for prompt ${pid}`, msg.seq], now);
      return;
    }
    const mine = msg.commits.some((k) => Array.isArray(k) && k[0] === this.seat
                                         && k[1] === rec.commitment && k.length === 2);
    if (!mine) {  // a forged or early all-locked: the selection stays here
      this.send("error", [C.E_MISMATCH, "alllocked lacks my commitment", msg.seq], now);
      return;
    }
    if (!rec.commits) {
      rec.commits = msg.commits;
      rec.state = "alllocked";
      await this.store.saveLock(rec);
    }
    if (!this.session.pending("reveal")) this.send("reveal", [pid, rec.sel, rec.nonce], now);
    this.set(S.ALLLOCKED);
    this.events.push("alllocked");
  }

  async revealed(msg, now) {
    const pid = msg.pid;
    if (this.closed.includes(pid)) return;
    const mine = this.pid();
    if (mine !== null && mine !== pid) {
      this.send("error", [C.E_PROMPT, `prompt ${pid} is not open`, msg.seq], now);
      return;
    }
    const rec = this.record;
    const v = msg.choices.length ? await this.check(msg, rec) : 0;
    this.alarm = null;
    if (v < 0) {
      this.alarm = "REVEAL MISMATCH";
      this.changed = true;
      this.send("error", [C.E_MISMATCH, "reveal does not verify", msg.seq], now);
      if (v === -1) return;  // not my choice: the lock record stays
    }
    await this.close(pid);
    this.notice = null;
    this.results = { pid, choices: msg.choices, summary: msg.summary, verified: v === 1,
                     mine: rec ? rec.sel : null };
    if (rec) await this.forget();
    this.prompt = null;
    this.programmingPid = null;
    this.wheels = idleWheels();
    this.set(S.REVEALED);
    this.events.push("revealed");
  }

  async close(pid) {
    if (!this.closed.includes(pid)) {
      this.closed.shift();
      this.closed.push(pid);
      await this.store.saveClosed(this.closed);
    }
  }

  /** 1: own reveal confirmed and every seat's reveal hashes to its commitment; 0: nothing to
   * check against; -1: own reveal missing or not mine; -2: another seat's does not verify. */
  async check(msg, rec) {
    const pid = msg.pid;
    const commits = rec ? rec.commits : null;
    let own = !rec;
    let good = 0;
    let last = -1;
    try {
      for (const entry of msg.reveals) {
        // malformed (as the firmware's unpacking refuses it): it confirms nothing
        if (!Array.isArray(entry) || entry.length !== 4 || !Number.isInteger(entry[0])
            || !Array.isArray(entry[1])) return -1;
        const [seat, sel, nonce, uid] = entry;
        if (rec && seat === this.seat) {
          if (!same([uid, sel, nonce], [this.uid, rec.sel, rec.nonce])) return -1;
          own = true;
        }
        for (const k of commits || []) {
          if (k[0] === seat && seat > last
              && (await C.verifyReveal(k[1], sel, nonce, pid, uid))) good += 1;
        }
        last = seat;
      }
    } catch {
      return -1;
    }
    if (!own) return -1;
    if (commits && commits.length && !(good === commits.length && good === msg.reveals.length)) {
      return -2;
    }
    return rec ? 1 : 0;
  }

  seatview(msg) {
    try {
      const view = JSON.parse(msg.view);
      if (view && typeof view === "object" && !Array.isArray(view)) {
        this.view = view;
        this.changed = true;
        return;
      }
    } catch {
      // a view that is not JSON: shown as nothing rather than as text
    }
    this.view = null;
    this.changed = true;
  }

  onError(msg) {
    const name = C.ERROR_NAMES[msg.code] || "error";
    if (msg.code === C.E_SPOOF) {
      this.notice = OLD_LINK;
      this.changed = true;
    } else if (FATAL.includes(msg.code)) {
      this.fail(msg.code, msg.detail || name);
    } else {
      this.notice = name.replace(/_/g, " ") + (msg.detail ? ": " + msg.detail : "");
      this.changed = true;
    }
  }

  async forget() {
    const sealed = this.record && this.record.sealed;
    this.record = null;
    this.hostHasCommit = false;
    if (sealed) await this.store.clearLock();
  }

  turn(wheel, detents, now) {
    if (this.state !== S.PROGRAMMING || detents === 0) return null;
    const w = this.wheels[wheel];
    if (!w.active) return null;
    const r = w.step(detents);
    if (r.moved) {
      this.changed = true;
      if (!this.edited) {
        this.edited = true;
        this.send("status", [this.prompt.pid, "editing"], now);
      }
      this.dial = this.live;
    }
    return r;
  }

  /** A tap of the lock button. */
  async press(now) {
    if (this.state === S.PROGRAMMING && this.prompt) {
      await this.lock(now);
      return "locked";
    }
    if (this.notice !== null) {
      this.notice = null;
      this.changed = true;
    }
    return null;
  }

  /** A long press (held 600 ms): unlock where the prompt allows it. */
  async hold(now) {
    if (this.alarm !== null && this.record) {
      await this.close(this.record.pid);
      await this.forget();
      this.alarm = null;
      this.prompt = null;
      this.set(S.IDLE);
      return "given up";
    }
    if (this.state === S.LOCKED && this.prompt && this.prompt.unlock && this.record
        && this.record.sealed) {
      await this.unlock(now);
      return "unlocked";
    }
    if (this.state === S.ALLLOCKED) {
      this.notice = "everyone has locked: too late to unlock";
      this.changed = true;
      return "refused";
    }
    if (this.state === S.LOCKED) {
      this.notice = "this question cannot be unlocked";
      this.changed = true;
      return "refused";
    }
    return null;
  }

  async lock(now) {
    const { pid, sealed } = this.prompt;
    const sel = selection(this.wheels);
    const nonce = C.newNonce();
    const nonceText = C.b64(nonce);
    if (sealed) {
      const c = await C.commitment(sel, nonce, pid, this.uid);
      const rec = { pid, sel, nonce: nonceText, commitment: c, sealed: true, state: "locked",
                    uid: this.uid, table: this.table, seat: this.seat, text: this.prompt.text,
                    wheels: this.prompt.wheels, unlock: this.prompt.unlock };
      await this.store.saveLock(rec);  // first: a lock is never only in memory
      this.record = rec;
      this.send("commit", [pid, c], now);
    } else {
      this.record = { pid, sel, nonce: nonceText, commitment: null, sealed: false };
      this.send("reveal", [pid, sel, nonceText], now);
    }
    this.hostHasCommit = false;
    this.set(S.LOCKED);
  }

  async unlock(now) {
    const rec = this.record;
    if (!rec || !rec.sealed) return;
    const pid = rec.pid;
    await this.forget();
    this.send("uncommit", [pid], now);
    this.send("status", [pid, "unlocked"], now);
    this.edited = true;
    this.set(S.PROGRAMMING);
  }

  tick(now) {
    const s = this.session;
    if (this.silenceMs && s.online && now - this.lastRx > this.silenceMs) this.linkLost();
    if (this.dial && this.live && this.state === S.PROGRAMMING && s.online) {
      if (this.dialAt === null || now - this.dialAt >= DIAL_MS) {
        this.dial = false;
        this.dialAt = now;
        s.send("dial", [this.prompt.pid, selection(this.wheels)], now);
      }
    }
    s.tick(now);
  }

  linkLost() {
    this.session.offline();
    if (this.linked) {
      this.linked = false;
      this.changed = true;
    }
  }

  viewState() {
    if (this.state === S.ERROR) return S.ERROR;
    if (!this.linked) return S.CONNECTING;
    return this.state;
  }
}

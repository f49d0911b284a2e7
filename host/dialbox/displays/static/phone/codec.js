// dialbox protocol v1 codec for the browser (and node): the third runtime of
// protocol/dialbox_protocol/codec.py, byte for byte. The message table, limits, error names
// and default faces come from table.js, GENERATED from the Python codec
// (protocol/tools/make_js_table.py); the behaviour is held to protocol/vectors.json and to
// the CPython codec on the differential fuzz inputs (tests/phone/test_codec_js.py).
//
// A frame is one line of printable ASCII: <compact JSON array><8 hex digits: CRC-32>\n.
// decodeFrame() and FrameReader never throw on bad input: they return a DecodeError.
// Integers beyond 2^53 decode as BigInt (exact, as Python's int); the page never meets them.
//
// Hashes: SHA-256 from WebCrypto (crypto.subtle) where the page has it. crypto.subtle
// exists only in a secure context (https, or http://localhost); a phone that opens the
// table's page over plain http on the local network has none, so a small SHA-256 of our
// own (sha256js below, FIPS 180-4) stands in. Both are checked against the vectors.
"use strict";

import * as T from "./table.js";

export * from "./table.js";

const enc = new TextEncoder();

// ---------------------------------------------------------------- message table

const BY_NAME = new Map(T.MESSAGES.map((m) => [m[0], m]));

export function messageSpec(name) {
  return BY_NAME.get(name) || null;
}

export function isReliable(name) {
  const m = BY_NAME.get(name);
  return Boolean(m && m[2]);
}

export class DecodeError {
  constructor(code, detail, name = null, seq = 0, field = null) {
    this.code = code;
    this.detail = detail;
    this.name = name;
    this.seq = seq;
    this.field = field;
  }
  codeName() {
    return T.ERROR_NAMES[this.code] || "error";
  }
  toString() {
    return `DecodeError(${this.codeName()}: ${this.detail})`;
  }
}

// ---------------------------------------------------------------- CRC-32 (IEEE, as zlib)

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function crcHex(bytes) {
  return crc32(bytes).toString(16).padStart(8, "0");
}

// ---------------------------------------------------------------- encoding

const isInt = (v) => (typeof v === "number" && Number.isInteger(v)) || typeof v === "bigint";

function intText(v) {
  return typeof v === "bigint" || !Number.isSafeInteger(v) ? BigInt(v).toString() : String(v);
}

function encStr(s, out) {
  out.push('"');
  for (const ch of s) {  // code points, as Python iterates a str
    const o = ch.codePointAt(0);
    if (ch === '"') out.push('\\"');
    else if (ch === "\\") out.push("\\\\");
    else if (o >= 32 && o < 127) out.push(ch);
    else if (o > 0xffff) out.push("?");  // outside the BMP: as the Python codec
    else out.push("\\u" + o.toString(16).padStart(4, "0"));
  }
  out.push('"');
}

function enc1(v, out) {
  if (v === null || v === undefined) out.push("null");
  else if (v === true) out.push("true");
  else if (v === false) out.push("false");
  else if (isInt(v)) out.push(intText(v));
  else if (typeof v === "string") encStr(v, out);
  else if (Array.isArray(v)) {
    out.push("[");
    v.forEach((x, i) => {
      if (i) out.push(",");
      enc1(x, out);
    });
    out.push("]");
  } else throw new Error("cannot encode " + String(v));
}

/** Compact, deterministic JSON text (ASCII only), exactly as codec.dumps. */
export function dumps(v) {
  const out = [];
  enc1(v, out);
  return out.join("");
}

/** One message as a frame: a string of ASCII (its bytes are the frame), newline-terminated.
 * Throws for a message the table does not describe (a programming error). */
export function encode(name, seq, args, check = true) {
  const spec = BY_NAME.get(name);
  if (!spec) throw new Error(`unknown message type '${name}'`);
  if (check) {
    const err = checkFields(spec, args);
    if (err) throw new Error(`${name}: ${err[1]}`);
  }
  const body = dumps([name, seq, ...args]);
  const frame = body + crcHex(enc.encode(body)) + "\n";
  if (frame.length > T.MAX_FRAME) {
    throw new Error(`${name} frame is ${frame.length} bytes, over ${T.MAX_FRAME}`);
  }
  return frame;
}

/** Encode a message given as an object {t, seq, field: value, ...}. */
export function encodeDict(msg) {
  const spec = BY_NAME.get(msg.t);
  if (!spec) throw new Error(`unknown message type '${msg.t}'`);
  return encode(spec[0], msg.seq || 0, spec[3].map(([f]) => (f in msg ? msg[f] : null)));
}

// ---------------------------------------------------------------- decoding

function typeOk(v, t) {
  switch (t) {
    case "i": return isInt(v);
    case "s": return typeof v === "string";
    case "b": return v === true || v === false;
    case "l": return Array.isArray(v);
    case "S": return v === null || typeof v === "string";
    case "I": return v === null || isInt(v);
    default: return false;
  }
}

function checkFields(spec, args) {
  const fields = spec[3];
  if (args.length !== fields.length) {
    return [null, `expects ${fields.length} fields, got ${args.length}`];
  }
  for (let i = 0; i < fields.length; i++) {
    const [f, t] = fields[i];
    if (!typeOk(args[i], t)) return [f, `field ${f} has the wrong type`];
  }
  return null;
}

function toBytes(line) {
  if (typeof line === "string") return enc.encode(line);
  if (line instanceof Uint8Array) return line;
  return new Uint8Array(line);
}

/** Decode one frame (a string, as a WebSocket text message, or bytes; with or without the
 * trailing newline). Returns {t, seq, field: value, ...} or a DecodeError. Never throws. */
export function decodeFrame(line) {
  try {
    return decode(toBytes(line));
  } catch (e) {
    return new DecodeError(T.E_INTERNAL, "decoder failure: " + e);
  }
}

const HEXDIGIT = (c) => (c >= 48 && c <= 57) || (c >= 97 && c <= 102);

function decode(line) {
  let n = line.length;
  if (n && line[n - 1] === 10) n -= 1;
  if (n && line[n - 1] === 13) n -= 1;
  if (n + 1 > T.MAX_FRAME) {
    return new DecodeError(T.E_OVERSIZE, `frame of ${n + 1} bytes is over ${T.MAX_FRAME}`);
  }
  if (n < 12) return new DecodeError(T.E_FRAME, `frame too short (${n} bytes)`);
  const body = line.subarray(0, n - 8);
  const crcText = line.subarray(n - 8, n);
  for (const b of body) {
    if (b < 32 || b > 126) {
      return new DecodeError(T.E_FRAME, "frame holds non-printable or non-ASCII bytes");
    }
  }
  const want = crcHex(body);
  let same = true;
  for (let i = 0; i < 8; i++) if (want.charCodeAt(i) !== crcText[i]) same = false;
  if (!same) {
    for (const c of crcText) {
      if (!HEXDIGIT(c)) {
        return new DecodeError(T.E_FRAME, "frame does not end in 8 lowercase hex digits");
      }
    }
    return new DecodeError(T.E_CRC, "checksum mismatch");
  }
  const arr = parseStrict(body);
  if (arr === undefined) return new DecodeError(T.E_JSON, "frame body is not valid JSON");
  if (!Array.isArray(arr) || arr.length < 2) {
    return new DecodeError(T.E_JSON, "frame body is not an array [type, seq, ...]");
  }
  const name = arr[0];
  const seq = arr[1];
  if (typeof name !== "string") return new DecodeError(T.E_JSON, "message type is not a string");
  if (!isInt(seq) || seq < 0 || seq > T.MAX_SEQ) {
    return new DecodeError(T.E_FIELDS, "sequence number out of range", name, 0, "seq");
  }
  const spec = BY_NAME.get(name);
  if (!spec) return new DecodeError(T.E_TYPE, "unknown message type " + name, name, seq);
  const args = arr.slice(2);
  if (name === "hello" || name === "identify") {
    const bad = checkVersion(name, seq, args);
    if (bad) return bad;
  }
  const err = checkFields(spec, args);
  if (err) return new DecodeError(T.E_FIELDS, err[1], name, seq, err[0]);
  if (spec[2] && seq == 0) {  // (== : 0 or 0n)
    return new DecodeError(T.E_FIELDS, "reliable message without a sequence number", name, 0,
      "seq");
  }
  const msg = { t: name, seq };
  spec[3].forEach(([f], i) => { msg[f] = args[i]; });
  if (name === "prompt") {
    const bad = checkWheels(msg.wheels);
    if (bad) return new DecodeError(T.E_FIELDS, bad, name, seq, "wheels");
  } else if (name === "reveal" || name === "dial") {
    const bad = checkSelection(msg.sel);
    if (bad) return new DecodeError(T.E_FIELDS, bad, name, seq, "sel");
  }
  return msg;
}

function checkVersion(name, seq, args) {
  if (args.length < 2 || !isInt(args[0]) || typeof args[1] !== "string") return null;
  if (args[0] != T.PROTOCOL_VERSION) {
    return new DecodeError(T.E_VERSION,
      `protocol version ${intText(args[0])}, this side speaks ${T.PROTOCOL_VERSION}`,
      name, seq, "proto");
  }
  if (args[1] !== T.TABLE_HASH) {
    return new DecodeError(T.E_TABLE, `message table ${args[1]}, this side has ${T.TABLE_HASH}`,
      name, seq, "table_hash");
  }
  return null;
}

// The strict JSON subset of strictjson.py (docs/protocol.md, "Strictness"), checked and
// parsed in one pass over the bytes: arrays at most JSON_DEPTH deep, strings with JSON's
// escapes but no \u escape of a surrogate, integers -?(0|[1-9][0-9]*), true/false/null,
// spaces between tokens. Returns the value, or undefined for a body it refuses.
function parseStrict(b) {
  const n = b.length;
  let i = 0;
  const stack = [];
  let cur = null;  // the array being filled
  let top;         // the top-level value
  let state = 0;   // 0: a value must come; 1: a value or "]"; 2: "," or "]"
  const put = (v) => {
    if (cur) cur.push(v);
    else top = v;
  };
  while (i < n) {
    let c = b[i++];
    if (c === 32) continue;
    if (state === 2) {
      if (stack.length === 0 && cur === null) return undefined;  // more after the value
      if (c === 44) state = 0;
      else if (c === 93) {
        cur = stack.pop();
        state = 2;
      } else return undefined;
      continue;
    }
    if (c === 91) {
      if (stack.length + 1 > T.JSON_DEPTH) return undefined;
      const a = [];
      put(a);
      if (cur) stack.push(cur);
      else stack.push(null);
      cur = a;
      state = 1;
    } else if (c === 93) {
      if (state !== 1) return undefined;  // "[1,]"
      cur = stack.pop();
      state = 2;
    } else {
      state = 2;
      if (c === 34) {
        let s = "";
        let from = i;
        for (;;) {
          if (i >= n) return undefined;
          c = b[i++];
          if (c === 34) break;
          if (c !== 92) continue;
          s += String.fromCharCode(...b.subarray(from, i - 1));
          if (i >= n) return undefined;
          c = b[i++];
          if (c === 117) {
            if (i + 4 > n) return undefined;
            let code = 0;
            for (let k = i; k < i + 4; k++) {
              const d = b[k] | 32;
              let v;
              if (d >= 48 && d <= 57) v = d - 48;
              else if (d >= 97 && d <= 102) v = d - 87;
              else return undefined;
              code = code * 16 + v;
            }
            if (code >= 0xd800 && code <= 0xdfff) return undefined;
            s += String.fromCharCode(code);
            i += 4;
          } else {
            const esc = { 34: '"', 92: "\\", 47: "/", 98: "\b", 102: "\f", 110: "\n",
              114: "\r", 116: "\t" }[c];
            if (esc === undefined) return undefined;
            s += esc;
          }
          from = i;
        }
        s += String.fromCharCode(...b.subarray(from, i - 1));
        put(s);
      } else if (c === 45 || (c >= 48 && c <= 57)) {
        const start = i - 1;
        if (c === 45) {
          if (i >= n) return undefined;
          c = b[i++];
          if (!(c >= 48 && c <= 57)) return undefined;
        }
        if (c !== 48) while (i < n && b[i] >= 48 && b[i] <= 57) i++;
        const text = String.fromCharCode(...b.subarray(start, i));
        const num = Number(text);
        put(Number.isSafeInteger(num) ? (Object.is(num, -0) ? 0 : num) : BigInt(text));
      } else if (c === 116 && b[i] === 114 && b[i + 1] === 117 && b[i + 2] === 101) {
        i += 3;
        put(true);
      } else if (c === 102 && b[i] === 97 && b[i + 1] === 108 && b[i + 2] === 115
                 && b[i + 3] === 101) {
        i += 4;
        put(false);
      } else if (c === 110 && b[i] === 117 && b[i + 1] === 108 && b[i + 2] === 108) {
        i += 3;
        put(null);
      } else return undefined;
    }
  }
  if (state !== 2 || cur !== null) return undefined;
  return top;
}

/** Strict JSON check alone (strictjson.json_strict), for tests. */
export function jsonStrict(bytes) {
  return parseStrict(toBytes(bytes)) !== undefined;
}

/** Splits a byte stream into frames (as codec.FrameReader): a line over MAX_FRAME is dropped
 * whole and reported once (oversize); blank lines are ignored. */
export class FrameReader {
  constructor(maxFrame = T.MAX_FRAME) {
    this.buf = new Uint8Array(maxFrame);
    this.n = 0;
    this.overflow = false;
    this.max = maxFrame;
  }
  push(b) {
    if (b === 10) {
      const n = this.n;
      this.n = 0;
      if (this.overflow) {
        this.overflow = false;
        return new DecodeError(T.E_OVERSIZE, `line longer than ${this.max} bytes dropped`);
      }
      if (n === 0 || (n === 1 && this.buf[0] === 13)) return null;
      return decodeFrame(this.buf.slice(0, n));
    }
    if (this.overflow) return null;
    if (this.n >= this.max - 1) {
      this.overflow = true;
      this.n = 0;
      return null;
    }
    this.buf[this.n++] = b;
    return null;
  }
  feed(data) {
    const out = [];
    for (const b of toBytes(data)) {
      const r = this.push(b);
      if (r !== null) out.push(r);
    }
    return out;
  }
}

export function checkWheels(wheels) {
  if (wheels.length !== T.WHEELS) return "wheels must list exactly 3 wheels";
  let w = 0;
  for (const wheel of wheels) {
    if (wheel === null) {
      w += 1;
      continue;
    }
    if (!Array.isArray(wheel) || wheel.length !== 3) {
      return `wheel ${w} must be null or [faces, allowed, start]`;
    }
    const [faces, allowed, start] = wheel;
    let count;
    if (faces === null) count = T.DEFAULT_FACES[w].length;
    else if (Array.isArray(faces)) {
      count = faces.length;
      if (count === 0 || count > T.MAX_FACES) {
        return `wheel ${w} must have 1 to ${T.MAX_FACES} faces`;
      }
      for (const f of faces) {
        if (!Array.isArray(f) || f.length !== 3 || typeof f[0] !== "string" || !isInt(f[1])
            || typeof f[2] !== "string" || f[2].length !== 6) {
          return `wheel ${w} has a face that is not [label, value, rrggbb]`;
        }
      }
    } else return `wheel ${w} faces must be null or a list`;
    if (!isInt(allowed) || allowed <= 0 || allowed >= 2 ** count) {
      return `wheel ${w} allowed mask must name at least one of its ${count} faces`;
    }
    if (!isInt(start) || start < 0 || start >= count) return `wheel ${w} start face out of range`;
    w += 1;
  }
  return null;
}

export function checkSelection(sel) {
  if (sel.length !== T.WHEELS) return "a selection names exactly 3 wheels";
  for (const v of sel) {
    if (!isInt(v) || v < -1 || v >= T.MAX_FACES) {
      return `a selection holds face indices -1..${T.MAX_FACES - 1}`;
    }
  }
  return null;
}

// ---------------------------------------------------------------- base64, SHA-256, HMAC

/** Standard base64 without padding. */
export function b64(bytes) {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/=+$/, "");
}

/** Inverse of b64() (padding optional); null for text that is not base64. */
export function unb64(text) {
  if (typeof text !== "string") return null;
  const t = text.replace(/=+$/, "");
  if (!/^[A-Za-z0-9+/]*$/.test(t) || t.length % 4 === 1) return null;
  try {
    const bin = atob(t + "=".repeat((4 - (t.length % 4)) % 4));
    return Uint8Array.from(bin, (ch) => ch.charCodeAt(0));
  } catch {
    return null;
  }
}

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let k = 0;
  for (const p of parts) {
    out.set(p, k);
    k += p.length;
  }
  return out;
}

const K256 = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

/** SHA-256 (FIPS 180-4) in plain JS: for pages without crypto.subtle (no secure context). */
export function sha256js(data) {
  const len = data.length;
  const total = Math.ceil((len + 9) / 64) * 64;
  const m = new Uint8Array(total);
  m.set(data);
  m[len] = 0x80;
  const dv = new DataView(m.buffer);
  dv.setUint32(total - 8, Math.floor(len / 0x20000000));
  dv.setUint32(total - 4, (len << 3) >>> 0);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f,
    0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x, r) => (x >>> r) | (x << (32 - r));
  for (let off = 0; off < total; off += 64) {
    for (let t = 0; t < 16; t++) w[t] = dv.getUint32(off + 4 * t);
    for (let t = 16; t < 64; t++) {
      const x = w[t - 15];
      const y = w[t - 2];
      const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3);
      const s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10);
      w[t] = (w[t - 16] + s0 + w[t - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, hh] = h;
    for (let t = 0; t < 64; t++) {
      const S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const ch = (e & f) ^ (~e & g);
      const t1 = (hh + S1 + ch + K256[t] + w[t]) >>> 0;
      const S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) >>> 0;
      hh = g; g = f; f = e; e = (d + t1) >>> 0;
      d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  const out = new Uint8Array(32);
  const odv = new DataView(out.buffer);
  for (let t = 0; t < 8; t++) odv.setUint32(4 * t, h[t]);
  return out;
}

/** Which SHA-256 the page uses: "webcrypto" where crypto.subtle exists, else "js". Tests
 * may force "js" with useSha256("js"). */
let shaKind = globalThis.crypto && globalThis.crypto.subtle ? "webcrypto" : "js";
export function useSha256(kind) {
  if (kind) shaKind = kind;
  return shaKind;
}

export async function sha256(data) {
  if (shaKind === "webcrypto") {
    return new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", data));
  }
  return sha256js(data);
}

/** HMAC-SHA256 (RFC 2104) over SHA-256, as codec.hmac_sha256 (any key length, even 0). */
export async function hmacSha256(key, data) {
  let k = key;
  if (k.length > 64) k = await sha256(k);
  const ipad = new Uint8Array(64);
  const opad = new Uint8Array(64);
  for (let i = 0; i < 64; i++) {
    const x = i < k.length ? k[i] : 0;
    ipad[i] = x ^ 0x36;
    opad[i] = x ^ 0x5c;
  }
  const inner = await sha256(concat(ipad, data));
  return sha256(concat(opad, inner));
}

/** The hello's proof of the device key (docs/protocol.md, "Device identity"). */
export async function helloMac(key, challenge, uid) {
  const mac = await hmacSha256(key, enc.encode(`dialbox-hello-v1|${challenge}|${uid}`));
  return b64(mac.subarray(0, T.MAC_BYTES));
}

/** The device key (bytes) from its base64 text, or null unless it is KEY_MIN..KEY_MAX bytes. */
export function deviceKey(text) {
  if (!text) return null;
  const key = unb64(text);
  if (key === null || key.length < T.KEY_MIN || key.length > T.KEY_MAX) return null;
  return key;
}

// ---------------------------------------------------------------- commit-reveal

/** Canonical text of a selection: face indices per wheel, -1 for an inactive wheel (as
 * Python's str() of each: a value that is not an index gives what Python would write). */
export function selectionText(sel) {
  return sel.map((v) => (isInt(v) ? intText(v) : v === true ? "True" : v === false ? "False"
    : v === null ? "None" : String(v))).join(",");
}

/** The commitment sent on lock: base64 (no padding) of the first 16 bytes of
 * SHA-256("dialbox-commit-v1|<uid>|<pid>|<selection text>|" + nonce bytes). */
export async function commitment(sel, nonce, pid, uid) {
  const text = `dialbox-commit-v1|${uid}|${intText(pid)}|${selectionText(sel)}|`;
  const digest = await sha256(concat(enc.encode(text), nonce));
  return b64(digest.subarray(0, T.COMMIT_BYTES));
}

/** True when a revealed selection + nonce (base64 text) hashes to the commitment. */
export async function verifyReveal(commitText, sel, nonceText, pid, uid) {
  const nonce = unb64(nonceText);
  if (nonce === null || nonce.length !== T.NONCE_BYTES) return false;
  return (await commitment(sel, nonce, pid, uid)) === commitText;
}

/** A fresh nonce: NONCE_BYTES from the browser's CSPRNG. */
export function newNonce() {
  const n = new Uint8Array(T.NONCE_BYTES);
  globalThis.crypto.getRandomValues(n);
  return n;
}

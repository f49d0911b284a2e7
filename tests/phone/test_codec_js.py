"""The phone page's JavaScript codec, a third runtime of protocol v1, held to the Python codec.

host/dialbox/displays/static/phone/codec.js must agree byte for byte with
protocol/dialbox_protocol/codec.py. Two things keep it in step:

- table.js (the message table, its hash, limits, error names, default faces) is GENERATED from
  the Python codec by protocol/tools/make_js_table.py; a test fails when it is out of date;
- the behaviour is checked here against protocol/vectors.json (every valid frame encoded and
  decoded, every invalid frame's error, every stream, commitments, HMACs, hello MACs) and
  against the CPython codec on 20,000 of the differential fuzz inputs
  (tests/protocol/test_differential.py): every result (the message, or the error's code,
  type, seq, field and detail) must be the same.

It runs under node (WebCrypto as globalThis.crypto.subtle, and the plain-JS SHA-256 the page
falls back to without a secure context) and, for the vectors, in Chromium's page context.
node is required: without it these tests fail and say so (they never skip).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dialbox.paths import protocol_dir, repo_root
from dialbox_protocol import codec
from tests.phone.page_helpers import PHONE_STATIC, chromium, static_server
from tests.protocol.test_differential import MP_DIFF, inputs

VECTORS: dict[str, Any] = json.loads((protocol_dir() / "vectors.json").read_text())
CODEC_JS = PHONE_STATIC / "codec.js"
DIFF_INPUTS = 20_000

pytestmark = [pytest.mark.timeout(300)]

# The checks, as one ES module: run by node with the job on stdin, or in a page (window.runJob).
RUNNER = r"""
export async function runJob(C, job) {
  const out = { valid: [], invalid: [], streams: [], diff: [], crypto: {} };
  const bytes = (hex) => Uint8Array.from(hex.match(/../g) || [], (h) => parseInt(h, 16));
  const hexOf = (b) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  const str = (s) => {
    let o = '"';
    for (const ch of s) {
      const c = ch.codePointAt(0);
      if (c >= 32 && c < 127 && ch !== '"' && ch !== "\\") o += ch;
      else if (c <= 0xffff) o += "\\u" + c.toString(16).padStart(4, "0");
      else o += "\\U" + c.toString(16).padStart(8, "0");
    }
    return o + '"';
  };
  const valueText = (v) => {  // as tests/protocol/mp_diff.py value_text
    if (v === null || v === undefined) return "null";
    if (v === true) return "true";
    if (v === false) return "false";
    if (typeof v === "number" || typeof v === "bigint") return BigInt(v).toString();
    if (typeof v === "string") return str(v);
    if (Array.isArray(v)) return "[" + v.map(valueText).join(",") + "]";
    const keys = Object.keys(v).sort();
    return "{" + keys.map((k) => str(k) + ":" + valueText(v[k])).join(",") + "}";
  };
  const resultText = (r) => r instanceof C.DecodeError
    ? `err ${r.code} ${valueText(r.name)} ${valueText(r.seq)} ${valueText(r.field)} `
      + valueText(r.detail)
    : "ok " + valueText(r);
  const name = (r) => (r instanceof C.DecodeError ? r.codeName() : r.t);
  const plain = (m) => JSON.parse(JSON.stringify(
    m, (k, v) => (typeof v === "bigint" ? String(v) : v)));

  for (const c of job.valid) {
    const m = c.message;
    const spec = C.messageSpec(m.t);
    const args = spec[3].map(([f]) => m[f]);
    const frame = new TextDecoder("latin1").decode(bytes(c.frame_hex));
    const dec = C.decodeFrame(bytes(c.frame_hex));
    out.valid.push({
      name: c.name,
      encode: C.encode(m.t, m.seq, args) === frame,
      encode_dict: C.encodeDict(m) === frame,
      decoded: dec instanceof C.DecodeError ? resultText(dec) : plain(dec),
      decoded_text: C.decodeFrame(frame.replace(/\n$/, "")) instanceof C.DecodeError ? "err" : "ok",
      reencoded: dec instanceof C.DecodeError ? null : C.encodeDict(dec) === frame,
    });
  }
  for (const c of job.invalid) {
    const r = C.decodeFrame(bytes(c.frame_hex));
    out.invalid.push({ name: c.name, got: r instanceof C.DecodeError ? r.codeName() : "accepted",
                       text: resultText(r) });
  }
  for (const c of job.streams) {
    const reader = new C.FrameReader();
    const whole = reader.feed(bytes(c.data_hex)).map(name);
    const one = new C.FrameReader();
    const bytewise = [];
    for (const b of bytes(c.data_hex)) {
      const r = one.push(b);
      if (r !== null) bytewise.push(name(r));
    }
    out.streams.push({ name: c.name, whole, bytewise });
  }
  for (const kind of job.sha_kinds) {
    C.useSha256(kind);
    const ce = job.commitment_example;
    const cr = { hmac: [] };
    cr.commitment = await C.commitment(ce.sel, bytes(ce.nonce_hex), ce.pid, ce.uid);
    const n64 = C.b64(bytes(ce.nonce_hex));
    cr.verify = await C.verifyReveal(ce.commitment, ce.sel, n64, ce.pid, ce.uid);
    cr.verify_other = await C.verifyReveal(ce.commitment, [0, 0, -1], n64, ce.pid, ce.uid);
    for (const h of job.hmac) {
      cr.hmac.push(hexOf(await C.hmacSha256(bytes(h.key_hex), bytes(h.data_hex))));
    }
    const he = job.hello_mac_example;
    cr.hello_mac = await C.helloMac(bytes(he.key_hex), he.challenge, he.uid);
    cr.sha = [];
    for (const d of job.sha_inputs) cr.sha.push(hexOf(await C.sha256(bytes(d))));
    out.crypto[kind] = cr;
  }
  C.useSha256(job.sha_kinds[0]);
  for (const h of job.diff) out.diff.push(resultText(C.decodeFrame(bytes(h))));
  out.table_hash = C.TABLE_HASH;
  // the table hash recomputed here from the generated table text
  const tableSha = await C.sha256(new TextEncoder().encode(C.TABLE_TEXT));
  out.table_hash_computed = hexOf(tableSha.subarray(0, 4));
  const nonce = C.newNonce();
  out.nonce_len = nonce.length;
  out.b64 = [C.b64(new Uint8Array([])), C.b64(new Uint8Array([1])), C.b64(new Uint8Array([1, 2])),
             C.b64(new Uint8Array([1, 2, 3]))];
  out.unb64_bad = [C.unb64("a"), C.unb64("!!!!"), C.unb64(5)];
  out.device_key = [C.deviceKey(""), C.deviceKey("AAEC"), hexOf(C.deviceKey(job.key_b64) || [])];
  out.dumps = C.dumps(["x\u00e9\u{1F600}\"\\\n", -0, 9007199254740993n, [true, false, null]]);
  return out;
}
"""

NODE_MAIN = r"""
import { runJob } from "./runner.mjs";
const C = await import(process.argv[2]);
let text = "";
for await (const chunk of process.stdin) text += chunk;
process.stdout.write(JSON.stringify(await runJob(C, JSON.parse(text))));
"""


def node() -> str:
    path = shutil.which("node")
    assert path is not None, (
        "node is missing: the phone page's codec is checked under Node.js (20+, which has "
        "WebCrypto). Install it (apt-get install nodejs) and run the tests again.")
    return path


def sha_inputs() -> list[str]:
    """Lengths around SHA-256's block and padding boundaries."""
    return [bytes(range(256))[:n].hex() for n in (0, 1, 3, 55, 56, 63, 64, 65, 119, 120, 200)]


def job(diff: int = DIFF_INPUTS, kinds: tuple[str, ...] = ("webcrypto", "js")) -> dict[str, Any]:
    def hx(text: str) -> str:
        return text.encode("latin-1").hex()

    return {
        "valid": [dict(c, frame_hex=hx(c["frame"])) for c in VECTORS["valid"]],
        "invalid": [dict(c, frame_hex=hx(c["frame"])) for c in VECTORS["invalid"]],
        "streams": [dict(c, data_hex=hx(c["data"])) for c in VECTORS["streams"]],
        "commitment_example": VECTORS["commitment_example"],
        "hmac": VECTORS["hmac"],
        "hello_mac_example": VECTORS["hello_mac_example"],
        "sha_kinds": list(kinds),
        "sha_inputs": sha_inputs(),
        "diff": [f.hex() for f in inputs(diff)] if diff else [],
        "key_b64": codec.b64(bytes(range(1, 33))),
    }


def run_node(tmp: Path, the_job: dict[str, Any]) -> dict[str, Any]:
    (tmp / "runner.mjs").write_text(RUNNER)
    (tmp / "main.mjs").write_text(NODE_MAIN)
    done = subprocess.run(
        [node(), str(tmp / "main.mjs"), CODEC_JS.resolve().as_uri()],
        input=json.dumps(the_job), capture_output=True, text=True, timeout=240, check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def python_decoded(frame: str) -> Any:
    return codec.decode_frame(frame.encode("latin-1"))


def check_vectors(got: dict[str, Any], kinds: tuple[str, ...]) -> list[str]:
    """Every difference between the JS results and the vectors / the Python codec."""
    bad = []
    for case, r in zip(VECTORS["valid"], got["valid"], strict=True):
        for what in ("encode", "encode_dict", "reencoded"):
            if r[what] is not True:
                bad.append(f"valid {case['name']}: {what} differs")
        if r["decoded"] != case["message"]:
            bad.append(f"valid {case['name']}: decoded {r['decoded']!r}")
        if r["decoded_text"] != "ok":
            bad.append(f"valid {case['name']}: the frame as text (a WebSocket message) refused")
    for case, r in zip(VECTORS["invalid"], got["invalid"], strict=True):
        want = MP_DIFF.result_text(python_decoded(case["frame"]))
        if r["got"] != case["error"] or r["text"] != want:
            bad.append(f"invalid {case['name']}: {r['text']} (Python: {want})")
    for case, r in zip(VECTORS["streams"], got["streams"], strict=True):
        if r["whole"] != case["results"] or r["bytewise"] != case["results"]:
            bad.append(f"stream {case['name']}: {r['whole']} / {r['bytewise']}")
    ce = VECTORS["commitment_example"]
    he = VECTORS["hello_mac_example"]
    shas = [codec.hashlib.sha256(bytes.fromhex(d)).hexdigest() for d in sha_inputs()]
    for kind in kinds:
        cr = got["crypto"][kind]
        if cr["commitment"] != ce["commitment"]:
            bad.append(f"{kind}: commitment {cr['commitment']}")
        if cr["verify"] is not True or cr["verify_other"] is not False:
            bad.append(f"{kind}: verifyReveal {cr['verify']} / {cr['verify_other']}")
        if cr["hmac"] != [h["mac_hex"] for h in VECTORS["hmac"]]:
            bad.append(f"{kind}: hmac {cr['hmac']}")
        if cr["hello_mac"] != he["mac"]:
            bad.append(f"{kind}: hello mac {cr['hello_mac']}")
        if cr["sha"] != shas:
            bad.append(f"{kind}: sha-256 differs")
    if got["table_hash"] != codec.TABLE_HASH or got["table_hash_computed"] != codec.TABLE_HASH:
        bad.append(f"table hash {got['table_hash']} / {got['table_hash_computed']}")
    if got["nonce_len"] != codec.NONCE_BYTES:
        bad.append("nonce length")
    if got["b64"] != [codec.b64(bytes(range(1, n + 1))) for n in range(4)]:
        bad.append(f"b64 {got['b64']}")
    if got["unb64_bad"] != [None, None, None]:
        bad.append(f"unb64 {got['unb64_bad']}")
    if got["device_key"] != [None, None, bytes(range(1, 33)).hex()]:
        bad.append(f"deviceKey {got['device_key']}")
    want_dumps = codec.dumps(["x\u00e9\U0001f600\"\\\n", 0, 9007199254740993, [True, False, None]])
    if got["dumps"] != want_dumps:
        bad.append(f"dumps {got['dumps']} (Python: {want_dumps})")
    return bad


def test_table_js_is_generated_from_the_python_codec() -> None:
    tool = protocol_dir() / "tools" / "make_js_table.py"
    done = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True,
                          text=True, check=False, cwd=repo_root())
    assert done.returncode == 0, done.stdout + done.stderr


def test_node_codec_agrees_with_the_vectors_and_the_python_codec(tmp_path: Path) -> None:
    got = run_node(tmp_path, job())
    bad = check_vectors(got, ("webcrypto", "js"))
    assert not bad, "\n".join(bad)
    frames = inputs(DIFF_INPUTS)
    want = [MP_DIFF.result_text(codec.decode_frame(f)) for f in frames]
    diff = [f"{f!r}\n  CPython: {w}\n  JS:      {g}"
            for f, w, g in zip(frames, want, got["diff"], strict=True) if w != g]
    assert not diff, f"{len(diff)} of {len(frames)} inputs differ:\n" + "\n".join(diff[:10])
    # the fuzz reaches the JSON stage and beyond
    assert sum(w.startswith("ok") for w in want) >= 500


def test_chromium_codec_agrees_with_the_vectors(tmp_path: Path) -> None:
    """The same checks in Chromium's page context (WebCrypto and the plain-JS SHA-256), with
    2,000 fuzz inputs."""
    (tmp_path / "runner.mjs").write_text(RUNNER)
    the_job = job(diff=2_000)

    async def run() -> tuple[dict[str, Any], list[str]]:
        with static_server({"/phone/": PHONE_STATIC, "/t/": tmp_path}) as base:
            async with chromium(tmp_path / "profile") as (page, errors):
                await page.goto(base + "/phone/index.html")
                result = await page.evaluate(
                    """async ([base, job]) => {
                        const C = await import(base + "/phone/codec.js");
                        const R = await import(base + "/t/runner.mjs");
                        return JSON.stringify(await R.runJob(C, job));
                    }""", [base, the_job])
                return json.loads(result), errors

    got, errors = asyncio.run(run())
    assert errors == []
    bad = check_vectors(got, ("webcrypto", "js"))
    frames = inputs(2_000)
    bad += [f"{f!r}: JS {g}" for f, g in zip(frames, got["diff"], strict=True)
            if MP_DIFF.result_text(codec.decode_frame(f)) != g]
    assert not bad, "\n".join(bad[:20])

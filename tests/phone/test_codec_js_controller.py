"""The phone page's controller (static/phone/controller.js) behaves as the firmware's.

One scripted host drives, in lockstep, the firmware's own `Controller`
(firmware/dialbox_fw/core/controller.py, under CPython) and the page's `Controller` (under
node, with codec.js), through the same frames, wheel turns, presses, long presses, clock
ticks and a reset: a sealed prompt turned, locked, retransmitted, unlocked and locked again,
a duplicate, a prompt held back while a lock is unsettled, a forged and a real `alllocked`,
a forged and a real `revealed`, the link lost by silence and resumed, a live open prompt
(its `dial`), and a reset between lock and reveal. Every frame each one sends must be the
same (sequence numbers included), with nonces and commitments compared by what they prove:
each side's reveal hashes to the commitment that side sent. The hello is the same but for
the board's own words (fw, board, caps).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dialbox.paths import firmware_dir
from dialbox_protocol import codec
from tests.phone.page_helpers import PHONE_STATIC
from tests.phone.test_codec_js import node

if str(firmware_dir()) not in sys.path:
    sys.path.insert(0, str(firmware_dir()))

from dialbox_fw.core import controller as fw  # noqa: E402
from dialbox_fw.core.button import LONG, SHORT  # noqa: E402
from dialbox_fw.core.store import MemoryStore  # noqa: E402

pytestmark = [pytest.mark.timeout(120)]

UID = "ph-0a1b2c3d"
KEY = bytes(range(1, 33))
CHALLENGE = codec.b64(bytes(range(16)))
WHEELS: list[Any] = [[None, 0b01010101, 0], [None, 0b1111111110, 1], None]
LIVE: list[Any] = [None, [[["Pixoid", 0, "e53935"], ["Stadium", 1, "43a047"]], 3, 0], None]

NODE_SIDE = r"""
import * as readline from "node:readline";
const C = await import(process.argv[2]);
const { Controller } = await import(process.argv[3]);
const uid = process.argv[4];
const key = C.unb64(process.argv[5]);
const store = {
  rec: null, closed: null,
  saveLock: async (r) => { store.rec = JSON.parse(JSON.stringify(r)); },
  clearLock: async () => { store.rec = null; },
  saveClosed: async (p) => { store.closed = [...p]; },
};
let ctl = new Controller({ uid, key, store });
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  const cmd = JSON.parse(line);
  if (cmd.op === "frame") await ctl.handle(C.decodeFrame(cmd.text), cmd.now);
  else if (cmd.op === "turn") ctl.turn(cmd.wheel, cmd.detents, cmd.now);
  else if (cmd.op === "press") await ctl.press(cmd.now);
  else if (cmd.op === "hold") await ctl.hold(cmd.now);
  else if (cmd.op === "tick") ctl.tick(cmd.now);
  else if (cmd.op === "reset") {
    ctl = new Controller({ uid, key, store, record: store.rec, closed: store.closed });
  }
  process.stdout.write(JSON.stringify({ out: ctl.session.take(), state: ctl.state }) + "\n");
}
"""


class FirmwareSide:
    """The firmware's controller core, its flash a MemoryStore kept across a reset."""

    def __init__(self) -> None:
        self.store = MemoryStore()
        self.ctl = self._new()

    def _new(self) -> Any:
        return fw.Controller(UID, "pico_w", self.store, key=KEY)

    def do(self, cmd: dict[str, Any]) -> tuple[list[str], str]:
        op, now = cmd["op"], cmd.get("now", 0)
        if op == "frame":
            self.ctl.handle(codec.decode_frame(cmd["text"].encode()), now)
        elif op == "turn":
            self.ctl.turn(cmd["wheel"], cmd["detents"], now)
        elif op == "press":
            self.ctl.button(SHORT, now)
        elif op == "hold":
            self.ctl.button(LONG, now)
        elif op == "tick":
            self.ctl.tick(now)
        elif op == "reset":
            self.ctl = self._new()
        out = [f.decode() for f in self.ctl.session.take()]
        return out, fw.STATE_NAMES[self.ctl.state]

    def close(self) -> None:
        pass


class PageSide:
    """The page's controller under node, one JSON command per line."""

    def __init__(self, tmp: Path) -> None:
        script = tmp / "side.mjs"
        script.write_text(NODE_SIDE)
        self.proc = subprocess.Popen(
            [node(), str(script), (PHONE_STATIC / "codec.js").as_uri(),
             (PHONE_STATIC / "controller.js").as_uri(), UID, codec.b64(KEY)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def do(self, cmd: dict[str, Any]) -> tuple[list[str], str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, self.proc.stderr.read() if self.proc.stderr else "node stopped"
        got = json.loads(line)
        return list(got["out"]), str(got["state"])

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(10)


class Host:
    """The scripted host of one run: its own sequence numbers, a clock, and what the side
    sent (commitments and reveals, to build the next frames from)."""

    def __init__(self, side: Any) -> None:
        self.side = side
        self.seq = 0
        self.now = 1000
        self.steps: list[tuple[str, list[dict[str, Any]], str]] = []
        self.commits: dict[int, str] = {}
        self.reveals: dict[int, dict[str, Any]] = {}

    def _run(self, what: str, cmd: dict[str, Any]) -> list[dict[str, Any]]:
        cmd["now"] = self.now
        out, state = self.side.do(cmd)
        msgs = []
        for text in out:
            m = codec.decode_frame(text.encode())
            assert isinstance(m, dict), (what, text)
            if m["t"] == "commit":
                self.commits[m["pid"]] = m["commitment"]
            elif m["t"] == "reveal":
                self.reveals[m["pid"]] = m
            msgs.append(m)
        self.steps.append((what, msgs, state))
        return msgs

    def frame(self, name: str, *args: Any, seq: int | None = None) -> list[dict[str, Any]]:
        if seq is None:
            seq = 0
            if codec.is_reliable(name):
                self.seq += 1
                seq = self.seq
        text = codec.encode(name, seq, list(args)).decode()
        return self._run(f"{name} {list(args)!r}"[:80], {"op": "frame", "text": text})

    def act(self, op: str, **kw: Any) -> list[dict[str, Any]]:
        return self._run(op + (f" {kw}" if kw else ""), {"op": op, **kw})

    def later(self, ms: int) -> list[dict[str, Any]]:
        self.now += ms
        return self.act("tick")


OTHER_NONCE = bytes(12)


def scenario(h: Host) -> None:
    """Everything a controller meets, from the first identify to a reset mid-reveal."""
    h.frame("identify", 1, codec.TABLE_HASH, "dialbox", CHALLENGE)
    h.frame("welcome", 1, "1e88e5", "t1", "Blue")
    h.frame("ack", 1)
    h.frame("ping", 1234)
    h.frame("headline", "Round 1")
    h.frame("prompt", 17, True, True, "Move Pixoid", WHEELS, False)
    prompt_seq = h.seq
    h.act("turn", wheel=0, detents=1)
    h.act("turn", wheel=1, detents=-2)
    h.act("turn", wheel=2, detents=1)
    h.act("press")
    h.later(300)  # the commit is sent again
    h.later(300)
    h.frame("ack", 2)
    h.frame("status", 17, "locked")
    h.act("hold")  # unlock: uncommit + status unlocked
    h.frame("ack", 3)
    h.act("turn", wheel=1, detents=3)
    h.act("press")
    h.frame("ack", 4)
    h.frame("prompt", 17, True, True, "Move Pixoid", WHEELS, False, seq=prompt_seq)  # dup
    h.frame("prompt", 18, True, True, "Next", WHEELS, False)  # held back: a lock on 17
    other = codec.commitment([4, 5, -1], OTHER_NONCE, 17, "bot-0")
    h.frame("alllocked", 17, [[0, other]])  # forged: not mine
    h.frame("alllocked", 17, [[0, other], [1, h.commits.get(17, "")]])
    h.frame("ack", 5)
    mine = h.reveals.get(17, {"sel": [0, 0, -1], "nonce": ""})
    h.frame("revealed", 17, [[0, "S 5"], [1, "x"]], "forged",
            [[0, [4, 5, -1], codec.b64(OTHER_NONCE), "bot-0"], [1, [0, 1, -1], mine["nonce"], UID]])
    h.frame("revealed", 17, [[0, "S 5"], [1, "x"]], "Pixoid moved",
            [[0, [4, 5, -1], codec.b64(OTHER_NONCE), "bot-0"],
             [1, mine["sel"], mine["nonce"], UID]])
    h.frame("revealed", 17, [], "old news", [])  # closed: acknowledged, ignored
    h.frame("prompt", 18, True, False, "Next", WHEELS, False)
    h.act("press")
    h.act("hold")  # this prompt cannot be unlocked
    h.later(3500)  # silence: the link is lost
    h.frame("headline", "x")  # no session
    h.frame("identify", 1, codec.TABLE_HASH, "dialbox", CHALLENGE)
    h.seq = 0
    h.frame("welcome", 1, "1e88e5", "t1", "Blue")  # snapshot, then the commit again
    h.frame("ack", 1)
    h.frame("ack", 2)
    h.frame("revealed", 18, [], "void: asked again", [])
    h.frame("prompt", 19, False, False, "Next game?", LIVE, True)
    h.act("turn", wheel=1, detents=1)
    h.act("tick")
    h.act("turn", wheel=1, detents=1)
    h.act("tick")  # within 100 ms: no dial yet
    h.later(150)
    h.act("press")  # open: the answer goes now
    h.frame("ack", 3)
    live = h.reveals.get(19, {"sel": [-1, 0, -1], "nonce": ""})
    h.frame("revealed", 19, [[1, "Pixoid"]], "Pixoid chosen",
            [[1, live["sel"], live["nonce"], UID]])
    h.frame("prompt", 20, True, True, "Wager?", WHEELS, False)
    h.act("turn", wheel=0, detents=-1)
    h.act("press")
    h.act("reset")  # power lost (the page: reloaded) with a lock held
    h.frame("identify", 1, codec.TABLE_HASH, "dialbox", CHALLENGE)
    h.seq = 0
    h.frame("welcome", 1, "1e88e5", "t1", "Blue")
    h.frame("ack", 1)
    h.frame("prompt", 20, True, True, "Wager?", WHEELS, False)
    h.frame("alllocked", 20, [[1, h.commits.get(20, "")]])
    h.frame("ack", 2)
    after = h.reveals.get(20, {"sel": [0, 0, 0], "nonce": ""})
    h.frame("revealed", 20, [[1, "NW 1"]], "Wagered", [[1, after["sel"], after["nonce"], UID]])


def normal(m: dict[str, Any]) -> dict[str, Any]:
    """A frame as both sides must agree on it: nonces and commitments stand as placeholders
    (each side's own are checked against each other), the hello without the board's words."""
    m = dict(m)
    if m["t"] == "hello":
        for k in ("fw", "board", "caps"):
            m.pop(k)
    for k in ("nonce", "commitment"):
        if m.get(k):
            m[k] = "<" + k + ">"
    return m


def run(side: Any) -> Host:
    h = Host(side)
    try:
        scenario(h)
    finally:
        side.close()
    return h


def test_page_controller_sends_what_the_firmware_sends(tmp_path: Path) -> None:
    firmware = run(FirmwareSide())
    page = run(PageSide(tmp_path))
    assert len(firmware.steps) == len(page.steps)
    diffs = []
    for (what, fw_out, fw_state), (_w, pg_out, pg_state) in zip(
            firmware.steps, page.steps, strict=True):
        a = [normal(m) for m in fw_out]
        b = [normal(m) for m in pg_out]
        if a != b or fw_state != pg_state:
            diffs.append(f"{what}:\n  firmware {fw_state} {a}\n  page     {pg_state} {b}")
    assert not diffs, "\n".join(diffs)
    # each side's reveals hash to the commitments it sent, and the hello proves the key
    for h in (firmware, page):
        for pid, r in h.reveals.items():
            if pid in h.commits:
                assert codec.verify_reveal(h.commits[pid], r["sel"], r["nonce"], pid, UID)
    hello = next(m for _w, out, _s in page.steps for m in out if m["t"] == "hello")
    assert hello["mac"] == codec.hello_mac(KEY, CHALLENGE, UID)
    assert hello["board"] == "phone" and hello["caps"] == ["seatview"]
    kinds = {m["t"] for _w, out, _s in page.steps for m in out}
    assert {"commit", "uncommit", "reveal", "dial", "snapshot", "error", "pong", "status",
            "ack"} <= kinds
    # the lock made before the reset: reported in the snapshot, revealed as locked
    snaps = [m for _w, out, _s in page.steps for m in out if m["t"] == "snapshot"]
    assert snaps[-1]["pid"] == 20 and snaps[-1]["commitment"] == page.commits[20]
    assert page.steps[-1][2] == "revealed"
    states = {s for _w, _o, s in page.steps}
    assert {"programming", "locked", "all locked", "revealed", "connecting"} <= states


"""The controller state machine: handshake, wheels with allowed faces, commit-reveal, resets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from dialbox_fw.core import controller as c
from dialbox_fw.core.button import LONG, SHORT
from dialbox_fw.core.screens import render
from dialbox_fw.core.store import FileStore, MemoryStore
from dialbox_fw.core.wheels import Wheel

from dialbox_protocol import codec

PIXOID = [[None, 0b01010101, 0], [None, 0b1111111110, 1], None]
CHALLENGE = codec.b64(bytes(range(16)))


class Rig:
    """A Controller with a fake clock and a host side that records and acks frames."""

    def __init__(self, store: Any = None, uid: str = "dev-1") -> None:
        self.now = 1000
        self.store = store if store is not None else MemoryStore()
        self.ctl = c.Controller(uid, "pico_w", self.store, urandom=lambda n: bytes(range(n)))
        self.seq = 0
        self.sent: list[dict[str, Any]] = []

    def host(self, name: str, *args: Any, seq: int | None = None) -> list[dict[str, Any]]:
        if seq is None and codec.is_reliable(name):
            self.seq += 1
            seq = self.seq
        msg = codec.decode_frame(codec.encode(name, seq or 0, list(args)))
        assert isinstance(msg, dict)
        self.ctl.handle(msg, self.now)
        return self.drain()

    def drain(self) -> list[dict[str, Any]]:
        out = []
        for frame in self.ctl.session.take():
            msg = codec.decode_frame(frame)
            assert isinstance(msg, dict), msg
            out.append(msg)
        self.sent += out
        return out

    def ack_all(self, msgs: list[dict[str, Any]]) -> None:
        for m in msgs:
            if m["seq"]:
                self.host("ack", m["seq"])

    def welcome(self, seat: int = 0) -> dict[str, Any]:
        hello = self.host("identify", 1, codec.TABLE_HASH, "test", CHALLENGE)
        assert [m["t"] for m in hello] == ["hello"]
        self.seq = 0
        out = self.host("welcome", seat, "43a047", "t1", "Green")
        assert out[0] == {"t": "ack", "seq": 0, "ref": 1}
        snap = out[1]
        assert snap["t"] == "snapshot"
        self.ack_all(out[1:])
        return snap

    def tick(self, ms: int) -> list[dict[str, Any]]:
        self.now += ms
        self.ctl.tick(self.now)
        return self.drain()

    def commitment(self) -> str:
        """The commitment of this controller's latest commit."""
        self.drain()
        text: str = [m for m in self.sent if m["t"] == "commit"][-1]["commitment"]
        return text


def types(msgs: list[dict[str, Any]]) -> list[str]:
    return [m["t"] for m in msgs]


def test_hello_carries_version_table_hash_board_and_uid() -> None:
    r = Rig()
    (hello,) = r.host("identify", 1, codec.TABLE_HASH, "test", CHALLENGE)
    assert hello["proto"] == codec.PROTOCOL_VERSION
    assert hello["table_hash"] == codec.TABLE_HASH
    assert (hello["board"], hello["uid"]) == ("pico_w", "dev-1")
    assert r.ctl.state == c.CONNECTING


def test_hello_proves_the_device_key_over_the_hosts_challenge() -> None:
    r = Rig()
    (hello,) = r.host("identify", 1, codec.TABLE_HASH, "test", CHALLENGE)
    assert hello["mac"] == ""  # no key provisioned: nothing to prove
    key = bytes(range(100, 132))
    r.ctl.key = key
    (hello,) = r.host("identify", 1, codec.TABLE_HASH, "test", CHALLENGE)
    assert hello["mac"] == codec.hello_mac(key, CHALLENGE, "dev-1")
    other = codec.b64(bytes(16))
    (again,) = r.host("identify", 1, codec.TABLE_HASH, "test", other)
    assert again["mac"] == codec.hello_mac(key, other, "dev-1") != hello["mac"]
    # the host refusing the proof is shown, and a later welcome recovers
    r.host("error", codec.E_AUTH, "dev-1: wrong device key", 0)
    assert r.ctl.state == c.ERROR
    assert "wrong device key" in " ".join(render(r.ctl)[0])
    r.welcome()
    assert r.ctl.state == c.IDLE


def test_version_mismatch_shows_an_error() -> None:
    r = Rig()
    body = b'["identify",0,2,"%s","test"]' % codec.TABLE_HASH.encode()
    frame = body + b"%08x\n" % codec.crc32(body)
    r.ctl.handle(codec.decode_frame(frame), r.now)
    assert r.ctl.state == c.ERROR
    lines, led = render(r.ctl)
    assert lines[0] == "ERROR" and "version" in " ".join(lines)
    assert led == "ff0000"


def test_full_sealed_round() -> None:
    r = Rig()
    snap = r.welcome()
    assert snap["pid"] is None and snap["state"] == "idle" and snap["commitment"] is None
    assert r.ctl.state == c.IDLE
    out = r.host("prompt", 17, True, True, "Move Pixoid", PIXOID, False)
    assert types(out) == ["ack"]
    assert r.ctl.state == c.PROGRAMMING
    r.ctl.turn(0, 1, r.now)  # N -> E (NE is not allowed)
    r.ctl.turn(1, 2, r.now)  # 1 -> 3
    out = r.drain()
    assert out == [{"t": "status", "seq": 0, "pid": 17, "state": "editing"}]
    r.ctl.button(SHORT, r.now)
    (commit,) = r.drain()
    assert commit["t"] == "commit" and set(commit) == {"t", "seq", "pid", "commitment"}
    assert r.ctl.state == c.LOCKED
    r.host("ack", commit["seq"])
    r.host("status", 17, "locked")
    assert render(r.ctl)[0][0] == "LOCKED *"
    bot_nonce = bytes(range(40, 52))
    bot_commit = codec.commitment([0, 2, -1], bot_nonce, 17, "bot-1")
    out = r.host("alllocked", 17, [[0, commit["commitment"]], [1, bot_commit]])
    reveal = out[1]
    assert reveal["t"] == "reveal" and reveal["sel"] == [2, 3, -1]
    assert codec.verify_reveal(commit["commitment"], reveal["sel"], reveal["nonce"], 17, "dev-1")
    assert r.ctl.state == c.ALLLOCKED
    r.host("ack", reveal["seq"])
    reveals = [[0, reveal["sel"], reveal["nonce"], "dev-1"],
               [1, [0, 2, -1], codec.b64(bot_nonce), "bot-1"]]
    r.host("revealed", 17, [[0, "E 3"], [1, "N 2"]], "Bug 2 caught Pixoid", reveals)
    assert r.ctl.state == c.REVEALED and r.ctl.results[2]
    lines, _ = render(r.ctl)
    assert lines[0] == "VERIFIED" and "1 E 3" in lines and "2 N 2" in lines
    assert r.store.load() is None


def test_nothing_about_the_selection_leaves_before_alllocked() -> None:
    r = Rig()
    r.welcome()
    r.host("prompt", 5, True, True, "x", PIXOID, False)
    r.ctl.turn(0, 3, r.now)
    r.ctl.button(SHORT, r.now)
    r.drain()
    for _ in range(20):
        r.tick(300)  # retransmissions
    before = [m for m in r.sent if m["t"] not in ("ack",)]
    assert all("sel" not in m and "nonce" not in m for m in before)


def test_wheels_skip_disallowed_faces_both_ways() -> None:
    w = Wheel(1, [None, 0b1000100100, 0])  # digits 2, 5, 9 allowed; start 0 is not
    assert w.index == 2
    w.step(1)
    assert w.index == 5
    w.step(2)
    assert w.index == 2  # 9 then wraps to 2
    w.step(-1)
    assert w.index == 9


def test_custom_faces_and_single_allowed_face() -> None:
    faces = [["Tri", 0, "e53935"], ["Circ", 1, "fdd835"], ["Moon", 2, "43a047"]]
    w = Wheel(2, [faces, 0b010, 1])
    assert w.step(5) is False
    assert w.label() == "Circ"


def test_inactive_wheels_do_nothing() -> None:
    r = Rig()
    r.welcome()
    r.host("prompt", 5, True, True, "x", PIXOID, False)
    r.ctl.turn(2, 3, r.now)
    assert r.drain() == []
    assert r.ctl.wheels[2].index == -1


def test_unlock_withdraws_and_relock_commits_again() -> None:
    r = Rig()
    r.welcome()
    r.host("prompt", 5, True, True, "x", PIXOID, False)
    r.ctl.button(SHORT, r.now)
    (c1,) = r.drain()
    r.ctl.button(LONG, r.now)
    out = r.drain()
    assert types(out) == ["uncommit", "status"]
    assert r.ctl.state == c.PROGRAMMING and r.store.load() is None
    r.ctl.turn(1, 1, r.now)
    r.ctl.button(SHORT, r.now)
    (c2,) = [m for m in r.drain() if m["t"] == "commit"]
    assert c2["commitment"] != c1["commitment"]


def test_unlock_refused_when_the_prompt_forbids_it_or_all_locked() -> None:
    r = Rig()
    r.welcome()
    r.host("prompt", 5, True, False, "x", PIXOID, False)
    r.ctl.button(SHORT, r.now)
    r.ctl.button(LONG, r.now)
    assert r.ctl.state == c.LOCKED
    r2 = Rig()
    r2.welcome()
    r2.host("prompt", 6, True, True, "x", PIXOID, False)
    r2.ctl.button(SHORT, r2.now)
    r2.host("alllocked", 6, [[0, r2.commitment()]])
    r2.ctl.button(LONG, r2.now)
    assert r2.ctl.state == c.ALLLOCKED


def test_reset_between_lock_and_reveal_reveals_the_same_choice(tmp_path: Path) -> None:
    store = FileStore(str(tmp_path / "lock.json"))
    r = Rig(store)
    r.welcome()
    r.host("prompt", 9, True, True, "x", PIXOID, False)
    r.ctl.turn(0, -1, r.now)
    r.ctl.turn(1, 5, r.now)
    r.ctl.button(SHORT, r.now)
    commit = [m for m in r.drain() if m["t"] == "commit"][0]
    # power cut: a new controller boots from the same flash
    r2 = Rig(FileStore(str(tmp_path / "lock.json")))
    assert r2.ctl.state == c.LOCKED
    snap = r2.welcome()
    assert snap == {
        "t": "snapshot",
        "seq": 1,
        "pid": 9,
        "state": "locked",
        "commitment": commit["commitment"],
    }
    r2.host("prompt", 9, True, True, "x", PIXOID, False)  # the host re-sends the prompt
    assert r2.ctl.state == c.LOCKED
    out = r2.host("alllocked", 9, [[0, commit["commitment"]]])
    reveal = [m for m in out if m["t"] == "reveal"][0]
    assert reveal["sel"] == [6, 6, -1]
    assert codec.verify_reveal(commit["commitment"], reveal["sel"], reveal["nonce"], 9, "dev-1")
    r2.host("revealed", 9, [[0, "W 6"]], "ok", [[0, reveal["sel"], reveal["nonce"], "dev-1"]])
    assert not (tmp_path / "lock.json").exists()


def test_commit_is_retransmitted_with_backoff_until_acked() -> None:
    r = Rig()
    r.welcome()
    r.host("prompt", 5, True, True, "x", PIXOID, False)
    r.ctl.button(SHORT, r.now)
    (commit,) = r.drain()
    gaps = []
    last = r.now
    for _ in range(120):
        out = r.tick(50)
        r.host("ping", 1)  # keep the link alive
        if any(m["t"] == "commit" for m in out):
            gaps.append(r.now - last)
            last = r.now
    assert gaps[:4] == [250, 500, 1000, 2000]
    assert all(g == 2000 for g in gaps[4:])
    r.host("ack", commit["seq"])
    assert not any(m["t"] == "commit" for m in r.tick(3000))


def test_frames_unacked_when_the_link_drops_go_out_again_after_the_handshake() -> None:
    r = Rig()
    r.welcome()
    r.host("prompt", 5, True, True, "x", PIXOID, False)
    r.ctl.button(SHORT, r.now)
    (commit,) = r.drain()
    r.tick(3500)  # silence: link lost
    assert not r.ctl.linked
    assert render(r.ctl)[0][1] == "connecting..."
    r.host("identify", 1, codec.TABLE_HASH, "test", CHALLENGE)
    r.seq = 0
    out = r.host("welcome", 0, "43a047", "t1", "Green")
    assert types(out) == ["ack", "snapshot", "commit"]
    assert out[2]["commitment"] == commit["commitment"] and out[2]["seq"] == 2


def test_without_a_session_reliable_frames_are_refused_with_no_session() -> None:
    """After its link timed out (the host's side may still be up), a controller answers a
    reliable frame with `error unexpected_now "no session"` (ref = its seq), acknowledges and
    changes nothing, and never answers an ack, an error or another unreliable frame so."""
    r = Rig()
    r.welcome()
    r.host("prompt", 5, True, True, "x", PIXOID, False)
    r.tick(3500)  # silence: link lost, the session with it
    assert not r.ctl.session.online
    refused = r.host("revealed", 5, [[0, "N 1"]], "nope", [], seq=9)
    assert refused == [
        {"t": "error", "seq": 0, "code": codec.E_STATE, "detail": codec.NO_SESSION, "ref": 9}
    ]
    assert r.ctl.state == c.PROGRAMMING and r.ctl.pid() == 5
    assert r.host("ack", 9) == [] and r.host("error", codec.E_STATE, "x", 9) == []
    assert r.host("status", 5, "locked") == []
    assert types(r.host("ping", 7)) == ["pong"]
    r.host("identify", 1, codec.TABLE_HASH, "test", CHALLENGE)
    r.seq = 0
    assert types(r.host("welcome", 0, "43a047", "t1", "Green")) == ["ack", "snapshot"]
    assert types(r.host("alllocked", 5, [])) == ["ack", "error"]  # in a session: handled again


def test_duplicates_are_acked_again_but_processed_once() -> None:
    r = Rig()
    r.welcome()
    r.host("prompt", 5, True, True, "x", PIXOID, False, seq=7)
    r.ctl.turn(0, 1, r.now)
    r.drain()
    out = r.host("prompt", 5, True, True, "x", PIXOID, False, seq=7)
    assert types(out) == ["ack"]
    assert r.ctl.wheels[0].index == 2  # not reset by the duplicate


def test_a_stale_revealed_does_not_replace_the_prompt_in_hand() -> None:
    r = Rig()
    r.welcome()
    r.host("prompt", 12, True, True, "x", PIXOID, False)
    out = r.host("revealed", 11, [[0, "N 1"]], "old news", [])
    assert out[1]["t"] == "error" and out[1]["code"] == codec.E_PROMPT
    assert r.ctl.state == c.PROGRAMMING and r.ctl.pid() == 12


def test_ping_is_answered_with_pong() -> None:
    r = Rig()
    assert r.host("ping", 12345) == [{"t": "pong", "seq": 0, "ms": 12345}]


def test_open_prompt_sends_the_answer_directly() -> None:
    r = Rig()
    r.welcome(seat=-1)
    assert r.ctl.state == c.WAIT_SEAT
    r.host("prompt", 3, False, False, "Press to take seat 3", [None, None, None], False)
    r.ctl.button(SHORT, r.now)
    (reveal,) = r.drain()
    assert reveal["t"] == "reveal" and reveal["sel"] == [-1, -1, -1]
    r.ack_all([reveal])
    r.seq = 0
    r.host("welcome", 2, "1e88e5", "t1", "Blue")
    assert r.ctl.state == c.IDLE and r.ctl.seat == 2


def test_the_headline_shows_while_idle_and_under_a_reveal_and_clears() -> None:
    r = Rig()
    r.welcome(seat=1)
    assert render(r.ctl)[0][-1] == "waiting..."
    out = r.host("headline", "Round 2 Adventure: Blue's turn")
    assert types(out) == ["ack"]  # reliable: acknowledged, nothing else said
    lines, _ = render(r.ctl)
    assert lines[:2] == ["Seat 2 Green", "t1"]
    assert lines[3:] == ["Round 2", "Adventure:", "Blue's turn"]
    r.host("prompt", 4, False, False, "Your turn", PIXOID, False)
    assert "Blue's turn" not in render(r.ctl)[0]  # a prompt of its own replaces it
    r.ctl.button(SHORT, r.now)
    (reveal,) = r.drain()
    r.ack_all([reveal])
    r.host("revealed", 4, [[1, "E 1"]], "Green moves.", [[1, reveal["sel"], reveal["nonce"],
                                                          "dev-1"]])
    lines, _ = render(r.ctl)
    assert lines[0] == "VERIFIED" and lines[-3:] == ["Round 2", "Adventure:", "Blue's turn"]
    r.host("headline", "")
    assert "Adventure:" not in render(r.ctl)[0]


def test_characters_the_font_lacks_show_as_question_marks() -> None:
    r = Rig()
    r.welcome(seat=0)
    r.host("headline", "Caf\u00e9 \u2014 ok")
    lines, _ = render(r.ctl)
    assert "Caf? ? ok" in lines and all(" " <= ch <= "~" for ln in lines for ch in ln)


def test_alllocked_without_a_commitment_is_refused() -> None:
    r = Rig()
    r.welcome()
    out = r.host("alllocked", 44, [])
    assert out[1]["t"] == "error" and out[1]["code"] == codec.E_PROMPT


def test_provisioning_config_is_checked() -> None:
    got: list[dict[str, Any]] = []
    r = Rig()
    r.ctl.on_config = got.append
    key = codec.b64(bytes(range(32)))
    good = ["dev-9", "e53935", "", "", "", 1883, "", "", "t1", key]
    r.host("config", *good)
    assert got and got[0]["device"] == "dev-9" and got[0]["key"] == key
    bad = list(good)
    bad[1] = "zz"
    out = r.host("config", *bad)
    assert out[1]["t"] == "error" and out[1]["code"] == codec.E_CONFIG
    assert "colour" in out[1]["detail"]
    short = list(good)
    short[9] = codec.b64(bytes(8))  # a device key has 16-32 bytes
    out = r.host("config", *short)
    assert out[1]["t"] == "error" and "key" in out[1]["detail"]


@pytest.mark.parametrize(
    "state",
    [c.CONNECTING, c.WAIT_SEAT, c.IDLE, c.LOCKED, c.ALLLOCKED, c.ERROR],
)
def test_every_state_has_a_screen_and_led(state: int) -> None:
    r = Rig()
    r.welcome()
    r.ctl.state = state
    r.ctl.error = "broken"
    lines, led = render(r.ctl)
    assert lines and all(len(line) <= 16 for line in lines) and len(lines) <= 8
    assert len(led) == 6
    lines, led = render(r.ctl, battery_low=True)
    assert lines[-1] == "LOW BATTERY"

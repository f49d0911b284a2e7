"""What a phone link refuses, each with a clear one-line answer, and nothing lost at the table:
binary and over-long messages, a forged frame (bad CRC), a hello with a wrong MAC or
another's uid, frames without a hello, another seat's prompt, a reveal that does not match
its commitment, a flood (closed with a reason), a second link for a live uid."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import pytest

from dialbox_protocol import codec
from tests.phone.ws_helpers import (
    Phone,
    first_allowed,
    join_code,
    nonce,
    paired_phone,
    phone,
    phone_config,
    served,
    wait_for,
)


def _error(p: Phone, code: int, after: int = 0) -> dict:
    for f in p.got[after:]:
        if f["t"] == "error" and f["code"] == code:
            return f
    raise AssertionError(f"no error {codec.ERROR_NAMES[code]}: {[f['t'] for f in p.got]}")


def test_binary_oversize_and_forged_frames_are_answered_and_the_link_kept(
        tmp_path: Path) -> None:
    async def main() -> None:
        async with served(phone_config(tmp_path)) as s:
            uid, key, seat = await paired_phone(s, 0)
            async with phone(s, uid, key) as p:
                await p.expect("identify")
                await p.send_text(b"\x00\x01binary")
                e = await p.expect("error", lambda f: f["code"] == codec.E_FRAME)
                assert "binary message refused" in e["detail"]
                await p.send_text("[" + "1," * 700 + "1]")
                e = await p.expect("error", lambda f: f["code"] == codec.E_OVERSIZE)
                assert "over 1023" in e["detail"]
                good = codec.encode("pong", 0, [5])[:-1].decode()
                forged = good[:-8] + ("0" * 8 if good[-8:] != "0" * 8 else "1" * 8)
                await p.send_text(forged)
                e = await p.expect("error", lambda f: f["code"] == codec.E_CRC)
                assert "\n" not in e["detail"]
                await p.send_text(good + "\n" + good)  # two frames in one message
                e = await p.expect("error", lambda f: f["code"] == codec.E_FRAME
                                   and "one frame per message" in f["detail"])
                await p.send_text("hello there")
                await p.expect("error", lambda f: f["code"] == codec.E_FRAME
                               and "one frame" not in f["detail"]
                               and "binary" not in f["detail"])
                # the link is kept: the handshake still works, the seat is the phone's
                welcome = await p.join()
                assert welcome["seat"] == seat
                assert p.closed is None
                # one trailing newline is tolerated
                await p.send_text(codec.encode("ping", 0, [7]).decode())
                await p.expect("pong", lambda f: f["ms"] == 7)

    asyncio.run(main())


def test_a_flood_of_bad_messages_closes_the_link_with_a_reason(tmp_path: Path) -> None:
    async def main() -> None:
        async with served(phone_config(tmp_path)) as s:
            uid, key, _seat = await paired_phone(s, 0)
            async with phone(s, uid, key) as p:
                await p.expect("identify")
                for _ in range(200):
                    if p.closed is not None:
                        break
                    await p.send_text(b"\xff" * 10)
                await wait_for(lambda: p.closed is not None, what="the link closed")
                assert p.closed is not None
                code, reason = p.closed
                assert code == 1008 and "too many malformed messages" in reason
            assert all(not seat.online for seat in s.console.table.seats)

    asyncio.run(main())


def test_wrong_mac_and_another_phones_uid_are_refused(tmp_path: Path) -> None:
    async def main() -> None:
        async with served(phone_config(tmp_path)) as s:
            a_uid, a_key, a_seat = await paired_phone(s, 0)
            b_uid, b_key, _b_seat = await paired_phone(s, 1)
            async with phone(s, a_uid, a_key) as p:
                await p.hello(mac=codec.hello_mac(b"\x07" * 32, "x" * 22, a_uid))
                e = await p.expect("error", lambda f: f["code"] == codec.E_AUTH)
                assert e["detail"] == f"{a_uid}: wrong device key"
                # a's key cannot speak for b
                await p.hello(uid=b_uid)
                e = await p.expect("error", lambda f: f["code"] == codec.E_AUTH
                                   and b_uid in f["detail"])
                assert s.console.table.seats[1].online is False
                # the right hello is admitted on the same link (after the next identify)
                mark = len(p.got)
                await p.hello()
                welcome = await p.expect("welcome", after=mark)
                assert welcome["seat"] == a_seat

    asyncio.run(main())


def test_frames_without_a_hello_change_nothing(tmp_path: Path) -> None:
    async def main() -> None:
        async with served(phone_config(tmp_path)) as s:
            uid, key, _seat = await paired_phone(s, 0)
            await paired_phone(s, 1)
            async with phone(s, uid, key) as p:
                await p.expect("identify")
                mark = len(p.got)
                await p.send("commit", 1, 5, codec.commitment([0, 0, -1], nonce(), 5, uid))
                await p.send("reveal", 2, 5, [0, 0, -1], codec.b64(nonce()))
                # no session: nothing is acknowledged, the host asks who it is again
                await p.expect("identify", after=mark)
                assert not any(f["t"] == "ack" for f in p.got[mark:])
                box = s.console.box
                assert box is None or not box.locked(0)
                assert not any(e.kind == "commit" for e in s.console.journal.entries("t1"))

    asyncio.run(main())


def test_another_prompt_a_mismatched_reveal_and_a_second_link_are_refused(
        tmp_path: Path) -> None:
    async def main() -> None:
        async with served(phone_config(tmp_path, game="pipcycle", players=2)) as s:
            a_uid, a_key, a_seat = await paired_phone(s, 0)
            b_uid, b_key, b_seat = await paired_phone(s, 1)
            async with phone(s, a_uid, a_key) as a, phone(s, b_uid, b_key, play=True) as b:
                await a.join()
                await b.join()
                prompt = await a.expect("prompt", lambda f: f["sealed"])
                pid = prompt["pid"]
                # a commit for a prompt that is not open (another's, or none)
                await a.commit(pid + 1000, [0, 0, -1], nonce())
                e = await a.expect("error", lambda f: f["code"] == codec.E_PROMPT)
                assert "\n" not in e["detail"]
                # A locks; B locks (it plays); A reveals something else than it locked
                sel = [first_allowed(w) for w in prompt["wheels"]]
                n = nonce()
                c = await a.commit(pid, sel, n)
                await a.expect("alllocked", lambda f: f["pid"] == pid)
                await a.reveal(pid, sel, nonce())  # another nonce: not what it locked
                e = await a.expect("error", lambda f: f["code"] == codec.E_MISMATCH)
                assert e["detail"]
                assert s.console.box is not None and s.console.box.pid == pid
                assert a_seat not in s.console.box.reveals  # refused, the lock kept
                assert s.console.box.commitments[a_seat] == (a_uid, c)
                # the true reveal is still taken: nothing lost
                await a.reveal(pid, sel, n)
                revealed = await a.expect("revealed", lambda f: f["pid"] == pid)
                assert any(r[0] == a_seat and r[1] == sel for r in revealed["reveals"])
                # a second link for a live uid is refused (uid_in_use), the first kept
                async with phone(s, a_uid, a_key) as twin:
                    await twin.hello()
                    e = await twin.expect("error", lambda f: f["code"] == codec.E_SPOOF)
                    assert "already connected" in e["detail"]
                assert a.closed is None
                assert b_seat == 1 and json.dumps(b.seatviews())

    asyncio.run(main())


def test_another_sites_page_may_not_pair_or_link(tmp_path: Path) -> None:
    """The phone page is served by the table screen (same origin): a page of another site
    open in a player's browser cannot pair or open a phone link on its behalf."""
    import urllib.error
    import urllib.request

    import websockets

    async def main() -> None:
        async with served(phone_config(tmp_path)) as s:
            code = await join_code(s)

            def post() -> tuple[int, dict]:
                req = urllib.request.Request(
                    s.url + "/phone/pair", data=json.dumps({"code": code}).encode(),
                    method="POST", headers={"Content-Type": "text/plain",
                                            "Origin": "http://evil.example"})
                try:
                    with urllib.request.urlopen(req, timeout=10) as r:
                        return r.status, json.loads(r.read())
                except urllib.error.HTTPError as e:
                    return e.code, json.loads(e.read())

            status, answer = await asyncio.to_thread(post)
            assert status == 403 and "phone page of this table screen" in answer["error"]
            assert all(seat.uid is None for seat in s.console.table.seats)
            async with websockets.connect(s.ws_url, origin="http://evil.example") as ws:
                with contextlib.suppress(websockets.ConnectionClosed):
                    while True:
                        await ws.recv()
                assert ws.close_code == 1008 and "another site" in (ws.close_reason or "")
            # the same origin is fine (the page's own requests)
            host = s.url.split("//", 1)[1]
            async with websockets.connect(s.ws_url, origin=f"http://{host}") as ws:
                first = await ws.recv()
                assert first.startswith('["identify",')

    asyncio.run(main())


def test_a_websocket_that_never_says_hello_is_closed(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A serial port that never answers stays open (it may be something else's); a phone
    WebSocket that never says hello is closed once the identify retries are spent. (Every
    0.1 s here instead of 0.5 s: the same 20 tries in 2 s.)"""
    from dialbox.sessions import session as session_mod

    monkeypatch.setattr(session_mod, "IDENTIFY_EVERY", 0.1)

    async def main() -> None:
        async with served(phone_config(tmp_path)) as s:
            uid, key, _seat = await paired_phone(s, 0)
            async with phone(s, uid, key, auto=False) as p:
                await wait_for(lambda: p.closed is not None, timeout=60,
                               what="the silent link closed")
                assert p.closed is not None
                code, reason = p.closed
                assert code == 1008 and "no hello after 20 identify frames" in reason
                assert [f["t"] for f in p.got] == ["identify"] * 20
            assert not s.console.table.seats[0].online

    asyncio.run(main())


def test_a_frame_for_another_seats_prompt_is_refused(tmp_path: Path) -> None:
    """Duel: after a sealed round the best seat alone keeps a letter (an open prompt). The
    other phone answers that prompt as if it were its own: refused, and the asked seat's
    own answer still counts."""
    from tests.host.games import DUEL

    async def main() -> None:
        async with served(phone_config(tmp_path, game=DUEL, players=2,
                                       options={"rounds": 2})) as s:
            a_uid, a_key, a_seat = await paired_phone(s, 0)
            b_uid, b_key, b_seat = await paired_phone(s, 1)
            async with phone(s, a_uid, a_key) as a, phone(s, b_uid, b_key) as b:
                await a.join()
                await b.join()
                sealed = await a.expect("prompt", lambda f: f["sealed"])
                pid = sealed["pid"]
                await b.expect("prompt", lambda f: f["pid"] == pid)
                sel = [first_allowed(w) for w in sealed["wheels"]]
                na, nb = nonce(), nonce()
                await a.commit(pid, sel, na)
                await b.commit(pid, sel, nb)
                await a.expect("alllocked", lambda f: f["pid"] == pid)
                await b.expect("alllocked", lambda f: f["pid"] == pid)
                await a.reveal(pid, sel, na)
                await b.reveal(pid, sel, nb)
                # a tie: the lower seat (A) keeps a letter, in the open
                letter = await a.expect("prompt", lambda f: not f["sealed"])
                lpid = letter["pid"]
                mark = len(b.got)
                wrong = [first_allowed(w) for w in letter["wheels"]]
                await b.reveal(lpid, wrong, nonce())  # B answers A's prompt
                e = await b.expect("error", lambda f: f["ref"] == b.seq, after=mark)
                assert e["code"] == codec.E_STATE and "not asked" in e["detail"], e
                assert "\n" not in e["detail"]
                box = s.console.box
                assert box is not None and box.pid == lpid and box.reveals == {}
                # A's own answer is taken
                await a.reveal(lpid, wrong, nonce())
                done = await a.expect("revealed", lambda f: f["pid"] == lpid)
                assert [r[0] for r in done["reveals"]] == [a_seat]
                assert b_seat == 1

    asyncio.run(main())

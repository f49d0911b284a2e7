"""Pairing a phone (`POST /phone/pair`): join codes on the table screen, one-time, expiring;
the key goes into the daemon's key store and the code's seat is reserved for the phone."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from dialbox.phone.codes import ALPHABET, LENGTH
from dialbox.sessions.keys import KeyStore
from dialbox_protocol import codec
from tests.phone.ws_helpers import (
    TABLE,
    http,
    join_code,
    pair,
    phone_config,
    screen_state,
    served,
)


def test_the_screen_shows_one_code_per_free_seat_and_a_code_pairs_once(tmp_path: Path) -> None:
    async def main() -> None:
        async with served(phone_config(tmp_path, game="stadium", players=4, bots=[4])) as s:
            await join_code(s)
            state = await screen_state(s.url)
            seats = sorted(j["seat"] for j in state["join"])
            assert seats == [0, 1, 2]  # seat 4 is a bot's
            codes = [j["code"] for j in state["join"]]
            assert len(set(codes)) == 3
            for c in codes:
                assert len(c) == LENGTH and set(c) <= set(ALPHABET)
                assert not set(c) & set("0O1I")
            assert [j["name"] for j in sorted(state["join"], key=lambda j: j["seat"])] == \
                ["Red", "Blue", "Green"]

            code = next(j["code"] for j in state["join"] if j["seat"] == 1)
            status, answer = await pair(s.url, code.lower())  # any case
            assert status == 200, answer
            assert answer["table"] == TABLE and answer["seat"] == 1
            assert answer["uid"].startswith("ph-") and len(answer["uid"]) == 11
            int(answer["uid"][3:], 16)
            key = codec.device_key(answer["key"])
            assert key is not None and len(key) == 32 and "=" not in answer["key"]
            # the key is the daemon's, as `dialbox firmware provision` writes one
            assert KeyStore(tmp_path / "keys").key(answer["uid"]) == key
            # the seat is the phone's (journaled), and its code is gone from the screen
            seat = s.console.table.seats[1]
            assert seat.uid == answer["uid"]
            seats_of = [e.data for e in s.console.journal.entries(TABLE) if e.kind == "seat"]
            assert {"seat": 1, "uid": answer["uid"]}.items() <= seats_of[-1].items()
            for _ in range(200):
                state = await screen_state(s.url)
                if all(j["seat"] != 1 for j in state["join"]):
                    break
                await asyncio.sleep(0.02)
            assert sorted(j["seat"] for j in state["join"]) == [0, 2]

            # one-time: the same code again is refused, clearly, and nothing changes
            status, again = await pair(s.url, code)
            assert status == 409, again
            assert "used already" in again["error"] and "\n" not in again["error"]
            assert s.console.table.seats[1].uid == answer["uid"]
            assert len(KeyStore(tmp_path / "keys").uids()) == 1

    asyncio.run(main())


def test_an_expired_code_is_refused_and_a_new_one_is_shown(tmp_path: Path) -> None:
    async def main() -> None:
        async with served(phone_config(tmp_path)) as s:
            first = await join_code(s, 0)
            now = [time.monotonic() + 2 * s.console.joins.ttl]  # (a fake clock: no waiting)
            s.console.joins.clock = lambda: now[0]
            old = first
            for _ in range(300):
                old = await join_code(s, 0)
                if old != first:
                    break
                await asyncio.sleep(0.02)
            assert old != first  # the first one expired on the fake clock
            now[0] += s.console.joins.ttl + 1
            new = old
            for _ in range(300):
                new = await join_code(s, 0)
                if new != old:
                    break
                await asyncio.sleep(0.02)
            assert new != old
            status, answer = await pair(s.url, old)
            assert status == 410 and "expired" in answer["error"], answer
            assert s.console.table.seats[0].uid is None
            status, answer = await pair(s.url, new)
            assert status == 200 and answer["seat"] == 0, answer

    asyncio.run(main())


def test_bad_pairing_requests_are_refused_with_one_line(tmp_path: Path) -> None:
    async def main() -> None:
        async with served(phone_config(tmp_path)) as s:
            await join_code(s)
            for body, status, words in [
                (b"not json", 400, "not JSON"),
                (b"[1, 2]", 400, "needs a \"code\""),
                (json.dumps({"code": 7}).encode(), 400, "needs a \"code\""),
                (json.dumps({"code": "K7M2Q0"}).encode(), 400, "6 characters"),
                (json.dumps({"code": "ABC"}).encode(), 400, "6 characters"),
                (b"{" + b" " * 5000 + b"}", 400, "over"),
                (json.dumps({"code": "ZZZZZZ"}).encode(), 404, "no such code"),
            ]:
                got, answer = await pair(s.url, body)
                assert got == status, (body[:40], answer)
                assert words in answer["error"] and "\n" not in answer["error"], answer
            assert all(seat.uid is None for seat in s.console.table.seats)
            assert not KeyStore(tmp_path / "keys").uids()
            # GET is not a way to pair
            got, _body, _kind = await http("GET", s.url + "/phone/pair")
            assert got == 405

    asyncio.run(main())


def test_a_taken_seat_withdraws_its_code(tmp_path: Path) -> None:
    """A second phone with the code of a seat taken meanwhile (here by another phone's
    pairing of the same seat through the console) is refused 409; the first keeps it."""

    async def main() -> None:
        async with served(phone_config(tmp_path)) as s:
            code = await join_code(s, 1)
            s.console.reserve(s.console.check_code(code), "ctl-x")  # someone took seat 2
            status, answer = await pair(s.url, code)
            assert status == 409, answer
            assert "used already" in answer["error"] or "taken" in answer["error"]
            assert s.console.table.seats[1].uid == "ctl-x"
            # a code shown for a seat that a controller then took
            code0 = await join_code(s, 0)
            s.console.table.claim(0, "ctl-y")
            status, answer = await pair(s.url, code0)
            assert status == 409 and "taken" in answer["error"], answer
            assert s.console.table.seats[0].uid == "ctl-y"

    asyncio.run(main())


def test_the_qr_code_and_the_phone_page_are_served(tmp_path: Path) -> None:
    async def main() -> None:
        async with served(phone_config(tmp_path)) as s:
            code = await join_code(s)
            status, svg, kind = await http("GET", s.url + f"/phone/qr/{code}.svg")
            assert status == 200 and kind.startswith("image/svg+xml")
            assert svg.lstrip().startswith(b"<svg") and b"</svg>" in svg
            status, addr, _k = await http("GET", s.url + "/phone/address")
            assert status == 200 and addr["url"].endswith("/phone")
            assert "127.0.0.1" not in addr["url"]  # a phone in the room cannot reach loopback
            status, _b, _k = await http("GET", s.url + "/phone/qr/nope.svg")
            assert status == 404
            status, page, kind = await http("GET", s.url + "/phone?code=" + code)
            assert status == 200 and kind.startswith("text/html")

    asyncio.run(main())


def test_join_codes_one_time_expiring_withdrawn() -> None:
    """The codes' own rules, on a fake clock (dialbox.phone.codes)."""
    from dialbox.phone.codes import JoinCode, JoinCodes, Refusal, normalise

    now = [0.0]
    codes = JoinCodes(ttl=600, clock=lambda: now[0])
    first = codes.current([0, 2], "game-1")
    assert [c.seat for c in first] == [0, 2]
    assert codes.current([0, 2], "game-1") == first  # the same until they change
    got = codes.check(first[0].code, [0, 2], "game-1")
    assert isinstance(got, JoinCode) and got.seat == 0
    codes.spend(got)
    again = codes.check(first[0].code, [2], "game-1")
    assert isinstance(again, Refusal) and again.status == 409
    # the table moved on (a new game): every code of the old stage is stale
    nxt = codes.current([1], "game-2")
    stale = codes.check(first[1].code, [1], "game-2")
    assert isinstance(stale, Refusal) and stale.status == 410 and "stale" in stale.text
    now[0] += 601
    expired = codes.check(nxt[0].code, [1], "game-2")
    assert isinstance(expired, Refusal) and expired.status == 410 and "expired" in expired.text
    assert codes.current([1], "game-2")[0].code != nxt[0].code
    assert normalise(" k7m-2qx ") == "K7M2QX"
    assert normalise("K7M2Q0") is None and normalise("K7M2QXX") is None

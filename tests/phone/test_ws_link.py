"""A phone on `WS /phone/link` is a controller: the same handshake, prompts, commit-reveal,
resume and refusals as a serial controller, behind the same session layer."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from dialbox.doubles import ControllerDouble
from dialbox.sessions.keys import KeyStore
from dialbox_protocol import codec
from tests.host.games import DUEL
from tests.phone.ws_helpers import (
    TABLE,
    Phone,
    paired_phone,
    phone,
    phone_config,
    screen_state,
    served,
    wait_for,
)


def test_handshake_with_the_device_key_seats_the_phone_and_sends_its_view(
        tmp_path: Path) -> None:
    async def main() -> None:
        async with served(phone_config(tmp_path, game="pipcycle", players=2)) as s:
            uid, key, seat = await paired_phone(s, 1)
            async with phone(s, uid, key) as p:
                ident = await p.expect("identify")
                assert ident["table_hash"] and len(ident["challenge"]) == 22
                welcome = await p.join()
                assert welcome["seat"] == seat == 1 and welcome["table"] == TABLE
                view = json.loads((await p.expect("seatview"))["view"])
                assert view["game"] == "pipcycle" and view["seat"] == 1
                hands = view["private"]["hands"]
                assert isinstance(hands[1], list) and all(isinstance(c, str) for c in hands[1])
                assert isinstance(hands[0], int)  # the other seat's hand: a count only
                game = s.console.game
                assert hands[1] == game.view(1)["hands"][1]
                # the devices drawer: the seat's controller is a phone, online
                await wait_for(lambda: s.console.table.seats[1].online, what="seat online")
                links = s.console.links()
                assert links[uid].transport == "phone" and links[uid].firmware == "page-test"
                for _ in range(200):
                    state = await screen_state(s.url)
                    st = state["seats"][1]
                    if st["transport"] == "phone":
                        break
                    await asyncio.sleep(0.02)
                assert st["uid"] == uid and st["transport"] == "phone" and st["online"]
                # it answers pings: the host hears it (no timing judged: just a round trip)
                await p.expect("ping")

    asyncio.run(main())


def test_a_sealed_prompt_with_a_phone_a_simulated_controller_and_a_bot(tmp_path: Path) -> None:
    """Duel (the daemon tests' game), 3 seats: a phone, a simulated controller (serial), a
    bot. The phone's choice reaches the host only as a commitment before all-locked; then
    every reveal verifies."""

    async def main() -> None:
        cfg = phone_config(tmp_path, game=DUEL, players=3, bots=[3], options={"rounds": 3})
        sim_key = KeyStore(tmp_path / "keys").ensure("sim-b")
        async with served(cfg) as s:
            uid, key, seat = await paired_phone(s, 0)
            sim = ControllerDouble("sim-b", link_dir=tmp_path / "links", seed=1, key=sim_key,
                                   auto=True)
            await sim.start()
            if s.daemon.watcher is not None:
                s.daemon.watcher.rescan()
            try:
                async with phone(s, uid, key, play=True) as p:
                    await p.join()
                    prompt = await p.expect("prompt", lambda f: f["sealed"])
                    pid = prompt["pid"]
                    locked = await p.expect("status", lambda f: f["pid"] == pid
                                            and f["state"] == "locked")
                    assert locked
                    alllocked = await p.expect("alllocked", lambda f: f["pid"] == pid)
                    sel, n, c = p.locks[pid]
                    assert [seat, c] in alllocked["commits"]
                    assert len(alllocked["commits"]) == 3  # phone, controller, bot
                    # before all-locked the host had the commitment only: every frame the
                    # phone sent up to then carries no selection and no nonce
                    cut = next(i for i, f in enumerate(p.sent)
                               if b'"reveal"' in f)
                    before = b"".join(p.sent[:cut])
                    assert b'"commit"' in before
                    assert n.hex().encode() not in before
                    assert codec.b64(n).encode() not in before
                    revealed = await p.expect("revealed", lambda f: f["pid"] == pid)
                    mine = [r for r in revealed["reveals"] if r[0] == seat]
                    assert mine and mine[0][1] == sel and mine[0][3] == uid
                    assert {r[0] for r in revealed["reveals"]} == {0, 1, 2}
                    # every commitment the controllers were sent verifies
                    commits = dict((a, b) for a, b in alllocked["commits"])
                    for r_seat, r_sel, r_nonce, r_uid in revealed["reveals"]:
                        assert codec.commitment(r_sel, codec.unb64(r_nonce), pid, r_uid) == \
                            commits[r_seat]
                    # the journal holds the commitment, then the reveal, never more early
                    kinds = [(e.kind, e.data) for e in s.console.journal.entries(TABLE)
                             if e.data.get("pid") == pid]
                    first_reveal = next(i for i, (k, _d) in enumerate(kinds)
                                        if k in ("reveal", "applied"))
                    for _k, d in kinds[:first_reveal]:
                        assert "sel" not in d and "nonce" not in d
            finally:
                await sim.stop()

    asyncio.run(main())


def test_a_phone_that_drops_mid_turn_resumes_with_its_lock(tmp_path: Path) -> None:
    """PIP Cycle, two phones. A locks, its WiFi drops (the WebSocket closes), it reconnects
    with the same uid and key: its seat and its lock are back (snapshot with its
    commitment), the prompt and `status locked` come again; when B locks, A reveals the
    choice it locked before the drop. B never sees anything of A's choice or hand before
    the reveal."""

    async def main() -> None:
        async with served(phone_config(tmp_path, game="pipcycle", players=2)) as s:
            a_uid, a_key, a_seat = await paired_phone(s, 0)
            b_uid, b_key, b_seat = await paired_phone(s, 1)
            a = Phone(s.ws_url, a_uid, a_key, play=True, hold=True)
            await a.connect()
            await a.join()
            prompt = await a.expect("prompt", lambda f: f["sealed"])
            pid = prompt["pid"]
            await a.expect("status", lambda f: f["pid"] == pid and f["state"] == "locked")
            sel, n, c = a.locks[pid]
            hand_a = json.loads((await a.expect("seatview"))["view"])["private"]["hands"][0]
            await a.close()  # WiFi gone
            await wait_for(lambda: not s.console.table.seats[0].online, what="A offline")
            assert s.console.box is not None and s.console.box.locked(0)

            again = Phone(s.ws_url, a_uid, a_key, play=True, locks=a.locks)
            await again.connect()
            mark = 0
            await again.join(snapshot=(pid, "locked", c))
            assert again.welcome is not None and again.welcome["seat"] == a_seat
            await again.expect("prompt", lambda f: f["pid"] == pid, after=mark)
            await again.expect("status", lambda f: f["pid"] == pid and f["state"] == "locked")
            assert again.seatviews(), "the view comes again after the new welcome"

            async with phone(s, b_uid, b_key, play=True) as b:
                await b.join()
                alllocked = await b.expect("alllocked", lambda f: f["pid"] == pid)
                assert [a_seat, c] in alllocked["commits"]
                revealed = await again.expect("revealed", lambda f: f["pid"] == pid)
                assert [a_seat, sel] == revealed["reveals"][a_seat][:2] or any(
                    r[0] == a_seat and r[1] == sel for r in revealed["reveals"])
                # what B got before the all-locked: nothing of A's choice, nothing of A's hand
                cut = next(i for i, f in enumerate(b.got) if f["t"] == "alllocked")
                early = json.dumps(b.got[:cut])
                assert codec.b64(n) not in early
                for view in b.seatviews():
                    assert isinstance(view["private"]["hands"][a_seat], int)
                    assert view["seat"] == b_seat
                    assert not any(card in json.dumps(view["private"]) for card in hand_a
                                   if card not in json.dumps(view["own"]))
            # one commit of A for that prompt in the journal: the lock was kept, not redone
            commits = [e for e in s.console.journal.entries(TABLE)
                       if e.kind == "commit" and e.data.get("pid") == pid
                       and e.data.get("seat") == a_seat]
            assert len(commits) == 1
            await again.close()

    asyncio.run(main())

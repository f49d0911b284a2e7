"""`seatview`: a phone gets its own seat's view over its link, for every registered game, and
nothing of another seat's; a controller that did not ask for it (no `seatview` in its hello's
caps: the hardware firmware) never gets one."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from dialbox.engine import game_info, game_names
from dialbox.runner.seatview import private_part, seatview_text
from dialbox_protocol import codec
from dialbox_protocol.frames import parse_frame
from dialbox_protocol.models import SeatView
from tests.host.harness import wait_for
from tests.phone.ws_helpers import paired_phone, phone, phone_config, served


@pytest.mark.parametrize("name", game_names())
def test_a_phone_gets_its_own_seats_view_in_every_game(tmp_path: Path, name: str) -> None:
    info = game_info(name)
    players = min(info.players)
    seats = info.seats({"players": players})

    async def main() -> None:
        cfg = phone_config(tmp_path, game=name, players=players,
                           bots=list(range(2, seats + 1)))
        async with served(cfg) as s:
            uid, key, seat = await paired_phone(s, 0)
            async with phone(s, uid, key) as p:
                await p.join()
                await p.expect("seatview")

                def current() -> str:
                    return seatview_text(s.console.game, seat, name=name)

                # the game waits for the phone (it does not answer): the view settles, and
                # the last one sent is exactly the seat's view now
                await wait_for(lambda: p.seatviews() and
                               json.dumps(p.seatviews()[-1], separators=(",", ":"))
                               == current(), what=f"{name}: the latest seatview")
                text = current()
                view = json.loads(text)
                assert view["game"] == name and view["seat"] == seat
                assert view["phase"] == "game"
                assert set(view) == {"game", "seat", "phase", "private", "own", "headline"}
                assert view["private"] == private_part(s.console.game, seat)
                frame = codec.encode("seatview", codec.MAX_SEQ, [text])
                assert len(frame) <= codec.MAX_FRAME
                assert isinstance(parse_frame(frame[:-1]), SeatView)
                # nothing of the other seats' private parts that seat 0 cannot see
                game = s.console.game
                mine = json.dumps(game.view(seat))
                for other in range(game.options.players):
                    if other == seat:
                        continue
                    for key, value in private_part(game, other).items():
                        shown = json.dumps(value)
                        if shown not in mine and key != "seat":
                            assert shown not in text, (name, other, key)

    asyncio.run(main())


def test_pip_cycle_a_phone_sees_its_hand_and_only_counts_of_the_others(tmp_path: Path) -> None:
    async def main() -> None:
        async with served(phone_config(tmp_path, game="pipcycle", players=3, bots=[3])) as s:
            a = await paired_phone(s, 0)
            b = await paired_phone(s, 1)
            async with phone(s, a[0], a[1]) as pa, phone(s, b[0], b[1]) as pb:
                await pa.join()
                await pb.join()
                va = json.loads((await pa.expect("seatview"))["view"])
                vb = json.loads((await pb.expect("seatview"))["view"])
                game = s.console.game
                hands = game.snapshot()["hands"]
                assert va["private"]["hands"][0] == hands[0]
                assert vb["private"]["hands"][1] == hands[1]
                assert va["private"]["hands"][1] == len(hands[1])
                assert va["private"]["hands"][2] == len(hands[2])  # the bot's: a count
                assert vb["private"]["hands"][0] == len(hands[0])
                for card in hands[1]:
                    assert f'"{card}"' not in json.dumps(va["private"])

    asyncio.run(main())


def test_a_controller_without_the_cap_never_gets_a_seatview(tmp_path: Path) -> None:
    async def main() -> None:
        async with served(phone_config(tmp_path, game="pipcycle", players=2, bots=[2])) as s:
            uid, key, _seat = await paired_phone(s, 0)
            async with phone(s, uid, key, caps=["oled", "led"], play=True) as p:
                await p.join()
                prompt = await p.expect("prompt", lambda f: f["sealed"])
                await p.expect("revealed", lambda f: f["pid"] == prompt["pid"])
                assert not [f for f in p.got if f["t"] == "seatview"]

    asyncio.run(main())


def test_the_menu_has_one_code_and_a_menu_view(tmp_path: Path) -> None:
    async def main() -> None:
        async with served(phone_config(tmp_path, game="", menu=True)) as s:
            uid, key, seat = await paired_phone(s)
            assert seat == 0
            async with phone(s, uid, key) as p:
                await p.join()
                view = json.loads((await p.expect("seatview"))["view"])
                assert view == {"game": None, "seat": 0, "phase": "menu", "private": {},
                                "own": {}, "headline": ""}
                await p.expect("prompt")  # the menu asks the seated phone
                codes = s.console.join_codes()
                assert [c.seat for c in codes] == [1]  # the next free place, one code

    asyncio.run(main())

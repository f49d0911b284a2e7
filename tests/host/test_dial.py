"""`dial` on the host: decoded, validated and handed to the session host's on_message like any
controller frame (never acknowledged: it is unreliable); a game's runner ignores it."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from dialbox.journal import Journal
from dialbox.runner import GameRunner, TableSettings
from dialbox.sessions import Session
from dialbox.table import TableState
from dialbox.transports.local import LocalLink
from dialbox_protocol import codec
from dialbox_protocol.frames import to_frame
from dialbox_protocol.models import Ack, Dial, Error, Hello, Identify, Snapshot, Welcome
from tests.host.games import DUEL
from tests.host.test_runner import Seated, sit
from tests.host.test_session import _Host, _next, frames_until_pong


async def _delivered() -> None:
    host_end, dev = LocalLink.pair("t")
    host = _Host()
    session = Session(host_end, host)
    task = asyncio.create_task(session.run())
    frames = dev.__aiter__()

    async def until_pong(ms: int) -> list[Any]:
        return await frames_until_pong(dev, frames, ms)

    try:
        assert isinstance(await _next(frames), Identify)
        await dev.send(to_frame(Hello(fw="t", board="local", uid="d1")))
        assert isinstance(await _next(frames), Welcome)
        await dev.send(to_frame(Ack(ref=1)))
        await dev.send(to_frame(Snapshot(seq=1, pid=None, state="idle")))
        assert [type(f) for f in await until_pong(1)] == [Ack]
        await dev.send(to_frame(Dial(pid=5, sel=(-1, 2, -1))))
        # a dial out of the limits is dropped: never handed over, never answered (seq 0)
        body = b'["dial",0,5,[0,0,40]]'
        await dev.send(body + b"%08x\n" % codec.crc32(body))
        await dev.send(to_frame(Dial(pid=5, sel=(-1, 3, -1))))
        assert await until_pong(2) == []  # no ack, no error
        dials = [m for m in host.messages if isinstance(m, Dial)]
        assert dials == [Dial(pid=5, sel=(-1, 2, -1)), Dial(pid=5, sel=(-1, 3, -1))]
    finally:
        await host_end.close()
        await asyncio.wait_for(task, 5)


def test_a_dial_frame_reaches_the_session_hosts_on_message() -> None:
    asyncio.run(_delivered())


def test_a_game_runner_ignores_dial_frames() -> None:
    """Seated or not, for the open prompt or any other: nothing published, journaled, posted
    (no error frame)."""
    journal = Journal(":memory:")
    runner = GameRunner(TableSettings("t1", DUEL, 2, seed=3, bots=[1], pairing="auto"), journal)
    states: list[TableState] = []
    runner.feed.listen(states.append)
    red = Seated("ctl-red")
    sit(runner, red)
    box = runner.box
    assert box is not None and 0 in box.seats
    stranger = Seated("ctl-stranger")  # never admitted: no seat
    before = (len(states), len(journal.entries("t1")), runner.state())
    posted = (len(red.sent), len(stranger.sent))
    for who, pid in ((red, box.pid), (red, box.pid + 7), (stranger, box.pid)):
        runner.on_message(cast(Session, who), Dial(pid=pid, sel=(0, 1, -1)))
    assert (len(states), len(journal.entries("t1")), runner.state()) == before
    assert (len(red.sent), len(stranger.sent)) == posted
    assert not [m for m in red.sent + stranger.sent if isinstance(m, Error)]

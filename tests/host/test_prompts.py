"""Prompt timeouts with the game's default, unlocking, and the in-process transport."""

from __future__ import annotations

import asyncio
from pathlib import Path

from dialbox.doubles import ControllerDouble
from dialbox.lockbox import Lockbox, Phase
from dialbox.runner import GameRunner
from dialbox.transports.local import LocalLink
from dialbox_protocol import codec
from dialbox_protocol.frames import to_frame
from dialbox_protocol.models import Ack, Hello, Identify, Prompt, Reveal, Snapshot, Welcome
from tests.host.harness import (
    TABLE,
    check_integrity,
    doubles,
    key_for,
    running_daemon,
    table_config,
    wait_for,
)


async def _seated_and_prompted(runner: GameRunner, ds: list[ControllerDouble]) -> Lockbox:
    """Each controller presses to take its seat; returns the first sealed prompt's lockbox
    once every controller shows that prompt."""
    for d in ds:
        await wait_for(lambda: d.prompt is not None, what="pairing prompt")  # noqa: B023
        d.lock()
    await wait_for(lambda: runner.box is not None and runner.box.sealed
                   and all(d.prompt and d.prompt["pid"] == runner.box.pid for d in ds))
    assert runner.box is not None
    return runner.box


async def _timeout_and_unlock(tmp_path: Path) -> None:
    uids = ["ctl-a", "ctl-b"]
    cfg = table_config(tmp_path, players=2, uids=uids, options={"rounds": 1},
                       prompt_timeout=1.0)
    async with running_daemon(cfg) as daemon, doubles(tmp_path, uids, auto=False) as (a, b):
        runner = daemon.runners[TABLE]
        box = await _seated_and_prompted(runner, [a, b])
        a.turn(1, 2)
        a.lock()
        await wait_for(lambda: box.locked(0), what="a locked")
        a.unlock()  # long press: take it back while b has not locked
        await wait_for(lambda: not box.locked(0) and a.secret is None, what="a unlocked")
        a.turn(1, 3)
        a.lock()
        await wait_for(lambda: box.locked(0), what="a locked again")
        # b never locks: the prompt times out and b takes the game's default (E 1)
        await wait_for(lambda: box.phase == Phase.COMPLETE, what="timeout")
        assert box.defaults == {1: (2, 1, -1)}
        assert box.reveals[0] == tuple(a.locks[box.pid])
        check_integrity(daemon.journal, [a])


def test_prompt_timeout_takes_the_default_and_unlock_works(tmp_path: Path) -> None:
    asyncio.run(_timeout_and_unlock(tmp_path))


async def _local(tmp_path: Path) -> None:
    cfg = table_config(tmp_path, players=1, uids=[])
    cfg["serial"] = {"enabled": False}
    async with running_daemon(cfg) as daemon:
        host_end, dev = LocalLink.pair("in-process")
        daemon.attach(host_end, TABLE)
        frames = aiter(dev)

        async def expect(kind: type) -> object:
            while True:
                m = await asyncio.wait_for(anext(frames), 5)
                if isinstance(m, kind):
                    if getattr(m, "seq", 0) and kind is not Ack:
                        await dev.send(to_frame(Ack(ref=m.seq)))
                    return m

        ident = await expect(Identify)
        assert isinstance(ident, Identify)
        mac = codec.hello_mac(key_for(tmp_path, "bot-desk"), ident.challenge, "bot-desk")
        await dev.send(to_frame(Hello(fw="t", board="local", uid="bot-desk", mac=mac)))
        w = await expect(Welcome)
        assert isinstance(w, Welcome) and w.seat == -1
        await dev.send(to_frame(Snapshot(seq=1, pid=None, state="idle")))
        p = await expect(Prompt)
        assert isinstance(p, Prompt) and not p.sealed and "seat 1" in p.text
        await dev.send(to_frame(Reveal(seq=2, pid=p.pid, sel=(-1, -1, -1),
                                       nonce=codec.b64(bytes(12)))))
        w2 = await expect(Welcome)
        assert isinstance(w2, Welcome) and w2.seat == 0
        assert daemon.runners[TABLE].table.seat_of("bot-desk") is not None


def test_in_process_link_pairs_a_controller(tmp_path: Path) -> None:
    asyncio.run(_local(tmp_path))


async def _late_frames(tmp_path: Path) -> None:
    """A seat that never reveals voids the prompt; its late reveal for the voided prompt is
    acknowledged and ignored (no `unknown_prompt` on its screen), while a frame for a prompt
    that never was still gets `unknown_prompt`."""
    uids = ["ctl-a", "ctl-b"]
    cfg = table_config(tmp_path, players=2, uids=uids, options={"rounds": 1},
                       reveal_timeout=1.0)
    async with running_daemon(cfg) as daemon, doubles(tmp_path, uids, auto=False) as (a, b):
        runner = daemon.runners[TABLE]
        box = await _seated_and_prompted(runner, [a, b])
        a._later = lambda fn, think=(0.0, 0.0): None  # type: ignore[method-assign]
        a.lock()  # a's controller will not reveal when all are locked
        secret = a.secret  # (the void's `revealed` clears it from a's flash)
        assert secret is not None and secret["pid"] == box.pid
        b.lock()
        await wait_for(lambda: runner.box is not box, what="the prompt voided")
        assert [e.kind for e in daemon.journal.entries(TABLE)].count("void") == 1
        late = a.send("reveal", box.pid, secret["sel"], secret["nonce"])
        never = a.send("uncommit", (box.pid + 1000) % codec.MAX_PID)
        seqs = [codec.decode_frame(f)["seq"] for f in (late, never)]  # type: ignore[index]
        await wait_for(lambda: all(s not in a._unacked for s in seqs), what="both acknowledged")
        await wait_for(lambda: any(e["ref"] == seqs[1] for e in a.errors), what="unknown_prompt")
        refused = {e["ref"]: e["code"] for e in a.errors}
        assert refused[seqs[1]] == codec.E_PROMPT
        assert seqs[0] not in refused


def test_a_late_reveal_for_a_voided_prompt_is_ignored(tmp_path: Path) -> None:
    asyncio.run(_late_frames(tmp_path))

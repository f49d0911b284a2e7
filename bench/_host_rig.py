"""The measuring rig of the host benchmark (bench.host), in processes of its own:

    python -m bench._host_rig latency JSON   # 6 controller doubles + the bare echo client
    python -m bench._host_rig capacity JSON  # many auto-playing controller doubles

(the far end of the bare echo is bench._echo).

Each writes JSON lines on stdout for bench.host, which starts the daemon, reads the lines and
prints. Every timestamp is taken here, on the controllers' side, on CLOCK_MONOTONIC
(bench._stats.now), the moment the frame was handled.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import os
import random
import sys
import tty
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gmqtt
from gmqtt.mqtt.constants import MQTTv311

from bench._rounds import ECHO_TABLE, ECHO_UID, SEATS, bench_key, password
from bench._stats import now
from dialbox.doubles import ControllerDouble
from dialbox.transports.mqtt import FRAME_QOS

ECHO_BYTES = 48


def emit(**fields: Any) -> None:
    print(json.dumps(fields), flush=True)


def echo_message(seq: int) -> bytes:
    """One bare echo message: ECHO_BYTES bytes, a sequence number, a newline."""
    head = b"E%09d" % seq
    return head + b"x" * (ECHO_BYTES - len(head) - 1) + b"\n"


# ---------------------------------------------------------------- bare echo, the rig's end

class EchoClient:
    """The rig's end of the bare link: sends one message and times its echo."""

    def __init__(self) -> None:
        self.seq = 0
        self.waiting: asyncio.Future[float] | None = None
        self._buf = bytearray()
        self._close: Callable[[], Any] = lambda: None
        self._send: Callable[[bytes], None] = lambda b: None

    def _got(self, data: bytes) -> None:
        t = now()
        self._buf += data
        while (nl := self._buf.find(b"\n")) >= 0:
            line, self._buf = bytes(self._buf[:nl]), self._buf[nl + 1:]
            w = self.waiting
            if (w is not None and not w.done() and line[:1] == b"E"
                    and line[1:10].isdigit() and int(line[1:10]) == self.seq):
                w.set_result(t)

    async def open_pty(self, link: Path) -> None:
        """A pty pair, raw both sides, its slave named by the symlink `link` (bench._echo
        opens it with pyserial-asyncio-fast, as the daemon opens a controller's port)."""
        master, slave = os.openpty()
        tty.setraw(slave)
        tty.setraw(master)
        os.set_blocking(master, False)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.ttyname(slave))
        loop = asyncio.get_running_loop()

        def readable() -> None:
            with contextlib.suppress(BlockingIOError, OSError):
                self._got(os.read(master, 4096))

        loop.add_reader(master, readable)
        def send(data: bytes) -> None:
            os.write(master, data)

        self._send = send

        def close() -> None:
            loop.remove_reader(master)
            os.close(master)
            os.close(slave)

        self._close = close

    async def open_mqtt(self, port: int) -> None:
        """A plain gmqtt client logged in as the controller user `echo`: publishes on its
        `up` topic, reads its `down` topic, at the frames' QoS."""
        root = f"dialbox/{ECHO_TABLE}/dev/{ECHO_UID}"
        c = gmqtt.Client(f"bench-{ECHO_UID}")
        c.set_auth_credentials(ECHO_UID, password(ECHO_UID))

        def on_message(_c: Any, _topic: str, payload: bytes, _q: int, _p: Any) -> int:
            self._got(payload)
            return 0

        c.on_message = on_message
        await c.connect("127.0.0.1", port, version=MQTTv311)
        c.subscribe(f"{root}/down", qos=FRAME_QOS)
        self._send = lambda b: c.publish(f"{root}/up", b, qos=FRAME_QOS)

        async def close() -> None:
            await c.disconnect()

        self._close = close

    async def rtt(self, timeout: float = 5.0) -> float:
        """One round trip, in ms."""
        self.seq += 1
        self.waiting = asyncio.get_running_loop().create_future()
        t0 = now()
        self._send(echo_message(self.seq))
        t1 = await asyncio.wait_for(self.waiting, timeout)
        return (t1 - t0) * 1000

    async def until_echoed(self, timeout: float = 30.0) -> None:
        """Probe until the far end answers (it may start after the rig)."""
        end = now() + timeout
        while True:
            with contextlib.suppress(TimeoutError):
                await self.rtt(0.1)
                return
            if now() > end:
                raise TimeoutError("the bare echo peer never answered")

    async def close(self) -> None:
        r = self._close()
        if asyncio.iscoroutine(r):
            with contextlib.suppress(Exception):
                await asyncio.wait_for(r, 2)


async def _stdin_closed() -> str:
    """The next line on stdin ('stop'), or '' once bench.host closes it."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, sys.stdin.readline)


# ---------------------------------------------------------------- reveal latency rig

class RigDouble(ControllerDouble):
    """A scripted controller double that tells the rig after every frame it handled."""

    def __init__(self, uid: str, rig: LatencyRig, **kw: Any) -> None:
        super().__init__(uid, auto=False, key=bench_key(uid), **kw)
        self.rig = rig
        self.held: int | None = None
        """The pid the host last said it holds this controller's commitment for."""

    def _handle(self, msg: Any) -> None:
        super()._handle(msg)
        if isinstance(msg, dict):
            t = msg.get("t")
            if t == "status" and msg.get("state") == "locked":
                self.held = msg["pid"]
            elif t in ("alllocked", "revealed"):
                self.rig.mark(t, msg.get("pid"))
            self.rig.poke()


class LatencyRig:
    """6 scripted controllers at one table and the bare echo client, one process."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self._pred: Callable[[], bool] | None = None
        self._fut: asyncio.Future[float] | None = None
        uids = [f"c{i}" for i in range(SEATS)]
        if spec["kind"] == "pty":
            self.ds = [RigDouble(u, self, link_dir=spec["links"]) for u in uids]
        else:
            self.ds = [RigDouble(u, self, mqtt={
                "host": "127.0.0.1", "port": spec["port"], "table": spec["table"], "user": u,
                "password": password(u)}) for u in uids]
        self.echo = EchoClient()
        self.marks: dict[Any, list[float]] = {}
        """pid -> [first `alllocked` handled, last `alllocked` handled, first `revealed`]."""

    def mark(self, t: str, pid: Any) -> None:
        m = self.marks.setdefault(pid, [0.0, 0.0, 0.0])
        if t == "alllocked":
            m[1] = now()
            if not m[0]:
                m[0] = m[1]
        elif not m[2]:
            m[2] = now()

    def poke(self) -> None:
        """A frame was handled: the awaited condition, if now true, gets its time."""
        f = self._fut
        if f is not None and not f.done() and self._pred is not None and self._pred():
            f.set_result(now())

    async def until(self, pred: Callable[[], bool], timeout: float) -> float:
        if pred():
            return now()
        self._pred, self._fut = pred, asyncio.get_running_loop().create_future()
        try:
            return await asyncio.wait_for(self._fut, timeout)
        finally:
            self._pred = self._fut = None

    async def run(self) -> None:
        s = self.spec
        if s["kind"] == "pty":
            await self.echo.open_pty(Path(s["echo_link"]))
        else:
            await self.echo.open_mqtt(s["port"])
        for d in self.ds:
            await d.start()
        await self.echo.until_echoed()
        # This rig's own collector stays out of the rounds. Its collections paused the six
        # doubles and the echo for 1-14 ms, and that was counted as the host's latency and
        # the bare link's. The rounds make little garbage: reference counting frees it, and
        # the collector runs again once they are over (docs/host.md, "Benchmarks").
        gc.collect()
        gc.freeze()
        gc.disable()
        emit(ready=True)
        ds, last = self.ds, self.ds[-1]
        done: set[int] = set()
        reveals: list[float] = []
        bare: list[float] = []
        rows: list[list[Any]] = []  # as the capacity rig's marks, for bench.host.hops
        warm, rounds, per_round = s["warmup"], s["rounds"], s["bare_per_round"]

        def prompted() -> bool:
            p = ds[0].prompt
            return (p is not None and p["pid"] not in done
                    and all(d.prompt is not None and d.prompt["pid"] == p["pid"]
                            and d.state == "idle" for d in ds))

        try:
            for r in range(warm + rounds):
                if r == warm:
                    emit(counting=True)  # bench.host reads the daemon's CPU from here on
                await self.until(prompted, 30)
                pid: int = ds[0].prompt["pid"]  # type: ignore[index]
                for d in ds[:-1]:
                    d.lock()

                def held(pid: int = pid) -> bool:
                    return all(d.held == pid for d in ds[:-1])

                def revealed(pid: int = pid) -> bool:
                    return all(pid in d.closed for d in ds)

                await self.until(held, 10)
                # the bare link's round trips, between two reveals: the same moment's load
                rtts = [await self.echo.rtt() for _ in range(per_round)]
                t0 = now()
                last.lock()
                t1 = await self.until(revealed, 10)
                done.add(pid)
                if r >= warm:
                    reveals.append((t1 - t0) * 1000)
                    bare += rtts
                    rows.append(["", pid, t0, t1, SEATS, *self.marks.get(pid, [])])
                self.marks.pop(pid, None)
            emit(reveal_ms=reveals, bare_ms=bare, qos=FRAME_QOS, rows=rows)
        finally:
            gc.enable()
            for d in ds:
                await d.stop()
            await self.echo.close()


# ---------------------------------------------------------------- capacity rig

def mark_prompts(d: ControllerDouble, table: str, marks: dict[tuple[str, int], list[float]],
                 revealed: Callable[[list[float]], None] | None = None) -> None:
    """Time one double's prompts: marks[(table, pid)] = [its table's last lock, last
    `revealed` handled, how many of the table's controllers handled it, first and last
    `alllocked` handled, first `revealed` handled] (`revealed` is called with that entry
    after each). The hops between them say where a slow reveal spent its time: the host and
    broker (lock -> first alllocked, last alllocked -> first revealed) or this rig's own
    turn through the table's 6 doubles (first -> last of each)."""

    def on_frame(msg: dict[str, Any]) -> None:
        t = msg["t"]
        if t == "revealed":
            m = marks.setdefault((table, msg["pid"]), [0.0, 0.0, 0, 0.0, 0.0, 0.0])
            m[1] = now()
            m[2] += 1
            if not m[5]:
                m[5] = m[1]
            if revealed is not None:
                revealed(m)
        elif t == "alllocked":
            m = marks.setdefault((table, msg["pid"]), [0.0, 0.0, 0, 0.0, 0.0, 0.0])
            m[4] = now()
            if not m[3]:
                m[3] = m[4]

    d.on_frame = on_frame
    real_lock = d.lock

    def lock() -> None:
        p = d.prompt
        real_lock()
        if p is not None:
            marks.setdefault((table, p["pid"]), [0.0, 0.0, 0, 0.0, 0.0, 0.0])[0] = now()

    d.lock = lock  # type: ignore[method-assign]


async def capacity_rig(spec: dict[str, Any]) -> None:
    """Many auto-playing doubles, each dialling and locking `think` seconds (uniform in the
    range) after its prompt. Says `ready` once the host welcomed every one; with
    `warm_prompts`, says `warm` once every table of this process has completed that many
    prompts. Runs until bench.host writes a line on stdin, then prints, per prompt, the last
    lock, the last `revealed` and how many of the table's controllers handled `revealed`."""
    port, tables = spec["port"], spec["tables"]
    think = tuple(spec.get("think", (0.6, 0.95)))
    ds: list[ControllerDouble] = []
    # (table, pid) -> [last lock, last revealed, revealed count]
    marks: dict[tuple[str, int], list[float]] = {}
    completed = dict.fromkeys(tables, 0)
    """Per table: prompts every controller of it handled `revealed` for."""

    def hook(d: ControllerDouble, table: str) -> None:
        def done(m: list[float]) -> None:
            if m[2] == SEATS:
                completed[table] += 1

        mark_prompts(d, table, marks, done)

    for table in tables:
        for i in range(SEATS):
            uid = f"{table}-c{i}"
            d = ControllerDouble(uid, auto=True, think=think, keep=2, mqtt={
                "host": "127.0.0.1", "port": port, "table": table, "user": uid,
                "password": password(uid)}, key=bench_key(uid))
            hook(d, table)
            ds.append(d)

    async def sit_down(table_ds: list[ControllerDouble]) -> None:
        # tables start at different moments within a second, as at a real event (all in
        # phase, every table would lock in the same few hundred milliseconds)
        await asyncio.sleep(random.uniform(0, 1))
        await asyncio.gather(*(d.start() for d in table_ds))

    await asyncio.gather(*(sit_down(ds[k:k + SEATS]) for k in range(0, len(ds), SEATS)))
    # connected to the broker is not enough: ready once the host welcomed every controller
    await asyncio.wait_for(asyncio.gather(*(d.welcomed.wait() for d in ds)), 300)
    gc.collect()
    gc.freeze()  # the doubles are long-lived: keep them out of the collector's full passes
    # and, as in the latency rig, no collections while the rig measures: their pauses (up to
    # 100 ms over 600 doubles) were counted as the host's latency (docs/host.md)
    gc.disable()
    emit(ready=True)
    stop = asyncio.ensure_future(_stdin_closed())
    try:
        if spec.get("warm_prompts"):
            while not stop.done() and min(completed.values()) < spec["warm_prompts"]:
                await asyncio.wait([stop], timeout=0.2)
            emit(warm=min(completed.values()))
        await stop
    finally:
        gc.enable()
    out = [[t, pid, *m] for (t, pid), m in marks.items()]
    emit(prompts=out)
    for d in ds:
        await d.stop()


def main(argv: list[str]) -> None:
    import resource

    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    mode, spec = argv[0], json.loads(argv[1])
    if mode == "latency":
        asyncio.run(LatencyRig(spec).run())
    elif mode == "capacity":
        asyncio.run(capacity_rig(spec))
    else:
        raise SystemExit(f"bench._host_rig: no mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv[1:])

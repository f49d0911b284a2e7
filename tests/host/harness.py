"""Shared helpers for the daemon tests: configs, a daemon in this process, integrity checks."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from dialbox.daemon import Daemon
from dialbox.daemon.config import parse_config
from dialbox.doubles import ControllerDouble
from dialbox.journal import Journal
from dialbox.processes import stop_process
from dialbox.sessions.keys import KeyStore
from tests.host.games import DUEL

TABLE = "t1"


def table_config(work: Path, *, players: int = 2, uids: list[str] | None = None,
                 bots: list[int] | None = None, mqtt: dict[str, Any] | None = None,
                 **table: Any) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "host": {"name": "test-host", "journal": str(work / "journal.sqlite")},
        "serial": {"ports": [str(work / "links" / "*")], "usb": []},
        # any free port for the table screen of a `dialbox run`: tests run side by side
        # (pytest-xdist), and the default 8080 would be taken by the first
        "display": {"port": 0},
        "tables": [{
            "name": TABLE, "game": DUEL, "players": players, "seed": 5,
            "controllers": uids or [], "bots": bots or [], "pairing": "press",
            "options": {"rounds": 3}, "menu": False, **table,
        }],
    }
    if mqtt is not None:
        cfg["serial"] = {"enabled": False}
        cfg["mqtt"] = mqtt
    return cfg


async def wait_for(pred: Callable[[], bool], timeout: float = 30.0, what: str = "") -> None:
    """Bounded polling until `pred()` holds (the bound only catches hangs; no timing is judged)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not pred():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what or pred}")
        await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def running_daemon(cfg: dict[str, Any]) -> AsyncIterator[Daemon]:
    daemon = Daemon(parse_config(cfg, "test"))
    task = asyncio.create_task(daemon.run())
    try:
        yield daemon
    finally:
        daemon.stop()
        await asyncio.wait_for(task, 10)
        daemon.journal.close()


def key_for(work: Path, uid: str) -> bytes:
    """The device key of `uid` in the key store of a daemon made by `table_config(work)`
    (`keys` next to its journal), provisioned now if it has none: what `dialbox firmware
    provision` does at pairing."""
    return KeyStore(work / "keys").ensure(uid)


@contextlib.asynccontextmanager
async def doubles(work: Path, uids: list[str], **kw: Any) -> AsyncIterator[list[ControllerDouble]]:
    ds = [ControllerDouble(u, link_dir=work / "links", state_file=work / f"{u}.flash",
                           seed=i, **{"key": key_for(work, u), **kw})
          for i, u in enumerate(uids)]
    try:
        for d in ds:
            await d.start()
        yield ds
    finally:
        for d in ds:
            await d.stop()


def check_integrity(journal: Journal, controllers: list[ControllerDouble],
                    table: str = TABLE) -> int:
    """No lost, duplicated or changed choice: every applied answer of a controller's seat is
    exactly what that controller locked for that prompt; every decision is applied once.
    Returns the number of decisions applied."""
    entries = journal.entries(table)
    seat_uid = {e.data["seat"]: e.data["uid"] for e in entries if e.kind == "seat"}
    by_uid = {c.uid: c for c in controllers}
    decisions: list[int] = []
    for e in entries:
        if e.kind != "applied":
            continue
        decisions.append(e.data["decision"])
        for seat, sel in e.data["answers"]:
            uid = seat_uid.get(seat)
            if uid is None or uid not in by_uid:
                continue  # a bot's seat
            locked = by_uid[uid].locks.get(e.data["pid"])
            assert locked == sel, (
                f"seat {seat + 1} ({uid}) prompt {e.data['pid']}: applied {sel}, locked {locked}")
    assert len(decisions) == len(set(decisions)), f"a decision was applied twice: {decisions}"
    assert decisions == sorted(decisions)
    return len(decisions)


class Broker:
    """A real Mosquitto with a generated ACL config on an ephemeral port, stopped by pid."""

    def __init__(self, work: Path, uids: list[str], table: str = TABLE) -> None:
        from dialbox.broker import write_broker_config
        from dialbox.daemon.embedded import free_port

        self.work = work
        self.port = free_port()
        self.files = write_broker_config(work / "broker", {table: uids}, port=self.port,
                                         bind="127.0.0.1", admin_user="admin")
        self.creds = self.files.credentials
        self.proc: Any = None

    async def start(self) -> None:
        import shutil
        import subprocess

        from dialbox.daemon.embedded import wait_port

        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        self.proc = subprocess.Popen([exe, "-c", str(self.files.conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        await wait_port(self.port)

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc, 10)
            self.proc = None

    def host_mqtt(self) -> dict[str, Any]:
        return {"host": "127.0.0.1", "port": self.port, "user": "host",
                "password": self.creds["host"]}

    def device(self, uid: str, table: str = TABLE) -> dict[str, Any]:
        return {"host": "127.0.0.1", "port": self.port, "table": table, "user": uid,
                "password": self.creds[uid]}


@contextlib.asynccontextmanager
async def mqtt_doubles(broker: Broker, uids: list[str], **kw: Any
                       ) -> AsyncIterator[list[ControllerDouble]]:
    ds = [ControllerDouble(u, mqtt=broker.device(u), seed=i,
                           **{"key": key_for(broker.work, u), **kw})
          for i, u in enumerate(uids)]
    try:
        for d in ds:
            await d.start()
        yield ds
    finally:
        for d in ds:
            await d.stop()


class Cable:
    """A TCP relay between controllers and the broker that a test can cut (WiFi loss: the
    broker sees the socket die without a DISCONNECT, so last wills fire) and mend."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.port = 0
        self.up = True
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", self.port,
                                                  reuse_address=True)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _relay(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        if not self.up:
            w.transport.abort()
            return
        try:
            tr, tw = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            w.transport.abort()
            return
        self._writers |= {w, tw}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    dst.write(data)
            except (ConnectionError, OSError):
                pass
            finally:
                dst.transport.abort()

        await asyncio.gather(pipe(r, tw), pipe(tr, w))

    def cut(self) -> None:
        """No route any more: live connections die, new ones are refused."""
        self.up = False
        if self._server is not None:
            self._server.close()
        for w in self._writers:
            w.transport.abort()
        self._writers.clear()

    async def mend(self) -> None:
        self.up = True
        await self.start()

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()

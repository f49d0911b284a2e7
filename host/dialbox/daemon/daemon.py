"""The host daemon: one journal, its tables, serial hot-plug and one broker link per table."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import logging
from collections.abc import Callable
from typing import Any

from dialbox.console.console import Console
from dialbox.daemon.config import DaemonConfig
from dialbox.journal import Journal
from dialbox.phone.gateway import LocalPhones
from dialbox.sessions import Session
from dialbox.sessions.keys import Authenticator, KeyStore
from dialbox.transports.base import Link
from dialbox.transports.mqtt import BrokerAddress, MqttHub, MqttLink
from dialbox.transports.serial import DEFAULT_USB, SerialLink, SerialWatcher, UsbMatch
from dialbox_protocol.models import Error, Hello, Message, Snapshot, Welcome

log = logging.getLogger("dialbox.daemon")

STATE_EVERY = 0.5
"""Seconds between two retained state messages of one table on MQTT (the latest wins)."""
STATE_REFRESH = 30.0
"""Seconds after which an unchanged retained state is published again (a subscriber of
another node of a clustered broker never sees this node's retained copy)."""


FULL_COLLECTION_EVERY = 100
"""Collections of the middle generation (1) between two full ones (generation 2): CPython's
default is 10. A full collection walks every object made since the start-up freeze (the
controllers' links, sessions and tasks: 30-53 ms with 600 controllers per process) and stops
the loop meanwhile; at 10 it came about every 12 s in each worker at 200 tables, and its
pauses were in the reveals' 99th percentile (docs/host.md, "The daemon's collector")."""


def settle_collector() -> None:
    """Once the daemon is built (modules, schemas, tables, the journal replayed): what lives
    as long as the daemon is frozen, so no collection walks it again, and full collections
    come `FULL_COLLECTION_EVERY` middle-generation ones apart. Cyclic garbage is still
    collected: the younger collections find most of it, a full one the rest, later than with
    the default."""
    gc.collect()
    gc.freeze()
    young, middle, _full = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)


class SerialDesk:
    """Session host for serial links: sends each controller to its table by unique id."""

    def __init__(self, runners: list[Console]) -> None:
        self.runners = runners
        self.by_session: dict[int, Console] = {}

    def _pick(self, uid: str) -> Console:
        for r in self.runners:
            if r.table.seat_of(uid) is not None or uid in r.settings.controllers:
                return r
        for r in self.runners:
            if not r.settings.controllers and r.table.next_free() is not None:
                return r
        return self.runners[0]

    def admit(self, session: Session, hello: Hello) -> Welcome | Error:
        runner = self._pick(hello.uid)
        self.by_session[id(session)] = runner
        return runner.admit(session, hello)

    def on_snapshot(self, session: Session, snapshot: Snapshot) -> None:
        self.by_session[id(session)].on_snapshot(session, snapshot)

    def on_message(self, session: Session, msg: Message) -> None:
        self.by_session[id(session)].on_message(session, msg)

    def owes(self, session: Session) -> bool:
        runner = self.by_session.get(id(session))
        return runner is not None and runner.owes(session)

    def is_open(self, session: Session, pid: int) -> bool:
        runner = self.by_session.get(id(session))
        return runner is not None and runner.is_open(session, pid)

    def durable(self) -> None:
        for r in self.runners:
            r.durable()

    def on_offline(self, session: Session) -> None:
        runner = self.by_session.get(id(session))
        if runner is not None:
            runner.on_offline(session)


class Daemon:
    """Everything the host runs, started by `run()` and stopped by cancelling it or `stop()`."""

    def __init__(self, config: DaemonConfig, journal: Journal | None = None) -> None:
        self.config = config
        self.journal = journal or Journal(config.host.journal)
        self.hubs: dict[str, MqttHub] = {}
        self.runners = {
            t.name: Console(t.settings(), self.journal, config.host.name, menu=t.menu)
            for t in config.tables
        }
        self.sessions: list[Session] = []
        self.keys = KeyStore(config.host.keys_path())
        """The device keys each hello must prove (docs/host.md, "Device identity")."""
        self.auth = Authenticator(self.keys, config.host.require_keys)
        self.watcher: SerialWatcher | None = None
        self.desk = SerialDesk(list(self.runners.values()))
        self.phones = {name: LocalPhones(runner, self.keys, self.serve)
                       for name, runner in self.runners.items()}
        """Each table's phone gateway: pairing and WebSocket links of the phone page
        (dialbox.phone); the table screen finds it as its table's `phone`."""
        for name, runner in self.runners.items():
            runner.phone = self.phones[name]
        self._refreshers: list[Callable[[], None]] = []
        if config.mqtt is not None:
            m = config.mqtt
            address = BrokerAddress(m.host, m.port, m.user, m.password, m.tls_ca, m.keepalive)
            for name, runner in self.runners.items():
                # a user per table: the broker binds client ids to users (docs/host.md)
                self.hubs[name] = self._hub(
                    dataclasses.replace(address, user=m.user_for(name)), name, runner)
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[Any]] = []

    # ------------------------------------------------------------------ links -> sessions

    async def _serve(self, link: Link, host: Any) -> None:
        session = Session(link, host, self.config.host.name, self.auth)
        self.sessions.append(session)
        try:
            await session.run()
        finally:
            self.sessions.remove(session)

    async def serve(self, link: Link, host: Any) -> None:
        """Serve a link made elsewhere (a phone's) until it closes."""
        await self._serve(link, host)

    async def _serial_link(self, link: SerialLink) -> None:
        await self._serve(link, self.desk)

    def attach(self, link: Link, table: str | None = None) -> asyncio.Task[None]:
        """Serve a link made elsewhere (in-process controllers, tests)."""
        host: Any = self.runners[table] if table else self.desk
        task = asyncio.create_task(self._serve(link, host))
        self._tasks.append(task)
        return task

    # ------------------------------------------------------------------ running

    def stop(self) -> None:
        self._stop.set()

    async def run(self) -> None:
        cfg = self.config
        self._check_keys()
        try:
            for runner in self.runners.values():
                runner.start_timers()
            if cfg.serial.enabled:
                usb = (
                    [UsbMatch(u.vid, u.pid, u.serial_number) for u in cfg.serial.usb]
                    if cfg.serial.usb is not None else list(DEFAULT_USB)
                )
                self.watcher = SerialWatcher(self._serial_link, cfg.serial.ports, usb)
                self._tasks.append(asyncio.create_task(self.watcher.run()))
            for hub in self.hubs.values():
                self._tasks.append(asyncio.create_task(hub.run()))
            if self.hubs:
                self._tasks.append(asyncio.create_task(self._refresh_states()))
            await self._stop.wait()
        finally:
            for t in self._tasks:
                t.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            for s in list(self.sessions):
                await s.link.close()

    def _check_keys(self) -> None:
        """Say once at start what the key store means for the controllers."""
        uids = self.keys.uids()  # a broken file stops the start here, with its place
        if self.config.host.require_keys and not uids:
            log.warning("no device keys in %s: every controller is refused until it is paired "
                        "(dialbox firmware provision --config ...)", self.keys.path)
        elif not self.config.host.require_keys:
            log.warning("require_keys is off: controllers without a device key are admitted "
                        "unauthenticated (%d keys in %s)", len(uids), self.keys.path)

    def _hub(self, address: BrokerAddress, name: str, runner: Console) -> MqttHub:
        async def on_link(link: MqttLink) -> None:
            await self._serve(link, runner)

        hub = MqttHub(address, name, on_link, client_id=f"{self.config.host.name}-{name}")
        due: asyncio.TimerHandle | None = None
        last = sent_at = -STATE_EVERY
        sent, sent_on = b"", -1

        def send() -> None:
            nonlocal due, last, sent, sent_on, sent_at
            due = None
            last = asyncio.get_running_loop().time()
            payload = runner.state().to_json()
            # only a change goes out, or the same again on a new broker connection and
            # every STATE_REFRESH (see refresh)
            if (payload != sent or hub.connects != sent_on
                    or last - sent_at >= STATE_REFRESH):
                sent, sent_on, sent_at = payload, hub.connects, last
                hub.publish_state(payload)

        def refresh() -> None:
            # A restarted broker, or another node of a clustered one (RabbitMQ keeps retained
            # messages per node), may not hold the latest state: it goes again soon after
            # each new connection, and every STATE_REFRESH for subscribers of other nodes.
            if hub.connected.is_set() and due is None and (
                    hub.connects != sent_on
                    or asyncio.get_running_loop().time() - sent_at >= STATE_REFRESH):
                send()

        def changed() -> None:
            # at most one retained state message per table every STATE_EVERY seconds: the
            # first change goes at once, later ones wait for the next slot (made when sent,
            # so the latest state wins); the end of the game goes at once
            nonlocal due
            if runner.finished.is_set():
                if due is not None:
                    due.cancel()
                send()
            elif due is None:
                loop = asyncio.get_running_loop()
                due = loop.call_at(max(loop.time(), last + STATE_EVERY), send)

        runner.watchers.append(changed)
        self._refreshers.append(refresh)
        return hub

    async def _refresh_states(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            for refresh in self._refreshers:
                refresh()

    @property
    def finished(self) -> bool:
        return all(r.finished.is_set() for r in self.runners.values())

    async def wait_finished(self) -> None:
        await asyncio.gather(*(r.finished.wait() for r in self.runners.values()))

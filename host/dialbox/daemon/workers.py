"""`dialbox run` over several processes: a supervisor and its workers (docs/host.md, "Worker
processes").

    supervisor (`dialbox run --workers N`): displays of every table, no table of its own
      |-- worker 0  `python -m dialbox run --worker 0 --channel FD --parent PID`
      |             a Daemon over tables 0, N, 2N, ... of the config (+ the serial watcher)
      |-- worker 1  a Daemon over tables 1, N+1, ...
      ...

- **Assignment.** Table k of the config goes to worker k mod N: deterministic, so a restarted
  worker takes the same tables. The supervisor reads the config file at start and hands each
  worker its part of the file's data (its tables; serial for worker 0 only) over the channel,
  which the worker validates as `dialbox run` does a file; workers never read the file, so a
  config edited while the daemon runs cannot give one table to two workers.
- **Journal.** Every worker opens the config's one journal file (SQLite in WAL mode serves
  several processes; the busy timeout is 5 s) and writes only its own tables' rows, so a
  table's journal is the same whatever the worker count, and `dialbox audit` reads it as ever.
- **Channel.** One Unix socket pair per worker. The supervisor writes one line (the worker's
  index, config and the tables it must report), then only reads. The worker writes one line
  per message: `ready`, a followed table's public state (the `TableState` JSON of the MQTT
  `state` topic, at most every DISPLAY_EVERY s, the first change and the end of the game at
  once) with its link facts, and link facts alone every LINKS_EVERY s. Nothing private ever
  goes in: only what `Console.state()` and `Console.links()` give the displays today.
- **Lifetime.** A worker is SIGKILLed by the kernel when the supervisor dies
  (PR_SET_PDEATHSIG, set by the worker itself, which then checks that its parent is still the
  supervisor), and stops when the channel reaches EOF. Workers run in a process group of their
  own: a terminal's Ctrl-C reaches the supervisor, which stops them with SIGTERM. A worker
  that exits while the supervisor is not stopping is started again after a backoff
  (RESTART_FIRST doubling to RESTART_MAX, back to RESTART_FIRST after a run of RESTART_RESET),
  one log line each time; it resumes its tables from the journal. A worker that cannot start
  its tables for a reason a restart would not change (a journal that no longer replays, a
  broken key store) exits with FATAL: the supervisor stops the others and exits 1.

Why subprocesses of `python -m dialbox` rather than multiprocessing: a worker is exactly the
program `dialbox run` is (same entry point, logging, signals), its command line in `ps` says
which worker it is, its config is plain data (no pickled objects, no password on a command
line), and `spawn`/`forkserver` would re-run `dialbox/__main__.py`, which calls the command
line at import.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import dataclasses
import functools
import json
import logging
import math
import os
import shutil
import signal
import socket
import sys
import tempfile
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from dialbox.daemon.config import ConfigError, DaemonConfig, parse_config
from dialbox.table import Feed, LinkInfo, TableState

if TYPE_CHECKING:
    from dialbox.console.console import Console

log = logging.getLogger("dialbox.workers")

DISPLAY_EVERY = 0.1
"""Seconds between two public states of one followed table sent to the supervisor's displays
(the first change goes at once, later ones wait for the next slot, the end of the game goes at
once; made when sent, so the latest state wins)."""
LINKS_EVERY = 1.0
"""Seconds between two link-fact refreshes of a followed table (heartbeat ages on screen)."""
RESTART_FIRST = 0.5
RESTART_MAX = 30.0
RESTART_RESET = 60.0
"""A worker that ran this long before it exited is restarted after RESTART_FIRST again."""
STOP_GRACE = 10.0
"""Seconds the supervisor gives its workers to stop on SIGTERM before it SIGKILLs them."""
FATAL = 3
"""Exit status of a worker that cannot run its tables (restarting would not help)."""
CHANNEL_LIMIT = 16 * 1024 * 1024
MAX_BUFFERED = 4 * 1024 * 1024
"""Bytes a worker lets wait for a slow supervisor before it holds states back (the next
slot sends the latest)."""


# ---------------------------------------------------------------------- planning


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def default_workers(config: DaemonConfig) -> int:
    """One per core with MQTT; 1 for serial only (a port is one process's: every serial
    controller would sit at worker 0's tables anyway)."""
    return cores() if config.mqtt is not None else 1


def parse_workers(text: str) -> int:
    """`--workers N`: a whole number, 1 or more (ValueError with the message otherwise)."""
    digits = text.strip()
    if not (digits.isascii() and digits.isdigit()) or int(digits) < 1:
        raise ValueError(f"--workers takes a whole number of processes, 1 or more (not {text!r})")
    return int(digits)


def plan_workers(config: DaemonConfig, requested: int | None) -> tuple[int, str | None]:
    """How many workers to run (`--workers`, else [host] workers, else the default), never
    more than tables; and a note when a number asked for was lowered."""
    asked = requested if requested is not None else config.host.workers
    tables = len(config.tables)
    if asked is None:
        return min(default_workers(config), tables), None
    if asked > tables:
        return tables, (f"{asked} workers asked for {tables} table(s): running {tables}")
    return asked, None


def assign(tables: Sequence[str], workers: int) -> list[list[str]]:
    """Table k goes to worker k mod `workers` (round-robin over the config's order)."""
    return [list(tables[i::workers]) for i in range(workers)]


def config_data(path: str | Path, config: DaemonConfig) -> dict[str, Any]:
    """The config file's data, as read: the same that made `config` (ConfigError if the file
    changed in between). Workers get their part of it and validate it with their own code,
    as `dialbox run` does the file (a validated model dumped is not always valid input)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: changed or went away while it was read ({e})") from None
    if parse_config(data, str(path)) != config:
        raise ConfigError(f"{path}: changed while it was read: run again")
    return data


def worker_data(data: Mapping[str, Any], index: int, tables: Iterable[str]) -> dict[str, Any]:
    """Worker `index`'s part of the config data: its tables, and serial only for worker 0."""
    names = set(tables)
    out = dict(data)
    out["tables"] = [t for t in data["tables"] if t["name"] in names]
    if index != 0:
        out["serial"] = {"enabled": False}
    return out


def prepare(config: DaemonConfig) -> None:
    """What the supervisor checks before it starts anyone (one clear error, as `dialbox run`):
    the journal opens (and is made, in WAL mode, before several processes open it at once)
    and the key store reads."""
    from dialbox.journal import Journal
    from dialbox.sessions.keys import KeyStore

    Journal(config.host.journal).close()
    KeyStore(config.host.keys_path()).uids()


# ---------------------------------------------------------------------- the channel


@dataclasses.dataclass(frozen=True, slots=True)
class Join:
    """A free seat's join code, as a worker reported it (dialbox.phone.codes.JoinCode)."""

    code: str
    seat: int


def _joins_of(data: Any) -> list[Join]:
    if data is None:
        return []
    if not isinstance(data, list):
        raise ValueError("join: not a list")
    return [Join(str(code), int(seat)) for code, seat in data]


def _links_json(links: Mapping[str, LinkInfo]) -> bytes:
    return json.dumps({uid: dataclasses.asdict(info) for uid, info in links.items()},
                      separators=(",", ":")).encode()


def _links_of(data: Any) -> dict[str, LinkInfo]:
    if not isinstance(data, dict):
        raise ValueError("links: not an object")
    return {str(uid): LinkInfo(**facts) for uid, facts in data.items()}


def _line(header: dict[str, Any], links: bytes | None = None, state: bytes | None = None
          ) -> bytes:
    """`{header...,"links":{...}}` [TAB state JSON] NEWLINE: compact JSON holds no raw tab or
    newline, so the state travels as the runner made it and is parsed once, by TableState."""
    head = json.dumps(header, separators=(",", ":")).encode()
    if links is not None:
        head = head[:-1] + b',"links":' + links + b"}"
    return head + (b"\t" + state if state is not None else b"") + b"\n"


# ---------------------------------------------------------------------- supervisor side


class RemoteTable:
    """A table a worker runs, as the displays read a runner (`tablefeed.RunnerLike`): its
    latest public state, its link facts, and a feed of its states."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.feed: Feed[TableState] = Feed()
        self._state: TableState | None = None
        self._links: dict[str, LinkInfo] = {}
        self._joins: list[Join] = []
        self.on_first: Callable[[RemoteTable], None] | None = None
        """Called once, with the first state a worker reports (displays attach then)."""
        self.phone: object | None = None
        """The table's phone gateway (dialbox.phone.gateway.RelayPhones: pairing requests
        and phones' WebSockets relayed to the worker), set by the supervisor."""

    @property
    def known(self) -> bool:
        return self._state is not None

    def state(self) -> TableState:
        if self._state is None:
            raise LookupError(f"table {self.name}: no state from its worker yet")
        return self._state

    def links(self) -> dict[str, LinkInfo]:
        return dict(self._links)

    def join_codes(self) -> list[Join]:
        """The join codes of the free seats, as the worker last reported them."""
        return list(self._joins)

    def update(self, state: TableState, links: dict[str, LinkInfo],
               joins: list[Join] | None = None) -> None:
        first = self._state is None
        self._state, self._links = state, links
        if joins is not None:
            self._joins = joins
        if first and self.on_first is not None:
            self.on_first(self)
        self.feed.publish(state)

    def set_links(self, links: dict[str, LinkInfo], joins: list[Join] | None = None) -> None:
        self._links = links
        if joins is not None:
            self._joins = joins

    def lost(self) -> None:
        """Its worker died: its controllers are offline until the new worker reports."""
        if self._state is None:
            return
        seats = tuple(s.model_copy(update={"online": False}) if s.kind == "controller" else s
                      for s in self._state.seats)
        self.update(self._state.model_copy(update={"seats": seats, "pairing": ()}), {}, [])


def _describe(rc: int | None) -> str:
    if rc is None:
        return "could not be started"
    if rc < 0:
        try:
            return f"was killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"was killed by signal {-rc}"
    return f"exited with status {rc}"


@dataclasses.dataclass
class Slot:
    """One worker: its index and tables, and the process running them now."""

    index: int
    tables: list[str]
    proc: asyncio.subprocess.Process | None = None

    def signal(self, sig: signal.Signals) -> None:
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(sig)


class Supervisor:
    """Starts the workers, keeps them running, feeds the displays; `stop()` ends it all."""

    def __init__(self, config: DaemonConfig, data: Mapping[str, Any], workers: int,
                 follow: Iterable[str] = (), command: Sequence[str] | None = None) -> None:
        """`data`: the config file's data that made `config` (`config_data`)."""
        self.config = config
        self.data = data
        self.slots = [Slot(i, names) for i, names in
                      enumerate(assign([t.name for t in config.tables], workers))]
        self.remotes = {name: RemoteTable(name) for name in follow}
        self.command = list(command) if command is not None else [
            sys.executable, "-m", "dialbox", "run"]
        self.phone_dir = Path(tempfile.mkdtemp(prefix="dialbox-phones-"))
        """The workers' Unix sockets for phones (mode 0700: this user only), removed when
        the supervisor stops."""
        from dialbox.phone.gateway import RelayPhones

        for slot in self.slots:
            for name in slot.tables:
                if name in self.remotes:
                    self.remotes[name].phone = RelayPhones(self.phone_socket(slot), name)
        self.fatal = False
        self._stop = asyncio.Event()

    def stop(self) -> None:
        self._stop.set()

    def phone_socket(self, slot: Slot) -> Path:
        """Where worker `slot` listens for the phones of its tables."""
        return self.phone_dir / f"w{slot.index}.sock"

    def pids(self) -> list[int]:
        return [s.proc.pid for s in self.slots
                if s.proc is not None and s.proc.returncode is None]

    async def run(self) -> int:
        """Run until stop(); 0, or 1 when a worker could not run its tables."""
        for s in self.slots:
            log.info("worker %d: tables %s%s", s.index, ", ".join(s.tables),
                     " and the serial watcher" if s.index == 0 and self.config.serial.enabled
                     else "")
        if self.config.serial.enabled and len(self.slots) > 1:
            log.warning("serial controllers are seated at worker 0's tables only (%s)",
                        ", ".join(self.slots[0].tables))
        keepers = [asyncio.create_task(self._keep(s), name=f"worker-{s.index}")
                   for s in self.slots]
        try:
            await self._stop.wait()
            log.info("stopping %d workers", len(self.slots))
            for s in self.slots:
                s.signal(signal.SIGTERM)
            _done, pending = await asyncio.wait(keepers, timeout=STOP_GRACE)
            if pending:
                log.warning("workers still running after %.0f s: killing them", STOP_GRACE)
                for s in self.slots:
                    s.signal(signal.SIGKILL)
                await asyncio.wait(pending)
        finally:
            for s in self.slots:  # (cancelled or failed: no worker outlives the supervisor)
                s.signal(signal.SIGKILL)
            for k in keepers:
                k.cancel()
            await asyncio.gather(*keepers, return_exceptions=True)
            shutil.rmtree(self.phone_dir, ignore_errors=True)
        log.info("workers stopped")
        return 1 if self.fatal else 0

    async def _keep(self, slot: Slot) -> None:
        """Start the worker; each time it exits while nobody is stopping, start it again."""
        loop = asyncio.get_running_loop()
        delay = RESTART_FIRST
        while not self._stop.is_set():
            began = loop.time()
            rc = await self._run_once(slot)
            if self._stop.is_set():
                return
            if rc == FATAL:
                log.error("worker %d (tables %s) cannot run its tables: stopping",
                          slot.index, ", ".join(slot.tables))
                self.fatal = True
                self.stop()
                return
            for name in slot.tables:
                if name in self.remotes:
                    self.remotes[name].lost()
            if loop.time() - began >= RESTART_RESET:
                delay = RESTART_FIRST
            log.warning("worker %d (tables %s) %s: restarting it in %.1f s", slot.index,
                        ", ".join(slot.tables), _describe(rc), delay)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), delay)
            delay = min(delay * 2, RESTART_MAX)

    async def _run_once(self, slot: Slot) -> int | None:
        """One run of the worker, from its start to its exit status (None: no start)."""
        ours, theirs = socket.socketpair()
        try:
            try:
                slot.proc = await asyncio.create_subprocess_exec(
                    *self.command, "--worker", str(slot.index), "--channel",
                    str(theirs.fileno()), "--parent", str(os.getpid()),
                    stdin=asyncio.subprocess.DEVNULL, pass_fds=(theirs.fileno(),),
                    process_group=0)
            finally:
                theirs.close()
        except OSError as e:
            ours.close()
            log.error("worker %d: cannot start %s: %s", slot.index, self.command[0], e)
            return None
        proc = slot.proc
        if self._stop.is_set():
            slot.signal(signal.SIGTERM)
        reader, writer = await asyncio.open_unix_connection(sock=ours, limit=CHANNEL_LIMIT)
        hello = {"worker": slot.index,
                 "config": worker_data(self.data, slot.index, slot.tables),
                 "follow": [n for n in slot.tables if n in self.remotes],
                 "phones": str(self.phone_socket(slot))}
        writer.write(json.dumps(hello, separators=(",", ":")).encode() + b"\n")
        listener = asyncio.create_task(self._listen(slot, proc.pid, reader))
        try:
            rc = await proc.wait()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(listener), 1.0)
        finally:
            listener.cancel()
            writer.close()
        return rc

    async def _listen(self, slot: Slot, pid: int, reader: asyncio.StreamReader) -> None:
        while line := await reader.readline():
            head, _, state = line.rstrip(b"\n").partition(b"\t")
            try:
                msg = json.loads(head)
                kind = msg["t"]
                if kind == "ready":
                    log.info("worker %d (pid %d) ready: %s", slot.index, pid,
                             ", ".join(msg["tables"]))
                    continue
                remote = self.remotes.get(msg["table"])
                if remote is None:
                    continue
                if kind == "state":
                    remote.update(TableState.model_validate_json(state), _links_of(msg["links"]),
                                  _joins_of(msg.get("join")))
                elif kind == "links":
                    remote.set_links(_links_of(msg["links"]), _joins_of(msg.get("join")))
            except (ValueError, KeyError, TypeError) as e:  # (ValidationError is a ValueError)
                detail = e.errors()[0]["msg"] if isinstance(e, ValidationError) else str(e)
                log.error("worker %d sent an unreadable message (%s): not shown", slot.index,
                          detail)


# ---------------------------------------------------------------------- worker side


def _die_with_parent(parent: int) -> bool:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux), then check the
    parent is still the supervisor (it may have died before the request)."""
    with contextlib.suppress(OSError, AttributeError):  # no prctl: the channel's EOF stops it
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    return os.getppid() == parent


class StateRelay:
    """Worker side: sends the followed tables' public states and link facts to the
    supervisor, rate-limited per table as the daemon's MQTT `state` publisher is."""

    def __init__(self, writer: asyncio.StreamWriter, runners: Mapping[str, Console],
                 follow: Iterable[str]) -> None:
        self.writer = writer
        wanted = set(follow)
        self.runners = {n: r for n, r in runners.items() if n in wanted}
        self._due: dict[str, asyncio.TimerHandle] = {}
        self._last: dict[str, float] = {}
        self._held: set[str] = set()
        self._had_links: set[str] = set()
        self._sent: dict[str, bytes] = {}
        self._joins: dict[str, list[list[Any]]] = {}
        """The join codes last sent of each table."""
        self._ticker: asyncio.Task[None] | None = None

    def start(self) -> None:
        for name, runner in self.runners.items():
            runner.watchers.append(functools.partial(self.changed, name))
            self.send(name)
        if self.runners:
            self._ticker = asyncio.create_task(self._tick())

    def close(self) -> None:
        for h in self._due.values():
            h.cancel()
        self._due.clear()
        if self._ticker is not None:
            self._ticker.cancel()

    def message(self, header: dict[str, Any], links: bytes | None = None,
                state: bytes | None = None) -> None:
        self.writer.write(_line(header, links, state))

    def _congested(self) -> bool:
        t = self.writer.transport
        return t.is_closing() or t.get_write_buffer_size() > MAX_BUFFERED

    def changed(self, name: str) -> None:
        if self.runners[name].finished.is_set():
            due = self._due.pop(name, None)
            if due is not None:
                due.cancel()
            self.send(name)
        elif name not in self._due:
            loop = asyncio.get_running_loop()
            at = max(loop.time(), self._last.get(name, -math.inf) + DISPLAY_EVERY)
            self._due[name] = loop.call_at(at, self.send, name)

    def send(self, name: str) -> None:
        self._due.pop(name, None)
        if self._congested():
            self._held.add(name)  # the ticker sends the latest once the channel drains
            return
        self._held.discard(name)
        self._last[name] = asyncio.get_running_loop().time()
        runner = self.runners[name]
        links = runner.links()
        if links:
            self._had_links.add(name)
        state = runner.state().to_json()
        join = self.join(name)
        if state == self._sent.get(name):  # (a change the table does not see)
            self.message({"t": "links", "table": name, "join": join}, _links_json(links))
            return
        self._sent[name] = state
        self.message({"t": "state", "table": name, "join": join}, _links_json(links), state)

    def join(self, name: str) -> list[list[Any]]:
        """The table's join codes now ([code, seat] each), remembered as sent."""
        codes = [[j.code, j.seat] for j in self.runners[name].join_codes()]
        self._joins[name] = codes
        return codes

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(LINKS_EVERY)
            for name, runner in self.runners.items():
                if name in self._held:
                    self.send(name)
                    continue
                if self._congested():
                    continue
                links = runner.links()
                before = self._joins.get(name)
                join = self.join(name)
                if links or name in self._had_links or join != before:
                    self.message({"t": "links", "table": name, "join": join},
                                 _links_json(links))
                    if not links:
                        self._had_links.discard(name)


def _read_hello(sock: socket.socket) -> dict[str, Any] | None:
    buf = b""
    while b"\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        buf += chunk
    hello = json.loads(buf.split(b"\n", 1)[0])
    return hello if isinstance(hello, dict) else None


async def _work(index: int, sock: socket.socket, config: DaemonConfig,
                follow: list[str], phone_socket: str | None = None) -> None:
    from dialbox.daemon.daemon import Daemon, settle_collector

    reader, writer = await asyncio.open_unix_connection(sock=sock, limit=CHANNEL_LIMIT)
    daemon = Daemon(config)  # the journal replays here: a refused one raises EngineError
    # As `dialbox run`: what lives as long as the daemon is no longer walked by collections.
    settle_collector()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, daemon.stop)
    relay = StateRelay(writer, daemon.runners, follow)
    phones = None
    if phone_socket:  # the supervisor's relay of phones to this worker's tables
        from dialbox.phone.gateway import PhoneServer

        phones = PhoneServer(phone_socket, daemon.phones)
        await phones.start()
    relay.message({"t": "ready", "tables": list(daemon.runners)})
    relay.start()

    async def until_eof() -> None:
        while await reader.read(65536):
            pass
        log.warning("the supervisor is gone: stopping")
        daemon.stop()

    eof = asyncio.create_task(until_eof())
    try:
        await daemon.run()
    finally:
        eof.cancel()
        relay.close()
        if phones is not None:
            await phones.close()
        daemon.journal.close()
        writer.close()


def worker_main(index: int, channel: int, parent: int) -> int:
    """`dialbox run --worker I --channel FD --parent PID` (started by the Supervisor only)."""
    from dialbox.engine.errors import EngineError
    from dialbox.journal import JournalError
    from dialbox.sessions.keys import KeyStoreError

    if not _die_with_parent(parent):
        return 1  # the supervisor is already gone
    try:
        sock = socket.socket(fileno=channel)
        hello = _read_hello(sock)
    except (OSError, ValueError) as e:
        print(f"dialbox run: worker {index}: no channel to the supervisor ({e})",
              file=sys.stderr)
        return 1
    if hello is None:
        return 1
    try:
        config = parse_config(hello["config"], f"worker {index}")
    except ConfigError as e:
        print(f"dialbox run: {e}", file=sys.stderr)
        return FATAL
    logging.basicConfig(level=config.host.log_level.upper(),
                        format=f"%(asctime)s %(levelname)s w{index} %(name)s: %(message)s")
    try:
        phone_socket = hello.get("phones")
        asyncio.run(_work(index, sock, config, list(hello["follow"]),
                          phone_socket if isinstance(phone_socket, str) else None))
    except (EngineError, JournalError, KeyStoreError) as e:
        print(f"dialbox run: {e}", file=sys.stderr, flush=True)
        return FATAL
    return 0

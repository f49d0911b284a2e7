"""Bounded everything (issue 13, item 3): a hostile controller floods its link with oversized
and bursty input while another table plays a whole game.

The flooder runs in its own process (tests/host/flood.py). Each test asserts outcomes and
counts, never latencies: the other table finishes with nothing lost and kept playing during
the flood, the flood's log lines stay under what the link's LogLimit allows for the time it
lasted, the daemon's answers to it are bounded, and the daemon's memory does not balloon.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from dialbox import logbook
from dialbox.broker import write_broker_config
from dialbox.broker.mosquitto import MAX_PACKET
from dialbox.daemon import Daemon
from dialbox.logbook import LogLimit, TokenBucket
from dialbox.processes import stop_process
from dialbox.sessions import session as session_mod
from dialbox.transports.mqtt import MAX_STATE, MAX_UP_PAYLOAD, BrokerAddress, MqttHub
from dialbox.transports.serial import LineSplitter
from dialbox_protocol import codec
from tests.host.games import DUEL
from tests.host.harness import (
    TABLE,
    Broker,
    check_integrity,
    doubles,
    mqtt_doubles,
    running_daemon,
    table_config,
    wait_for,
)

ROGUE = "rogue"
VICTIMS = ["ctl-a", "ctl-b"]
ROUNDS = 10
THINK = (0.02, 0.06)
RSS_GROWTH_MB = 50
ONE_OFFS = 12
"""Lines about the rogue that are not input it sends: its port appearing, its hello refused
or seated, its link lost, "not a dialbox controller"..."""
REPO = Path(__file__).resolve().parents[2]


def _with_rogue_table(cfg: dict[str, Any]) -> dict[str, Any]:
    cfg["tables"].append({"name": "t2", "game": DUEL, "players": 1, "seed": 1,
                          "controllers": [ROGUE], "pairing": "press", "options": {"rounds": 1}})
    return cfg


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


class _Lines(logging.Handler):
    """Counts (and formats, as a real log would) the lines the daemon writes; keeps none,
    so that the memory measured is the daemon's."""

    def __init__(self, marker: str) -> None:
        super().__init__(logging.DEBUG)
        self.marker = marker
        self.total = 0
        self.rogue = 0
        """Lines naming the rogue's link."""

    def emit(self, record: logging.LogRecord) -> None:
        self.total += 1
        if self.marker in record.getMessage():
            self.rogue += 1

    def reset(self) -> None:
        self.total = self.rogue = 0


@contextlib.contextmanager
def _captured(marker: str) -> Any:
    """Every line the daemon's loggers write at info and above (the daemon's default), to
    this counter only (not to pytest's capture, which would keep them)."""
    root = logging.getLogger("dialbox")
    handler, level, propagate = _Lines(marker), root.level, root.propagate
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    root.propagate = False
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        root.propagate = propagate


class _Flooder:
    """tests/host/flood.py in its own process: ready -> go -> done (with its counts)."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.host.flood", *args],
                                     cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)

    async def line(self, timeout: float = 120) -> dict[str, Any]:
        assert self.proc.stdout is not None
        text = await asyncio.wait_for(
            asyncio.get_running_loop().run_in_executor(None, self.proc.stdout.readline), timeout)
        assert text, f"the flooder ended ({self.proc.poll()})"
        out: dict[str, Any] = json.loads(text)
        return out

    def go(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        stop_process(self.proc, 5)


@contextlib.asynccontextmanager
async def _flooder(*args: str) -> AsyncIterator[_Flooder]:
    f = _Flooder(*args)
    try:
        yield f
    finally:
        f.stop()


class _Rss:
    """The daemon's (this process's) resident memory, sampled while the flood lasts."""

    def __init__(self) -> None:
        self.base = _rss_mb()
        self.peak = self.base
        self._task = asyncio.create_task(self._sample())

    async def _sample(self) -> None:
        while True:
            self.peak = max(self.peak, _rss_mb())
            await asyncio.sleep(0.02)

    def stop(self) -> float:
        self._task.cancel()
        self.peak = max(self.peak, _rss_mb())
        return self.peak - self.base


def _applied(daemon: Daemon) -> int:
    return sum(1 for e in daemon.journal.entries(TABLE) if e.kind == "applied")


async def _flood_while_playing(daemon: Daemon, flooder: _Flooder, ds: list[Any],
                               lines: _Lines) -> dict[str, Any]:
    """Go once the other table plays; wait for the flood and that table's end; the counts."""
    runner = daemon.runners[TABLE]
    await wait_for(lambda: _applied(daemon) >= 1, 60, "the other table playing")
    assert not runner.finished.is_set()
    rss = _Rss()
    before = _applied(daemon)
    start = time.monotonic()
    ended = asyncio.ensure_future(runner.finished.wait())
    end_at: list[float] = []
    ended.add_done_callback(lambda _f: end_at.append(time.monotonic()))
    lines.reset()
    flooder.go()
    stats = await flooder.line()
    during = _applied(daemon) - before
    flood_over = time.monotonic() - start
    await asyncio.wait_for(ended, 120)
    await asyncio.sleep(0)
    finished = end_at[0] - start
    await asyncio.sleep(logbook.REPORT_EVERY + 0.3)  # the last "suppressed" lines
    growth = rss.stop()
    elapsed = time.monotonic() - start
    return {**stats, "applied_during": during, "rss_growth_mb": growth, "elapsed": elapsed,
            "flood_over_after": flood_over, "other_table_finished_after": finished,
            "decisions": check_integrity(daemon.journal, ds), "rogue_lines": lines.rogue,
            "all_lines": lines.total}


def _report(name: str, figures: dict[str, Any]) -> None:
    shown = {k: (round(v, 2) if isinstance(v, float) else v) for k, v in figures.items()}
    print(f"\n{name}: {json.dumps(shown)}")


# ---------------------------------------------------------------------------- serial


async def _serial(tmp_path: Path, *flood: str) -> dict[str, Any]:
    rogue_path = str(tmp_path / "links" / ROGUE)
    cfg = _with_rogue_table(table_config(tmp_path, players=2, uids=VICTIMS,
                                         options={"rounds": ROUNDS}))
    with _captured(rogue_path) as lines:
        async with _flooder("serial", *flood, "--", rogue_path) as flooder:
            await flooder.line()
            async with running_daemon(cfg) as daemon, doubles(tmp_path, VICTIMS,
                                                              think=THINK) as ds:
                await wait_for(lambda: daemon.watcher is not None and any(
                    v.name == rogue_path for v in daemon.watcher.links.values()), 30, "rogue port")
                assert daemon.watcher is not None
                link = next(v for v in daemon.watcher.links.values() if v.name == rogue_path)
                figures = await _flood_while_playing(daemon, flooder, ds, lines)
                splitter: LineSplitter = link._lines
                figures.update(frames_in=link.frames_in, long_lines=splitter.dropped,
                               kept=len(splitter.buf), suppressed=link.logbook.suppressed,
                               writes_dropped=link.dropped_out,
                               bound=link.logbook.bound(figures["elapsed"]) + ONE_OFFS)
                assert daemon.runners["t2"].table.seat_of(ROGUE) is None
    return figures


def test_a_serial_flood_costs_bounded_lines_and_memory(tmp_path: Path) -> None:
    f = asyncio.run(_serial(tmp_path))
    _report("serial flood", f)
    assert f["decisions"] == 2 * ROUNDS  # the other table: every decision applied once
    assert f["applied_during"] >= 1  # ... and it kept playing while the flood lasted
    assert f["big"] == 2 and f["long_lines"] >= 2 and f["kept"] < codec.MAX_FRAME
    assert f["frames_in"] >= f["frames"] // 2  # the flood did reach the daemon
    assert f["rogue_lines"] <= f["bound"], f
    assert f["suppressed"] >= f["frames_in"] // 2
    assert f["rss_growth_mb"] < RSS_GROWTH_MB


# ---------------------------------------------------------------------------- MQTT


class _FloodBroker(Broker):
    """The harness's Mosquitto, holding the victims' table and the rogue's table."""

    def __init__(self, work: Path, max_packet: int) -> None:
        from dialbox.daemon.embedded import free_port

        self.work = work
        self.port = free_port()
        self.files = write_broker_config(work / "broker", {TABLE: VICTIMS, "t2": [ROGUE]},
                                         port=self.port, bind="127.0.0.1", admin_user="admin",
                                         max_packet=max_packet)
        self.creds = self.files.credentials
        self.proc = None


async def _mqtt(tmp_path: Path, max_packet: int, rounds: int, *flood: str
                ) -> dict[str, Any]:
    broker = _FloodBroker(tmp_path, max_packet)
    await broker.start()
    seen: list[int] = []
    try:
        cfg = _with_rogue_table(table_config(tmp_path, players=2, uids=VICTIMS,
                                             mqtt=broker.host_mqtt(),
                                             options={"rounds": rounds}))
        with _captured(f"dev/{ROGUE}/") as lines:
            async with running_daemon(cfg) as daemon:
                hub: MqttHub = daemon.hubs["t2"]
                route = hub._route

                def sized(topic: str, payload: object) -> None:
                    if isinstance(payload, bytes | bytearray) and topic.endswith("/up"):
                        seen.append(len(payload))
                    route(topic, payload)

                hub._route = sized  # type: ignore[method-assign]
                await hub.wait_connected(10)
                # options first, then "--": a generated password may start with "-"
                async with _flooder("mqtt", *flood, "--", str(broker.port), "t2", ROGUE,
                                    broker.creds[ROGUE]) as flooder, \
                        mqtt_doubles(broker, VICTIMS, think=THINK) as ds:
                    await flooder.line()
                    figures = await _flood_while_playing(daemon, flooder, ds, lines)
                    book = hub.logbook_of(ROGUE)
                    figures.update(
                        oversize=hub.oversize, biggest_seen=max(seen, default=0),
                        payloads_seen=len(seen), suppressed=book.suppressed,
                        bound=book.bound(figures["elapsed"]) + ONE_OFFS,
                        sent_payloads=figures.pop("payloads"),
                        sent_oversize=figures.pop("oversize"))
    finally:
        broker.stop()
    return figures


def _answers_bound(seconds: float, links: int = 1) -> int:
    """Frames the daemon may send a rogue that never says hello: answers to its bad input
    (REPLY_BURST, then REPLY_RATE a second) and the handshake's identify retries."""
    per_link = session_mod.REPLY_BURST + session_mod.REPLY_RATE * seconds
    return int(links * (per_link + session_mod.IDENTIFY_TRIES + 1))


def test_an_mqtt_flood_through_a_broker_without_limits_is_refused_unread(
        tmp_path: Path) -> None:
    # a broker someone else configured (Mosquitto's default: no limit) lets 1 MB and 4 MB
    # payloads through: the daemon drops them unread
    f = asyncio.run(_mqtt(tmp_path, 0, ROUNDS))
    _report("MQTT flood, broker without limits", f)
    assert f["decisions"] == 2 * ROUNDS
    assert f["applied_during"] >= 1
    assert f["disconnects"] == 0 and f["biggest_seen"] >= 4_000_000
    assert f["oversize"] >= f["big"] == 2  # both reached the daemon and were refused unread
    assert f["payloads_seen"] >= f["sent_payloads"] // 2  # the flood did reach the daemon
    assert f["rogue_lines"] <= f["bound"], f
    assert f["suppressed"] >= f["sent_payloads"]
    assert f["down"] <= _answers_bound(f["elapsed"]), f
    assert f["rss_growth_mb"] < RSS_GROWTH_MB


def test_the_generated_broker_refuses_oversized_payloads(tmp_path: Path) -> None:
    f = asyncio.run(_mqtt(tmp_path, MAX_PACKET, 4, "--seconds", "1", "--rate", "2000"))
    _report("MQTT flood, generated broker config", f)
    assert f["decisions"] == 2 * 4 and f["applied_during"] >= 1
    # the broker dropped the rogue for each big packet, which never reached the daemon...
    assert f["disconnects"] >= 2 and f["biggest_seen"] <= MAX_PACKET
    # ... while a payload under the broker's limit but over the protocol's is refused unread
    assert f["oversize"] >= 1 and f["biggest_seen"] > MAX_UP_PAYLOAD
    assert f["rogue_lines"] <= f["bound"], f
    assert f["rss_growth_mb"] < RSS_GROWTH_MB


# ---------------------------------------------------------------------------- units


def test_log_limit_lets_a_burst_through_then_reports_what_it_held_back() -> None:
    now = [0.0]
    book = LogLimit("link", rate=2, burst=3, report_every=1.0, clock=lambda: now[0])
    log = logging.getLogger("dialbox.test.logbook")
    text: list[str] = []
    got = logging.Handler()
    got.emit = lambda r: text.append(r.getMessage())  # type: ignore[method-assign]
    log.addHandler(got)
    log.setLevel(logging.INFO)
    try:
        for i in range(1000):  # 1000 lines in 1 s
            now[0] = i / 1000
            book.log(log, logging.INFO, "bad %d", i)
        now[0] = 2.0
        book.log(log, logging.INFO, "after")
        book.log(log, logging.DEBUG, "not even counted")
    finally:
        log.removeHandler(got)
    assert text[:3] == ["bad 0", "bad 1", "bad 2"]
    assert any("suppressed" in m for m in text) and text[-1] == "after"
    assert len(text) <= book.bound(2.0)
    held = sum(int(m.split("suppressed ")[1].split()[0]) for m in text if "suppressed" in m)
    assert held + sum(1 for m in text if m.startswith("bad")) == 1000  # nothing uncounted
    assert book.suppressed + book.logged - sum(1 for m in text if "suppressed" in m) == 1001


def test_token_bucket() -> None:
    now = [0.0]
    b = TokenBucket(5, 2, clock=lambda: now[0])
    assert [b.take() for _ in range(3)] == [True, True, False]
    now[0] = 0.2
    assert [b.take(), b.take()] == [True, False]


def test_line_splitter_never_holds_an_overlong_line() -> None:
    s = LineSplitter()
    out: list[bytes | None] = []
    for _ in range(4096):  # 4 MB without a newline, 1 kB at a time
        out += s.feed(b"z" * 1024)
        assert len(s.buf) < codec.MAX_FRAME
    out += s.feed(b"tail\n" + b'["ping",0,1]\n')
    assert out == [None, b'["ping",0,1]'] and s.dropped == 1


def test_limits_fit_each_other() -> None:
    # a frames payload and the host's state pass the generated broker's packet limit
    header = 5 + 2 + len("dialbox/") + 32 + len("/state")
    assert MAX_UP_PAYLOAD == codec.MAX_FRAME and MAX_STATE + header < MAX_PACKET
    conf = write_broker_config_text()
    assert f"max_packet_size {MAX_PACKET}" in conf


def write_broker_config_text() -> str:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        files = write_broker_config(d, {"t": ["a"]})
        return files.conf.read_text()


def test_hub_refuses_an_oversized_payload_unread_and_an_oversized_state() -> None:
    async def on_link(_link: Any) -> None:
        raise AssertionError("no link for an oversized payload")

    hub = MqttHub(BrokerAddress(), "t", on_link)
    published: list[bytes] = []
    hub.publish = lambda _t, p, *a, **k: published.append(p)  # type: ignore[method-assign]
    for _ in range(100):
        hub._route("dialbox/t/dev/x/up", b"x\n" * (MAX_UP_PAYLOAD // 2 + 1))
    assert hub.oversize == 100 and not hub.links
    assert hub.logbook_of("x").logged <= logbook.BURST + 1
    hub.publish_state(b"{" + b" " * MAX_STATE + b"}")
    hub.publish_state(b"{}")
    assert published == [b"{}"]


def test_log_limit_tells_what_it_held_back_when_the_flood_stops() -> None:
    async def flood() -> list[str]:
        book = LogLimit("link", rate=2, burst=3, report_every=0.05)
        log = logging.getLogger("dialbox.test.logbook2")
        text: list[str] = []
        got = logging.Handler()
        got.emit = lambda r: text.append(r.getMessage())  # type: ignore[method-assign]
        log.addHandler(got)
        log.setLevel(logging.INFO)
        try:
            for i in range(100):  # then nothing more: the timer tells the rest
                book.log(log, logging.WARNING, "bad %d", i)
            await wait_for(lambda: any("suppressed" in m for m in text), 10, "the report")
        finally:
            log.removeHandler(got)
        return text

    text = asyncio.run(flood())
    assert text[:3] == ["bad 0", "bad 1", "bad 2"]
    assert text[-1].startswith("link: suppressed ") and text[-1].endswith("(at most 2 a second)")
    held = sum(int(m.split("suppressed ")[1].split()[0]) for m in text if "suppressed" in m)
    assert held + sum(1 for m in text if m.startswith("bad")) == 100

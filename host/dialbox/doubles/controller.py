"""A lightweight controller double: protocol v1 on the shared codec, over a pty, MQTT or in-process.

It is not the firmware (that is `dialbox.sim`, the real firmware on a virtual HAL); it is a
few hundred lines of CPython that speak the controller's side of the protocol so that a
benchmark can run a thousand of them in one process, and so fault tests can misbehave on
purpose (spoof, replay, corrupt). Its "flash" (the sealed choice) survives kill/start when
given a state file, as a real controller's does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import time
import tty
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gmqtt
from gmqtt.mqtt.constants import MQTTv311

from dialbox.transports.mqtt import (
    FRAME_QOS,
    HERE,
    OFFLINE,
    ONLINE,
    BrokerClient,
    pack_payloads,
    parse_nodes,
    split_payload,
)
from dialbox.transports.serial import LineSplitter
from dialbox_protocol import codec
from dialbox_protocol.frames import json_text

Frame = dict[str, Any]
KEEP = 256
_QUIET = logging.getLogger("dialbox.doubles.mqtt")
_QUIET.setLevel(logging.ERROR)


class ControllerDouble:
    """One simulated controller. `auto=True` dials random allowed faces and locks by itself."""

    def __init__(
        self,
        uid: str,
        *,
        auto: bool = True,
        seed: int | None = None,
        state_file: str | Path | None = None,
        link_dir: str | Path | None = None,
        mqtt: dict[str, Any] | None = None,
        think: tuple[float, float] = (0.0, 0.0),
        keep: int = KEEP,
        key: bytes | None = None,
    ) -> None:
        self.uid = uid
        self.key = key
        """The device key its hello proves (the host's key store holds the same), or None."""
        self.auto = auto
        self.rng = random.Random(seed if seed is not None else uid)
        self.state_file = Path(state_file) if state_file else None
        self.link_dir = Path(link_dir) if link_dir else None
        self.mqtt = mqtt
        self.think = think
        self.seat: int | None = None
        self.prompt: Frame | None = None
        self.sel: list[int] = [-1, -1, -1]
        self.state = "idle"
        self.secret: Frame | None = None
        """The "flash": pid, sel, nonce, commitment of the locked choice."""
        self.revealed: deque[Frame] = deque(maxlen=keep)
        self.locks: dict[int, list[int]] = {}
        """pid -> the selection this controller locked for it (its last lock)."""
        self.closed: set[int] = set()
        """Prompts whose `revealed` came: never asked again (as the firmware's ring)."""
        self.mismatches: list[Frame] = []
        """`alllocked` without its commitment, `revealed` that does not confirm its reveal."""
        self.errors: list[Frame] = []
        self.headline = ""
        """The host's last `headline` (where the table's game stands)."""
        self.received: deque[Frame] = deque(maxlen=keep)
        """The latest frames received (bounded: a benchmark runs a thousand doubles for long)."""
        self.on_frame: Callable[[Frame], None] | None = None
        self._seq = 0
        self._unacked: dict[int, tuple[bytes, float]] = {}
        self._seen: list[int] = []
        self._resend: list[Any] = []
        self._lines = LineSplitter()
        self._master: int | None = None
        self._slave: int | None = None
        self.device_path: str | None = None
        self._client: BrokerClient | None = None
        self._outbox: list[bytes] = []
        self._tasks: set[asyncio.Task[Any]] = set()
        self._retry: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()
        self.welcomed = asyncio.Event()
        self.node = 0
        """Index of the broker node in use or tried next (mqtt_nodes())."""
        self.broker: tuple[str, int] | None = None
        """The node of the latest MQTT connection."""
        self.connects = 0
        self.roll_calls = 0
        """The host's live `online` answered (`here`, or `online` after the host's
        `offline`)."""
        self.orphan = False
        self.attempts = 0
        self._load()

    # ------------------------------------------------------------------ flash

    def _load(self) -> None:
        if self.state_file and self.state_file.exists():
            self.secret = json.loads(self.state_file.read_text()) or None

    def _save(self) -> None:
        if self.state_file:
            tmp = self.state_file.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.secret))
            os.replace(tmp, self.state_file)

    # ------------------------------------------------------------------ links

    async def start(self) -> None:
        if self.mqtt is not None:
            self._spawn(self._mqtt_loop())
            await asyncio.wait_for(self.connected.wait(), 10)
        else:
            self._open_pty()
        self._retry = asyncio.create_task(self._retransmit_loop())

    def _spawn(self, coro: Any) -> None:
        t = asyncio.ensure_future(coro)
        self._tasks.add(t)
        t.add_done_callback(self._tasks.discard)

    def _open_pty(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        tty.setraw(master)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        real = os.ttyname(slave)
        if self.link_dir is not None:
            self.link_dir.mkdir(parents=True, exist_ok=True)
            link = self.link_dir / self.uid
            with contextlib.suppress(FileNotFoundError):
                link.unlink()
            link.symlink_to(real)
            self.device_path = str(link)
        else:
            self.device_path = real
        asyncio.get_running_loop().add_reader(master, self._readable)
        self.connected.set()

    def _close_pty(self) -> None:
        if self._master is None:
            return
        asyncio.get_running_loop().remove_reader(self._master)
        if self.link_dir is not None:
            with contextlib.suppress(FileNotFoundError):
                (self.link_dir / self.uid).unlink()
        for fd in (self._master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)  # type: ignore[arg-type]
        self._master = self._slave = None
        self.connected.clear()

    def _readable(self) -> None:
        assert self._master is not None
        try:
            data = os.read(self._master, 4096)
        except BlockingIOError:
            return
        except OSError:
            return
        for line in self._lines.feed(data):
            if line is not None:
                self._handle(codec.decode_frame(line))

    def mqtt_nodes(self) -> list[tuple[str, int]]:
        """The broker nodes of the `mqtt` dict: `hosts` (a list of "host[:port]") or
        `host` ("host", or several separated by commas), `port` for those without one."""
        m = self.mqtt
        assert m is not None
        hosts = m.get("hosts") or m.get("host", "localhost")
        if isinstance(hosts, list | tuple):
            hosts = ",".join(hosts)
        return parse_nodes(hosts, int(m.get("port", 1883)))

    async def _mqtt_loop(self) -> None:
        """Stay connected: reconnect with a jittered backoff whenever the broker goes away,
        to the next node of a clustered broker (as the firmware does)."""
        nodes = len(self.mqtt_nodes())
        backoff = 0.05
        while True:
            with contextlib.suppress(OSError, TimeoutError, gmqtt.mqtt.handler.MQTTConnectError):
                await self._mqtt_session()
                backoff = 0.05  # it was up: a loss starts a fresh backoff
            self.node = (self.node + 1) % nodes
            await asyncio.sleep(random.uniform(backoff / 2, backoff))
            backoff = min(backoff * 2, 1.0)

    async def _mqtt_session(self) -> None:
        m = self.mqtt
        assert m is not None
        nodes = self.mqtt_nodes()
        host, port = nodes[self.node % len(nodes)]
        root = f"dialbox/{m['table']}"
        self._status_topic = f"{root}/dev/{self.uid}/status"
        self._up = f"{root}/dev/{self.uid}/up"
        down = f"{root}/dev/{self.uid}/down"
        host_status = f"{root}/host/status"
        lost = asyncio.Event()
        announced = False
        self.attempts += 1
        will = gmqtt.Message(self._status_topic, b"offline", qos=1, retain=True)
        # several nodes: a client id per attempt, as the firmware (a clustered RabbitMQ
        # names subscription queues after it; a dead node's queue can swallow a new one)
        cid = f"ctrl-{self.uid}" + (f"-{self.attempts}" if len(nodes) > 1 else "")
        client = BrokerClient(cid, clean_session=True, logger=_QUIET, will_message=will)
        client.set_auth_credentials(m.get("user", self.uid), m.get("password"))

        def on_message(_c: Any, topic: str, payload: bytes, _qos: int, p: Any) -> int:
            if topic == host_status:
                # the host's live `online` (its roll call): answer, as the firmware does
                if payload == ONLINE and announced and not (p or {}).get("retain"):
                    self.roll_calls += 1
                    client.publish(self._status_topic, ONLINE if self.orphan else HERE,
                                   qos=1)
                    self.orphan = False
                elif payload == OFFLINE and not (p or {}).get("retain"):
                    self.orphan = True  # the host's session with us is over
                return 0
            for frame in split_payload(payload):  # one or more frames per payload
                self._handle(codec.decode_frame(frame))
            return 0

        client.on_message = on_message
        client.on_disconnect = lambda *_a: lost.set()
        try:
            await asyncio.wait_for(client.connect(host, port, keepalive=15,
                                                  version=MQTTv311), 10)
            client.subscribe([gmqtt.Subscription(down, qos=FRAME_QOS),
                              gmqtt.Subscription(host_status, qos=0)])
            client.publish(self._status_topic, b"online", qos=1, retain=True)
            announced = True
            self.orphan = False
            self.connects += 1
            self.broker = (host, port)
            self._client = client
            self.connected.set()
            await lost.wait()
        finally:
            self._client = None
            self.connected.clear()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.disconnect(), 2)

    async def stop(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
        if self._client is not None and self.mqtt is not None:
            with contextlib.suppress(Exception):
                self._client.publish(self._status_topic, b"offline", qos=1, retain=True)
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._close_pty()

    async def unplug(self) -> None:
        """Pull the cable / lose the WiFi: the link goes, the flash stays."""
        if self.mqtt is not None:
            for t in list(self._tasks):
                t.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
        else:
            self._close_pty()
        self.welcomed.clear()

    async def replug(self) -> None:
        if self.mqtt is not None:
            self._spawn(self._mqtt_loop())
            await asyncio.wait_for(self.connected.wait(), 10)
        else:
            self._open_pty()

    # ------------------------------------------------------------------ sending

    def send_raw(self, data: bytes) -> None:
        if self.mqtt is not None:
            # frames sent in one turn of the loop share a payload, as the firmware's do
            if not self._outbox:
                asyncio.get_running_loop().call_soon(self._flush_outbox)
            self._outbox.append(data)
        elif self._master is not None:
            with contextlib.suppress(OSError):
                os.write(self._master, data)

    def _flush_outbox(self) -> None:
        frames, self._outbox = self._outbox, []
        client = self._client
        if client is None or not client.is_connected:
            return  # lost with the link; reliable frames go again from _unacked
        for payload in pack_payloads(frames):
            client.publish(self._up, payload, qos=FRAME_QOS)

    def send(self, name: str, *args: Any) -> bytes:
        seq = 0
        if codec.is_reliable(name):
            self._seq = self._seq % codec.MAX_SEQ + 1
            seq = self._seq
        frame = codec.encode(name, seq, list(args), json_text)
        if seq:
            self._unacked[seq] = (frame, time.monotonic())
        self.send_raw(frame)
        return frame

    async def _retransmit_loop(self) -> None:
        rto = 1.0 if self.mqtt is not None else 0.25
        while True:
            await asyncio.sleep(rto)
            now = time.monotonic()
            for seq, (frame, at) in list(self._unacked.items()):
                if now - at >= rto:
                    self._unacked[seq] = (frame, now)
                    self.send_raw(frame)

    # ------------------------------------------------------------------ receiving

    def _handle(self, msg: Any) -> None:
        if isinstance(msg, codec.DecodeError):
            return
        self.received.append(msg)
        if self.on_frame is not None:
            self.on_frame(msg)
        t = msg["t"]
        if t == "identify":
            mac = codec.hello_mac(self.key, msg["challenge"], self.uid) if self.key else ""
            self.send("hello", codec.PROTOCOL_VERSION, codec.TABLE_HASH, "double-1",
                      "double", self.uid, ["led"], mac)
            return
        if t == "ack":
            self._unacked.pop(msg["ref"], None)
            return
        if t == "ping":
            self.send("pong", msg["ms"])
            return
        if t == "error":
            self.errors.append(msg)
            return
        if t == "status":
            s = self.secret
            if msg["state"] == "unlocked" and s is not None and s["pid"] == msg["pid"]:
                self.secret = None
                self._save()
                self.state = "unlocked"
            return
        if msg["seq"]:
            self.send("ack", msg["seq"])
            if t == "welcome":
                self._resend = [codec.decode_frame(f) for f, _at in self._unacked.values()]
                self._seq = 0
                self._unacked.clear()
                self._seen = []
            elif msg["seq"] in self._seen:
                return
            self._seen = (self._seen + [msg["seq"]])[-16:]
        if t == "headline":
            self.headline = msg["text"]
            return
        if t == "welcome":
            self.seat = msg["seat"] if msg["seat"] >= 0 else None
            s = self.secret
            self.send("snapshot", s["pid"] if s else None, "locked" if s else "idle",
                      s["commitment"] if s and s.get("commitment") else None)
            # what the old session never acknowledged goes again (a reveal is never lost)
            for m in self._resend:
                if isinstance(m, dict) and m["t"] in ("commit", "uncommit", "reveal"):
                    spec = codec.message_spec(m["t"])
                    assert spec is not None
                    self.send(m["t"], *[m[f] for f, _ty in spec[3]])
            self._resend = []
            self.welcomed.set()
        elif t == "prompt":
            self._prompt(msg)
        elif t == "alllocked":
            s = self.secret
            if s is not None and s["pid"] == msg["pid"]:
                if [self.seat, s["commitment"]] not in msg["commits"]:
                    self.mismatches.append(msg)  # not all-locked with my commitment: no reveal
                    return
                self.state = "alllocked"
                self._later(lambda: self.send("reveal", s["pid"], s["sel"], s["nonce"]))
        elif t == "revealed":
            if msg["pid"] in self.closed:
                return
            held = self.secret
            if held is not None and held["pid"] == msg["pid"] and msg["choices"]:
                mine = [self.seat, held["sel"], held["nonce"], self.uid]
                if mine not in msg["reveals"]:
                    self.mismatches.append(msg)  # my lock stays until it is confirmed
                    return
            self.closed.add(msg["pid"])
            self.revealed.append(msg)
            if held is not None and held["pid"] == msg["pid"]:
                self.secret = None
                self._save()
            self.state = "revealed"
            self.prompt = None

    def _prompt(self, msg: Frame) -> None:
        if msg["pid"] in self.closed:
            return  # over: never asked again
        if self.secret is not None and self.secret["pid"] == msg["pid"]:
            return  # resumed: still locked on this prompt
        if self.prompt is not None and self.prompt["pid"] == msg["pid"] and self.state != "idle":
            return
        self.prompt = msg
        self.state = "idle"
        self.sel = [w[2] if w is not None else -1 for w in msg["wheels"]]
        if self.auto:
            pid = msg["pid"]
            self._later(lambda: self._auto_play(pid), self.think)

    def _later(self, fn: Callable[[], Any], think: tuple[float, float] = (0.0, 0.0)) -> None:
        delay = self.rng.uniform(*think)
        if delay > 0:
            asyncio.get_running_loop().call_later(delay, fn)
        else:
            fn()

    def _auto_play(self, pid: int) -> None:
        p = self.prompt
        if p is None or p["pid"] != pid or self.state not in ("idle", "editing"):
            return  # a stale timer: that prompt was answered, or replaced
        for i, w in enumerate(p["wheels"]):
            if w is not None:
                allowed = [k for k in range(32) if w[1] >> k & 1]
                self.sel[i] = self.rng.choice(allowed)
        self.lock()

    # ------------------------------------------------------------------ the player's hands

    def turn(self, wheel: int, detents: int) -> None:
        p = self.prompt
        if p is None or p["wheels"][wheel] is None or self.state == "locked":
            return
        w = p["wheels"][wheel]
        count = len(w[0]) if w[0] is not None else len(codec.DEFAULT_FACES[wheel])
        allowed = [k for k in range(count) if w[1] >> k & 1]
        i = allowed.index(self.sel[wheel]) if self.sel[wheel] in allowed else 0
        self.sel[wheel] = allowed[(i + detents) % len(allowed)]
        if self.state != "editing":
            self.state = "editing"
            self.send("status", p["pid"], "editing")

    def lock(self) -> None:
        p = self.prompt
        if p is None or self.state not in ("idle", "editing", "unlocked"):
            return
        pid = p["pid"]
        nonce = os.urandom(codec.NONCE_BYTES)
        sel = list(self.sel)
        self.state = "locked"
        self.locks[pid] = sel
        if p["sealed"]:
            c = codec.commitment(sel, nonce, pid, self.uid)
            self.secret = {"pid": pid, "sel": sel, "nonce": codec.b64(nonce), "commitment": c}
            self._save()
            self.send("commit", pid, c)
        else:
            self.send("reveal", pid, sel, codec.b64(nonce))

    def unlock(self) -> None:
        p = self.prompt
        if p is None or self.state != "locked" or self.secret is None:
            return
        self.send("uncommit", p["pid"])  # the secret goes once the host says "unlocked"

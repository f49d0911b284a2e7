"""One controller's session on one link: handshake, acks and retransmission, heartbeat."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Protocol

from dialbox.transports.base import Link, LinkClosed
from dialbox_protocol import codec
from dialbox_protocol.frames import Parsed, ProtocolError, to_frame
from dialbox_protocol.models import (
    Ack,
    Error,
    Hello,
    Identify,
    Message,
    Ping,
    Pong,
    Snapshot,
    Welcome,
)

log = logging.getLogger("dialbox.session")

IDENTIFY_EVERY = 0.5
IDENTIFY_TRIES = 20
HEARTBEAT = 1.0
OFFLINE_AFTER = 3.0
PROBE_AFTER = 5.0
REIDENTIFY_EVERY = 0.5
DEDUP_WINDOW = 16
_UP_ONLY = {"hello", "snapshot", "commit", "uncommit", "reveal"}
_DOWN_ONLY = {"identify", "welcome", "prompt", "alllocked", "revealed", "config"}


class SessionHost(Protocol):
    """What a session reports to (the daemon's table service). Every call is synchronous:
    whatever it must make durable (the journal) is written before the call returns, and the
    session acknowledges the frame only afterwards."""

    def admit(self, session: Session, hello: Hello) -> Welcome | Error: ...

    def on_snapshot(self, session: Session, snapshot: Snapshot) -> None: ...

    def on_message(self, session: Session, msg: Message) -> None: ...

    def on_offline(self, session: Session) -> None: ...

    def owes(self, session: Session) -> bool:
        """Whether this controller's seat owes the open prompt a lock or a reveal."""
        ...

    def durable(self) -> None:
        """Make durable what the calls so far journaled (called before frames go out)."""
        ...


def _ms() -> int:
    return int(time.monotonic() * 1000) % (1 << 30)


class Session:
    """The host side of protocol v1 for one link (docs/protocol.md).

    Speaks first (identify, bounded retries), checks the hello, asks the host to admit the
    unique id, welcomes, then keeps the link honest: reliable frames are numbered, kept and
    retransmitted until acknowledged; incoming duplicates are re-acknowledged and dropped;
    on serial a ping goes out every second and three silent seconds mean offline.
    """

    def __init__(self, link: Link, host: SessionHost, host_name: str = "dialbox") -> None:
        self.link = link
        self.host = host
        self.host_name = host_name
        self.hello: Hello | None = None
        self.uid: str | None = None
        self.seat: int | None = None
        self.welcomed = False
        self.online = False
        self.refused: str | None = None
        self.rtt_ms: float | None = None
        self._loop = asyncio.get_running_loop()
        self._out: list[Message | bytes] = []
        self._flush_due = False
        self._seq = 0
        self._unacked: dict[int, bytes] = {}
        self._resend_at: dict[int, tuple[float, float]] = {}
        """seq -> (when it goes again, its current timeout), for the frames in _unacked."""
        self._resend_timer: asyncio.TimerHandle | None = None
        self._recent: deque[int] = deque(maxlen=DEDUP_WINDOW)
        self._last_rx = time.monotonic()
        self._last_said = self._last_rx
        """When the controller last sent something other than a pong or an ack."""
        self._last_probe = 0.0
        self._last_reidentify: float | None = None
        self.reidentified = 0
        """How many times the controller said it had no session and was asked to identify."""
        self._ever_welcomed = False
        self._identify_sent = 0
        self._closed = asyncio.Event()

    def __repr__(self) -> str:
        return f"<Session {self.uid or '?'} on {self.link.name}>"

    # ------------------------------------------------------------------ sending

    def post(self, msg: Message) -> None:
        """Queue a message for this controller (reliable ones get a sequence number)."""
        if self._closed.is_set():
            return
        if isinstance(msg, Welcome):
            self._recent.clear()  # the controller's counter restarts with every welcome
        self._queue(msg)

    def _queue(self, item: Message | bytes) -> None:
        self._out.append(item)
        if not self._flush_due:
            self._flush_due = True
            self._loop.call_soon(self._flush)

    def _flush(self) -> None:
        # everything posted in one turn of the loop goes out together (one payload on MQTT,
        # one write on serial): e.g. an ack, `status locked` and `alllocked`
        self._flush_due = False
        if self._closed.is_set():
            return
        items, self._out = self._out, []
        self.host.durable()  # an ack (or anything it implies) never precedes its journal entry
        try:
            self.link.write([self._encode(item) for item in items])
        except LinkClosed:
            pass  # the link has ended: run() returns and the host hears of it

    def _encode(self, item: Message | bytes) -> bytes:
        if isinstance(item, bytes):
            return item
        if not item.reliable:
            return to_frame(item)
        if isinstance(item, Welcome):
            self._restart_counters()
        self._seq = self._seq % codec.MAX_SEQ + 1
        frame = to_frame(item, self._seq)
        self._unacked[self._seq] = frame
        rto = self.link.rto
        self._resend_at[self._seq] = (self._loop.time() + rto, rto)
        if self._resend_timer is None:
            self._resend_timer = self._loop.call_later(rto, self._retransmit)
        return frame

    def _restart_counters(self) -> None:
        self._seq = 0
        self._unacked.clear()
        self._resend_at.clear()

    def _retransmit(self) -> None:
        """One timer per session: send again every unacknowledged frame that is due (its
        timeout doubling up to the link's maximum), then wake for the next one due."""
        self._resend_timer = None
        if self._closed.is_set():
            return
        now = self._loop.time()
        nxt: float | None = None
        for seq, frame in list(self._unacked.items()):
            at, rto = self._resend_at[seq]
            if at <= now:
                if self.online or not self.link.heartbeat:
                    self._queue(frame)
                rto = min(rto * 2, self.link.rto_max)
                at = now + rto
                self._resend_at[seq] = (at, rto)
            nxt = at if nxt is None else min(nxt, at)
        if nxt is not None:
            self._resend_timer = self._loop.call_at(nxt, self._retransmit)

    def _acked(self, seq: int) -> None:
        if self._unacked.pop(seq, None) is not None:
            del self._resend_at[seq]
            if not self._unacked and self._resend_timer is not None:
                self._resend_timer.cancel()
                self._resend_timer = None

    @property
    def unacked(self) -> int:
        return len(self._unacked)

    @property
    def last_heard(self) -> float:
        """When the controller last sent anything (`time.monotonic()`)."""
        return self._last_rx

    # ------------------------------------------------------------------ running

    async def run(self) -> None:
        """Serve the link until it closes."""
        ticker = asyncio.create_task(self._ticker())
        try:
            self._identify()
            await self.link.serve(self._arrived)
        finally:
            self._closed.set()
            ticker.cancel()
            if self.online:
                self.online = False
                self.host.on_offline(self)

    def _arrived(self, parsed: Parsed) -> None:
        self._last_rx = time.monotonic()
        if self.refused is not None:
            return
        if isinstance(parsed, ProtocolError):
            self._bad_frame(parsed)
            return
        if not isinstance(parsed, Pong | Ack):
            self._last_said = self._last_rx
        self._received(parsed)

    def _identify(self) -> None:
        self._identify_sent += 1
        self.post(Identify(host=self.host_name[:32]))

    async def _ticker(self) -> None:
        """Identify retries before the hello; heartbeat and offline detection after."""
        while True:
            if not self.welcomed:
                await asyncio.sleep(IDENTIFY_EVERY if self.link.heartbeat else self.link.rto)
                if self.refused is not None:
                    continue
                if self.welcomed:
                    continue
                if self._ever_welcomed or self._identify_sent < IDENTIFY_TRIES:
                    self._identify()
                elif self._identify_sent == IDENTIFY_TRIES:
                    self._identify_sent += 1
                    log.warning("%s: no answer to %d identify frames: not a dialbox controller",
                                self.link.name, IDENTIFY_TRIES)
                continue
            # serial: a heartbeat a second; MQTT (the broker's keepalive is the heartbeat):
            # only the quiet-seat probe below, which needs no finer clock than this
            await asyncio.sleep(HEARTBEAT if self.link.heartbeat else PROBE_AFTER / 2)
            now = time.monotonic()
            if (self.welcomed and now - self._last_said > PROBE_AFTER
                    and now - self._last_probe > PROBE_AFTER and self.host.owes(self)):
                # The seat owes a lock or a reveal and its controller has said nothing but
                # pongs and acks for a while: it may have lost our session (its link timed
                # out, or it rebooted behind a USB port that stayed up) and be waiting for
                # an identify. Ask; a controller still in the session just resumes. (Such a
                # controller refuses our next reliable frame with "no session", which
                # re-identifies it at once, see _no_session; this probe is the fallback
                # while only pings reach it, and for firmware without that rule.)
                self._last_probe = now
                log.info("%s: quiet while its seat is awaited: identify again", self)
                self._identify()
            if not self.link.heartbeat:
                continue
            if now - self._last_rx > OFFLINE_AFTER:
                log.info("%s: silent for %.0f s: offline", self, OFFLINE_AFTER)
                self._go_offline()
            else:
                self.post(Ping(ms=_ms()))

    def _go_offline(self) -> None:
        self.welcomed = False
        if self.online:
            self.online = False
            self.host.on_offline(self)

    # ------------------------------------------------------------------ receiving

    def _bad_frame(self, err: ProtocolError) -> None:
        if err.code in (codec.E_VERSION, codec.E_TABLE):
            if err.code == codec.E_VERSION:
                detail = f"{err.detail}: update the controller firmware"
            else:
                detail = f"{err.detail}: firmware and host disagree on the protocol"
            log.error("%s refused: %s", self.link.name, err.describe())
            self.refused = detail
            self.post(Error(code=err.code, detail=detail[:80], ref=err.seq))
            return
        log.info("%s: dropped a frame: %s", self.link.name, err.describe())
        if err.code == codec.E_FIELDS and err.seq:
            self.post(Error(code=err.code, detail=err.describe()[:80], ref=err.seq))

    def _received(self, msg: Message) -> None:
        name = msg.type_name()
        if name in _DOWN_ONLY:
            self.post(Error(code=codec.E_DIRECTION, detail=f"{name} is host-to-controller",
                            ref=msg.seq))
            return
        if isinstance(msg, Ack):
            self._acked(msg.ref)
            return
        if isinstance(msg, Ping):
            self.post(Pong(ms=msg.ms))
            return
        if isinstance(msg, Pong):
            self.rtt_ms = float((_ms() - msg.ms) % (1 << 30))
            return
        if isinstance(msg, Hello):
            self._hello(msg)
            return
        if isinstance(msg, Error):
            if msg.code == codec.E_STATE and msg.detail == codec.NO_SESSION:
                self._no_session(msg)
            else:
                log.info("%s reports %s: %s", self, msg.code_name, msg.detail)
            return
        if not self.welcomed:
            # A controller that talks without a session (it rebooted, or we did): start one.
            # Its frame is not acknowledged: it will come again after the welcome.
            self._identify()
            return
        if msg.reliable:
            self.post(Ack(ref=msg.seq))  # written only after the handler below has journaled
            if msg.seq in self._recent:
                return
            self._recent.append(msg.seq)
        if isinstance(msg, Snapshot):
            self.host.on_snapshot(self, msg)
        else:
            self.host.on_message(self, msg)

    def _no_session(self, err: Error) -> None:
        """The controller has lost our session (its link timed out while ours stayed up, or
        it rebooted behind a live port) and refused a reliable frame: identify again now
        (at most every REIDENTIFY_EVERY: each retransmission of that frame is refused too);
        its hello resumes the session."""
        if not self.welcomed:
            return  # the identify retries of the handshake are running
        now = time.monotonic()
        if self._last_reidentify is not None and now - self._last_reidentify < REIDENTIFY_EVERY:
            return
        self._last_reidentify = now
        self.reidentified += 1
        log.info("%s has no session (refused frame %d): identify again", self, err.ref)
        self._identify()

    def _hello(self, hello: Hello) -> None:
        if self.link.expected_uid is not None and hello.uid != self.link.expected_uid:
            detail = f"uid {hello.uid} on the topic of {self.link.expected_uid}"
            log.warning("%s: spoofed unique id refused: %s", self.link.name, detail)
            self.post(Error(code=codec.E_SPOOF, detail=detail[:80], ref=0))
            return
        if self.welcomed and self.online and self.uid == hello.uid:
            # The controller restarted its side of the session; resume it.
            self.online = False
            self.host.on_offline(self)
        answer = self.host.admit(self, hello)
        if isinstance(answer, Error):
            log.warning("%s: %s refused: %s", self.link.name, hello.uid, answer.detail)
            self.post(answer)
            return
        self.hello = hello
        self.uid = hello.uid
        self.seat = answer.seat if answer.seat >= 0 else None
        self.welcomed = True
        self._ever_welcomed = True
        self.online = True
        self.post(answer)

"""One controller's session on one link: handshake, acks and retransmission, heartbeat."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Protocol

from dialbox.logbook import TokenBucket
from dialbox.sessions.keys import Authenticator
from dialbox.transports.base import Link, LinkClosed
from dialbox_protocol import codec
from dialbox_protocol.frames import Parsed, ProtocolError, to_frame
from dialbox_protocol.models import (
    Ack,
    AllLocked,
    Error,
    Hello,
    Identify,
    Message,
    Ping,
    Pong,
    Prompt,
    Snapshot,
    Welcome,
    new_challenge,
)

log = logging.getLogger("dialbox.session")

IDENTIFY_EVERY = 0.5
IDENTIFY_TRIES = 20
HEARTBEAT = 1.0
OFFLINE_AFTER = 3.0
PROBE_AFTER = 5.0
REIDENTIFY_EVERY = 0.5
REFUSED_RETRY = 2.0
"""A link whose hello was refused is sent `identify` again this often (not faster: each try
costs the controller an `error`), so a controller refused by mistake, updated or paired
behind a live link comes back without a replug."""
DEDUP_WINDOW = 16
REPLY_RATE = 5.0
REPLY_BURST = 10
"""Answers to bad input (error replies, identify to a frame without a session): 10 at once,
then 5 a second per session, so a flood in does not become a flood out."""
_UP_ONLY = {"hello", "snapshot", "commit", "uncommit", "reveal", "dial"}
_DOWN_ONLY = {"identify", "welcome", "prompt", "alllocked", "revealed", "config",
              "seatview"}


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

    def is_open(self, session: Session, pid: int) -> bool:
        """Whether prompt `pid` is still open: the `prompt` and `alllocked` frames of a
        prompt that is over are not sent again (it is never asked again)."""
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

    def __init__(self, link: Link, host: SessionHost, host_name: str = "dialbox",
                 auth: Authenticator | None = None) -> None:
        self.link = link
        self.host = host
        self.host_name = host_name
        self.auth = auth
        """Checks each hello's proof of its device key (None: every uid is taken as said)."""
        self.challenge = new_challenge()
        """This link's random challenge, in every identify; a hello's MAC must cover it."""
        self.hello: Hello | None = None
        self.uid: str | None = None
        self.seat: int | None = None
        self.welcomed = False
        self.online = False
        self.refused: str | None = None
        """Why the last hello was refused; until a hello is admitted, nothing but a hello
        is looked at on this link (docs/host.md, Sessions)."""
        self._refused_at = 0.0
        self.rtt_ms: float | None = None
        self._loop = asyncio.get_running_loop()
        self._out: list[Message | bytes] = []
        self._flush_due = False
        self._seq = 0
        self._unacked: dict[int, bytes] = {}
        self._resend_at: dict[int, tuple[float, float]] = {}
        """seq -> (when it goes again, its current timeout), for the frames in _unacked."""
        self._resend_timer: asyncio.TimerHandle | None = None
        self._pids: dict[int, int] = {}
        """seq -> prompt id, for the unacknowledged `prompt` and `alllocked` frames: sent
        again only while the host says that prompt is open."""
        self._recent: deque[int] = deque(maxlen=DEDUP_WINDOW)
        """Sequence numbers lately processed: a cheap first filter of retransmissions."""
        self._snapshot_due = False
        """A welcome went out and its snapshot has not come: the one snapshot taken (an old
        one replayed later cannot move the table: issue 13)."""
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
        self._replies = TokenBucket(REPLY_RATE, REPLY_BURST)

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
            self._snapshot_due = True
        self._seq = self._seq % codec.MAX_SEQ + 1
        frame = to_frame(item, self._seq)
        self._unacked[self._seq] = frame
        if isinstance(item, Prompt | AllLocked):
            self._pids[self._seq] = item.pid
        rto = self.link.rto
        self._resend_at[self._seq] = (self._loop.time() + rto, rto)
        if self._resend_timer is None:
            self._resend_timer = self._loop.call_later(rto, self._retransmit)
        return frame

    def _restart_counters(self) -> None:
        self._seq = 0
        self._unacked.clear()
        self._resend_at.clear()
        self._pids.clear()

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
            pid = self._pids.get(seq)
            if at <= now and pid is not None and not self._still_open(pid):
                self._drop(seq)  # its prompt is over: never asked again
                continue
            if at <= now:
                if self.online or not self.link.heartbeat:
                    self._queue(frame)
                rto = min(rto * 2, self.link.rto_max)
                at = now + rto
                self._resend_at[seq] = (at, rto)
            nxt = at if nxt is None else min(nxt, at)
        if nxt is not None:
            self._resend_timer = self._loop.call_at(nxt, self._retransmit)

    def _still_open(self, pid: int) -> bool:
        is_open = getattr(self.host, "is_open", None)  # (a host without prompts: always)
        return is_open is None or bool(is_open(self, pid))

    def _drop(self, seq: int) -> None:
        self._unacked.pop(seq, None)
        self._resend_at.pop(seq, None)
        self._pids.pop(seq, None)

    def _acked(self, seq: int) -> None:
        if self._unacked.pop(seq, None) is not None:
            del self._resend_at[seq]
            self._pids.pop(seq, None)
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
        if self.refused is not None and not isinstance(parsed, Hello):
            return  # refused: only a hello (answering our next identify) is looked at
        if isinstance(parsed, ProtocolError):
            self._bad_frame(parsed)
            return
        if not isinstance(parsed, Pong | Ack):
            self._last_said = self._last_rx
        self._received(parsed)

    def _identify(self) -> None:
        self._identify_sent += 1
        self.post(Identify(host=self.host_name[:32], challenge=self.challenge))

    async def _ticker(self) -> None:
        """Identify retries before the hello; heartbeat and offline detection after."""
        while True:
            if not self.welcomed:
                await asyncio.sleep(IDENTIFY_EVERY if self.link.heartbeat else self.link.rto)
                if self.refused is not None:
                    if time.monotonic() - self._refused_at >= REFUSED_RETRY:
                        self._refused_at = time.monotonic()
                        self._identify()
                    continue
                if self.welcomed:
                    continue
                if self._ever_welcomed or self._identify_sent < IDENTIFY_TRIES:
                    self._identify()
                elif self._identify_sent == IDENTIFY_TRIES:
                    self._identify_sent += 1
                    log.warning("%s: no answer to %d identify frames: not a dialbox controller",
                                self.link.name, IDENTIFY_TRIES)
                    shut = getattr(self.link, "shut", None)
                    if shut is not None:  # a phone's WebSocket: nothing else keeps it open
                        shut(1008, f"no hello after {IDENTIFY_TRIES} identify frames: closed")
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
            self._refuse(err.code, detail, err.seq, logging.ERROR)
            return
        self.link.logbook.log(log, logging.INFO, "%s: dropped a frame: %s", self.link.name,
                              err.describe())
        if err.code == codec.E_FIELDS and err.seq and self._replies.take():
            self.post(Error(code=err.code, detail=err.describe()[:80], ref=err.seq))

    def _received(self, msg: Message) -> None:
        name = msg.type_name()
        if name in _DOWN_ONLY:
            if self._replies.take():
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
                self.link.logbook.log(log, logging.INFO, "%s reports %s: %s", self,
                                      msg.code_name, msg.detail)
            return
        if not self.welcomed:
            # A controller that talks without a session (it rebooted, or we did): start one.
            # Its frame is not acknowledged: it will come again after the welcome.
            if self._replies.take():
                self._identify()
            return
        if msg.reliable:
            self.post(Ack(ref=msg.seq))  # written only after the handler below has journaled
            if msg.seq in self._recent:
                return
            self._recent.append(msg.seq)
        if isinstance(msg, Snapshot):
            # One snapshot per welcome: the controller sends it first in each session. Any
            # other (an old one replayed, or sent again after its session) is stale.
            if not self._snapshot_due:
                self.link.logbook.log(log, logging.INFO, "%s: stale snapshot ignored (%s)",
                                      self, msg.describe())
                return
            self._snapshot_due = False
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

    def _refuse(self, code: int, detail: str, ref: int = 0,
                level: int | None = logging.WARNING) -> None:
        """Refuse a hello (another protocol, a spoofed or unauthenticated uid, no seat...):
        answer `error`, and leave whatever session this link had, so nothing waits on it:
        its seat goes offline (the table shows it), frames of the old session are no longer
        sent again, and until a hello is admitted nothing but a hello is looked at; an
        identify goes out every REFUSED_RETRY and a good hello resumes the controller as
        after any reconnect. One log line per reason (level None: the caller logged)."""
        if level is not None and self.refused != detail:
            log.log(level, "%s: hello refused: %s", self.link.name, detail)
        self.refused = detail
        self._refused_at = time.monotonic()
        self._go_offline()
        self._restart_counters()
        if self._resend_timer is not None:
            self._resend_timer.cancel()
            self._resend_timer = None
        if self._replies.take():  # a flood of refused hellos is not a flood of errors
            self.post(Error(code=code, detail=detail[:80], ref=ref))

    def _hello(self, hello: Hello) -> None:
        if self.link.expected_uid is not None and hello.uid != self.link.expected_uid:
            detail = f"uid {hello.uid} on the topic of {self.link.expected_uid}"
            self._refuse(codec.E_SPOOF, detail)
            return
        if self.auth is not None:
            problem = self.auth.check(hello, self.challenge)
            if problem is not None:
                self._refuse(codec.E_AUTH, problem, level=None)  # logged once by auth
                return
        if self.welcomed and self.online and self.uid == hello.uid:
            # The controller restarted its side of the session; resume it.
            self.online = False
            self.host.on_offline(self)
        answer = self.host.admit(self, hello)
        if isinstance(answer, Error):
            self._refuse(answer.code, answer.detail)
            return
        self.refused = None
        self.hello = hello
        self.uid = hello.uid
        self.seat = answer.seat if answer.seat >= 0 else None
        self.welcomed = True
        self._ever_welcomed = True
        self.online = True
        self.post(answer)

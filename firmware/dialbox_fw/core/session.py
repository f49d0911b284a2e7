"""Reliable frames for one protocol session: sequence numbers, acks, retransmission, dedup."""

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


from dialbox_fw.core.clock import ticks_add, ticks_diff
from dialbox_protocol import codec

MAX_IN_FLIGHT = const(4)
SEEN = const(16)

# per-link retransmission timeouts (first, cap) in ms, from docs/protocol.md
SERIAL_RTO = (250, 2000)
MQTT_RTO = (1000, 8000)


class Session:
    """Sequence numbers and the retransmission queue of the controller's side of a link.

    Reliable messages wait in `queue` until the link is online and fewer than
    MAX_IN_FLIGHT are unacknowledged; each in-flight entry is [seq, frame, due, rto, name,
    args]. Frames ready to write collect in `out` (the transport drains it). When the link
    goes offline, unacknowledged frames go back to the queue and are sent again, renumbered,
    after the next handshake: a commit or reveal is never lost.
    """

    def __init__(self, rto=SERIAL_RTO):
        self.rto0 = rto[0]
        self.rto_max = rto[1]
        self.seq = 0
        self.online = False
        self.inflight = []
        self.queue = []
        self.out = []
        self.seen_seqs = [0] * SEEN
        self.seen_i = 0

    def restart(self, now, first_name, first_args):
        """A new session (welcome): counters restart, first_name goes out before the rest."""
        pending = [(e[4], e[5]) for e in self.inflight] + self.queue
        self.inflight = []
        # an unacknowledged snapshot of the old session is stale: the new one replaces it
        self.queue = [(first_name, first_args)] + [q for q in pending if q[0] != first_name]
        self.seq = 0
        for i in range(SEEN):
            self.seen_seqs[i] = 0
        self.online = True
        self.pump(now)

    def offline(self):
        """The link is gone: keep unacknowledged frames for the next session."""
        if not self.online:
            return
        self.online = False
        self.queue = [(e[4], e[5]) for e in self.inflight] + self.queue
        self.inflight = []

    def send(self, name, args, now):
        """Queue a message: reliable ones are numbered and tracked, the rest go out at once."""
        if codec.is_reliable(name):
            self.queue.append((name, args))
            self.pump(now)
        else:
            self.out.append(codec.encode(name, 0, args))

    def pump(self, now):
        while self.online and self.queue and len(self.inflight) < MAX_IN_FLIGHT:
            name, args = self.queue[0]
            seq = 1 if self.seq >= codec.MAX_SEQ else self.seq + 1
            # encode before taking it off the queue: if memory runs out here, the message
            # stays queued and the next tick() tries again
            frame = codec.encode(name, seq, args)
            entry = [seq, frame, ticks_add(now, self.rto0), self.rto0, name, args]
            self.inflight.append(entry)
            self.queue.pop(0)
            self.seq = seq
            self.out.append(frame)

    def acked(self, ref, now):
        for i in range(len(self.inflight)):
            if self.inflight[i][0] == ref:
                self.inflight.pop(i)
                self.pump(now)
                return True
        return False

    def ack(self, seq):
        self.out.append(codec.encode("ack", 0, [seq]))

    def seen(self, seq):
        """True when this reliable seq was already processed in this session."""
        for s in self.seen_seqs:
            if s == seq:
                return True
        return False

    def remember(self, seq):
        self.seen_seqs[self.seen_i] = seq
        self.seen_i = (self.seen_i + 1) % SEEN

    def tick(self, now):
        if not self.online:
            return
        self.pump(now)
        for e in self.inflight:
            if ticks_diff(now, e[2]) >= 0:
                self.out.append(e[1])
                e[3] = min(e[3] * 2, self.rto_max)
                e[2] = ticks_add(now, e[3])

    def pending(self, name):
        """True while a reliable message of this type waits for its ack."""
        for e in self.inflight:
            if e[4] == name:
                return True
        for q in self.queue:
            if q[0] == name:
                return True
        return False

    def take(self):
        out = self.out
        if out:
            self.out = []
        return out

"""The controller's state machine: handshake, prompts, lock/commit, reveal (sans I/O)."""

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


from dialbox_fw import FW_VERSION
from dialbox_fw.core import wheels as wheelmod
from dialbox_fw.core.button import LONG, SHORT
from dialbox_fw.core.clock import ticks_diff
from dialbox_fw.core.entropy import Entropy
from dialbox_fw.core.session import SERIAL_RTO, Session
from dialbox_protocol import codec

BOOTING = const(0)
CONNECTING = const(1)
WAIT_SEAT = const(2)
IDLE = const(3)
PROGRAMMING = const(4)
LOCKED = const(5)
ALLLOCKED = const(6)
REVEALED = const(7)
ERROR = const(8)

STATE_NAMES = (
    "booting",
    "connecting",
    "waiting for seat",
    "idle",
    "programming",
    "locked",
    "all locked",
    "revealed",
    "error",
)

SILENCE_MS = const(3000)  # serial: three missed heartbeats = link lost
_DIAL_MS = const(100)  # a live prompt's `dial` frames: at most one per 100 ms
_FATAL = (
    codec.E_VERSION,
    codec.E_TABLE,
    codec.E_SPOOF,
    codec.E_DEVICE,
    codec.E_SEAT,
    codec.E_AUTH,
)


class Controller:
    """One controller's protocol state, driven by events; frames to send end in session.out.

    Inputs: handle(msg, now) for each decoded frame or DecodeError, turn(wheel, detents,
    now), button(event, now), tick(now). Nothing here touches hardware: `store` keeps the
    lock record (selection + nonce) across resets, `urandom` feeds the nonces' entropy
    pool (core/entropy.py, stirred with the timing of turns and presses), `on_config`
    receives provisioning. `key` is the device key (bytes, from config.json) that each
    hello proves, or None. `changed` is set whenever the screen or LED should be redrawn.
    """

    def __init__(
        self,
        uid,
        board,
        store,
        caps=("oled", "led", "flash"),
        rto=SERIAL_RTO,
        silence_ms=SILENCE_MS,
        urandom=None,
        on_config=None,
        key=None,
    ):
        self.uid = uid
        self.key = key
        self.board = board
        self.caps = list(caps)
        self.store = store
        self.session = Session(rto)
        self.silence_ms = silence_ms
        if urandom is None:
            import os

            urandom = os.urandom
        self.urandom = urandom
        self.entropy = Entropy(urandom, uid)
        self.on_config = on_config
        self.state = CONNECTING
        self.linked = False
        self.last_rx = 0
        self.seat = None
        self.colour = "ffffff"
        self.table = ""
        self.name = ""
        self.prompt = None  # (pid, sealed, unlock, text)
        # a live prompt (open, the host's menu): the wheels are public while dialled. `dial`
        # = they moved since the last `dial` frame, sent at `dial_at` (docs/controller.md)
        self.live = False
        self.dial = False
        self.dial_at = None
        self.wheels = wheelmod.idle_wheels()
        self.edited = False
        self.programming_pid = None
        self.host_has_commit = False
        self.results = None  # (choices, summary, verified: every reveal checked)
        self.alarm = None  # "REVEAL MISMATCH": the host told something that does not verify
        self.error = None
        self.notice = None
        self.headline = ""  # where the table's game stands (the host's `headline`)
        self.changed = True
        self._mark = 0
        self.closed = store.load(True)  # prompt ids closed: never asked again (store.CLOSED)
        self.record = store.load()
        if self.record is not None and not self.record.get("sealed"):
            self.record = None
        if self.record is not None:
            self.state = LOCKED

    # ------------------------------------------------------------ helpers

    def _send(self, name, args, now):
        self.session.send(name, args, now)

    def _set(self, state):
        if state != self.state:
            self.state = state
        self.changed = True

    def fail(self, reason):
        """Enter the error state with a short reason for the OLED."""
        self.error = reason
        self._set(ERROR)

    def pid(self):
        if self.record is not None:
            return self.record["pid"]
        if self.prompt is not None:
            return self.prompt[0]
        return None

    def wire_state(self):
        """The state name reported in status and snapshot (codec.STATES)."""
        s = self.state
        if s == LOCKED:
            return "locked"
        if s == ALLLOCKED:
            return "alllocked"
        if s == REVEALED:
            return "revealed"
        if s == PROGRAMMING and self.edited:
            return "editing"
        return "idle"

    def snapshot_args(self):
        c = None
        if self.record is not None and self.record.get("sealed") and self.state != REVEALED:
            c = self.record.get("commitment")
        return [self.pid(), self.wire_state(), c]

    # ------------------------------------------------------------ inputs

    def handle(self, msg, now):
        """Process one decoded frame (a dict) or a codec.DecodeError."""
        self.last_rx = now
        if not self.linked and self.session.online:
            self.linked = True
            self.changed = True
        if isinstance(msg, codec.DecodeError):
            if msg.name == "identify" and msg.code in (codec.E_VERSION, codec.E_TABLE):
                self._hello("")
                self.fail("host: " + msg.code_name())
            return
        t = msg["t"]
        seq = msg["seq"]
        if seq:
            if not self.session.online and t != "welcome" and t != "config":
                # No session (never welcomed, or the link timed out while the host's side
                # stayed up): say so and change nothing; the host identifies again and
                # resumes us. welcome starts a session; config is provisioning over USB.
                # error and ack carry no seq: never answered, so no loop.
                self._send("error", [codec.E_STATE, codec.NO_SESSION, seq], now)
                return
            if t != "welcome" and self.session.seen(seq):
                self.session.ack(seq)  # a retransmission we already processed
                return
            if self._dispatch(t, msg, seq, now):
                return  # not now: neither acknowledged nor remembered, the host sends it again
            # acknowledged only once processed (a MemoryError above means the host sends it
            # again), but ahead of whatever processing it queued, as the protocol shows
            self.session.remember(seq)
            self.session.out.insert(self._mark, codec.encode("ack", 0, [seq]))
            return
        self._dispatch(t, msg, seq, now)

    def _dispatch(self, t, msg, seq, now):
        self._mark = len(self.session.out)
        if t == "ack":
            self.session.acked(msg["ref"], now)
        elif t == "ping":
            self._send("pong", [msg["ms"]], now)
        elif t == "identify":
            self._hello(msg["challenge"])
        elif t == "welcome":
            self._welcome(msg, now)
        elif t == "prompt":
            return self._prompt(msg, now)
        elif t == "alllocked":
            self._alllocked(msg, now)
        elif t == "revealed":
            self._revealed(msg, now)
        elif t == "status":
            if self.record is not None and msg["pid"] == self.record["pid"]:
                self.host_has_commit = msg["state"] == "locked"
                self.changed = True
        elif t == "headline":
            self.headline = msg["text"][:60]
            self.changed = True
        elif t == "error":
            self._error(msg)
        elif t == "config":
            self._config(msg, now)
        elif t in ("hello", "snapshot", "commit", "uncommit", "reveal"):
            self._send("error", [codec.E_DIRECTION, t + " goes controller to host", seq], now)

    def _hello(self, challenge):
        # the proof of the device key covers the host's challenge: a recorded hello is
        # worth nothing on another link (docs/protocol.md, Device identity)
        mac = codec.hello_mac(self.key, challenge, self.uid) if self.key else ""
        self.session.out.append(
            codec.encode(
                "hello",
                0,
                [
                    codec.PROTOCOL_VERSION,
                    codec.TABLE_HASH,
                    FW_VERSION,
                    self.board,
                    self.uid,
                    self.caps,
                    mac,
                ],
            )
        )

    def _welcome(self, msg, now):
        self.seat = msg["seat"]
        self.colour = msg["colour"]
        self.table = msg["table"]
        self.name = msg["name"]
        self.linked = True
        self.error = None
        rec = self.record
        if rec is not None and rec.get("sealed"):
            if self.state != ALLLOCKED:
                self._set(LOCKED)
        elif self.seat < 0:
            self._set(WAIT_SEAT)
        elif self.state in (CONNECTING, BOOTING, WAIT_SEAT, ERROR) or rec is not None:
            if rec is not None:  # an open answer (e.g. the pairing press) is done
                self.prompt = None
            self.record = None
            self._set(IDLE)
        self.changed = True
        self.session.restart(now, "snapshot", self.snapshot_args())

    def _prompt(self, msg, now):
        """A prompt; True (= not now) while a lock on another prompt is not settled."""
        pid = msg["pid"]
        if pid in self.closed:
            return None  # closed: a late copy is never asked again
        rec = self.record
        if rec is not None and rec["pid"] != pid:
            # Locked on another prompt whose `revealed` has not come (it is on its way: the
            # host closes a prompt before it asks the next): the lock record is never given
            # up for another prompt. Unacknowledged, this prompt comes again.
            return True
        self.alarm = None
        self.prompt = (pid, msg["sealed"], msg["unlock"], msg["text"])
        # never live when sealed, whatever the host says: a sealed choice stays here
        self.live = msg["live"] and not msg["sealed"]
        self.dial = False
        self.dial_at = None  # (a ticks value days old could compare as in the future)
        self.results = None
        if rec is not None and rec["pid"] == pid:
            # the host re-sent the prompt we already locked (reconnect): stay locked
            self.wheels = wheelmod.from_prompt(msg["wheels"])
            for i in range(3):
                self.wheels[i].index = rec["sel"][i]
            if not rec.get("sealed") and not self.session.pending("reveal"):
                self._send("reveal", [pid, rec["sel"], rec["nonce"]], now)
            if self.state not in (LOCKED, ALLLOCKED):
                self._set(LOCKED)
            self.changed = True
            return None
        if self.state == PROGRAMMING and self.programming_pid == pid:
            # a duplicate of the prompt being programmed (a resume): keep the wheels, and
            # tell a live prompt's host where they are
            self.dial = self.live
            return None
        self.programming_pid = pid
        self.wheels = wheelmod.from_prompt(msg["wheels"])
        self.edited = False
        self._set(PROGRAMMING)
        return None

    def _alllocked(self, msg, now):
        pid = msg["pid"]
        if pid in self.closed:
            return
        rec = self.record
        if rec is None or rec["pid"] != pid or not rec.get("sealed"):
            self._send(
                "error", [codec.E_PROMPT, "no commitment for prompt %d" % pid, msg["seq"]], now
            )
            return
        if [self.seat, rec["commitment"]] not in msg["commits"]:
            # a forged or early all-locked: the selection stays here
            why = "alllocked lacks my commitment"
            self._send("error", [codec.E_MISMATCH, why, msg["seq"]], now)
            return
        if "commits" not in rec:  # kept to verify the others' reveals (survives a reset)
            rec["commits"] = msg["commits"]
            self.store.save(rec)
        if not self.session.pending("reveal"):
            self._send("reveal", [pid, rec["sel"], rec["nonce"]], now)
        self._set(ALLLOCKED)

    def _revealed(self, msg, now):
        pid = msg["pid"]
        if pid in self.closed:
            return  # told already
        mine = self.pid()
        if mine is not None and mine != pid:
            # a stale or replayed reveal must not knock out the prompt in hand
            self._send("error", [codec.E_PROMPT, "prompt %d is not open" % pid, msg["seq"]], now)
            return
        rec = self.record
        v = self._check(msg, rec) if msg["choices"] else 0
        self.alarm = None
        if v < 0:
            self.alarm = "REVEAL MISMATCH"
            self.changed = True
            self._send("error", [codec.E_MISMATCH, "reveal does not verify", msg["seq"]], now)
            if v == -1:
                return  # not my choice: the lock record stays until the host confirms it
        self._close(pid)
        self.results = (msg["choices"], msg["summary"], v == 1)
        if rec is not None:
            self._forget()
        self.prompt = None
        self.programming_pid = None
        self.wheels = wheelmod.idle_wheels()
        self._set(REVEALED)

    def _close(self, pid):
        c = self.closed
        if pid not in c:
            c.pop(0)
            c.append(pid)
            self.store.save(c, True)

    def _check(self, msg, rec):
        """Verify a `revealed` answer: 1 = my own reveal confirmed (if I locked) and every
        seat's reveal hashes to the commitment alllocked gave for it; 0 = nothing to check
        it against; -1 = my own reveal is missing or not mine; -2 = another seat's reveal
        does not verify (or a committed seat's is missing)."""
        pid = msg["pid"]
        commits = rec.get("commits") if rec is not None else None
        own = rec is None
        good = 0
        last = -1
        try:
            for seat, sel, nonce, uid in msg["reveals"]:
                if rec is not None and seat == self.seat:
                    if [uid, sel, nonce] != [self.uid, rec["sel"], rec["nonce"]]:
                        return -1
                    own = True
                for k in commits or ():
                    if k[0] == seat > last and codec.verify_reveal(k[1], sel, nonce, pid, uid):
                        good += 1
                last = seat  # (seats in order, each once: a copy cannot stand in for another)
        except (TypeError, ValueError, IndexError, KeyError):
            return -1  # malformed: it confirms nothing
        if not own:
            return -1
        if commits and not good == len(commits) == len(msg["reveals"]):
            return -2  # one that does not verify, or a committed seat's left out
        return 1 if rec is not None else 0

    def _error(self, msg):
        code = msg["code"]
        detail = msg["detail"]
        if code in _FATAL:
            self.fail(detail or codec.ERROR_NAMES.get(code, "error"))
        else:
            self.notice = codec.ERROR_NAMES.get(code, "error")
            self.changed = True

    def _config(self, msg, now):
        from dialbox_fw.core import config

        cfg = config.from_message(msg)
        problem = config.check(cfg)
        if problem is not None:
            self._send("error", [codec.E_CONFIG, problem, msg["seq"]], now)
            return
        if self.on_config is not None:
            self.on_config(cfg)
        self.notice = "provisioned"
        self.changed = True

    def _forget(self):
        sealed = self.record is not None and self.record.get("sealed")
        self.record = None
        self.host_has_commit = False
        if sealed:
            self.store.clear()

    def turn(self, wheel, detents, now):
        """Whole detents from the encoder of one wheel (0 left, 1 centre, 2 right)."""
        self.entropy.stir(wheel << 8 | detents & 255, now)
        if self.state != PROGRAMMING or detents == 0:
            return
        w = self.wheels[wheel]
        if not w.active:
            return
        if w.step(detents):
            self.changed = True
            if not self.edited:
                self.edited = True
                self._send("status", [self.prompt[0], "editing"], now)
            self.dial = self.live  # sent by the next tick(): the main loop's same pass

    def button(self, event, now):
        self.entropy.stir(event, now)
        if event == SHORT:
            if self.state == PROGRAMMING and self.prompt is not None:
                self.lock(now)
            elif self.notice is not None:
                self.notice = None
                self.changed = True
        elif event == LONG:
            if self.alarm is not None and self.record is not None:
                # the player gives up a lock the host would not confirm (REVEAL MISMATCH):
                # that prompt is closed here, the next one can be asked
                self._close(self.record["pid"])
                self._forget()
                self.alarm = None
                self.prompt = None
                self._set(IDLE)
            elif self.state == LOCKED and self.prompt is not None and self.prompt[2]:
                self.unlock(now)

    def lock(self, now):
        pid, sealed, _unlock, _text = self.prompt
        sel = wheelmod.selection(self.wheels)
        nonce = self.entropy.draw(codec.NONCE_BYTES)
        nonce_text = codec.b64(nonce)
        if sealed:
            c = codec.commitment(sel, nonce, pid, self.uid)
            rec = {"pid": pid, "sel": sel, "nonce": nonce_text, "commitment": c}
            rec["sealed"] = True
            self.store.save(rec)  # first: a flash error leaves no unsaved lock in RAM
            self.record = rec
            self._send("commit", [pid, c], now)
        else:
            # open prompt: nothing to hide, the answer goes out now (kept in RAM until done)
            self.record = {"pid": pid, "sel": sel, "nonce": nonce_text, "commitment": None}
            self.record["sealed"] = False
            self._send("reveal", [pid, sel, nonce_text], now)
        self.host_has_commit = False
        self._set(LOCKED)

    def unlock(self, now):
        rec = self.record
        if rec is None or not rec.get("sealed"):
            return
        pid = rec["pid"]
        self._forget()
        self._send("uncommit", [pid], now)
        self._send("status", [pid, "unlocked"], now)
        self.edited = True
        self._set(PROGRAMMING)

    def tick(self, now):
        """Retransmit due frames; declare the link lost after silence_ms without a frame;
        send a live prompt's selection (`dial`) if the wheels moved since the last one, at
        most one per _DIAL_MS: a move inside that time stays due and goes from a later
        pass, so where the wheels come to rest is always sent. Never for a sealed or
        non-live prompt (docs/controller.md, "Live prompts")."""
        s = self.session
        if self.silence_ms and s.online and ticks_diff(now, self.last_rx) > self.silence_ms:
            self.link_lost()
        if self.dial and self.live and self.state == PROGRAMMING and s.online:
            at = self.dial_at
            if at is None or ticks_diff(now, at) >= _DIAL_MS:
                self.dial = False
                self.dial_at = now
                s.send("dial", [self.prompt[0], wheelmod.selection(self.wheels)], now)
        s.tick(now)

    def link_lost(self):
        self.session.offline()
        if self.linked:
            self.linked = False
            self.changed = True

    def view_state(self):
        """The state the screen shows: 'connecting' overrides while the link is down."""
        if self.state == ERROR:
            return ERROR
        if not self.linked:
            return CONNECTING
        return self.state

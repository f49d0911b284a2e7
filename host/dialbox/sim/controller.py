"""SimController: start, steer and watch one simulated controller (pty or MQTT link).

The controller runs as a subprocess: the firmware's own `dialbox_fw.sim` entry on the
MicroPython unix port (the .mpy bundle for the `sim` pseudo-board, in a 128 KB heap) or on
CPython (the sources). Its serial link is its stdin/stdout, relayed by a thread here to a
pseudo-terminal whose slave node (`device_path`) the host opens like a real USB serial
port. The control channel is a TCP socket on 127.0.0.1 (address passed to the subprocess
in DIALBOX_SIM_CONTROL): JSON lines carry turns and presses to the firmware's virtual HAL
and bring back every OLED/LED view. See docs/controller.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Literal

from dialbox.paths import firmware_dir, micropython_binary, protocol_dir, repo_root
from dialbox.processes import stop_process
from dialbox_protocol.codec import b64

Runtime = Literal["micropython", "cpython"]
LinkKind = Literal["pty", "mqtt"]

START_TIMEOUT = 15.0
HISTORY = 1000  # views kept by history()
HEAP_PTY = "128k"
HEAP_MQTT = "160k"


class SimError(RuntimeError):
    """The simulated controller could not start, died, or did not reach a state in time."""


@dataclass(frozen=True)
class MqttSettings:
    """Where a simulated controller finds its broker (what provisioning writes on a board).

    `host` may list the nodes of a clustered broker, "host:port,host:port,..." (the
    firmware's `broker`, at most 64 characters): the controller starts on the first and
    moves to the next whenever its connection fails or is lost."""

    host: str = "127.0.0.1"
    port: int = 1883
    table: str = "table1"
    user: str = ""
    password: str = ""


@dataclass(frozen=True)
class SimView:
    """One redraw of the controller: OLED text lines, LED colour and the state behind them."""

    lines: tuple[str, ...] = ()
    led: str = "000000"
    state: str = "booting"
    wire: str = "idle"
    pid: int | None = None
    linked: bool = False
    seat: int | None = None
    serial: int = 0  # counts views since start, so waiters can tell a new view from an old one
    lock: tuple[int, tuple[int, ...]] | None = None
    """(pid, selection) of the lock record the controller holds, if any."""


@dataclass
class _Pty:
    master: int
    slave: int
    path: str


def _bundle_lock() -> Any:
    lock_path = repo_root() / "build" / ".sim-bundle.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    return open(lock_path, "w")  # noqa: SIM115 - held for the duration of the build


def sim_bundle() -> Path:
    """The .mpy bundle of the sim pseudo-board (built once, reused while sources are unchanged)."""
    from dialbox.firmware_tools import bundle

    with _bundle_lock() as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        return bundle.build(bundle.SIM).root


@dataclass
class _Proc:
    popen: subprocess.Popen[bytes]
    control: socket.socket
    threads: list[threading.Thread] = field(default_factory=list)


class SimController:
    """One simulated controller. Use as a context manager, or start()/stop().

    turn()/press() act on the virtual wheels and button; screen()/led()/view() read the
    latest redraw; kill() is a power cut (flash in state_dir survives) and start() boots
    again; unplug()/replug() pull and reinsert the USB cable (the pty node disappears);
    reset() presses the reset button (the firmware's own reset path, as machine.reset() on
    a board: it boots again in the same process, from flash); hang() stops its main loop
    for a while, which with `watchdog_ms` set lets the virtual watchdog reset it.
    """

    def __init__(
        self,
        uid: str,
        *,
        runtime: Runtime = "micropython",
        link: LinkKind = "pty",
        board: str = "pico_w",
        auto: bool = False,
        state_dir: Path | None = None,
        mqtt: MqttSettings | None = None,
        heap: str | None = None,
        key: bytes | None = None,
        watchdog_ms: int | None = None,
    ) -> None:
        if link == "mqtt" and mqtt is None:
            mqtt = MqttSettings()
        self.uid = uid
        self.runtime: Runtime = runtime
        self.link: LinkKind = link
        self.board = board
        self.auto = auto
        self.mqtt = mqtt
        self.watchdog_ms = watchdog_ms
        """The virtual watchdog's timeout (DIALBOX_SIM_WDT_MS), or None: no watchdog, as
        the simulator has by default."""
        self.key = key
        """The device key provisioned into its config.json (the host's key store must hold
        the same one: `KeyStore.ensure(uid)` makes and keeps it), or None."""
        # MicroPython heap: 128 KB over the pty (the target); the MQTT client and its socket
        # streams need more on the 64-bit unix port (see docs/controller.md, Memory)
        self.heap = heap or (HEAP_PTY if link == "pty" else HEAP_MQTT)
        self._own_dir = state_dir is None
        self.state_dir = (
            Path(tempfile.mkdtemp(prefix=f"dialbox-sim-{uid}-")) if state_dir is None else state_dir
        )
        self._pty: _Pty | None = None
        self._proc: _Proc | None = None
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._view = SimView()
        self._views = 0
        self._mem: dict[str, Any] | None = None
        self._history: list[SimView] = []
        self._configured = False
        self.locks: dict[int, tuple[int, ...]] = {}
        """pid -> the selection of the first lock this controller made for it (kept across
        kill/start): what a test compares with the answers the host applied."""
        self.relocks: list[tuple[int, tuple[int, ...]]] = []
        """(pid, selection) of every later lock for a pid that differs from the first."""
        self.resets: list[str] = []
        """Why the firmware reset itself, one entry per reset ("button", "watchdog",
        "reset" for provisioning or a fatal exception), across kill/start."""
        self.reset_views: list[int] = []
        """For each reset, the `serial` of the last view before it: a view with a higher
        serial was drawn by the firmware booted again."""

    # ------------------------------------------------------------ lifecycle

    def __enter__(self) -> SimController:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.popen.poll() is None

    @property
    def pid(self) -> int | None:
        """The OS process id of the firmware subprocess (None when not running)."""
        return self._proc.popen.pid if self._proc is not None else None

    def start(self) -> None:
        """Boot the controller (again, after kill(): flash in state_dir is kept)."""
        if self.running:
            return
        self.state_dir.mkdir(parents=True, exist_ok=True)
        if not self._configured:
            # this object's settings go to flash once; a restart after kill() keeps whatever
            # is on flash then (e.g. what `dialbox firmware provision` wrote)
            self._write_config()
            self._configured = True
        if self.link == "pty" and self._pty is None:
            self._pty = self._open_pty()
        self._spawn()

    def stop(self) -> None:
        """Stop the firmware, close the pty and remove a state_dir this object created."""
        proc = self._proc
        if proc is not None:
            with contextlib.suppress(OSError):
                proc.control.sendall(b'{"op":"quit"}\n')
            stop_process(proc.popen, 3, terminate=False)
            self._reap(proc)
        self._close_pty()
        if self._own_dir:
            shutil.rmtree(self.state_dir, ignore_errors=True)

    def kill(self) -> None:
        """Power cut: SIGKILL the firmware. The pty and the flash (state_dir) stay."""
        proc = self._proc
        if proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            proc.popen.send_signal(signal.SIGKILL)
        proc.popen.wait()
        self._reap(proc)

    def _reap(self, proc: _Proc) -> None:
        """Forget an exited firmware process: its relay thread closes its pipes on EOF."""
        with self._lock:
            if self._proc is proc:
                self._proc = None
        with contextlib.suppress(OSError):
            proc.control.close()
        for t in proc.threads:
            t.join(timeout=3)
        for stream in (proc.popen.stdin, proc.popen.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    # ------------------------------------------------------------ the link

    @property
    def device_path(self) -> str:
        """The pty slave node the host opens as this controller's serial port."""
        if self._pty is None:
            raise SimError(f"{self.uid}: no serial device (link={self.link}, or unplugged)")
        return self._pty.path

    @property
    def link_path(self) -> Path:
        """A stable symlink to the current device node (like /dev/serial/by-id/...)."""
        return self.state_dir / "tty"

    def unplug(self) -> None:
        """Pull the USB cable: the pty node goes away; the firmware keeps running."""
        self._close_pty()

    def replug(self) -> None:
        """Plug it back in: a new pty node (link_path follows it)."""
        if self.link != "pty":
            raise SimError("replug() needs link='pty'")
        if self._pty is None:
            with self._lock:
                self._pty = self._open_pty()

    def _open_pty(self) -> _Pty:
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        path = os.ttyname(slave)
        with contextlib.suppress(FileNotFoundError):
            self.link_path.unlink()
        os.symlink(path, self.link_path)
        return _Pty(master, slave, path)

    def _close_pty(self) -> None:
        with self._lock:
            p = self._pty
            self._pty = None
        if p is None:
            return
        with contextlib.suppress(FileNotFoundError):
            self.link_path.unlink()
        for fd in (p.master, p.slave):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _relay_loop(self, proc: _Proc) -> None:
        """For one firmware process: its stdout -> pty master, pty master -> its stdin.

        Runs until the process's stdout ends (it exited or was killed). While the pty is
        unplugged the firmware's output is dropped, as a USB device's is with no host.
        """
        assert proc.popen.stdout is not None and proc.popen.stdin is not None
        out_fd = proc.popen.stdout.fileno()
        stdin = proc.popen.stdin
        while True:
            with self._lock:
                pty_ = self._pty
            fds = [out_fd] if pty_ is None else [out_fd, pty_.master]
            try:
                ready, _, _ = select.select(fds, [], [], 0.05)
            except (OSError, ValueError):
                continue  # the pty was closed under us (unplug): look again
            if out_fd in ready:
                data = os.read(out_fd, 4096)
                if not data:
                    return  # the firmware exited
                if pty_ is not None and self._pty is pty_:
                    with contextlib.suppress(OSError):  # nobody reading: dropped, like USB
                        os.write(pty_.master, data)
            if pty_ is not None and pty_.master in ready:
                try:
                    data = os.read(pty_.master, 4096)
                except OSError:
                    data = b""
                if data:
                    with contextlib.suppress(OSError, ValueError):
                        stdin.write(data)
                        stdin.flush()

    # ------------------------------------------------------------ the process

    def _write_config(self) -> None:
        m = self.mqtt if self.link == "mqtt" else None
        cfg = {
            "device": self.uid,
            "colour": "",
            "ssid": "",
            "psk": "",
            "broker": m.host if m else "",
            "port": m.port if m else 1883,
            "user": m.user if m else "",
            "password": m.password if m else "",
            "table": m.table if m else "table1",
            "key": b64(self.key) if self.key else "",
        }
        (self.state_dir / "config.json").write_text(json.dumps(cfg))

    def command(self) -> list[str]:
        """The argv that runs the firmware's simulated-controller entry on this runtime."""
        entry = "from dialbox_fw import sim; sim.main()"
        if self.runtime == "micropython":
            return [micropython_binary(), "-X", f"heapsize={self.heap}", "-c", entry]
        return [sys.executable, "-c", entry]

    def environment(self, control: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            DIALBOX_SIM_UID=self.uid,
            DIALBOX_SIM_PROFILE=str(firmware_dir() / "boards" / f"{self.board}.json"),
            DIALBOX_SIM_CONTROL=control,
            DIALBOX_SIM_LINK=self.link,
            DIALBOX_SIM_AUTO="1" if self.auto else "0",
        )
        if self.watchdog_ms:
            env["DIALBOX_SIM_WDT_MS"] = str(self.watchdog_ms)
        if self.runtime == "micropython":
            env["MICROPYPATH"] = f".frozen:{sim_bundle()}"
        else:
            env["PYTHONPATH"] = os.pathsep.join([str(firmware_dir()), str(protocol_dir())])
        return env

    def _spawn(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.settimeout(START_TIMEOUT)
        host, port = listener.getsockname()
        env = self.environment(f"{host}:{port}")
        log: IO[bytes] = open(self.state_dir / "sim.log", "ab")  # noqa: SIM115
        try:
            pty_link = self.link == "pty"
            popen = subprocess.Popen(
                self.command(),
                stdin=subprocess.PIPE if pty_link else subprocess.DEVNULL,
                stdout=subprocess.PIPE if pty_link else log,
                stderr=log,
                cwd=self.state_dir,
                env=env,
            )
        finally:
            log.close()
        try:
            conn, _ = listener.accept()
        except OSError as e:
            popen.kill()
            popen.wait()
            raise SimError(f"{self.uid}: the firmware did not start: {self.log_tail()}") from e
        finally:
            listener.close()
        conn.settimeout(None)
        proc = _Proc(popen, conn)
        proc.threads.append(threading.Thread(target=self._control_loop, args=(conn,), daemon=True))
        if pty_link:
            proc.threads.append(
                threading.Thread(target=self._relay_loop, args=(proc,), daemon=True)
            )
        with self._lock:
            self._proc = proc
        for t in proc.threads:
            t.start()

    def _control_loop(self, conn: socket.socket) -> None:
        buf = b""
        while True:
            try:
                data = conn.recv(4096)
            except OSError:
                return
            if not data:
                return
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue
                if ev.get("ev") == "view":
                    self._on_view(ev)
                elif ev.get("ev") == "mem":
                    with self._cond:
                        self._mem = ev
                        self._cond.notify_all()
                elif ev.get("ev") == "reset":
                    with self._cond:
                        self.resets.append(str(ev.get("detail", "")))
                        self.reset_views.append(self._views)
                        self._cond.notify_all()

    def _on_view(self, ev: dict[str, Any]) -> None:
        with self._cond:
            self._views += 1
            lock = ev.get("lock")
            held = (int(lock[0]), tuple(lock[1])) if lock else None
            if held is not None:
                first = self.locks.setdefault(held[0], held[1])
                if first != held[1] and held not in self.relocks:
                    self.relocks.append(held)
            self._view = SimView(
                lines=tuple(ev.get("lines", ())),
                led=str(ev.get("led", "000000")),
                state=str(ev.get("state", "")),
                wire=str(ev.get("wire", "")),
                pid=ev.get("pid"),
                linked=bool(ev.get("linked")),
                seat=ev.get("seat"),
                serial=self._views,
                lock=held,
            )
            self._history.append(self._view)
            del self._history[:-HISTORY]
            self._cond.notify_all()

    def log_tail(self, lines: int = 20) -> str:
        """The end of the firmware's stderr log (state_dir/sim.log), and its exit status
        when the process has ended (a negative status is the signal that killed it)."""
        try:
            text = (self.state_dir / "sim.log").read_text(errors="replace")
        except OSError:
            text = ""
        tail = text.splitlines()[-lines:]
        proc = self._proc
        code = proc.popen.poll() if proc is not None else None
        if code is not None:
            tail.append(f"(the firmware process exited with status {code})")
        return "\n".join(tail)

    # ------------------------------------------------------------ inputs and outputs

    def _control(self, obj: dict[str, Any]) -> None:
        proc = self._proc
        if proc is None or proc.popen.poll() is not None:
            raise SimError(f"{self.uid} is not running: {self.log_tail()}")
        proc.control.sendall(json.dumps(obj).encode() + b"\n")

    def turn(self, wheel: int, detents: int, bounce: bool = False) -> None:
        """Turn a wheel (0 left, 1 centre, 2 right) by whole detents; negative = anticlockwise."""
        if wheel not in (0, 1, 2):
            raise ValueError("wheel is 0 (left), 1 (centre) or 2 (right)")
        self._control({"op": "turn", "wheel": wheel, "detents": detents, "bounce": bounce})

    def press(self, ms: int = 100) -> None:
        """Hold the button for ms milliseconds: short (< 800 ms) locks, ~1 s unlocks."""
        self._control({"op": "press", "ms": ms})

    def reset(self) -> None:
        """Press the reset button: the firmware's HAL reset() (machine.reset() on a board).
        The controller boots again in the same process, from its flash; the pty stays (a
        board whose USB port re-enumerates: unplug() and replug() around it)."""
        self._control({"op": "reset"})

    def hang(self, ms: int) -> None:
        """Stop the firmware's main loop for ms milliseconds (a stuck bus, a livelock). With
        `watchdog_ms` below ms, its watchdog resets it when the loop comes back."""
        self._control({"op": "hang", "ms": ms})

    def wait_resets(self, n: int, timeout: float = 10.0) -> list[str]:
        """Block until the firmware has reset itself n times since this object started it
        first; the reasons. SimError on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(self.resets) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise SimError(
                        f"{self.uid}: {len(self.resets)} resets, not {n}; log: {self.log_tail()}"
                    )
                self._cond.wait(min(left, 0.2))
            return list(self.resets)

    def memory(self, timeout: float = 10.0) -> dict[str, int]:
        """The firmware's heap: {"alloc", "free"} after a gc.collect(), and the "peak" alloc
        seen by its main loop since boot (bytes)."""
        with self._cond:
            self._mem = None
        self._control({"op": "mem"})
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._mem is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise SimError(f"{self.uid}: no memory report; log: {self.log_tail()}")
                self._cond.wait(left)
            return {k: int(v) for k, v in self._mem.items() if k != "ev"}

    def view(self) -> SimView:
        with self._lock:
            return self._view

    def history(self) -> list[SimView]:
        """Every view (OLED frame + LED) since start, oldest first (the last 1000)."""
        with self._lock:
            return list(self._history)

    def screen(self) -> list[str]:
        """The latest OLED frame as text lines (16 columns, up to 8 rows)."""
        return list(self.view().lines)

    def led(self) -> str:
        """The latest status LED colour, rrggbb."""
        return self.view().led

    def state(self) -> str:
        """The firmware's state name (booting, connecting, idle, programming, locked, ...)."""
        return self.view().state

    def wait_for(
        self, predicate: Callable[[SimView], bool], timeout: float = 10.0, what: str = ""
    ) -> SimView:
        """Block until a view satisfies predicate; SimError (with the log) on timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(self._view):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise SimError(
                        f"{self.uid}: timed out waiting for {what or 'a view'}; "
                        f"last view {self._view}; log: {self.log_tail()}"
                    )
                self._cond.wait(min(left, 0.2))
            return self._view

    def wait_state(self, state: str, timeout: float = 10.0) -> SimView:
        return self.wait_for(lambda v: v.state == state, timeout, f"state {state!r}")

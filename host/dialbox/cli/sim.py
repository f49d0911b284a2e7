"""`dialbox sim`: run simulated controllers over pseudo-terminals or MQTT; play one by keyboard."""

from __future__ import annotations

import argparse
import contextlib
import re
import select
import shlex
import sys
import termios
import time
import tty
from pathlib import Path
from typing import Any

from dialbox.sim import MqttSettings, SimController, SimError, SimView

KEYS = {
    "q": (0, -1),
    "w": (0, 1),
    "a": (1, -1),
    "s": (1, 1),
    "z": (2, -1),
    "x": (2, 1),
}
HELP = "wheels: q/w left  a/s centre  z/x right   space lock   u unlock (long press)   ctrl-c quit"


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "sim", help="run simulated controllers (the real firmware on a virtual HAL)"
    )
    p.add_argument("-n", "--count", type=int, default=1, help="how many controllers (default 1)")
    p.add_argument("--uid", default="sim", help="device id, or prefix when --count > 1")
    p.add_argument("--runtime", choices=["micropython", "cpython"], default="micropython")
    p.add_argument("--link", choices=["pty", "mqtt"], default="pty")
    p.add_argument("--board", default="pico_w", help="board profile (firmware/boards/*.json)")
    p.add_argument("--state-dir", type=Path, default=None, help="flash directory (one per uid)")
    p.add_argument("--auto", action="store_true", help="play by itself: random legal choices")
    p.add_argument("-i", "--interactive", action="store_true", help="keyboard + OLED in terminal")
    p.add_argument("--script", type=Path, help="script: turn W N [bounce] | press MS | wait STATE")
    p.add_argument("--broker", default="127.0.0.1:1883", help="MQTT broker host:port")
    p.add_argument("--table", default="table1", help="MQTT table name")
    p.add_argument("--user", default="", help="MQTT user name")
    p.add_argument("--password", default="", help="MQTT password")
    p.add_argument("--keys", type=Path, default=None,
                   help="pair with a daemon: give each controller a device key from this key "
                   "store (the daemon's `keys` file; created or kept)")
    p.set_defaults(func=run)


def _uids(args: argparse.Namespace) -> list[str]:
    if args.count == 1:
        return [args.uid]
    return [f"{args.uid}-{i + 1}" for i in range(args.count)]


Step = tuple[str, list[Any]]


def read_script(path: Path) -> list[Step]:
    """The script's commands, each checked (Failure naming the file and line): turn WHEEL
    DETENTS [bounce], press MS, wait STATE [SECONDS], sleep SECONDS, screen; # comments."""
    from dialbox.cli import Failure

    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise Failure(f"{path}: cannot read the script ({reason})") from None
    usage = {"turn": "turn WHEEL DETENTS [bounce] (WHEEL 0, 1 or 2)", "press": "press MS",
             "wait": "wait STATE [SECONDS]", "sleep": "sleep SECONDS", "screen": "screen"}
    steps: list[Step] = []
    for n, raw in enumerate(text.splitlines(), 1):
        try:
            words = shlex.split(raw, comments=True)
        except ValueError as e:
            raise Failure(f"{path}:{n}: {e}") from None
        if not words:
            continue
        cmd, rest = words[0], words[1:]
        if cmd not in usage:
            raise Failure(f"{path}:{n}: unknown command {cmd!r} (commands: "
                          f"{', '.join(usage)})")
        try:
            if cmd == "turn" and len(rest) in (2, 3) and rest[2:] in ([], ["bounce"]):
                wheel, detents = int(rest[0]), int(rest[1])
                if wheel not in (0, 1, 2):
                    raise ValueError(wheel)
                args: list[Any] = [wheel, detents, len(rest) == 3]
            elif cmd == "press" and len(rest) == 1 and int(rest[0]) >= 0:
                args = [int(rest[0])]
            elif cmd == "wait" and len(rest) in (1, 2):
                args = [rest[0], float(rest[1]) if len(rest) > 1 else 30.0]
            elif cmd == "sleep" and len(rest) == 1 and float(rest[0]) >= 0:
                args = [float(rest[0])]
            elif cmd == "screen" and not rest:
                args = []
            else:
                raise ValueError(rest)
        except ValueError:
            raise Failure(f"{path}:{n}: {raw.strip()!r}: expected {usage[cmd]}") from None
        steps.append((cmd, args))
    return steps


def check_args(args: argparse.Namespace) -> tuple[MqttSettings, list[Step] | None]:
    """Everything checked before a controller starts (Failure: one line): counts, board,
    broker address, key store, the script, a terminal for --interactive."""
    from dialbox.cli import Failure
    from dialbox.firmware_tools import bundle

    if args.count < 1:
        raise Failure(f"--count {args.count}: controllers, 1 or more")
    for uid in _uids(args):
        if not re.fullmatch(r"[A-Za-z0-9_.-]{1,32}", uid):
            raise Failure(f"--uid {uid!r}: a device id is 1-32 of A-Za-z0-9_.-")
    if args.board not in bundle.boards():
        raise Failure(f"--board {args.board!r}: unknown board; boards: "
                      f"{', '.join(bundle.boards())}")
    host, _, port = args.broker.rpartition(":")
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise Failure(f"--broker {args.broker!r}: expected HOST:PORT, e.g. 127.0.0.1:1883")
    mqtt = MqttSettings(host or "127.0.0.1", int(port), args.table, args.user, args.password)
    if args.keys is not None:
        from dialbox.sessions.keys import KeyStore, KeyStoreError

        try:
            KeyStore(args.keys).load()
        except KeyStoreError as e:
            raise Failure(str(e)) from None
    steps = read_script(args.script) if args.script is not None else None
    if args.interactive and steps is None and not sys.stdin.isatty():
        raise Failure("--interactive needs a terminal")
    return mqtt, steps


def run(args: argparse.Namespace) -> int:
    from dialbox.cli import FAILED, Failure

    mqtt, steps = check_args(args)
    sims = []
    keys = None
    if args.keys is not None:
        from dialbox.sessions.keys import KeyStore

        keys = KeyStore(args.keys)
    for uid in _uids(args):
        state_dir = args.state_dir / uid if args.state_dir is not None else None
        sims.append(
            SimController(
                uid,
                runtime=args.runtime,
                link=args.link,
                board=args.board,
                auto=args.auto,
                state_dir=state_dir,
                mqtt=mqtt if args.link == "mqtt" else None,
                key=keys.ensure(uid) if keys is not None else None,
            )
        )
    try:
        for s in sims:
            s.start()
            where = s.device_path if args.link == "pty" else f"mqtt {args.broker}"
            print(f"{s.uid}\t{where}", flush=True)
        if steps is not None:
            _script(sims[0], steps)
            return 0
        if args.interactive:
            return _interactive(sims[0])
        while all(s.running for s in sims):
            time.sleep(0.5)
        raise Failure(f"{', '.join(s.uid for s in sims if not s.running)}: the firmware "
                      "stopped", FAILED)
    except KeyboardInterrupt:
        return 0
    except SimError as e:
        raise Failure(str(e), FAILED) from None
    finally:
        for s in sims:
            s.stop()


def _script(sim: SimController, steps: list[Step]) -> None:
    """Run a script read by read_script()."""
    for cmd, a in steps:
        if cmd == "turn":
            sim.turn(a[0], a[1], bounce=a[2])
        elif cmd == "press":
            sim.press(a[0])
        elif cmd == "wait":
            sim.wait_state(a[0], timeout=a[1])
        elif cmd == "sleep":
            time.sleep(a[0])
        elif cmd == "screen":
            print("\n".join(sim.screen()), flush=True)


def draw(view: SimView, uid: str) -> str:
    """The OLED as a framed 16x8 text box with the LED colour beside it (ANSI)."""
    r, g, b = (int(view.led[i : i + 2], 16) for i in (0, 2, 4))
    led = f"\x1b[48;2;{r};{g};{b}m  \x1b[0m"
    rows = [*view.lines, *([""] * (8 - len(view.lines)))][:8]
    out = [f"\x1b[H\x1b[2J{uid}  state: {view.state}  LED {led} #{view.led}", "+" + "-" * 16 + "+"]
    out += [f"|{line:<16}|" for line in rows]
    out += ["+" + "-" * 16 + "+", HELP]
    return "\r\n".join(out) + "\r\n"


def _interactive(sim: SimController) -> int:
    from dialbox.cli import FAILED, Failure

    if not sys.stdin.isatty():
        raise Failure("--interactive needs a terminal")
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    shown = -1
    try:
        while sim.running:
            view = sim.view()
            if view.serial != shown:
                shown = view.serial
                sys.stdout.write(draw(view, sim.uid))
                sys.stdout.flush()
            ready, _, _ = select.select([fd], [], [], 0.05)
            if not ready:
                continue
            key = sys.stdin.read(1)
            if key in KEYS:
                wheel, d = KEYS[key]
                sim.turn(wheel, d)
            elif key == " ":
                sim.press(120)
            elif key == "u":
                sim.press(1100)
        raise Failure(f"{sim.uid}: the firmware stopped", FAILED)
    finally:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)

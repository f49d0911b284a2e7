"""`dialbox sim`: run simulated controllers over pseudo-terminals or MQTT; play one by keyboard."""

from __future__ import annotations

import argparse
import contextlib
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


def run(args: argparse.Namespace) -> int:
    host, _, port = args.broker.rpartition(":")
    mqtt = MqttSettings(host or "127.0.0.1", int(port), args.table, args.user, args.password)
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
        if args.script is not None:
            return _script(sims[0], args.script)
        if args.interactive:
            return _interactive(sims[0])
        while all(s.running for s in sims):
            time.sleep(0.5)
        return 1
    except KeyboardInterrupt:
        return 0
    except SimError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        for s in sims:
            s.stop()


def _script(sim: SimController, path: Path) -> int:
    """Run a script: one command per line (turn WHEEL DETENTS [bounce], press MS, wait STATE,
    sleep SECONDS, screen); # starts a comment."""
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        words = shlex.split(raw, comments=True)
        if not words:
            continue
        cmd = words[0]
        if cmd == "turn":
            sim.turn(int(words[1]), int(words[2]), bounce=len(words) > 3 and words[3] == "bounce")
        elif cmd == "press":
            sim.press(int(words[1]))
        elif cmd == "wait":
            sim.wait_state(words[1], timeout=float(words[2]) if len(words) > 2 else 30.0)
        elif cmd == "sleep":
            time.sleep(float(words[1]))
        elif cmd == "screen":
            print("\n".join(sim.screen()), flush=True)
        else:
            print(f"{path}:{n}: unknown command {cmd!r}", file=sys.stderr)
            return 2
    return 0


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
    if not sys.stdin.isatty():
        print("--interactive needs a terminal", file=sys.stderr)
        return 2
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
        return 1
    finally:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)

"""`dialbox firmware`: build .mpy bundles, deploy them with mpremote, provision over USB."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "firmware", help="build, deploy and provision controller firmware"
    )
    fsub = p.add_subparsers(dest="firmware_command", metavar="ACTION")

    b = fsub.add_parser("build", help="compile the firmware to .mpy for a board")
    b.add_argument("--board", default="all", help="board profile name, or 'all' (default)")
    b.add_argument("--out", type=Path, default=None, help="output directory (default build/)")
    b.set_defaults(func=run_build)

    d = fsub.add_parser("deploy", help="copy a board's bundle with mpremote and reset it")
    d.add_argument("--port", required=True, help="serial port of the board, e.g. /dev/ttyACM0")
    d.add_argument("--board", required=True, help="board profile name (see `build`)")
    d.set_defaults(func=run_deploy)

    v = fsub.add_parser("provision", help="write device id, colour, WiFi and broker over USB")
    v.add_argument("--port", required=True, help="serial port of the controller")
    v.add_argument("--device", required=True, help="device id (1-32 of A-Za-z0-9_.-)")
    v.add_argument("--colour", default="", help="seat colour rrggbb (optional)")
    v.add_argument("--ssid", default="", help="WiFi network (empty: USB serial only)")
    v.add_argument("--psk", default="", help="WiFi password")
    v.add_argument("--broker", default="", help="MQTT broker host")
    v.add_argument("--mqtt-port", type=int, default=1883, help="MQTT broker port")
    v.add_argument("--user", default="", help="MQTT user name")
    v.add_argument("--password", default="", help="MQTT password")
    v.add_argument("--table", default="table1", help="table name (MQTT topics dialbox/<table>/)")
    keys = v.add_mutually_exclusive_group(required=True)
    keys.add_argument("--config", type=Path, default=None,
                      help="the daemon's config: its key store gets the new device key")
    keys.add_argument("--keys", type=Path, default=None,
                      help="the host's key store file (default of the daemon: `keys` next "
                      "to its journal)")
    keys.add_argument("--no-key", action="store_true",
                      help="provision without a device key (a host with require_keys on "
                      "refuses the controller)")
    v.set_defaults(func=run_provision)
    h = fsub.add_parser("hardware", help="regenerate hardware/<board>/: pinout, Wokwi "
                        "diagram, netlist, BOM, schematic, and the build guide's pictures")
    h.set_defaults(func=run_hardware)


def check_board(name: str) -> None:
    """Failure naming the known boards unless `name` has a profile in firmware/boards/."""
    from dialbox.cli import Failure
    from dialbox.firmware_tools import bundle

    if name not in bundle.boards():
        raise Failure(f"unknown board {name!r}; boards: {', '.join(bundle.boards())}")


def check_port(port: str) -> None:
    """Failure unless the serial port exists (a path; mpremote's shortcuts such as `a0`
    pass)."""
    import os

    from dialbox.cli import Failure

    if "/" in port and not os.path.exists(port):
        raise Failure(f"{port}: no such port (is the board plugged in? `dialbox devices` "
                      "lists the controllers)")


def run_build(args: argparse.Namespace) -> int:
    from dialbox.firmware_tools import bundle

    names = bundle.boards() if args.board == "all" else [args.board]
    for name in names:
        check_board(name)
    for name in names:
        out = args.out / name if args.out is not None else None
        built = bundle.build(name, out)
        print(
            f"{name:<18} {len(built.files):3d} files  {built.mpy_bytes:6d} bytes of .mpy  "
            f"{built.total_bytes:6d} bytes in all  -> {built.root}"
        )
    return 0


def run_hardware(_args: argparse.Namespace) -> int:
    from dialbox.firmware_tools import hardware

    for path in hardware.write_all():
        print(f"wrote {path}")
    return 0


def run_deploy(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, Progress, TextColumn

    from dialbox.cli import FAILED, Failure
    from dialbox.firmware_tools import bundle, deploy

    check_board(args.board)
    check_port(args.port)
    built = bundle.build(args.board)
    said: list[str] = []
    with Progress(
        TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}")
    ) as progress:
        task = progress.add_task(f"deploy {args.board} to {args.port}", total=len(built.files))

        def on_file(done: int, total: int, name: str) -> None:
            progress.update(task, completed=done, description=f"copy {name}")

        status = deploy.deploy(built, args.port, on_file, said=said)
    if status != 0:
        raise Failure(deploy.why(args.port, said, status), FAILED)
    print(f"deployed {len(built.files)} files to {args.port}; the board is resetting")
    return 0


def check_provisioning(args: argparse.Namespace) -> None:
    """The fields the controller checks (firmware/dialbox_fw/core/config.py), checked here
    first: a refusal names the option, and no port is opened for nothing."""
    import re

    from dialbox.cli import Failure

    ident = re.compile(r"^[A-Za-z0-9_.-]+$")
    if not ident.match(args.device) or len(args.device) > 32:
        raise Failure(f"--device {args.device!r}: a device id is 1-32 of A-Za-z0-9_.-")
    if args.colour and not re.fullmatch(r"[0-9A-Fa-f]{6}", args.colour):
        raise Failure(f"--colour {args.colour!r}: a colour rrggbb in hex, e.g. e53935")
    if args.broker and not args.table:
        raise Failure("--table: the table's name is needed with --broker")
    if not 1 <= args.mqtt_port <= 65535:
        raise Failure(f"--mqtt-port {args.mqtt_port}: not a port (1-65535)")
    for flag, value, limit in (("--ssid", args.ssid, 32), ("--psk", args.psk, 63),
                               ("--broker", args.broker, 64), ("--user", args.user, 32),
                               ("--password", args.password, 64), ("--table", args.table, 32)):
        if len(value) > limit:
            raise Failure(f"{flag}: at most {limit} characters")
    if args.ssid and not args.broker:
        raise Failure("--ssid needs --broker (the MQTT broker the controller joins)")


def run_provision(args: argparse.Namespace) -> int:
    from dialbox.cli import FAILED, Failure
    from dialbox.firmware_tools.provision import ProvisionError, Provisioning, provision
    from dialbox.sessions.keys import KeyStore, KeyStoreError, new_key
    from dialbox_protocol import codec

    check_provisioning(args)
    store: KeyStore | None = None
    if args.config is not None:
        from dialbox.cli import config

        store = KeyStore(config(args.config).host.keys_path())
    elif args.keys is not None:
        store = KeyStore(args.keys)
    if store is not None:
        try:
            store.load()  # a broken key store stops here, before the controller is touched
        except KeyStoreError as e:
            raise Failure(str(e)) from None
        there = next(d for d in store.path.absolute().parents if d.exists())
        if not there.is_dir():
            raise Failure(f"{store.path}: {there} is not a directory")
    check_port(args.port)
    key = None if store is None else new_key()
    p = Provisioning(
        device=args.device,
        colour=args.colour,
        ssid=args.ssid,
        psk=args.psk,
        broker=args.broker,
        port=args.mqtt_port,
        user=args.user,
        password=args.password,
        table=args.table,
        key="" if key is None else codec.b64(key),
    )
    try:
        hello = provision(args.port, p)
        if store is not None and key is not None:
            # only once the controller holds it: a failed run leaves the old key working
            store.provision(args.device, key)
    except (ProvisionError, OSError, KeyStoreError) as e:
        raise Failure(f"provisioning failed: {e}", FAILED) from None
    print(f"provisioned {hello['uid']} ({hello['board']}, fw {hello['fw']}) as {args.device}")
    if store is not None:
        print(f"its device key is in {store.path} (the daemon reads it at the next hello)")
    else:
        print("no device key: a host with require_keys on will refuse it")
    return 0

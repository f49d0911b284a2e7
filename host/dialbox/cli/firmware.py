"""`dialbox firmware`: build .mpy bundles, deploy them with mpremote, provision over USB."""

from __future__ import annotations

import argparse
import sys
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
                        "diagram, netlist and BOM")
    h.set_defaults(func=run_hardware)
    p.set_defaults(func=lambda _a: _usage(p))


def run_build(args: argparse.Namespace) -> int:
    from dialbox.firmware_tools import bundle

    names = bundle.boards() if args.board == "all" else [args.board]
    for name in names:
        if name not in bundle.boards():
            print(f"unknown board {name!r}; known: {', '.join(bundle.boards())}", file=sys.stderr)
            return 2
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

    from dialbox.firmware_tools import bundle, deploy

    built = bundle.build(args.board)
    with Progress(
        TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}")
    ) as progress:
        task = progress.add_task(f"deploy {args.board} to {args.port}", total=len(built.files))

        def on_file(done: int, total: int, name: str) -> None:
            progress.update(task, completed=done, description=f"copy {name}")

        status = deploy.deploy(built, args.port, on_file)
    if status != 0:
        print(f"mpremote failed (exit {status})", file=sys.stderr)
        return 1
    print(f"deployed {len(built.files)} files to {args.port}; the board is resetting")
    return 0


def run_provision(args: argparse.Namespace) -> int:
    from dialbox.firmware_tools.provision import ProvisionError, Provisioning, provision
    from dialbox.sessions.keys import KeyStore, KeyStoreError, new_key
    from dialbox_protocol import codec

    store: KeyStore | None = None
    if args.config is not None:
        from dialbox.daemon import ConfigError, load_config

        try:
            store = KeyStore(load_config(args.config).host.keys_path())
        except ConfigError as e:
            print(f"provisioning failed: {e}", file=sys.stderr)
            return 2
    elif args.keys is not None:
        store = KeyStore(args.keys)
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
        print(f"provisioning failed: {e}", file=sys.stderr)
        return 1
    print(f"provisioned {hello['uid']} ({hello['board']}, fw {hello['fw']}) as {args.device}")
    if store is not None:
        print(f"its device key is in {store.path} (the daemon reads it at the next hello)")
    else:
        print("no device key: a host with require_keys on will refuse it")
    return 0


def _usage(p: argparse.ArgumentParser) -> int:
    p.print_help()
    return 2

"""`dialbox broker config`: write a Mosquitto config, password file and per-controller ACLs."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("broker", help="MQTT broker set-up")
    bsub = p.add_subparsers(dest="broker_command", metavar="COMMAND")
    c: argparse.ArgumentParser = bsub.add_parser(
        "config", help="write mosquitto.conf, passwd and acl for tables of controllers",
        description="One user per controller (its unique id) that may write only its own "
        "up/status topics and read only its own down topic; a host user for the tables' "
        "topics (and host-<table> users, same password, for the daemon's connection of "
        "each table: client ids are bound to user names, so no client can kick another's "
        "connection); optionally an admin user that may read everything. Generated "
        "passwords are printed once.",
    )
    c.add_argument("--out", required=True, help="directory to write into")
    c.add_argument("--table", action="append", required=True, metavar="NAME=UID,UID,...",
                   help="a table and its controllers' unique ids (repeatable)")
    c.add_argument("--port", type=int, default=1883)
    c.add_argument("--bind", default="0.0.0.0")
    c.add_argument("--admin", default=None, help="also create this read-only admin user")
    c.add_argument("--run-as", default=None,
                   help="user Mosquitto switches to when started as root (default: you)")
    c.add_argument("--tls-cert", default=None)
    c.add_argument("--tls-key", default=None)
    c.add_argument("--tls-ca", default=None)
    c.add_argument("--tls-port", type=int, default=8883)
    c.add_argument("--tls-names", default=None, metavar="NAME,IP,...",
                   help="generate a private CA and a server certificate for these broker "
                   "host names and IP addresses (localhost and 127.0.0.1 are always in) "
                   "into OUT/tls and listen with TLS on --tls-port; an existing CA there "
                   "is kept. Copy OUT/tls/ca.der onto each controller as ca.der")
    c.set_defaults(func=run_config)
    def usage(_args: argparse.Namespace) -> int:
        p.print_help()
        return 2

    p.set_defaults(func=usage)


def run_config(args: argparse.Namespace) -> int:
    import re

    from dialbox.broker import write_broker_config

    tables: dict[str, list[str]] = {}
    name_ok = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")
    for spec in args.table:
        name, sep, uids = spec.partition("=")
        ids = [u for u in uids.split(",") if u]
        bad = [x for x in [name, *ids] if not name_ok.match(x)]
        if not sep or not ids or bad:
            print(f"dialbox broker config: --table {spec!r}: expected NAME=UID,UID,... "
                  f"with names of 1-32 letters, digits, _ . -", file=sys.stderr)
            return 2
        tables[name] = ids
    if bool(args.tls_cert) != bool(args.tls_key):
        print("dialbox broker config: --tls-cert and --tls-key go together", file=sys.stderr)
        return 2
    tls_names = None if args.tls_names is None else args.tls_names.split(",")
    from dialbox.broker.certs import CertError

    try:
        files = write_broker_config(
            args.out, tables, port=args.port, bind=args.bind, admin_user=args.admin,
            tls_cert=args.tls_cert, tls_key=args.tls_key, tls_ca=args.tls_ca,
            tls_port=args.tls_port, tls_names=tls_names, run_as=args.run_as,
        )
    except (ValueError, CertError) as e:
        print(f"dialbox broker config: {e}", file=sys.stderr)
        return 2
    print(f"wrote {files.conf}, {files.passwords}, {files.acl}")
    if files.tls is not None:
        t = files.tls
        print(f"TLS on port {args.tls_port}: server certificate {t.cert} for "
              f"{', '.join(t.names)}, signed by the CA {t.ca_cert} (its key: {t.ca_key}, "
              f"keep it private)")
        print(f"  controllers: copy {t.ca_der} onto each one's flash as ca.der (in safe "
              f"boot: docs/controller.md, MQTT over TLS), then provision with --mqtt-port "
              f"{args.tls_port} and --broker one of the names above")
        if args.tls_port != 8883:
            print('  (only port 8883 means TLS by itself: on another port, add "tls": true '
                  "to each controller's config.json)")
        print(f"  daemon: [mqtt] port = {args.tls_port}, tls_ca = \"{t.ca_cert}\"")
    print("credentials (shown once; put the host's in the daemon config, each controller's "
          "on that controller):")
    for user, password in files.credentials.items():
        print(f"  {user}: {password}")
    print(f"the daemon logs in to table T as host-T with the host's password "
          f"({', '.join('host-' + t for t in tables)})")
    return 0

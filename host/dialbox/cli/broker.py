"""`dialbox broker config`: write a Mosquitto config, password file and per-controller ACLs,
or (`--kind rabbitmq`) a clustered RabbitMQ's per-node configs, users and permissions."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser("broker", help="MQTT broker set-up")
    bsub = p.add_subparsers(dest="broker_command", metavar="COMMAND")
    c: argparse.ArgumentParser = bsub.add_parser(
        "config", help="write mosquitto.conf, passwd and acl for tables of controllers "
        "(or a RabbitMQ cluster's files: --kind rabbitmq)",
        description="One user per controller (its unique id) that may write only its own "
        "up/status topics and read only its own down topic; a host user for the tables' "
        "topics (and host-<table> users, same password, for the daemon's connection of "
        "each table: client ids are bound to user names, so no client can kick another's "
        "connection); optionally an admin user that may read everything. Generated "
        "passwords are printed once. --kind rabbitmq writes the same users and rules for a "
        "clustered RabbitMQ (its MQTT plugin): rabbitmq.conf per node, enabled_plugins, "
        "definitions.json and the Erlang cookie (docs/host.md, Venue).",
    )
    c.add_argument("--kind", choices=("mosquitto", "rabbitmq"), default="mosquitto",
                   help="the broker (default: mosquitto)")
    c.add_argument("--node", action="append", default=None, metavar="NAME",
                   help="rabbitmq: a node of the cluster, `pi1` (rabbit@pi1) or a full node "
                   "name (repeatable, in start order: the first one starts first)")
    c.add_argument("--vhost", default="dialbox", help="rabbitmq: the virtual host")
    c.add_argument("--etc-dir", default="/etc/rabbitmq",
                   help="rabbitmq: where the files go on each broker machine")
    c.add_argument("--out", required=True, help="directory to write into")
    c.add_argument("--table", action="append", required=True, metavar="NAME=UID,UID,...",
                   help="a table and its controllers' unique ids (repeatable)")
    c.add_argument("--port", type=int, default=1883)
    c.add_argument("--bind", default="0.0.0.0")
    c.add_argument("--admin", default=None, help="also create this read-only admin user")
    c.add_argument("--run-as", default=None,
                   help="user Mosquitto switches to when started as root (default: you; "
                   "rabbitmq: the rabbitmq user, owner of the secret files when run as root)")
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
    if args.kind == "rabbitmq":
        return _rabbitmq(args, tables)
    if args.node:
        print("dialbox broker config: --node is for --kind rabbitmq", file=sys.stderr)
        return 2
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
    _print_credentials(files.credentials, tables)
    return 0


def _rabbitmq(args: argparse.Namespace, tables: dict[str, list[str]]) -> int:
    import json

    from dialbox.broker.rabbitmq import write_rabbitmq_config

    if args.tls_cert or args.tls_key or args.tls_names:
        print("dialbox broker config: TLS files are written for Mosquitto only (for RabbitMQ "
              "set mqtt.listeners.ssl and ssl_options in each rabbitmq.conf)", file=sys.stderr)
        return 2
    if not args.node:
        print("dialbox broker config: --kind rabbitmq needs the cluster's nodes (--node pi1 "
              "--node pi2 --node pi3)", file=sys.stderr)
        return 2
    try:
        files = write_rabbitmq_config(
            args.out, tables, args.node, mqtt_port=args.port, mqtt_bind=args.bind,
            etc_dir=args.etc_dir, vhost=args.vhost, admin_user=args.admin,
            run_as=args.run_as or "rabbitmq")
    except ValueError as e:
        print(f"dialbox broker config: {e}", file=sys.stderr)
        return 2
    print(f"wrote {files.definitions}, {files.plugins}, {files.cookie} and, per node, "
          f"rabbitmq.conf and rabbitmq-env.conf:")
    for name, d in files.node_dirs.items():
        print(f"  {name}: {d}")
    hosts = [n.split("@", 1)[1] for n in files.nodes]
    print("on each broker machine (apt-get install rabbitmq-server; every node's name must "
          "resolve on every other):")
    print(f"  copy OUT/<node>/rabbitmq.conf, OUT/<node>/rabbitmq-env.conf, definitions.json "
          f"and enabled_plugins into {args.etc_dir}/ (definitions.json readable by rabbitmq "
          f"only), and erlang.cookie to /var/lib/rabbitmq/.erlang.cookie (owner rabbitmq, "
          f"mode 0400; the same on every node)")
    print(f"  start {files.nodes[0]} first, then the others (systemctl restart "
          f"rabbitmq-server); open MQTT ({args.port}) to the tables, and epmd (4369) and "
          f"25672 to the other broker nodes only")
    nodes = ",".join(f"{h}:{args.port}" for h in hosts)
    print(f"  daemon: [mqtt] hosts = {json.dumps([f'{h}:{args.port}' for h in hosts])} "
          f"(on each Pi, its own node first)")
    print(f"  controllers: provision with --broker {nodes} (at most 64 characters)")
    _print_credentials(files.credentials, tables)
    return 0


def _print_credentials(credentials: dict[str, str], tables: dict[str, list[str]]) -> None:
    print("credentials (shown once; put the host's in the daemon config, each controller's "
          "on that controller):")
    for user, password in credentials.items():
        print(f"  {user}: {password}")
    print(f"the daemon logs in to table T as host-T with the host's password "
          f"({', '.join('host-' + t for t in tables)})")

"""A clustered RabbitMQ broker (its MQTT plugin) for a venue: per-node rabbitmq.conf,
enabled_plugins, the Erlang cookie and a definitions file with users, vhost and permissions.

The same rules as the Mosquitto config (dialbox.broker.mosquitto), in RabbitMQ's terms:

- One user per controller (its uid), `host`, one `host-<table>` per table (the daemon's
  connection of that table, the host's password) and an optional read-only admin; password
  hashes in RabbitMQ's `rabbit_password_hashing_sha256` format (base64 of a 4-byte salt and
  SHA-256 over salt + password), so no RabbitMQ tool is needed to make them.
- MQTT topics become routing keys on `amq.topic` with `/` turned into `.` (RabbitMQ's MQTT
  plugin), so topic permissions (regular expressions over routing keys, checked on every
  publish and on every subscription) say: a controller may write only
  `dialbox.<table>.dev.<uid>.(up|status)` and read only `dialbox.<table>.dev.<uid>.down` and
  `dialbox.<table>.host.status`; `host` reads and writes `dialbox.<table>.*` of every table,
  `host-<table>` only its own; the admin reads `dialbox.*`. A `.` in an MQTT topic is not
  escaped by the plugin (it would split a level), so table names and uids may not hold one.
- AMQP listens on localhost only (the CLI tools and diagnostics); controllers and hosts speak
  MQTT. The nodes talk to each other over Erlang distribution (epmd, port 4369, and the
  distribution port, 25672): whoever holds the cookie controls every node, so those two ports
  must be reachable from the other broker nodes only.

What RabbitMQ does not do like the generated Mosquitto config: it does not bind client ids to
user names (there is no `use_username_as_clientid`). A client that connects with the client
id of a connected client makes the broker close that client's connection, whichever user it
logged in as. The topic permissions still hold (the intruder reads and writes only its own
topics), so the cost is a reconnect of the kicked client, which the protocol's resume makes
whole; a controller with valid credentials can repeat it (a nuisance, not a breach). See
docs/host.md, "Venue".

Retained messages are stored per node (`mqtt.retained_message_store`): a retained message
published on one node is not delivered to a subscriber of another. The host and the
controllers therefore announce their availability live on every connect (docs/protocol.md,
"MQTT topics"); the retained copies are only a shortcut on the node that holds them.
"""

from __future__ import annotations

import base64
import getpass
import hashlib
import json
import os
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dialbox.broker.certs import chown
from dialbox.broker.mosquitto import table_user

SALT_BYTES = 4
HASHING = "rabbit_password_hashing_sha256"
VHOST = "dialbox"
EXCHANGE = "amq.topic"
PLUGINS = ("rabbitmq_mqtt",)
MAX_MESSAGE = 256 * 1024
"""`max_message_size`: the largest message the nodes take (RabbitMQ's default is 128 MB).
Frames payloads are at most 1 kB, the host's retained state at most 128 kB
(dialbox.transports.mqtt.MAX_STATE)."""
NAME_OK = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
"""Table names and uids on RabbitMQ: no `.` (the MQTT plugin would read it as a level)."""
QUEUES = r"mqtt-subscription-.*"
"""The queues RabbitMQ's MQTT plugin declares for a client's subscriptions
(`mqtt-subscription-<client id>qos0|1`): the only resources an MQTT user needs besides
amq.topic."""


def hash_password(password: str, salt: bytes | None = None) -> str:
    """RabbitMQ's rabbit_password_hashing_sha256: base64(salt + sha256(salt + password)),
    a 4-byte salt."""
    salt = salt if salt is not None else os.urandom(SALT_BYTES)
    return base64.b64encode(salt + hashlib.sha256(salt + password.encode()).digest()).decode()


def check_password(password: str, stored: str) -> bool:
    raw = base64.b64decode(stored)
    return hash_password(password, raw[:SALT_BYTES]) == stored


def routing_key(topic: str) -> str:
    """The routing key RabbitMQ's MQTT plugin makes of an MQTT topic (`/` -> `.`,
    `+` -> `*`; `#` stays)."""
    return topic.replace("/", ".").replace("+", "*")


def node_name(spec: str) -> str:
    """`pi1` -> `rabbit@pi1`; a full node name stays."""
    return spec if "@" in spec else f"rabbit@{spec}"


def _table_keys(table: str) -> str:
    return rf"^dialbox\.{re.escape(table)}\."


def topic_permissions(tables: Mapping[str, Iterable[str]], host_user: str,
                      admin_user: str | None, vhost: str = VHOST) -> list[dict[str, str]]:
    """Who may publish (write) and subscribe (read) which routing keys of amq.topic."""
    def perm(user: str, write: str, read: str) -> dict[str, str]:
        return {"user": user, "vhost": vhost, "exchange": EXCHANGE, "write": write,
                "read": read}

    names = "|".join(re.escape(t) for t in tables)
    out = [perm(host_user, rf"^dialbox\.({names})\.", rf"^dialbox\.({names})\.")]
    out += [perm(table_user(host_user, t), _table_keys(t), _table_keys(t)) for t in tables]
    if admin_user:
        out.append(perm(admin_user, "^$", r"^dialbox\."))
    for table, uids in tables.items():
        t = re.escape(table)
        for uid in uids:
            u = re.escape(uid)
            out.append(perm(uid, rf"^dialbox\.{t}\.dev\.{u}\.(up|status)$",
                            rf"^dialbox\.{t}\.(dev\.{u}\.down|host\.status)$"))
    return out


def definitions(tables: Mapping[str, Iterable[str]], credentials: Mapping[str, str], *,
                host_user: str = "host", admin_user: str | None = None,
                vhost: str = VHOST) -> dict[str, Any]:
    """RabbitMQ definitions (import format of 3.10): users with hashed passwords, the
    vhost, each user's permissions on it and its topic permissions. `credentials` maps
    every user (controllers, host, host-<table>, admin) to its password."""
    users = [{"name": u, "password_hash": hash_password(p), "hashing_algorithm": HASHING,
              "tags": []} for u, p in credentials.items()]
    queues = rf"^{QUEUES}$"
    both = rf"^({re.escape(EXCHANGE)}|{QUEUES})$"
    permissions = [{"user": u, "vhost": vhost, "configure": queues, "write": both,
                    "read": both} for u in credentials]
    return {
        "users": users,
        "vhosts": [{"name": vhost}],
        "permissions": permissions,
        "topic_permissions": topic_permissions(tables, host_user, admin_user, vhost),
        "parameters": [], "global_parameters": [], "policies": [],
        "queues": [], "exchanges": [], "bindings": [],
    }


@dataclass(frozen=True, slots=True)
class NodeSettings:
    """What differs from node to node (ports and binds); the venue's defaults."""

    name: str
    mqtt_port: int = 1883
    mqtt_bind: str = "0.0.0.0"
    amqp_port: int = 5672
    dist_port: int = 25672


def node_conf(me: NodeSettings, nodes: Sequence[str], etc_dir: str | Path, *,
              vhost: str = VHOST, log_dir: str | None = None,
              extra: Sequence[str] = ()) -> str:
    """rabbitmq.conf of one node of the cluster `nodes` (full node names). `etc_dir`: where
    definitions.json lives on that machine."""
    lines = [
        f"# dialbox broker node {me.name}: generated by `dialbox broker config --kind "
        "rabbitmq`",
        "# AMQP for local tools only; clients speak MQTT",
        f"listeners.tcp.local = 127.0.0.1:{me.amqp_port}",
        f"distribution.listener.port_range.min = {me.dist_port}",
        f"distribution.listener.port_range.max = {me.dist_port}",
        "loopback_users.guest = true",
        f"load_definitions = {Path(etc_dir) / 'definitions.json'}",
        f"max_message_size = {MAX_MESSAGE}",
        # a node cut off from the majority stops serving: its clients fail over to the others
        "cluster_partition_handling = pause_minority",
        # a node that lost power is known to be down after 10-12.5 s (default: 60-75 s,
        # during which the queues it held block their clients' failover)
        "net_ticktime = 10",
        "cluster_formation.peer_discovery_backend = classic_config",
        *(f"cluster_formation.classic_config.nodes.{i} = {n}"
          for i, n in enumerate(nodes, 1)),
        f"mqtt.listeners.tcp.default = {me.mqtt_bind}:{me.mqtt_port}",
        "mqtt.tcp_listen_options.nodelay = true",
        "mqtt.allow_anonymous = false",
        f"mqtt.vhost = {vhost}",
        f"mqtt.exchange = {EXCHANGE}",
        # node-local either way; ETS keeps them in memory (a node that dies forgets them:
        # availability is announced live, docs/host.md "Venue")
        "mqtt.retained_message_store = rabbit_mqtt_retained_msg_store_ets",
        "log.console = false",
        "log.file.level = warning",
    ]
    if log_dir:
        lines.append(f"log.dir = {log_dir}")
    lines += list(extra)
    return "\n".join(lines) + "\n"


def enabled_plugins() -> str:
    return "[" + ",".join(PLUGINS) + "].\n"


@dataclass(frozen=True, slots=True)
class RabbitFiles:
    """What `write_rabbitmq_config` wrote, and the passwords it generated (shown once)."""

    definitions: Path
    plugins: Path
    cookie: Path
    node_dirs: dict[str, Path]
    """Node name -> its directory (rabbitmq.conf, rabbitmq-env.conf)."""
    credentials: dict[str, str]
    nodes: list[str] = field(default_factory=list)


def check_names(tables: Mapping[str, Iterable[str]], host_user: str,
                admin_user: str | None) -> None:
    bad = [n for t, uids in tables.items() for n in (t, *uids) if not NAME_OK.match(n)]
    if bad:
        raise ValueError(f"{bad[0]!r}: RabbitMQ names are 1-32 letters, digits, _ or - (no "
                         "'.': its MQTT plugin turns '/' into '.')")
    reserved = {host_user, *(table_user(host_user, t) for t in tables)}
    if admin_user:
        reserved.add(admin_user)
    for uids in tables.values():
        clash = sorted(reserved & set(uids))
        if clash:
            raise ValueError(f"controller id {clash[0]} is a name the broker reserves for the "
                             f"host or the admin")


def credentials_for(tables: Mapping[str, Iterable[str]], host_user: str,
                    admin_user: str | None,
                    passwords: Mapping[str, str] | None = None) -> tuple[dict[str, str],
                                                                         dict[str, str]]:
    """(shown, every): the users whose passwords are shown (host, admin, controllers) and
    every user with its password (host-<table> users share the host's)."""
    users = [host_user] + ([admin_user] if admin_user else [])
    for uids in tables.values():
        users += [u for u in uids if u not in users]
    given = dict(passwords or {})
    shown = {u: given.get(u) or secrets.token_urlsafe(18) for u in users}
    every = {**shown, **{table_user(host_user, t): shown[host_user] for t in tables}}
    return shown, every


def write_rabbitmq_config(
    out_dir: str | Path,
    tables: Mapping[str, Iterable[str]],
    nodes: Sequence[str],
    *,
    mqtt_port: int = 1883,
    mqtt_bind: str = "0.0.0.0",
    amqp_port: int = 5672,
    dist_port: int = 25672,
    etc_dir: str = "/etc/rabbitmq",
    vhost: str = VHOST,
    host_user: str = "host",
    admin_user: str | None = None,
    passwords: Mapping[str, str] | None = None,
    cookie: str | None = None,
    run_as: str | None = None,
) -> RabbitFiles:
    """Write, into out_dir: definitions.json, enabled_plugins, erlang.cookie and one
    directory per node (its rabbitmq.conf and rabbitmq-env.conf). On each broker machine
    the node's directory, definitions.json and enabled_plugins go into `etc_dir`, the
    cookie into the RabbitMQ user's home (/var/lib/rabbitmq/.erlang.cookie, mode 0400)."""
    if not nodes:
        raise ValueError("a cluster needs at least one node")
    check_names(tables, host_user, admin_user)
    full = [node_name(n) for n in nodes]
    if len(set(full)) != len(full):
        raise ValueError("node names must be unique")
    shown, every = credentials_for(tables, host_user, admin_user, passwords)
    run_as = run_as or getpass.getuser()
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    defs = out / "definitions.json"
    defs.write_text(json.dumps(definitions(tables, every, host_user=host_user,
                                           admin_user=admin_user, vhost=vhost), indent=1))
    defs.chmod(0o600)
    chown(defs, run_as)
    plugins = out / "enabled_plugins"
    plugins.write_text(enabled_plugins())
    cookie_file = out / "erlang.cookie"
    if cookie is None and cookie_file.exists():  # keep the cluster's cookie
        cookie = cookie_file.read_text().strip()
    cookie_file.unlink(missing_ok=True)  # (0400: replaced, not written over)
    cookie_file.write_text(cookie or secrets.token_hex(20).upper())
    cookie_file.chmod(0o400)
    chown(cookie_file, run_as)
    dirs = {}
    for name in full:
        d = out / name
        d.mkdir(exist_ok=True)
        me = NodeSettings(name, mqtt_port, mqtt_bind, amqp_port, dist_port)
        (d / "rabbitmq.conf").write_text(node_conf(me, full, etc_dir, vhost=vhost))
        (d / "rabbitmq-env.conf").write_text(f"NODENAME={name}\n")
        dirs[name] = d
    return RabbitFiles(defs, plugins, cookie_file, dirs, shown, full)

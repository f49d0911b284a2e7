"""A local RabbitMQ cluster for tests and benchmarks: N nodes on this machine, as whoever runs it.

Each node gets its own node name (`rabbit1@localhost`, ...), data and log directories in a
temporary directory, ephemeral ports for MQTT, AMQP (localhost) and Erlang distribution, and
the cluster gets an epmd of its own (`ERL_EPMD_PORT`, started here and stopped by pid) and a
cookie of its own (`HOME` in the temporary directory). So it never meets a system RabbitMQ:
not its epmd (4369), its ports, its cookie (/var/lib/rabbitmq/.erlang.cookie), its
configuration (/etc/rabbitmq, skipped through RABBITMQ_CONF_ENV_FILE and
RABBITMQ_CONFIG_FILE) nor its data (/var/lib/rabbitmq/mnesia).

Debian's `/usr/sbin/rabbitmq-server` is a wrapper that `su`s to the `rabbitmq` user when run
as root (and refuses anyone else), with /var/lib/rabbitmq as its home and cookie; this module
runs the real script (`/usr/lib/rabbitmq/bin/rabbitmq-server`) directly, as the current user,
root included. With RABBITMQ_ALLOW_INPUT set that script `exec`s the Erlang VM, so the pid
started here is the node's beam process (killing it with SIGKILL kills the node; without it
the script stays as a parent that traps signals). Installing the package does not need its
service: apt's postinst tries to start it through invoke-rc.d (refused in containers by
policy-rc.d, started elsewhere); nothing here uses or stops it, and every port here differs.

The nodes' config comes from dialbox.broker.rabbitmq (the venue's generator), with local
ports and directories: the cluster is the one `dialbox broker config --kind rabbitmq`
describes, on one machine.

    with RabbitCluster({"t1": ["c1", "c2"]}) as cluster:     # 3 nodes, running, clustered
        cluster.mqtt_hosts()        # ["127.0.0.1:PORT1", ...]
        cluster.credentials["c1"]   # generated passwords
        cluster.kill(0)             # SIGKILL node 1 (by pid)
        cluster.restart(0)          # start it again and wait until the cluster has it back
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from dialbox.broker import rabbitmq
from dialbox.processes import stop_process

SBIN = Path("/usr/lib/rabbitmq/bin")
EPMD_CANDIDATES = ("/usr/bin/epmd", "/usr/lib/erlang/bin/epmd")


class ClusterError(RuntimeError):
    """A node did not start, or the cluster did not form in time; the message has its log."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def available() -> str | None:
    """None when RabbitMQ can run here, else what is missing."""
    if not (SBIN / "rabbitmq-server").exists():
        return "rabbitmq-server is not installed (apt-get install rabbitmq-server)"
    if not any(Path("/usr/lib/rabbitmq/lib").glob("rabbitmq_server-*/plugins/rabbitmq_mqtt-*")):
        return "RabbitMQ's MQTT plugin is missing"
    if epmd_path() is None:
        return "epmd is missing (erlang-base)"
    return None


def epmd_path() -> str | None:
    found = shutil.which("epmd")
    if found:
        return found
    for p in EPMD_CANDIDATES:
        if Path(p).exists():
            return p
    return next((str(e) for e in Path("/usr/lib/erlang").glob("erts-*/bin/epmd")), None)


@dataclass(slots=True)
class Node:
    index: int
    name: str
    mqtt_port: int
    amqp_port: int
    dist_port: int
    dir: Path
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    @property
    def log(self) -> Path:
        return self.dir / "stdout.log"

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


class RabbitCluster:
    """N RabbitMQ nodes with the MQTT plugin, clustered on this machine (see the module)."""

    def __init__(
        self,
        tables: Mapping[str, Iterable[str]],
        size: int = 3,
        *,
        workdir: str | Path | None = None,
        admin_user: str | None = "admin",
        host_user: str = "host",
        passwords: Mapping[str, str] | None = None,
        schedulers: int | None = 1,
    ) -> None:
        self.tables = {t: list(u) for t, u in tables.items()}
        self.size = size
        self._own_dir = workdir is None
        self.dir = Path(workdir or tempfile.mkdtemp(prefix="dialbox-rabbit-")).resolve()
        self.host_user = host_user
        self.admin_user = admin_user
        rabbitmq.check_names(self.tables, host_user, admin_user)
        shown, every = rabbitmq.credentials_for(self.tables, host_user, admin_user, passwords)
        self.credentials = every
        """Every user's password (controllers, host, host-<table>, admin)."""
        self.schedulers = schedulers
        """Erlang schedulers per node (+S): 1 keeps three nodes on a 2-core machine from
        fighting over the cores; None leaves the VM's default (one per core)."""
        self.epmd_port = free_port()
        self.ctl_port = free_port()
        self.epmd: subprocess.Popen[bytes] | None = None
        self.nodes = [
            Node(i, f"rabbit{i + 1}@localhost", free_port(), free_port(), free_port(),
                 self.dir / f"rabbit{i + 1}")
            for i in range(size)
        ]
        self.home = self.dir / "home"
        self._write()

    # ------------------------------------------------------------------ files

    def _write(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        cookie = self.home / ".erlang.cookie"
        if not cookie.exists():
            cookie.write_text(secrets.token_hex(16).upper())
            cookie.chmod(0o400)
        defs = self.dir / "definitions.json"
        defs.write_text(json.dumps(rabbitmq.definitions(
            self.tables, self.credentials, host_user=self.host_user,
            admin_user=self.admin_user)))
        defs.chmod(0o600)
        (self.dir / "enabled_plugins").write_text(rabbitmq.enabled_plugins())
        (self.dir / "rabbitmq-env.conf").write_text("")  # not /etc/rabbitmq's
        names = [n.name for n in self.nodes]
        for n in self.nodes:
            (n.dir / "log").mkdir(parents=True, exist_ok=True)
            me = rabbitmq.NodeSettings(n.name, n.mqtt_port, "127.0.0.1", n.amqp_port,
                                       n.dist_port)
            (n.dir / "rabbitmq.conf").write_text(rabbitmq.node_conf(
                me, names, self.dir, log_dir=str(n.dir / "log"),
                # a disk alarm would block publishers on a small temporary disk
                extra=["disk_free_limit.absolute = 10MB",
                       # the first node starts alone (the others join it): it need not
                       # wait for them; the others wait for it
                       *(["cluster_formation.discovery_retry_limit = 1",
                          "cluster_formation.discovery_retry_interval = 100"]
                         if n.index == 0 else
                         ["cluster_formation.discovery_retry_limit = 120",
                          "cluster_formation.discovery_retry_interval = 500"])]))

    def env(self, node: Node | None = None) -> dict[str, str]:
        """The environment of a node (or, without one, of the CLI tools)."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("RABBITMQ_", "ERL_", "NOTIFY_SOCKET"))}
        env.update(HOME=str(self.home), ERL_EPMD_PORT=str(self.epmd_port),
                   RABBITMQ_CONF_ENV_FILE=str(self.dir / "rabbitmq-env.conf"),
                   RABBITMQ_ENABLED_PLUGINS_FILE=str(self.dir / "enabled_plugins"),
                   RABBITMQ_CTL_DIST_PORT_MIN=str(self.ctl_port),
                   RABBITMQ_CTL_DIST_PORT_MAX=str(self.ctl_port + 10),
                   LC_ALL="C.UTF-8")
        if node is not None:
            d = node.dir
            env.update(
                RABBITMQ_NODENAME=node.name,
                RABBITMQ_NODE_PORT=str(node.amqp_port),
                RABBITMQ_NODE_IP_ADDRESS="127.0.0.1",
                RABBITMQ_DIST_PORT=str(node.dist_port),
                RABBITMQ_CONFIG_FILE=str(d / "rabbitmq.conf"),
                RABBITMQ_ADVANCED_CONFIG_FILE=str(d / "advanced.config"),
                RABBITMQ_MNESIA_BASE=str(d / "mnesia"),
                RABBITMQ_MNESIA_DIR=str(d / "mnesia" / node.name),
                RABBITMQ_PLUGINS_EXPAND_DIR=str(d / "plugins-expand"),
                RABBITMQ_LOG_BASE=str(d / "log"),
                RABBITMQ_PID_FILE=str(d / "rabbit.pid"),
                # the script then execs the VM (-noinput): our pid is the node's
                RUNNING_UNDER_SYSTEMD="true",
            )
            if self.schedulers:
                env["RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS"] = (
                    f"+S {self.schedulers}:{self.schedulers} +A 8")
        return env

    # ------------------------------------------------------------------ running

    def __enter__(self) -> RabbitCluster:
        self.start()
        return self

    def __exit__(self, _t: type[BaseException] | None, _e: BaseException | None,
                 _tb: TracebackType | None) -> None:
        self.stop()

    def start(self, timeout: float = 120.0) -> None:
        """epmd, then the first node, then the others together; returns once every node
        serves MQTT and the cluster reports them all running."""
        problem = available()
        if problem:
            raise ClusterError(problem)
        deadline = time.monotonic() + timeout
        try:
            self._start_epmd()
            first, rest = self.nodes[0], self.nodes[1:]
            self._spawn(first)
            self._wait_mqtt(first, deadline)
            for n in rest:
                self._spawn(n)
            for n in rest:
                self._wait_mqtt(n, deadline)
            self.wait_running(self.size, deadline - time.monotonic())
        except BaseException:
            self.stop()
            raise

    def _start_epmd(self) -> None:
        if self.epmd is not None and self.epmd.poll() is None:
            return
        path = epmd_path()
        assert path is not None
        self.epmd = subprocess.Popen(
            [path, "-port", str(self.epmd_port), "-address", "127.0.0.1"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env=self.env())
        deadline = time.monotonic() + 10
        while not _listening(self.epmd_port):
            if self.epmd.poll() is not None or time.monotonic() > deadline:
                raise ClusterError(f"epmd did not start on port {self.epmd_port}")
            time.sleep(0.05)

    def _spawn(self, node: Node) -> None:
        with open(node.log, "ab") as out:
            node.proc = subprocess.Popen(
                [str(SBIN / "rabbitmq-server")], cwd=node.dir, env=self.env(node),
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True)
        node.starts += 1

    def _wait_mqtt(self, node: Node, deadline: float) -> None:
        """Until the node accepts an MQTT login (its listener opens before the definitions
        are imported: a port that answers is not yet a node that knows the users)."""
        user = self.admin_user or self.host_user
        while not mqtt_login(node.mqtt_port, user, self.credentials[user]):
            if not node.alive():
                raise ClusterError(f"{node.name} exited while starting:\n{self.tail(node)}")
            if time.monotonic() > deadline:
                raise ClusterError(f"{node.name} did not accept an MQTT login on port "
                                   f"{node.mqtt_port} in time:\n{self.tail(node)}")
            time.sleep(0.1)

    def ctl(self, *args: str, node: Node | None = None, timeout: float = 60) -> str:
        """Run rabbitmqctl against a node (default: the first one alive); its stdout."""
        target = node or next((n for n in self.nodes if n.alive()), self.nodes[0])
        r = subprocess.run([str(SBIN / "rabbitmqctl"), "-n", target.name, *args],
                           env=self.env(), capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL, check=False)
        if r.returncode != 0:
            raise ClusterError(f"rabbitmqctl {' '.join(args)}: {r.stderr.strip() or r.stdout}")
        return r.stdout

    def running(self) -> list[str]:
        """The cluster's running nodes, as a node that is alive sees them."""
        out = self.ctl("cluster_status", "--formatter", "json")
        data: Any = json.loads(out)
        return sorted(data.get("running_nodes", []))

    def wait_running(self, count: int, timeout: float = 60.0) -> list[str]:
        deadline = time.monotonic() + max(timeout, 1.0)
        last: list[str] | str = []
        while time.monotonic() < deadline:
            try:
                last = self.running()
                if len(last) >= count:
                    return last
            except (ClusterError, ValueError, subprocess.TimeoutExpired) as e:
                last = str(e)
            time.sleep(0.5)
        raise ClusterError(f"the cluster did not get {count} running nodes: {last}")

    def mqtt_connections(self) -> list[dict[str, Any]]:
        """The MQTT connections of every running node: client_id, user and port (the MQTT
        port of the node it is connected to)."""
        out = self.ctl("list_mqtt_connections", "client_id", "user", "port",
                       "--formatter", "json")
        rows: Any = json.loads(out)
        return list(rows)

    def node_of_port(self, port: int) -> Node | None:
        return next((n for n in self.nodes if n.mqtt_port == port), None)

    def kill(self, index: int) -> int:
        """SIGKILL node `index` (its beam process, by pid) and reap it; returns the pid."""
        node = self.nodes[index]
        if node.proc is None:
            raise ClusterError(f"{node.name} is not running")
        pid = node.proc.pid
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        node.proc.wait()
        node.proc = None
        # the VM's helpers (erl_child_setup, inet_gethost) end with it; none holds a port
        _kill_group(pid)
        return pid

    def restart(self, index: int, timeout: float = 90.0) -> None:
        """Start node `index` again (same name, data and ports) and wait until it serves
        MQTT and the cluster counts it running."""
        node = self.nodes[index]
        if node.alive():
            raise ClusterError(f"{node.name} is running")
        deadline = time.monotonic() + timeout
        self._spawn(node)
        self._wait_mqtt(node, deadline)
        self.wait_running(sum(1 for n in self.nodes if n.alive()),
                          deadline - time.monotonic())

    def stop(self) -> None:
        """Stop every node (SIGTERM by pid, SIGKILL after 15 s), epmd, and remove the
        temporary directory if it was made here."""
        for n in self.nodes:
            if n.proc is not None and n.proc.poll() is None:
                n.proc.terminate()
        for n in self.nodes:
            if n.proc is not None:
                pid = n.proc.pid
                stop_process(n.proc, 15, terminate=False)
                _kill_group(pid)
                n.proc = None
        if self.epmd is not None:
            stop_process(self.epmd, 5)
            self.epmd = None
        if self._own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)

    # ------------------------------------------------------------------ facts

    def mqtt_hosts(self, first: int = 0) -> list[str]:
        """`127.0.0.1:PORT` of every node, starting with node `first`."""
        order = self.nodes[first:] + self.nodes[:first]
        return [f"127.0.0.1:{n.mqtt_port}" for n in order]

    def pids(self) -> list[int | None]:
        return [n.pid for n in self.nodes]

    def tail(self, node: Node, lines: int = 30) -> str:
        parts = []
        for f in [node.log, *sorted((node.dir / "log").glob("*.log"))]:
            with contextlib.suppress(OSError):
                parts.append(f"--- {f.name}\n" + "\n".join(
                    f.read_text(errors="replace").splitlines()[-lines:]))
        return "\n".join(parts)


def mqtt_login(port: int, user: str, password: str, timeout: float = 2.0) -> bool:
    """True when the broker on 127.0.0.1:port accepts this MQTT 3.1.1 login (CONNACK 0);
    disconnects at once."""
    def s(text: str) -> bytes:
        b = text.encode()
        return len(b).to_bytes(2, "big") + b

    body = s("MQTT") + bytes((4, 0xC2, 0, 10)) + s(f"dialbox-probe-{secrets.token_hex(4)}")
    body += s(user) + s(password)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
            n, head = len(body), bytearray((0x10,))
            while True:
                head.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
                n >>= 7
                if not n:
                    break
            sock.sendall(bytes(head) + body)
            ack = b""
            while len(ack) < 4:
                chunk = sock.recv(4 - len(ack))
                if not chunk:
                    return False
                ack += chunk
            with contextlib.suppress(OSError):
                sock.sendall(b"\xe0\x00")
            return ack[0] == 0x20 and ack[3] == 0
    except OSError:
        return False


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def _kill_group(pid: int) -> None:
    """SIGKILL what is left of the process group a node was started in (its leader was
    the node's VM, started with start_new_session; the group id is its pid)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)

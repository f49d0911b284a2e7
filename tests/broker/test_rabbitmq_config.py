"""`dialbox broker config --kind rabbitmq`: the files a venue's broker nodes get, and the
broker node lists of the daemon config, the hub and the controller double."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from dialbox.broker import rabbitmq
from dialbox.cli import main
from dialbox.daemon.config import ConfigError, parse_config
from dialbox.doubles import ControllerDouble
from dialbox.transports.mqtt import BrokerAddress, MqttHub, parse_nodes


def _run(tmp_path: Path, *args: str) -> int:
    return main(["broker", "config", "--kind", "rabbitmq", "--out", str(tmp_path / "out"),
                 *args])


def test_files_for_every_node_users_and_permissions(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(tmp_path, "--table", "t1=ctl1,ctl2", "--table", "t2=ctl3", "--node", "pi1",
                "--node", "rabbit@pi2", "--node", "pi3", "--admin", "admin") == 0
    out = capsys.readouterr().out
    d = tmp_path / "out"
    nodes = ["rabbit@pi1", "rabbit@pi2", "rabbit@pi3"]
    for n in nodes:
        conf = (d / n / "rabbitmq.conf").read_text()
        assert [f"cluster_formation.classic_config.nodes.{i} = {m}"
                for i, m in enumerate(nodes, 1)] == re.findall(r"cluster_formation\.classic_"
                                                               r"config\.nodes\.\d = \S+", conf)
        assert "listeners.tcp.local = 127.0.0.1:5672" in conf  # AMQP for local tools only
        assert "mqtt.allow_anonymous = false" in conf and "mqtt.vhost = dialbox" in conf
        assert "load_definitions = /etc/rabbitmq/definitions.json" in conf
        assert (d / n / "rabbitmq-env.conf").read_text() == f"NODENAME={n}\n"
    assert (d / "enabled_plugins").read_text() == "[rabbitmq_mqtt].\n"
    assert stat.S_IMODE((d / "definitions.json").stat().st_mode) == 0o600
    assert stat.S_IMODE((d / "erlang.cookie").stat().st_mode) == 0o400
    defs = json.loads((d / "definitions.json").read_text())
    users = {u["name"]: u for u in defs["users"]}
    assert set(users) == {"host", "admin", "ctl1", "ctl2", "ctl3", "host-t1", "host-t2"}
    creds = dict(re.findall(r"^  (\S+): (\S+)$", out, re.M))
    for name, u in users.items():
        assert u["hashing_algorithm"] == "rabbit_password_hashing_sha256"
        assert rabbitmq.check_password(creds.get(name, creds["host"]), u["password_hash"])
    topics = {p["user"]: p for p in defs["topic_permissions"]}

    def can(user: str, what: str, topic: str) -> bool:
        return re.search(topics[user][what], rabbitmq.routing_key(topic)) is not None

    assert can("ctl1", "write", "dialbox/t1/dev/ctl1/up")
    assert can("ctl1", "write", "dialbox/t1/dev/ctl1/status")
    assert not can("ctl1", "write", "dialbox/t1/dev/ctl2/up")
    assert not can("ctl1", "write", "dialbox/t1/dev/ctl1/down")
    assert can("ctl1", "read", "dialbox/t1/dev/ctl1/down")
    assert can("ctl1", "read", "dialbox/t1/host/status")
    assert not can("ctl1", "read", "dialbox/t1/dev/ctl2/down")
    assert not can("ctl1", "read", "dialbox/t1/dev/+/down")
    assert not can("ctl3", "read", "dialbox/t1/host/status")  # another table
    assert can("host-t1", "read", "dialbox/t1/dev/+/up")
    assert not can("host-t1", "read", "dialbox/t2/dev/+/up")
    assert can("host", "write", "dialbox/t2/dev/ctl3/down")
    assert not can("admin", "write", "dialbox/t1/dev/ctl1/down")
    assert "--broker pi1:1883,pi2:1883,pi3:1883" in out
    assert 'hosts = ["pi1:1883", "pi2:1883", "pi3:1883"]' in out
    # generated again: the cluster keeps its cookie (nodes with another one cannot talk)
    cookie = (d / "erlang.cookie").read_text()
    assert _run(tmp_path, "--table", "t1=ctl1", "--node", "pi1") == 0
    assert (d / "erlang.cookie").read_text() == cookie


def test_names_with_a_dot_and_missing_nodes_are_refused(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    assert _run(tmp_path, "--table", "t1=ctl.1", "--node", "pi1") == 2
    assert "no '.'" in capsys.readouterr().err
    assert _run(tmp_path, "--table", "t1=ctl1") == 2
    assert "--node" in capsys.readouterr().err
    assert _run(tmp_path, "--table", "t1=host-t1", "--node", "pi1") == 2
    assert main(["broker", "config", "--out", str(tmp_path / "m"), "--table", "t1=a",
                 "--node", "pi1"]) == 2  # --node is for rabbitmq


def test_node_lists() -> None:
    assert parse_nodes("a,b:1884,[::1]:1885", 1883) == [("a", 1883), ("b", 1884),
                                                         ("::1", 1885)]
    assert parse_nodes("::1", 1883) == [("::1", 1883)]
    assert parse_nodes("broker.lan", 1884) == [("broker.lan", 1884)]
    for bad in ("a,,b", "a:x", "a:0", "a:70000"):
        with pytest.raises(ValueError):
            parse_nodes(bad, 1883)
    tables = [{"name": "t1", "game": "pixoid", "players": 3}]
    cfg = parse_config({"tables": tables, "mqtt": {"hosts": ["pi1:1884", "pi2"], "port": 1885}})
    assert cfg.mqtt is not None and cfg.mqtt.nodes() == [("pi1", 1884), ("pi2", 1885)]
    assert parse_config(cfg.model_dump()) == cfg
    with pytest.raises(ConfigError, match="mqtt.host: .*'pi1:0'"):
        parse_config({"tables": tables, "mqtt": {"hosts": ["pi1:0"]}})
    with pytest.raises(ConfigError, match="either host or hosts"):
        parse_config({"tables": tables, "mqtt": {"hosts": ["pi1"], "host": "pi2"}})

    async def on_link(_link: object) -> None:
        return None

    hub = MqttHub(BrokerAddress(cfg.mqtt.host, cfg.mqtt.port), "t1", on_link)
    assert hub.nodes == [("pi1", 1884), ("pi2", 1885)]
    d = ControllerDouble("c1", mqtt={"hosts": ["pi1:1884", "pi2"], "port": 1885, "table": "t1"})
    assert d.mqtt_nodes() == hub.nodes
    d = ControllerDouble("c1", mqtt={"host": "pi1", "port": 1885, "table": "t1"})
    assert d.mqtt_nodes() == [("pi1", 1885)]

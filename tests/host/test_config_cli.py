"""Config files, `dialbox run --check`, `dialbox broker config` and `dialbox devices`."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from dialbox.broker import hash_password
from dialbox.cli import main
from dialbox.daemon import ConfigError, load_config
from dialbox.doubles import ControllerDouble

GOOD = """
[host]
name = "pi"
journal = "{journal}"

[serial]
ports = ["/dev/serial/by-id/usb-MicroPython*"]

[[tables]]
name = "table1"
game = "pixoid"
players = 4
bots = [4]
"""


def test_a_good_config_loads(tmp_path: Path) -> None:
    f = tmp_path / "ok.toml"
    f.write_text(GOOD.format(journal=tmp_path / "j.sqlite"))
    cfg = load_config(f)
    assert cfg.tables[0].settings().bots == [3]
    assert main(["run", "--config", str(f), "--check"]) == 0


def test_a_config_may_spell_a_game_otherwise_and_the_journal_keeps_its_name(
        tmp_path: Path) -> None:
    from dialbox.journal import Journal
    from dialbox.runner import GameRunner

    f = tmp_path / "trial.toml"
    f.write_text(GOOD.format(journal=tmp_path / "j.sqlite")
                 .replace('"pixoid"', '"trial_of_the_gods"'))
    settings = load_config(f).tables[0].settings()
    assert settings.game == "trial-of-the-gods"
    assert main(["run", "--config", str(f), "--check"]) == 0
    j = Journal(tmp_path / "j.sqlite")
    GameRunner(settings, j)
    assert j.entries("table1")[0].data["game"] == "trial-of-the-gods"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[[tables]]\nname = 'x'\ngame = 'pixoid'\nplayers = 9\n", "tables.0.players"),
        ("[[tables]]\nname = 'x'\ngame = 'pixoid'\nplayers = 4\nbots = [5]\n", "bot seat 5"),
        ("[[tables]]\nname = 'x'\ngame = 'pixoid'\nplayers = 2\n", "pixoid is for 3-4 players"),
        ("[host]\nname = 'pi'\n", "tables: Field required"),
        ("[[tables]]\nname = 'a b'\ngame = 'g'\nplayers = 2\n", "tables.0.name"),
        ("[[tables]]\nname = 'x'\ngame = 'g'\nplayers = 2\ncolour = 'red'\n", "colour"),
        ("[mqtt]\nport = 0\n[[tables]]\nname = 'x'\ngame = 'g'\nplayers = 2\n", "mqtt.port"),
        ("[[tables]\nname = 'x'\n", "not valid TOML"),
        ("[[tables]]\nname = 'x'\ngame = 'pixoid'\nplayers = 4\n"
         "teams = ['a', 'b', 'c', 'd', 'e']\n", "teams lists 5 seats"),
    ],
)
def test_a_malformed_config_names_the_problem(tmp_path: Path, text: str, expected: str,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(ConfigError, match=expected.replace(".", r"\.")):
        load_config(f)
    assert main(["run", "--config", str(f)]) == 2
    assert expected.split(":")[0] in capsys.readouterr().err


def test_a_missing_config_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "nope.toml")


def test_broker_config_cli_writes_users_passwords_and_acls(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "broker"
    assert main(["broker", "config", "--out", str(out), "--table", "t1=ctl-a,ctl-b",
                 "--port", "0", "--bind", "127.0.0.1"]) == 0
    text = capsys.readouterr().out
    assert "ctl-a:" in text and "host:" in text
    acl = (out / "acl").read_text()
    assert "user ctl-a\ntopic write dialbox/t1/dev/ctl-a/status" in acl
    assert "topic read dialbox/t1/dev/ctl-a/down" in acl
    assert "ctl-b" not in acl.split("user ctl-a")[1].split("user ctl-b")[0]
    # host, the daemon's user for t1 (client ids are bound to users), ctl-a, ctl-b
    assert (out / "passwd").read_text().count("$7$101$") == 4
    assert "user host-t1\ntopic readwrite dialbox/t1/#" in acl
    assert "use_username_as_clientid true" in (out / "mosquitto.conf").read_text()
    assert main(["broker", "config", "--out", str(out), "--table", "bad name"]) == 2
    # a controller may not be named like the host's users (it would share their password)
    assert main(["broker", "config", "--out", str(out), "--table", "t1=ctl-a,host-t1"]) == 2


def test_password_hash_is_mosquitto_format() -> None:
    h = hash_password("secret", salt=b"0123456789ab")
    assert h.startswith("$7$101$MDEyMzQ1Njc4OWFi$") and len(h.split("$")[-1]) == 88


def test_devices_lists_a_controller_on_a_pty(tmp_path: Path) -> None:
    async def run() -> list[dict[str, object]]:
        d = ControllerDouble("ctl-listed", link_dir=tmp_path / "links")
        await d.start()
        try:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "dialbox", "devices", "--json",
                str(tmp_path / "links" / "*"), stdout=asyncio.subprocess.PIPE)
            out, _ = await proc.communicate()
            rows: list[dict[str, object]] = json.loads(out)
            return rows
        finally:
            await d.stop()

    rows = asyncio.run(run())
    assert [r.get("uid") for r in rows] == ["ctl-listed"]


def test_a_journal_of_another_game_is_refused_clearly(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from dialbox.engine.errors import EngineError
    from dialbox.journal import Journal
    from dialbox.runner import GameRunner, TableSettings

    j = Journal(tmp_path / "j.sqlite")
    GameRunner(TableSettings("t1", "tests.host.games", 2), j)
    with pytest.raises(EngineError, match="journal holds a game of tests.host.games at"):
        GameRunner(TableSettings("t1", "pixoid", 4), j)


def test_devices_with_a_config_needs_its_mqtt_section(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "serial-only.toml"
    f.write_text(GOOD.format(journal=tmp_path / "j.sqlite"))
    assert main(["devices", "--config", str(f), "/nonexistent/port-*"]) == 2
    assert "has no [mqtt] section" in capsys.readouterr().err
    broken = tmp_path / "broken.toml"
    broken.write_text("[host\n")
    assert main(["devices", "--config", str(broken)]) == 2
    assert "broken.toml" in capsys.readouterr().err


def test_a_binary_config_file_is_one_clear_error(tmp_path: Path) -> None:
    from dialbox.daemon.config import ConfigError, load_config

    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"\xff\xfe\x00name")
    with pytest.raises(ConfigError, match="not a text file"):
        load_config(bad)

"""The daemon and the firmware over Mosquitto's TLS listener, as `dialbox broker config
--tls-names` sets it up: generated CA, `[mqtt] tls_ca` on the host, `ca.der` and
`"tls": true` on each controller. Nothing crosses the plain listener."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
from pathlib import Path

from dialbox.broker import write_broker_config
from dialbox.daemon.embedded import free_port, wait_port
from dialbox.processes import stop_process
from dialbox.sim import MqttSettings, SimController
from tests.host.harness import TABLE, key_for, running_daemon, table_config, wait_for


def _tls_sim(tmp: Path, uid: str, port: int, password: str, ca_der: Path) -> SimController:
    """A CPython firmware provisioned for the TLS port, with the CA on its flash and TLS
    switched on in its config.json (what a maker does over USB), not started."""
    flash = tmp / "flash" / uid
    sim = SimController(uid, runtime="cpython", link="mqtt", state_dir=flash,
                        key=key_for(tmp, uid),
                        mqtt=MqttSettings("localhost", port, TABLE, uid, password))
    sim.start()  # writes config.json (port only: plain TCP, which the TLS port refuses)
    sim.kill()
    shutil.copy(ca_der, flash / "ca.der")
    cfg = json.loads((flash / "config.json").read_text())
    cfg["tls"] = True
    (flash / "config.json").write_text(json.dumps(cfg))
    return sim


def test_daemon_and_firmware_over_tls_only(tmp_path: Path) -> None:
    uids = ["tls-a", "tls-b"]
    # the plain listener exists (Mosquitto's first listener) but nobody here uses it
    tls_port = free_port()
    files = write_broker_config(tmp_path / "broker", {TABLE: uids}, port=free_port(),
                                bind="127.0.0.1", tls_port=tls_port, tls_names=[])
    assert files.tls is not None
    proc = subprocess.Popen(["/usr/sbin/mosquitto", "-c", str(files.conf)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sims = [_tls_sim(tmp_path, u, tls_port, files.credentials[u], files.tls.ca_der)
            for u in uids]

    async def run() -> None:
        await wait_port(tls_port)
        mqtt = {"host": "localhost", "port": tls_port, "user": "host",
                "password": files.credentials["host"], "tls_ca": str(files.tls.ca_cert)}
        cfg = table_config(tmp_path, players=2, uids=uids, mqtt=mqtt, pairing="auto",
                           options={"rounds": 1})
        async with running_daemon(cfg) as daemon:
            runner = daemon.runners[TABLE]
            for s in sims:
                await asyncio.to_thread(s.start)
            await wait_for(lambda: all(runner.table.seat_of(u) is not None for u in uids),
                           what="both controllers seated over TLS")
            await wait_for(lambda: runner.box is not None and runner.box.sealed,
                           what="a sealed prompt")
            assert runner.box is not None
            pid = runner.box.pid
            for s in sims:
                await asyncio.to_thread(
                    s.wait_for, lambda v: v.pid == pid and v.state == "programming", 30,
                    "the sealed prompt on the controller")

    try:
        asyncio.run(run())
    finally:
        for s in sims:
            s.stop()
        stop_process(proc, 5)

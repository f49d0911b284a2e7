"""The far end of the host benchmark's bare echo (bench.host latency), a process of its own
that stands in for the daemon's end of the link: every byte goes back as it comes.

    python -m bench._echo '{"kind": "pty", "link": PATH}'   # opens PATH with
                                            # pyserial-asyncio-fast, as the daemon opens a port
    python -m bench._echo '{"kind": "mqtt", "port": N, "user": U, "password": P, "root": R}'
                          # a plain gmqtt client (the echo table's host user): reads R/up,
                          # writes R/down

Light on purpose (no dialbox import): it starts fast. Says `{"ready": true}` on stdout once it
echoes; stops at a line (or EOF) on stdin.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Any


def _ready() -> None:
    print(json.dumps({"ready": True}), flush=True)


async def _stdin_line() -> str:
    return await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


async def echo_pty(link: Path) -> None:
    import serial_asyncio_fast

    end = time.monotonic() + 30
    while not link.exists():  # the rig makes the pty pair and names it
        if time.monotonic() > end:
            raise TimeoutError(f"{link} never appeared")
        await asyncio.sleep(0.02)

    class Echo(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self.t = transport

        def data_received(self, data: bytes) -> None:
            self.t.write(data)  # type: ignore[attr-defined]

    transport, _ = await serial_asyncio_fast.create_serial_connection(
        asyncio.get_running_loop(), Echo, str(link), baudrate=115200, exclusive=True)
    _ready()
    await _stdin_line()
    transport.close()


async def echo_mqtt(port: int, user: str, password: str, root: str) -> None:
    import gmqtt
    from gmqtt.mqtt.constants import MQTTv311

    c = gmqtt.Client(f"bench-{user}")
    c.set_auth_credentials(user, password)

    def on_message(_c: Any, _topic: str, payload: bytes, qos: int, _p: Any) -> int:
        c.publish(f"{root}/down", payload, qos=qos)  # back at the QoS the rig sent it
        return 0

    c.on_message = on_message
    await c.connect("127.0.0.1", port, version=MQTTv311)
    c.subscribe(f"{root}/up", qos=1)  # delivered at the rig's QoS (at most 1)
    _ready()
    await _stdin_line()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(c.disconnect(), 2)


def main(argv: list[str]) -> None:
    spec = json.loads(argv[0])
    if spec["kind"] == "pty":
        asyncio.run(echo_pty(Path(spec["link"])))
    else:
        asyncio.run(echo_mqtt(spec["port"], spec["user"], spec["password"], spec["root"]))


if __name__ == "__main__":
    main(sys.argv[1:])

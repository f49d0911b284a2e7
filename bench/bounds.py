"""What a flood on one link costs the daemon (docs/host.md, "Bounds").

    python -m bench.bounds        # no flood, then a serial flood and two MQTT floods
    python -m bench.bounds off    # the floods again with the limits switched off (as before)

A hostile controller in its own process (tests/host/flood.py) floods one link while two
controller doubles play a 10-round game at another table of the same daemon (in this
process): serial: a 1 MB and a 4 MB line, 1 MB of two-byte lines, then 10,000 malformed
frames a second for 2 s; MQTT: 1 MB and 4 MB payloads of two-byte lines, then 10,000
malformed frames a second for 2 s in payloads of five, and twenty 2 kB payloads a second.
Printed: how long the flood and the other table's rest of game took from the flood's start,
the decisions that table applied meanwhile, the log lines the flood caused, the frames the
rogue got back and the daemon's RSS growth (VmRSS, sampled every 20 ms).
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

from dialbox import logbook
from dialbox.broker.mosquitto import MAX_PACKET
from dialbox.sessions import session
from dialbox.transports import mqtt, serial

NO_FLOOD = ("--big", "", "--seconds", "0")
SHOWN = ("flood_over_after", "other_table_finished_after", "applied_during", "decisions",
         "rogue_lines", "suppressed", "down", "disconnects", "oversize", "rss_growth_mb")


def _limits_off() -> None:
    logbook.RATE, logbook.BURST = 1e12, 10**12
    mqtt.MAX_UP_PAYLOAD = 1 << 40
    session.REPLY_RATE, session.REPLY_BURST = 1e12, 10**12
    serial.MAX_WRITE_BUFFER = 1 << 40


def _show(name: str, f: dict[str, Any]) -> None:
    cells = []
    for k in SHOWN:
        if k in f:
            v = f[k]
            cells.append(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}")
    print(f"{name:34s} " + " ".join(cells), flush=True)


def main(argv: list[str] | None = None) -> None:
    from tests.host.test_bounds import _mqtt, _serial

    off = "off" in (argv if argv is not None else sys.argv[1:])
    if off:
        _limits_off()
    runs: list[tuple[str, Any]] = []
    if not off:
        runs += [("serial, no flood", lambda d: _serial(d, "--tiny", "", *NO_FLOOD)),
                 ("MQTT, no flood", lambda d: _mqtt(d, 0, 10, *NO_FLOOD))]
    runs += [("serial flood", lambda d: _serial(d)),
             ("MQTT flood, broker without limit", lambda d: _mqtt(d, 0, 10))]
    if not off:
        runs.append(("MQTT flood, generated broker", lambda d: _mqtt(d, MAX_PACKET, 10)))
    print("limits " + ("OFF (the behaviour before)" if off else
                       f"on: {logbook.RATE:g} lines/s after {logbook.BURST} per link, "
                       f"payloads <= {mqtt.MAX_UP_PAYLOAD} B, broker packets <= {MAX_PACKET} B"))
    for name, run in runs:
        with tempfile.TemporaryDirectory() as d:
            _show(name, asyncio.run(run(Path(d))))


if __name__ == "__main__":
    main()

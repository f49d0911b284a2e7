"""Firmware benchmark: RAM after boot and during a game (unix port), bundle sizes, decoder cost."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dialbox.firmware_tools import bundle
from dialbox.paths import firmware_dir, micropython_binary, micropython_path, protocol_dir
from dialbox.sim import SimController
from dialbox.sim.standin import HostStandin

LOOP = Path(__file__).with_name("_decoder_loop.py")
PIXOID = [[None, 0b01010101, 0], [None, 0b1111111110, 1], None]


def game_memory(heap: str) -> tuple[dict[str, int], dict[str, int]]:
    """(after boot, after a scripted sealed round) heap figures of the firmware over a pty."""
    with SimController("bench", runtime="micropython", heap=heap) as sim:
        sim.wait_state("connecting")
        boot = sim.memory()
        host = HostStandin(sim.device_path)
        try:
            host.handshake()
            for pid in range(1, 4):
                host.send("prompt", [pid, True, True, "Move Pixoid", PIXOID, False])
                sim.wait_for(lambda v, p=pid: v.state == "programming" and v.pid == p)
                sim.turn(0, 3, bounce=True)
                sim.turn(1, -2)
                sim.press(100)
                commit = host.expect("commit", pid=pid)
                host.send("alllocked", [pid, [[0, commit["commitment"]]]])
                reveal = host.expect("reveal", pid=pid)
                mine = [0, reveal["sel"], reveal["nonce"], sim.uid]
                host.send("revealed", [pid, [[0, "E 8"], [1, "N 2"]], "Bug 2 caught Pixoid",
                                       [mine]])
                sim.wait_for(lambda v, p=pid: v.state == "revealed" and v.pid is None)
                del commit, reveal
            game = sim.memory()
        finally:
            host.close()
    return boot, game


def mqtt_memory(heap: str) -> dict[str, int]:
    """Heap after boot with the MQTT link up (a mosquitto started for the measurement)."""
    import tempfile

    from dialbox.sim import MqttSettings
    from tests.firmware.broker import Mosquitto, Observer

    with tempfile.TemporaryDirectory() as tmp:
        broker = Mosquitto(Path(tmp))
        broker.start()
        try:
            obs = Observer(broker.port, ["dialbox/bench/dev/bench-m/status"])
            settings = MqttSettings(port=broker.port, table="bench")
            with SimController(
                "bench-m", runtime="micropython", link="mqtt", mqtt=settings, heap=heap
            ) as sim:
                obs.wait("dialbox/bench/dev/bench-m/status", b"online")
                mem = sim.memory()
            obs.close()
        finally:
            broker.stop()
    return mem


def decoder_cost(cmd: list[str], n: int) -> tuple[float, float]:
    env = dict(
        os.environ,
        MICROPYPATH=micropython_path(),
        PYTHONPATH=os.pathsep.join([str(firmware_dir()), str(protocol_dir())]),
    )
    out = subprocess.run(
        [*cmd, str(LOOP), str(n)], capture_output=True, text=True, env=env, check=True
    ).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    boot, game = game_memory("96k")
    print("RAM, MicroPython unix port (64-bit), 96 KB heap, firmware .mpy bundle, pty link:")
    print(f"  after boot (gc'd):          {boot['alloc']:6d} bytes used, {boot['free']:6d} free")
    print(f"  after 3 sealed rounds (gc'd): {game['alloc']:6d} bytes used, {game['free']:6d} free")
    print(f"  peak seen by the main loop:  {game['peak']:6d} bytes (garbage included)")
    mq = mqtt_memory("128k")
    print("RAM, same, MQTT link connected to mosquitto, 128 KB heap:")
    print(f"  after boot (gc'd):          {mq['alloc']:6d} bytes used, {mq['free']:6d} free")
    print("bundle per board (.mpy + main.py + board.json):")
    for name in bundle.boards():
        b = bundle.build(name)
        print(
            f"  {name:<18} {b.total_bytes:6d} bytes ({b.mpy_bytes} of .mpy, {len(b.files)} files)"
        )
    mp = min(decoder_cost([micropython_binary()], 200) for _ in range(3))
    cp = min(decoder_cost([sys.executable], 200) for _ in range(3))
    print("decoder cost per A/B transition (Quadrature.update_state / pin-IRQ handler):")
    print(f"  MicroPython unix port  {mp[0]:6.3f} us / {mp[1]:6.3f} us")
    print(f"  CPython                {cp[0]:6.3f} us / {cp[1]:6.3f} us")


if __name__ == "__main__":
    main()

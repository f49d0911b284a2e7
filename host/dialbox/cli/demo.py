"""`dialbox demo`: the embedded default: a whole table on this one machine."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
from typing import Any


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "demo",
        help="run a full simulated table on this machine (the embedded default)",
        description="Runs the host daemon, simulated controllers (the real firmware under "
        "the MicroPython unix port, connected over pseudo-terminals or a local broker) and "
        "bots for the other seats, and plays one whole game.",
    )
    p.add_argument("--game", default="pixoid", help="game to play (default: pixoid)")
    p.add_argument("--players", type=int, default=4, help="players at the table (default 4)")
    p.add_argument("--controllers", type=int, default=None,
                   help="simulated controllers (default: one per seat; bots take the rest)")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    p.add_argument("--transport", choices=("serial", "mqtt"), default="serial",
                   help="serial over pseudo-terminals (default) or MQTT via a local Mosquitto")
    p.add_argument("--broker", choices=("auto", "mosquitto", "embedded"), default="auto",
                   help="with --transport mqtt: Mosquitto if installed (auto), or the "
                   "embedded pure-Python broker (amqtt, no ACLs)")
    p.add_argument("--runtime", choices=("micropython", "cpython", "double"),
                   default="micropython",
                   help="how the simulated controllers run (double: the light protocol double)")
    p.add_argument("--headless", action="store_true", help="no running commentary")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary")
    p.add_argument("-v", "--verbose", action="store_true", help="log what the daemon does")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dialbox.daemon.embedded import run_demo
    from dialbox.engine.errors import EngineError

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s")
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(2), "big")
    shown: set[int] = set()

    def commentary(state: dict[str, Any]) -> None:
        rev = state.get("revealed")
        if rev and rev["pid"] not in shown:
            shown.add(rev["pid"])
            picks = ", ".join(f"seat {s + 1}: {label}" for s, label in rev["choices"])
            print(f"reveal {len(shown):3d}  {picks}  |  {rev['summary']}", flush=True)

    quiet = args.headless or args.json
    try:
        summary = asyncio.run(run_demo(
            game=args.game, players=args.players, controllers=args.controllers, seed=seed,
            transport=args.transport, runtime=args.runtime, broker=args.broker,
            on_state=None if quiet else commentary,
        ))
    except (EngineError, RuntimeError, TimeoutError) as e:
        print(f"dialbox demo: {e}")
        return 1
    out = summary.to_json()
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        result = summary.result or {}
        print(f"{summary.game}: game over after {summary.prompts} decisions in "
              f"{summary.seconds:.1f} s ({summary.transport}, {summary.runtime} controllers, "
              f"seed {seed}). {result.get('text', '')}")
        if summary.restarts:
            print(f"(simulated controllers powered on again after their firmware stopped: "
                  f"{', '.join(summary.restarts)})")
    return 0 if summary.result is not None else 1

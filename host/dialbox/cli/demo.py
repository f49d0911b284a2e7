"""`dialbox demo`: the embedded default: a whole table on this one machine."""

from __future__ import annotations

import argparse
import os
from typing import Any


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "demo", help="run a full simulated table on this machine (the embedded default)"
    )
    p.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dialbox_protocol import codec

    # Until the daemon lands, the demo exercises the commit-reveal exchange end to end
    # through the shared codec: four controllers lock secret choices, then reveal.
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(2), "big")
    import random

    rng = random.Random(seed)
    pid = 1
    locked: dict[str, tuple[list[int], bytes, bytes]] = {}
    for dev in ("ctrl-a", "ctrl-b", "ctrl-c", "ctrl-d"):
        sel = [rng.randrange(8), rng.randrange(1, 10), -1]
        nonce = os.urandom(codec.NONCE_BYTES)
        frame = codec.encode("commit", 1, [pid, codec.commitment(sel, nonce, pid, dev)])
        locked[dev] = (sel, nonce, frame)
        print(f"{dev} locked: {frame.decode().strip()}")
    print("all locked; reveals:")
    for dev, (sel, nonce, commit_frame) in locked.items():
        reveal = codec.encode("reveal", 2, [pid, sel, codec.b64(nonce)])
        c = codec.decode_frame(commit_frame)
        r = codec.decode_frame(reveal)
        assert isinstance(c, dict) and isinstance(r, dict)
        ok = codec.verify_reveal(c["commitment"], r["sel"], r["nonce"], pid, dev)
        print(f"{dev} reveals {r['sel']}: {'verified' if ok else 'MISMATCH'}")
    return 0

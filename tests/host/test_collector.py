"""The daemon's collector policy (dialbox.daemon.settle_collector), in a process of its own:
freezing and thresholds are process-wide, so this test's own process is left alone."""

from __future__ import annotations

import json
import subprocess
import sys

from dialbox.daemon.daemon import FULL_COLLECTION_EVERY

PROBE = """
import gc, json
from dialbox.daemon import settle_collector

before = gc.get_threshold()
kept = [object() for _ in range(1000)]  # lives as long as the "daemon"
settle_collector()
frozen = gc.get_freeze_count()
after = gc.get_threshold()

class Node:
    pass

# cyclic garbage made after the freeze is still found: by a young collection...
a, b = Node(), Node()
a.other, b.other = b, a
del a, b
young = gc.collect(0)
# ...and by a full one, for what survived into the oldest generation
c, d = Node(), Node()
c.other, d.other = d, c
gc.collect(0)
gc.collect(1)
del c, d
full = gc.collect(2)
print(json.dumps({"before": before, "after": after, "frozen": frozen, "kept": len(kept),
                  "young": young, "full": full}))
"""


def test_the_daemon_freezes_what_it_built_and_spaces_its_full_collections() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    r = json.loads(out)
    assert r["before"][2] != FULL_COLLECTION_EVERY  # the interpreter's own default differs
    # the young and middle thresholds are the interpreter's; only the full one moves
    assert r["after"] == [r["before"][0], r["before"][1], FULL_COLLECTION_EVERY]
    assert r["frozen"] >= r["kept"]  # everything alive at the call, the 1000 objects too
    assert r["young"] >= 2 and r["full"] >= 2  # the two nodes of each cycle were collected

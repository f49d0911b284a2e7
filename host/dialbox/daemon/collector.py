"""The daemon's garbage collector: what lives long stays out of the collector's full passes.

CPython's full collection walks every object the collector tracks. A daemon process holds
tens of thousands that live as long as it does: modules and schemas made at start, and,
once the controllers have connected, every link, session, task and seat state (about 70,000
at 100 tables x 6). A full pass over them paused the event loop for 30-50 ms every ten
seconds or so at 200 tables, and those pauses were most of the reveal's p99 there
(docs/host.md, "Benchmarks").

So the process freezes (`gc.freeze()`) what it holds at start, then keeps freezing what
survived since, every REFREEZE_EVERY seconds, right after a young collection (`gc.collect(1)`,
cheap) has taken the fresh garbage: what is frozen is out of every pass, and the full passes
left walk only what the last REFREEZE_EVERY seconds made. The price: a cycle of objects
that dies after it was frozen is not freed until the next SWEEP_EVERY, when everything is
thawed, collected in one full pass (one pause, once per sweep) and frozen again. Objects
without cycles are freed by their reference counts whether frozen or not, so what waits
for the sweep is only cyclic garbage of long-lived objects (a session whose controller left,
its task): little, and bounded by one sweep period.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time

log = logging.getLogger("dialbox.collector")

REFREEZE_EVERY = 5.0
"""Seconds between freezes of what survived a young collection: short, so that the objects
made as the controllers connect are frozen before a full pass finds them (a young collection
and a freeze cost about as much as one of the collector's own young collections)."""
SWEEP_EVERY = 600.0
"""Seconds between full sweeps (thaw, collect everything, freeze again)."""


def freeze() -> None:
    """Collect the young generations, then freeze everything that is left (cheap: a young
    collection walks only what is new, and freezing moves lists, not objects)."""
    gc.collect(1)
    gc.freeze()


def sweep() -> tuple[int, float]:
    """Thaw, collect everything, freeze again: (objects collected, seconds it took)."""
    start = time.perf_counter()
    gc.unfreeze()
    found = gc.collect()
    gc.freeze()
    return found, time.perf_counter() - start


async def keep(refreeze_every: float = REFREEZE_EVERY,
               sweep_every: float = SWEEP_EVERY) -> None:
    """Run for the life of a daemon process (a task of its event loop; it never returns)."""
    freeze()
    swept = time.monotonic()
    while True:
        await asyncio.sleep(refreeze_every)
        if time.monotonic() - swept >= sweep_every:
            found, took = sweep()
            swept = time.monotonic()
            log.debug("full sweep: %d objects collected in %.1f ms", found, took * 1000)
        else:
            freeze()

"""The daemon's garbage collector policy (dialbox.daemon.collector): what survives is frozen
out of the full passes, and a sweep frees the cycles that died frozen."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from dialbox.daemon import collector


@pytest.fixture(autouse=True)
def thawed() -> Iterator[None]:
    """Each test starts and ends with nothing frozen (the test process is shared)."""
    gc.unfreeze()
    yield
    gc.unfreeze()


class Node:
    """An object in a reference cycle with itself: only the collector can free it."""

    def __init__(self) -> None:
        self.me = self


def tracked(obj: object) -> bool:
    """Whether obj is in a generation the collector walks (the frozen ones are not)."""
    return any(o is obj for o in gc.get_objects())


def test_freeze_takes_survivors_out_of_the_collectors_walks() -> None:
    keep = Node()
    assert tracked(keep)
    before = gc.get_freeze_count()
    collector.freeze()
    assert gc.get_freeze_count() > before
    assert not tracked(keep)
    fresh = Node()
    assert tracked(fresh)  # made after the freeze: walked until the next one


def test_young_garbage_is_collected_before_the_freeze() -> None:
    dead = Node()
    ref = weakref.ref(dead)
    del dead
    collector.freeze()  # the young collection first: the cycle is not frozen, it is freed
    assert ref() is None


def test_a_cycle_that_dies_frozen_waits_for_the_sweep() -> None:
    node = Node()
    ref = weakref.ref(node)
    collector.freeze()
    del node
    gc.collect()  # a full pass does not see the frozen generation
    assert ref() is not None
    found, took = collector.sweep()
    assert ref() is None
    assert found >= 1 and took >= 0
    assert gc.get_freeze_count() > 0  # frozen again after the sweep


def test_keep_freezes_and_sweeps_on_its_periods() -> None:
    async def main() -> tuple[bool, bool]:
        keeper = asyncio.create_task(collector.keep(refreeze_every=0.01, sweep_every=0.2))
        await asyncio.sleep(0.05)
        node = Node()
        ref = weakref.ref(node)
        await asyncio.sleep(0.05)  # a refreeze took it out of the walks
        frozen = not tracked(node)
        del node
        for _ in range(100):  # the next sweep frees it
            if ref() is None:
                break
            await asyncio.sleep(0.02)
        keeper.cancel()
        return frozen, ref() is None

    frozen, freed = asyncio.run(main())
    assert frozen
    assert freed

"""The nonce entropy pool (core/entropy.py) and the controller's nonces drawn from it."""

from __future__ import annotations

import pytest
from dialbox_fw.core import controller as c
from dialbox_fw.core.entropy import Entropy
from dialbox_fw.core.store import MemoryStore

from dialbox_protocol import codec
from tests.firmware.conftest import run_micropython


def zeros(n: int) -> bytes:
    return bytes(n)


class Clock:
    """A clock that says what the test tells it."""

    def __init__(self, t: int = 7) -> None:
        self.t = t

    def __call__(self) -> int:
        return self.t


def still(uid: str = "dev-1") -> Entropy:
    """A pool whose every source is constant: os.urandom zeros, clocks that never move."""
    return Entropy(zeros, uid, (Clock(), Clock()))


def test_draws_never_repeat_even_when_every_source_is_constant() -> None:
    e = still()
    draws = [e.draw(codec.NONCE_BYTES) for _ in range(500)]
    assert len(set(draws)) == len(draws)
    assert {len(d) for d in draws} == {codec.NONCE_BYTES}
    assert zeros(codec.NONCE_BYTES) not in draws


@pytest.mark.parametrize("n", [1, 12, 31, 32, 33, 64, 100])
def test_a_draw_has_the_length_asked(n: int) -> None:
    assert len(still().draw(n)) == n


def test_the_same_inputs_give_the_same_draws() -> None:
    """Deterministic in its inputs: what differs below differs because of what was stirred."""
    a, b = still(), still()
    for i in range(3):
        a.stir(i, 1000 + i)
        b.stir(i, 1000 + i)
    assert [a.draw(12) for _ in range(3)] == [b.draw(12) for _ in range(3)]


@pytest.mark.parametrize("field", ["fine", "coarse", "a", "b"])
def test_a_different_moment_or_event_stirred_gives_a_different_nonce(field: str) -> None:
    draws = []
    for delta in (0, 1):
        fine, coarse = Clock(123456), Clock(987)
        e = Entropy(zeros, "dev-1", (fine, coarse))
        fine.t += delta if field == "fine" else 0
        coarse.t += delta if field == "coarse" else 0
        e.stir(2 + (delta if field == "a" else 0), 5000 + (delta if field == "b" else 0))
        draws.append(e.draw(12))
    assert draws[0] != draws[1]


def test_timing_stirred_long_ago_still_counts() -> None:
    """The ring is XORed over, not overwritten: an event 100 events back still matters."""
    draws = []
    for first in (1, 2):
        e = still()
        e.stir(first, 0)
        for i in range(99):
            e.stir(i, i)
        draws.append(e.draw(12))
    assert draws[0] != draws[1]


def test_the_personalisation_and_urandom_count() -> None:
    assert still("dev-1").draw(12) != still("dev-2").draw(12)
    ones = Entropy(lambda n: b"\x01" * n, "dev-1", (Clock(), Clock()))
    assert ones.draw(12) != still().draw(12)


def test_urandom_is_asked_again_for_every_draw() -> None:
    calls: list[int] = []

    def counting(n: int) -> bytes:
        calls.append(n)
        return bytes(n)

    e = Entropy(counting, "dev-1", (Clock(), Clock()))
    e.draw(12)
    e.draw(12)
    assert calls == [32, 32]  # 32 fresh bytes for every draw


def test_the_default_sources_work_on_cpython() -> None:
    e = Entropy()
    assert len({e.draw(12) for _ in range(20)}) == 20


# --- the controller -----------------------------------------------------------------


def locked_nonce(ctl: c.Controller, pid: int, now: int) -> str:
    ctl.prompt = (pid, False, True, "text")  # an open prompt: the record stays in RAM
    ctl.state = c.PROGRAMMING
    ctl.lock(now)
    assert ctl.record is not None
    nonce: str = ctl.record["nonce"]
    return nonce


def test_controller_nonces_differ_with_a_constant_urandom() -> None:
    ctl = c.Controller("dev-1", "pico_w", MemoryStore(), urandom=zeros)
    nonces = [locked_nonce(ctl, 5 + i, 1000 + i) for i in range(10)]
    assert len(set(nonces)) == 10
    assert all(len(codec.unb64(n)) == codec.NONCE_BYTES for n in nonces)
    assert codec.b64(zeros(codec.NONCE_BYTES)) not in nonces


def test_controller_stirs_turns_and_presses_into_the_pool() -> None:
    ctl = c.Controller("dev-1", "pico_w", MemoryStore(), urandom=zeros)
    ring = bytes(ctl.entropy.ring)
    ctl.turn(1, -2, 1000)  # even when the turn itself changes nothing (no prompt)
    assert bytes(ctl.entropy.ring) != ring
    ring = bytes(ctl.entropy.ring)
    ctl.button(1, 1200)
    assert bytes(ctl.entropy.ring) != ring


@pytest.mark.micropython
def test_the_pool_on_micropython() -> None:
    proc = run_micropython("mp_entropy.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.split("\n")
    assert "distinct 64 of 64 lengths [12]" in lines
    assert "sizes 1 32 33 100" in lines
    assert {"same True", "stirred True", "personal True", "default 12 True"} <= set(lines)
    assert "stir heap ok" in lines  # stir() ran 100 times under heap_lock
    assert "controller 3 of 3" in lines
    assert proc.stdout.strip().endswith("OK")

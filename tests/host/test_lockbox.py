"""The commit-reveal lockbox: what it accepts, refuses, and never reveals early."""

import os

import pytest

from dialbox.lockbox import Lockbox, Phase
from dialbox_protocol import codec


def commit(sel, pid, uid):
    nonce = os.urandom(codec.NONCE_BYTES)
    return codec.commitment(sel, nonce, pid, uid), codec.b64(nonce)


def legal(_seat, _sel):
    return None


def test_all_locked_then_verified_reveals_complete_it() -> None:
    box = Lockbox(7, 1, True, True, (0, 1))
    c0, n0 = commit((1, 2, -1), 7, "a")
    c1, n1 = commit((3, 4, -1), 7, "b")
    assert box.commit(0, "a", c0).changed
    assert box.phase == Phase.OPEN and box.waiting_for == [1]
    assert not box.reveal(0, "a", (1, 2, -1), n0, legal).accepted  # too early
    assert box.commit(1, "b", c1).changed
    assert box.phase == Phase.ALL_LOCKED
    with pytest.raises(RuntimeError):
        box.answers()
    assert box.reveal(0, "a", (1, 2, -1), n0, legal).changed
    assert not box.reveal(0, "a", (1, 2, -1), n0, legal).changed  # duplicate: harmless
    assert box.reveal(1, "b", (3, 4, -1), n1, legal).changed
    assert box.complete and box.answers() == {0: (1, 2, -1), 1: (3, 4, -1)}


def test_mismatched_or_foreign_reveals_are_refused() -> None:
    box = Lockbox(7, 1, True, True, (0, 1))
    c0, n0 = commit((1, 2, -1), 7, "a")
    c1, _ = commit((3, 4, -1), 7, "b")
    box.commit(0, "a", c0)
    box.commit(1, "b", c1)
    v = box.reveal(0, "a", (1, 3, -1), n0, legal)  # changed choice
    assert not v.accepted and v.code == codec.E_MISMATCH
    v = box.reveal(0, "b", (1, 2, -1), n0, legal)  # from another device
    assert not v.accepted and v.code == codec.E_MISMATCH
    v = box.reveal(0, "a", (1, 2, -1), n0, lambda s, x: "no")
    assert not v.accepted and v.code == codec.E_ILLEGAL
    assert 0 not in box.reveals


def test_unlock_until_the_last_lock_only_and_no_second_commitment() -> None:
    box = Lockbox(9, 1, True, True, (0, 1))
    c0, _ = commit((1, 2, -1), 9, "a")
    c0b, _ = commit((1, 5, -1), 9, "a")
    box.commit(0, "a", c0)
    assert not box.commit(0, "a", c0b).accepted  # unlock first
    assert box.uncommit(0, "a").changed
    assert box.commit(0, "a", c0b).changed
    c1, _ = commit((3, 4, -1), 9, "b")
    box.commit(1, "b", c1)
    assert not box.uncommit(0, "a").accepted  # all locked: final
    no_unlock = Lockbox(10, 1, True, False, (0,))
    no_unlock.commitments[0] = ("a", c0)
    assert not no_unlock.uncommit(0, "a").accepted


def test_timeout_uses_the_games_default_only_for_unlocked_seats() -> None:
    box = Lockbox(5, 1, True, True, (0, 1))
    c0, n0 = commit((1, 2, -1), 5, "a")
    box.commit(0, "a", c0)
    assert not box.time_out({})  # no default: keep waiting
    assert box.time_out({0: (0, 0, -1), 1: (2, 1, -1)})
    assert box.phase == Phase.ALL_LOCKED and box.defaults == {1: (2, 1, -1)}
    box.reveal(0, "a", (1, 2, -1), n0, legal)
    assert box.answers() == {0: (1, 2, -1), 1: (2, 1, -1)}


def test_open_prompt_takes_the_reveal_directly() -> None:
    box = Lockbox(3, 2, False, True, (1,))
    assert not box.commit(1, "b", "x" * 22).accepted
    assert box.reveal(1, "b", (-1, -1, 2), codec.b64(bytes(12)), legal).changed
    assert box.complete

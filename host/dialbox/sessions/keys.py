"""Device keys: the host's key store and the check of a controller's `hello`.

Each controller holds a device key (16-32 random bytes, `dialbox firmware provision` writes
it into the controller's config.json and into this store) and proves it on every `hello`:
`mac` = codec.hello_mac(key, the identify's challenge, uid). The store is one text file,
mode 0600, by default `keys` next to the journal (docs/host.md, "Device identity"):

    # dialbox device keys (uid, key in base64): written by `dialbox firmware provision`
    ctl-a q83vEjRWeJCrze8BI0VniQq83vEjRWeJCrze8BI0Vg

The daemon re-reads the file when it changes, so a controller paired while the daemon runs
is known at its next `hello` without a restart.
"""

from __future__ import annotations

import contextlib
import fcntl
import hmac
import logging
import os
import re
from collections.abc import Iterator
from pathlib import Path

from dialbox_protocol import codec
from dialbox_protocol.models import Hello

log = logging.getLogger("dialbox.keys")

KEY_BYTES = 32
"""Bytes of a key `dialbox firmware provision` draws (the protocol allows 16-32)."""
HEADER = "# dialbox device keys (uid, key in base64): written by `dialbox firmware provision`\n"
_UID = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")


class KeyStoreError(ValueError):
    """The key file cannot be read, or a line of it is not `<uid> <key>` (the place is named)."""


def new_key() -> bytes:
    return os.urandom(KEY_BYTES)


def _parse(path: Path, text: str) -> dict[str, bytes]:
    keys: dict[str, bytes] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        key = codec.device_key(parts[1]) if len(parts) == 2 else None
        if len(parts) != 2 or not _UID.match(parts[0]) or key is None:
            raise KeyStoreError(f"{path}, line {n}: expected `<uid> <key: 16-32 bytes in "
                                f"base64>`")
        keys[parts[0]] = key
    return keys


class KeyStore:
    """Device keys by unique id, in one file (0600). Reads are cached until the file
    changes; writes replace the file atomically under a lock (several provisioning runs
    and simulated controllers may write at once)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._keys: dict[str, bytes] = {}
        self._stamp: tuple[int, int, int] | None = None
        self._broken: str | None = None

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def load(self) -> dict[str, bytes]:
        """Every key now (re-read if the file changed). A broken file raises KeyStoreError."""
        stamp = self._stat()
        if stamp == self._stamp:
            return self._keys
        if stamp is None:
            self._keys, self._stamp = {}, None
            return self._keys
        try:
            text = self.path.read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError) as e:
            raise KeyStoreError(f"{self.path}: cannot read the device keys ({e})") from None
        self._keys = _parse(self.path, text)
        self._stamp = stamp
        return self._keys

    @property
    def exists(self) -> bool:
        return self.path.exists()

    def key(self, uid: str) -> bytes | None:
        """The key of `uid`, or None. A file that turned broken keeps the keys read before
        (and is reported once): a typo must not unlock every controller."""
        try:
            keys = self.load()
            self._broken = None
        except KeyStoreError as e:
            if self._broken != str(e):
                self._broken = str(e)
                log.error("%s; keeping the %d keys read before", e, len(self._keys))
            keys = self._keys
        return keys.get(uid)

    def uids(self) -> list[str]:
        return sorted(self.load())

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(str(self.path) + ".lock", os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _write(self, keys: dict[str, bytes]) -> None:
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(HEADER + "".join(f"{u} {codec.b64(k)}\n" for u, k in sorted(keys.items())))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    def provision(self, uid: str, key: bytes | None = None) -> bytes:
        """Store `key` (a new random one if None) for `uid`, replacing any older key."""
        if not _UID.match(uid):
            raise KeyStoreError(f"{uid!r} is not a unique id (1-32 of A-Za-z0-9_.-)")
        key = new_key() if key is None else key
        if not codec.KEY_MIN <= len(key) <= codec.KEY_MAX:
            raise KeyStoreError(f"a device key has {codec.KEY_MIN}-{codec.KEY_MAX} bytes")
        with self._locked():
            keys = dict(self.load())
            keys[uid] = key
            self._write(keys)
        return key

    def ensure(self, uid: str) -> bytes:
        """The key of `uid`, provisioned now if it has none (simulated controllers, demo)."""
        with self._locked():
            keys = dict(self.load())
            key = keys.get(uid)
            if key is None:
                key = keys[uid] = new_key()
                self._write(keys)
        return key

    def remove(self, uid: str) -> bool:
        """Forget `uid` (a lost or retired controller): its hello is refused from now on."""
        with self._locked():
            keys = dict(self.load())
            if keys.pop(uid, None) is None:
                return False
            self._write(keys)
        return True


class Authenticator:
    """Checks each `hello` against the key store (docs/protocol.md, "Device identity").

    A uid with a key must prove it (a hello MAC over this session's challenge); a uid
    without one is refused when `require` is set, else admitted unauthenticated. Each
    refusal reason is logged once per uid (until that uid authenticates), not once per
    identify retry or reconnect.
    """

    def __init__(self, store: KeyStore, require: bool = True) -> None:
        self.store = store
        self.require = require
        self._logged: set[tuple[str, str]] = set()

    def check(self, hello: Hello, challenge: str) -> str | None:
        """None when the hello may be admitted, else the detail of `error auth_failed`."""
        uid = hello.uid
        key = self.store.key(uid)
        if key is None:
            if not self.require:
                self._once(uid, "unauthenticated", logging.WARNING,
                           "%s has no device key: admitted unauthenticated (require_keys is "
                           "off)", uid)
                return None
            self._once(uid, "no key", logging.WARNING,
                       "%s refused: no device key for it in %s (pair it: dialbox firmware "
                       "provision --config ...)", uid, self.store.path)
            return f"{uid} is not paired with this host (no device key)"
        if not hello.mac:
            self._once(uid, "no mac", logging.WARNING,
                       "%s refused: its hello carries no proof of its device key (firmware "
                       "not provisioned with a key?)", uid)
            return f"{uid}: hello without proof of the device key"
        if not hmac.compare_digest(codec.hello_mac(key, challenge, uid), hello.mac):
            self._once(uid, "wrong mac", logging.WARNING,
                       "%s refused: wrong device key (an impostor, or a controller paired "
                       "again elsewhere)", uid)
            return f"{uid}: wrong device key"
        self._logged = {e for e in self._logged if e[0] != uid}
        return None

    def _once(self, uid: str, what: str, level: int, fmt: str, *args: object) -> None:
        if (uid, what) not in self._logged:
            self._logged.add((uid, what))
            log.log(level, fmt, *args)

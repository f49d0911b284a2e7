"""Pairing a phone: a join code in, a device uid and key out, the seat reserved for it.

`POST /phone/pair` with `{"code": "K7M2QX"}` ends here, in the process that owns the table
(its Console holds the codes and the seats). The phone gets a new uid (`ph-` and 8 hex
digits) and a 32-byte device key, written into the daemon's key store (the daemon reads it
again when it changes), and the code's seat is claimed for that uid and journaled, as a
controller's seat is: the phone's hello is then that of a returning controller, admitted
to its seat once its MAC proves the key.
"""

from __future__ import annotations

import json
import logging
import secrets
from typing import Any, Protocol

from dialbox.logbook import TokenBucket
from dialbox.phone.codes import ALPHABET, LENGTH, JoinCode, Refusal, normalise
from dialbox.sessions.keys import KEY_BYTES, KeyStore, KeyStoreError
from dialbox_protocol import codec

log = logging.getLogger("dialbox.phone")

MAX_BODY = 1024
"""Bytes of a pairing request read at all."""
MISS_RATE = 1.0
MISS_BURST = 20
"""Wrong codes a table takes: 20 at once, then one a second (a guess at 32**6 codes is
answered 429 beyond that)."""
UID_PREFIX = "ph-"

Answer = tuple[int, dict[str, Any]]
"""An HTTP status and its JSON body."""


class Seats(Protocol):
    """What pairing needs of a table (dialbox.console.Console)."""

    @property
    def name(self) -> str: ...

    def check_code(self, code: str) -> JoinCode | Refusal: ...

    def reserve(self, jc: JoinCode, uid: str) -> None: ...


def _error(status: int, text: str) -> Answer:
    return status, {"error": text}


def read_code(body: bytes) -> str | Answer:
    """The code of a pairing request's body, or the 400 that refuses it."""
    if len(body) > MAX_BODY:
        return _error(400, f"request body over {MAX_BODY} bytes: send {{\"code\": \"...\"}}")
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return _error(400, "the body is not JSON: send {\"code\": \"K7M2QX\"}")
    if not isinstance(data, dict) or not isinstance(data.get("code"), str):
        return _error(400, "the body needs a \"code\": the code the table screen shows")
    code = normalise(data["code"])
    if code is None:
        return _error(400, f"a join code has {LENGTH} characters of {ALPHABET} (no 0, O, 1 "
                           "or I)")
    return code


class Pairing:
    """Pairs phones to one table: checks codes, writes keys, reserves seats."""

    def __init__(self, seats: Seats, keys: KeyStore) -> None:
        self.seats = seats
        self.keys = keys
        self.misses = TokenBucket(MISS_RATE, MISS_BURST)
        self.paired = 0

    def pair(self, body: bytes) -> Answer:
        """Answer one `POST /phone/pair` (never raises for bad input)."""
        code = read_code(body)
        if not isinstance(code, str):
            return code
        found = self.seats.check_code(code)
        if isinstance(found, Refusal):
            if found.status == 404 and not self.misses.take():
                return _error(429, "too many wrong codes: wait a moment and type the code "
                                   "again")
            log.info("%s: pairing refused (%d): %s", self.seats.name, found.status, found.text)
            return _error(found.status, found.text)
        known = set(self.keys.uids())
        uid = UID_PREFIX + secrets.token_hex(4)
        while uid in known:
            uid = UID_PREFIX + secrets.token_hex(4)
        key = secrets.token_bytes(KEY_BYTES)
        try:
            self.keys.provision(uid, key)
        except (KeyStoreError, OSError) as e:
            log.error("%s: cannot store a phone's device key: %s", self.seats.name, e)
            return _error(500, "the host cannot store the phone's key: see its log")
        self.seats.reserve(found, uid)
        self.paired += 1
        log.info("%s: phone %s paired to seat %d", self.seats.name, uid, found.seat + 1)
        return 200, {"uid": uid, "key": codec.b64(key), "table": self.seats.name,
                     "seat": found.seat}

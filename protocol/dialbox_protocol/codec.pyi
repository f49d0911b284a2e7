# Type stub for codec.py: the codec itself carries no annotations because it also runs
# under MicroPython; this stub gives the host's strict mypy run its types.
from collections.abc import Callable
from typing import Any, Final

from dialbox_protocol.strictjson import json_strict as json_strict

PROTOCOL_VERSION: Final[int]
MAX_FRAME: Final[int]
MAX_SEQ: Final[int]
MAX_PID: Final[int]
MAX_FACES: Final[int]
WHEELS: Final[int]
NONCE_BYTES: Final[int]
COMMIT_BYTES: Final[int]
MAX_SEATS: Final[int]
CHALLENGE_BYTES: Final[int]
MAC_BYTES: Final[int]
KEY_MIN: Final[int]
KEY_MAX: Final[int]
E_CRC: Final[int]
E_FRAME: Final[int]
E_OVERSIZE: Final[int]
E_JSON: Final[int]
E_TYPE: Final[int]
E_FIELDS: Final[int]
E_VERSION: Final[int]
E_TABLE: Final[int]
E_DEVICE: Final[int]
E_STATE: Final[int]
E_PROMPT: Final[int]
E_ILLEGAL: Final[int]
E_MISMATCH: Final[int]
E_SEAT: Final[int]
E_CONFIG: Final[int]
E_DIRECTION: Final[int]
E_SPOOF: Final[int]
E_INTERNAL: Final[int]
E_AUTH: Final[int]
ERROR_NAMES: dict[int, str]
NO_SESSION: Final[str]
MESSAGES: tuple[tuple[str, str, int, tuple[tuple[str, str], ...]], ...]
STATES: tuple[str, ...]
TABLE_HASH: str
DEFAULT_FACES: tuple[tuple[tuple[str, int, str], ...], ...]

def const(x: int) -> int: ...
def _table_text() -> str: ...
def message_spec(name: str) -> tuple[str, str, int, tuple[tuple[str, str], ...]] | None: ...
def is_reliable(name: str) -> bool: ...

class DecodeError:
    code: int
    detail: str
    name: str | None
    seq: int
    field: str | None
    def __init__(
        self,
        code: int,
        detail: str,
        name: str | None = ...,
        seq: int = ...,
        field: str | None = ...,
    ) -> None: ...
    def code_name(self) -> str: ...

Decoded = dict[str, Any] | DecodeError

def crc32(data: bytes | bytearray | memoryview) -> int: ...
def dumps(v: Any) -> str: ...
def encode(
    name: str, seq: int, args: list[Any], text: Callable[[Any], str] = ..., check: bool = ...
) -> bytes: ...
def encode_dict(msg: dict[str, Any]) -> bytes: ...

def decode_frame(line: bytes | bytearray | memoryview) -> Decoded: ...
def check_wheels(wheels: list[Any]) -> str | None: ...
def check_selection(sel: list[Any]) -> str | None: ...

class FrameReader:
    buf: bytearray
    n: int
    overflow: bool
    max: int
    def __init__(self, max_frame: int = ...) -> None: ...
    def push(self, b: int) -> Decoded | None: ...
    def feed(self, data: bytes | bytearray) -> list[Decoded]: ...

def b64(data: bytes) -> str: ...
def unb64(text: str | bytes) -> bytes | None: ...
def selection_text(sel: list[int] | tuple[int, ...]) -> str: ...
def commitment(sel: list[int] | tuple[int, ...], nonce: bytes, pid: int, device: str) -> str: ...
def verify_reveal(
    commit_text: str, sel: list[int] | tuple[int, ...], nonce_text: str, pid: int, device: str
) -> bool: ...
def hmac_sha256(key: bytes, data: bytes) -> bytes: ...
def hello_mac(key: bytes, challenge: str, uid: str) -> str: ...
def device_key(text: str) -> bytes | None: ...

"""Typed, validated protocol messages for the host (pydantic v2), one model per message type."""

from __future__ import annotations

import os
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from dialbox_protocol import codec

Seq = Annotated[int, Field(ge=0, le=codec.MAX_SEQ)]
Pid = Annotated[int, Field(ge=0, le=codec.MAX_PID)]
Colour = Annotated[str, Field(pattern=r"^[0-9a-f]{6}$")]
Name = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_.-]+$")]
Commitment = Annotated[str, Field(pattern=r"^[A-Za-z0-9+/]{22}$")]
Nonce = Annotated[str, Field(pattern=r"^[A-Za-z0-9+/]{16}$")]
Challenge = Annotated[str, Field(pattern=r"^([A-Za-z0-9+/]{22})?$")]
"""identify's challenge: 16 random bytes in base64 (22 characters), or "" (none asked)."""
Mac = Annotated[str, Field(pattern=r"^([A-Za-z0-9+/]{22})?$")]
"""hello's proof of the device key (codec.hello_mac), or "" from a controller without one."""
DeviceKey = Annotated[str, Field(pattern=r"^([A-Za-z0-9+/]{22,43})?$")]
"""A device key (16-32 random bytes) in base64 without padding, or "" for none."""
State = Literal["idle", "editing", "locked", "unlocked", "alllocked", "revealed"]
FaceIndex = Annotated[int, Field(ge=-1, lt=codec.MAX_FACES)]


class Message(BaseModel):
    """Base of every protocol message; `t` names the type, `seq` is the sender's sequence."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    ok: ClassVar[bool] = True

    seq: Seq = 0

    @property
    def reliable(self) -> bool:
        return codec.is_reliable(self.type_name())

    def type_name(self) -> str:
        value: str = getattr(self, "t")  # noqa: B009 - every subclass defines t as a Literal
        return value

    def args(self) -> list[Any]:
        """Field values in the message table's order (what the codec encodes)."""
        spec = codec.message_spec(self.type_name())
        assert spec is not None
        out = []
        for f, _t in spec[3]:
            v = getattr(self, f)
            if v is None or type(v) in _SCALARS or type(v) is list:
                out.append(v)  # (lists hold only scalars, lists and tuples: no models)
            elif type(v) is tuple:
                out.append(list(v))  # nested tuples stay: both JSON encoders write arrays
            else:
                out.append(_plain(v))
        return out

    def describe(self) -> str:
        fields = self.model_dump(exclude={"t", "seq"})
        return f"{self.type_name()} seq={self.seq} {fields}"


_SCALARS = (int, str, bool)


def _plain(v: Any) -> Any:
    if isinstance(v, BaseModel):
        return v.model_dump()
    if isinstance(v, tuple | list):
        return [x if x is None or type(x) in _SCALARS else _plain(x) for x in v]
    return v


def new_challenge() -> str:
    """A fresh random challenge for an identify (codec.CHALLENGE_BYTES in base64)."""
    return codec.b64(os.urandom(codec.CHALLENGE_BYTES))


class Identify(Message):
    t: Literal["identify"] = "identify"
    proto: int = codec.PROTOCOL_VERSION
    table_hash: str = codec.TABLE_HASH
    host: Annotated[str, Field(max_length=32)] = "dialbox"
    challenge: Challenge = Field(default_factory=new_challenge)


class Hello(Message):
    t: Literal["hello"] = "hello"
    proto: int = codec.PROTOCOL_VERSION
    table_hash: str = codec.TABLE_HASH
    fw: Annotated[str, Field(min_length=1, max_length=16)]
    board: Annotated[str, Field(min_length=1, max_length=24)]
    uid: Name
    caps: list[Annotated[str, Field(max_length=16)]] = Field(default_factory=list, max_length=8)
    mac: Mac = ""


class Welcome(Message):
    t: Literal["welcome"] = "welcome"
    seat: Annotated[int, Field(ge=-1, le=5)]
    """Seat index 0-5, or -1 while the controller waits for a seat."""
    colour: Colour
    table: Name
    name: Annotated[str, Field(max_length=16)] = ""


class Snapshot(Message):
    t: Literal["snapshot"] = "snapshot"
    pid: Pid | None
    state: State
    commitment: Commitment | None = None


class Prompt(Message):
    t: Literal["prompt"] = "prompt"
    pid: Pid
    sealed: bool
    unlock: bool
    text: Annotated[str, Field(max_length=60)]
    wheels: list[Any]
    live: bool = False
    """What the controller dials is public while it is dialled (the host's own menu): it
    reports its wheels as they move (`dial`). Only for an open prompt, never a sealed one."""

    @model_validator(mode="after")
    def _live_only_open(self) -> Prompt:
        if self.live and self.sealed:
            raise ValueError(
                "a live prompt must be open (sealed=false): a sealed choice is never shown "
                "while it is dialled"
            )
        return self

    @field_validator("wheels")
    @classmethod
    def _wheels(cls, v: list[Any]) -> list[Any]:
        bad = codec.check_wheels(v)
        if bad is not None:
            raise ValueError(bad)
        for w in v:
            if w is not None and w[0] is not None:
                for f in w[0]:
                    if len(f[0]) > 8 or not all(c in "0123456789abcdef" for c in f[2]):
                        raise ValueError("face labels are at most 8 characters, colours rrggbb")
        return v


class Status(Message):
    t: Literal["status"] = "status"
    pid: Pid | None
    state: State


class Commit(Message):
    t: Literal["commit"] = "commit"
    pid: Pid
    commitment: Commitment


class Uncommit(Message):
    t: Literal["uncommit"] = "uncommit"
    pid: Pid


SeatIndex = Annotated[int, Field(ge=0, lt=codec.MAX_SEATS)]


class AllLocked(Message):
    t: Literal["alllocked"] = "alllocked"
    pid: Pid
    commits: list[tuple[SeatIndex, Commitment]] = Field(
        default_factory=list, max_length=codec.MAX_SEATS
    )
    """Every committed seat's commitment, [seat, commitment], by seat: each controller
    checks its own is there before it reveals, and keeps the others to verify `revealed`."""


class Reveal(Message):
    t: Literal["reveal"] = "reveal"
    pid: Pid
    sel: tuple[FaceIndex, FaceIndex, FaceIndex]
    nonce: Nonce


class Dial(Message):
    t: Literal["dial"] = "dial"
    pid: Pid
    sel: tuple[FaceIndex, FaceIndex, FaceIndex]
    """The controller's current selection on a live prompt, as its wheels move (unreliable:
    the next one, or the reveal, supersedes a lost one)."""


class Revealed(Message):
    t: Literal["revealed"] = "revealed"
    pid: Pid
    choices: list[tuple[Annotated[int, Field(ge=0, le=5)], Annotated[str, Field(max_length=24)]]]
    summary: Annotated[str, Field(max_length=120)]
    reveals: list[tuple[SeatIndex, tuple[FaceIndex, FaceIndex, FaceIndex], Nonce, Name]] = Field(
        default_factory=list, max_length=codec.MAX_SEATS
    )
    """[seat, sel, nonce, uid] of each answer the controllers can check against its
    commitment (`codec.commitment(sel, nonce, pid, uid)`; a bot's uid is `bot-<seat>`):
    every seat's for a sealed or open decision, the seat's own only for a private one, none
    for a void or a seat that took the game's default."""


class Headline(Message):
    t: Literal["headline"] = "headline"
    text: Annotated[str, Field(max_length=60)]
    """Where the table's game stands, for a controller between its own prompts ("Round 2
    Adventure: Blue's turn"); "" clears it."""


class SeatView(Message):
    t: Literal["seatview"] = "seatview"
    view: Annotated[str, Field(min_length=2, max_length=900)]
    """The seat's own view as compact JSON text (an object): its private part of the game's
    view for this seat, never another seat's (docs/protocol.md). Sent only to a controller
    whose hello lists the `seatview` capability (the phone controller page)."""


class Ping(Message):
    t: Literal["ping"] = "ping"
    ms: Annotated[int, Field(ge=0, lt=1 << 30)] = 0
    """Sender's clock in milliseconds modulo 2**30; the pong echoes it."""


class Pong(Message):
    t: Literal["pong"] = "pong"
    ms: Annotated[int, Field(ge=0, lt=1 << 30)] = 0


class Error(Message):
    t: Literal["error"] = "error"
    code: Annotated[int, Field(ge=1, le=255)]
    detail: Annotated[str, Field(max_length=80)]
    ref: Seq = 0

    @property
    def code_name(self) -> str:
        return codec.ERROR_NAMES.get(self.code, "error")


class Config(Message):
    t: Literal["config"] = "config"
    device: Name
    colour: Colour
    ssid: Annotated[str, Field(max_length=32)] = ""
    psk: Annotated[str, Field(max_length=63)] = ""
    broker: Annotated[str, Field(max_length=64)] = ""
    port: Annotated[int, Field(ge=0, le=65535)] = 1883
    user: Annotated[str, Field(max_length=32)] = ""
    password: Annotated[str, Field(max_length=64)] = ""
    table: Name = "table1"
    key: DeviceKey = ""


class Ack(Message):
    t: Literal["ack"] = "ack"
    ref: Annotated[int, Field(ge=1, le=codec.MAX_SEQ)]


AnyMessage = Annotated[
    Identify
    | Hello
    | Welcome
    | Snapshot
    | Prompt
    | Status
    | Commit
    | Uncommit
    | AllLocked
    | Reveal
    | Dial
    | Revealed
    | Headline
    | SeatView
    | Ping
    | Pong
    | Error
    | Config
    | Ack,
    Field(discriminator="t"),
]

"""The daemon's TOML config file, validated with pydantic into clear, located errors."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from dialbox.displays.ledstrip import LedStripConfig
from dialbox.displays.show import ScreenConfig
from dialbox.engine.errors import EngineError
from dialbox.engine.registry import canonical_name, game_info
from dialbox.runner import TableSettings

Name = str


class ConfigError(Exception):
    """The config file is missing, not TOML, or breaks the schema; the message says where."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class HostSection(_Strict):
    name: str = Field("dialbox", min_length=1, max_length=32)
    journal: str = "dialbox-journal.sqlite"
    log_level: Literal["debug", "info", "warning", "error"] = "info"
    keys: str | None = None
    """The device key store (default: `keys` next to the journal); written by `dialbox
    firmware provision --config FILE`."""
    require_keys: bool = True
    """Refuse a controller whose uid has no device key (off: admit it unauthenticated; a
    uid that has a key must prove it either way)."""
    workers: int | None = Field(None, ge=1, le=256)
    """Worker processes `dialbox run` spreads the tables over (`--workers N` overrides it;
    default: one per core with [mqtt], 1 without; never more than tables). docs/host.md,
    "Worker processes"."""

    def keys_path(self) -> Path:
        return Path(self.keys) if self.keys else Path(self.journal).parent / "keys"


class UsbDevice(_Strict):
    vid: int = Field(ge=0, le=0xFFFF)
    pid: int = Field(ge=0, le=0xFFFF)
    serial_number: str | None = None


class SerialSection(_Strict):
    enabled: bool = True
    ports: list[str] = Field(default_factory=list)
    """Explicit paths or globs: /dev/serial/by-id/usb-MicroPython*, pty symlinks, ..."""
    usb: list[UsbDevice] | None = None
    """USB devices that are controllers (default: RP2040 MicroPython and ESP32-S3 CDC)."""


class MqttSection(_Strict):
    host: str = "localhost"
    """One broker, or the nodes of a clustered one: "pi1,pi2:1884" (or use `hosts`)."""
    port: int = Field(1883, ge=1, le=65535)
    """The port of every node given without one."""
    hosts: list[str] = Field(default_factory=list)
    """The nodes of a clustered broker, each "host" or "host:port", tried in this order:
    the hub connects to the first and moves to the next whenever its connection fails or
    is lost (docs/host.md, "Venue"). Given, it fills `host` (comma-separated), which must
    then be left out."""
    user: str | None = None
    password: str | None = None
    tls_ca: str | None = None
    keepalive: int = Field(10, ge=5, le=60)
    user_per_table: bool = True
    """Log in to table T as `<user>-<table>` (as `dialbox broker config` writes them: the
    broker binds client ids to users, so each table's connection needs a user of its own).
    Off: every table's connection logs in as `user`."""

    @model_validator(mode="before")
    @classmethod
    def _hosts_into_host(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("hosts"):
            hosts = data["hosts"]
            if isinstance(hosts, list) and all(isinstance(h, str) for h in hosts):
                joined = ",".join(h.strip() for h in hosts)
                if data.get("host", joined) != joined:  # (a dumped model holds both)
                    raise ValueError("give either host or hosts, not both")
                data = {**data, "host": joined}
        return data

    @field_validator("host")
    @classmethod
    def _nodes_parse(cls, v: str) -> str:
        from dialbox.transports.mqtt import parse_nodes

        parse_nodes(v, 1883)  # ValueError names the bad node
        return v

    def nodes(self) -> list[tuple[str, int]]:
        """(host, port) of each broker node, in order (one for a single broker)."""
        from dialbox.transports.mqtt import parse_nodes

        return parse_nodes(self.host, self.port)

    def user_for(self, table: str) -> str | None:
        if self.user is None or not self.user_per_table:
            return self.user
        return f"{self.user}-{table}"


class TableSection(_Strict):
    name: str = Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_.-]+$")
    game: str | None = Field(None, min_length=1)
    """The table's first game (none: the table starts in its menu, docs/host.md "The
    console")."""
    players: int | None = Field(None, ge=1, le=6)
    """Players of the first game (required with `game`)."""
    menu: bool = True
    """After a game the table goes to its menu, where the controllers choose the next one
    (false: the table stays finished, as dialbox before 0.x did)."""
    seats: int | None = Field(None, ge=1, le=6)
    """Controllers at the table, if not one per player (Pixoid with 3 players: 4)."""
    seed: int = 0
    options: dict[str, Any] = Field(default_factory=dict)
    bots: list[int] = Field(default_factory=list)
    """Seats (1-based, as printed on the table) that bots take from the start."""
    fill_with_bots: bool = False
    controllers: list[str] = Field(default_factory=list)
    teams: list[str] = Field(default_factory=list)
    """Team of each seat in order ("" for none), e.g. ["red", "red", "blue", "blue"]."""
    roles: list[str] = Field(default_factory=list)
    """Role of each seat in order ("" for none), shown on displays."""
    bot: str | None = None
    """Bot kind for bot seats (default: the game's heuristic bot, else random)."""
    pairing: Literal["press", "auto"] = "press"
    prompt_timeout: float | None = Field(None, gt=0)
    reveal_timeout: float = Field(30.0, gt=0)

    @field_validator("game")
    @classmethod
    def _registered_name(cls, v: str | None) -> str | None:
        """Another spelling (trialofthegods) stands for the registered name, which the
        journal and the table's state keep."""
        return None if v is None else canonical_name(v)

    @model_validator(mode="after")
    def _bots_fit(self) -> TableSection:
        if self.game is None:
            unused = [k for k in ("players", "seats", "teams", "roles", "bots", "bot",
                                  "options") if getattr(self, k)]
            if unused:
                raise ValueError(f"{', '.join(unused)} need a game: a table without one "
                                 "starts in its menu, where its players choose")
            return self
        if self.players is None:
            raise ValueError(f"players: how many play {self.game}? (required with game)")
        try:
            info = game_info(self.game)
            info.check_players(self.players)
            seats = self.seats or info.seats(
                {"players": self.players, "seed": self.seed, **self.options})
            info.bot(self.bot)  # "pixoid has no bot 'genius'; bots: ..."
        except EngineError as e:
            raise ValueError(str(e)) from None
        for what, values in (("teams", self.teams), ("roles", self.roles)):
            if len(values) > seats:
                raise ValueError(f"{what} lists {len(values)} seats, the table has {seats}")
        for b in self.bots:
            if not 1 <= b <= seats:
                raise ValueError(f"bot seat {b} is not a seat of a {seats}-seat table")
        return self

    def check(self) -> None:
        """Set the table's game up once, as its runner will (ConfigError naming the table
        if the game refuses its options): beyond the schema's checks, so `dialbox run`
        (and `--check`) calls it before it writes anything."""
        if self.game is None:
            return
        info = game_info(self.game)
        options = self.settings().options_with_players
        try:
            info.seat_teams(options)
            info.game(options)
        except EngineError as e:
            raise ConfigError(f"table {self.name}: {e}") from None

    def settings(self) -> TableSettings:
        return TableSettings(
            name=self.name, game=self.game or "", players=self.players or 0, seats=self.seats,
            seed=self.seed,
            options=dict(self.options), bots=[b - 1 for b in self.bots],
            fill_with_bots=self.fill_with_bots, controllers=list(self.controllers),
            teams=list(self.teams), roles=list(self.roles), bot=self.bot,
            pairing=self.pairing, prompt_timeout=self.prompt_timeout,
            reveal_timeout=self.reveal_timeout,
        )


class DaemonConfig(_Strict):
    """The whole file: [host], [serial], [mqtt] (optional) and one [[tables]] per table."""

    host: HostSection = Field(default_factory=HostSection)
    serial: SerialSection = Field(default_factory=SerialSection)
    mqtt: MqttSection | None = None
    tables: list[TableSection] = Field(min_length=1)
    display: ScreenConfig = Field(default_factory=ScreenConfig)
    """[display]: the web table screen and terminal view (dialbox.displays)."""
    ledstrip: LedStripConfig = Field(default_factory=LedStripConfig)
    """[ledstrip]: the LED strip of the first table (dialbox.displays)."""

    @model_validator(mode="after")
    def _unique_tables(self) -> DaemonConfig:
        names = [t.name for t in self.tables]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"table names must be unique: {', '.join(sorted(dup))}")
        return self


def parse_config(data: dict[str, Any], source: str = "config") -> DaemonConfig:
    try:
        return DaemonConfig.model_validate(data)
    except ValidationError as e:
        lines = []
        for err in e.errors():
            where = ".".join(str(p) for p in err["loc"]) or "(top level)"
            lines.append(f"  {where}: {err['msg']}")
        raise ConfigError(f"{source}: invalid config:\n" + "\n".join(lines)) from None


def load_config(path: str | Path) -> DaemonConfig:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"{p}: cannot read the config file ({e.strerror})") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{p}: not a text file ({e.reason} at byte {e.start})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: not valid TOML: {e}") from None
    return parse_config(data, str(p))


EXAMPLE = """\
# dialbox daemon config (dialbox run --config FILE)
[host]
name = "living-room"
journal = "/var/lib/dialbox/journal.sqlite"
# keys = "/var/lib/dialbox/keys"   # device keys (default: next to the journal)
# require_keys = true              # refuse controllers not paired with `firmware provision`
# workers = 2                      # processes (default: one per core with [mqtt], else 1)

[serial]
# USB controllers are found by VID/PID; add explicit ports or globs if needed.
ports = ["/dev/serial/by-id/usb-MicroPython*"]

# [mqtt]
# host = "localhost"
# port = 1883
# hosts = ["pi1:1883", "pi2:1883", "pi3:1883"]   # or: the nodes of a clustered broker
# user = "host"       # table T logs in as "host-T" (user_per_table = true, the default)
# password = "from dialbox broker config"

[[tables]]
name = "table1"
game = "pixoid"     # the first game; leave game and players out to start in the menu
players = 4
bots = [4]          # seat 4 is a bot
pairing = "press"   # a new controller presses its button to take the next free seat
menu = true         # after a game the controllers choose the next one (docs/host.md)

[display]           # the table screen: http://<pi>:8080/ (kiosk: see docs/displays.md)
host = "0.0.0.0"
port = 8080
terminal = true     # live view of seats, locks and results on this console

[ledstrip]          # WS2812 strip of the first table (pip install -e '.[pi]')
backend = "neopixel"   # or "sim" (drawn on the table screen) or "none"
pin = "D18"
pixels = 60
brightness = 0.5
"""

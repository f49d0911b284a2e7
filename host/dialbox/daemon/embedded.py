"""The embedded default: the daemon, simulated controllers and bots for one table on one machine."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import importlib.util
import logging
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from dialbox.broker import write_broker_config
from dialbox.daemon.config import parse_config
from dialbox.daemon.daemon import Daemon
from dialbox.doubles import ControllerDouble
from dialbox.engine.registry import game_info
from dialbox.processes import stop_process
from dialbox.sessions.keys import KeyStore

log = logging.getLogger("dialbox.demo")

TABLE = "demo"


class SimulatedController(Protocol):
    uid: str


@dataclass(slots=True)
class DemoSummary:
    game: str
    seed: int
    players: int
    controllers: list[str]
    transport: str
    runtime: str
    prompts: int
    seconds: float
    result: dict[str, Any] | None
    reveal_ms: list[float] = field(default_factory=list)
    restarts: list[str] = field(default_factory=list)
    """Simulated controllers whose firmware process stopped and was powered on again."""
    controller_play: str = "bot"
    """How simulated controllers chose: "bot" (hands dial the seat bot's answer) or "random"."""
    voided: list[str] = field(default_factory=list)
    """Why prompts were voided and asked again (e.g. a reveal refused by a cross-wheel rule)."""
    refused: list[str] = field(default_factory=list)
    """Controllers' reveals the host refused (reveal_mismatch, illegal_choice)."""

    def to_json(self) -> dict[str, Any]:
        times = sorted(self.reveal_ms)
        p50 = times[len(times) // 2] if times else None
        return {
            "game": self.game, "seed": self.seed, "players": self.players,
            "controllers": self.controllers, "transport": self.transport,
            "runtime": self.runtime, "prompts": self.prompts,
            "seconds": round(self.seconds, 3), "result": _seats_from_one(self.result),
            "reveal_p50_ms": None if p50 is None else round(p50, 3),
            "controller_restarts": self.restarts,
            "controller_play": self.controller_play,
            "refused_reveals": len(self.refused), "voided_prompts": len(self.voided),
            "void_reasons": self.voided[:20],
        }


def _seats_from_one(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """A game's result with its seats numbered from 1, as every text says them ("seat 4
    wins"): scores by seat number, the winners' seat numbers. (The game's own details,
    numbered its own way, stay in the journal.)"""
    if result is None:
        return None
    return {
        "text": result["text"],
        "winners": [seat + 1 for seat in result["winners"]],
        "scores": {str(int(seat) + 1): points for seat, points in result["scores"].items()},
    }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def mosquitto(conf_dir: Path, uids: list[str], table: str = TABLE,
                    admin: bool = False) -> AsyncIterator[tuple[int, dict[str, str], int]]:
    """A real Mosquitto on an ephemeral port with a generated ACL config: (port, creds, pid)."""
    exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not Path(exe).exists():
        raise RuntimeError("mosquitto is not installed (apt-get install mosquitto)")
    port = free_port()
    files = write_broker_config(conf_dir, {table: uids}, port=port, bind="127.0.0.1",
                                admin_user="admin" if admin else None)
    proc = subprocess.Popen([exe, "-c", str(files.conf)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        await wait_port(port)
        yield port, files.credentials, proc.pid
    finally:
        stop_process(proc, 5)


@contextlib.asynccontextmanager
async def embedded_broker() -> AsyncIterator[int]:
    """A pure-Python broker (amqtt) in this process, anonymous, for the demo only: no
    per-controller users or ACLs (use Mosquitto with `dialbox broker config` for those)."""
    try:
        broker_mod = importlib.import_module("amqtt.broker")
    except ImportError:
        raise RuntimeError(
            "no MQTT broker: install Mosquitto (apt-get install mosquitto) or the embedded "
            "one (pip install 'dialbox[broker]')") from None
    port = free_port()
    broker = broker_mod.Broker({
        "listeners": {"default": {"type": "tcp", "bind": f"127.0.0.1:{port}"}},
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin":
                    {"allow_anonymous": True}},
    })
    await broker.start()
    try:
        yield port
    finally:
        await broker.shutdown()


def mosquitto_installed() -> bool:
    return shutil.which("mosquitto") is not None or Path("/usr/sbin/mosquitto").exists()


def demo_broker(broker: str) -> str:
    """The broker a demo over MQTT starts for `broker` ("auto": Mosquitto if installed):
    "mosquitto" or "embedded"; RuntimeError (one line) if that one is not installed."""
    if broker == "mosquitto" or (broker == "auto" and mosquitto_installed()):
        if not mosquitto_installed():
            raise RuntimeError("mosquitto is not installed (apt-get install mosquitto, or "
                               "--broker embedded)")
        return "mosquitto"
    if importlib.util.find_spec("amqtt") is None:
        raise RuntimeError(
            "no MQTT broker: install Mosquitto (apt-get install mosquitto) or the embedded "
            "one (pip install 'dialbox[broker]')")
    return "embedded"


async def wait_port(port: int, tries: int = 200) -> None:
    """Bounded retries until something listens on 127.0.0.1:port."""
    for _ in range(tries):
        try:
            _r, w = await asyncio.open_connection("127.0.0.1", port)
            w.close()
            return
        except OSError:
            await asyncio.sleep(0.025)
    raise RuntimeError(f"nothing listens on port {port}")


def firmware_sim_available() -> bool:
    return importlib.util.find_spec("dialbox.sim") is not None


async def run_demo(
    game: str = "pixoid",
    players: int = 4,
    controllers: int | None = None,
    seed: int = 1,
    transport: str = "serial",
    runtime: str = "micropython",
    options: dict[str, Any] | None = None,
    broker: str = "auto",
    on_state: Callable[[dict[str, Any]], None] | None = None,
    timeout: float = 600.0,
    on_runner: Callable[[Any], None] | None = None,
    controller_play: str = "bot",
    hand_pause: float = 0.0,
) -> DemoSummary:
    """Play one full game: the daemon, `controllers` simulated controllers, bots elsewhere.

    controller_play "bot": a `dialbox.sim.hand.Hand` turns each simulated controller's wheels
    to its seat bot's answer and locks (pausing `hand_pause` s between actions); "random":
    the firmware's own auto player dials random allowed faces (rules spanning wheels may
    then refuse reveals and void prompts). The protocol double always plays by itself.
    """
    if controller_play not in ("bot", "random"):
        raise ValueError(f"controller_play is 'bot' or 'random', not {controller_play!r}")
    seats = game_info(game).seats({"players": players, "seed": seed, **(options or {})})
    n = seats if controllers is None else min(controllers, seats)
    uids = [f"sim{i + 1}" for i in range(n)]
    with tempfile.TemporaryDirectory(prefix="dialbox-demo-") as tmp:
        work = Path(tmp)
        async with contextlib.AsyncExitStack() as stack:
            table: dict[str, Any] = {
                "name": TABLE, "game": game, "players": players, "seats": seats, "seed": seed,
                "options": options or {}, "bots": list(range(n + 1, seats + 1)),
                "controllers": uids, "pairing": "press",
                "menu": False,  # the demo is one game: it ends with it
            }
            cfg: dict[str, Any] = {
                "host": {"name": "demo", "journal": str(work / "journal.sqlite")},
                "tables": [table],
            }
            mqtt: dict[str, Any] | None = None
            if transport == "mqtt":
                if demo_broker(broker) == "mosquitto":
                    port, creds, _pid = await stack.enter_async_context(
                        mosquitto(work / "broker", uids))
                    transport = "mqtt (mosquitto)"
                else:
                    port = await stack.enter_async_context(embedded_broker())
                    creds = {u: "" for u in [*uids, "host"]}
                    transport = "mqtt (embedded amqtt)"
                cfg["serial"] = {"enabled": False}
                cfg["mqtt"] = {"host": "127.0.0.1", "port": port, "user": "host",
                               "password": creds["host"]}
                mqtt = {"host": "127.0.0.1", "port": port, "table": TABLE, "passwords": creds}
            else:
                cfg["serial"] = {"ports": [str(work / "links" / "*")], "usb": []}
            for uid in uids:  # paired before the daemon starts (docs/host.md, Device identity)
                KeyStore(work / "keys").ensure(uid)
            daemon = Daemon(parse_config(cfg, "demo"))
            runner = daemon.runners[TABLE]
            if on_state is not None:  # the retained state's JSON (docs/host.md)
                runner.feed.listen(lambda st: on_state(st.model_dump(mode="json")))
            if on_runner is not None:  # the displays follow the table (dialbox.displays)
                on_runner(runner)
            task = asyncio.create_task(daemon.run())
            started = time.perf_counter()
            sims: list[Any] = []
            used_runtime = runtime
            restarts: list[str] = []
            watchdog: asyncio.Task[None] | None = None
            hands: list[asyncio.Task[None]] = []
            try:
                if mqtt is not None:
                    await asyncio.wait_for(daemon.hubs[TABLE].connected.wait(), 10)
                sims, used_runtime = await _start_controllers(
                    stack, uids, work, runtime, mqtt, seed, auto=controller_play == "random")
                if used_runtime != "double" and controller_play == "bot":
                    hands = _start_hands(sims, runner, seed, hand_pause)
                watchdog = asyncio.create_task(_keep_powered(sims, restarts))
                if daemon.watcher is not None:
                    daemon.watcher.watch(str(work / "flash" / "*" / "tty"))
                try:
                    await asyncio.wait_for(runner.finished.wait(), timeout)
                except TimeoutError:
                    box = runner.box
                    waiting = [s + 1 for s in box.waiting_for] if box is not None else []
                    raise TimeoutError(
                        f"the game did not finish within {timeout:.0f} s "
                        f"({runner.game.decided} decisions; waiting for seats {waiting}; "
                        f"seats online {[s.index + 1 for s in runner.table.seats if s.online]})"
                    ) from None
            finally:
                if watchdog is not None:
                    watchdog.cancel()
                for hand in hands:
                    hand.cancel()
                await asyncio.gather(*hands, return_exceptions=True)
                daemon.stop()
                await task
            result = runner.game.result
            return DemoSummary(
                game=game, seed=seed, players=players, controllers=uids,
                transport=transport, runtime=used_runtime,
                prompts=runner.game.decided,
                seconds=time.perf_counter() - started,
                result=result.to_json() if result else None,
                reveal_ms=[t * 1000 for t in runner.reveal_times],
                restarts=restarts,
                controller_play="random" if used_runtime == "double" else controller_play,
                voided=[e.text for e in runner.events if e.kind == "prompt.void"],
                refused=list(runner.refused_reveals),
            )


async def _keep_powered(sims: list[Any], restarts: list[str]) -> None:
    """Power a simulated controller on again if its firmware process stops (its flash is
    kept, so it resumes its seat and any sealed choice, as a real one would)."""
    while True:
        await asyncio.sleep(1.0)
        for sim in sims:
            if getattr(sim, "running", True):
                continue
            log.warning("simulated controller %s stopped; powering it on again. Its log: %s",
                        sim.uid, sim.log_tail(5) or "(empty)")
            restarts.append(sim.uid)
            await asyncio.to_thread(sim.kill)
            await asyncio.to_thread(sim.start)


async def _start_controllers(
    stack: contextlib.AsyncExitStack, uids: list[str], work: Path, runtime: str,
    mqtt: dict[str, Any] | None, seed: int, auto: bool = True,
) -> tuple[list[Any], str]:
    """The real firmware (dialbox.sim) when it is installed, else the protocol double."""
    sims: list[Any] = []
    # pairing: each simulated controller gets a device key in the daemon's key store (`keys`
    # next to the demo's journal), as `dialbox firmware provision` gives a real one
    keys = KeyStore(work / "keys")
    if runtime != "double" and firmware_sim_available():
        sim_mod = importlib.import_module("dialbox.sim")
        for uid in uids:
            kw: dict[str, Any] = {"runtime": runtime, "auto": auto,
                                  "state_dir": work / "flash" / uid, "key": keys.ensure(uid)}
            (work / "flash" / uid).mkdir(parents=True, exist_ok=True)
            if mqtt is not None:
                m = _mqtt_for(mqtt, uid)
                kw.update(link="mqtt", mqtt=sim_mod.MqttSettings(
                    host=m["host"], port=m["port"], table=m["table"], user=uid,
                    password=m["password"]))
            sim = sim_mod.SimController(uid, **kw)
            sims.append(sim)
        await asyncio.gather(*(asyncio.to_thread(sim.start) for sim in sims))
        for sim in sims:
            stack.push_async_callback(asyncio.to_thread, sim.stop)
        return sims, runtime
    for i, uid in enumerate(uids):
        double = ControllerDouble(uid, auto=True, seed=seed * 100 + i,
                                  link_dir=work / "links", key=keys.ensure(uid),
                                  mqtt=None if mqtt is None else _mqtt_for(mqtt, uid))
        await double.start()
        stack.push_async_callback(double.stop)
        sims.append(double)
    return sims, "double"


def _start_hands(sims: list[Any], runner: Any, seed: int,
                 pause: float) -> list[asyncio.Task[None]]:
    """One hand per simulated controller, playing for its seat with the table's bot kind."""
    from dialbox.sim.hand import Hand, RunnerSeat

    seat = RunnerSeat(runner)
    return [
        asyncio.create_task(Hand(sim, seat, runner.bot_factory(seed * 31 + 1000 + i),
                                 pause=pause, seed=seed * 100 + i).run(),
                            name=f"hand-{sim.uid}")
        for i, sim in enumerate(sims)
    ]


def _mqtt_for(mqtt: dict[str, Any], uid: str) -> dict[str, Any]:
    return {"host": mqtt["host"], "port": mqtt["port"], "table": mqtt["table"], "user": uid,
            "password": mqtt["passwords"][uid]}

"""Every bad input gets one clear line: every sub-command of `dialbox`, run as a new user
would run it (a real process, its own working directory and HOME), with arguments, files
and configs it must refuse. For each: exactly one non-empty line on stderr, naming the
command and the problem; no traceback; exit status 2 (1 where the command had started);
nothing written to stdout, and no file created anywhere the test can see."""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from dialbox.daemon.config import EXAMPLE


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple[str, ...]
    said: str
    """What the one line on stderr must contain ({in}: the inputs directory)."""
    status: int = 2


def case(id: str, argv: str | list[str], said: str, status: int = 2) -> Case:
    return Case(id, tuple(argv.split() if isinstance(argv, str) else argv), said, status)


HAS_NEOPIXEL = importlib.util.find_spec("neopixel") is not None

CASES = [
    # ---- the parser itself: one line, with where to look
    case("unknown-command", "nosuch", "argument COMMAND: invalid choice: 'nosuch'"),
    case("unknown-option", "--nope", "dialbox: unrecognized arguments: --nope "
         "(see dialbox --help)"),
    # ---- run
    case("run-no-config", "run", "dialbox run: --config FILE is required"),
    case("run-missing-config", "run -c /nonexistent/dialbox.toml",
         "/nonexistent/dialbox.toml: cannot read the config file (No such file"),
    case("run-config-is-a-dir", "run -c {in}", "cannot read the config file (Is a directory)"),
    case("run-binary-config", "run -c {in}/binary.toml", "binary.toml: not a text file"),
    case("run-not-toml", "run --check -c {in}/not-toml.toml", "not valid TOML"),
    case("run-players", "run -c {in}/pipcycle4.toml", "pipcycle is for 2-3 players, not 4"),
    case("run-check-players", "run --check -c {in}/pipcycle4.toml",
         "pipcycle is for 2-3 players, not 4"),
    case("run-unknown-game", "run -c {in}/nosuch-game.toml", "unknown game 'nosuch'"),
    case("run-check-unknown-game", "run --check -c {in}/nosuch-game.toml",
         "unknown game 'nosuch'"),
    case("run-option", "run -c {in}/bad-option.toml", "nosuch: Extra inputs are not permitted"),
    case("run-check-option", "run --check -c {in}/bad-option.toml",
         "nosuch: Extra inputs are not permitted"),
    case("run-bot", "run -c {in}/bad-bot.toml", "pixoid has no bot 'genius'"),
    case("run-check-bot", "run --check -c {in}/bad-bot.toml", "pixoid has no bot 'genius'"),
    case("run-bad-number", "run --check -c {in}/bad-number.toml", "tables.0.players"),
    case("run-screen-port-in-use", "run -c {in}/busy-port.toml",
         "the table screen of t cannot listen on 127.0.0.1:{busy} (in use by another program)"),
    case("run-journal-place", "run -c {in}/journal-in-a-file.toml",
         "cannot create the journal {in}/a-file/journal.sqlite: {in}/a-file is not a "
         "directory"),
    case("run-broken-keys", "run -c {in}/broken-keys.toml", "broken-keys, line 1"),
    case("run-tls-ca", "run -c {in}/tls-ca.toml", "[mqtt] tls_ca /nonexistent/ca.pem: no such "
         "file"),
    case("run-check-tls-ca", "run --check -c {in}/tls-ca.toml", "[mqtt] tls_ca /nonexistent"),
    case("run-workers", "run --workers abc -c {in}/pipcycle4.toml",
         "--workers takes a whole number"),
    case("run-worker", "run --worker 1", "--worker is started by `dialbox run` itself"),
    *([] if HAS_NEOPIXEL else [
        case("run-example-without-the-strip", "run -c {in}/example.toml",
             "[ledstrip] backend \"neopixel\" cannot drive WS2812 pixels here"),
        case("run-check-example-without-the-strip", "run --check -c {in}/example.toml",
             "[ledstrip] backend \"neopixel\" cannot drive WS2812 pixels here"),
    ]),
    # ---- demo: nothing printed (no screen address) before the error
    case("demo-players", "demo --players 99", "dialbox demo: pixoid is for 3-4 players, not 99"),
    case("demo-pipcycle-players", "demo --game pipcycle --players 4",
         "pipcycle is for 2-3 players, not 4"),
    case("demo-unknown-game", "demo --game nosuch", "unknown game 'nosuch'; known games:"),
    case("demo-not-a-number", "demo --players x", "argument --players: invalid int value: 'x'"),
    case("demo-controllers", "demo --controllers -1", "--controllers -1"),
    case("demo-pace", "demo --pace -1", "--pace -1.0: seconds, 0 or more"),
    case("demo-screen-port", "demo --screen-port 70000", "--screen-port 70000: not a port"),
    case("demo-screen-port-in-use", "demo --screen-port {busy}", "in use by another program"),
    case("demo-transport", "demo --transport pigeon", "argument --transport: invalid choice"),
    # ---- screen
    case("screen-rehearse-pipcycle", "screen --rehearse pipcycle --players 4",
         "dialbox screen: pipcycle is for 2-3 players, not 4"),
    case("screen-players-99", "screen --players 99", "pixoid is for 3-4 players, not 99"),
    case("screen-players-7", "screen --players 7", "pixoid is for 3-4 players, not 7"),
    case("screen-unknown-game", "screen --rehearse nosuch", "unknown game 'nosuch'"),
    case("screen-port", "screen --port 99999", "--port 99999: not a port"),
    case("screen-port-in-use", "screen --port {busy}", "in use by another program"),
    case("screen-linger", "screen --linger -5", "--linger -5.0: seconds, 0 or more"),
    # ---- devices
    case("devices-no-such-port", "devices /dev/ttyNOPE", "dialbox devices: /dev/ttyNOPE: no "
         "such port"),
    case("devices-glob-matches-nothing", "devices {in}/tty-*", "{in}/tty-*: no port matches"),
    case("devices-config-without-mqtt", "devices --config {in}/pipcycle2.toml",
         "has no [mqtt] section"),
    case("devices-missing-config", "devices --config /nonexistent.toml", "cannot read"),
    case("devices-timeout", "devices --timeout 0", "--timeout 0.0: seconds, more than 0"),
    # ---- broker (its own checks; the parser's errors are one line like every command's)
    case("broker-no-command", "broker", "dialbox broker: which command? config"),
    case("broker-config-missing-options", "broker config",
         "the following arguments are required: --out, --table"),
    case("broker-config-bad-table", ["broker", "config", "--out", "b", "--table", "bad name"],
         "expected NAME=UID,UID"),
    case("broker-config-bad-port", "broker config --out b --table t=a --port abc",
         "argument --port: invalid int value: 'abc'"),
    # ---- protocol
    case("protocol-unknown-option", "protocol --nope",
         "dialbox protocol: unrecognized arguments: --nope"),
    # ---- play (stdin is empty: a human seat meets the end of input)
    case("play-no-game", "play", "the following arguments are required: game"),
    case("play-unknown-game", "play nosuch", "dialbox play: unknown game 'nosuch'"),
    case("play-players", "play pipcycle --humans 0 --bots 4", "pipcycle is for 2-3 players"),
    case("play-humans", "play pixoid --humans -1", "--humans and --bots count players"),
    case("play-bot", "play pixoid --bot genius", "pixoid has no bot 'genius'"),
    case("play-option", "play pixoid -o grid", "--option wants KEY=VALUE, not 'grid'"),
    case("play-option-value", "play pipcycle -o grid=x", "grid: Input should be a valid integer"),
    case("play-missing-load", "play pixoid --load /nonexistent.json",
         "cannot read /nonexistent.json"),
    case("play-broken-load", "play pixoid --load {in}/not-json.json", "is not a saved game"),
    case("play-missing-position", "play pixoid --position /nonexistent.json", "cannot read"),
    case("play-save-nowhere", "play pixoid --save /nonexistent/dir/game.json",
         "--save /nonexistent/dir/game.json: no directory /nonexistent/dir"),
    case("play-end-of-input", "play pixoid", "end of input: the game stops after 0 "
         "decision(s)", status=1),
    # ---- sim: checked before any controller starts
    case("sim-missing-script", "sim --script /nonexistent.txt",
         "dialbox sim: /nonexistent.txt: cannot read the script (No such file or directory)"),
    case("sim-unknown-command", "sim --script {in}/dance.txt",
         "dance.txt:2: unknown command 'dance'"),
    case("sim-bad-number", "sim --script {in}/bad-turn.txt",
         "bad-turn.txt:1: 'turn left 2': expected turn WHEEL DETENTS [bounce]"),
    case("sim-count", "sim --count 0", "--count 0: controllers, 1 or more"),
    case("sim-board", "sim --board nosuchboard", "--board 'nosuchboard': unknown board; boards:"),
    case("sim-broker", "sim --link mqtt --broker localhost:port", "--broker 'localhost:port'"),
    case("sim-uid", ["sim", "--uid", "a b"], "--uid 'a b'"),
    case("sim-interactive", "sim -i", "--interactive needs a terminal"),
    case("sim-runtime", "sim --runtime java", "argument --runtime: invalid choice: 'java'"),
    # ---- firmware
    case("firmware-no-action", "firmware",
         "dialbox firmware: which action? build, deploy, hardware, provision"),
    case("firmware-build-board", "firmware build --board nosuchboard",
         "dialbox firmware build: unknown board 'nosuchboard'; boards: "),
    case("firmware-deploy-board", "firmware deploy --board nosuchboard --port /dev/ttyNOPE",
         "unknown board 'nosuchboard'; boards: "),
    case("firmware-deploy-port", "firmware deploy --board pico_w --port /dev/ttyNOPE",
         "dialbox firmware deploy: /dev/ttyNOPE: no such port"),
    case("firmware-deploy-no-board", "firmware deploy --port /dev/ttyNOPE",
         "the following arguments are required: --board"),
    case("firmware-provision-port", "firmware provision --port /dev/ttyNOPE --device c1 "
         "--no-key", "/dev/ttyNOPE: no such port"),
    case("firmware-provision-device", ["firmware", "provision", "--port", "/dev/ttyNOPE",
                                       "--device", "bad id", "--no-key"], "--device 'bad id'"),
    case("firmware-provision-colour", "firmware provision --port /dev/ttyNOPE --device c1 "
         "--colour red --no-key", "--colour 'red': a colour rrggbb"),
    case("firmware-provision-config", "firmware provision --port /dev/ttyNOPE --device c1 "
         "--config /nonexistent.toml", "/nonexistent.toml: cannot read the config file"),
    case("firmware-provision-no-key-choice", "firmware provision --port /dev/ttyNOPE "
         "--device c1", "one of the arguments --config --keys --no-key is required"),
    case("firmware-provision-port-number", "firmware provision --port /dev/ttyNOPE --device c1 "
         "--no-key --mqtt-port 0", "--mqtt-port 0: not a port"),
    # ---- audit
    case("audit-no-journal", "audit", "the following arguments are required: JOURNAL"),
    case("audit-missing", "audit /nonexistent.sqlite", "/nonexistent.sqlite: no such file"),
    case("audit-not-a-journal", "audit {in}/not-json.json", "not a dialbox journal"),
    case("audit-a-directory", "audit {in}", "not a file"),
]

CONFIGS = {
    "pipcycle2.toml": '[[tables]]\nname = "t"\ngame = "pipcycle"\nplayers = 2\n',
    "pipcycle4.toml": '[[tables]]\nname = "t"\ngame = "pipcycle"\nplayers = 4\n',
    "nosuch-game.toml": '[[tables]]\nname = "t"\ngame = "nosuch"\nplayers = 2\n',
    "bad-option.toml": '[[tables]]\nname = "t"\ngame = "pipcycle"\nplayers = 2\n'
                       "options = { nosuch = 1 }\n",
    "bad-bot.toml": '[[tables]]\nname = "t"\ngame = "pixoid"\nplayers = 4\nbot = "genius"\n',
    "bad-number.toml": '[[tables]]\nname = "t"\ngame = "pixoid"\nplayers = "four"\n',
    "not-toml.toml": "[[tables]\nname = 't'\n",
    "busy-port.toml": '[host]\njournal = "{in}/j/journal.sqlite"\n[display]\nhost = '
                      '"127.0.0.1"\nport = {busy}\n[ledstrip]\nbackend = "none"\n[[tables]]\n'
                      'name = "t"\ngame = "pipcycle"\nplayers = 2\n',
    "journal-in-a-file.toml": '[host]\njournal = "{in}/a-file/journal.sqlite"\n[display]\n'
                              'web = false\n[[tables]]\nname = "t"\ngame = "pipcycle"\n'
                              "players = 2\n",
    "broken-keys.toml": '[host]\njournal = "{in}/j/journal.sqlite"\nkeys = "{in}/broken-keys"'
                        '\n[display]\nweb = false\n[[tables]]\nname = "t"\ngame = "pipcycle"'
                        "\nplayers = 2\n",
    "tls-ca.toml": '[mqtt]\nhost = "127.0.0.1"\ntls_ca = "/nonexistent/ca.pem"\n[display]\n'
                   'web = false\n[[tables]]\nname = "t"\ngame = "pipcycle"\nplayers = 2\n',
    "example.toml": EXAMPLE,
    "dance.txt": "# a script\ndance\n",
    "bad-turn.txt": "turn left 2\n",
    "not-json.json": "{not json",
    "broken-keys": "a not-a-key\n",
    "a-file": "",
}


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@dataclass
class Ran:
    status: int
    out: str
    err: str
    created: list[str]


def run_case(c: Case, inputs: Path, busy: int, home: Path) -> Ran:
    cwd, tmp = home / "cwd", home / "tmp"
    for d in (cwd, tmp):
        d.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(HOME=str(home), TMPDIR=str(tmp), COLUMNS="100", PYTHONDONTWRITEBYTECODE="1")
    argv = [a.replace("{in}", str(inputs)).replace("{busy}", str(busy)) for a in c.argv]
    proc = subprocess.run([sys.executable, "-m", "dialbox", *argv], cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=120)
    created = [f for f in listing(home) if f not in ("cwd", "tmp")]
    return Ran(proc.returncode, proc.stdout, proc.stderr, created)


@dataclass
class Batch:
    inputs: Path
    busy: int
    ran: dict[str, Ran]

    def said(self, c: Case) -> str:
        return c.said.replace("{in}", str(self.inputs)).replace("{busy}", str(self.busy))


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Batch]:
    """Every case run once, in parallel (each process spends most of its second importing)."""
    root = tmp_path_factory.mktemp("bad-input")
    inputs = root / "inputs"
    inputs.mkdir()
    with socket.socket() as held:  # a port another program listens on
        held.bind(("127.0.0.1", 0))
        held.listen()
        busy = held.getsockname()[1]
        for name, text in CONFIGS.items():
            (inputs / name).write_text(text.replace("{in}", str(inputs))
                                       .replace("{busy}", str(busy)))
        (inputs / "binary.toml").write_bytes(b"\xff\xfe\x00[[tables]]")
        before = listing(inputs)
        var_lib = Path("/var/lib/dialbox").exists()
        with ThreadPoolExecutor(max_workers=min(8, 2 * (os.cpu_count() or 1))) as pool:
            futures = {c.id: pool.submit(run_case, c, inputs, busy, root / "homes" / c.id)
                       for c in CASES}
            ran = {id: f.result() for id, f in futures.items()}
    assert listing(inputs) == before, "a bad input wrote next to the inputs"
    assert Path("/var/lib/dialbox").exists() == var_lib, "the example's journal was made"
    yield Batch(inputs, busy, ran)


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_a_bad_input_is_one_line_on_stderr(batch: Batch, c: Case) -> None:
    r = batch.ran[c.id]
    lines = [line for line in r.err.splitlines() if line.strip()]
    assert "Traceback" not in r.err + r.out, r.err
    assert len(lines) == 1, r.err
    assert lines[0].startswith("dialbox"), lines[0]
    assert batch.said(c) in lines[0]
    assert r.status == c.status, (r.status, r.err)
    if c.id != "play-end-of-input":  # (its board and prompt, then the end of input)
        assert r.out == "", r.out
    assert r.created == [], f"created {r.created}"


PAIRS = [(f"run-{what}", f"run-check-{what}") for what in (
    "players", "unknown-game", "option", "bot", "tls-ca",
    *([] if HAS_NEOPIXEL else ["example-without-the-strip"]))]


@pytest.mark.parametrize(("run", "check"), PAIRS, ids=[p[0] for p in PAIRS])
def test_check_fails_with_the_line_run_would_give(batch: Batch, run: str, check: str) -> None:
    assert batch.ran[run].err == batch.ran[check].err
    assert batch.ran[run].status == batch.ran[check].status == 2


def test_check_may_run_beside_the_daemon(tmp_path: Path) -> None:
    """`run --check` checks the config, not what only a start needs: the screen's port held
    by the running daemon is no error there (and it writes nothing either)."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        conf = tmp_path / "busy.toml"
        conf.write_text(CONFIGS["busy-port.toml"].replace("{in}", str(tmp_path))
                        .replace("{busy}", str(held.getsockname()[1])))
        proc = subprocess.run([sys.executable, "-m", "dialbox", "run", "--check", "-c",
                               str(conf)], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"{conf}: ok (1 table(s))\n", "")
    assert listing(tmp_path) == ["busy.toml"]


def test_a_closed_stdout_ends_the_command_quietly() -> None:
    """`dialbox protocol --table | head -5`: no BrokenPipeError, the status of a Unix tool
    stopped by SIGPIPE (128 + 13)."""
    proc = subprocess.Popen([sys.executable, "-m", "dialbox", "protocol", "--table"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader has gone before the first line is written
    err = proc.stderr.read()
    assert proc.wait(60) == 141
    assert err == b""


def test_a_configured_port_that_is_not_there_is_said_once_and_awaited(tmp_path: Path) -> None:
    """Hot-plug: the port may appear later, so `run` keeps running; one log line says the
    configured port and glob match nothing yet."""
    conf = tmp_path / "d.toml"
    conf.write_text(f'[host]\njournal = "{tmp_path}/journal.sqlite"\n[serial]\nports = '
                    f'["/dev/ttyNOPE", "{tmp_path}/tty-*"]\n[display]\nweb = false\n'
                    'terminal = false\n[ledstrip]\nbackend = "none"\n[[tables]]\nname = "t"'
                    '\ngame = "pipcycle"\nplayers = 2\n')
    proc = subprocess.Popen([sys.executable, "-m", "dialbox", "run", "-c", str(conf)],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stderr is not None
    try:
        lines: list[str] = []
        while not any("match nothing yet" in line for line in lines):
            line = proc.stderr.readline()
            assert line, f"dialbox run ended: {lines}"
            lines.append(line)
        time.sleep(1.0)
        assert proc.poll() is None  # still waiting for the controllers
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    said = [line for line in [*lines, *err.splitlines()] if "/dev/ttyNOPE" in line]
    assert len(said) == 1 and f"{tmp_path}/tty-*" in said[0], said
    assert "Traceback" not in "".join(lines) + err


def test_the_demo_prints_one_compact_json_line_with_seats_from_1(
        capsys: pytest.CaptureFixture[str]) -> None:
    from dialbox.cli import main
    from tests.host.games import DUEL

    assert main(["demo", "--game", DUEL, "--players", "2", "--runtime", "double",
                 "--seed", "3", "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and ": " not in out and ", " not in out.split('"text"')[0]
    summary = json.loads(out)
    result = summary["result"]
    assert set(result["scores"]) == {"1", "2"}
    assert result["winners"] and set(result["winners"]) <= {1, 2}
    best = max(result["scores"].values())
    assert all(result["scores"][str(w)] == best for w in result["winners"])

"""`dialbox firmware`: bundles per board, deploy through mpremote, provisioning over the pty."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from dialbox.cli import main
from dialbox.firmware_tools import bundle, deploy
from dialbox.firmware_tools.provision import ProvisionError, Provisioning, provision
from dialbox.sim import SimController

BUDGET = 48 * 1024


@pytest.mark.parametrize("board", bundle.boards())
def test_board_bundle_is_mpy_within_budget_without_sim_parts(board: str, tmp_path: Path) -> None:
    b = bundle.build(board, tmp_path / board)
    assert "main.py" in b.files and "board.json" in b.files
    assert "dialbox_protocol/codec.mpy" in b.files
    assert "dialbox_protocol/strictjson.mpy" in b.files
    assert not any("virtual" in f or f.endswith("sim.mpy") for f in b.files)
    assert all(f.endswith(".mpy") for f in b.files if f not in ("main.py", "board.json"))
    assert json.loads((b.root / "board.json").read_text())["board"] == board
    assert b.total_bytes <= BUDGET


def test_build_cli_prints_every_board(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["firmware", "build", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for board in bundle.boards():
        assert board in out


def test_deploy_copies_every_file_with_progress_then_resets(tmp_path: Path) -> None:
    b = bundle.build("pico_w", tmp_path / "b")
    fake = tmp_path / "mpremote"
    log = tmp_path / "argv.json"
    fake.write_text(
        "import json, sys\n"
        f"json.dump(sys.argv[1:], open({str(log)!r}, 'w'))\n"
        "args = sys.argv[1:]\n"
        "for i, a in enumerate(args):\n"
        "    if a == 'cp':\n"
        "        print('cp', args[i + 1], args[i + 2])\n"
    )
    seen: list[tuple[int, int, str]] = []
    status = deploy.deploy(
        b, "/dev/ttyACM9", lambda d, t, n: seen.append((d, t, n)), [sys.executable, str(fake)]
    )
    assert status == 0
    assert [d for d, _, _ in seen] == list(range(1, len(b.files) + 1))
    assert {n for _, _, n in seen} == set(b.files)
    argv = json.loads(log.read_text())
    assert argv[:3] == ["connect", "/dev/ttyACM9", "exec"]
    assert argv[-2:] == ["+", "reset"]


@pytest.mark.parametrize("runtime", ["micropython", "cpython"])
def test_provision_writes_a_checked_config(runtime: str, tmp_path: Path) -> None:
    with SimController("fresh", runtime=runtime, state_dir=tmp_path) as sim:  # type: ignore[arg-type]
        # a broker makes the rebooted controller start its MQTT link too, which needs more
        # than the 96 KB pty heap on the 64-bit unix port: only CPython gets one here
        broker = "10.0.0.2" if runtime == "cpython" else ""
        p = Provisioning(device="ctrl-7", colour="e53935", broker=broker, table="den")
        hello = provision(sim.device_path, p)
        assert hello["uid"] == "fresh"
        cfg = json.loads((tmp_path / "config.json").read_text())
        assert cfg["device"] == "ctrl-7" and cfg["broker"] == broker and cfg["table"] == "den"
        with pytest.raises(ProvisionError, match="colour"):
            provision(sim.device_path, Provisioning(device="ctrl-7", colour="red"))
        assert json.loads((tmp_path / "config.json").read_text())["colour"] == "e53935"

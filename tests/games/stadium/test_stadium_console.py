"""The terminal runner: bots only, and a human seat typing answers (with a refused one)."""

from __future__ import annotations

from dialbox.engine import CENTRE, RIGHT
from dialbox.games.stadium.__main__ import main, parse, run
from dialbox.games.stadium.game import Stadium


def test_bots_only_game_prints_a_result(capsys: object) -> None:
    assert main(["--players", "6", "--seed", "4"]) == 0
    text = capsys.readouterr().out  # type: ignore[attr-defined]
    assert text.count("\n== Trial ") == 10
    assert "Team wins" in text or "draw" in text


def test_human_seat_typing_answers() -> None:
    lines: list[str] = []
    typed: list[str] = []

    def read(prompt: str) -> str:
        # First answer is refused (not a face); then the default (empty line), except for
        # dice, which have none: type the first face shown.
        typed.append(prompt)
        if len(typed) == 1:
            return "Z"
        if "Roll the" in prompt:
            return prompt.split("[centre: ", 1)[1].split()[0].rstrip("]")
        return ""

    game = run(4, 2, {0}, physical=True, read=read, out=lines.append)
    assert game.over and len(game.history) == 10
    assert any("is not a face here" in line for line in lines)
    assert all(p.startswith("seat 1 ") for p in typed)


def test_parse_tokens() -> None:
    game = Stadium({"players": 4, "track": ["taekwondo"], "first_player": 0})
    d = game.pending
    assert d is not None
    ask = d.ask_for(0)
    assert parse(ask, "7")[CENTRE] == 7 and parse(ask, "")[CENTRE] == 0
    game.apply({s: (-1, 1, -1) for s in range(4)})
    d = game.pending
    assert d is not None
    sel = parse(d.ask_for(0), "A+@2")
    assert sel[RIGHT] == 0 and sel[CENTRE] == 2

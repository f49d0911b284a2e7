"""PIP Cycle scenarios from the rulebook, run from the data files in scenarios/*.toml.

A scenario starts from its options (options.position: a PipCyclePosition; without one the
usual seeded setup), answers each pending decision in turn and checks the state after steps.
Answers are written in the game's words:

- place: a start point ("c1");
- play: a card ("5H"), "keep 3C" (two riders, three cards: the card kept), or "play" when
  every card must be played (the single face naming the cards; "play 5H 3C" checks it);
- assign: a card and the rider's point ("5H c4");
- match: "move" or "suit";
- move: a Movement program as the wheel labels it, with an optional end turn ("FF", "FLF R",
  "F!"; end turns "-", "L", "R", "U");
- "first": the first allowed face of every wheel (whatever the prompt).

Steps may also check the faces offered (`left`/`centre`/`right`: exact labels per seat;
`offers`/`not_offered`: labels on the prompt's main wheel), answers that must be refused
(`illegal`: seat -> [answer, reason]) and the state after (`expect`). `[[auto]]` blocks play
whole rounds by a policy per seat ("safe": never crash if a safe Movement exists, take the
suit power on a rank match; "crash": crash at the first chance).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from dialbox.engine import INACTIVE, IllegalChoice, Selection
from dialbox.engine.decisions import Ask
from dialbox.games.pipcycle import PipCycle

HERE = Path(__file__).parent / "scenarios"
FILES = sorted(HERE.glob("*.toml"))
ENDS = {"-": 0, "ahead": 0, "L": 1, "R": 2, "U": 3}
MAIN = {"pipcycle.place": 1, "pipcycle.play": 1, "pipcycle.assign": 0, "pipcycle.match": 1,
        "pipcycle.move": 0}


def labels(ask: Ask, wheel: int) -> list[str]:
    w = ask.wheels[wheel]
    return [] if w is None else [f.label for f in w.faces]


def first(ask: Ask) -> Selection:
    a, b, c = (INACTIVE if w is None else w.choices[0] for w in ask.wheels)
    return (a, b, c)


def index(ask: Ask, wheel: int, label: str) -> int:
    faces = labels(ask, wheel)
    assert label in faces, f"{label!r} is not offered on {ask.topic} ({faces})"
    return faces.index(label)


def selection(game: PipCycle, seat: int, text: str) -> Selection:
    d = game.pending
    assert d is not None, "the game is over"
    ask = d.ask_for(seat)
    words = text.split()
    if text == "first":
        return first(ask)
    if ask.topic == "pipcycle.place":
        return (INACTIVE, index(ask, 1, text), INACTIVE)
    if ask.topic == "pipcycle.play":
        faces = labels(ask, 1)
        if words[0] == "play":
            assert len(faces) == 1 and ask.text.startswith("Play your card"), \
                f"{text!r}: this hand is not played whole ({faces})"
            assert len(words) == 1 or " ".join(words[1:]) == faces[0], \
                f"{text!r} but the face is {faces[0]!r}"
            return (INACTIVE, 0, INACTIVE)
        if words[0] == "keep":
            # each face is the cards played; the one without the kept card keeps it
            assert " of your " in ask.text, f"{text!r}: the prompt is {ask.text!r}"
            assert words[1] in game.hands[seat], f"{text!r}: not in {game.hands[seat]}"
            return (INACTIVE, game.hands[seat].index(words[1]), INACTIVE)
        assert ask.text == "Play 1 card face down", f"{text!r}: the prompt is {ask.text!r}"
        return (INACTIVE, index(ask, 1, text), INACTIVE)
    if ask.topic == "pipcycle.assign":
        card, point = words
        riders = [label.split()[0] for label in labels(ask, 2)]
        assert point in riders, f"no rider on {point} to choose ({riders})"
        return (index(ask, 0, card), INACTIVE, riders.index(point))
    if ask.topic == "pipcycle.match":
        return (INACTIVE, {"move": 0, "suit": 1}[text], INACTIVE)
    assert ask.topic == "pipcycle.move", ask
    end = 0
    if len(words) > 1 and words[-1] in ENDS:
        end = ENDS[words.pop()]
    program = " ".join(words)
    faces = labels(ask, 0)
    if program not in faces and program + "!" in faces:
        program += "!"
    return (index(ask, 0, program), INACTIVE, end)


def answers(game: PipCycle, raw: dict[str, str]) -> dict[int, Selection]:
    return {int(s): selection(game, int(s), a) for s, a in raw.items()}


def policy_answer(game: PipCycle, ask: Ask, how: str) -> Selection:
    if ask.topic == "pipcycle.match":
        return (INACTIVE, 0 if how == "crash" else 1, INACTIVE)
    if ask.topic == "pipcycle.move":
        faces = labels(ask, 0)
        crash = [i for i, f in enumerate(faces) if f.endswith("!")]
        safe = [i for i in range(len(faces)) if i not in crash]
        pick = crash if how == "crash" else safe
        return ((pick or safe or crash)[0], INACTIVE, 0)
    return first(ask)


def rider_text(r: dict[str, Any]) -> str:
    return f"{r['seat']} {r['at']} {r['facing']} {r['pips']}"


def line_text(ln: list[int]) -> str:
    x1, y1, x2, y2, seat = ln
    return f"{chr(97 + x1)}{y1 + 1}-{chr(97 + x2)}{y2 + 1} {seat}"


def check(game: PipCycle, expect: dict[str, Any], where: str) -> None:
    snap = game.snapshot()
    kinds = [e.kind for e in game.events]
    for key, want in expect.items():
        if key == "events":
            for k in want:
                assert k in kinds, f"{where}: no {k} event in {kinds}"
        elif key == "no_events":
            for k in want:
                assert k not in kinds, f"{where}: unexpected {k} event"
        elif key == "over":
            assert game.over == want, where
        elif key == "winners":
            assert game.result is not None and game.result.winners == want, where
        elif key == "pending":
            d = game.pending
            assert d is not None and d.asks[0].topic == want[0] and list(d.seats) == want[1], \
                f"{where}: pending {d}"
        elif key == "riders":
            got = [rider_text(r) for r in snap["riders"]]
            assert sorted(got) == sorted(want), f"{where}: riders {got}, expected {want}"
        elif key == "lines":
            got = [line_text(ln) for ln in snap["lines"]]
            assert sorted(got) == sorted(want), f"{where}: lines {got}, expected {want}"
        elif key == "hands":
            hands = [sorted(h) for h in snap["hands"]]
            assert hands == [sorted(h) for h in want], f"{where}: hands {hands}, expected {want}"
        elif key == "played":
            assert sorted(snap["played"]) == sorted(want), f"{where}: played {snap['played']}"
        elif key == "pile_size":
            assert len(snap["pile"]) == want, f"{where}: pile {snap['pile']}"
        elif key in ("winner", "order"):
            assert snap["check"] is not None and snap["check"][key] == want, \
                f"{where}: card check {snap['check']}"
        elif key == "resolved":
            got = [f"{r['seat']} {r['card']} {r['how']}" for r in snap["resolved"]]
            assert got == want, f"{where}: resolved {got}, expected {want}"
        elif key == "crashes":
            got = [f"{c['seat']} {c['cause']} {'-' if c['by'] is None else c['by']}"
                   for c in snap["crashes"]]
            assert got == want, f"{where}: crashes {got}, expected {want}"
        elif key == "path":
            assert snap["last_move"] is not None and snap["last_move"]["path"] == want, \
                f"{where}: last move {snap['last_move']}"
        elif key == "score":
            assert [len(t) for t in snap["trophies"]] == want, f"{where}: {snap['trophies']}"
        else:
            assert snap[key] == want, f"{where}: {key} is {snap[key]}, expected {want}"


def check_faces(game: PipCycle, step: dict[str, Any], where: str) -> None:
    d = game.pending
    assert d is not None
    for key, wheel in (("left", 0), ("centre", 1), ("right", 2)):
        for seat, want in step.get(key, {}).items():
            got = labels(d.ask_for(int(seat)), wheel)
            assert got == want, f"{where}: seat {seat} {key} wheel {got}, expected {want}"
    for seat, want in step.get("offers", {}).items():
        ask = d.ask_for(int(seat))
        got = labels(ask, MAIN[ask.topic])
        missing = [w for w in want if w not in got]
        assert not missing, f"{where}: {missing} not offered in {got}"
    for seat, want in step.get("not_offered", {}).items():
        ask = d.ask_for(int(seat))
        got = labels(ask, MAIN[ask.topic])
        there = [w for w in want if w in got]
        assert not there, f"{where}: {there} offered in {got}"


def make(data: dict[str, Any]) -> PipCycle:
    options = dict(data["options"])
    position = options.pop("position", None)
    if position is None:
        return PipCycle(options)
    game = PipCycle.from_position(options, position)
    assert isinstance(game, PipCycle)
    return game


def run_step(game: PipCycle, step: dict[str, Any], where: str) -> None:
    d = game.pending
    assert d is not None, f"{where}: the game is over"
    if "topic" in step:
        assert {a.topic for a in d.asks} == {step["topic"]}, f"{where}: {d.asks}"
    check_faces(game, step, where)
    for seat, (text, reason) in step.get("illegal", {}).items():
        trial = dict(answers(game, step["answers"]))
        trial[int(seat)] = selection(game, int(seat), text)
        with pytest.raises(IllegalChoice, match=reason):
            game.apply(trial)
    mark = len(game.events)
    game.apply(answers(game, step["answers"]))
    expect = step.get("expect", {})
    if expect:
        saved = game.events
        game.events = saved[mark:] if "events" in expect or "no_events" in expect else saved
        try:
            check(game, expect, where)
        finally:
            game.events = saved


def run_auto(game: PipCycle, block: dict[str, Any], where: str) -> None:
    """Play out the current round by the block's policies, then check its expectations."""
    policy = {int(s): how for s, how in block["policy"].items()}
    start, mark = game.round, len(game.events)
    for _ in range(2000):
        d = game.pending
        if d is None or game.round != start:
            break
        game.apply({a.seat: policy_answer(game, a, policy[a.seat]) for a in d.asks})
    else:
        pytest.fail(f"{where}: round {start} did not end")
    saved = game.events
    game.events = saved[mark:]
    try:
        check(game, block.get("expect", {}), where)
    finally:
        game.events = saved


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path) -> None:
    data = tomllib.loads(path.read_text())
    game = make(data)
    check(game, data.get("start", {}), f"{path.stem} start")
    for i, step in enumerate(data.get("step", [])):
        run_step(game, step, f"{path.stem} step {i + 1}")
    for i, block in enumerate(data.get("auto", [])):
        run_auto(game, block, f"{path.stem} auto round {i + 1}")
    check(game, data.get("end", {}), f"{path.stem} end")
    again = PipCycle.from_json(game.to_json())
    assert again.state_hash() == game.state_hash()


def test_every_scenario_names_its_rule() -> None:
    assert len(FILES) >= 30
    for path in FILES:
        data = tomllib.loads(path.read_text())
        assert data.get("rule"), f"{path.name} must say which rule it checks"
        assert data.get("title"), f"{path.name} needs a title"

"""Trial of the Gods as a companion game: the whole flow on the controllers, from the scenarios
in scenarios/flow/*.toml.

A scenario has a `title`, the `rule` it shows (in our words), `[options]` (the game's options;
`physical_dice = true` lets the file dial every die) and `[[step]]`s. A step's `do` lists one
line per decision, answering the pending prompt in the game's words:

    "Red: done"                       one seat (Red, Blue, Green, Yellow)
    "Red: done; Blue: track"          several seats of one sealed decision
    "Red, Blue: damage 0"             the same answer for several seats
    "all: fervor 0"                   every seat the decision asks
    "Red: track Spend 9 + -> refused: cannot spend 9 Energy"   must be refused with that reason
    "Red: upgrade attack -> not offered"    the prompt has no such face

What each prompt takes (the leading word names the prompt, so a file out of step fails at once):

    trial.done            done | track [ITEM N +/-]
    trial.turn            end | pass | fight [ENEMY] | track [ITEM N +/-]
    trial.track           track ITEM N +/-         (ITEM: a wheel label or a key, e.g. Spend)
    trial.olympics_card   choose CARD
    trial.enemy           enemy NAME | enemy other
    trial.enemy_numbers   enemy ATTACK DICE monster|argonaut|inj-mon|inj-arg
    trial.laurels         laurels N
    trial.attack          attack N [free] [extra M]
    trial.temple          upgrade KEY              (attack, discovery, fervor, energy, ...)
    dice.die              roll FACE                (1, 2, 3, activ)
    trial.enemy_damage    damage N
    trial.fervor_bonus    fervor N
    trial.competition     competition A [B] numbers|effect   (one number per discipline symbol,
                          or their sum when the card has more than two)
    trial.effect          numbers | effect N
    trial.skills          skills N
    trial.tiebreak        total N
    trial.restore         restore N
    trial.count           count LAURELS ANIMAE

"fight ENEMY" and "track ITEM N +/-" at a turn or done prompt also answer the prompt that
follows (which Enemy; which track). "auto to ROUND PHASE" (or "auto to end") answers with a
quiet policy until that phase is reached: Olympics cards the first offered, done, pass, no
Damage, Fervor bonus and skills 0, seat s dials (s + round) % players + 1 on the first
discipline symbol in each Competition (no ties), restore 0.

`[step.expect]` is checked after the step's lines; see `check` for the keys. Every Olympics
card prompt met is also checked to be a private decision of the last player in Initiative.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from dialbox.engine import CENTRE, INACTIVE, LEFT, RIGHT, IllegalChoice, Selection
from dialbox.engine.decisions import Ask
from dialbox.engine.errors import InvalidOptions
from dialbox.games.trial_of_the_gods import TrialOfTheGods
from dialbox.games.trial_of_the_gods import tracks as T
from dialbox.games.trial_of_the_gods.game import PHASES, SEAT_NAMES, UPGRADE_LABELS

HERE = Path(__file__).parent / "scenarios" / "flow"
FILES = sorted(HERE.glob("*.toml"))
SEATS = {name.lower(): i for i, name in enumerate(SEAT_NAMES)}
KEYWORDS = {
    "trial.track": "track", "trial.olympics_card": "choose", "trial.enemy": "enemy",
    "trial.enemy_numbers": "enemy", "trial.attack": "attack", "trial.temple": "upgrade",
    "trial.enemy_damage": "damage", "trial.fervor_bonus": "fervor",
    "trial.competition": "competition", "trial.skills": "skills", "trial.tiebreak": "total",
    "trial.restore": "restore", "trial.count": "count", "trial.laurels": "laurels",
}
NUMBERS = {"trial.enemy_damage", "trial.fervor_bonus", "trial.skills", "trial.tiebreak",
           "trial.restore", "trial.laurels"}
AUTO_LIMIT = 2000


def load(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        return tomllib.load(f)


def seat_of(name: str) -> int:
    assert name.lower() in SEATS, f"unknown seat {name!r} ({', '.join(SEAT_NAMES)})"
    return SEATS[name.lower()]


def name_of(seat: int | None) -> str:
    return "none" if seat is None else SEAT_NAMES[seat]


def labels(ask: Ask, wheel: int) -> list[str]:
    w = ask.wheels[wheel]
    return [] if w is None else [f.label for f in w.faces]


def face(ask: Ask, wheel: int, label: str) -> int:
    faces = labels(ask, wheel)
    low = [f.lower() for f in faces]
    assert label.lower() in low, f"{label!r} is not offered on {ask.topic} ({faces})"
    return low.index(label.lower())


def value(ask: Ask, wheel: int, n: int) -> int:
    w = ask.wheels[wheel]
    assert w is not None, f"{ask.topic}: wheel {wheel} is not used"
    for i, f in enumerate(w.faces):
        if f.value == n and f.label == str(n):
            return i
    raise AssertionError(f"{ask.topic}: no face {n} ({[f.label for f in w.faces]})")


def number(word: str) -> int:
    assert word.lstrip("-").isdigit(), f"a number was expected, not {word!r}"
    return int(word)


# ---------------------------------------------------------------------- answers


def selection(game: TrialOfTheGods, ask: Ask, text: str) -> tuple[Selection, str | None]:
    """The selection `text` means for `ask`, and the text that answers the next prompt of the
    same seat (a combined "fight Hydra" or "track Spend 2 +"), if any."""
    words = text.split()
    topic = ask.topic
    key = KEYWORDS.get(topic)
    if key is not None:
        assert words and words[0] == key, f"{topic} is asked, not {text!r} ({key} ...)"
        words = words[1:]
    if topic in ("trial.done", "trial.turn"):
        what = words[0]
        follow = " ".join(words) if len(words) > 1 else None
        if what == "fight" and follow is not None:
            follow = "enemy " + " ".join(words[1:])
        return (INACTIVE, face(ask, CENTRE, what), INACTIVE), follow
    if topic in NUMBERS:
        assert len(words) == 1, f"{topic}: one number, not {text!r}"
        return (INACTIVE, value(ask, CENTRE, number(words[0])), INACTIVE), None
    if topic == "trial.track":
        item, amount, sign = words
        keys = [i.key for i in T.ITEMS]
        idx = keys.index(item.lower()) if item.lower() in keys else face(ask, LEFT, item)
        return (idx, face(ask, CENTRE, amount), face(ask, RIGHT, sign)), None
    if topic == "trial.olympics_card":
        name = " ".join(words)
        shown = labels(ask, CENTRE)
        matches = [i for i, lab in enumerate(shown) if name.startswith(lab) or lab == name]
        assert len(matches) == 1, f"{name!r} is not one of the two cards drawn ({shown})"
        return (INACTIVE, matches[0], INACTIVE), None
    if topic == "trial.enemy":
        name = " ".join(words)
        names = [e.name.lower() for e in game.pack.enemies]
        if name.lower() == "other":
            return (INACTIVE, face(ask, CENTRE, "other"), INACTIVE), None
        assert name.lower() in names, f"{name!r} is not an Enemy of the pack ({names})"
        return (INACTIVE, names.index(name.lower()), INACTIVE), None
    if topic == "trial.enemy_numbers":
        attack, dice, kind = words
        return (value(ask, LEFT, number(attack)), value(ask, CENTRE, number(dice)),
                face(ask, RIGHT, kind)), None
    if topic == "trial.attack":
        attack = number(words[0])
        free = "free" in words
        extra = number(words[words.index("extra") + 1]) if "extra" in words else 0
        return (1 if free else 0, value(ask, CENTRE, attack), value(ask, RIGHT, extra)), None
    if topic == "trial.temple":
        (key_,) = words
        assert key_ in T.UPGRADES, f"unknown Upgrade {key_!r} ({T.UPGRADES})"
        return (INACTIVE, face(ask, CENTRE, UPGRADE_LABELS[key_]), INACTIVE), None
    if topic.startswith("dice."):
        assert words[0] == "roll", f"{topic} is asked, not {text!r} (roll ...)"
        return (INACTIVE, face(ask, CENTRE, words[1]), INACTIVE), None
    if topic == "trial.competition":
        *values, how = words
        syms = 1 if ask.wheels[CENTRE] is None else 2
        assert len(values) == syms, f"the card asks {syms} number(s), not {text!r}"
        left = value(ask, LEFT, number(values[0]))
        centre = INACTIVE if syms == 1 else value(ask, CENTRE, number(values[1]))
        return (left, centre, face(ask, RIGHT, how)), None
    if topic == "trial.effect":
        if words == ["numbers"]:
            return (INACTIVE, 0, INACTIVE), None
        assert words[0] == "effect", f"trial.effect: numbers or effect N, not {text!r}"
        return (INACTIVE, value(ask, CENTRE, number(words[1])), INACTIVE), None
    if topic == "trial.count":
        laurels, animae = words
        return (INACTIVE, value(ask, CENTRE, number(laurels)),
                value(ask, RIGHT, number(animae))), None
    raise AssertionError(f"no answer syntax for {topic}")


class Runner:
    """Plays a scenario's lines and records what the step asked and emitted."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.game = TrialOfTheGods(options)
        self.asked: list[tuple[str, str]] = []
        self.choices: list[str] = []
        self.start = 0

    def next_step(self) -> None:
        """A step sees the events and prompts since the previous step's checks."""
        self.asked = []
        self.choices = []
        self.start = len(self.game.events)

    def note(self) -> None:
        """Record the pending decision's asks (and check who chooses the Olympics card)."""
        g = self.game
        d = g.pending
        assert d is not None
        for ask in d.asks:
            who = SEAT_NAMES[ask.seat]
            if ask.topic == "trial.tiebreak":
                who += " " + ask.text.split()[-1]
            self.asked.append((ask.topic, who))
            if ask.topic == "trial.olympics_card":
                assert d.kind == "private" and d.seats == (g.initiative[-1],), \
                    f"the Olympics card is chosen privately by the last in Initiative: {d}"
                self.choices.append(f"{g.round} {who}")

    def apply(self, answers: dict[int, Selection], follow: dict[int, str], where: str) -> None:
        self.note()
        self.game.apply(answers)
        for seat, text in follow.items():  # "fight Hydra", "track Spend 2 +"
            d = self.game.pending
            assert d is not None and d.seats == (seat,), \
                f"{where}: {text!r} follows for {SEAT_NAMES[seat]}, but {d} is pending"
            sel, more = selection(self.game, d.asks[0], text)
            assert more is None
            self.note()
            self.game.apply({seat: sel})

    def line(self, text: str, where: str) -> None:
        g = self.game
        if text.startswith("auto to "):
            self.auto(text[len("auto to "):], where)
            return
        d = g.pending
        assert d is not None, f"{where}: the game is over"
        refused = None
        if " -> refused: " in text:
            text, refused = text.split(" -> refused: ")
        if text.endswith(" -> not offered"):
            text = text.removesuffix(" -> not offered")
            who, _, answer = text.partition(":")
            s = seat_of(who.strip())
            with pytest.raises(AssertionError, match="is not offered"):
                selection(g, d.ask_for(s), answer.strip())
            return
        answers: dict[int, Selection] = {}
        follow: dict[int, str] = {}
        for part in text.split(";"):
            who, _, answer = part.partition(":")
            answer = answer.strip()
            seats = list(d.seats) if who.strip() == "all" else \
                [seat_of(w) for w in who.replace(",", " ").split()]
            for s in seats:
                assert s in d.seats, f"{where}: {SEAT_NAMES[s]} is not asked; pending " \
                    f"{d.asks[0].topic} for {[SEAT_NAMES[x] for x in d.seats]}"
                sel, more = selection(g, d.ask_for(s), answer)
                answers[s] = sel
                if more is not None:
                    follow[s] = more
        if refused is not None:
            assert len(answers) == 1, f"{where}: refuse one answer at a time"
            ((s, sel),) = answers.items()
            with pytest.raises(IllegalChoice) as err:
                g.check(d.ask_for(s), sel)
            assert refused in err.value.reason, \
                f"{where}: refused because {err.value.reason!r}, expected {refused!r}"
            return
        missing = set(d.seats) - set(answers)
        assert not missing, f"{where}: {d.asks[0].topic} also asks " \
            f"{[SEAT_NAMES[s] for s in sorted(missing)]}"
        self.apply(answers, follow, where)

    def auto(self, target: str, where: str) -> None:
        g = self.game
        words = target.split()
        want = ("end", "end") if words == ["end"] else (words[0], words[1])
        assert want == ("end", "end") or want[1] in PHASES, f"{where}: auto to {target!r}?"
        for _ in range(AUTO_LIMIT):
            d = g.pending
            assert d is not None, f"{where}: the game ended before {target}"
            here = ("end", "end") if g.phase == "end" else (str(g.round), g.phase)
            if here == want:
                return
            answers = {ask.seat: self.quiet(ask) for ask in d.asks}
            self.apply(answers, {}, where)
        raise AssertionError(f"{where}: {target} not reached")

    def quiet(self, ask: Ask) -> Selection:
        g = self.game
        if ask.topic == "trial.competition":
            v = (ask.seat + g.round) % g.n + 1
            centre = INACTIVE if ask.wheels[CENTRE] is None else 0
            return (v, centre, 0)
        if ask.topic == "trial.turn":
            return (INACTIVE, 1, INACTIVE)
        a, b, c = (INACTIVE if w is None else w.choices[0] for w in ask.wheels)
        return (a, b, c)


# ---------------------------------------------------------------------- expectations


def dig(record: dict[str, Any], dotted: str) -> Any:
    out: Any = record
    for part in dotted.split("."):
        assert isinstance(out, dict) and part in out, f"no {dotted!r} in {record}"
        out = out[part]
    return out


def none(v: Any) -> Any:
    return None if v == "none" else v


def check(run: Runner, expect: dict[str, Any], where: str) -> None:
    g = run.game
    snap = g.snapshot()
    events = g.events[run.start:]
    for key, want in expect.items():
        if key in ("round", "phase"):
            assert snap[key] == want, f"{where}: {key} {snap[key]!r}, expected {want!r}"
        elif key == "active":
            assert name_of(snap["active"]) == want, f"{where}: active {name_of(snap['active'])}"
        elif key in ("initiative", "passed"):
            got = [SEAT_NAMES[s] for s in snap[key]]
            assert got == want, f"{where}: {key} {got}, expected {want}"
        elif key == "revealed":
            assert snap["revealed"] == want, f"{where}: revealed {snap['revealed']}"
        elif key == "enemies":
            assert snap["enemies"] == want, f"{where}: enemies {snap['enemies']}"
        elif key == "pending":
            d = g.pending
            got = "none" if d is None else \
                f"{d.asks[0].topic}: " + ", ".join(SEAT_NAMES[s] for s in d.seats)
            assert got == want, f"{where}: pending {got!r}, expected {want!r}"
        elif key == "pending_kind":
            assert g.pending is not None and g.pending.kind == want, f"{where}: {g.pending}"
        elif key == "offer":
            chooser, *cards = want
            s = seat_of(chooser)
            assert g.view(s)["offer"] == [s, cards], f"{where}: {g.view(s)['offer']}"
            for other in [None, *(p for p in range(g.n) if p != s)]:
                assert g.view(other)["offer"] == [s, 2], \
                    f"{where}: seat {other} sees {g.view(other)['offer']}"
        elif key == "tracks":
            for name, fields in want.items():
                t = snap["tracks"][seat_of(name)]
                for k, v in fields.items():
                    assert t[k] == none(v), f"{where}: {name} {k} = {t[k]!r}, expected {v!r}"
        elif key == "fight":
            assert snap["fights"], f"{where}: no Fight yet"
            last = snap["fights"][-1]
            for k, v in want.items():
                got = dig(last, k)
                assert got == none(v), f"{where}: fight {k} = {got!r}, expected {v!r}"
        elif key == "competition":
            assert snap["competitions"], f"{where}: no Competition revealed yet"
            last = snap["competitions"][-1]
            for k, v in want.items():
                got = dig(last, k)
                if k == "choosing":
                    got = [SEAT_NAMES[s] for s in got]
                assert got == none(v), f"{where}: competition {k} = {got!r}, expected {v!r}"
        elif key == "asks":
            pending = g.view(None)["pending"]
            got = [f"{SEAT_NAMES[a['seat']]}: {a['text']}" for a in pending["asks"]]
            assert got == want, f"{where}: the screen says {got}"
        elif key == "fights":
            assert len(snap["fights"]) == want, f"{where}: {len(snap['fights'])} Fights"
        elif key == "fervor":
            ol = snap["olympics"]
            fervor = ol["fervor"] if ol is not None else snap["olympics_result"]["fervor"]
            got = {SEAT_NAMES[int(k)]: v for k, v in fervor.items()}
            assert got == want, f"{where}: Fervor {got}, expected {want}"
        elif key == "ranking":
            got = [SEAT_NAMES[s] for s in snap["olympics_result"]["ranking"]]
            assert got == want, f"{where}: Olympics ranking {got}, expected {want}"
        elif key == "awards":
            got = [f"{SEAT_NAMES[a['seat']]} #{a['place']}: {a['prize']}"
                   for a in snap["olympics_result"]["awards"]]
            assert got == want, f"{where}: awards {got}"
        elif key == "asked":
            for topic, seats in want.items():
                got = [who for t, who in run.asked if t == topic]
                assert got == seats, f"{where}: {topic} asked of {got}, expected {seats}"
        elif key == "not_asked":
            for topic in want:
                got = [who for t, who in run.asked if t == topic]
                assert not got, f"{where}: {topic} was asked of {got}"
        elif key == "card_choices":
            assert run.choices == want, f"{where}: Olympics cards chosen by {run.choices}"
        elif key == "phases":
            got = [f"{e.data['round']} {e.data['phase']}" for e in events
                   if e.kind == "trial.phase"]
            assert got == want, f"{where}: phases {got}"
        elif key == "events":
            kinds = [e.kind for e in events]
            for k in want:
                assert k in kinds, f"{where}: no {k} event in {kinds}"
        elif key == "no_events":
            kinds = [e.kind for e in events]
            for k in want:
                assert k not in kinds, f"{where}: unexpected {k} event"
        elif key == "texts":
            texts = [e.text for e in events]
            for t in want:
                assert any(t in x for x in texts), f"{where}: no event says {t!r}: {texts}"
        elif key == "over":
            assert g.over == want, f"{where}: over is {g.over}"
        elif key == "winner":
            assert g.result is not None and g.result.winners == [seat_of(want)], \
                f"{where}: winners {g.result and g.result.winners}"
        elif key == "vp":
            assert g.result is not None
            got = {SEAT_NAMES[s]: v for s, v in g.result.scores.items()}
            assert got == want, f"{where}: VP {got}, expected {want}"
        elif key == "standings":
            got = [SEAT_NAMES[s] for s in snap["final"]["standings"]]
            assert got == want, f"{where}: standings {got}"
        elif key == "placements":
            final = snap["final"]
            got = [f"{r['ranking']} {SEAT_NAMES[p['seat']]} #{p['position']} {p['vp']}"
                   for r in final["rankings"] for p in r["placements"]
                   if p["position"] is not None]
            assert got == want, f"{where}: placements {got}"
        elif key == "decided_by":
            got = snap["final"]["winner"]["decided_by"]
            assert got == want, f"{where}: the winner was decided by {got}"
        else:
            raise AssertionError(f"{where}: unknown expectation {key!r}")


def run_scenario(path: Path) -> Runner:
    data = load(path)
    run = Runner(data.get("options", {}))
    for n, step in enumerate(data.get("step", []), 1):
        for k, text in enumerate(step.get("do", []), 1):
            run.line(text, f"{path.name} step {n} line {k} ({text!r})")
        check(run, step.get("expect", {}), f"{path.name} step {n}")
        run.next_step()
    return run


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path) -> None:
    run_scenario(path)


def test_every_scenario_names_its_rule() -> None:
    assert len(FILES) >= 10
    for path in FILES:
        data = load(path)
        assert isinstance(data.get("title"), str) and data["title"].strip(), path.name
        assert isinstance(data.get("rule"), str) and len(data["rule"].split()) >= 8, path.name
        assert set(data) <= {"title", "rule", "options", "step"}, path.name
        for step in data.get("step", []):
            assert set(step) <= {"do", "expect"}, f"{path.name}: {sorted(step)}"


def _pack_of_wide_cards(tmp_path: Path, cards: int) -> str:
    """A pack whose Olympics cards show three or four Discipline Symbols."""
    text = '[pack]\nname = "wide"\n'
    for k in range(cards):
        syms = ["sail", "restore", "order", "heal"][: 3 + k % 2]
        text += (f'\n[[olympics]]\nname = "Wide {k + 1}"\ndisciplines = {syms}\n'
                 'tiebreakers = ["sail"]\nfirst = { champions = 2 }\n'
                 'second = { champions = 1 }\nthird = {}\n')
    path = tmp_path / "wide.toml"
    path.write_text(text.replace("'", '"'), encoding="utf-8")
    return str(path)


def test_a_card_with_more_symbols_than_wheels_dials_the_sum(tmp_path: Path) -> None:
    run = Runner({"players": 2, "seed": 3, "pack": _pack_of_wide_cards(tmp_path, 4)})
    run.line("auto to 1 olympics", "setup")
    run.line("all: fervor 0", "bonus")
    d = run.game.pending
    assert d is not None and d.asks[0].topic == "trial.competition"
    ask = d.asks[0]
    assert "total" in ask.text and ask.wheels[CENTRE] is None
    assert len(labels(ask, LEFT)) == 32  # 0..31: the sum of three or four printed values
    run.line("Red: competition 7 numbers; Blue: competition 12 numbers", "competition 1")
    snap = run.game.snapshot()
    plays = snap["competitions"][-1]["plays"]
    assert plays["0"]["total"] == 7 and plays["0"]["fervor"] == 7 and plays["0"]["values"] == {}
    assert snap["olympics"]["fervor"] == {"0": 7, "1": 12}
    # equal sums at the end: the tiebreaker symbol was never dialled, so it is asked
    run.line("Red: competition 5 numbers; Blue: competition 0 numbers", "competition 2")
    run.line("all: competition 0 numbers", "competition 3")
    run.line("all: skills 0", "skills")
    d = run.game.pending
    assert d is not None and d.asks[0].topic == "trial.tiebreak"
    assert "sail" in d.asks[0].text


def test_a_pack_with_too_few_olympics_cards_is_refused_in_one_line(tmp_path: Path) -> None:
    path = _pack_of_wide_cards(tmp_path, 4)
    TrialOfTheGods({"players": 2, "pack": path})  # 4 Rounds: enough
    with pytest.raises(InvalidOptions, match="has 4 Olympics card") as err:
        TrialOfTheGods({"players": 2, "pack": path, "variant": "advanced"})
    assert "\n" not in str(err.value)

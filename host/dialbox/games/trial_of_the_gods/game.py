"""Trial of the Gods as a companion: the clock, the public tracks, fights, the Olympics and the
end-game rankings run on the controllers; the board, the cards and the meeples stay physical.

The flow: each round (4 basic, 5 advanced) walks Dawn, Adventure, Enemy, Olympics and Sunset.
Players press "done" when the table has finished a phase's physical steps, take Adventure turns
in Initiative order (end the turn, pass, fight, or change a track), dial the Damage Enemies
deal, play the Olympics' three Competitions as sealed decisions, and at the end dial the counts
the console cannot see. The rules themselves live in olympics.py, fight.py, tracks.py and
scoring.py; choices where the rulebook is silent are in docs/rules-notes.md.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import replace
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from dialbox.engine import (
    CENTRE,
    INACTIVE,
    LEFT,
    RIGHT,
    Ask,
    Decision,
    Face,
    Flow,
    Game,
    GameOptions,
    Selection,
    Wheel,
    wheels,
)
from dialbox.engine.naming import who
from dialbox.engine.seats import PLAYER_COLOURS
from dialbox.engine.wheels import number_faces
from dialbox.games.trial_of_the_gods import fight as F
from dialbox.games.trial_of_the_gods import olympics as O
from dialbox.games.trial_of_the_gods import packs as P
from dialbox.games.trial_of_the_gods import scoring as S
from dialbox.games.trial_of_the_gods import tracks as T

Step = Generator[Decision, dict[int, Selection], Any]

PHASES = ("dawn", "adventure", "enemy", "olympics", "sunset")
PHASE_TITLES = {"dawn": "Dawn", "adventure": "Adventure", "enemy": "Enemy",
                "olympics": "Olympics", "sunset": "Sunset", "end": "End of Game"}
SEAT_NAMES = tuple(name for name, _ in PLAYER_COLOURS[:4])

DONE = (Face("done", 0, "40d040"), Face("track", 1, "ffffff"))
TURN = (Face("end", 0, "ffffff"), Face("pass", 1, "ff9020"), Face("fight", 2, "ff3030"),
        Face("track", 3, "ffffff"))
SIGNS = (Face("+", 1, "40d040"), Face("-", -1, "ff3030"))
ITEM_FACES = tuple(Face(item.label, i, "ffffff") for i, item in enumerate(T.ITEMS))
AMOUNTS = tuple(Face(str(i), i, "ffffff") for i in range(10))
"""How many: 0 backs out of a track change chosen by mistake."""
EFFECT = (Face("numbers", 0, "ffffff"), Face("effect", 1, "8e24aa"))
TEMPLE = (Face("no", 0, "ffffff"), Face("free", 1, "fdd835"))
UNLISTED = (Face("monster", 0, "ff3030"), Face("argonaut", 1, "ff3030"),
            Face("inj-mon", 2, "ff9020"), Face("inj-arg", 3, "ff9020"))
"""An Enemy the pack lacks: its kind, and whether it is injured already."""
UNLISTED_NAME = "an unlisted Enemy"
UPGRADE_LABELS = {"attack": "Atk +1", "discovery": "Disc +1", "fervor": "Ferv +1",
                  "energy": "Ener +2", "vigor_limit": "Limit +2", "blessing": "Blessing"}
UPGRADE_FACES = tuple(Face(UPGRADE_LABELS[u], i, "ffffff") for i, u in enumerate(T.UPGRADES))


TRACK_WORDS = {"vigor": "Vigor", "damage": "Damage", "limit": "Limit Cube",
               "energy": "Energy", "spend": "Energy spent", "champions": "Champion Tokens",
               "dishonor": "Dishonor Tokens", "companions": "Companions", "temples": "Temples",
               "islands": "Exploration Tokens", "fleece": "Golden Fleece Islands",
               "cubes": "Cubes on the board"}
"""Each track of `tracks.ITEMS` in full words (the wheel's labels are cut to 8 characters)."""
_CHOICE_WORDS: dict[str, tuple[str, ...]] = {
    "trial.done": ("done with this phase", "changes a track first"),
    "trial.turn": ("ends the turn", "passes", "fights an Enemy", "changes a track"),
}
"""Questions answered by a word on the centre wheel: what each face means."""


def _count(n: int, one: str, more: str) -> str:
    return f"{n} {one if n == 1 else more}"


def _digits(top: int) -> Wheel:
    return Wheel.of(number_faces(top))


def _short(name: str, taken: set[str]) -> str:
    """A face label for a card name: at most 8 characters, unique on its wheel."""
    label = name[:8]
    k = 2
    while label in taken:
        label = f"{name[:6]}{k}"
        k += 1
    taken.add(label)
    return label


class TrialOptions(GameOptions):
    """Trial of the Gods companion options (docs/games/trial-of-the-gods.md)."""

    players: int = Field(2, ge=1, le=4)
    variant: Literal["basic", "advanced", "standard"] = "basic"
    """basic (and standard): 4 rounds; advanced: 5."""
    pack: str = "sample"
    """The card pack: a bundled pack's short name or a .toml path (docs: "Card packs")."""
    dishonor_each_damage: bool = True
    """At Vigor 1: one Dishonor Token per Damage (True) or per event (False)."""

    @field_validator("pack")
    @classmethod
    def _pack(cls, v: str) -> str:
        try:
            P.load_pack(v)
        except (P.PackFormatError, OSError, ValueError) as e:
            raise ValueError(str(e).splitlines()[0]) from None
        return v

    @model_validator(mode="after")
    def _enough_cards(self) -> TrialOptions:
        have = len(P.load_pack(self.pack).olympics)
        if have < self.rounds:
            raise ValueError(f"pack {self.pack!r} has {have} Olympics card(s); "
                             f"{self.variant} play reveals one per Round ({self.rounds})")
        return self

    @property
    def rounds(self) -> int:
        return 5 if self.variant == "advanced" else 4


class TrialOfTheGods(Game):
    name = "trial-of-the-gods"
    Options = TrialOptions

    # ------------------------------------------------------------------ state

    def setup(self) -> None:
        opts = self.options
        assert isinstance(opts, TrialOptions)
        self.opts: TrialOptions = opts
        self.n = opts.players
        self.pack = P.load_pack(opts.pack)
        self.die = P.load_die()
        self.rules = T.TrackRules(dishonor_each_damage=opts.dishonor_each_damage)
        self.tracks = [T.start_tracks(self.rules) for _ in range(self.n)]
        self.initiative = list(range(self.n))
        self.chance.shuffle(self.initiative)
        deck = [c.name for c in self.pack.olympics]
        self.chance.shuffle(deck)
        self.olympics_deck = deck
        """The Olympics deck, its top card last (hidden)."""
        self.revealed: list[str] = []
        self.offer: tuple[int, list[str]] | None = None
        """The two Olympics cards the last player in Initiative is choosing from (theirs)."""
        self.round = 0
        self.phase = "setup"
        self.active: int | None = None
        self.passed: list[int] = []
        self.olympics: O.Olympics | None = None
        self.competition_reveals: list[dict[str, Any]] = []
        self.olympics_result: dict[str, Any] | None = None
        self.skill_rolls: dict[str, list[str]] = {}
        self.enemies: dict[str, str] = {}
        """Enemies the console has seen hurt: name -> state (injured)."""
        self.fights: list[dict[str, Any]] = []
        self.final: dict[str, Any] | None = None

    def seat_name(self, seat: int) -> str:
        """The player by colour, plain (headlines, prompts); event texts use `naming.who`."""
        return SEAT_NAMES[seat]

    def snapshot(self) -> dict[str, Any]:
        ol = self.olympics
        return {
            "round": self.round,
            "rounds": self.opts.rounds,
            "phase": self.phase,
            "active": self.active,
            "initiative": list(self.initiative),
            "passed": list(self.passed),
            "tracks": [t.to_json(self.rules) for t in self.tracks],
            "olympics_deck": list(self.olympics_deck),
            "revealed": list(self.revealed),
            "offer": None if self.offer is None else [self.offer[0], list(self.offer[1])],
            "olympics": None if ol is None else {
                "card": ol.card.name,
                "disciplines": list(ol.card.disciplines),
                "tiebreakers": list(ol.card.tiebreakers),
                "fervor": {k: v for k, v in ol.fervor.items()},
                "competitions": ol.competitions_played,
            },
            "competitions": list(self.competition_reveals),
            "skill_rolls": {k: list(v) for k, v in self.skill_rolls.items()},
            "olympics_result": self.olympics_result,
            "enemies": dict(self.enemies),
            "fights": list(self.fights),
            "final": self.final,
        }

    def view(self, seat: int | None) -> dict[str, Any]:
        """Everything on the console is public but the Olympics deck's order and the two cards
        a player is choosing from; a sealed Competition dial shows only in its own seat's
        `pending`."""
        v = self.snapshot()
        v["seat"] = seat
        v["players"] = self.n
        v["olympics_deck"] = len(self.olympics_deck)
        if self.offer is not None and self.offer[0] != seat:
            v["offer"] = [self.offer[0], len(self.offer[1])]
        v["pending"] = self.pending_view(seat)
        if v["pending"] is not None and self._pending is not None:
            # what is being asked (prompt texts are public; the answers are not)
            v["pending"]["asks"] = [{"seat": a.seat, "topic": a.topic, "text": a.text}
                                    for a in self._pending.asks]
        v["cards"] = {c.name: {"disciplines": list(c.disciplines),
                               "tiebreakers": list(c.tiebreakers),
                               "prizes": [p.describe() for p in c.prizes]}
                      for c in self.pack.olympics if c.name in self.revealed}
        v["pack"] = {"name": self.pack.name, "sample": self.pack.sample}
        if self.result is not None:
            v["result"] = self.result.to_json()
        return v

    def headline(self) -> str | None:
        """The phase and whose turn it is, for every controller between its own prompts."""
        if self.result is not None:
            won = self.result.winners[0]
            return f"Game over: {self.seat_name(won)} wins with {self.result.scores[won]} VP"
        d = self.pending
        if d is None:
            return None
        names = " & ".join(self.seat_name(s) for s in d.seats)
        topic = d.asks[0].topic
        if self.phase == "end":
            return "End of Game: the final count"
        where = f"Round {self.round} {PHASE_TITLES[self.phase]}"
        if topic == "trial.olympics_card":
            return f"{where}: {names} picks the Olympics card"
        if self.phase == "adventure" and self.active is not None:
            active = self.seat_name(self.active)
            if topic == "trial.turn":
                return f"{where}: {active}'s turn"
            if topic == "trial.track":
                return f"{where}: {active} changes a track"
            return f"{where}: {active} fights"
        if self.phase == "olympics":
            k = len(self.competition_reveals)
            if topic == "trial.competition":
                return f"{where}: Competition {k + 1} of {O.COMPETITIONS}"
            if topic == "trial.effect":
                return f"{where}: {names}: numbers or Effect?"
            if topic == "trial.tiebreak":
                return f"{where}: a tie, {names} counts"
            if topic == "trial.fervor_bonus":
                return f"{where}: Fervor bonus"
            if topic == "trial.track":
                return f"{where}: {names} changes a track"
            return f"{where}: Skills dice"
        if topic == "trial.track":
            return f"{where}: {names} changes a track"
        return f"{where} Phase"

    # ------------------------------------------------------------------ the flow

    def flow(self) -> Flow:
        for r in range(1, self.opts.rounds + 1):
            self.round = r
            yield from self.dawn()
            yield from self.adventure()
            yield from self.enemy_phase()
            yield from self.olympics_phase()
            yield from self.sunset()
        yield from self.end_of_game()

    def enter(self, phase: str) -> None:
        self.phase = phase
        self.active = None
        self.emit("trial.phase", f"Round {self.round}: {PHASE_TITLES[phase]} Phase.",
                  round=self.round, phase=phase)

    def all_done(self, text: str) -> Step:
        """Every player presses done when the table has finished; "track" changes a track
        first (then that player is asked again)."""
        waiting = list(range(self.n))
        while waiting:
            ans = yield self.sealed([Ask(s, "trial.done", text, wheels(None, Wheel.of(DONE),
                                                                      None)) for s in waiting])
            again = [s for s in waiting if ans[s][CENTRE] == 1]
            for s in again:
                yield from self.track_change(s)
            waiting = again

    def track_change(self, seat: int) -> Step:
        """One "+/- what" change of a seat's public tracks (refused with the reason if the
        rules do not allow it)."""
        ask = Ask(seat, "trial.track", "Change a track: what, how many (0 none), +/-",
                  wheels(Wheel.of(ITEM_FACES), Wheel.of(AMOUNTS), Wheel.of(SIGNS)))
        ans = yield self.open(ask)
        key, delta = self._track_answer(ans[seat])
        if delta == 0:
            self.emit("trial.track", f"{who(seat)} changes no track.", seat=seat,
                      key=None, delta=0, discard_to=None)
            return
        change = T.change(self.tracks[seat], key, delta, self.rules)
        self.tracks[seat] = change.after
        self.emit("trial.track", f"{who(seat)}: " + "; ".join(change.notes),
                  seat=seat, key=key, delta=delta, discard_to=change.discard_to)

    @staticmethod
    def _track_answer(sel: Selection) -> tuple[str, int]:
        return T.ITEMS[sel[LEFT]].key, AMOUNTS[sel[CENTRE]].value * SIGNS[sel[RIGHT]].value

    def explain(self, ask: Ask, selection: Selection) -> str | None:
        if ask.topic == "trial.track":
            key, delta = self._track_answer(selection)
            try:
                T.change(self.tracks[ask.seat], key, delta, self.rules)
            except T.TrackError as e:
                return str(e)
        return None

    # --- what an answer means

    def meaning(self, ask: Ask, selection: Selection) -> str:
        """An answer in the game's words: a track change as the rules apply it ("Vigor 5 ->
        7"), an Enemy by its name, a Competition's values by their symbols, a count by
        what it counts."""
        topic, seat = ask.topic, ask.seat
        left, centre, right = selection
        words = _CHOICE_WORDS.get(topic)
        if words is not None:
            return words[centre]
        if topic == "trial.track":
            key, delta = self._track_answer(selection)
            if delta == 0:
                return "no change"
            plain = f"{'+' if delta > 0 else ''}{delta} {TRACK_WORDS[key]}"
            try:
                notes = T.change(self.tracks[seat], key, delta, self.rules).notes
            except T.TrackError:
                return plain  # (not a legal answer: the rules refuse it)
            said = "; ".join(notes)
            return next((w for w in (said, notes[0] if notes else "")
                         if w and len(w) <= 60), plain)
        if topic == "trial.olympics_card" and self.offer is not None:
            return f"takes {self.offer[1][centre]} as this round's Olympics card"
        if topic == "trial.enemy":
            enemies = self.pack.enemies
            return f"fights {enemies[centre].name}" if centre < len(enemies) else \
                "fights an Enemy not in the pack"
        if topic == "trial.enemy_numbers":
            kind = ("a Monster", "an Argonaut", "an injured Monster",
                    "an injured Argonaut")[right]
            return f"{kind}: Attack {left}, {_count(centre, 'die', 'dice')}"
        if topic == "trial.attack":
            extra = [", a free Temple" if left == 1 else "",
                     f", +{right} Damage" if right else ""]
            return f"Attack {centre}" + "".join(extra)
        if topic == "trial.laurels":
            return f"{_count(centre, 'Laurel', 'Laurels')} on the Enemy's card"
        if topic == "trial.temple":
            wheel = ask.wheels[CENTRE]
            assert wheel is not None
            return f"Upgrade: {T.UPGRADE_NAMES[T.UPGRADES[wheel.faces[centre].value]]}"
        if topic == "trial.enemy_damage":
            return f"suffers {centre} Damage" if centre else "no Damage"
        if topic == "trial.fervor_bonus":
            return f"Fervor bonus +{centre}"
        if topic == "trial.skills":
            return f"rolls {_count(centre, 'Skills die', 'Skills dice')}" if centre else \
                "no Skills dice"
        if topic == "trial.tiebreak":
            symbol = ask.text.rsplit(" of ", 1)[-1]
            return f"a total of {centre} {symbol}"
        if topic == "trial.competition":
            ol = self.olympics
            syms = O.dial_symbols(ol.card) if ol is not None else ()
            values = ([f"{sym} {(left, centre)[i]}" for i, sym in enumerate(syms[:2])]
                      if syms else [f"total {left}"])
            effect = ", with an Olympics Effect" if right == 1 else ""
            return "card: " + ", ".join(values) + effect
        if topic == "trial.effect":
            return "uses the numbers" if centre == 0 else f"uses the Effect: {centre} Fervor"
        if topic == "trial.restore":
            return f"restores {centre} Energy" if centre else "restores no Energy"
        if topic == "trial.count":
            return (f"{_count(centre, 'Laurel', 'Laurels')} on Action Cards, "
                    f"{_count(right, 'Animae card', 'Animae cards')}")
        return super().meaning(ask, selection)

    # --- Dawn

    def dawn(self) -> Step:
        self.enter("dawn")
        last = self.initiative[-1]
        if len(self.olympics_deck) < 2:  # the deck runs short: shuffle back the unused
            back = sorted(c.name for c in self.pack.olympics if c.name not in self.revealed
                          and c.name not in self.olympics_deck)
            self.olympics_deck[:0] = back
            self.chance.shuffle(self.olympics_deck)
        drawn = [self.olympics_deck.pop() for _ in range(min(2, len(self.olympics_deck)))]
        if len(drawn) == 2:
            self.offer = (last, drawn)
            taken: set[str] = set()
            faces = tuple(Face(_short(c, taken), i, "ffffff") for i, c in enumerate(drawn))
            d = self.private([Ask(last, "trial.olympics_card",
                                  "Dawn: choose this round's Olympics card",
                                  wheels(None, Wheel.of(faces), None))])
            ans = yield d
            chosen = drawn[ans[last][CENTRE]]
            other = drawn[1 - ans[last][CENTRE]]
            self.olympics_deck.insert(self.chance.randrange(len(self.olympics_deck) + 1), other)
            self.offer = None
            self.disclose(d)
        else:
            chosen = drawn[0]
        self.revealed.append(chosen)
        self.emit("trial.olympics_card", f"{who(last)} reveals this round's "
                  f"Olympics card: {chosen}.", seat=last, card=chosen)
        yield from self.all_done(f"Round {self.round} Dawn: draw, buy, train; then done")

    # --- Adventure

    def adventure(self) -> Step:
        self.enter("adventure")
        self.passed = []
        while len(self.passed) < self.n:
            for s in self.initiative:
                if s in self.passed:
                    continue
                self.active = s
                while True:
                    ans = yield self.open(Ask(s, "trial.turn", f"Round {self.round} Adventure: "
                                              "your turn", wheels(None, Wheel.of(TURN), None)))
                    what = ans[s][CENTRE]
                    if what == 0:
                        self.emit("trial.turn", f"{who(s)} ends the turn.", seat=s)
                        break
                    if what == 1:
                        self.passed.append(s)
                        self.emit("trial.pass", f"{who(s)} passes.", seat=s)
                        break
                    if what == 2:
                        yield from self.fight(s)
                    else:
                        yield from self.track_change(s)
        self.active = None
        self.passed = []

    def fight(self, seat: int) -> Step:
        cards = [e for e in self.pack.enemies]
        taken: set[str] = set()
        faces = tuple(Face(_short(e.name, taken), i, "ff3030") for i, e in enumerate(cards))
        faces += (Face("other", len(cards), "ffffff"),)
        ans = yield self.open(Ask(seat, "trial.enemy", "Fight: which Enemy?",
                                  wheels(None, Wheel.of(faces), None)))
        pick = ans[seat][CENTRE]
        if pick < len(cards):
            card = cards[pick]
            kind: F.EnemyKind = "argonaut" if card.type == "argonaut" else "monster"
            enemy = F.Enemy(kind, card.attack, card.dice, card.laurels, card.name,
                            state=self.enemies.get(card.name, "uninjured"))  # type: ignore[arg-type]
            skill_step = card.activation_attack or 0
        else:  # an Enemy the pack lacks: its numbers are dialled, nothing is remembered
            a = yield self.open(Ask(seat, "trial.enemy_numbers", "Enemy: Attack, dice, kind "
                                    "(inj-: injured)", wheels(_digits(20), _digits(5),
                                                              Wheel.of(UNLISTED))))
            kind = "argonaut" if a[seat][RIGHT] in (1, 3) else "monster"
            enemy = F.Enemy(kind, a[seat][LEFT], a[seat][CENTRE], 0, UNLISTED_NAME,
                            state="injured" if a[seat][RIGHT] >= 2 else "uninjured")
            skill_step = 0
        att = yield self.open(Ask(seat, "trial.attack", "Your Attack; free Temple; extra Dmg",
                                  wheels(Wheel.of(TEMPLE), _digits(31), _digits(3))))
        free_temple = att[seat][LEFT] == 1
        attack = F.player_attack((att[seat][CENTRE],), tracks=self.tracks[seat])
        roller = next((s for s in self.initiative if s != seat), seat)
        dice: list[F.DieResult] = []
        for _ in range(enemy.dice):
            face = yield from self.roll(self.die, roller)
            dice.append(F.ACTIVATION if P.is_activation(face) else face.value)
        activations = sum(1 for d in dice if d == F.ACTIVATION)
        def resolve(enemy: F.Enemy) -> F.Fight:
            return F.resolve_fight(self.tracks[seat], enemy, attack, dice,
                                   skill_attack=skill_step * activations,
                                   player_extra_damage=att[seat][RIGHT],
                                   free_temple=free_temple, rules=self.rules)

        result = resolve(enemy)
        if result.reward == "tamed" and pick == len(cards):  # its Laurels count for Domination
            n = yield self.open(Ask(seat, "trial.laurels", "Tamed: Laurels on the Enemy's card",
                                    wheels(None, _digits(9), None)))
            enemy = replace(enemy, laurels=n[seat][CENTRE])
            result = resolve(enemy)
        self.tracks[seat] = result.player.after
        if pick < len(cards):  # a pack Enemy's injury is remembered until it is defeated
            if result.enemy_now is not None and result.enemy_now.state == "injured":
                self.enemies[enemy.name] = "injured"
            else:
                self.enemies.pop(enemy.name, None)
        record = {"seat": seat, "round": self.round, **result.to_json(self.rules)}
        self.fights.append(record)
        self.emit("trial.fight", f"{who(seat)} fights {enemy.name}: "
                  + "; ".join(result.notes) + ".", seat=seat, enemy=enemy.name,
                  winner=result.winner)
        t = self.tracks[seat]
        if result.temple_claim and t.temples >= T.ISLANDS:  # no Temple can be free any more
            self.emit("trial.temple", f"{who(seat)} already holds all "
                      f"{T.ISLANDS} Temples.", seat=seat, upgrade=None)
        elif result.temple_claim and len(t.upgrades) == len(T.UPGRADES):
            # every Upgrade is active: the Temple is claimed, no Upgrade is left to choose
            change = T.change(t, "temples", 1, self.rules)
            self.tracks[seat] = change.after
            self.emit("trial.temple", f"{who(seat)} claims the Temple: +1 Temple; "
                      "every Upgrade is already active.", seat=seat, upgrade=None)
        elif result.temple_claim:
            free = [i for i, up in enumerate(T.UPGRADES) if up not in t.upgrades]
            u = yield self.open(Ask(seat, "trial.temple", "Temple claimed: choose an Upgrade",
                                    wheels(None, Wheel.of(tuple(UPGRADE_FACES[i] for i in free)),
                                           None)))
            upgrade = T.UPGRADES[free[u[seat][CENTRE]]]
            change = T.claim_temple(self.tracks[seat], upgrade, self.rules)
            self.tracks[seat] = change.after
            self.emit("trial.temple", f"{who(seat)} claims the Temple: "
                      + "; ".join(change.notes) + ".", seat=seat, upgrade=upgrade)

    # --- Enemy phase

    def enemy_phase(self) -> Step:
        self.enter("enemy")
        ans = yield self.sealed([Ask(s, "trial.enemy_damage", "Enemy Phase: Enemies by your "
                                     "Captain or Temples", wheels(None, _digits(9), None))
                                 for s in range(self.n)])
        for s in self.initiative:
            n = ans[s][CENTRE]
            if n:
                if self.rules.dishonor_each_damage:
                    change = T.suffer_damage(self.tracks[s], n, self.rules)
                else:  # one event per Enemy
                    change = T.suffer_damage(self.tracks[s], 1, self.rules)
                    for _ in range(n - 1):
                        change = change.then(T.suffer_damage(change.after, 1, self.rules))
                self.tracks[s] = change.after
                self.emit("trial.damage", f"{who(s)} suffers {n} Damage: "
                          + "; ".join(change.notes) + ".", seat=s, damage=n,
                          discard_to=change.discard_to)

    # --- Olympics

    def olympics_phase(self) -> Step:
        self.enter("olympics")
        card = next(c for c in self.pack.olympics if c.name == self.revealed[-1])
        keys = [str(s) for s in self.initiative]
        ans = yield self.sealed([Ask(s, "trial.fervor_bonus", "Olympics: Fervor bonus (not "
                                     "counting Upgrades)", wheels(None, _digits(9), None))
                                 for s in range(self.n)])
        bonus = {str(s): ans[s][CENTRE] + self.tracks[s].fervor_bonus for s in range(self.n)}
        ol = O.begin(card, keys, bonus)
        self.olympics = ol
        self.competition_reveals = []
        self.skill_rolls = {}
        self.olympics_result = None
        syms = O.dial_symbols(card)
        for k in range(O.COMPETITIONS):
            ol = yield from self.competition(ol, k, syms)
        ans = yield self.sealed([Ask(s, "trial.skills", "Olympics Skills: Argonauts with a "
                                     "matching symbol", wheels(None, _digits(3), None))
                                 for s in range(self.n)])
        for s in self.initiative:
            faces = []
            for _ in range(ans[s][CENTRE]):
                face = yield from self.roll(self.die, s)
                faces.append(face)
            self.skill_rolls[str(s)] = [f.label for f in faces]
            ol = O.add_skill_rolls(ol, str(s), faces)
        self.olympics = ol
        while queries := O.tiebreak_needs(ol):
            q = queries[0]
            s = int(q.player)
            a = yield self.open(Ask(s, "trial.tiebreak", f"Tie: your cards' total of {q.symbol}",
                                    wheels(None, _digits(31), None)))
            # the total lands on the first missing card; the others count 0
            ol = O.with_card_values(ol, q.player, q.competitions[0], {q.symbol: a[s][CENTRE]})
            for c in q.competitions[1:]:
                ol = O.with_card_values(ol, q.player, c, {q.symbol: 0})
        result = O.finish(ol)
        for award in result.awards:
            s = int(award.player)
            t = self.tracks[s]
            if award.prize.champions:
                t = T.change(t, "champions", award.prize.champions, self.rules).after
            heals = dict(award.prize.actions).get("heal", 0)
            if heals:
                t = T.heal(t, heals, self.rules).after
            self.tracks[s] = t
            self.emit("trial.award", f"{who(s)} is #{award.place}: "
                      f"{award.prize.describe()}.", seat=s, place=award.place)
        self.initiative = [int(p) for p in result.initiative]
        self.olympics_result = {"round": self.round,
                                "ranking": [int(p) for p in result.ranking],
                                "fervor": dict(ol.fervor),
                                "awards": [{"seat": int(a.player), "place": a.place,
                                            "prize": a.prize.describe()}
                                           for a in result.awards]}
        self.olympics = None
        self.emit("trial.initiative", "New Initiative: " + ", ".join(
            who(s) for s in self.initiative) + ".", order=list(self.initiative))

    def competition(self, ol: O.Olympics, k: int, syms: tuple[str, ...]) -> Step:
        """Competition k+1: every player dials, sealed, what the card they placed face down
        gives (each Discipline Symbol's value, or their sum when the card has more symbols
        than wheels) and whether it has an Olympics Effect; all reveal together; then, in
        Initiative order, those with an Effect choose its Fervor or the numbers (open)."""
        card = ol.card
        if syms:
            w0, w1 = _digits(9), (_digits(9) if len(syms) > 1 else None)
            what = "/".join(syms)
        else:
            w0, w1, what = _digits(31), None, "total"
        dial = yield self.sealed([Ask(s, "trial.competition",
                                      f"Competition {k + 1}: your card's {what}; effect?",
                                      wheels(w0, w1, Wheel.of(EFFECT)))
                                  for s in range(self.n)])
        plays: dict[str, O.CardPlay] = {}
        for s in self.initiative:
            picked = (dial[s][LEFT], dial[s][CENTRE])
            values = {sym: picked[i] for i, sym in enumerate(syms)}
            plays[str(s)] = O.CardPlay(values, None, None if syms else dial[s][LEFT])
        choosing = [s for s in self.initiative if dial[s][RIGHT] == 1]
        self._record_competition(k, card, plays, ol.fervor, choosing)
        for s in choosing:
            e = yield self.open(Ask(s, "trial.effect", "Use the numbers, or the Effect's "
                                    "Fervor?", wheels(None, Wheel.of(
                                        (Face("numbers", 0, "ffffff"), *number_faces(9)[1:])),
                                        None)))
            if e[s][CENTRE] > 0:
                plays[str(s)] = replace(plays[str(s)], effect_fervor=e[s][CENTRE])
            choosing = [c for c in choosing if c != s]
            self._record_competition(k, card, plays, ol.fervor, choosing)
        ol = O.play_competition(ol, plays)
        self.olympics = ol
        self._record_competition(k, card, plays, ol.fervor, [])
        self.emit("trial.competition", f"Competition {k + 1}: " + ", ".join(
            f"{who(int(key))} +{O.card_fervor(card, p)}"
            for key, p in plays.items()) + ".", competition=k + 1)
        return ol

    def _record_competition(self, k: int, card: P.OlympicsCard, plays: dict[str, O.CardPlay],
                            fervor: Mapping[str, int], choosing: list[int]) -> None:
        """The revealed Competition as the screen shows it: the dialled values at once, each
        card's Fervor once its player has chosen numbers or Effect."""
        record = {
            "round": self.round,
            "competition": k + 1,
            "plays": {key: {"values": dict(p.values), "total": p.total,
                            "effect": p.effect_fervor,
                            "fervor": None if int(key) in choosing else O.card_fervor(card, p),
                            "choosing": int(key) in choosing}
                      for key, p in plays.items()},
            "fervor": dict(fervor),
            "choosing": list(choosing),
        }
        if len(self.competition_reveals) > k:
            self.competition_reveals[k] = record
        else:
            self.competition_reveals.append(record)

    # --- Sunset

    def sunset(self) -> Step:
        self.enter("sunset")
        ans = yield self.sealed([Ask(s, "trial.restore", "Sunset: Energy your Feats restore",
                                     wheels(None, _digits(9), None)) for s in range(self.n)])
        for s in self.initiative:
            n = ans[s][CENTRE]
            if n:
                change = T.restore_energy(self.tracks[s], n, self.rules)
                self.tracks[s] = change.after
                self.emit("trial.restore", f"{who(s)}: " + "; ".join(change.notes)
                          + ".", seat=s)
        yield from self.all_done(f"Round {self.round} Sunset: sea monsters, blocks; then done")

    # --- the end

    def end_of_game(self) -> Step:
        self.phase = "end"
        self.active = None
        ans = yield self.sealed([Ask(s, "trial.count", "Count: Laurels on Action Cards, "
                                     "Animae cards", wheels(None, _digits(31), _digits(9)))
                                 for s in range(self.n)])
        tallies = []
        for s in range(self.n):
            t = self.tracks[s]
            tallies.append(S.Tally(
                seat=s, initiative=self.initiative.index(s), tamed_laurels=t.tamed_laurels,
                islands_plain=max(0, t.islands - t.fleece), islands_fleece=t.fleece,
                champions=t.champions, card_laurels=ans[s][CENTRE], animae=ans[s][RIGHT],
                dishonor=t.dishonor, temples=t.temples, companions=t.companions))
        final = S.score(tallies)
        self.final = final.to_json()
        self.result = final.to_result()
        self.emit("game.over", final.text(mark=True), winners=self.result.winners)


__all__ = ["TrialOfTheGods", "TrialOptions", "INACTIVE"]

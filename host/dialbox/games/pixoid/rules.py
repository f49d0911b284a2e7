"""Pixoid's rules: Pixoid flees, the Bugs chase, over rounds of at most 12 turns.

Seats are the controllers in play. With 4 players each player has one controller (seat =
player). With 3 players (the 3 Player Variant) a fourth controller, seat 3, moves a third
Bug; its asks name the Bug player who holds it that turn (Ask.player), and it scores
nothing of its own. Directions on the board: 0 up, 1 right, 2 down, 3 left (clockwise);
on the left wheel they are faces 0, 2, 4, 6 (N, E, S, W).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from dialbox.engine import (
    DIGIT_FACES,
    DIRECTION_FACES,
    LETTER_FACES,
    Ask,
    Face,
    Flow,
    Game,
    GameOptions,
    InvalidOptions,
    InvalidPosition,
    Result,
    Selection,
    Wheel,
    wheels,
)
from dialbox.engine.naming import colour_name, who, whom
from dialbox.games.pixoid.board import (
    DIRECTION_WORDS,
    Board,
    BoardError,
    build_board,
    load_tiles,
    tiles_text,
)

RESERVE = 12
"""Neutral cubes in the reserve at the start of each round (the round's turn limit too)."""
SHORT_GAME_TARGET = 12
"""Short Game Variant: Pixoid wins on collecting his 12th neutral cube, bonus ones included."""
SPARE = 3
"""The seat of the spare controller in the 3 Player Variant."""

EDGE_TURNS = (0, 1, 2, 3)
"""arrows="seat": quarter turns from a player's arrows to the board's. Seat 1 sits at the
bottom edge, then clockwise round the table: seat 2 left, seat 3 top, seat 4 right."""

DISTANCE_REASON = "distance 0 is not allowed: Pixoid and Bugs always move"
DIAGONAL_REASON = "Pixoid and the Bugs move only up, down, left or right"

DISTANCE_WHEEL = Wheel.of(DIGIT_FACES, range(1, 10), {0: DISTANCE_REASON})


def _direction_wheel(open_mask: int) -> Wheel:
    """The left wheel offering the arrows (dial frame) set in `open_mask` (bit per arrow)."""
    reasons: dict[int, str] = {f: DIAGONAL_REASON for f in (1, 3, 5, 7)}
    for k in range(4):
        if not open_mask >> k & 1:
            reasons[2 * k] = f"a wall is directly {DIRECTION_WORDS[k]} from this Pix"
    return Wheel.of(DIRECTION_FACES, [2 * k for k in range(4) if open_mask >> k & 1], reasons)


ARROWS = ("\u2191", "\u2192", "\u2193", "\u2190")
"""The board's directions (up, right, down, left) as arrows, for the table's reveal."""

DIRECTION_WHEELS: tuple[Wheel | None, ...] = (None,) + tuple(
    _direction_wheel(m) for m in range(1, 16)
)
"""The left wheel for every set of open directions (index: bit mask of open arrows)."""


def cap(text: str) -> str:
    """The text with its first letter in upper case (the rest untouched)."""
    return text[:1].upper() + text[1:]


def turned_mask(mask: int, quarters: int) -> int:
    """A 4-bit direction mask turned by `quarters` (board -> dial frame: pass -turn)."""
    q = quarters % 4
    return ((mask >> q) | (mask << (4 - q))) & 0b1111


class PixoidOptions(GameOptions):
    """Options for Pixoid (players, variant and board; see docs/games/pixoid.md)."""

    players: int = Field(4, ge=3, le=4)
    variant: Literal["standard", "short"] = "standard"
    tiles: str = "sample"
    """A shipped tile set by name, or a path to a tile TOML file."""
    layout: str = "1a 2a 3a 4a"
    """Tile sides in the NW, NE, SE, SW corners, or "random" (drawn by the game's chance)."""
    board_map: str | None = None
    """A whole board drawn as text (replaces tiles + layout; for tests and custom boards)."""
    first_pixoid: int = Field(0, ge=0)
    """The seat that plays Pixoid first (the rulebook: the oldest player)."""
    arrows: Literal["screen", "seat"] = "screen"
    """screen: every arrow means the board as shown; seat: arrows are turned to each
    player's own edge of the table (see docs/rules-notes.md)."""
    bonus_before_catch: bool = True
    """Whether Bonus cubes Pixoid passes earlier in a move that runs into a Bug count."""

    @model_validator(mode="after")
    def _first_is_a_player(self) -> PixoidOptions:
        if self.first_pixoid >= self.players:
            raise ValueError(f"first_pixoid must be a seat 0..{self.players - 1}")
        return self


class PixoidPosition(BaseModel):
    """A round in progress, its cubes on the board, before a turn's moves are dialled
    (docs/games/pixoid.md, "Positions"). Pixoid is the seat the rotation gives this round."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    round: int = Field(1, ge=1)
    """The round being played (1-based)."""
    turn: int = Field(0, ge=0, le=RESERVE)
    """Turns already played this round (0: the cubes are placed, nobody has moved yet)."""
    cubes: list[str]
    """Each controller's cube, as Pix names ("c4": column c, row 4 from the top-left)."""
    bonus: list[str] | None = None
    """Bonus cubes still on the board (default: every Bonus Pix of the board)."""
    reserve: int = Field(RESERVE, ge=1, le=RESERVE)
    """Neutral cubes left in the reserve (at least 1: an empty reserve has ended the round)."""
    bonus_taken: int = Field(0, ge=0)
    scores: list[int] | None = None
    """Points so far, per player (default: all 0)."""
    spare: int | None = None
    """3 Player Variant: the Bug player (seat, 0-based) holding the spare controller."""
    history: list[dict[str, Any]] = Field(default_factory=list)
    """Finished rounds, as a saved game records them (default: none)."""


class Pixoid(Game):
    """Pixoid: the standard game, the Short Game Variant and the 3 Player Variant."""

    name = "pixoid"
    Options = PixoidOptions
    Position = PixoidPosition

    options: PixoidOptions

    # ------------------------------------------------------------------ setup

    def setup(self) -> None:
        o = self.options
        self.board = self._build_board()
        self.players: int = o.players
        self.controllers: int = 4
        if len(self.board.starts) < self.controllers:
            raise InvalidOptions(
                f"pixoid: the board has {len(self.board.starts)} Starting Pix; "
                f"{self.controllers} cubes need one each"
            )
        if len(self.board.starts) > 26:
            raise InvalidOptions("pixoid: a board has at most 26 Starting Pix (A to Z)")
        self.short = o.variant == "short"
        self.rounds = 1 if self.short else self.players
        self.round = 0
        self.turn = 0
        self.pixoid = o.first_pixoid
        self.cubes: list[int] = [-1] * self.controllers
        self.bonus: set[int] = set()
        self.reserve = RESERVE
        self.bonus_taken = 0
        self.scores: list[int] = [0] * self.players
        self.spare: int | None = None
        self.caught = False
        self.history: list[dict[str, Any]] = []
        self.turns: list[int] = [0] * self.controllers
        self.bugs: tuple[int, ...] = ()
        self._asks: dict[int, Ask] = {}
        """Move asks of this round by controller, open arrows and holder (they repeat)."""
        self._in_progress = False
        """Set up from a position: the flow starts inside the position's round."""

    def setup_position(self, position: BaseModel) -> None:
        assert isinstance(position, PixoidPosition)
        pos = position
        self.setup()
        if pos.round > self.rounds:
            raise InvalidPosition(f"pixoid position: round: {pos.round} is past the last "
                                  f"round ({self.rounds})")
        pixoid = (self.options.first_pixoid + pos.round - 1) % self.players
        if pos.spare is not None and (self.players != 3 or pos.spare == pixoid
                                      or not 0 <= pos.spare < 3):
            raise InvalidPosition("pixoid position: spare: only with 3 players, and a Bug "
                                  "player holds it")
        self._begin_round(pos.round - 1, pos.spare)
        self.cubes = [self._pix(f"cubes.{i}", name) for i, name in enumerate(pos.cubes)]
        if len(self.cubes) != self.controllers:
            raise InvalidPosition(f"pixoid position: cubes: {self.controllers} cubes (one per "
                                  f"controller), not {len(self.cubes)}")
        if self.cubes.count(self.cubes[self.pixoid]) > 1:
            raise InvalidPosition("pixoid position: cubes: a Bug on Pixoid's Pix has caught "
                                  "him; Bugs may share a Pix, Pixoid may not")
        if pos.bonus is not None:
            self.bonus = {self._pix(f"bonus.{i}", n) for i, n in enumerate(pos.bonus)}
            if not self.bonus <= set(self.board.bonus):
                raise InvalidPosition("pixoid position: bonus: a Bonus cube lies only on a "
                                      "Bonus Pix of the board")
        if pos.turn + pos.reserve > RESERVE:
            raise InvalidPosition(f"pixoid position: reserve: after {pos.turn} turns at most "
                                  f"{RESERVE - pos.turn} cubes are left, not {pos.reserve}")
        self.turn = pos.turn
        self.reserve = pos.reserve
        self.bonus_taken = pos.bonus_taken
        if pos.scores is not None:
            if len(pos.scores) != self.players:
                raise InvalidPosition(f"pixoid position: scores: one per player "
                                      f"({self.players}), not {len(pos.scores)}")
            self.scores = list(pos.scores)
        self.history = [dict(h) for h in pos.history]
        self._in_progress = True

    def _pix(self, where: str, name: str) -> int:
        try:
            return self.board.pix_at(name)
        except ValueError as e:
            raise InvalidPosition(f"pixoid position: {where}: {e}") from None

    def _build_board(self) -> Board:
        o = self.options
        try:
            if o.board_map is not None:
                return build_board(o.board_map, "board_map", None)
            text = tiles_text(o.tiles)
            if o.layout.strip() == "random":
                tiles = load_tiles(o.tiles)
                if len(tiles.tiles) < 4:
                    raise BoardError(f"tile set {tiles.name!r} has fewer than 4 tiles")
                layout = []
                for t in self.chance.sample(tiles.tiles, 4):
                    sides = sorted(s for s in tiles.sides if s[:-1] == t)
                    layout.append(sides[self.chance.randrange(len(sides))])
            else:
                layout = o.layout.split()
            return build_board(text, o.tiles, tuple(layout))
        except BoardError as e:
            raise InvalidOptions(f"pixoid: {e}") from None

    # ------------------------------------------------------------------ names

    def seat_name(self, seat: int, marked: bool = True) -> str:
        """The player at `seat` by colour (marked for event texts, `naming.who`; plain for
        prompts and reasons), or the spare Bug."""
        if seat == SPARE and self.players == 3:
            return "the spare Bug"
        return who(seat) if marked else colour_name(seat)

    def cube_name(self, seat: int, marked: bool = True) -> str:
        if seat == self.pixoid:
            return f"Pixoid ({self.seat_name(seat, marked)})"
        if seat == SPARE and self.players == 3:
            return "the spare Bug"
        return f"the Bug of {self.seat_name(seat, marked)}"

    # ------------------------------------------------------------------ meanings

    def meaning(self, ask: Ask, selection: Selection) -> str:
        """A move as the board direction it means with the distance ("→ right 3": with
        arrows turned to each seat, the dialled arrow is turned to the board), a Starting
        Pix with its place ("Starting Pix C (c4)")."""
        if ask.topic == "pixoid.move":
            d = self._direction(ask.seat, selection[0])
            return f"{ARROWS[d]} {DIRECTION_WORDS[d]} {selection[1]}"
        if ask.topic == "pixoid.start":
            wheel = ask.wheels[2]
            assert wheel is not None
            i = selection[2]
            return (f"Starting Pix {wheel.faces[i].label} "
                    f"({self.board.pix_name(self.board.starts[i])})")
        return super().meaning(ask, selection)

    # ------------------------------------------------------------------ the flow

    def flow(self) -> Flow:
        # Set up from a position: its round is under way (cubes placed, some turns played).
        first = self.round - 1 if self._in_progress else 0
        for r in range(first, self.rounds):
            if r != first or not self._in_progress:
                self._begin_round(r)
                yield from self._place_cubes()
            while True:  # Movement and Scoring, turn after turn, until the round ends
                self.turn += 1
                answers = yield self.sealed(self._move_asks())
                if self._resolve(answers):
                    break
                if self.spare is not None:
                    self._pass_spare()
            self._end_round()
        self._end_game()

    def _begin_round(self, r: int, spare: int | None = None) -> None:
        self.round = r + 1
        self.turn = 0
        self.pixoid = (self.options.first_pixoid + r) % self.players
        self.cubes = [-1] * self.controllers
        self.bonus = set(self.board.bonus)
        self.reserve = RESERVE
        self.bonus_taken = 0
        self.caught = False
        self.bugs = tuple(s for s in range(self.controllers) if s != self.pixoid)
        self._asks = {}
        if self.players == 3:
            self.spare = (self.pixoid + 1) % 3 if spare is None else spare
        turns = [0] * self.controllers
        if self.options.arrows == "seat":
            for s in range(self.controllers):
                turns[s] = EDGE_TURNS[self.answerer_now(s)]
        self.turns = turns
        if not self.quiet:
            self.emit(
                "pixoid.round",
                f"Round {self.round}: {self.seat_name(self.pixoid)} plays Pixoid.",
                round=self.round, pixoid=self.pixoid, spare=self.spare,
            )

    def _place_cubes(self) -> Flow:
        """Pixoid picks a Starting Pix, then the Bugs clockwise; the last cube takes the
        last free one (the spare Bug's rule, and no choice is left anyway)."""
        order = [(self.pixoid + k) % self.players for k in range(self.players)]
        if self.players == 3:
            order.append(SPARE)
        starts = self.board.starts
        for seat in order:
            free = [i for i, p in enumerate(starts) if p not in self.cubes]
            if len(free) == 1:
                self._place(seat, starts[free[0]])
                continue
            answers = yield self.open(self._start_ask(seat))
            self._place(seat, starts[answers[seat][2]])

    def _start_ask(self, seat: int) -> Ask:
        starts = self.board.starts
        if len(starts) == len(LETTER_FACES):
            faces = LETTER_FACES
        else:
            faces = tuple(
                Face(chr(ord("A") + i), i, LETTER_FACES[i % 4].colour)
                for i in range(len(starts))
            )
        reasons = {}
        for i, p in enumerate(starts):
            if p in self.cubes:
                owner = self.cubes.index(p)
                reasons[i] = (f"Starting Pix {faces[i].label} is taken by "
                              f"{self.cube_name(owner, marked=False)}")
        allowed = [i for i in range(len(faces)) if i not in reasons]
        role = "Pixoid" if seat == self.pixoid else "Bug"
        return Ask(
            seat,
            "pixoid.start",
            f"{role}: choose your Starting Pix",
            wheels(None, None, Wheel.of(faces, allowed, reasons)),
            player=None if seat != SPARE or self.players != 3 else self.spare,
        )

    def _place(self, seat: int, pix: int) -> None:
        self.cubes[seat] = pix
        if not self.quiet:
            letter = chr(ord("A") + self.board.starts.index(pix))
            self.emit(
                "pixoid.placed",
                f"{cap(self.cube_name(seat))} starts on Starting Pix {letter} "
                f"({self.board.pix_name(pix)}).",
                seat=seat, pix=pix,
            )

    def _move_asks(self) -> list[Ask]:
        asks = []
        open_ = self.board.open
        cache = self._asks
        turns = self.turns
        cubes = self.cubes
        for s in range(self.controllers):
            mask = open_[cubes[s]]
            if turns[s]:
                mask = turned_mask(mask, turns[s])
            player = self.spare if s == SPARE else None
            key = (s << 4 | mask) if player is None else (player + 1) << 6 | s << 4 | mask
            ask = cache.get(key)
            if ask is None:
                role = "Pixoid" if s == self.pixoid else "Bug"
                text = f"{role}: arrow and distance"
                ask = cache[key] = Ask(
                    s, "pixoid.move", text, (DIRECTION_WHEELS[mask], DISTANCE_WHEEL, None),
                    None, player,
                )
            asks.append(ask)
        return asks

    def _direction(self, seat: int, face: int) -> int:
        """The board direction a left-wheel face means for this controller."""
        return (face // 2 + self.turns[seat]) % 4

    # ------------------------------------------------------------------ movement

    def _resolve(self, answers: dict[int, Selection]) -> bool:
        """Movement and Scoring of one turn; True when the round ends."""
        rays = self.board.rays
        cubes = self.cubes
        px = self.pixoid
        quiet = self.quiet
        sel = answers[px]
        start = cubes[px]
        path = rays[start * 4 + self._direction(px, sel[0])][: sel[1]]
        bug_pix = {cubes[b] for b in self.bugs}
        bonus = self.bonus
        got: list[int] = []
        end = start
        caught_at = -1
        won = False
        for q in path:
            end = q
            if q in bug_pix:
                caught_at = q
                break
            if q in bonus:
                bonus.discard(q)
                got.append(q)
                self.bonus_taken += 1
                if self.short and self._collected() >= SHORT_GAME_TARGET:
                    won = True
                    break
        cubes[px] = end
        if not quiet:
            self._moved(px, start, end, sel)
            for q in got:
                self.emit(
                    "pixoid.bonus",
                    f"Pixoid picks up the Bonus cube on {self.board.pix_name(q)}.",
                    pix=q, bonus_taken=self.bonus_taken,
                )
        if won:
            return self._short_game_won()
        if caught_at >= 0:
            if got and not self.options.bonus_before_catch:
                bonus.update(got)
                self.bonus_taken -= len(got)
            catchers = [b for b in self.bugs if cubes[b] == caught_at]
            return self._caught(catchers, caught_at, by_pixoid=True)
        # The Bugs move together; they pass over one another and stack freely.
        catchers = []
        for b in self.bugs:
            sel = answers[b]
            was = cubes[b]
            path = rays[was * 4 + self._direction(b, sel[0])][: sel[1]]
            if end in path:
                catchers.append(b)
                cubes[b] = end
            else:
                cubes[b] = path[-1]
            if not quiet:
                self._moved(b, was, cubes[b], sel)
        if catchers:
            return self._caught(catchers, end, by_pixoid=False)
        if not quiet:
            self._note_stacks()
        # Scoring: a cube from the reserve for surviving the turn.
        self.reserve -= 1
        if not quiet:
            self.emit(
                "pixoid.cube",
                f"Pixoid survives turn {self.turn} and takes a cube from the reserve "
                f"({self.reserve} left).",
                turn=self.turn, reserve=self.reserve,
            )
        if self.short and self._collected() >= SHORT_GAME_TARGET:
            return self._short_game_won()
        if self.reserve == 0:
            if not quiet:
                self.emit("pixoid.escaped", "Pixoid takes the last cube of the reserve!")
            return True
        return False

    def _collected(self) -> int:
        return RESERVE - self.reserve + self.bonus_taken

    def _moved(self, seat: int, was: int, now: int, sel: Selection) -> None:
        name = self.board.pix_name
        arrow = DIRECTION_WORDS[sel[0] // 2]
        self.emit(
            "pixoid.moved",
            f"{cap(self.cube_name(seat))} dials {arrow} {sel[1]}: "
            f"{name(was)} to {name(now)}.",
            seat=seat, path=[was, now], direction=self._direction(seat, sel[0]),
            distance=sel[1],
        )

    def _note_stacks(self) -> None:
        seen: dict[int, list[int]] = {}
        for b in self.bugs:
            seen.setdefault(self.cubes[b], []).append(b)
        for pix, stack in seen.items():
            if len(stack) > 1:
                names = " and ".join(self.cube_name(b) for b in stack)
                self.emit(
                    "pixoid.stacked",
                    f"{cap(names)} stack on {self.board.pix_name(pix)}.",
                    pix=pix, seats=stack,
                )

    def _caught(self, catchers: list[int], pix: int, by_pixoid: bool) -> bool:
        self.caught = True
        if not self.quiet:
            names = " and ".join(self.cube_name(b) for b in catchers)
            how = "Pixoid runs into" if by_pixoid else "Pixoid is caught by"
            self.emit(
                "pixoid.caught",
                f"{how} {names} on {self.board.pix_name(pix)}!",
                pix=pix, catchers=catchers, by_pixoid=by_pixoid,
            )
        return True

    def _short_game_won(self) -> bool:
        if not self.quiet:
            self.emit(
                "pixoid.won",
                f"Pixoid collects his {SHORT_GAME_TARGET}th neutral cube and wins!",
                collected=self._collected(),
            )
        return True

    def _pass_spare(self) -> None:
        bug_players = [p for p in range(self.players) if p != self.pixoid]
        assert self.spare is not None
        self.spare = bug_players[1] if self.spare == bug_players[0] else bug_players[0]
        if self.options.arrows == "seat":
            self.turns[SPARE] = EDGE_TURNS[self.spare]
        if not self.quiet:
            self.emit(
                "pixoid.spare",
                f"The spare controller passes to {self.seat_name(self.spare)}.",
                holder=self.spare,
            )

    # ------------------------------------------------------------------ scoring

    def _end_round(self) -> None:
        taken = RESERVE - self.reserve
        if self.short:
            pixoid_wins = not self.caught
            self.history.append({
                "round": self.round, "pixoid": self.pixoid, "caught": self.caught,
                "taken": taken, "bonus": self.bonus_taken, "pixoid_wins": pixoid_wins,
            })
            return
        if self.caught:
            pixoid_points = taken + self.bonus_taken
            bug_points = self.reserve
        else:
            pixoid_points = RESERVE + self.bonus_taken
            bug_points = 0
        points = [bug_points] * self.players
        points[self.pixoid] = pixoid_points
        for p in range(self.players):
            self.scores[p] += points[p]
        self.history.append({
            "round": self.round, "pixoid": self.pixoid, "caught": self.caught,
            "taken": taken, "bonus": self.bonus_taken, "points": points,
        })
        if not self.quiet:
            self.emit(
                "pixoid.scored",
                f"Round {self.round}: Pixoid scores {pixoid_points}, each Bug {bug_points}.",
                round=self.round, points=points, scores=list(self.scores),
            )

    def _end_game(self) -> None:
        if self.short:
            last = self.history[-1]
            if last["pixoid_wins"]:
                winners = [self.pixoid]
                text = f"{cap(self.seat_name(self.pixoid))} (Pixoid) wins the short game."
            else:
                winners = [p for p in range(self.players) if p != self.pixoid]
                text = f"The Bugs ({whom(winners)}) catch Pixoid and win together."
            scores = {p: int(p in winners) for p in range(self.players)}
        else:
            top = max(self.scores)
            winners = [p for p in range(self.players) if self.scores[p] == top]
            names = whom(winners)
            text = (f"{names} share the victory with {top} points." if len(winners) > 1
                    else f"{names} wins with {top} points.")
            scores = dict(enumerate(self.scores))
        self.result = Result(scores, winners, text, {"rounds": list(self.history)})
        if not self.quiet:
            self.emit("game.over", text, winners=winners, scores=list(scores.values()))

    # ------------------------------------------------------------------ state

    def snapshot(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "rounds": self.rounds,
            "turn": self.turn,
            "pixoid": self.pixoid,
            "cubes": list(self.cubes),
            "bonus": sorted(self.bonus),
            "reserve": self.reserve,
            "bonus_taken": self.bonus_taken,
            "caught": self.caught,
            "scores": list(self.scores),
            "spare": self.spare,
            "turns": list(self.turns),
            "history": [dict(h) for h in self.history],
            "result": self.result.to_json() if self.result is not None else None,
        }

    def view(self, seat: int | None) -> dict[str, Any]:
        """Everything on the table is public in Pixoid; only sealed choices are hidden
        (pending_view shows a player its own locked choices and who else has locked)."""
        v = self.snapshot()
        v["board"] = self.board.public()
        v["players"] = self.players
        v["short"] = self.short
        v["you"] = seat
        if seat is not None:
            v["role"] = "pixoid" if seat == self.pixoid else "bug"
            v["controllers"] = [s for s in range(self.controllers) if self.answerer_now(s) == seat]
        v["pending"] = self.pending_view(seat)
        return v

    def answerer_now(self, seat: int) -> int:
        """The player dialling this controller now (the spare's holder for the spare)."""
        if seat == SPARE and self.players == 3:
            return self.spare if self.spare is not None else (self.pixoid + 1) % 3
        return seat


GAME = Pixoid

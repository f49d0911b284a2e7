"""The console: an idle table's menu on the controllers, games started and restarted from it,
names, and a journal that keeps every game of the table."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from dialbox.console.console import Console, segments
from dialbox.console.menu import (
    ACTIONS,
    LETTERS,
    NAME,
    PLAY,
    REMATCH,
    SWAP,
    LastGame,
    Menu,
    Named,
    Start,
    counts,
    why_not,
)
from dialbox.daemon.config import ConfigError, parse_config
from dialbox.doubles import ControllerDouble
from dialbox.engine.bots import LegalAnswers, SeatView
from dialbox.engine.registry import game_info, game_names
from dialbox.journal import Journal
from dialbox.journal.entries import MenuEntry, NameEntry, TableEntry, parse
from dialbox.runner.replay import audit
from dialbox.runner.runner import SeatPlan
from dialbox.runner.settings import TableSettings
from dialbox_protocol import codec
from tests.host.harness import TABLE, doubles, running_daemon, table_config, wait_for

# ---------------------------------------------------------------------- the menu, pure


def _menu(humans: int = 2, **kw: Any) -> Menu:
    return Menu(humans={i: f"u{i}" for i in range(humans)}, new_seed=lambda: 77, **kw)


def _pick(menu: Menu, seat: int, **want: str) -> tuple[int, int, int]:
    """The selection on `seat`'s ask whose wheels show the wanted labels (others: start)."""
    ask = menu.asks()[seat]
    sel = []
    for label, wheel in zip(ask.labels, ask.wheels, strict=True):
        if wheel is None:
            sel.append(-1)
            continue
        target = want.get(label or "")
        sel.append(wheel.start if target is None else
                   [f.label for f in wheel.faces].index(target))
    assert why_not(ask, (sel[0], sel[1], sel[2])) is None, (want, ask)
    return sel[0], sel[1], sel[2]


def _choose(menu: Menu, chooser: int, game: str, players: str, **options: str) -> Any:
    assert menu.answer(chooser, (PLAY, -1, -1)) is None
    title = game_info(game).title
    labels = [f.label for f in menu.asks()[chooser].wheels[0].faces]  # type: ignore[union-attr]
    short = next(label for label in labels if title.replace(" ", "").startswith(label)
                 or title.startswith(label))
    assert menu.answer(chooser, _pick(menu, chooser, Game=short)) is None
    out = menu.answer(chooser, _pick(menu, chooser, Players=players))
    while menu.stage == "options":
        out = menu.answer(chooser, _pick(menu, chooser, **options))
    return out


def test_idle_asks_every_seat_and_offers_rematch_only_after_a_game() -> None:
    menu = _menu(3)
    asks = menu.asks()
    assert sorted(asks) == [0, 1, 2]
    wheel = asks[0].wheels[0]
    assert wheel is not None and [f.label for f in wheel.faces] == list(ACTIONS)
    assert REMATCH not in wheel.allowed and SWAP not in wheel.allowed
    assert "no game played yet" in (why_not(asks[0], (REMATCH, -1, -1)) or "")
    last = LastGame(1, "pixoid", {"players": 4, "seed": 1}, None,
                    (SeatPlan("u0"), SeatPlan("u1"), SeatPlan(bot=True), SeatPlan(bot=True)))
    again = _menu(2, last=last).asks()[0].wheels[0]
    assert again is not None and {REMATCH, SWAP} <= again.allowed


def test_games_and_player_counts_offered_fit_the_controllers_present() -> None:
    for humans in (1, 2, 4, 5, 6):
        menu = _menu(humans)
        menu.answer(0, (PLAY, -1, -1))
        wheel = menu.asks()[0].wheels[0]
        assert wheel is not None
        for i, name in enumerate(menu.games):
            info = game_info(name)
            fits = any(humans <= (info.seats({"players": n}) or 0) <= 6 for n in info.players)
            assert (i in wheel.allowed) == fits, (humans, name)
            for n in counts(info, humans):
                assert info.seats({"players": n}) >= humans
    # five people cannot play a 2-3 player game (PIP Cycle): it is not offered
    menu = _menu(5)
    menu.answer(0, (PLAY, -1, -1))
    wheel = menu.asks()[0].wheels[0]
    assert wheel is not None and menu.games.index("pipcycle") not in wheel.allowed


def test_play_pixoid_with_bots_after_a_majority_vote() -> None:
    menu = _menu(3)
    assert _choose(menu, 1, "pixoid", "4", bonus_before_catch="off") is None
    assert menu.stage == "vote" and menu.voters == (0, 2)
    assert sorted(menu.asks()) == [0, 2]  # the chooser is not asked to vote
    start = menu.answer(0, (0, -1, -1))  # yes: 2 of 3 is a majority
    assert isinstance(start, Start)
    assert start.how == "menu" and start.game == "pixoid"
    assert start.options["players"] == 4 and start.options["seed"] == 77
    assert start.options["bonus_before_catch"] is False
    assert [p.uid for p in start.seats] == ["u0", "u1", "u2", None]
    assert start.seats[3].bot
    game_info("pixoid").game(start.options)  # a legal game
    assert menu.stage == "idle"


def test_a_vote_fails_as_soon_as_no_majority_is_left() -> None:
    menu = _menu(4)
    _choose(menu, 0, "stadium", "4")
    assert menu.answer(1, (1, -1, -1)) is None  # no
    assert menu.stage == "vote"
    assert menu.answer(2, (1, -1, -1)) is None  # no: 1 yes + 1 waiting < 3
    assert menu.stage == "idle" and "Vote failed" in menu.note


def test_alone_the_chooser_starts_at_once_and_a_leaving_voter_decides_the_vote() -> None:
    assert isinstance(_choose(_menu(1), 0, "trial-of-the-gods", "1"), Start)
    menu = _menu(3)
    _choose(menu, 0, "pixoid", "3")
    assert isinstance(menu.answer(1, (0, -1, -1)), Start)  # 2 of 3
    menu = _menu(3)
    _choose(menu, 0, "pixoid", "3")
    menu.answer(1, (1, -1, -1))  # no: 1 for, 1 against, 1 waiting
    assert menu.stage == "vote"
    assert menu.left(2) is None and menu.stage == "idle"  # 1 of 2 is no majority


def test_rematch_keeps_seats_and_swap_moves_everyone_one_on() -> None:
    seats = (SeatPlan("u0"), SeatPlan("u1"), SeatPlan(bot=True), SeatPlan(bot=True))
    last = LastGame(3, "pixoid", {"players": 4, "seed": 1, "variant": "short"}, "random",
                    seats)
    menu = _menu(2, last=last)
    again = menu.answer(1, (REMATCH, -1, -1))
    assert isinstance(again, Start) and again.how == "rematch"
    assert [p.uid for p in again.seats] == ["u0", "u1", None, None]
    assert again.options == {"players": 4, "seed": 77, "variant": "short"}
    assert again.bot == "random"
    swap = _menu(2, last=last).answer(0, (SWAP, -1, -1))
    assert isinstance(swap, Start) and swap.how == "swap"
    assert [p.uid for p in swap.seats] == [None, "u0", "u1", None]
    # a controller that left: its place goes to a bot
    gone = _menu(1, last=last).answer(0, (REMATCH, -1, -1))
    assert isinstance(gone, Start) and [p.bot for p in gone.seats] == [False, True, True, True]


def test_names_are_spelled_three_letters_a_press_or_picked_from_the_recent() -> None:
    menu = _menu(2)
    menu.answer(1, (NAME, -1, -1))
    assert menu.stage == "spell"  # no recent names yet
    for letter in "BOB":
        assert menu.answer(1, (LETTERS.index(letter), -1, 0)) is None
    assert menu.spelled == "BOB"
    named = menu.answer(1, (LETTERS.index("S"), -1, 1))  # the last letter, and done
    assert named == Named("u1", "Bobs") and menu.recent == ["Bobs"]
    menu.answer(0, (NAME, -1, -1))
    assert menu.stage == "name"
    assert menu.answer(0, _pick(menu, 0, Name="Bobs")) == Named("u0", "Bobs")
    # END at once: no name, back to idle
    menu.answer(0, (NAME, -1, -1))
    menu.answer(0, _pick(menu, 0, Name="Spell"))
    assert menu.answer(0, (0, -1, 0)) is None and menu.stage == "idle"
    # eight letters at most: the eighth is the last
    menu.answer(0, (NAME, -1, -1))
    menu.answer(0, _pick(menu, 0, Name="Spell"))
    for _ in range(7):
        assert menu.answer(0, (LETTERS.index("X"), -1, 0)) is None
    last = menu.asks()[0].wheels[2]
    assert last is not None and last.allowed == {1}
    assert menu.answer(0, (LETTERS.index("Y"), -1, 1)) == Named("u0", "Xxxxxxxy")


def test_every_menu_prompt_fits_one_frame() -> None:
    from dialbox.console.console import Console
    from dialbox_protocol.frames import to_frame

    def fits(menu: Menu) -> None:
        for ask in menu.asks().values():
            to_frame(Console._prompt(codec.MAX_PID, ask), codec.MAX_SEQ)  # raises if over

    menu = _menu(6, recent=[f"Name{i:04d}" for i in range(40)])
    fits(menu)
    for stage in ("name", "spell"):
        menu.stage, menu.chooser = stage, 0
        fits(menu)
    for name in game_names():
        info = game_info(name)
        for humans in range(1, 7):
            if not counts(info, humans):
                continue
            menu = _menu(humans)
            menu.answer(0, (PLAY, -1, -1))
            fits(menu)
            menu.answer(0, (menu.games.index(name), -1, -1))
            fits(menu)
            menu.answer(0, _pick(menu, 0))
            while menu.stage == "options":
                fits(menu)
                menu.answer(0, _pick(menu, 0))
            fits(menu)


def test_every_game_can_be_chosen_and_every_option_page_gives_legal_options() -> None:
    for name in game_names():
        info = game_info(name)
        n = str(min(counts(info, 1)))
        out = _choose(_menu(1), 0, name, n)
        assert isinstance(out, Start), name
        info.game(out.options)


# ---------------------------------------------------------------------- the console


def test_config_without_a_game_starts_in_the_menu_and_needs_no_players() -> None:
    cfg = parse_config({"tables": [{"name": "t"}]}, "test")
    assert cfg.tables[0].game is None and cfg.tables[0].menu
    with pytest.raises(ConfigError, match="need a game"):
        parse_config({"tables": [{"name": "t", "players": 3}]}, "test")
    with pytest.raises(ConfigError, match="players"):
        parse_config({"tables": [{"name": "t", "game": "pixoid"}]}, "test")


def _console(tmp_path: Path, **kw: Any) -> tuple[Console, Journal]:
    journal = Journal(tmp_path / "journal.sqlite")
    settings = TableSettings(name=TABLE, game="", players=0, pairing="auto")
    return Console(settings, journal, **kw), journal


def test_a_fresh_table_without_a_game_journals_its_menu(tmp_path: Path) -> None:
    console, journal = _console(tmp_path)
    assert console.phase == "menu"
    state = console.state()
    assert state.phase == "menu" and state.menu is not None and state.menu.stage == "idle"
    assert state.game == "" and state.number == 0
    kinds = [parse(e) for e in journal.entries(TABLE)]
    assert isinstance(kinds[0], MenuEntry)
    journal.close()


def _driver(console: Console, ds: list[ControllerDouble]) -> asyncio.Task[None]:
    """Controllers whose players answer every game prompt with the seat bot's choice (the
    menu is left to the test)."""
    from dialbox.engine.bots import RandomBot

    async def run() -> None:
        while True:
            await asyncio.sleep(0.01)
            if console.runner is None:
                continue
            box, d = console.box, console.game.pending
            for c in ds:
                p = c.prompt
                if (box is None or d is None or p is None or p["pid"] != box.pid
                        or c.seat is None or c.state not in ("idle", "editing")
                        or c.seat not in d.seat_set):
                    continue
                ask = d.ask_for(c.seat)
                bot = RandomBot(c.seat)
                c.sel = list(bot.choose(SeatView(console.game, ask.answerer), ask,
                                        LegalAnswers(console.game, ask)))
                c.lock()

    return asyncio.create_task(run())


def _menu_prompt(c: ControllerDouble) -> dict[str, Any] | None:
    p = c.prompt
    return p if p is not None and c.state in ("idle", "editing") else None


async def _answer(console: Console, c: ControllerDouble, sel: tuple[int, ...] | None = None,
                  **want: str) -> None:
    """Dial the faces labelled `want` (by the menu's wheel names; or the selection `sel`)
    on the open menu prompt of `c` and press."""
    await wait_for(lambda: c.seat in console.open and _menu_prompt(c) is not None
                   and _menu_prompt(c)["pid"] == console.open[c.seat][0],  # type: ignore[index]
                   what=f"a menu prompt on {c.uid}")
    pid, ask = console.open[c.seat]  # type: ignore[index]
    if sel is None:
        picked = []
        for label, wheel in zip(ask.labels, ask.wheels, strict=True):
            if wheel is None:
                picked.append(-1)
            elif label in want:
                picked.append([f.label for f in wheel.faces].index(want[label]))
            else:
                picked.append(wheel.start)
        sel = tuple(picked)
    c.sel = list(sel)
    if ask.live:
        c.send("dial", pid, list(sel))
        await wait_for(lambda: console.dial == tuple(sel), what="the live dial")
    c.lock()
    await wait_for(lambda: c.seat not in console.open or console.open[c.seat][0] != pid,
                   what="the menu to take the answer")


@pytest.mark.timeout(120)
def test_choose_play_rematch_and_name_from_the_controllers(tmp_path: Path) -> None:
    async def main() -> None:
        uids = ["menu-a", "menu-b"]
        cfg = table_config(tmp_path, uids=uids, pairing="auto")
        table = cfg["tables"][0]
        for k in ("game", "players", "seed", "bots", "options"):
            table.pop(k)
        table["menu"] = True
        async with running_daemon(cfg) as daemon, doubles(tmp_path, uids, auto=False) as ds:
            console = daemon.runners[TABLE]
            a, b = ds
            await wait_for(lambda: a.seat is not None and b.seat is not None, what="seats")
            states: list[Any] = []
            console.feed.listen(states.append)
            # B takes a name first
            await _answer(console, b, Action="Name")
            letter = LETTERS.index
            for ch, then in (("A", 0), ("N", 0), ("N", 1)):
                await _answer(console, b, sel=(letter(ch), -1, then))
            await wait_for(lambda: console.names.get("menu-b") is not None, what="the name")
            assert console.names["menu-b"] == "Ann"
            # A opens the menu: B's idle prompt closes
            await _answer(console, a, Action="Play")
            assert console.menu is not None and console.menu.chooser == a.seat
            assert console.state().menu.chooser == a.seat  # type: ignore[union-attr]
            await _answer(console, a, Game="Pixoid")
            await _answer(console, a, Players="4", Variant="short")
            while console.menu is not None and console.menu.stage == "options":
                await _answer(console, a)
            # the live wheels reached the screen while A turned them
            seen = [s.menu.wheels[0].at for s in states if s.menu is not None
                    and s.menu.stage == "game" and s.menu.wheels[0] is not None]
            assert seen, "no live menu state was published"
            driver = _driver(console, ds)
            try:
                await _answer(console, b, Vote="Yes")
                await wait_for(lambda: console.phase == "game", what="the game to start")
                assert console.state().number == 1
                names = {s.uid: s.player for s in console.state().seats}
                assert names["menu-b"] == "Ann"
                await wait_for(lambda: console.phase == "menu" and console.number == 1,
                               timeout=90, what="the end of the game")
                result = console.game.result
                assert result is not None
                await _answer(console, b, Action="Rematch")
                await wait_for(lambda: console.number == 2, what="the rematch")
                await wait_for(lambda: console.phase == "menu", timeout=90,
                               what="the end of the rematch")
            finally:
                driver.cancel()
        journal = Journal(tmp_path / "journal.sqlite", readonly=True)
        try:
            steps = [(e.n, parse(e)) for e in journal.entries(TABLE)]
            done = audit(TABLE, journal.entries(TABLE))  # every game to its state hashes
            assert done.games == 2 and done.steps >= 2
        finally:
            journal.close()
        heads = [s[0][1] for s in segments(steps)]
        kinds = [type(h).__name__ for h in heads]
        assert kinds == ["MenuEntry", "TableEntry", "MenuEntry", "TableEntry", "MenuEntry"]
        first, second = heads[1], heads[3]
        assert isinstance(first, TableEntry) and isinstance(second, TableEntry)
        assert (first.game, first.how, second.how) == ("pixoid", "menu", "rematch")
        assert first.options["variant"] == "short" == second.options["variant"]
        assert first.options["seed"] != second.options["seed"]
        assert any(isinstance(s, NameEntry) and s.name == "Ann" for _n, s in steps)

    asyncio.run(main())


@pytest.mark.timeout(120)
def test_a_restarted_daemon_resumes_the_menu_and_the_names(tmp_path: Path) -> None:
    async def main() -> None:
        uids = ["menu-a"]
        cfg = table_config(tmp_path, uids=uids, pairing="auto")
        for k in ("game", "players", "seed", "bots", "options"):
            cfg["tables"][0].pop(k)
        cfg["tables"][0]["menu"] = True
        async with running_daemon(cfg) as daemon, doubles(tmp_path, uids, auto=False) as ds:
            console = daemon.runners[TABLE]
            (a,) = ds
            await wait_for(lambda: a.seat is not None, what="a seat")
            await _answer(console, a, Action="Name")
            await _answer(console, a, sel=(LETTERS.index("Z"), -1, 1))
            await wait_for(lambda: console.names.get("menu-a") == "Z", what="the name")
            await _answer(console, a, Action="Play")
            pid_before = console.open[a.seat][0]  # type: ignore[index]
        async with running_daemon(cfg) as daemon, doubles(tmp_path, uids, auto=False) as ds:
            console = daemon.runners[TABLE]
            (a,) = ds
            assert console.phase == "menu" and console.names == {"menu-a": "Z"}
            await wait_for(lambda: a.seat in console.open, what="the idle menu again")
            assert console.open[a.seat][0] > pid_before  # type: ignore[index]  (never again)
            assert console.state().seats[0].player == "Z"

    asyncio.run(main())

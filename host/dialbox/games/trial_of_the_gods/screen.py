"""Trial of the Gods drawn for a terminal (rich): the round/phase clock, the Initiative order
with whose turn it is and who passed, every player's public tracks, the Olympics (card, Fervor,
each Competition's revealed values, who has locked the one being dialled, skills dice, ranking
and prizes), the last fight, and at the end the rankings with where each VP came from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from dialbox.engine.seats import PLAYER_COLOURS

PHASES = ("dawn", "adventure", "enemy", "olympics", "sunset")
TITLES = {"dawn": "Dawn", "adventure": "Adventure", "enemy": "Enemy", "olympics": "Olympics",
          "sunset": "Sunset", "end": "End of Game", "setup": "Setup"}
UPGRADES = {"attack": "Atk+1", "discovery": "Disc+1", "fervor": "Ferv+1", "energy": "Ener+2",
            "vigor_limit": "Limit+2", "blessing": "Blessing"}


def seat_style(seat: int | None) -> str:
    """The seat's colour as on the table (Red, Blue, Green ...)."""
    if seat is None or not 0 <= seat < len(PLAYER_COLOURS):
        return "white"
    return f"#{PLAYER_COLOURS[seat][1]}"


def seat_label(seat: int) -> str:
    """The seat's colour name (the game's own texts say Red, Blue ...)."""
    return PLAYER_COLOURS[seat][0] if 0 <= seat < len(PLAYER_COLOURS) else f"Seat {seat + 1}"


def who(seat: int) -> Text:
    return Text(seat_label(seat), style=f"bold {seat_style(seat)}")


def ordinal(n: int) -> str:
    suffix = "th" if 10 < n % 100 < 14 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def draw(view: Mapping[str, Any]) -> RenderableType:
    """The public view (or a seat's: they differ only in the Dawn offer) as rich renderables."""
    parts: list[RenderableType] = [_clock(view), _initiative(view)]
    final = view.get("final")
    if final:
        parts.append(_final(final))
    live = bool(view.get("olympics"))
    if live:  # the Olympics being played first; otherwise the last results after the tracks
        parts.extend(_olympics(view))
    fight = _last_fight(view)
    if fight is not None:
        parts.append(fight)
    enemies = view.get("enemies") or {}
    if enemies:
        parts.append(Text("Enemies: " + ", ".join(f"{n} {s}" for n, s in enemies.items()),
                          style="dim"))
    parts.append(_tracks(view))
    if not live:
        parts.extend(_olympics(view))
    result = view.get("result")
    if result and not final:
        parts.append(Text(str(result.get("text", "")), style="bold green"))
    return Group(*parts)


# ---------------------------------------------------------------------- clock, Initiative


def _clock(view: Mapping[str, Any]) -> Text:
    phase = str(view.get("phase", ""))
    rnd, rounds = int(view.get("round", 0)), int(view.get("rounds", 0))
    out = Text()
    out.append("Trial of the Gods  ", style="bold")
    if phase == "end":
        out.append(f"all {rounds} rounds played  ", style="bold")
    else:
        out.append(f"round {rnd} of {rounds}  ", style="bold")
    for k in range(1, rounds + 1):
        out.append("●" if k < rnd or (k == rnd and phase == "end") else
                   "◉" if k == rnd else "○", style="yellow" if k == rnd else "dim")
    out.append("   ")
    at = PHASES.index(phase) if phase in PHASES else len(PHASES)
    for k, p in enumerate(PHASES):
        if p == phase:
            out.append(f"[{TITLES[p].upper()}]", style="bold black on yellow")
        else:
            out.append(f" {TITLES[p]} ", style="white" if k < at else "dim")
        if k + 1 < len(PHASES):
            out.append(">", style="dim")
    if phase == "end":
        out.append("  [END OF GAME]", style="bold black on yellow")
    deck = view.get("olympics_deck")
    if isinstance(deck, int):
        out.append(f"   Olympics deck {deck}", style="dim")
    return out


def _initiative(view: Mapping[str, Any]) -> Text:
    phase = view.get("phase")
    passed = set(view.get("passed") or ())
    active = view.get("active")
    out = Text("Initiative: ", style="dim")
    for k, s in enumerate(view.get("initiative") or ()):
        if k:
            out.append(" > ", style="dim")
        label = f"{k + 1}. {seat_label(s)}"
        if phase == "adventure" and s == active:
            out.append(f"{label} (turn)", style=f"bold reverse {seat_style(s)}")
        elif phase == "adventure" and s in passed:
            out.append(f"{label} (passed)", style=f"strike {seat_style(s)}")
        else:
            out.append(label, style=f"bold {seat_style(s)}")
    offer = view.get("offer")
    if offer:
        out.append(f"   {seat_label(int(offer[0]))} is choosing this round's Olympics card",
                   style="italic")
    pending = view.get("pending")
    if pending:
        locked = set(pending.get("locked") or ())
        seats = list(pending.get("seats") or ())
        if pending.get("sealed") and len(seats) > 1:
            out.append(f"   {len(locked)}/{len(seats)} locked", style="dim")
        out.append_text(_asking(pending))
    return out


def _asking(pending: Mapping[str, Any]) -> Text:
    """What the pending decision asks, in its prompt's words: "Now: Red, Blue: <text>"."""
    by_text: dict[str, list[int]] = {}
    for a in pending.get("asks") or ():
        by_text.setdefault(str(a["text"]), []).append(int(a["seat"]))
    out = Text()
    for text, seats in by_text.items():
        out.append("\nNow: ", style="bold")
        for k, s in enumerate(seats):
            out.append(", " if k else "")
            out.append(seat_label(s), style=f"bold {seat_style(s)}")
        out.append(f": {text}")
    return out


# ---------------------------------------------------------------------- tracks


def _tracks(view: Mapping[str, Any]) -> Table:
    table = Table(title="Public tracks", title_justify="left", expand=False, show_lines=False)
    for col in ("Player", "Vigor", "Limit", "Hand", "Energy", "Champ", "Dishonor", "Compan",
                "Temples", "Explore", "Tamed (Laurels)", "Upgrades"):
        table.add_column(col, justify="left" if col in ("Player", "Tamed (Laurels)",
                                                        "Upgrades") else "right")
    tracks: Sequence[Mapping[str, Any]] = view.get("tracks") or ()
    order = [s for s in (view.get("initiative") or range(len(tracks))) if s < len(tracks)]
    for s in order:
        t = tracks[s]
        limit = t.get("vigor_limit")
        vigor = Text("■" * int(t["vigor"]), style="red")
        vigor.append(f" {t['vigor']}")
        tamed = ", ".join(f"{m['name']} {m['laurels']}" for m in t.get("tamed") or ())
        explore = f"{t['islands']}" + (f" ({t['fleece']} Fleece)" if t.get("fleece") else "")
        table.add_row(
            who(s), vigor, "—" if limit is None else str(limit), str(t["hand_limit"]),
            f"{t['available']} avail / {t['exhausted']} exh", str(t["champions"]),
            str(t["dishonor"]), str(t["companions"]), str(t["temples"]), explore,
            (tamed + f" = {t['tamed_laurels']}") if tamed else "—",
            " ".join(UPGRADES.get(u, u) for u in t.get("upgrades") or ()) or "—",
        )
    return table


# ---------------------------------------------------------------------- the Olympics


def _olympics_round(view: Mapping[str, Any]) -> int:
    """Which round's Olympics `competitions` and `olympics_result` belong to (they stay in the
    view until the next Olympics begins; each record says its round)."""
    for record in (view.get("olympics_result"), *(view.get("competitions") or ())):
        if record and "round" in record:
            return int(record["round"])
    return 0


def _card(view: Mapping[str, Any], name: str | None) -> Text | None:
    card = (view.get("cards") or {}).get(name) if name else None
    if card is None:
        return None
    out = Text()
    out.append(f"{name}: ", style="bold")
    out.append(" / ".join(card["disciplines"]))
    out.append(f"  (tiebreakers {', '.join(card['tiebreakers'])})", style="dim")
    for k, prize in enumerate(card["prizes"]):
        out.append(f"\n  {ordinal(k + 1)}: {prize}", style="dim")
    return out


def _fervor(fervor: Mapping[str, Any], order: Sequence[int], title: str) -> Text:
    out = Text(f"{title}: ", style="bold")
    for k, s in enumerate(order):
        if k:
            out.append("  ")
        out.append_text(who(s))
        out.append(f" {fervor.get(str(s), 0)}")
    return out


def _competitions(view: Mapping[str, Any], order: Sequence[int], live: bool) -> Table | None:
    reveals: Sequence[Mapping[str, Any]] = view.get("competitions") or ()
    ol = view.get("olympics")
    pending = view.get("pending")
    dialling = (live and ol is not None and int(ol["competitions"]) < 3 and pending is not None
                and bool(pending.get("sealed")) and len(reveals) == int(ol["competitions"]))
    if not reveals and not dialling:
        return None
    table = Table(title="Competitions (revealed together)", title_justify="left")
    table.add_column("#")
    for s in order:
        table.add_column(who(s))
    for c in reveals:
        cells: list[RenderableType] = []
        for s in order:
            p = (c.get("plays") or {}).get(str(s))
            if p is None:
                cells.append("—")
                continue
            values = " ".join(f"{k} {n}" for k, n in p["values"].items())
            if p.get("total") is not None:
                values = f"sum {p['total']}"
            if p.get("fervor") is None:
                cells.append(Text(f"{values}: numbers or Effect?", style="italic"))
                continue
            effect = "" if p.get("effect") is None else f" effect {p['effect']}"
            cells.append(Text(f"+{p['fervor']}  ({values}{effect})"))
        table.add_row(str(c["competition"]), *cells)
    if dialling and ol is not None and pending is not None:
        locked = set(pending.get("locked") or ())
        asked = set(pending.get("seats") or ())
        table.add_row(str(int(ol["competitions"]) + 1), *(
            Text("locked", style="bold green") if s in locked else
            Text("dialling…", style="italic dim") if s in asked else Text("—")
            for s in order))
    return table


def _olympics(view: Mapping[str, Any]) -> list[RenderableType]:
    ol = view.get("olympics")
    order = list(view.get("initiative") or ())
    revealed: Sequence[str] = view.get("revealed") or ()
    rnd = int(view.get("round", 0))
    out: list[RenderableType] = []
    if ol:
        out.append(Text(f"Olympics, round {rnd}: Competition "
                        f"{min(int(ol['competitions']) + 1, 3)} of 3", style="bold magenta"))
        card = _card(view, ol["card"])
        if card is not None:
            out.append(card)
        out.append(_fervor(ol.get("fervor") or {}, order, "Fervor"))
        comps = _competitions(view, order, live=True)
        if comps is not None:
            out.append(comps)
        skills = _skills(view, order)
        if skills is not None:
            out.append(skills)
        return out
    ro = _olympics_round(view)
    if len(revealed) == rnd and ro != rnd:
        card = _card(view, revealed[-1])
        if card is not None:
            out.append(Text(f"Round {rnd} Olympics card", style="bold magenta"))
            out.append(card)
    result = view.get("olympics_result")
    if not result and not view.get("competitions"):
        return out
    ranking = list(result["ranking"]) if result else order
    out.append(Text(f"Olympics of round {ro}", style="bold magenta"))
    if 0 < ro <= len(revealed):
        card = _card(view, revealed[ro - 1])
        if card is not None:
            out.append(card)
    comps = _competitions(view, ranking, live=False)
    if comps is not None:
        out.append(comps)
    skills = _skills(view, ranking)
    if skills is not None:
        out.append(skills)
    if result:
        out.append(_fervor(result.get("fervor") or {}, ranking, "Final Fervor"))
        table = Table(title="Olympics ranking", title_justify="left")
        for col in ("Place", "Player", "Fervor", "Prize"):
            table.add_column(col)
        awards = {int(a["seat"]): a for a in result.get("awards") or ()}
        for k, s in enumerate(ranking):
            a = awards.get(s)
            table.add_row(ordinal(k + 1), who(s), str((result.get("fervor") or {}).get(str(s), "")),
                          a["prize"] if a else "—")
        out.append(table)
    return out


def _skills(view: Mapping[str, Any], order: Sequence[int]) -> Text | None:
    rolls: Mapping[str, Sequence[str]] = view.get("skill_rolls") or {}
    if not rolls:
        return None
    out = Text("Skills dice: ", style="bold")
    for s in order:
        if str(s) in rolls:
            out.append_text(who(s))
            faces = rolls[str(s)]
            out.append(" " + (" ".join(f"[{f}]" for f in faces) if faces else "none") + "  ")
    return out


# ---------------------------------------------------------------------- fights


def _last_fight(view: Mapping[str, Any]) -> Text | None:
    fights: Sequence[Mapping[str, Any]] = view.get("fights") or ()
    if not fights:
        return None
    f = fights[-1]
    pa, ea, enemy, dmg = f["player_attack"], f["enemy_attack"], f["enemy"], f["damage"]
    dice = " ".join("[⚡]" if d == "activation" else f"[{d}]" for d in ea.get("dice") or ())
    winner = f.get("winner")
    out = Text(f"Last fight (round {f['round']}): ", style="bold")
    out.append_text(who(int(f["seat"])))
    out.append(f" Attack {pa['total']}  vs  {enemy['name']} Attack {ea['total']}"
               f" = {ea['value']} + dice {dice or 'none'}"
               + (f" + Skill {ea['skill']}" if ea.get("skill") else ""))
    text = ("player wins" if winner == "player" else "Enemy wins" if winner == "enemy"
            else "tie, no winner")
    out.append(f"  ->  {text}, Damage {dmg['total']}", style="bold")
    parts = [f"{dmg['regular']}"]
    if dmg.get("bonus"):
        parts.append(f"{dmg['bonus']} Bonus")
    if dmg.get("extra"):
        parts.append(f"{dmg['extra']} extra")
    if len(parts) > 1:
        out.append(f" ({' + '.join(parts)})")
    notes = f.get("notes") or ()
    if notes:
        out.append("\n  " + "; ".join(notes), style="dim")
    return out


# ---------------------------------------------------------------------- the end


def _final(final: Mapping[str, Any]) -> RenderableType:
    rankings: Sequence[Mapping[str, Any]] = final.get("rankings") or ()
    table = Table(title="Final rankings: where each VP came from", title_justify="left")
    table.add_column("")
    table.add_column("Player")
    for r in rankings:
        table.add_column(f"{r['label']} ({'/'.join(str(x) for x in r['vp_table'])})")
    table.add_column("VP", justify="right")
    players = {int(p["seat"]): p for p in final.get("players") or ()}
    winner = final.get("winner") or {}
    for k, s in enumerate(final.get("standings") or players):
        p = players.get(int(s))
        if p is None:
            continue
        src = {x["ranking"]: x for x in p.get("sources") or ()}
        cells: list[RenderableType] = []
        for r in rankings:
            x = src.get(r["ranking"])
            if x is None:
                cells.append("—")
                continue
            place = ordinal(int(x["position"])) if x.get("position") else "unranked"
            cell = Text(f"{x['vp']} VP", style="bold")
            cell.append(f" {place}, {x['laurels']} Laurels", style="")
            if x.get("note"):
                cell.append(f"\n{x['note']}", style="dim")
            cells.append(cell)
        name = who(int(s))
        if int(s) == winner.get("seat"):
            name.append(" ★", style="bold yellow")
        table.add_row(ordinal(k + 1), name, *cells, Text(str(p["vp"]), style="bold"))
    out: list[RenderableType] = [table]
    if winner:
        w = Text()
        w.append(f"{seat_label(int(winner['seat']))} wins with {winner['vp']} VP",
                 style=f"bold {seat_style(int(winner['seat']))}")
        if winner.get("decided_by") == "vp":
            w.append(" (most Victory Points)")
        else:
            others = [seat_label(int(s)) for s in winner.get("tied_for_most") or ()
                      if s != winner["seat"]]
            w.append(f" (tied with {', '.join(others)}; decided by "
                     f"{winner.get('decided_by_label', winner.get('decided_by'))})")
        for st in winner.get("steps") or ():
            values = ", ".join(f"{seat_label(int(x['seat']))} {x['value']}" for x in st["values"])
            remaining = ", ".join(seat_label(int(s)) for s in st["remaining"])
            w.append(f"\n  {st['label']}: {values} -> {remaining}", style="dim")
        out.append(w)
    return Group(*out)

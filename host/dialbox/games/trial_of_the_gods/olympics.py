"""The Olympics Phase as pure functions: Fervor, the three Competitions, the Olympics Skills
dice, the ranking with its tiebreaks, the prizes and the new Initiative order.

The console cannot see the physical Action Cards, so a card played in a Competition is what
its player dials: the printed number beside each symbol that matters (`CardPlay.values`) and,
if the player used the card's Olympics Effect instead, the Fervor that Effect gave
(`CardPlay.effect_fervor`). A Competition prompt asks for the current card's Discipline Symbols
(`dial_symbols`); Tiebreaker values are asked later, only of players in a tie that needs them
(`tiebreak_needs`), while the played cards still lie face up.

Players are identified by any string (seat names); `initiative` lists them leftmost first.
Nothing here does I/O; every function returns a new value and leaves its inputs unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from dialbox.engine.chance import DieFace
from dialbox.games.trial_of_the_gods.packs import ACTIVATION, SYMBOLS, OlympicsCard, Prize

COMPETITIONS = 3
"""Competitions per Olympics Phase."""
PRIZE_PLACES = 3
"""Only the top three places win a prize."""


class OlympicsError(ValueError):
    """A call that does not fit the Olympics Phase as it stands (wrong players, 4th Competition)."""


@dataclass(frozen=True, slots=True)
class CardPlay:
    """One Action Card a player played in a Competition, as they dialled it.

    `values` holds the printed number beside each symbol asked so far (0 when the card does not
    show the symbol); a symbol not in `values` is not known yet. `effect_fervor` is None when
    the player used the card's numbers, else the Fervor its Olympics Effect gave them.
    """

    values: Mapping[str, int] = field(default_factory=dict)
    effect_fervor: int | None = None
    total: int | None = None
    """The card's summed values for the Discipline Symbols, when the player dialled the sum
    instead of each value (a card with more Discipline Symbols than a prompt has wheels)."""

    def __post_init__(self) -> None:
        for sym, v in self.values.items():
            if sym not in SYMBOLS:
                raise OlympicsError(f"unknown symbol {sym!r}; symbols: {', '.join(SYMBOLS)}")
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise OlympicsError(f"{sym}: a card value is a whole number >= 0, got {v!r}")
        for name in ("effect_fervor", "total"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise OlympicsError(f"{name}: a whole number >= 0, got {v!r}")

    @property
    def used_effect(self) -> bool:
        return self.effect_fervor is not None

    def with_values(self, values: Mapping[str, int]) -> CardPlay:
        """The same card with more symbol values known (e.g. a tiebreaker answered)."""
        return replace(self, values={**self.values, **values})


DIAL_EACH_MAX = 2
"""A Competition prompt dials each Discipline Symbol's value on its own wheel up to this many
symbols (two wheels; the third picks numbers or Effect); with more, it dials their sum."""


def dial_symbols(card: OlympicsCard) -> tuple[str, ...]:
    """The symbols a Competition prompt asks each player to dial one by one for their card: the
    current Olympics card's Discipline Symbols in printed order, or none when there are more
    than `DIAL_EACH_MAX` (the prompt then asks for their sum, `CardPlay.total`)."""
    return card.disciplines if len(card.disciplines) <= DIAL_EACH_MAX else ()


def card_fervor(card: OlympicsCard, play: CardPlay) -> int:
    """Fervor a played card gives: the Olympics Effect's Fervor if used, else the sum of the
    card's values for the Discipline Symbols (as dialled, or `total`)."""
    if play.effect_fervor is not None:
        return play.effect_fervor
    if play.total is not None:
        return play.total
    missing = [s for s in card.disciplines if s not in play.values]
    if missing:
        raise OlympicsError(f"the card's value for {', '.join(missing)} is not dialled")
    return sum(play.values[s] for s in card.disciplines)


@dataclass(frozen=True, slots=True)
class Olympics:
    """One Olympics Phase in progress: the card, Initiative, Fervor and the cards played."""

    card: OlympicsCard
    initiative: tuple[str, ...]
    """Players in Initiative order at the start of the phase, leftmost first."""
    fervor: Mapping[str, int]
    """Each player's Ranking Token on the Fervor Track."""
    plays: Mapping[str, tuple[CardPlay, ...]]
    """Each player's played cards, one per Competition so far."""

    @property
    def competitions_played(self) -> int:
        return len(next(iter(self.plays.values()), ()))


def begin(card: OlympicsCard, initiative: Sequence[str],
          bonuses: Mapping[str, int] | None = None) -> Olympics:
    """Step 1: Ranking Tokens start at 0 and advance by each player's Fervor bonus (Feats,
    Upgrades, other Effects, added up and dialled by the player; missing = 0)."""
    players = tuple(initiative)
    if not players or len(set(players)) != len(players):
        raise OlympicsError(f"initiative must list each player once, got {list(initiative)}")
    bonuses = bonuses or {}
    unknown = set(bonuses) - set(players)
    if unknown:
        raise OlympicsError(f"Fervor bonus for unknown player(s) {sorted(unknown)}")
    fervor: dict[str, int] = {}
    for p in players:
        b = bonuses.get(p, 0)
        if isinstance(b, bool) or not isinstance(b, int) or b < 0:
            raise OlympicsError(f"{p}: a Fervor bonus is a whole number >= 0, got {b!r}")
        fervor[p] = b
    return Olympics(card, players, fervor, {p: () for p in players})


def play_competition(ol: Olympics, plays: Mapping[str, CardPlay]) -> Olympics:
    """Step 3, one Competition: every player's revealed card adds its Fervor."""
    if ol.competitions_played >= COMPETITIONS:
        raise OlympicsError(f"all {COMPETITIONS} Competitions have been played")
    if set(plays) != set(ol.initiative):
        raise OlympicsError(f"every player plays one card: expected {sorted(ol.initiative)}, "
                            f"got {sorted(plays)}")
    fervor = {p: ol.fervor[p] + card_fervor(ol.card, plays[p]) for p in ol.initiative}
    new_plays = {p: (*ol.plays[p], plays[p]) for p in ol.initiative}
    return replace(ol, fervor=fervor, plays=new_plays)


def adjust_fervor(ol: Olympics, player: str, delta: int) -> Olympics:
    """Move one Ranking Token by `delta` (an Effect on another player); never below slot 0."""
    _known(ol, player)
    return replace(ol, fervor={**ol.fervor, player: max(0, ol.fervor[player] + delta)})


def skill_dice(card: OlympicsCard, argonauts: Iterable[Iterable[str]]) -> int:
    """Step 4: Dice a player rolls, one per Argonaut they own (Captain and Companions, trained
    or not) showing at least one Olympics Skill symbol among the card's Discipline Symbols.
    `argonauts` gives each Argonaut's Olympics Skill symbols."""
    wanted = set(card.disciplines)
    return sum(1 for skills in argonauts if wanted.intersection(skills))


def skill_fervor(faces: Iterable[DieFace]) -> int:
    """Fervor from Olympics Skill dice: +1 per face showing the number 1, +1 per Activation."""
    return sum(1 for f in faces if f.mark == ACTIVATION or (not f.mark and f.value == 1))


def add_skill_rolls(ol: Olympics, player: str, faces: Iterable[DieFace]) -> Olympics:
    """Step 4 for one player: add the Fervor their rolled faces give."""
    return adjust_fervor(ol, player, skill_fervor(faces))


def with_card_values(ol: Olympics, player: str, competition: int,
                     values: Mapping[str, int]) -> Olympics:
    """Record symbol values of a player's card from Competition `competition` (0-based)."""
    _known(ol, player)
    cards = ol.plays[player]
    if not 0 <= competition < len(cards):
        raise OlympicsError(f"{player} has no card from Competition {competition + 1}")
    updated = tuple(c.with_values(values) if i == competition else c
                    for i, c in enumerate(cards))
    return replace(ol, plays={**ol.plays, player: updated})


def symbol_total(ol: Olympics, player: str, symbol: str) -> int | None:
    """A player's summed values for `symbol` over their played cards; None if not all known."""
    total = 0
    for c in ol.plays[player]:
        if symbol not in c.values:
            return None
        total += c.values[symbol]
    return total


@dataclass(frozen=True, slots=True)
class TieQuery:
    """A value the ranking needs: `player`'s cards from these Competitions (0-based) for
    `symbol`. `tied_with` is the whole tied group, for the prompt's wording."""

    player: str
    symbol: str
    competitions: tuple[int, ...]
    tied_with: tuple[str, ...]


Total = Callable[[str, str], "int | None"]


def order_players(fervor: Mapping[str, int], initiative: Sequence[str],
                  tiebreakers: Sequence[str], total: Total
                  ) -> tuple[tuple[str, ...] | None, list[tuple[str, tuple[str, ...]]]]:
    """Rank by Fervor; a tied group is split by each Tiebreaker Symbol in turn (higher total
    first), then by Initiative (leftmost first).

    `total(player, symbol)` gives a player's summed card values or None if unknown. Returns
    (the ranking, []) or (None, needs) where needs lists (symbol, tied group) for each group
    that cannot be split without unknown totals: only groups still tied at that symbol.
    """
    seat = {p: i for i, p in enumerate(initiative)}
    needs: list[tuple[str, tuple[str, ...]]] = []

    def split(group: list[str], depth: int) -> list[str]:
        if len(group) == 1:
            return group
        if depth == len(tiebreakers):
            return sorted(group, key=seat.__getitem__)
        sym = tiebreakers[depth]
        totals = {p: total(p, sym) for p in group}
        if any(v is None for v in totals.values()):
            needs.append((sym, tuple(sorted(group, key=seat.__getitem__))))
            return sorted(group, key=seat.__getitem__)
        return _groups(group, lambda p: totals[p] or 0, lambda g: split(g, depth + 1))

    ranking = _groups(list(initiative), fervor.__getitem__, lambda g: split(g, 0))
    return (None, needs) if needs else (tuple(ranking), [])


def _groups(players: list[str], key: Callable[[str], int],
            inner: Callable[[list[str]], list[str]]) -> list[str]:
    """Players by `key` descending; each group of equal keys ordered by `inner`."""
    out: list[str] = []
    for k in sorted({key(p) for p in players}, reverse=True):
        out += inner([p for p in players if key(p) == k])
    return out


def tiebreak_needs(ol: Olympics) -> tuple[TieQuery, ...]:
    """What the ranking still needs: for each tied group that a Tiebreaker Symbol must split and
    whose totals for it are not all known, one query per group member with unknown cards.
    Empty when the ranking can be decided (no tie, or the needed values are known)."""
    _, needs = order_players(ol.fervor, ol.initiative, ol.card.tiebreakers,
                             lambda p, s: symbol_total(ol, p, s))
    out: list[TieQuery] = []
    for sym, group in needs:
        for p in group:
            missing = tuple(i for i, c in enumerate(ol.plays[p]) if sym not in c.values)
            if missing:
                out.append(TieQuery(p, sym, missing, group))
    return tuple(out)


class TiebreakNeeded(OlympicsError):
    """The ranking needs Tiebreaker values not dialled yet (see `queries`)."""

    def __init__(self, queries: tuple[TieQuery, ...]) -> None:
        self.queries = queries
        asks = ", ".join(f"{q.player}: {q.symbol}" for q in queries)
        super().__init__(f"a tie needs card values: {asks}")


def ranking(ol: Olympics) -> tuple[str, ...]:
    """Step 5's ranking, first place first; TiebreakNeeded if a tie needs unknown values."""
    order, _ = order_players(ol.fervor, ol.initiative, ol.card.tiebreakers,
                             lambda p, s: symbol_total(ol, p, s))
    if order is None:
        raise TiebreakNeeded(tiebreak_needs(ol))
    return order


@dataclass(frozen=True, slots=True)
class Award:
    """A player's place (1-3) and the prize of that place on the Olympics card."""

    player: str
    place: int
    prize: Prize


def awards(card: OlympicsCard, order: Sequence[str]) -> tuple[Award, ...]:
    """Prizes in ranking order: the top three places only; fewer players, fewer places."""
    return tuple(Award(p, i + 1, card.prizes[i])
                 for i, p in enumerate(order[:PRIZE_PLACES]))


def champions_gained(won: Iterable[Award]) -> dict[str, int]:
    """Champion Tokens each awarded player gains."""
    return {a.player: a.prize.champions for a in won}


@dataclass(frozen=True, slots=True)
class OlympicsResult:
    """The end of the phase: ranking, prizes, the new Initiative and Ranking Tokens at 0."""

    ranking: tuple[str, ...]
    awards: tuple[Award, ...]
    initiative: tuple[str, ...]
    fervor: Mapping[str, int]


def finish(ol: Olympics) -> OlympicsResult:
    """Steps 5-7: prizes by place, new Initiative order = ranking, Ranking Tokens back to 0."""
    if ol.competitions_played != COMPETITIONS:
        raise OlympicsError(f"{ol.competitions_played} of {COMPETITIONS} Competitions played")
    order = ranking(ol)
    return OlympicsResult(order, awards(ol.card, order), order, {p: 0 for p in order})


def _known(ol: Olympics, player: str) -> None:
    if player not in ol.fervor:
        raise OlympicsError(f"unknown player {player!r}; players: {', '.join(ol.initiative)}")

"""Medals: the 3 Medals Rule, single-Gold Trials and victory points."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

GOLD, SILVER, BRONZE = "gold", "silver", "bronze"
MEDALS = (GOLD, SILVER, BRONZE)
POINTS = {GOLD: 4, SILVER: 2, BRONZE: 1}


class Podium:
    """The Medals handed out so far in one 3-Medals Trial, rank group by rank group.

    >>> p = Podium()
    >>> p.award([0, 1]), p.award([2, 3, 4]), p.award([5])
    ('gold', 'bronze', None)
    """

    __slots__ = ("awarded",)

    def __init__(self) -> None:
        self.awarded: list[tuple[int, str]] = []

    def count(self, medal: str) -> int:
        return sum(1 for _, m in self.awarded if m == medal)

    def next_medal(self) -> str | None:
        """The Medal the next rank group would win, or None once the awarding has stopped."""
        if len(self.awarded) >= 3 or self.count(BRONZE):
            return None
        golds = self.count(GOLD)
        if golds == 0:
            return GOLD
        if golds == 1:
            return SILVER if self.count(SILVER) == 0 else BRONZE
        return BRONZE

    @property
    def closed(self) -> bool:
        return self.next_medal() is None

    def award(self, group: Iterable[int]) -> str | None:
        """Give the next Medal to every Athlete of one rank group (tied Athletes share a rank)."""
        seats = list(group)
        medal = self.next_medal()
        if medal is None:
            return None
        self.awarded.extend((s, medal) for s in seats)
        return medal


def rank_groups(scores: Mapping[int, int]) -> list[list[int]]:
    """Athletes grouped by equal score, best first.

    >>> rank_groups({0: 4, 1: 4, 2: 3, 3: 1})
    [[0, 1], [2], [3]]
    """
    values = sorted(set(scores.values()), reverse=True)
    return [[s for s in sorted(scores) if scores[s] == v] for v in values]


def three_medals(scores: Mapping[int, int]) -> dict[int, str]:
    """The 3 Medals Rule over a ranking: seat -> Medal for every Athlete who wins one.

    >>> three_medals({0: 4, 1: 4, 2: 3, 3: 3, 4: 3, 5: 1})
    {0: 'gold', 1: 'gold', 2: 'bronze', 3: 'bronze', 4: 'bronze'}
    >>> three_medals({0: 4, 1: 4, 2: 4, 3: 3, 4: 3, 5: 1})
    {0: 'gold', 1: 'gold', 2: 'gold'}
    """
    podium = Podium()
    for group in rank_groups(scores):
        if podium.award(group) is None:
            break
    return dict(podium.awarded)


def points(board: Iterable[int]) -> int:
    """Victory points of a Medal board [gold, silver, bronze]."""
    g, s, b = board
    return g * POINTS[GOLD] + s * POINTS[SILVER] + b * POINTS[BRONZE]

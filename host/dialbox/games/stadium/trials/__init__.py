"""All 16 Trials by tile key: each is a sub-generator run inside Stadium.flow() on the
game's StadiumBase part (games/stadium/base.py), so no Trial imports game.py."""

from __future__ import annotations

from collections.abc import Callable

from dialbox.games.stadium.base import StadiumBase, Sub
from dialbox.games.stadium.trials import finals, rolls, sprints, tactics

TRIALS: dict[str, Callable[[StadiumBase], Sub]] = {
    "track_cycling": sprints.track_cycling,
    "relay": sprints.relay,
    "medley_relay": sprints.medley_relay,
    "hundred_meters": sprints.hundred_meters,
    "beach_volleyball": sprints.beach_volleyball,
    "equestrian": rolls.equestrian,
    "golf": rolls.golf,
    "weightlifting": rolls.weightlifting,
    "archery": rolls.archery,
    "pole_vault": tactics.pole_vault,
    "team_gymnastics": tactics.team_gymnastics,
    "anti_doping": tactics.anti_doping,
    "basketball": finals.basketball,
    "fencing": finals.fencing,
    "rugby": finals.rugby,
    "taekwondo": finals.taekwondo,
}

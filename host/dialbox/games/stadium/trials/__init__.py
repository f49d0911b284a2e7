"""All 16 Trials by tile key: each is a sub-generator run inside Stadium.flow()."""

from __future__ import annotations

from collections.abc import Callable

from dialbox.games.stadium.game import Stadium, Sub
from dialbox.games.stadium.trials import finals, rolls, sprints, tactics

TRIALS: dict[str, Callable[[Stadium], Sub]] = {
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

"""A table as one viewer sees it, once, for every front end: the Telegram board (the public
view), a player's hand message, and the web table all draw from a `Scene`.

A scene holds what the viewer may see (`observe(state, seat)`: the public view for `seat` None)
with the names ready, the hands whose end the viewer is to be shown, the table's recent calls
and its seal. The texts (`board_text`, `hand_text`) and the web table's JSON (`bot.web.view`)
are drawings of it; nothing else decides what a viewer sees.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.game import MatchState, Observation, observe
from bot.game.ending import HandEnding, ended_hands
from bot.game.fair import commitment
from bot.i18n import Translator
from bot.model.table import Call, Table, TableStatus
from bot.views.common import Seating, seating_at

SEAL_SHOWN = 12  # hex digits of the seal shown: enough to compare with /verificar


@dataclass(frozen=True)
class Scene:
    table: Table
    who: Seating
    seat: int | None  # the viewer's seat (None: the public view)
    obs: Observation | None  # None: a lobby
    calls: tuple[Call, ...]  # the hand's recent calls (the last hand's, once the match is over)
    ended: tuple[HandEnding, ...]  # the hands whose end to show, oldest first
    gap: Gap | None = None  # hands before those, too many to tell one by one

    @property
    def playing(self) -> bool:
        return self.table.status is TableStatus.PLAYING

    @property
    def over(self) -> bool:
        state = self.table.state
        return self.table.status is not TableStatus.PLAYING or (state is not None and state.is_over)

    @property
    def seal(self) -> str | None:
        seed = self.table.seed
        return commitment(seed)[:SEAL_SHOWN] if seed is not None else None

    @property
    def first_hand(self) -> bool:
        return self.obs is not None and self.obs.hand_number <= 1


@dataclass(frozen=True)
class Gap:
    """Hands that ended since a reader last saw the table, too many to keep each one's end:
    the points they gave, together."""

    first: int
    last: int
    points: tuple[int, int]


def _places(state: MatchState, ended: Sequence[HandEnding]) -> list[int]:
    """Each of `ended` (the last hands' ends, `ended_hands`) by its place among the match's
    hand ends: the hand's number, except where pica-pica hands make three ends of one hand (a
    duel each), counted from the match's record."""
    if state.config.players != 6:
        return [e.number for e in ended]
    total = len(state.past) + (1 if state.is_over and state.hand is not None else 0)
    return list(range(total - len(ended) + 1, total + 1))


def last_end(state: MatchState) -> int:
    """The place of the last hand end so far (0: none yet): what a reader shown the table now
    has seen, for `hands_to_show` next time."""
    ended = ended_hands(state)
    return _places(state, ended)[-1] if ended else 0


def hands_to_show(state: MatchState, seen: int | None) -> tuple[Gap | None, tuple[HandEnding, ...]]:
    """The ends of hands a message is to show, when its reader last saw hand end `seen` (0:
    none had ended; None: unknown; see `last_end`): every hand that ended since (a message
    coalesced past several hands tells each of them, and those too old to tell one by one as
    a `Gap`), else the last hand that ended (its record stays up while the next is played),
    and the one before it too when the match ended at the deal, before a card was played."""
    ended = ended_hands(state)
    if not ended:
        return None, ()
    places = _places(state, ended)
    new = [i for i, place in enumerate(places) if seen is not None and place > seen]
    if seen is not None and new:
        fresh = ended[new[0] :]
        gap = None
        first = places[new[0]]
        if first > seen + 1:
            past = state.past
            start = past[seen].start_scores if seen < len(past) else (0, 0)
            until = fresh[0].start_scores
            since = past[seen].number if seen < len(past) else seen + 1
            before = past[first - 2].number if first - 2 < len(past) else fresh[0].number - 1
            gap = Gap(since, before, (until[0] - start[0], until[1] - start[1]))
        return gap, fresh
    if state.is_over and len(ended) > 1 and not ended[-1].rounds:
        return None, ended[-2:]
    return None, ended[-1:]


def scene_of(
    t: Translator,
    table: Table,
    names: dict[int, str],
    seat: int | None,
    ended: Sequence[HandEnding] = (),
    gap: Gap | None = None,
) -> Scene:
    """What `seat` (None: anyone watching) sees of `table` now."""
    obs = observe(table.state, seat) if table.state is not None else None
    who = seating_at(t, table, names)
    return Scene(table, who, seat, obs, tuple(table.calls), tuple(ended), gap)

"""What a tournament tells, and whom: the tournament's own policy of its news, decided here and
worded by each front end (Telegram's planner turns it into rows, the views word each piece).

A change of the tournament (`news_of`): its group message is always redrawn; then, as it
happened, one message in its group (the start, a call-off, the results and the champion), each
person signed up told in private (the reminder, a call-off), each person resting in a round just
laid out told so, and each champion told in private and tagged in the group. A tournament's
match (`starts_final`, `steps_after`, `redraws_bracket`): the group told when a knockout's final
starts; after the match that decided a knockout's tie, each player where they go now; the
bracket's live score redrawn at the end of each hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.game.events import HandEnded
from bot.model.occupants import people
from bot.model.table import Table
from bot.service.changes import ChangeKind, TableChange, TourneyChange, TourneyNote
from bot.tourney.model import Fixture, Said, Step, Tournament, paired_now


@dataclass(frozen=True)
class TourneyNews:
    """What one change of a tournament tells beyond its group message (always redrawn), in
    this order: one message in the group of `group`'s pieces; `signed`, to each person signed
    up; to the people of each entry resting in a round just laid out, that they rest
    (`resting`: the bye's tie and its people); to each champion (`crowned`), in private, and
    their tag in the group."""

    group: tuple[Said, ...] = ()
    signed: Said | None = None
    resting: tuple[tuple[Fixture, tuple[int, ...]], ...] = ()
    crowned: tuple[int, ...] = ()


def news_of(change: TourneyChange[Tournament]) -> TourneyNews:
    tour, note = change.tournament, change.note
    if note is TourneyNote.REMINDER:
        return TourneyNews(signed=Said.REMINDER)
    if note is TourneyNote.CALLED_OFF:  # too few at its hour: the group and each one told
        return TourneyNews(group=(Said.CALLED_OFF,), signed=Said.CALLED_OFF)
    said = {
        TourneyNote.STARTED: Said.STARTED, TourneyNote.CANCELLED: Said.CANCELLED,
        TourneyNote.BROKEN: Said.BROKEN, TourneyNote.RESULT: None, TourneyNote.CHAMPION: None,
    }  # fmt: skip
    if note not in said:
        return TourneyNews()  # (sign-ups, options, pairings...: its message says it)
    first = said[note]
    group = [first] if first is not None else []
    if change.results:
        group.append(Said.RESULTS)
    if note is TourneyNote.CHAMPION:
        group.append(Said.CHAMPION)
    # who rests in a round just laid out is told in private (nobody calls them)
    laid = {0} if note is TourneyNote.STARTED else set(paired_now(tour, change.results))
    resting = []
    for fixture in (f for f in tour.fixtures if f.round in laid and f.bye and _told_rest(tour, f)):
        entry = fixture.a if fixture.a is not None else fixture.b
        if entry is not None:
            resting.append((fixture, tuple(people(tour.entries[entry]))))
    crowned: tuple[int, ...] = ()
    if note is TourneyNote.CHAMPION and tour.champion is not None:
        crowned = tuple(people(tour.entries[tour.champion]))
    return TourneyNews(tuple(group), None, tuple(resting), crowned)


def _told_rest(tour: Tournament, fixture: Fixture) -> bool:
    """A bye is told where it means something: a point without playing (a Swiss), or a pass
    to a next round (an eliminación)."""
    return tour.rules.bye_scores or tour.rules.next_round(tour, fixture) is not None


# -- a tournament's match ------------------------------------------------------------------------
def starts_final(tour: Tournament, fixture: Fixture) -> bool:
    """The first match of a knockout's final: the group is told (it is watched in the
    bracket, live)."""
    return tour.rules.eliminates and fixture.round + 1 == tour.rounds and not fixture.games


def steps_after(tour: Tournament, fixture: Fixture, table: Table) -> dict[int, Step]:
    """Each player of a knockout's match that decided its tie: where they go now (none for
    the final's winner, whom the champion's own notice tells; none in a liguilla, a Swiss, an
    arena, nor after a game of a longer series, which decides nothing by itself)."""
    outcome = table.outcome
    if outcome is None or outcome.winner is None or tour.series > 1:
        return {}
    if not tour.rules.eliminates:
        return {}
    final = fixture.round + 1 >= tour.rounds
    steps = {}
    for user in table.players:
        seat = table.seat_of(user)
        if seat is None:
            continue
        won = table.geometry.side(seat) == outcome.winner
        if won and final:
            continue
        steps[user] = Step.ADVANCE if won else Step.RUNNER_UP if final else Step.OUT
    return steps


def redraws_bracket(change: TableChange) -> bool:
    """A hand of a tournament's match ended: the bracket shows the new score."""
    return change.kind is ChangeKind.ACTION and any(isinstance(e, HandEnded) for e in change.events)

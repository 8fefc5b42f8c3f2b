"""What a tournament tells and whom (`bot.tourney.news`), decided on plain values: the
front end only words it. A knockout of three: the start told in the group and seed 1's bye in
private; a semifinal's players told where they go; the champion crowned; a reminder and a
call-off to everyone signed up; a Swiss's bye told when its round is paired."""

from __future__ import annotations

from bot.model.outcome import Outcome, Termination
from bot.model.table import Table, TableStatus
from bot.service.changes import TourneyChange, TourneyNote
from bot.tourney.model import (
    Fixture,
    Format,
    Said,
    Status,
    Step,
    Tournament,
    playable,
    record,
)
from bot.tourney.news import TourneyNews, news_of, starts_final, steps_after
from tests.unit.test_tournament import tournament


def decided(t: Tournament, fixture: Fixture, winner_side: int, table_id: int) -> Table:
    """The first table of a tie, side `winner_side` winning it 15-9."""
    assert fixture.a is not None and fixture.b is not None
    seats: list[int | None] = [t.entries[fixture.a][0], t.entries[fixture.b][0]]
    scores = (15, 9) if winner_side == 0 else (9, 15)
    table = Table(table_id, t.chat_id, 0, TableStatus.FINISHED, 1, t.config, seats, "es", 0.0, 0.0)
    table.outcome = Outcome(Termination.TARGET, winner_side, scores)
    return table


def test_a_knockout_of_three_from_its_start_to_its_champion() -> None:
    t = tournament(3)
    started = news_of(TourneyChange(t, TourneyNote.STARTED))
    bye = t.fixture(0, 0)
    assert bye is not None and bye.bye
    assert started == TourneyNews(group=(Said.STARTED,), resting=((bye, t.entries[0]),))
    (semi,) = playable(t, ())
    assert not starts_final(t, semi)
    table = decided(t, semi, 0, 10)
    assert record(t, semi, table.id, 0, (15, 9))
    winner, loser = semi.a, semi.b
    assert winner is not None and loser is not None
    steps = steps_after(t, semi, table)
    assert steps == {t.entries[winner][0]: Step.ADVANCE, t.entries[loser][0]: Step.OUT}
    result = news_of(TourneyChange(t, TourneyNote.RESULT, results=((0, 1, 0),)))
    assert result == TourneyNews(group=(Said.RESULTS,))
    (final,) = playable(t, ())
    assert starts_final(t, final)
    table = decided(t, final, 0, 11)
    assert record(t, final, table.id, 0, (15, 9)) and t.status is Status.FINISHED
    champion, runner_up = t.entries[final.a][0], t.entries[final.b][0]  # type: ignore[index]
    assert steps_after(t, final, table) == {runner_up: Step.RUNNER_UP}  # (the champion: crowned)
    crowned = news_of(TourneyChange(t, TourneyNote.CHAMPION, results=((1, 0, 0),)))
    assert crowned == TourneyNews(group=(Said.RESULTS, Said.CHAMPION), crowned=(champion,))


def test_sign_ups_for_later_are_reminded_or_called_off_each_in_private() -> None:
    t = Tournament(1, -100, 0, 1, "es", 0.0, 100.0, signed=[4, 5])
    assert news_of(TourneyChange(t, TourneyNote.REMINDER)) == TourneyNews(signed=Said.REMINDER)
    assert news_of(TourneyChange(t, TourneyNote.CALLED_OFF)) == TourneyNews(
        group=(Said.CALLED_OFF,), signed=Said.CALLED_OFF
    )
    for quiet in (TourneyNote.SIGNED, TourneyNote.OPTION, TourneyNote.PAIRED, TourneyNote.CLOCK):
        assert news_of(TourneyChange(t, quiet)) == TourneyNews()


def test_a_longer_series_or_a_liguilla_tells_no_steps() -> None:
    for t in (tournament(2, series=3), tournament(3, Format("liga"))):
        (first, *_) = playable(t, ())
        assert steps_after(t, first, decided(t, first, 0, 10)) == {}
    assert not starts_final(t, first)  # (a liguilla has no final)

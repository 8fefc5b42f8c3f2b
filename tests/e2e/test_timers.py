"""Turn timers: reminder, the conservative move, three strikes, and restarts.

Time is the harness's clock, moved by hand: the sweep compares the deadlines with it, so the
tests wait for what the bot does, never for a number of seconds to pass."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import hand_message, open_table, play_until_a_duel
from tests.fakebot import FakeTelegram


@pytest.fixture
async def timed(fake: FakeTelegram, db_target: Path | str) -> AsyncIterator[Harness]:
    async with harness_with(fake, db_target, turn_seconds=60) as h:
        yield h


def timeouts(h: Harness) -> list[str]:
    return [t for t in h.fake.texts(GROUP) if t.startswith("⏰") and "Se le acabó el tiempo" in t]


@pytest.mark.postgresql
async def test_the_bot_plays_the_lowest_card_and_three_strikes_concede(timed: Harness) -> None:
    h = timed
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan], "sinflor")  # (a flor would be declared for its holder)
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.state is not None and table.deadline is not None
    lowest = min(table.state.hand.held[0], key=lambda c: c.strength)  # type: ignore[union-attr]
    h.clock.advance(29)
    await h.settle()
    assert not any("te quedan" in t for t in h.fake.texts(1))  # not yet
    h.clock.advance(2)
    await h.until(lambda: any("te quedan" in t for t in h.fake.texts(1)))  # reminder, private
    await h.until(lambda: any('href="tg://user?id=1"' in t for t in h.fake.texts(GROUP)))
    assert timeouts(h) == []
    h.clock.advance(30)
    await h.until(lambda: len(timeouts(h)) == 1)
    assert "Ana" in timeouts(h)[0]
    await h.settle()
    log = await h.db.fetchall("SELECT code FROM actions ORDER BY seq")
    assert log[-1]["code"] == f"0:p:{lowest.code}"
    for _ in range(20):  # nobody ever plays: the first side to time out three times loses
        if any("tres veces seguidas" in t for t in h.fake.texts(GROUP)):
            break
        done = len(timeouts(h))
        h.clock.advance(61)
        await h.until(
            lambda done=done: (
                len(timeouts(h)) > done  # type: ignore[misc]
                or any("tres veces seguidas" in t for t in h.fake.texts(GROUP))
            )
        )
    await h.settle()
    conceded = next(t for t in h.fake.texts(GROUP) if "tres veces seguidas" in t)
    loser = 0 if "Ana" in conceded else 1
    record = await h.db.fetchone("SELECT * FROM matches")
    assert record is not None and record["termination"] == "timeouts"
    assert record["winner_side"] == 1 - loser
    by_loser = [t for t in timeouts(h) if ("Ana" if loser == 0 else "Juan") in t]
    assert len(by_loser) == 2 and len(timeouts(h)) >= 4  # the third strike concedes instead


async def test_playing_resets_the_strikes(timed: Harness) -> None:
    h = timed
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan])
    h.clock.advance(61)  # Ana times out once
    await h.until(lambda: len(timeouts(h)) == 1)
    await h.settle()
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.strikes == [1, 0]
    message = hand_message(h, juan)
    assert message is not None
    card = next(b for b in message.buttons() if b.get("callback_data", "").count(":") == 4)
    await juan.tap(juan.id, message.message_id, card["text"])
    await h.settle()
    table = await h.services.tables.table_in(GROUP, 0)  # as committed (read afresh)
    assert table is not None and table.strikes == [1, 0]  # Juan's move keeps Ana's strike
    for _ in range(4):  # whoever leads now, Ana gets to play by hand soon
        user = ana if hand_message(h, ana) is not None else juan
        message = hand_message(h, user)
        assert message is not None
        card = next(b for b in message.buttons() if b.get("callback_data", "").count(":") == 4)
        await user.tap(user.id, message.message_id, card["text"])
        await h.settle()
        if user is ana:
            break
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.strikes == [0, 0]


@pytest.mark.postgresql
async def test_a_deadline_that_passed_while_down_fires_once(timed: Harness) -> None:
    h = timed
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan])
    await h.stop()
    h.clock.advance(61)  # the deadline passes while the bot is down
    await h.start()
    await h.until(lambda: len(timeouts(h)) == 1)
    await h.settle()
    sweeps = h.app.bot_data.get("sweeps", 0)
    await h.until(lambda: h.app.bot_data.get("sweeps", 0) >= sweeps + 3)  # nothing more
    await h.settle()
    assert len(timeouts(h)) == 1
    rows = await h.db.fetchall("SELECT code FROM actions WHERE user_id IS NOT NULL")
    assert len(rows) == 1


async def test_the_clock_runs_for_the_seat_of_a_pica_pica_duel(timed: Harness) -> None:
    """3v3: in a duel, the deadline is the duel's seat's; at its end the conservative move is
    made for that seat (R40: the other four have nothing to do)."""
    h = timed
    names = ["Ana", "Beto", "Caro", "Dani", "Eva", "Fede"]
    users = [h.user(51 + i, name) for i, name in enumerate(names)]
    await open_table(h, users, "3v3 15")
    await play_until_a_duel(h, users, seed=45)
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.state is not None and table.deadline is not None
    seat = table.state.acting_seats()[0]
    name = names[[u.id for u in users].index(table.seats[seat] or 0)]
    step = table.state.step
    h.clock.advance(61)
    await h.until(lambda: any(name in t for t in timeouts(h)))
    await h.settle()
    log = await h.db.fetchall("SELECT code FROM actions WHERE game_id = ? ORDER BY seq", table.id)
    assert log[step]["code"].startswith(f"{seat}:")

"""Only a group's members sit at its tables: by link or by button, strangers and former members
are turned away, and the table does not change."""

from __future__ import annotations

import secrets

import pytest
from telegram.ext import ExtBot

from bot.telegram.members import Members
from tests.conftest import GROUP, FakeClock, Harness
from tests.fakebot import TOKEN, FakeTelegram


async def _lobby(h: Harness) -> tuple[int, str]:
    ana = h.user(1, "Ana")
    ana.send(GROUP, "/nueva")
    await h.settle()
    table = await h.services.tables.table_in(GROUP, 0)
    join = (await h.telegram(table.id)).join if table is not None else None
    assert table is not None and join is not None
    assert table.seats == [1, None]
    return table.id, join


async def _seats(h: Harness, table_id: int) -> list[int | None]:
    table = await h.services.tables.get(table_id)
    assert table is not None
    return list(table.seats)


async def test_a_stranger_with_a_guessed_link_is_turned_away(harness: Harness) -> None:
    h = harness
    table_id, token = await _lobby(h)
    eve = h.user(66, "Eve")  # never wrote or tapped in the group
    for guess in (f"j{table_id}", "j1", f"j{secrets.token_urlsafe(12)}", f"j{token[:-1]}x"):
        eve.send(eve.id, f"/start {guess}")
        await h.settle()
        assert "No te pude sumar" in h.fake.last(eve.id).text
        assert await _seats(h, table_id) == [1, None]
    assert all("Eve" not in text for text in h.fake.texts(GROUP))


@pytest.mark.postgresql  # (the join link's lookup, on PostgreSQL too: tests/sqlseen.py)
async def test_a_stranger_with_the_real_link_is_turned_away(harness: Harness) -> None:
    h = harness
    table_id, token = await _lobby(h)
    link = h.fake.last(GROUP).button("💬 Chat privado")["url"]
    assert link.endswith(f"start=j{token}")  # the link the group sees, forwarded to a stranger
    eve = h.user(66, "Eve")
    eve.send(eve.id, f"/start j{token}")
    await h.settle()
    assert "Solo los miembros del grupo" in h.fake.last(eve.id).text
    assert await _seats(h, table_id) == [1, None]
    # A member with the same link sits down.
    juan = h.user(2, "Juan")
    juan.send(GROUP, "hola")
    juan.send(juan.id, f"/start j{token}")
    await h.settle()
    assert await _seats(h, table_id) == [1, 2]


async def test_a_former_member_cannot_join_by_button_or_by_link(harness: Harness) -> None:
    h = harness
    table_id, token = await _lobby(h)
    lobby = h.fake.last(GROUP)
    beto = h.user(3, "Beto")
    beto.send(GROUP, "me voy")
    beto.leave_group(GROUP)
    answer = await beto.tap(GROUP, lobby.message_id, "✋ Unirme")
    assert answer["text"] == "Solo los miembros del grupo se sientan a sus mesas."
    beto.send(beto.id, f"/start j{token}")
    await h.settle()
    assert "Solo los miembros del grupo" in h.fake.last(beto.id).text
    assert await _seats(h, table_id) == [1, None]


async def test_when_the_group_hides_its_members_a_tap_counts_and_a_link_does_not(
    harness: Harness,
) -> None:
    h = harness
    h.fake.hidden_members.add(GROUP)
    table_id, token = await _lobby(h)
    eve = h.user(66, "Eve")
    eve.send(eve.id, f"/start j{token}")
    await h.settle()
    assert "tocá «Unirme» en el mensaje de la mesa" in h.fake.last(eve.id).text
    assert await _seats(h, table_id) == [1, None]
    juan = h.user(2, "Juan")
    answer = await juan.tap(GROUP, h.fake.last(GROUP).message_id, "✋ Unirme")
    assert answer["url"] is None and "Juan" in answer["text"]
    await h.settle()
    assert await _seats(h, table_id) == [1, 2]


async def test_avisame_writes_to_members_only_and_forgets_who_left(harness: Harness) -> None:
    """/avisame asks, where each note is sent, whether its person is still in the group: one
    removed from it gets no note, and their wish for notes goes with them; a member still gets
    hers."""
    h = harness
    ana, beto, caro = h.user(1, "Ana"), h.user(2, "Beto"), h.user(3, "Caro")

    def notes(user_id: int) -> list[str]:
        return [t for t in h.fake.texts(user_id) if t.startswith("🔔 Se abrió una mesa")]

    for user in (beto, caro):
        user.send(GROUP, "/avisame")
        await h.settle()
    ana.send(GROUP, "/nueva")
    await h.settle()
    assert (len(notes(beto.id)), len(notes(caro.id))) == (1, 1)  # both in the group
    ana.send(GROUP, "/cancelar")
    await h.settle()
    beto.leave_group(GROUP)  # removed from the group (the bot is not told)
    h.clock.advance(3601)  # past the hour between notes, and what the bot remembers of members
    ana.send(GROUP, "/nueva")
    await h.settle()
    assert len(notes(caro.id)) == 2  # still a member: her note
    assert len(notes(beto.id)) == 1, notes(beto.id)  # gone: no note
    watchers = await h.services.core.records.of("avisame", GROUP)
    assert str(caro.id) in watchers and str(beto.id) not in watchers  # his wish went with him


async def test_what_telegram_said_of_a_member_is_remembered_a_while_and_for_a_few(
    fake: FakeTelegram,
) -> None:
    """The notes' memory of membership (`Members`, through PTB to the fake Bot API): an answer
    is trusted `ttl` seconds, at most `size` of them are kept, and "will not say" not at all."""
    clock = FakeClock()
    async with ExtBot(TOKEN, base_url=f"http://127.0.0.1:{fake.port}/bot") as bot:
        members = Members(bot, clock, ttl=60, size=2)

        def asked() -> int:
            return sum(1 for _, method, _ in fake.calls if method == "getChatMember")

        fake.members[GROUP] |= {1, 2, 3}
        assert await members.of(GROUP, 1) is True and asked() == 1
        fake.left[GROUP].add(1)
        assert await members.of(GROUP, 1) is True and asked() == 1  # remembered
        clock.advance(61)
        assert await members.of(GROUP, 1) is False and asked() == 2  # asked again: gone
        assert await members.of(GROUP, 2) is True and await members.of(GROUP, 3) is True
        assert asked() == 4
        assert await members.of(GROUP, 1) is False and asked() == 5  # the oldest was forgotten
        fake.hidden_members.add(GROUP)
        clock.advance(61)
        assert await members.of(GROUP, 2) is None and await members.of(GROUP, 2) is None
        assert asked() == 7  # not remembered: asked each time

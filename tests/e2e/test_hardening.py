"""A mischievous player and a sloppy operator: bad arguments, forged taps, spam, escapes from
the league. Each changes nothing it should not, and gets a clear answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import hand_message, open_table, play_to_the_end
from tests.fakebot import FakeTelegram


async def test_numbers_that_are_not_ascii_digits_or_too_long_get_the_usage_line(
    harness: Harness,
) -> None:
    """`str.isdigit` takes "²"; 20 digits overflow SQLite's integers. Both are bad arguments."""
    h = harness
    ana = h.user(1, "Ana")
    h.fake.members[GROUP].add(1)
    for command, usage in (("/partida", "Uso: /partida"), ("/verificar", "Uso: /verificar")):
        for arg in ("²", "1²", "٣", "12345678901234567890", "-1"):
            ana.send(GROUP, f"{command} {arg}")
            await h.settle()
            assert usage in h.fake.last(GROUP).text, (command, arg)
    ana.send(1, "/start h" + "9" * 20)  # a forged "back to my hand" link
    await h.settle()
    assert "Hola" in h.fake.last(1).text or "/nueva" in h.fake.last(1).text
    ana.send(1, "/start h²")
    await h.settle()
    assert h.errors.records == []


async def test_verificar_on_a_conceded_match_checks_its_deals(harness: Harness) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan], "1v1 15")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.seed is not None
    juan.send(GROUP, "/abandonar")
    await h.settle()
    ana.send(GROUP, f"/verificar {table.id}")
    await h.settle()
    verdict = h.fake.last(GROUP).text
    assert "sigue en juego" not in verdict
    assert table.seed in verdict and "de la semilla ✅" in verdict


@pytest.mark.postgresql
async def test_a_losing_opener_cannot_escape_the_league_with_cancelar(harness: Harness) -> None:
    """Whoever opened the table and plays at it concedes by cancelling it; an admin who does
    not play cancels it, it counts for nobody, and the group is told so."""
    h = harness
    ana, juan, admin = h.user(1, "Ana"), h.user(2, "Juan"), h.user(3, "Admin")
    h.fake.admins[GROUP].add(3)
    await open_table(h, [ana, juan], "1v1 15")
    ana.send(GROUP, "/cancelar")
    await h.settle()
    record = await h.db.fetchone("SELECT * FROM matches")
    assert record is not None and record["termination"] == "concession"
    assert record["winner_side"] == 1
    rated = await h.db.fetchall("SELECT user_id, matches FROM ratings ORDER BY user_id")
    assert [(r["user_id"], r["matches"]) for r in rated] == [(1, 1), (2, 1)]

    await open_table(h, [ana, juan], "1v1 15")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None
    board = (await h.telegram(table.id)).board
    assert board is not None
    admin.send(GROUP, "/cancelar")
    await h.settle()
    record = await h.db.fetchone("SELECT * FROM matches WHERE game_id = ?", table.id)
    assert record is not None and record["termination"] == "cancelled"
    assert "no cuenta para la tabla" in h.fake.messages[GROUP][board].text
    again = await h.db.fetchall("SELECT matches FROM ratings")
    assert [r["matches"] for r in again] == [1, 1]  # the cancelled match moved nobody


async def test_taps_on_made_up_tables_leave_nothing_behind(harness: Harness) -> None:
    """Every forged tap is answered and refused; none leaves a lock (or anything) in memory."""
    h = harness
    ana = h.user(1, "Ana")
    answers = []
    for n in range(300):
        query = ana.tap_data(GROUP, 1, f"a:{10_000 + n}:1:t")
        answers.append(query)
    for query in answers:
        assert (await ana.answer_of(query))["text"]  # a clear answer to each
    await h.settle()
    assert h.services.tables.locks() == 0


GARBLED = [
    "k:", "k:1", "k:lang:x", "g:fr", "g:", "p:t:x:0", "p:t:2", "p:m:1", "p:z:1:0", "p:v:-1:0",
    "T:1:q:", "T:1:s:1", "l:1:q:", "l:1:j:ñ", "v:1:z", "h:1:1:z", "s:1:1:", "s:1:1:m:m", "c:x",
    "r:", "a:1:1:zz", "zz:1", ":",
]  # fmt: skip


async def test_garbled_data_of_every_kind_is_answered_as_a_button_we_did_not_make(
    harness: Harness,
) -> None:
    """Whichever button type its prefix names, data that is not one of ours gets the one clear
    answer (one prelude decodes every button), and changes nothing."""
    h = harness
    ana = h.user(1, "Ana")
    h.fake.members[GROUP].add(1)
    ana.send(GROUP, "/config")
    await h.settle()
    panel = h.fake.last(GROUP)
    for data in GARBLED:
        answer = await ana.answer_of(ana.tap_data(GROUP, panel.message_id, data))
        assert answer["text"] == "Ese botón no es válido.", data
    await h.settle()
    assert h.fake.last(GROUP).message_id == panel.message_id  # nothing said, nothing sent


async def test_senas_are_bounded_per_hand(harness: Harness) -> None:
    """Each seña once a hand, three at most: a player cannot make the bot say more."""
    h = harness
    users = [h.user(1 + i, name) for i, name in enumerate(["Ana", "Beto", "Caro", "Dani"])]
    await open_table(h, users, "2v2 15")
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.state is not None
    ana = users[0]
    step = table.state.step
    said = []
    for sign in ("ae", "ae", "ab", "s7", "t3"):
        query = ana.tap_data(1, hand_message(h, ana).message_id, f"s:{table.id}:{step}:{sign}")  # type: ignore[union-attr]
        said.append((await ana.answer_of(query))["text"])
        await h.settle()
    assert said[1] == "Esa seña ya la hiciste en esta mano."
    assert said[4] == "Ya hiciste tres señas en esta mano: con eso alcanza."
    to_caro = [x for x in h.fake.texts(3) if "te hace una seña" in x]
    assert len(to_caro) == 3, to_caro
    await play_to_the_end(h, users, seed=1)


async def test_one_person_opens_at_most_three_tables(harness: Harness) -> None:
    """One table per forum topic, but not a table in every topic: a person cannot keep the
    computer players busy for everyone (a practice, in her private chat, counts as one)."""
    h = harness
    ana = h.user(1, "Ana")
    ana.send(GROUP, "/nueva bot difícil 2v2", thread_id=13)
    for topic in (11, 12):
        ana.send(GROUP, "/nueva 2v2", thread_id=topic)
        await h.settle()
    ana.send(GROUP, "/nueva 2v2", thread_id=14)
    await h.settle()
    assert "Ya tenés tres mesas abiertas" in h.fake.last(GROUP).text
    assert await h.services.tables.table_in(GROUP, 14) is None
    ana.send(GROUP, "/cancelar", thread_id=11)
    await h.settle()
    ana.send(GROUP, "/nueva", thread_id=14)  # one fewer: she may open one again
    await h.settle()
    assert await h.services.tables.table_in(GROUP, 14) is not None


async def test_a_flood_of_commands_does_not_hold_the_board_back(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Distinct replies do not coalesce, and a group's lane is paced: 30 commands once held
    the board 30 calls behind the game. A board refresh now goes after at most three new
    messages, however many wait."""
    async with harness_with(fake, tmp_path / "flood.db", group_interval=0.15) as h:
        ana, juan, troll = h.user(1, "Ana"), h.user(2, "Juan"), h.user(3, "Troll")
        await open_table(h, [ana, juan], "1v1 15")
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None and table.state is not None
        board_id = (await h.telegram(table.id)).board
        assert board_id is not None
        board = h.fake.messages[GROUP][board_id].text
        for n in range(30):
            troll.send(GROUP, f"/nueva zz{n}")  # each answer is different: none coalesce
        await h.until(lambda: any("zz" in m.text for m in h.fake.live(GROUP)))
        player = ana if 1 in h.services.tables.waiting_users(table) else juan
        message = hand_message(h, player)
        assert message is not None
        card = next(b for b in message.buttons() if b.get("callback_data", "").count(":") == 4)
        await player.tap(player.id, message.message_id, card["text"])
        await h.until(lambda: h.fake.messages[GROUP][board_id].text != board)
        replies = [m for m in h.fake.live(GROUP) if "zz" in m.text]
        assert len(replies) < 15, len(replies)  # the board did not wait for all thirty
        await h.settle()
        assert len([m for m in h.fake.live(GROUP) if "zz" in m.text]) == 30


async def test_one_persons_flood_of_commands_gets_a_few_answers(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    async with harness_with(fake, tmp_path / "few.db", reply_burst=8, reply_every=600) as h:
        troll, other = h.user(3, "Troll"), h.user(4, "Otro")
        for n in range(30):
            troll.send(GROUP, f"/nueva zz{n}")
        await h.settle()
        assert len([m for m in h.fake.live(GROUP) if "zz" in m.text]) == 8
        other.send(GROUP, "/reglas")  # someone else is answered as ever
        await h.settle()
        assert h.fake.last(GROUP).reply_to is not None and "zz" not in h.fake.last(GROUP).text


async def test_channels_and_anonymous_admins_do_not_play_but_an_anonymous_admin_manages(
    harness: Harness,
) -> None:
    """Telegram gives everyone posting as a channel one id, every anonymous admin another:
    neither may open or join a table (nobody could tell them apart); an anonymous admin's
    message comes as the group itself, so it may do what an admin does."""
    h = harness
    group = {"id": GROUP, "type": "supergroup", "title": "Grupo"}
    channel = {"id": -100999, "type": "channel", "title": "Canal"}
    as_channel, anonymous = h.user(136817688, "Channel"), h.user(1087968824, "Group")
    as_channel.send(GROUP, "/nueva", sender_chat=channel)
    await h.settle()
    assert "no como canal" in h.fake.last(GROUP).text
    anonymous.send(GROUP, "/nueva", sender_chat=group)
    await h.settle()
    assert "no como canal" in h.fake.last(GROUP).text
    assert await h.services.tables.table_in(GROUP, 0) is None
    anonymous.send(GROUP, "/config", sender_chat=group)
    await h.settle()
    assert "Opciones del grupo" in h.fake.last(GROUP).text
    as_channel.send(GROUP, "/config", sender_chat=channel)  # a channel is no admin
    await h.settle()
    assert "no como canal" in h.fake.last(GROUP).text
    ana = h.user(1, "Ana")
    ana.send(GROUP, "/nueva")
    await h.settle()
    anonymous.send(GROUP, "/cancelar", sender_chat=group)
    await h.settle()
    assert await h.services.tables.table_in(GROUP, 0) is None


async def test_a_pop_up_shows_a_name_as_typed_while_a_message_keeps_it_escaped(
    harness: Harness,
) -> None:
    """A tap's pop-up (answerCallbackQuery) has no parse mode: a name goes in cleaned but not
    escaped for HTML, or "<b>Ana" reads "&lt;b&gt;Ana". The lobby, an HTML message, still
    escapes it (else "<b>Ana" would be markup, or refused)."""
    h = harness
    juan, ana, obrien = h.user(1, "Juan"), h.user(2, "<b>Ana"), h.user(3, "O'Brien")
    juan.send(GROUP, "/nueva 2v2")
    await h.settle()
    lobby = h.fake.last(GROUP)
    said = []
    for user, label in ((ana, "✋ Equipo 1"), (obrien, "✋ Equipo 2")):
        said.append((await user.tap(GROUP, lobby.message_id, label))["text"])
        await h.settle()
    assert said == ["<b>Ana se sumó a la mesa.", "O'Brien se sumó a la mesa."], said
    shown = h.fake.messages[GROUP][lobby.message_id]
    assert "&lt;b&gt;Ana" in shown.text and "O&#x27;Brien" in shown.text, shown.text


async def test_a_flood_of_commands_is_told_once_to_pause_then_answered_when_the_limit_refills(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Past one person's limit of answers in a group, the bot says once that it is pausing
    (silence looked like a broken bot), then stays quiet; once the limit has refilled, that
    person's commands are answered as ever."""
    async with harness_with(fake, tmp_path / "pause.db", reply_burst=3, reply_every=60) as h:
        troll = h.user(3, "Troll")

        def answers() -> list[str]:
            return [m.text for m in h.fake.live(GROUP) if "zz" in m.text]

        def pauses() -> list[str]:
            return [m.text for m in h.fake.live(GROUP) if m.text.startswith("⏸️")]

        for n in range(12):
            troll.send(GROUP, f"/nueva zz{n}")
        await h.settle()
        assert (len(answers()), len(pauses())) == (3, 1), (answers(), pauses())
        assert pauses() == ["⏸️ Vas muy rápido: espero unos segundos antes de contestarte."]
        for n in range(12, 20):  # still too fast: silence, no second pause
            troll.send(GROUP, f"/nueva zz{n}")
        await h.settle()
        assert (len(answers()), len(pauses())) == (3, 1), (answers(), pauses())
        h.clock.advance(3 * 60)  # the limit refills: three answers' worth
        troll.send(GROUP, "/nueva zz20")
        await h.settle()
        assert len(answers()) == 4 and "zz20" in h.fake.last(GROUP).text, answers()
        assert len(pauses()) == 1

"""Admission: with the bot carrying as many matches as it may (`max_live_tables`), a lobby that
fills waits in line, its group told its place; it starts by itself when a match ends; the line
is in the database (a restart keeps it); nobody plays at a table in line."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.callbacks import ActData, LobbyData, LobbyOp, decode, pack
from bot.model.table import Table, TableStatus
from tests.conftest import Harness, harness_with
from tests.e2e.helpers import action_buttons, hand_message, open_table
from tests.fakebot import FakeTelegram, FakeUser

FIRST, SECOND, THIRD = -100_811, -100_812, -100_813
QUEUED = "en la fila para empezar: puesto {}."
STARTS = "¡Les toca!"


async def table_of(h: Harness, chat: int) -> Table:
    table = await h.services.tables.table_in(chat, 0)
    assert table is not None
    return table


def told(h: Harness, chat: int, words: str) -> bool:
    return any(words in text for text in h.fake.texts(chat))


async def place_of(h: Harness, user: FakeUser, chat: int) -> str:
    """What ⏳ on the lobby in line answers."""
    lobby = h.fake.messages[chat][(await h.telegram((await table_of(h, chat)).id)).board or 0]
    answer = await user.tap(chat, lobby.message_id, "⏳ ¿Cuánto falta?")
    return str(answer["text"])


@pytest.mark.postgresql
async def test_a_full_lobby_waits_in_line_and_starts_when_a_match_ends(
    fake: FakeTelegram, db_target: Path | str
) -> None:
    async with harness_with(fake, db_target, max_live_tables=1) as h:
        ana, beto, caro, dani, eva, fede = (
            h.user(700 + i, name)
            for i, name in enumerate(("Ana", "Beto", "Caro", "Dani", "Eva", "Fede"))
        )
        await open_table(h, [ana, beto], chat=FIRST)
        assert hand_message(h, ana) or hand_message(h, beto)  # the first match plays
        await open_table(h, [caro, dani], chat=SECOND)
        await open_table(h, [eva, fede], chat=THIRD)
        # Each full lobby waits, its group told its place; nobody there has cards.
        assert told(h, SECOND, QUEUED.format(1)) and told(h, THIRD, QUEUED.format(2))
        assert all(hand_message(h, u) is None for u in (caro, dani, eva, fede))
        second = await table_of(h, SECOND)
        assert second.status is TableStatus.LOBBY and second.in_line
        lobby = h.fake.messages[SECOND][(await h.telegram(second.id)).board or 0]
        assert "Completa, en la fila para empezar" in lobby.text
        assert [b["text"] for b in lobby.buttons()] == [
            "⏳ ¿Cuánto falta?",
            "🚪 Salir",
            "✖️ Cancelar",
        ]
        assert "Puesto 2 en la fila" in await place_of(h, fede, THIRD)

        await h.restart()  # the line is the database's: it outlives the process
        await h.settle()
        assert (await table_of(h, SECOND)).in_line and (await table_of(h, THIRD)).in_line

        ana.send(FIRST, "/abandonar")  # the first match ends: the first in line starts by itself
        await h.until(
            lambda: hand_message(h, caro) is not None or hand_message(h, dani) is not None
        )
        await h.settle()
        assert told(h, SECOND, STARTS)
        second = await table_of(h, SECOND)
        assert second.status is TableStatus.PLAYING and second.queued is not None
        assert (await table_of(h, THIRD)).in_line and not told(h, THIRD, STARTS)
        assert "Puesto 1 en la fila" in await place_of(h, eva, THIRD)  # it moved up


@pytest.mark.postgresql
async def test_leaving_the_line_moves_the_others_up(
    fake: FakeTelegram, db_target: Path | str
) -> None:
    async with harness_with(fake, db_target, max_live_tables=1) as h:
        ana, beto, caro, dani, eva, fede = (
            h.user(710 + i, name)
            for i, name in enumerate(("Ana", "Beto", "Caro", "Dani", "Eva", "Fede"))
        )
        await open_table(h, [ana, beto], chat=FIRST)
        await open_table(h, [caro, dani], chat=SECOND)
        await open_table(h, [eva, fede], chat=THIRD)
        second = await table_of(h, SECOND)
        lobby_id = (await h.telegram(second.id)).board or 0
        await dani.tap(SECOND, lobby_id, "🚪 Salir")  # out of the line: a lobby again
        await h.settle()
        second = await table_of(h, SECOND)
        assert not second.in_line and second.seats.count(None) == 1
        assert "✋ Unirme" in [b["text"] for b in h.fake.messages[SECOND][lobby_id].buttons()]
        assert "Puesto 1 en la fila" in await place_of(h, eva, THIRD)
        await dani.tap(SECOND, lobby_id, "✋ Unirme")  # full again: the end of the line
        await h.settle()
        assert told(h, SECOND, QUEUED.format(2))

        ana.send(FIRST, "/abandonar")
        await h.until(lambda: hand_message(h, eva) is not None or hand_message(h, fede) is not None)
        await h.settle()
        assert (await table_of(h, THIRD)).status is TableStatus.PLAYING
        assert (await table_of(h, SECOND)).in_line


async def test_a_tap_on_a_table_in_line_is_refused_and_changes_nothing(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    async with harness_with(fake, tmp_path / "truco.db", max_live_tables=1) as h:
        ana, beto, caro, dani = (
            h.user(720 + i, name) for i, name in enumerate(("Ana", "Beto", "Caro", "Dani"))
        )
        await open_table(h, [ana, beto], chat=FIRST)
        await open_table(h, [caro, dani], chat=SECOND)
        second = await table_of(h, SECOND)
        assert second.in_line
        version, calls = second.version, len(h.fake.calls)
        # a move, as if the table had a hand (a button of the table in play, its number changed)
        playing = hand_message(h, ana) or hand_message(h, beto)
        assert playing is not None
        shown = decode(action_buttons(playing)[0]["callback_data"])
        assert isinstance(shown, ActData)
        move = pack(replace(shown, table=second.id))
        lobby_id = (await h.telegram(second.id)).board or 0
        answers = [
            await caro.answer_of(caro.tap_data(caro.id, 1, move)),
            # the opener changes an option, seats a computer player: no
            await caro.answer_of(
                caro.tap_data(
                    SECOND, lobby_id, pack(LobbyData(second.id, LobbyOp.OPTION, "target"))
                )
            ),
            await caro.answer_of(
                caro.tap_data(SECOND, lobby_id, pack(LobbyData(second.id, LobbyOp.ADD_BOT)))
            ),
        ]
        await h.settle()
        for answer in answers:
            assert answer["text"].startswith("La mesa está completa y espera su turno"), answer
            assert "puesto 1 en la fila" in answer["text"]
        after = await table_of(h, SECOND)
        assert (after.version, after.config, after.seats) == (version, second.config, second.seats)
        sent = [method for _, method, _ in h.fake.calls[calls:]]
        assert set(sent) == {"answerCallbackQuery"}, sent

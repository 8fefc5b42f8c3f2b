"""Computer players that teach and remember, at real tables (the real python-telegram-bot
against the fake Bot API): 💡 hints, a computer partner that lets its person decide, what
difícil remembers of a person from one match to the next."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot import codec
from bot.ai import personas
from bot.game import observe
from bot.model.table import BOT_IDS, Table, is_bot
from bot.service.play import bot_to_move, partner_for
from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import action_buttons, hand_message, open_table, play_to_the_end
from tests.fakebot import FakeTelegram, FakeUser, StoredMessage
from tests.waiting import until_async

NOWHERE = GROUP - 999  # a chat nobody writes to


async def the_table(h: Harness) -> Table:
    """The group's table, or Ana's practice (`/nueva bot` plays in her private chat)."""
    table = await h.services.tables.table_in(GROUP, 0) or await h.services.tables.table_in(1, 0)
    assert table is not None
    return table


def finished(h: Harness, table_id: int) -> Callable[[], Awaitable[bool]]:
    """Whether the match at `table_id` is over (a group may show an older match's 🏆)."""

    async def over() -> bool:
        found = await h.services.tables.get(table_id)
        return found is not None and found.status.value == "finished"

    return over


def labels(message: StoredMessage) -> list[str]:
    return [b["text"] for b in message.buttons()]


def hint_button(message: StoredMessage) -> dict[str, str] | None:
    return next((b for b in message.buttons() if b["callback_data"].startswith("h:")), None)


async def test_a_hint_at_a_practice_table(harness: Harness) -> None:
    """`/nueva bot` teaches: 💡 answers the tapper alone with difícil's move and its chance;
    the match is marked, and bad taps change nothing."""
    h = harness
    ana, beto = h.user(1, "Ana"), h.user(2, "Beto")
    ana.send(GROUP, "/nueva bot 15 sinflor")
    await h.settle()
    table = await the_table(h)
    assert table.hints and table.status.value == "playing"
    message = hand_message(h, ana)
    while message is None or hint_button(message) is None:  # (the bot may move first)
        await h.settle()
        message = hand_message(h, ana)
    assert "💡 Consejo" in labels(message)
    table = await the_table(h)
    assert table.state is not None
    step = table.state.step
    moves = [b["text"] for b in action_buttons(message)]
    answer = await ana.tap(1, message.message_id, "💡 Consejo")
    assert answer["show_alert"] and answer["text"].startswith("💡 ")
    said = answer["text"]
    # it names one of Ana's moves: a card ("Tirá el 4 de copas 🍷") or a chant or answer
    cards = [m.split(" ")[0] for m in moves if any(s in m for s in "🍷🪙🗡🪵")]
    assert (said.startswith("💡 Tirá el ") and any(f"el {c} " in said or "ancho" in said
                                                   for c in cards)) or any(
        said.startswith(f"💡 {m}") for m in moves
    ), (said, moves)  # fmt: skip
    table = await the_table(h)
    assert table.hinted == [1]
    assert table.state is not None and table.state.step == step  # asking moves nothing
    # a stranger, a forged button, a stale step: refused, nothing changes
    assert (await beto.answer_of(beto.tap_data(1, message.message_id, f"h:{table.id}:{step}:h")))[
        "text"
    ] == "No estás jugando en esta mesa."
    forged = ana.tap_data(1, message.message_id, f"h:{table.id}:{step}:z")
    assert (await ana.answer_of(forged))["text"] == "Ese botón no es válido."
    await ana.tap(1, message.message_id, action_buttons(message)[0]["text"])
    await h.settle()
    stale = ana.tap_data(1, message.message_id, f"h:{table.id}:{step}:h")
    assert (await ana.answer_of(stale))["text"] == "Esa jugada ya pasó."
    await play_to_the_end(h, [ana], seed=4, stop=finished(h, table.id))
    record = await h.db.fetchone("SELECT hinted FROM matches WHERE game_id = ?", table.id)
    assert record is not None and record["hinted"] == 1


async def test_a_match_with_hints_asked_is_not_rated(harness: Harness) -> None:
    """Between two people: without the option a hint is refused; with it (said in the lobby),
    the match where one was asked counts for nobody in /tabla and /historial says why."""
    h = harness
    ana, beto = h.user(1, "Ana"), h.user(2, "Beto")
    await open_table(h, [ana, beto], "15 sinflor")
    table = await the_table(h)
    assert not table.hints and table.state is not None
    message = hand_message(h, ana) or hand_message(h, beto)
    assert message is not None and hint_button(message) is None  # no 💡 at such a table
    asker = ana if message.chat_id == 1 else beto
    refused = asker.tap_data(asker.id, message.message_id, f"h:{table.id}:{table.state.step}:h")
    assert (await asker.answer_of(refused))["text"] == "Esta mesa se juega sin consejos."
    ana.send(GROUP, "/cancelar")
    await h.settle()
    ana.send(GROUP, "/nueva 15 sinflor")
    await h.settle()
    lobby = h.fake.last(GROUP)
    await ana.tap(GROUP, lobby.message_id, "🔄 Consejos: no")
    await h.settle()
    lobby = h.fake.last(GROUP)
    assert "🔄 Consejos: sí" in labels(lobby) and "💡 Consejos" in lobby.text
    assert "no cuenta para /tabla" in lobby.text
    await beto.tap(GROUP, lobby.message_id, "✋ Unirme")
    await h.settle()
    table = await the_table(h)
    assert table.hints and table.status.value == "playing"
    message = hand_message(h, ana) or hand_message(h, beto)
    assert message is not None
    asker = ana if message.chat_id == 1 else beto
    answer = await asker.tap(asker.id, message.message_id, "💡 Consejo")
    assert answer["text"].startswith("💡 ")
    # (the first match, conceded by /cancelar, counted: the ratings as they stand)
    rated = [dict(r) for r in await h.db.fetchall("SELECT * FROM ratings ORDER BY user_id")]
    assert len(rated) == 2
    # (the group already shows the first match's 🏆: the table's status says when it is over)
    await play_to_the_end(h, [ana, beto], seed=2, chat=NOWHERE, stop=finished(h, table.id))
    record = await h.db.fetchone("SELECT * FROM matches WHERE game_id = ?", table.id)
    assert record is not None and record["hinted"] == 1 and record["outcome"] == "won"
    after = [dict(r) for r in await h.db.fetchall("SELECT * FROM ratings ORDER BY user_id")]
    assert after == rated  # nobody's rating moved
    stats = await h.db.fetchall("SELECT * FROM player_match_stats WHERE game_id = ?", table.id)
    assert stats == []
    ana.send(GROUP, "/historial")
    await h.settle()
    assert "💡 con consejos (no cuenta)" in h.fake.last(GROUP).text


async def until_a_chant_for_the_side(h: Harness, ana: FakeUser) -> StoredMessage:
    """Ana plays her cards (and lets the first hands go by) until a chant waits for her side's
    answer, which her computer partner could give: her hand message then offers 🤖."""
    for _ in range(400):
        await h.settle()
        message = hand_message(h, ana)
        if message is None:
            continue
        if any(label.startswith("Que decida 🤖") for label in labels(message)):
            return message
        cards = [b for b in action_buttons(message) if b["callback_data"].count(":") == 4]
        await ana.tap(1, message.message_id, (cards or action_buttons(message))[0]["text"])
    raise AssertionError("no chant waited for Ana's side")


@pytest.mark.parametrize("mode", ["2v2", "3v3"])
async def test_the_computer_partner_lets_its_person_decide(harness: Harness, mode: str) -> None:
    h = harness
    ana = h.user(1, "Ana")
    ana.send(GROUP, f"/nueva bot {mode} 15 sinflor")
    await h.settle()
    message = await until_a_chant_for_the_side(h, ana)
    table = await the_table(h)
    assert table.state is not None
    step = table.state.step
    partners = [p for p in table.geometry.partners(0) if is_bot(table.seats[p])]
    acting = {a.seat for a in table.state.legal_actions()}
    assert 0 in acting and acting & set(partners)  # both could answer
    await h.until(lambda: not h.services.ai.busy())
    table = await the_table(h)
    assert table.state is not None and table.state.step == step  # it waits for Ana
    assert bot_to_move(table) is None
    stale = ana.tap_data(1, message.message_id, f"h:{table.id}:{step - 1}:d")
    assert (await ana.answer_of(stale))["text"] == "Esa jugada ya pasó."
    button = next(x for x in labels(message) if x.startswith("Que decida 🤖"))
    answer = await ana.tap(1, message.message_id, button)
    assert answer["text"] == "🤖 Listo: decide tu compañero."

    async def answered() -> bool:
        found = await the_table(h)
        return found.state is not None and found.state.step > step

    await until_async(answered)
    rows = await h.db.fetchall(
        "SELECT user_id FROM actions WHERE game_id = ? ORDER BY seq", table.id
    )
    answerer = rows[step]["user_id"]  # (the action at that step: the partner's answer)
    assert answerer is not None and answerer < 0 and answerer in [table.seats[p] for p in partners]
    # when the game waits on Ana with nothing her partner could answer, a forged 🤖 is refused
    await h.settle()
    await h.until(lambda: not h.services.ai.busy())
    await h.settle()
    table = await the_table(h)
    if (
        table.state is not None
        and table.status.value == "playing"
        and partner_for(table, 0) is None
    ):
        later = ana.tap_data(1, message.message_id, f"h:{table.id}:{table.state.step}:d")
        assert (await ana.answer_of(later))["text"] == (
            "Ahora no hay un compañero bot que pueda contestar por vos."
        )


async def test_the_timer_hands_the_answer_to_the_partner_without_a_strike(
    fake: FakeTelegram, db_target: Path | str
) -> None:
    async with harness_with(fake, db_target, turn_seconds=60) as h:
        ana = h.user(1, "Ana")
        ana.send(GROUP, "/nueva bot 2v2 15 sinflor")
        await h.settle()
        await until_a_chant_for_the_side(h, ana)
        table = await the_table(h)
        assert table.state is not None and table.deadline is not None
        step = table.state.step
        h.clock.advance(61)

        async def answered() -> bool:
            found = await the_table(h)
            return found.state is not None and found.state.step > step

        await until_async(answered)
        table = await the_table(h)
        assert table.strikes == [0, 0]  # letting the partner decide is no fault
        rows = await h.db.fetchall(
            "SELECT user_id FROM actions WHERE game_id = ? ORDER BY seq", table.id
        )
        assert rows[step]["user_id"] == table.seats[2]  # the partner answered, not the timer
        assert not any("Se le acabó el tiempo" in t for t in h.fake.texts(ana.id))


async def test_difícil_remembers_a_person_from_one_match_to_the_next(harness: Harness) -> None:
    """A match against computer players teaches difícil about Ana (from what the table saw);
    it is kept for the place it was played (a practice's: her private chat) and read at her
    next match there."""
    h = harness
    ana = h.user(1, "Ana")
    ana.send(GROUP, "/nueva bot 15 sinflor")
    await h.settle()
    table = await the_table(h)
    await play_to_the_end(h, [ana], seed=6, stop=finished(h, table.id))
    assert h.services.ai is not None
    ended = await h.services.tables.get(table.id)

    async def stored() -> bool:
        return await h.services.ai.rivals.matches(ana.id, 1) == 1

    await until_async(stored)
    assert ended is not None and ended.state is not None
    seat = ended.seat_of(1)
    assert seat is not None
    expected = personas.remembered(
        personas.learn(ended.config, seat, observe(ended.state, None).past)
    )
    got = await h.services.ai.rivals.load(ana.id, [1, 2])
    assert list(got) == [1]  # nobody else: Beto never played
    belief = personas.from_json(codec.loads(got[1]))
    assert belief is not None and belief != personas.uniform()
    assert abs(belief.sound - expected.sound) < 1e-3
    # her next match with a computer player starts from it
    ana.send(GROUP, "/nueva bot difícil 15 sinflor")
    await h.settle()
    again = await the_table(h)
    assert again.id != table.id and again.seats[again.seat_of(1) or 0] == 1
    priors = await h.services.ai._priors_of(again)
    assert priors == {again.seat_of(1): belief}
    assert BOT_IDS["dificil"] in again.seats

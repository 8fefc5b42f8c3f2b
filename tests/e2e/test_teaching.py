"""Computer players that teach and remember, at real tables (the real python-telegram-bot
against the fake Bot API): 💡 hints, a computer partner that lets its person decide, what
difícil remembers of a person from one match to the next."""

from __future__ import annotations

import asyncio
import logging
import math
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from bot import codec
from bot.ai import personas
from bot.ai.hints import Hint, Topic
from bot.game import observe
from bot.i18n import translator
from bot.model.refusals import Refused
from bot.model.table import BOT_IDS, Table, is_bot
from bot.service.ai import HINT_WINDOW, machines_of
from bot.service.changes import Refusal
from bot.service.play import bot_to_move, partner_for
from bot.views.hints import hint_text
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
    return next((b for b in message.buttons() if b.get("callback_data", "").startswith("h:")), None)


@pytest.mark.postgresql
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


async def test_at_a_practice_a_hint_knows_its_rivals_are_computer_players(
    harness: Harness,
) -> None:
    """Against the computer (`/nueva bot`) the hand's chance is told as one number from the
    first hand (its rivals are played as they play: nobody to get to know), never the range
    a stranger gets; the table's computer players go to the hint with their level and
    character."""
    h = harness
    ana = h.user(1, "Ana")
    ana.send(GROUP, "/nueva bot 15 sinflor")
    await h.settle()
    table = await the_table(h)
    ours = machines_of(table)
    assert set(ours) == set(table.bot_seats) and ours
    assert all(m.level == table.bot_level(s) and m.character for s, m in ours.items())
    told: list[Hint] = []

    async def ask() -> bool:  # at each of Ana's turns, until two hints of the hand told one
        found = await the_table(h)
        state = found.state
        if state is None or found.status.value != "playing":
            return False
        if not any(a.seat == found.seats.index(1) for a in state.legal_actions()):
            return False
        got = await h.services.ai.hint(found.id, 1, state.step)
        if got is not None and got.topic is Topic.HAND and got.chance is not None:
            told.append(got)
        return len(told) >= 2

    await play_to_the_end(h, [ana], seed=5, stop=ask)
    assert len(told) == 2
    assert all(t.chance == t.raw and t.low is None and t.high is None for t in told), told
    assert all("conocés" not in hint_text(translator("es"), t) for t in told)


@pytest.mark.postgresql
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
    assert "la partida entera no cuenta para /tabla, para nadie" in lobby.text
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
    assert record is not None and record["hinted"] == 1 and record["termination"] == "target"
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
        cards = [b for b in action_buttons(message) if b.get("callback_data", "").count(":") == 4]
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
    women = {"Lola", "Chela", "Nena", "Mirta", "Beba", "Pirucha"}  # (tests/unit/test_gender.py)
    partner = "compañera" if button.removeprefix("Que decida 🤖 ") in women else "compañero"
    assert answer["text"] == f"🤖 Listo: decide tu {partner}."

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


@pytest.mark.postgresql
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


# -- hints at a bounded cost (issue 45) ----------------------------------------------------------
BUSY = "⏳ Un momento: estoy pensando un consejo. Probá de nuevo en unos segundos."


async def a_hint_to_ask(h: Harness, user: FakeUser, chat: int) -> tuple[StoredMessage, Table]:
    """`user` asks for a practice in `chat` (it is played in their private chat) and waits
    until it is their move (💡 shown)."""
    user.send(chat, "/nueva bot 15 sinflor")
    await h.settle()
    message = hand_message(h, user)
    while message is None or hint_button(message) is None:  # (the bot may move first)
        await h.settle()
        message = hand_message(h, user)
    table = await h.services.tables.table_in(user.id, 0)
    assert table is not None and table.state is not None
    return message, table


def hint_data(table: Table) -> str:
    assert table.state is not None
    return f"h:{table.id}:{table.state.step}:h"


async def test_a_hint_is_thought_once_and_a_flood_is_answered_at_once(harness: Harness) -> None:
    """One hint per (table, step, seat) is thought once and kept: asked again, the same words
    come from it; a person has one hint in flight at most (the others: "un momento", at once);
    both hold for taps made at once and for the core's own asks."""
    h = harness
    ai = h.services.ai
    ana = h.user(1, "Ana")
    message, table = await a_hint_to_ask(h, ana, GROUP)
    started = ai.hints.started
    first = await ana.answer_of(ana.tap_data(1, message.message_id, hint_data(table)))
    assert first["show_alert"] and first["text"].startswith("💡 ")
    again = await ana.answer_of(ana.tap_data(1, message.message_id, hint_data(table)))
    assert again["text"] == first["text"]
    assert ai.hints.started == started + 1  # the second came from the one kept
    # twenty taps at once (forged or real): each answered, none thought again
    queries = [ana.tap_data(1, message.message_id, hint_data(table)) for _ in range(20)]
    answers = [await ana.answer_of(q) for q in queries]
    assert {a["text"] for a in answers} <= {first["text"], BUSY}
    assert ai.hints.started == started + 1
    # the core's own: a second ask while the first is in flight is "un momento", thought never
    ana2 = h.user(2, "Beto")
    other = GROUP - 1
    _message2, table2 = await a_hint_to_ask(h, ana2, other)
    assert table2.state is not None
    got = await asyncio.gather(
        ai.hint(table2.id, 2, table2.state.step),
        ai.hint(table2.id, 2, table2.state.step),
        return_exceptions=True,
    )
    assert isinstance(got[0], Hint)
    assert isinstance(got[1], Refusal) and got[1].code is Refused.HINT_BUSY
    assert ai.hints.started == started + 2
    await h.settle()


async def hold_the_hints(h: Harness) -> tuple[threading.Event, asyncio.Task[object]]:
    """The hints' lane kept busy (as a long hint would) until the test lets it go."""
    gate = threading.Event()
    task: asyncio.Task[object] = asyncio.create_task(
        h.services.ai.hints.run(gate.wait, 60.0, deadline=math.inf)
    )
    await h.until(lambda: h.services.ai.hints.running == 1)
    return gate, task


async def test_a_computer_player_moves_while_hints_wait(harness: Harness) -> None:
    """Hints never hold a computer player's move: with the hints' lane busy and a hint waiting
    in it, another table's computer player still moves; the hint comes after."""
    h = harness
    ai = h.services.ai
    ana, beto = h.user(1, "Ana"), h.user(2, "Beto")
    message, table = await a_hint_to_ask(h, ana, GROUP)
    beto_message, _beto_table = await a_hint_to_ask(h, beto, GROUP - 1)
    gate, holder = await hold_the_hints(h)
    try:
        started = ai.hints.started
        asked = ana.tap_data(1, message.message_id, hint_data(table))
        await h.until(lambda: ai.hints.waiting == 1)
        decisions = ai.decisions
        for _ in range(20):  # Beto plays until his computer rival has moved
            beto_message = hand_message(h, beto) or beto_message
            buttons = action_buttons(beto_message)
            cards = [b for b in buttons if b.get("callback_data", "").count(":") == 4]
            await beto.tap(2, beto_message.message_id, (cards or buttons)[0]["text"])
            await h.until(lambda: not ai.busy())
            if ai.decisions > decisions:
                break
        assert ai.decisions > decisions  # it moved...
        assert ai.hints.waiting == 1 and ai.hints.started == started  # ...while the hint waited
    finally:
        gate.set()
        await holder
    answer = await ana.answer_of(asked)
    assert answer["text"].startswith("💡 ")
    assert ai.hints.started == started + 1
    await h.settle()


async def test_a_hint_past_its_window_is_dropped_without_an_error(harness: Harness) -> None:
    """A hint still waiting when its asker's answer window has passed is not thought at all,
    nor answered (Telegram would refuse the answer), and nothing is logged as an error."""
    h = harness
    ai = h.services.ai
    ana = h.user(1, "Ana")
    message, table = await a_hint_to_ask(h, ana, GROUP)
    gate, holder = await hold_the_hints(h)
    started, dropped = ai.hints.started, ai.hints.dropped
    asked = ana.tap_data(1, message.message_id, hint_data(table))
    await h.until(lambda: ai.hints.waiting == 1)
    h.clock.advance(HINT_WINDOW + 1)  # its window passes while it waits
    gate.set()
    await holder
    await h.settle()
    assert ai.hints.started == started and ai.hints.dropped == dropped + 1  # never thought
    assert asked not in h.fake.answers  # nobody to answer any more
    assert h.errors.records == []
    # asked anew, within its window: thought and answered
    again = await ana.answer_of(ana.tap_data(1, message.message_id, hint_data(table)))
    assert again["text"].startswith("💡 ") and ai.hints.started == started + 1


async def test_a_corrupt_memory_is_ignored_once_and_replaced(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """A stored `rivals` row that does not decode: difícil plays as if it remembered nothing
    (said once in the log, never as a failed computer player), and the match's end replaces
    it with what was learned."""
    h = harness
    caplog.set_level(logging.WARNING, logger="bot.service.ai")
    ana = h.user(1, "Ana")
    place = ana.id  # (a practice is played in her private chat: what difícil learns is kept there)
    for text in ('{"sound": 0.5, "groups": [[1', "[1, 2, 3]", '"x"'):
        await h.services.ai.rivals.save(place, {1: text}, 1.0)
        ana.send(GROUP, "/nueva bot difícil 15 sinflor")
        await h.settle(within=30)
        table = await the_table(h)
        assert BOT_IDS["dificil"] in table.seats
        await play_to_the_end(h, [ana], seed=5, chat=NOWHERE, stop=finished(h, table.id))
        assert h.errors.records == []  # no "computer player failed"

        async def replaced(text: str = text) -> bool:
            found = await h.services.ai.rivals.load(place, [1])
            return found.get(1) != text

        await until_async(replaced)
        stored = await h.services.ai.rivals.load(place, [1])
        assert personas.from_json(codec.loads(stored[1])) is not None
    said = [r for r in caplog.records if "does not decode" in r.getMessage()]
    assert len(said) == 3  # once a row (the match read it twice: its moves, its end)


def test_the_lobby_says_one_hint_leaves_the_whole_match_unrated() -> None:
    es, en = translator("es")("lobby.hints"), translator("en")("lobby.hints")
    assert "la partida entera no cuenta para /tabla, para nadie" in es
    assert "the whole match counts for nobody in /tabla" in en

"""Whole matches played through Telegram: real PTB, fake Bot API server, scripted users."""

from __future__ import annotations

import asyncio
import random
import re
import time
from pathlib import Path

import pytest

from bot.callbacks import ActData, unpack
from bot.game import ActionKind, has_flor
from bot.game.actions import KIND_CODES
from bot.game.fair import fair_deal, seed_for_tests
from bot.views.table import FLOR_FAMILY
from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import action_buttons, hand_message, match_over, open_table, play_to_the_end
from tests.fakebot import FakeTelegram, FakeUser, StoredMessage


async def test_a_1v1_match_from_nueva_to_the_last_fosforo(harness: Harness) -> None:
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan], "1v1 15")
    board = h.fake.last(GROUP)
    assert "Truco" in board.text and "Ana" in board.text and "Juan" in board.text
    assert any(b["text"] == "🃏 Mis cartas" for b in board.buttons())
    taps = await play_to_the_end(h, [ana, juan], seed=1)
    assert taps > 5
    assert match_over(h)
    table_row = await h.db.fetchone("SELECT * FROM matches")
    assert table_row is not None and table_row["termination"] == "target"
    assert max(table_row["score0"], table_row["score1"]) >= 15


async def test_a_player_is_notified_of_their_turn_unless_they_just_acted(harness: Harness) -> None:
    """A new private message notifies, an edit does not. When play comes to someone who acted
    less than 20 s ago, or whose hand came as a new message less than 20 s ago (they are looking
    at the chat), their hand message is edited; to someone who has not for longer, it comes as
    a new message (the old one deleted)."""
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan], "1v1 15 sinflor")

    def hand_of(user: FakeUser) -> StoredMessage:
        found = [m for m in h.fake.live(user.id) if re.search(r"Mano \d+ · vale", m.text)]
        assert len(found) == 1, [m.text for m in found]  # one live hand message per player
        return found[0]

    def cards(user: FakeUser) -> list[dict[str, str]]:
        return [b for b in hand_of(user).buttons() if b.get("callback_data", "").count(":") == 4]

    # our own account, on the injected clock: when each acted, or their hand came anew (the
    # first at the start)
    acted: dict[int, float] = {ana.id: h.clock(), juan.id: h.clock()}
    edited_on_turn = notified_on_turn = 0
    for tap in range(40):
        if match_over(h):
            break
        if tap % 3 == 2:
            h.clock.advance(25)  # everyone looks away for a while
        user = next(u for u in (ana, juan) if cards(u))
        other = juan if user is ana else ana
        before = {u.id: hand_of(u).message_id for u in (ana, juan)}
        await user.tap(user.id, before[user.id], cards(user)[0]["text"])
        acted[user.id] = h.clock()
        await h.settle()
        if match_over(h):
            break
        assert hand_of(user).message_id == before[user.id] or cards(user)  # a new hand
        if cards(other):  # play came to the other player
            looking = h.clock() - acted.get(other.id, float("-inf")) < 20
            moved = hand_of(other).message_id != before[other.id]
            assert moved != looking, (tap, looking, moved)
            if moved:
                assert h.fake.messages[other.id][before[other.id]].deleted
                notified_on_turn += 1
            else:
                edited_on_turn += 1
        for someone in (ana, juan):  # a hand that came anew (a turn, a new hand) was seen
            if hand_of(someone).message_id != before[someone.id]:
                acted[someone.id] = h.clock()
    assert edited_on_turn >= 3 and notified_on_turn >= 3, (edited_on_turn, notified_on_turn)


@pytest.mark.parametrize("mode", ["1v1", "2v2"])
async def test_the_board_offers_only_what_someone_can_use_and_flor_is_never_a_chore(
    fake: FakeTelegram, db_target: Path | str, mode: str
) -> None:
    """Con flor, played through the private buttons to the end. At every step, every action
    button on the group board is at the current step and legal for some seat at the table, and
    none of them is a flor chant (only a holder could use it: the board would have to know who
    holds one). A flor that must be declared (F6) is declared for its holder at once: it rings
    out on the board and no hand ever offers ¡Flor! except as an answer to a flor."""
    players = 2 if mode == "1v1" else 4
    # A TRUCO_SEED whose first mano (table 1, seat 0) holds a flor: declared at once.
    base = next(
        b
        for b in range(1000)
        if has_flor(fair_deal(seed_for_tests(b, 1), 1, players).hands[0])  # the mano
    )
    async with harness_with(fake, db_target, seed=base) as h:
        await _play_checking_the_board(h, mode)


async def _play_checking_the_board(h: Harness, mode: str) -> None:
    names = ["Ana", "Beto", "Caro", "Dani"][: 2 if mode == "1v1" else 4]
    users = [h.user(20 + i, name) for i, name in enumerate(names)]
    await open_table(h, users, f"{mode} 30 conflor")
    rng = random.Random(11)
    checked = 0
    for _ in range(3000):
        await h.settle()
        if match_over(h):
            break
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None and table.state is not None
        state = table.state
        legal = state.legal_actions()
        _, markup = await h.services.deliverer.board_view(table)
        assert markup is not None
        for button in (b for row in markup.inline_keyboard for b in row):
            data = unpack(str(button.callback_data))
            if not isinstance(data, ActData):
                continue
            assert data.step == state.step and data.kind not in FLOR_FAMILY, button.text
            assert any(a.kind is data.kind for a in legal), (button.text, legal)
            checked += 1
        flor_pending = state.hand is not None and state.hand.flor_pending
        options = []
        for user in users:
            message = hand_message(h, user)
            if message is None:
                continue
            for button in action_buttons(message):
                data = unpack(button["callback_data"])
                assert isinstance(data, ActData)
                assert data.kind is not ActionKind.FLOR or flor_pending, button["text"]
                options.append((user, message, button))
        assert options, "the game waits on nobody"
        user, message, button = rng.choice(options)
        answer = await user.tap(user.id, message.message_id, button["text"])
        assert answer["text"] in ("", None) or "pasó" not in answer["text"], answer
    assert match_over(h) and checked > 50
    declared = sum(text.count("</b> ¡Flor!") for text in h.fake.texts(GROUP))  # "Flor: Ana ¡Flor!"
    log = await h.store.action_log(table.id)
    flores = [code for _, _, code in log if code.split(":")[1:] == [KIND_CODES[ActionKind.FLOR]]]
    assert flores, "no flor in the whole match: pick another seed"
    assert declared >= 1


@pytest.mark.postgresql
async def test_fast_play_keeps_the_group_at_most_one_message_behind(
    fake: FakeTelegram, db_target: Path | str
) -> None:
    """2v2 played as fast as the private buttons allow, with the group lane paced (0.25 s a
    call, Telegram's 20 a minute scaled). The end of a hand is told on the board itself, so the
    group's queue never holds more than the board (coalesced to the newest state), a big
    moment's ring-out, an old board's stub and, at the match's end, its announcement: the group
    can fall behind by a call or two, never by hands."""
    async with harness_with(fake, db_target, group_interval=0.25) as h:
        users = [h.user(30 + i, name) for i, name in enumerate(["Ana", "Beto", "Caro", "Dani"])]
        await open_table(h, users, "2v2 15 sinflor")
        rng = random.Random(4)
        opened = await h.services.tables.table_in(GROUP, 0)
        assert opened is not None
        began = time.monotonic()
        for _ in range(2000):
            pending = await h.db.fetchall("SELECT kind FROM outbox WHERE chat_id = ?", GROUP)
            kinds = [r["kind"] for r in pending]
            # the board (coalesced), and at most one big moment's ring-out and one old board's
            # stub: never a backlog of boards or of moments
            assert all(kinds.count(k) <= 1 for k in kinds if k != "match_end"), kinds
            assert kinds.count("board") <= 1 and len(kinds) - kinds.count("match_end") <= 3
            table = await h.services.tables.get(opened.id)
            assert table is not None and table.state is not None
            if table.state.is_over:
                break
            options = [(u, m) for u in users if (m := hand_message(h, u)) is not None]
            if not options:
                await asyncio.sleep(0.01)
                continue
            user, message = rng.choice(options)
            buttons = action_buttons(message)
            weights = [5.0 if b["callback_data"].count(":") == 4 else 0.3 for b in buttons]
            button = rng.choices(buttons, weights)[0]
            await user.answer_of(
                user.tap_data(user.id, message.message_id, button["callback_data"])
            )
        await h.settle()
        assert match_over(h)
        hands = table.state.hand_number
        group_calls = len(fake.calls_in(GROUP))
        elapsed = time.monotonic() - began
        # The lane's pace holds whatever the machine's speed: at most one call a 0.25 s (a slow
        # machine taps slower, so fewer boards coalesce, but never more than the pace lets out).
        assert hands >= 3 and group_calls <= elapsed / 0.25 + 12, (group_calls, hands, elapsed)


async def test_avisame_notes_a_table_opening_at_most_once_an_hour(harness: Harness) -> None:
    """/avisame in a group, on and off per person: a private note when a table opens there
    (not to whoever opened it), at most one an hour a person; the lobby says how many are
    missing."""
    h = harness
    ana, beto, caro = h.user(1, "Ana"), h.user(2, "Beto"), h.user(3, "Caro")

    def notes(user: FakeUser) -> list[str]:
        return [t for t in h.fake.texts(user.id) if t.startswith("🔔 Se abrió una mesa")]

    for user in (beto, ana):
        user.send(GROUP, "/avisame")
        await h.settle()
        assert "Te aviso" in h.fake.last(GROUP).text, h.fake.last(GROUP).text
    ana.send(GROUP, "/nueva 2v2 15")
    await h.settle()
    lobby = h.fake.last(GROUP)
    assert "Faltan 3 para empezar" in lobby.text, lobby.text
    assert len(notes(beto)) == 1 and notes(ana) == []  # (Ana opened it)
    assert "Grupo" in notes(beto)[0] and "2v2" in notes(beto)[0] and "Faltan 3" in notes(beto)[0]
    await caro.tap(GROUP, lobby.message_id, "✋ Equipo 2")
    await h.settle()
    assert "Faltan 2 para empezar" in h.fake.messages[GROUP][lobby.message_id].text
    ana.send(GROUP, "/cancelar")
    await h.settle()
    caro.send(GROUP, "/nueva")  # within the hour: no second note
    await h.settle()
    assert len(notes(beto)) == 1 and len(notes(ana)) == 1  # Ana's first
    caro.send(GROUP, "/cancelar")
    await h.settle()
    h.clock.advance(3601)
    beto.send(GROUP, "/avisame")  # off for Beto
    await h.settle()
    assert "Ya no te aviso" in h.fake.last(GROUP).text
    caro.send(GROUP, "/nueva")
    await h.settle()
    assert len(notes(beto)) == 1 and len(notes(ana)) == 2  # an hour later: Ana's second

"""Fewer messages a tap by design (issue 50): a hand message is edited only when it buys the
player something. At a group's table a seat whose options did not change is not edited on
every card of the others (the board shows them); a person with the web table open gets no
edits of their hand message while the page is open (a notifying one still comes), and one
edit that brings it up to date when it closes. Real PTB against the fake Bot API, real SQLite.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.callbacks import ActData, unpack
from bot.game.actions import KIND_CODES, ActionKind
from bot.model.table import Table
from bot.web.initdata import sign
from tests.conftest import GROUP, TOKEN, Harness, harness_with
from tests.e2e.helpers import (
    action_buttons,
    hand_message,
    match_over,
    open_table,
    play_to_the_end,
)
from tests.fakebot import FakeTelegram, FakeUser

WEBAPP = "https://truco.example.invalid/table"  # only ever written into buttons
HAND_CALLS = ("editMessageText", "sendMessage", "editMessageReplyMarkup")


def hand_calls(h: Harness, chat: int, since: int) -> int:
    return sum(1 for _, m, c in h.fake.calls[since:] if c == chat and m in HAND_CALLS)


async def table_of(h: Harness) -> Table:
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.state is not None
    return table


def waiting(table: Table) -> set[int]:
    """The people the game waits on now."""
    assert table.state is not None
    seats = {a.seat for a in table.state.legal_actions()}
    return {u for s, u in enumerate(table.seats) if s in seats and u is not None}


def current(h: Harness, table: Table, user: FakeUser) -> bool:
    """The user's hand message offers what the table offers their seat now (its buttons are
    of this step), or the user has nothing to do and no live buttons."""
    assert table.state is not None
    message = hand_message(h, user)
    if user.id not in waiting(table):
        return True  # (nothing to do: the board shows the rest)
    if message is None:
        return False
    steps = {data.step for b in action_buttons(message)
             if isinstance(data := unpack(b["callback_data"]), ActData)}  # fmt: skip
    return steps == {table.state.step}


async def test_a_seat_whose_options_did_not_change_is_not_edited(harness: Harness) -> None:
    h = harness
    users = [h.user(i, n) for i, n in enumerate(("Ana", "Beto", "Caro", "Dani"), start=1)]
    await open_table(h, users, "2v2 15 sinflor")
    rng = random.Random(5)
    skipped = new_hands = 0
    for _ in range(60):
        await h.settle()
        if match_over(h):
            break
        before = await table_of(h)
        assert before.state is not None
        hand_before, waited = before.state.hand_number, waiting(before)
        options = [(u, m) for u in users if (m := hand_message(h, u)) is not None]
        user, message = rng.choice(options)
        cards = [b for b in action_buttons(message) if b["callback_data"].count(":") == 4]
        button = rng.choice(cards or action_buttons(message))
        h.clock.advance(30)  # (nobody acted a moment ago: whoever must act now is notified)
        since = len(h.fake.calls)
        await user.tap(user.id, message.message_id, button["text"])
        await h.settle()
        after = await table_of(h)
        assert after.state is not None
        if after.state.is_over:
            break
        if after.state.hand_number != hand_before:  # a new hand: everyone's cards are new,
            for other in users:  # a notifying message only for whoever plays first
                sent = [m for _, m, c in h.fake.calls[since:] if c == other.id]
                assert sent.count("sendMessage") == (other.id in waiting(after)), sent
                assert hand_calls(h, other.id, since) == 1
                new_hands += 1
            continue
        concerned = {user.id} | waited | waiting(after)
        for other in users:
            calls = hand_calls(h, other.id, since)
            if other.id not in concerned:
                assert calls == 0, (other.first_name, "edited though nothing changed for it")
                skipped += 1
        # every seat that has something to do sees it as it is now
        assert all(current(h, after, u) for u in users)
    assert skipped >= 10  # (the cut was exercised: seats the old planner edited every card)
    assert new_hands >= 4


async def test_every_hand_converges_to_the_end_of_the_match(harness: Harness) -> None:
    h = harness
    users = [h.user(i, n) for i, n in enumerate(("Ana", "Beto", "Caro", "Dani"), start=1)]
    await open_table(h, users, "2v2 15 sinflor")
    table = await table_of(h)
    await play_to_the_end(h, users, seed=11)
    await h.settle()
    hands = (await h.telegram(table.id)).hands
    final = await h.services.tables.get(table.id)
    assert final is not None and final.state is not None and final.state.is_over
    score = f"{final.state.scores[0]}"
    for user in users:  # the last hand told whole in every chat: no buttons left, the score
        shown = next(m for m in h.fake.live(user.id) if m.message_id == hands[user.id])
        assert not action_buttons(shown), user.first_name
        assert score in shown.text, user.first_name


# -- the web table open ----------------------------------------------------------------------


@pytest.fixture
async def web(fake: FakeTelegram, tmp_path: Path) -> AsyncIterator[Harness]:
    async with harness_with(
        fake, tmp_path / "web.db", webapp_url=WEBAPP, webapp_name="mesa", web_port=0,
    ) as harness:  # fmt: skip
        yield harness


def launch(h: Harness, user: FakeUser) -> str:
    fields = {
        "auth_date": str(int(h.clock() - 60)),
        "user": json.dumps({"id": user.id, "first_name": user.first_name}),
        "query_id": "AAE1",
    }
    return sign(fields, TOKEN)


class Page:
    """A person's web table open: its live stream read until closed."""

    def __init__(self, h: Harness, user: FakeUser, table_id: int) -> None:
        self.h, self.user, self.table_id = h, user, table_id
        self.events = 0
        self._task: asyncio.Task[None] | None = None
        self._session: aiohttp.ClientSession | None = None
        self._response: aiohttp.ClientResponse | None = None

    async def open(self) -> None:
        web = self.h.services.web
        assert web is not None
        self._session = aiohttp.ClientSession()
        url = f"http://127.0.0.1:{web.port}/api/table/{self.table_id}/events"
        headers = {"X-Telegram-Init-Data": launch(self.h, self.user)}
        response = self._response = await self._session.get(url, headers=headers)
        assert response.status == 200

        async def read() -> None:
            async for line in response.content:
                if line.startswith(b"data: "):
                    self.events += 1

        self._task = asyncio.get_running_loop().create_task(read())
        await self.h.until(lambda: self.events >= 1)
        presence = self.h.services.core.presence
        # (its record written in turn)
        await self.h.until(lambda: bool(presence._open) and not presence._tasks)
        assert self.user.id in await presence.watching(self.table_id)

    async def close(self) -> None:
        assert self._task is not None and self._session is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        if self._response is not None:
            self._response.close()
        await self._session.close()
        presence = self.h.services.core.presence
        await self.h.until(lambda: not presence._open and not presence._tasks)


async def act_on_page(h: Harness, user: FakeUser, table: Table, kind: ActionKind) -> None:
    """`user`'s move of this kind, from the page (a card: their first one playable)."""
    web = h.services.web
    assert web is not None and table.state is not None
    seat = table.seat_of(user.id)
    action = next(a for a in table.state.legal_actions() if a.seat == seat and a.kind is kind)
    body = {"step": table.state.step, "kind": KIND_CODES[kind]}
    if action.card is not None:
        body["card"] = action.card.code
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            f"http://127.0.0.1:{web.port}/api/table/{table.id}/act",
            headers={"X-Telegram-Init-Data": launch(h, user)}, json=body,
        ) as response,
    ):  # fmt: skip
        assert response.status == 200, await response.text()
    await h.settle()


async def tap(h: Harness, user: FakeUser, kind: ActionKind = ActionKind.PLAY) -> None:
    """`user` taps a button of their hand message in the chat: a card, or a chant."""
    message = hand_message(h, user)
    assert message is not None
    button = next(
        b for b in action_buttons(message)
        if isinstance(data := unpack(b["callback_data"]), ActData) and data.kind is kind
    )  # fmt: skip
    await user.tap(user.id, message.message_id, button["text"])
    await h.settle()


async def juan_to_move(h: Harness, ana: FakeUser, juan: FakeUser) -> Table:
    """A 1v1 table where Juan is to move (Ana plays her card in the chat if she is mano)."""
    await open_table(h, [ana, juan], "1v1 15 sinflor")
    table = await table_of(h)
    if ana.id in waiting(table):
        await tap(h, ana)
        table = await table_of(h)
    assert waiting(table) == {juan.id}
    return table


async def test_a_page_open_holds_the_hand_message_and_its_close_brings_it_up_to_date(
    web: Harness,
) -> None:
    h = web
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    table = await juan_to_move(h, ana, juan)
    page = Page(h, ana, table.id)
    await page.open()
    since = len(h.fake.calls)
    await tap(h, juan, ActionKind.TRUCO)  # Ana must answer: her options change
    table = await table_of(h)
    assert waiting(table) == {ana.id}
    assert hand_calls(h, ana.id, since) == 0  # the page shows it: not one edit
    assert not current(h, table, ana)  # (her message in the chat is behind)
    await act_on_page(h, ana, table, ActionKind.QUIERO)  # her answer, from the page
    await tap(h, juan)  # Juan plays on
    table = await table_of(h)
    assert hand_calls(h, ana.id, since) == 0
    closed_at = len(h.fake.calls)
    await page.close()
    await h.settle()
    assert hand_calls(h, ana.id, closed_at) == 1  # one edit brings it up to date
    assert current(h, await table_of(h), ana)
    message = hand_message(h, ana) or h.fake.live(ana.id)[-1]
    assert "Quiero" in message.text or "quiero" in message.text  # (the bet as it stands)


async def test_a_page_open_still_lets_the_turn_notify_and_a_tap_in_the_chat_edit(
    web: Harness,
) -> None:
    h = web
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    table = await juan_to_move(h, ana, juan)
    page = Page(h, ana, table.id)
    await page.open()
    h.clock.advance(60)  # Ana away from the chat a minute: her turn must buzz her
    since = len(h.fake.calls)
    await tap(h, juan, ActionKind.TRUCO)
    sent = [c for _, m, c in h.fake.calls[since:] if m == "sendMessage" and c == ana.id]
    assert sent == [ana.id]  # the notifying hand message, page open or not
    # A tap of hers in the chat (the page still open): her hand follows it there.
    since = len(h.fake.calls)
    await tap(h, ana, ActionKind.QUIERO)
    assert hand_calls(h, ana.id, since) == 1
    assert current(h, await table_of(h), ana)
    await page.close()


async def test_a_tap_in_the_chat_and_the_computer_players_answer_to_it_follow_there(
    web: Harness,
) -> None:
    """A practice, its page open: a tap in the chat answers the person there, and so do the
    computer player's moves that follow it (they were waiting for the tap), or the hand message
    they just tapped in would fall behind."""
    h = web
    ana = h.user(1, "Ana")
    ana.send(ana.id, "/nueva bot")
    await h.settle()
    table = await h.services.tables.table_in(ana.id, 0)
    assert table is not None and table.state is not None
    page = Page(h, ana, table.id)
    await page.open()
    answered = False
    for _ in range(30):  # (taps until the computer player moves after one, then Ana again)
        assert table.state is not None and ana.id in waiting(table)
        seat = table.seat_of(ana.id)
        kinds = {a.kind for a in table.state.legal_actions() if a.seat == seat}
        before = table.state.step
        await tap(h, ana, ActionKind.PLAY if ActionKind.PLAY in kinds else ActionKind.QUIERO)
        table = await h.services.tables.get(table.id)
        assert table is not None and table.state is not None
        if table.state.is_over:
            break
        if table.state.step > before + 1 and ana.id in waiting(table):
            assert current(h, table, ana)  # the computer player's move, in the chat too
            answered = True
            break
    assert answered
    await page.close()

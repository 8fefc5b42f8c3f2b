"""Calls a tap costs in 1v1, by design (docs/operations.md, "Calls a tap"): the hand of whoever
must act now and the group's board; while the bot's send budget is busy, the tapper's own hand
waits (the answer to their tap names the card that went) until their next turn, which edits it
once, or until `own_hand_defer` seconds have passed: it is never left showing a turn they no
longer have. While the budget has room, nothing is saved by waiting: it is edited at once."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from bot.callbacks import ActData, decode
from bot.game import Card
from bot.i18n import translator
from bot.views.common import card_name, card_short
from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import action_buttons, open_table
from tests.fakebot import FakeTelegram, FakeUser, StoredMessage
from tests.waiting import until, until_async

HAND_CALLS = ("editMessageText", "editMessageReplyMarkup", "sendMessage", "deleteMessage")


async def acting(h: Harness) -> int | None:
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None
    waiting = h.services.tables.waiting_users(table)
    return next(iter(waiting)) if len(waiting) == 1 else None


def newest_hand(h: Harness, user: FakeUser) -> StoredMessage:
    return [m for m in h.fake.live(user.id) if action_buttons(m)][-1]


def a_card(message: StoredMessage) -> dict[str, str]:
    return next(b for b in action_buttons(message) if b["callback_data"].count(":") == 4)


async def acting_card(
    h: Harness, people: dict[int, FakeUser]
) -> tuple[FakeUser, StoredMessage, dict[str, str], Card]:
    """Whoever must act now, their hand message, a card button on it and that button's card."""
    who = await acting(h)
    assert who is not None
    tapper = people[who]
    message = newest_hand(h, tapper)
    button = a_card(message)
    data = decode(button["callback_data"])
    assert isinstance(data, ActData) and data.card is not None
    return tapper, message, button, data.card


async def the_first_mover(h: Harness, ids: tuple[int, int]) -> tuple[FakeUser, StoredMessage]:
    """Ana and Beto at a 1v1 in the group: who must play first, and their hand message."""
    ana, beto = h.user(ids[0], "Ana"), h.user(ids[1], "Beto")
    await open_table(h, [ana, beto])
    who = await acting(h)
    assert who is not None
    tapper = ana if who == ana.id else beto
    return tapper, newest_hand(h, tapper)


def calls_since(h: Harness, mark: int) -> Counter[tuple[int | None, str]]:
    return Counter((chat, method) for _, method, chat in h.fake.calls[mark:])


async def test_a_card_in_1v1_costs_the_acting_hand_and_the_board_not_the_tappers_hand(
    fake: FakeTelegram, db_target: Path | str
) -> None:
    t = translator("es")
    async with harness_with(fake, db_target, own_hand_defer=600.0, own_hand_defer_above=0.0) as h:
        ana, beto = h.user(730, "Ana"), h.user(731, "Beto")
        people = {ana.id: ana, beto.id: beto}
        await open_table(h, [ana, beto])
        store = h.services.outbox.store
        for _ in range(2):  # the first round: each plays a card
            tapper, message, button, card = await acting_card(h, people)
            mark = len(h.fake.calls)
            answer = await tapper.tap(tapper.id, message.message_id, button["text"])
            # the answer to the tap says which card went
            assert answer["text"] == t("move.played", card=card_name(t, card)), answer
            nxt = await acting(h)
            assert nxt is not None
            waited_on = people[nxt]

            async def shown() -> bool:
                seen = calls_since(h, mark)  # noqa: B023
                return (
                    sum(n for (c, _), n in seen.items() if c == nxt) > 0  # noqa: B023
                    and seen[(GROUP, "editMessageText")] > 0
                    and not h.services.outbox.busy()
                    and await store.waiting() <= 1  # (at most the tapper's hand, waiting)
                )

            await until_async(shown, 60)
            seen = calls_since(h, mark)
            by_chat = Counter(c for c, m in seen.elements() if m in HAND_CALLS and c in people)
            # one message changes for the person who must act now: an edit, or a new message
            # that notifies them (and the old one's buttons taken away)
            turn = {m: n for (c, m), n in seen.items() if c == waited_on.id}
            assert turn in ({"editMessageText": 1}, {"sendMessage": 1},
                            {"sendMessage": 1, "deleteMessage": 1}), turn  # fmt: skip
            if waited_on is not tapper:
                assert by_chat[tapper.id] == 0, seen  # the tapper's hand waits
            assert seen[(GROUP, "editMessageText")] == 1, seen  # one board edit
            assert sum(by_chat.values()) == sum(turn.values()), seen


async def test_the_tappers_hand_is_edited_within_its_bound_when_no_turn_comes_first(
    fake: FakeTelegram, db_target: Path | str
) -> None:
    """Nobody plays after the tap: the tapper's hand is edited anyway, `own_hand_defer`
    seconds after the tap (not at once), and no longer offers the card that went nor says it
    is their turn."""
    defer = 1.0
    async with harness_with(fake, db_target, own_hand_defer=defer, own_hand_defer_above=0.0) as h:
        tapper, message = await the_first_mover(h, (732, 733))
        button = a_card(message)
        mark, began = len(h.fake.calls), time.monotonic()
        await tapper.tap(tapper.id, message.message_id, button["text"])
        await until(lambda: any(c == tapper.id for _, _, c in h.fake.calls[mark:]), 60)
        assert time.monotonic() - began >= defer - 0.05  # it waited, as designed
        shown = [m for m in h.fake.live(tapper.id) if m.message_id == message.message_id]
        assert shown, "the hand message was replaced instead of edited"
        assert button["callback_data"] not in [b.get("callback_data") for b in shown[0].buttons()]
        assert "Te toca" not in shown[0].text  # ("👉 Te toca.": no longer their turn)


async def test_while_the_budget_has_room_the_tappers_hand_is_edited_at_once(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """A quiet night (the budget far from its ceiling): the tapper's hand does not wait, even
    with a long `own_hand_defer`, so nobody sees a turn they no longer have."""
    async with harness_with(fake, tmp_path / "q.db", own_hand_defer=600.0) as h:
        tapper, message = await the_first_mover(h, (734, 735))
        button = a_card(message)
        mark = len(h.fake.calls)
        await tapper.tap(tapper.id, message.message_id, button["text"])
        await h.settle()  # (with the hand waiting, the outbox would not be empty: no settling)
        assert any(c == tapper.id for _, _, c in h.fake.calls[mark:]), calls_since(h, mark)
        shown = [m for m in h.fake.live(tapper.id) if m.message_id == message.message_id]
        assert button["callback_data"] not in [b.get("callback_data") for b in shown[0].buttons()]
        assert "Te toca" not in shown[0].text


COUNTED = ("editMessageText", "editMessageReplyMarkup", "sendMessage")  # (Telegram's limits')


@pytest.mark.postgresql  # (the mailbox's lanes are claimed there)
async def test_a_1v1_hand_played_from_private_hands_costs_one_call_a_card_and_three_at_its_end(
    fake: FakeTelegram, db_target: Path | str
) -> None:
    """Both players' hands in their private chats, which show the table: the group's board
    is only for those watching, one edit a window (`watched_board_interval`, long here) and
    at once at a hand's end. A card costs one call, the hand of whoever must act now, which
    shows the card that went; the tapper's hand waits for their next turn (the budget busy);
    the card that ends the hand costs three: the board, and each player's new cards."""
    async with harness_with(
        fake, db_target, own_hand_defer=600.0, own_hand_defer_above=0.0,
        watched_board_interval=600.0,
    ) as h:  # fmt: skip
        ana, beto = h.user(736, "Ana"), h.user(737, "Beto")
        people = {ana.id: ana, beto.id: beto}
        await open_table(h, [ana, beto])
        store = h.services.outbox.store

        async def hand_number() -> int:
            table = await h.services.tables.table_in(GROUP, 0)
            assert table is not None and table.state is not None
            return table.state.hand_number

        first = await hand_number()
        costs: list[int] = []
        while await hand_number() == first:
            tapper, message, button, card = await acting_card(h, people)
            mark = len(h.fake.calls)
            await tapper.tap(tapper.id, message.message_id, button["text"])
            ended = await hand_number() != first
            nxt = await acting(h)
            assert nxt is not None

            async def shown() -> bool:
                seen = calls_since(h, mark)  # noqa: B023
                called = {c for (c, m) in seen if m in COUNTED}
                return (
                    (called >= {GROUP, ana.id, beto.id} if ended else nxt in called)  # noqa: B023
                    and not h.services.outbox.busy()
                    and await store.waiting() <= (0 if ended else 2)  # noqa: B023
                )

            await until_async(shown, 60)
            seen = calls_since(h, mark)
            counted = Counter({c: n for (c, m), n in seen.items() if m in COUNTED})
            if ended:  # the board and both hands, once each
                assert counted == {GROUP: 1, ana.id: 1, beto.id: 1}, seen
            else:  # the hand of whoever acts now, and it shows the card that went
                assert counted == {nxt: 1}, seen
                assert card_short(card) in newest_hand(h, people[nxt]).text
            costs.append(sum(counted.values()))
        assert len(costs) >= 4 and costs == [1] * (len(costs) - 1) + [3], costs


@pytest.mark.postgresql  # (the mailbox's lanes are claimed there)
async def test_a_watched_board_shows_the_latest_play_within_its_window(
    fake: FakeTelegram, db_target: Path | str
) -> None:
    """The same table with a short window: after a card, the group's board is not edited
    sooner than its window after its last edit, and then shows the card that went and whose
    turn it is now, within its bound (the window; the budget is free here), in one edit."""
    window = 2.0
    async with harness_with(fake, db_target, watched_board_interval=window) as h:
        tapper, message = await the_first_mover(h, (738, 739))
        board = h.fake.live(GROUP)[-1]
        before = [at for at, m, c in h.fake.calls if c == GROUP and m in COUNTED][-1]
        button = a_card(message)
        data = decode(button["callback_data"])
        assert isinstance(data, ActData) and data.card is not None
        card = data.card
        mark, tapped = len(h.fake.calls), time.time()
        await tapper.tap(tapper.id, message.message_id, button["text"])
        nxt = await acting(h)
        assert nxt is not None and nxt != tapper.id
        await until(lambda: card_short(card) in board.text, 60)
        edits = [at for at, m, c in h.fake.calls[mark:] if c == GROUP and m in COUNTED]
        assert len(edits) == 1, edits
        assert edits[0] - before >= window - 0.05, edits[0] - before  # it kept its window
        assert edits[0] - tapped <= window + 10.0, edits[0] - tapped  # within its bound
        turn = [line for line in board.text.split("\n") if line.startswith("👉")]
        assert turn and {738: "Ana", 739: "Beto"}[nxt] in turn[0], board.text


async def test_in_teams_the_board_keeps_the_group_pace_though_every_hand_is_private(
    fake: FakeTelegram, db_target: Path | str
) -> None:
    """In a 2v2 a private hand is edited when its owner can act, not at each card of the three
    others: between turns the board is where a player follows the play (a partner's card, a
    chant and its answer), so it is never held as a board only for those watching."""
    async with harness_with(fake, db_target, watched_board_interval=600.0) as h:
        users = [h.user(740 + i, name) for i, name in enumerate(("Ana", "Beto", "Caro", "Dani"))]
        people = {u.id: u for u in users}
        await open_table(h, users, "2v2")
        board = h.fake.live(GROUP)[-1]
        tapper, message, button, card = await acting_card(h, people)
        await tapper.tap(tapper.id, message.message_id, button["text"])
        # (held as a watched board, it would wait its 600 s window)
        await until(lambda: card_short(card) in board.text, 30)

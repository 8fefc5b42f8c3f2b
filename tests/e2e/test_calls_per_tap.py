"""Calls a tap costs in 1v1, by design (docs/operations.md, "Calls a tap"): the hand of whoever
must act now and the group's board; the tapper's own hand waits, at any load (the answer to
their tap names what went and says their message catches up at their turn), until their next
edit (their turn, a chant they must answer, the hand's end), or until `own_hand_defer` seconds
have passed; a tap on it meanwhile changes nothing. In private hands at a 1v1 the board is
for those watching (its window, a hand's end included); hands in the group keep the board at
the group's pace."""

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
from tests.e2e.test_in_group import hand_here, open_in_the_group
from tests.fakebot import BOT_ID, OVERALL_COUNTED, FakeTelegram, FakeUser, StoredMessage
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


async def hand_number(h: Harness) -> int:
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.state is not None
    return table.state.hand_number


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
            nxt = await acting(h)
            assert nxt is not None
            waited_on = people[nxt]
            # the answer to the tap says which card went (and, the hand message waiting for
            # their next turn, that it catches up then)
            said = t("move.played", card=card_name(t, card))
            later = f"{said} {t('move.shown_at_turn')}"
            assert answer["text"] == (said if waited_on is tapper else later), answer

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


async def test_the_tappers_hand_waits_for_their_next_turn_though_the_budget_has_room(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """A quiet night (the budget far from its ceiling): the tapper's own hand still waits for
    their next turn, by design (not only under load). The answer to their tap says which card
    went and that the message catches up at their turn; a tap on the stale message's button
    of the card already played says so and changes nothing; their next turn edits the
    message once, without the card that went."""
    t = translator("es")
    async with harness_with(fake, tmp_path / "q.db", own_hand_defer=600.0) as h:
        ana, beto = h.user(734, "Ana"), h.user(735, "Beto")
        people = {ana.id: ana, beto.id: beto}
        await open_table(h, [ana, beto], "sinflor")  # (nothing chanted in between)
        tapper, message, _, _ = await acting_card(h, people)
        button = a_card(message)
        data = decode(button["callback_data"])
        assert isinstance(data, ActData) and data.card is not None
        mark = len(h.fake.calls)
        answer = await tapper.tap(tapper.id, message.message_id, button["text"])
        said = t("move.played", card=card_name(t, data.card))
        assert answer["text"] == f"{said} {t('move.shown_at_turn')}", answer
        other = await acting(h)
        assert other is not None and other != tapper.id
        await until(lambda: any(c == other for _, _, c in h.fake.calls[mark:]), 60)
        await until(lambda: not h.services.outbox.busy(), 60)
        assert not any(c == tapper.id for _, _, c in h.fake.calls[mark:]), calls_since(h, mark)
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None and table.state is not None
        step = table.state.step
        # the stale message's button of the card that went: told so, nothing changes
        mark = len(h.fake.calls)
        answer = await tapper.tap(tapper.id, message.message_id, button["text"])
        assert answer["text"] == t("refusal.already_played", card=card_name(t, data.card)), answer
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None and table.state is not None and table.state.step == step
        called = [m for _, m, _ in h.fake.calls[mark:]]
        assert called == ["answerCallbackQuery"], calls_since(h, mark)
        # their next turn: one edit of the same message, the card gone
        while await acting(h) != tapper.id:
            mover, msg, btn, _ = await acting_card(h, people)
            await mover.tap(mover.id, msg.message_id, btn["text"])
        await until(lambda: any(c == tapper.id for _, _, c in h.fake.calls[mark:]), 60)
        shown = [m for m in h.fake.live(tapper.id) if m.message_id == message.message_id]
        assert shown, "the hand message was replaced instead of edited"
        assert button["callback_data"] not in [b.get("callback_data") for b in shown[0].buttons()]
        assert "Te toca" in shown[0].text


COUNTED = ("editMessageText", "editMessageReplyMarkup", "sendMessage")  # (Telegram's limits')


@pytest.mark.postgresql  # (the mailbox's lanes are claimed there)
async def test_a_1v1_hand_played_from_private_hands_costs_one_call_a_card_and_two_at_its_end(
    fake: FakeTelegram, db_target: Path | str
) -> None:
    """Both players' hands in their private chats, which show the table: the group's board
    is only for those watching, one edit a window (`watched_board_interval`, long here) and
    at once at a hand's end. A card costs one call, the hand of whoever must act now, which
    shows the card that went; the tapper's hand waits for their next turn; the card that ends
    the hand costs two, each player's new cards, which tell the hand that ended on top: the
    board's edit waits its window as any other (only watchers need it)."""
    async with harness_with(
        fake, db_target, own_hand_defer=600.0, own_hand_defer_above=0.0,
        watched_board_interval=600.0,
    ) as h:  # fmt: skip
        ana, beto = h.user(736, "Ana"), h.user(737, "Beto")
        people = {ana.id: ana, beto.id: beto}
        await open_table(h, [ana, beto])
        store = h.services.outbox.store

        first = await hand_number(h)
        costs: list[int] = []
        while await hand_number(h) == first:
            tapper, message, button, card = await acting_card(h, people)
            mark = len(h.fake.calls)
            await tapper.tap(tapper.id, message.message_id, button["text"])
            ended = await hand_number(h) != first
            nxt = await acting(h)
            assert nxt is not None

            async def shown() -> bool:
                seen = calls_since(h, mark)  # noqa: B023
                called = {c for (c, m) in seen if m in COUNTED}
                return (
                    (called >= {ana.id, beto.id} if ended else nxt in called)  # noqa: B023
                    and not h.services.outbox.busy()
                    and await store.waiting() <= (1 if ended else 2)  # noqa: B023
                )

            await until_async(shown, 60)
            seen = calls_since(h, mark)
            counted = Counter({c: n for (c, m), n in seen.items() if m in COUNTED})
            if ended:  # both hands, once each, the hand that ended on top of the new cards
                assert counted == {ana.id: 1, beto.id: 1}, seen
                for person in (ana, beto):
                    assert f"🏁 <b>Mano {first}</b>" in h.fake.live(person.id)[-1].text, person
            else:  # the hand of whoever acts now, and it shows the card that went
                assert counted == {nxt: 1}, seen
                assert card_short(card) in newest_hand(h, people[nxt]).text
            costs.append(sum(counted.values()))
        assert len(costs) >= 4 and costs == [1] * (len(costs) - 1) + [2], costs


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


async def test_a_1v1_hand_from_hands_in_the_group_costs_two_calls_a_card_and_three_at_its_end(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Both players never opened the bot's private chat: each hand is an ephemeral message in
    the group, short, leaning on the board, which keeps the group's pace. A card costs two
    calls, the board and the hand of whoever must act now; the tapper's own waits for their
    next turn; the card that ends the hand costs three: the board and each player's new
    cards."""
    async with harness_with(fake, tmp_path / "g.db", own_hand_defer=600.0) as h:
        h.fake.admins[GROUP].add(BOT_ID)  # (the bot shows each hand at the deal)
        ana, beto = h.user(744, "Ana", started=False), h.user(745, "Beto", started=False)
        people = {ana.id: ana, beto.id: beto}
        await open_in_the_group(h, [ana, beto], "15")
        await h.settle()
        store = h.services.outbox.store

        first = await hand_number(h)
        costs: list[int] = []
        while await hand_number(h) == first:
            who = await acting(h)
            assert who is not None
            tapper = people[who]
            shown = hand_here(h, tapper)
            assert shown is not None
            button = a_card(shown)
            mark, seen_mark = len(h.fake.calls), len(h.fake.seen)
            tapper.tap_ephemeral_data(GROUP, shown.message_id, button["callback_data"])
            await until_async(lambda: _moved(h, mark), 60)  # noqa: B023
            ended = await hand_number(h) != first
            nxt = await acting(h)
            assert nxt is not None

            async def settled() -> bool:
                readers = {r for c, r, *_ in h.fake.seen[seen_mark:] if c == GROUP}  # noqa: B023
                wanted = {None, ana.id, beto.id} if ended else {None, nxt}  # noqa: B023
                return (
                    readers >= wanted
                    and not h.services.outbox.busy()
                    and await store.waiting() <= (0 if ended else 1)  # noqa: B023
                )

            await until_async(settled, 60)
            readers = Counter(r for c, r, *_ in h.fake.seen[seen_mark:] if c == GROUP)
            counted = sum(
                1 for _, m, c in h.fake.calls[mark:] if c == GROUP and m in OVERALL_COUNTED
            )
            if ended:  # the board, and both hands once each
                assert readers == {None: 1, ana.id: 1, beto.id: 1}, readers
            else:  # the board, and the hand of whoever acts now
                assert readers == {None: 1, nxt: 1}, readers
            assert counted == sum(readers.values()), calls_since(h, mark)
            costs.append(counted)
        assert len(costs) >= 4 and costs == [2] * (len(costs) - 1) + [3], costs


async def _moved(h: Harness, mark: int) -> bool:
    """A tap was played: the board was called for since `mark`."""
    return any(c == GROUP and m in OVERALL_COUNTED for _, m, c in h.fake.calls[mark:])


async def test_a_chant_answers_that_the_chanters_message_catches_up_at_the_answer(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """A chant, as a card: the chanter's own message waits (it still shows "👉 Te toca." and
    the chant's button), so the answer to the tap says so; the rival's answer, which gives
    the chanter their turn back, edits it once (and says, in turn, that the rival's own
    message catches up at their turn, after a full stop: "Quiero." )."""
    t = translator("es")
    async with harness_with(fake, tmp_path / "c.db", own_hand_defer=600.0) as h:
        ana, beto = h.user(746, "Ana"), h.user(747, "Beto")
        people = {ana.id: ana, beto.id: beto}
        await open_table(h, [ana, beto], "sinflor")
        chanter, message, _, _ = await acting_card(h, people)
        rival = beto if chanter is ana else ana
        mark = len(h.fake.calls)
        answer = await chanter.tap(chanter.id, message.message_id, "¡Truco!")
        assert answer["text"] == f"¡Truco! {t('move.shown_at_turn')}", answer
        await until(lambda: any(c == rival.id for _, _, c in h.fake.calls[mark:]), 60)
        await until(lambda: not h.services.outbox.busy(), 60)
        assert not any(c == chanter.id for _, _, c in h.fake.calls[mark:]), calls_since(h, mark)
        answer = await rival.tap(rival.id, newest_hand(h, rival).message_id, "Quiero")
        assert answer["text"] == f"Quiero. {t('move.shown_at_turn')}", answer
        await until(lambda: any(c == chanter.id for _, _, c in h.fake.calls[mark:]), 60)
        shown = [m for m in h.fake.live(chanter.id) if m.message_id == message.message_id]
        assert (
            shown
            and "Te toca" in shown[0].text
            and "¡Truco!" not in [b["text"] for b in shown[0].buttons()]
        ), shown


async def test_in_teams_the_tappers_hand_goes_at_once_while_the_budget_has_room(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """In teams a player's next turn is several moves away (five in 3v3, about half a minute
    at a person's pace): their hand message would say "👉 Te toca." and offer the card that
    went all that while. So there the tapper's own hand waits only while the budget is busy
    (`own_hand_defer_above`); on a quiet night it is edited at once, and the answer to the tap
    says only what went."""
    t = translator("es")
    async with harness_with(fake, tmp_path / "t.db", own_hand_defer=600.0) as h:
        four = [h.user(740 + i, n) for i, n in enumerate(("Ana", "Beto", "Caro", "Dani"))]
        people = {u.id: u for u in four}
        await open_table(h, four, "2v2 sinflor")
        tapper, message, button, card = await acting_card(h, people)
        mark = len(h.fake.calls)
        answer = await tapper.tap(tapper.id, message.message_id, button["text"])
        assert answer["text"] == t("move.played", card=card_name(t, card)), answer
        await until(lambda: any(c == tapper.id for _, _, c in h.fake.calls[mark:]), 60)
        shown = [m for m in h.fake.live(tapper.id) if m.message_id == message.message_id]
        assert shown, "the hand message was replaced instead of edited"
        assert button["callback_data"] not in [b.get("callback_data") for b in shown[0].buttons()]
        assert "Te toca" not in shown[0].text

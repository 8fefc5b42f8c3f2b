"""The group keeps the game in sight (issue 47): a board buried under chat comes back at the
next hand, and the big moments ring out as new messages while ordinary moves stay edits."""

from __future__ import annotations

import time

from bot.game.state import MatchState
from bot.model.outbox import POST, Pending, RowKind
from bot.telegram.delivery import RING_FRESH
from tests.conftest import GROUP, Harness
from tests.e2e.helpers import action_buttons, hand_message, open_table, play_to_the_end
from tests.fakebot import FakeUser, StoredMessage

STUB = "⬇️ La mesa sigue más abajo"


async def state_of(h: Harness) -> MatchState:
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None and table.state is not None
    return table.state


async def to_act(h: Harness, users: list[FakeUser]) -> FakeUser:
    """The player the game waits on (a 1v1: one at a time)."""
    state = await state_of(h)
    table = await h.services.tables.table_in(GROUP, 0)
    assert table is not None
    seats = {a.seat for a in state.legal_actions()}
    assert len(seats) == 1, seats
    user_id = table.seats[seats.pop()]
    return next(u for u in users if u.id == user_id)


async def say(h: Harness, users: list[FakeUser], label: str) -> None:
    """Whoever must act taps `label` in their hand message."""
    user = await to_act(h, users)
    message = hand_message(h, user)
    assert message is not None
    assert any(b["text"] == label for b in action_buttons(message)), (
        label,
        [b["text"] for b in action_buttons(message)],
    )
    await user.tap(user.id, message.message_id, label)
    await h.settle()


def new_group_messages(h: Harness, after: int) -> list[StoredMessage]:
    return [m for m in h.fake.live(GROUP) if m.message_id > after]


async def test_a_board_buried_under_chat_comes_back_at_the_next_hand(harness: Harness) -> None:
    h = harness
    users = [h.user(1, "Ana"), h.user(2, "Beto")]
    await open_table(h, users, "15")
    board = h.fake.last(GROUP)
    assert "🃏" in board.text and board.buttons()
    start = (await state_of(h)).hand_number

    async def next_hand() -> bool:
        return (await state_of(h)).hand_number > start

    # a few lines of chat under the board: not buried yet, the next hand is an edit
    for _ in range(3):
        next(h.fake.message_ids[GROUP])  # (privacy mode: the bot does not see them)
    await play_to_the_end(h, users, seed=5, stop=next_hand)
    assert not new_group_messages(h, board.message_id + 3), h.fake.texts(GROUP)
    assert h.fake.messages[GROUP][board.message_id].buttons()

    # friends joking: a screenful of messages, then a command the bot sees
    for _ in range(10):
        next(h.fake.message_ids[GROUP])
    users[1].send(GROUP, "/ayuda")
    await h.settle()
    now = (await state_of(h)).hand_number
    # mid-hand the board stays where it is
    assert STUB not in h.fake.messages[GROUP][board.message_id].text

    async def hand_after() -> bool:
        return (await state_of(h)).hand_number > now

    await play_to_the_end(h, users, seed=6, stop=hand_after)
    await h.settle()
    old = h.fake.messages[GROUP][board.message_id]
    assert old.text == STUB and not old.buttons(), old.text
    head = "🃏 <b>Truco</b> · mano"
    boards = [m for m in new_group_messages(h, board.message_id) if head in m.text]
    assert len(boards) == 1, [m.text for m in boards]
    fresh = boards[0]
    # the fresh board is the one edited from now on
    await say(h, users, (await first_label(h, users)))
    assert h.fake.messages[GROUP][fresh.message_id].history[-1] == fresh.text
    assert h.fake.messages[GROUP][board.message_id].text == STUB
    if __import__("os").environ.get("TRUCO_SHOW"):
        print("\n---\n".join(f"[{m}] {text}" for m, text in h.fake.timeline[GROUP]))


async def first_label(h: Harness, users: list[FakeUser]) -> str:
    user = await to_act(h, users)
    message = hand_message(h, user)
    assert message is not None
    return str(action_buttons(message)[0]["text"])


async def test_a_wanted_falta_envido_rings_out_and_a_truco_does_not(harness: Harness) -> None:
    h = harness
    users = [h.user(1, "Ana"), h.user(2, "Beto")]
    await open_table(h, users, "30 malas sinflor")
    board = h.fake.last(GROUP)
    await say(h, users, "¡Truco!")
    await say(h, users, "Quiero")
    assert not new_group_messages(h, board.message_id), h.fake.texts(GROUP)
    before = len(h.fake.timeline[GROUP])
    assert before
    start = (await state_of(h)).hand_number

    async def next_hand() -> bool:
        return (await state_of(h)).hand_number > start

    await play_to_the_end(h, users, seed=2, stop=next_hand)
    last = max(m.message_id for m in h.fake.live(GROUP))
    await say(h, users, "Falta envido")
    assert not new_group_messages(h, last)  # called, not yet wanted: an edit
    await say(h, users, "Quiero")
    rung = new_group_messages(h, last)
    assert len(rung) == 1, [m.text for m in rung]
    text = rung[0].text
    assert "¡Falta envido querida!" in text and text.count("\n") <= 1, text
    assert not rung[0].buttons()


async def test_a_vale_cuatro_rings_out_once_in_its_hand(harness: Harness) -> None:
    h = harness
    users = [h.user(1, "Ana"), h.user(2, "Beto")]
    await open_table(h, users, "30 sinflor")
    last = max(m.message_id for m in h.fake.live(GROUP))
    await say(h, users, "¡Truco!")
    await say(h, users, "¡Retruco!")
    assert not new_group_messages(h, last), h.fake.texts(GROUP)
    await say(h, users, "¡Vale cuatro!")
    rung = new_group_messages(h, last)
    assert [m.text for m in rung] == [
        f"🔥 <b>¡Vale cuatro!</b> Lo canta <b>{(await current_chanter(h, users))}</b>."
    ], [m.text for m in rung]
    await say(h, users, "Quiero")
    assert len(new_group_messages(h, last)) == 1  # one ring-out a hand
    if __import__("os").environ.get("TRUCO_SHOW"):
        print("\n---\n".join(text for _, text in h.fake.timeline[GROUP]))


async def current_chanter(h: Harness, users: list[FakeUser]) -> str:
    """Who called the vale cuatro: the one the game does not wait on now (a 1v1)."""
    waiting = await to_act(h, users)
    return next(u.first_name for u in users if u is not waiting)


async def test_a_ring_out_the_lane_was_too_slow_for_is_dropped(harness: Harness) -> None:
    """A ring-out still waiting long after its moment (the group's lane behind: a flood
    wait, a burst of results) is news no more: dropped, not sent late."""
    h = harness
    h.user(1, "Ana").send(GROUP, "/ayuda")
    await h.settle()
    sent = len(h.fake.texts(GROUP))

    def ring(age: float) -> Pending:
        payload = {"text": "🔥 <b>¡Vale cuatro!</b> Lo canta <b>Ana</b>.", "ring": 1}
        return Pending(0, GROUP, RowKind.TEXT, "ring:1", payload, 1, POST, False,
                       created_at=time.time() - age)  # fmt: skip

    late = await h.services.deliverer.deliver(ring(RING_FRESH + 5))
    assert not late.called and len(h.fake.texts(GROUP)) == sent
    await h.services.deliverer.deliver(ring(1.0))
    assert h.fake.texts(GROUP)[-1].startswith("🔥")

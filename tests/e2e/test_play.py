"""Whole matches played through Telegram: real PTB, fake Bot API server, scripted users."""

from __future__ import annotations

from tests.conftest import GROUP, Harness
from tests.e2e.helpers import match_over, open_table, play_to_the_end
from tests.fakebot import FakeUser, StoredMessage


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
    table_row = await h.services.db.fetchone("SELECT * FROM matches")
    assert table_row is not None and table_row["outcome"] == "won"
    assert max(table_row["score0"], table_row["score1"]) >= 15


async def test_a_player_is_notified_of_their_turn_unless_they_just_acted(harness: Harness) -> None:
    """A new private message notifies, an edit does not. When play comes to someone who acted
    less than 20 s ago (they are looking at the chat), their hand message is edited; to someone
    who has not acted for longer, or never, it comes as a new message (the old one deleted)."""
    h = harness
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    await open_table(h, [ana, juan], "1v1 15 sinflor")

    def hand_of(user: FakeUser) -> StoredMessage:
        found = [m for m in h.fake.live(user.id) if "Tu mano" in m.text]
        assert len(found) == 1, [m.text for m in found]  # one live hand message per player
        return found[0]

    def cards(user: FakeUser) -> list[dict[str, str]]:
        return [b for b in hand_of(user).buttons() if b["callback_data"].count(":") == 4]

    acted: dict[int, float] = {}  # our own account, on the injected clock
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
    assert edited_on_turn >= 3 and notified_on_turn >= 3, (edited_on_turn, notified_on_turn)

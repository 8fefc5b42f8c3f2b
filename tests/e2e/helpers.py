"""Scripted players: they tap only the buttons the bot shows them."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable

from tests.conftest import GROUP, Harness
from tests.fakebot import FakeUser, StoredMessage


def action_buttons(message: StoredMessage) -> list[dict[str, str]]:
    return [b for b in message.buttons() if str(b.get("callback_data", "")).startswith("a:")]


def hand_message(h: Harness, user: FakeUser) -> StoredMessage | None:
    """The user's live hand message: the newest private message with action buttons."""
    found = [m for m in h.fake.live(user.id) if action_buttons(m)]
    return found[-1] if found else None


def match_over(h: Harness, chat: int = GROUP) -> bool:
    return any("🏆" in text for text in h.fake.texts(chat))


async def open_table(h: Harness, users: list[FakeUser], args: str = "", chat: int = GROUP) -> None:
    """/nueva by the first user, the others join by tapping; the table starts when full."""
    users[0].send(chat, f"/nueva {args}".strip())
    await h.settle()
    lobby = h.fake.last(chat)
    for index, user in enumerate(users[1:], start=1):
        teams = "2v2" in args or "3v3" in args
        label = f"✋ Equipo {index % 2 + 1}" if teams else "✋ Unirme"
        answer = await user.tap(chat, lobby.message_id, label)
        assert answer["url"] is None, answer
        await h.settle()


async def play_to_the_end(
    h: Harness,
    users: list[FakeUser],
    seed: int,
    max_taps: int = 3000,
    chat: int = GROUP,
    stop: Callable[[], Awaitable[bool]] | None = None,
) -> int:
    """Tap legal buttons in private chats until the match ends (or `stop` says so); returns
    the taps made."""
    rng = random.Random(seed)
    for taps in range(max_taps):
        await h.settle()
        if match_over(h, chat) or (stop is not None and await stop()):
            return taps
        options = [(u, m) for u in users if (m := hand_message(h, u)) is not None]
        assert options, "the game waits on nobody"
        user, message = rng.choice(options)
        buttons = action_buttons(message)
        weights = [
            6.0
            if b["callback_data"].count(":") == 4
            else 0.2
            if b["callback_data"].endswith(":m")
            else 1.0
            for b in buttons
        ]
        button = rng.choices(buttons, weights)[0]
        answer = await user.tap(user.id, message.message_id, button["text"])
        assert answer["text"] not in ("Esa jugada ya pasó.",), answer
    raise AssertionError("the match did not end")


async def play_until_a_duel(h: Harness, users: list[FakeUser], seed: int) -> None:
    """Tap as `play_to_the_end` does until a pica-pica hand's first duel is on (3v3)."""

    async def in_a_duel() -> bool:
        table = await h.services.tables.table_in(GROUP, 0)
        state = table.state if table is not None else None
        return state is not None and state.hand is not None and state.hand.duel == 0

    await play_to_the_end(h, users, seed=seed, stop=in_a_duel)
    assert await in_a_duel(), "no pica-pica hand came: pick another seed"


async def read_account(h: Harness, user: FakeUser, listing: StoredMessage, number: int) -> str:
    """A finished match opened from /historial's 🔎 and read to its last page (▶️): all its
    text."""
    await user.tap(GROUP, listing.message_id, f"🔎 {number}")
    await h.settle()
    account = h.fake.last(GROUP)
    seen = account.text
    while any(b["text"] == "▶️" for b in account.buttons()):
        await user.tap(GROUP, account.message_id, "▶️")
        await h.settle()
        account = h.fake.messages[GROUP][account.message_id]
        seen += account.text
    return seen

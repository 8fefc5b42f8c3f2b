"""The table in the group: a member who never opened the bot's private chat sits with ✋ and
plays the whole match in the group, their hand an ephemeral message only they see (Bot API
10.2/10.3), brought by 🃏 Mis cartas on the board (or sent by the bot at the deal when it is an
administrator of the group)."""

from __future__ import annotations

import random
from pathlib import Path

from tests.conftest import GROUP, Harness, harness_with
from tests.e2e.helpers import match_over
from tests.fakebot import BOT_ID, FakeTelegram, FakeUser, StoredMessage

MY_CARDS = "🃏 Mis cartas"


def board(h: Harness) -> StoredMessage:
    """The group's board: the newest group message with 🃏."""
    found = [m for m in h.fake.live(GROUP) if any(b["text"] == MY_CARDS for b in m.buttons())]
    assert found, "no board"
    return found[-1]


def hand_here(h: Harness, user: FakeUser) -> StoredMessage | None:
    """The user's hand in the group: their newest ephemeral message with moves on it."""
    found = [
        m for m in h.fake.ephemeral_live(GROUP, user.id)
        if any(str(b.get("callback_data", "")).startswith("a:") for b in m.buttons())
    ]
    return found[-1] if found else None


async def play_in_the_group(
    h: Harness, users: list[FakeUser], seed: int, max_taps: int = 3000
) -> int:
    """Tap legal moves on the hands shown in the group until the match ends; a player whose
    hand is not shown (never sent, lost, vanished) taps 🃏 on the board. The taps made."""
    rng = random.Random(seed)
    cards_taps = 0
    for taps in range(max_taps):
        await h.settle()
        if match_over(h):
            return taps
        table = await h.services.tables.table_in(GROUP, 0)
        assert table is not None and table.state is not None
        acting = {table.seats[a.seat] for a in table.state.legal_actions()}
        movers = [u for u in users if u.id in acting]
        assert movers, "the game waits on nobody"
        user = rng.choice(movers)
        shown = hand_here(h, user)
        if shown is None:
            cards_taps += 1
            assert cards_taps < 200, "🃏 keeps failing to bring the hand"
            await user.tap(GROUP, board(h).message_id, MY_CARDS)
            continue
        moves = [b for b in shown.buttons() if str(b.get("callback_data", "")).startswith("a:")]
        button = rng.choice(moves)
        user.tap_ephemeral_data(GROUP, shown.message_id, button["callback_data"])
    raise AssertionError("the match did not end")


async def open_in_the_group(h: Harness, users: list[FakeUser], args: str = "") -> None:
    users[0].send(GROUP, f"/nueva {args}".strip())
    await h.settle()
    lobby = h.fake.last(GROUP)
    for index, user in enumerate(users[1:], start=1):
        teams = "2v2" in args or "3v3" in args
        label = f"✋ Equipo {index % 2 + 1}" if teams else "✋ Unirme"
        answer = await user.tap(GROUP, lobby.message_id, label)
        assert answer["url"] is None, answer  # (no trip to the private chat)
        assert "jugás acá en el grupo" in answer["text"], answer
        await h.settle()


async def test_a_1v1_of_people_who_never_started_the_bot_is_played_in_the_group(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    async with harness_with(fake, tmp_path / "g.db") as h:
        ana, beto = h.user(11, "Ana", started=False), h.user(12, "Beto", started=False)
        await open_in_the_group(h, [ana, beto], "15")
        assert "Tus cartas: tocá «Mis cartas»" in board(h).text  # where to find them
        assert hand_here(h, ana) is None  # nothing lets a bot that is no admin show it yet
        await ana.tap(GROUP, board(h).message_id, MY_CARDS)
        await h.settle()
        shown = hand_here(h, ana)
        assert shown is not None and "Tus cartas:" in shown.text
        assert shown.receiver == ana.id and not h.fake.ephemeral_live(GROUP, beto.id)
        await play_in_the_group(h, [ana, beto], seed=1)
        assert match_over(h)
        # Not one private message: the whole match lived in the group.
        assert not h.fake.live(ana.id) and not h.fake.live(beto.id)
        assert not [e for e in h.errors.records], [r.getMessage() for r in h.errors.records]


async def test_a_2v2_in_the_group_with_the_bot_an_administrator_sends_each_hand_itself(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    async with harness_with(fake, tmp_path / "a.db") as h:
        h.fake.admins[GROUP].add(BOT_ID)
        names = ["Ana", "Beto", "Caro", "Dani"]
        users = [h.user(21 + i, name, started=False) for i, name in enumerate(names)]
        await open_in_the_group(h, users, "2v2 15")
        for user in users:  # each dealt hand shown at once, to its player alone
            shown = h.fake.ephemeral_live(GROUP, user.id)
            assert [m.receiver for m in shown] == [user.id], user.first_name
            assert "Tus cartas:" in shown[0].text
        assert "Tus cartas: tocá" not in board(h).text  # (nothing to ask of them)
        taps = await play_in_the_group(h, users, seed=2)
        assert taps > 0 and match_over(h)
        assert not any(h.fake.live(u.id) for u in users)

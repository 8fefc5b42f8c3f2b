"""Make tests/data/schema26/: a database the bot of schema 26 (main at c82e698, 2026-12-07)
wrote in the middle of a night of play, and the fake Telegram's chats beside it, so that
tests/e2e/test_old_database.py can open it with today's code (which migrates it) and play on.

It is run by hand, once, by the code whose schema it keeps (never by the tests):

    .venv/bin/python -m tests.data.make_old

Every table of it is in a state a restructuring could break: matches half played with hands in
private and in the group, a seña made, a practice against a computer player, a tournament in
its first round, a finished match in the league, a person waiting for a table (/avisame)."""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
from pathlib import Path

from bot.storage.migrations import MIGRATIONS
from tests.conftest import harness_with
from tests.e2e.helpers import action_buttons, hand_message, open_table, play_to_the_end
from tests.fakebot import FakeTelegram, FakeUser

HERE = Path(__file__).resolve().parent
OUT = HERE / f"schema{len(MIGRATIONS)}"

# The chats of the night (supergroups, as Telegram numbers them).
HALF_1V1 = -1_001_000_000_601
HALF_2V2 = -1_001_000_000_602
IN_GROUP = -1_001_000_000_603
FINISHED = -1_001_000_000_604
TOURNEY = -1_001_000_000_605


async def first_taps(h: object, users: list[FakeUser], taps: int) -> None:
    """The first `taps` cards of a match, each the first card the acting player may play."""
    for _ in range(taps):
        await h.settle()  # type: ignore[attr-defined]
        for user in users:
            message = hand_message(h, user)  # type: ignore[arg-type]
            if message is None:
                continue
            cards = [b for b in action_buttons(message) if b["callback_data"].count(":") == 4]
            if cards:
                await user.tap(user.id, message.message_id, cards[0]["text"])
                break
    await h.settle()  # type: ignore[attr-defined]


async def main() -> None:
    fake = FakeTelegram(group_limit=(20, 60 / 620))
    await fake.start()
    work = Path(tempfile.mkdtemp(prefix="truco-old-"))
    database = work / "truco.db"
    try:
        async with harness_with(fake, database) as h:
            # A 1v1 to 15, three cards in, both hands in private.
            ana, beto = h.user(101, "Ana"), h.user(102, "Beto")
            await open_table(h, [ana, beto], "15", chat=HALF_1V1)
            await first_taps(h, [ana, beto], 3)
            # A 2v2 to 15, Ana's seña to her partner made, two cards in.
            caro, dani, eli, fede = (
                h.user(103, "Caro"), h.user(104, "Dani"), h.user(105, "Eli"), h.user(106, "Fede")
            )  # fmt: skip
            await open_table(h, [caro, dani, eli, fede], "2v2 15", chat=HALF_2V2)
            hand = hand_message(h, caro)
            assert hand is not None
            await caro.tap(caro.id, hand.message_id, "🤫 Hacer una seña")
            await h.settle()
            menu = [m for m in fake.live(caro.id) if "Levantar las cejas" in str(m.reply_markup)]
            answer = await caro.tap(caro.id, menu[-1].message_id, "Levantar las cejas")
            assert answer["text"] == "Seña enviada.", answer
            await first_taps(h, [caro, dani, eli, fede], 2)
            # A 1v1 of two who never opened the bot's private chat: hands in the group.
            gabi, hugo = h.user(107, "Gabi", started=False), h.user(108, "Hugo", started=False)
            gabi.send(IN_GROUP, "/nueva 15")
            await h.settle()
            lobby = fake.last(IN_GROUP)
            await hugo.tap(IN_GROUP, lobby.message_id, "✋ Unirme")
            await h.settle()
            # A finished match in the league, and Ana waiting there for the next table.
            ines, juan = h.user(109, "Inés"), h.user(110, "Juan")
            await open_table(h, [ines, juan], "15", chat=FINISHED)
            await play_to_the_end(h, [ines, juan], seed=3, chat=FINISHED)
            ana.send(FINISHED, "/avisame")
            # A practice against a computer player, two moves in.
            kike = h.user(111, "Kike")
            kike.send(kike.id, "/nueva bot")
            await h.settle()
            await first_taps(h, [kike], 2)
            # A knockout of four, 1v1 to 15, its first round begun.
            four = [h.user(112 + i, name) for i, name in enumerate(["Lu", "Mati", "Nati", "Oli"])]
            four[0].send(TOURNEY, "/torneo 15")
            await h.settle()
            signs = [m for m in fake.live(TOURNEY) if "Anotarme" in str(m.reply_markup)][-1]
            for user in four:
                await user.tap(TOURNEY, signs.message_id, "✋ Anotarme")
                await h.settle()
            await four[0].tap(TOURNEY, signs.message_id, "▶️ Empezar")
            await h.settle()
            await first_taps(h, four, 2)
            assert not h.errors.records, [r.getMessage() for r in h.errors.records]
        shutil.rmtree(OUT, ignore_errors=True)
        OUT.mkdir(parents=True)
        shutil.copyfile(database, OUT / "truco.db")
        (OUT / "telegram.json").write_text(
            json.dumps(fake.dump_chats(), ensure_ascii=False, indent=0) + "\n"
        )
    finally:
        await fake.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())

"""A database written by an earlier bot opens, migrates and plays on: the night kept in
tests/data/schema26 (made by tests/data/make_old.py with the code of schema 26, half-played
matches, a seña, hands in the group, a practice, a tournament in its first round, the league and
a person waiting for a table) is opened by today's code, and every match in it is played to its
end through the real bot, against a fake Telegram holding the chats as that night left them.

Each restructuring of the storage (a column for what a string held, a new kind of seat) must
carry these rows along: this test is where it shows if it does not."""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
from pathlib import Path

from bot.tourney.model import Status
from tests.conftest import Harness, make_settings
from tests.data.make_old import FINISHED, HALF_1V1, HALF_2V2, IN_GROUP, TOURNEY
from tests.e2e.helpers import match_over, play_to_the_end
from tests.fakebot import FakeTelegram, FakeUser, StoredMessage

OLD = Path(__file__).resolve().parents[1] / "data" / "schema26"
MY_CARDS = "🃏 Mis cartas"


def board(h: Harness, chat: int) -> StoredMessage:
    found = [m for m in h.fake.live(chat) if any(b["text"] == MY_CARDS for b in m.buttons())]
    assert found, "no board"
    return found[-1]


async def play_in_the_group(h: Harness, chat: int, users: list[FakeUser], seed: int) -> None:
    """Legal moves on the hands shown in the group (🃏 brings a hand not shown) to the end."""
    rng = random.Random(seed)
    for _ in range(3000):
        await h.settle()
        if match_over(h, chat):
            return
        table = await h.services.tables.table_in(chat, 0)
        assert table is not None and table.state is not None
        acting = {table.seats[a.seat] for a in table.state.legal_actions()}
        user = rng.choice([u for u in users if u.id in acting])
        shown = [
            m for m in h.fake.ephemeral_live(chat, user.id)
            if any(str(b.get("callback_data", "")).startswith("a:") for b in m.buttons())
        ]  # fmt: skip
        if not shown:
            await user.tap(chat, board(h, chat).message_id, MY_CARDS)
            continue
        moves = [b for b in shown[-1].buttons() if str(b.get("callback_data", "")).startswith("a:")]
        user.tap_ephemeral_data(chat, shown[-1].message_id, rng.choice(moves)["callback_data"])
    raise AssertionError("the match did not end")


async def test_a_database_of_schema_26_opens_migrates_and_every_match_plays_on(
    tmp_path: Path,
) -> None:
    database = tmp_path / "truco.db"
    shutil.copyfile(OLD / "truco.db", database)
    with sqlite3.connect(database) as raw:  # the night's last moment: the bot comes back then
        (last,) = raw.execute("SELECT max(updated_at) FROM games").fetchone()
    fake = FakeTelegram(group_limit=(20, 60 / 620))
    fake.load_chats(json.loads((OLD / "telegram.json").read_text()))
    await fake.start()
    h = Harness(fake, make_settings(f"http://127.0.0.1:{fake.port}/bot", database))
    h.clock.now = last + 1
    await h.start()
    try:
        names = {101: "Ana", 102: "Beto", 103: "Caro", 104: "Dani", 105: "Eli", 106: "Fede"}
        names |= {107: "Gabi", 108: "Hugo", 109: "Inés", 110: "Juan", 111: "Kike"}
        names |= {112: "Lu", 113: "Mati", 114: "Nati", 115: "Oli"}
        u = {i: h.user(i, name, started=i not in (107, 108)) for i, name in names.items()}

        # The 1v1 left three cards in: its board and hands are the night's own messages.
        old_board = board(h, HALF_1V1)
        told = len(old_board.history)
        await play_to_the_end(h, [u[101], u[102]], seed=1, chat=HALF_1V1)
        assert len(old_board.history) > told and "<b>15</b>" in old_board.history[-1]

        # The 2v2: the seña Caro made that night is still made; then played to the end.
        caro = u[103]
        hand = next(m for m in reversed(h.fake.live(caro.id)) if m.buttons())
        opened = await caro.tap(caro.id, hand.message_id, "🤫 Hacer una seña")
        await h.settle()
        assert opened["text"] != "Esa jugada ya pasó.", opened
        menu = [m for m in h.fake.live(caro.id) if "Levantar las cejas" in str(m.reply_markup)]
        answer = await caro.tap(caro.id, menu[-1].message_id, "Levantar las cejas")
        assert answer["text"] == "Esa seña ya la hiciste en esta mano.", answer
        back = next(b["text"] for b in menu[-1].buttons() if b["callback_data"].endswith(":b"))
        await caro.tap(caro.id, menu[-1].message_id, back)
        await play_to_the_end(h, [u[i] for i in (103, 104, 105, 106)], seed=2, chat=HALF_2V2)

        # Hands in the group, of two who never opened the private chat: not one private message.
        await play_in_the_group(h, IN_GROUP, [u[107], u[108]], seed=3)
        assert not h.fake.live(107) and not h.fake.live(108)

        # The practice against a computer player.
        async def practice_over() -> bool:
            return any(t.startswith(("🏆", "🥈")) for t in h.fake.texts(111))

        await play_to_the_end(h, [u[111]], seed=4, chat=111, stop=practice_over)

        # The tournament's first round, then its final, to its champion.
        four = [u[i] for i in (112, 113, 114, 115)]

        async def crowned() -> bool:
            rows = await h.db.fetchall("SELECT max(id) AS id FROM tournaments")
            found = await h.services.core.tournaments.get(rows[0]["id"])
            return found is not None and found.status is Status.FINISHED

        await play_to_the_end(h, four, seed=5, max_taps=20_000, chat=0, stop=crowned)
        await h.settle()
        assert any("ganó el torneo!" in text for text in h.fake.texts(TOURNEY))

        # The league kept the night's finished match, and Ana, who asked to be told, is told
        # of the next table there.
        u[109].send(FINISHED, "/tabla")
        await h.settle()
        table = h.fake.last(FINISHED).text
        assert "Inés" in table and "Juan" in table, table
        u[110].send(FINISHED, "/nueva 15")
        await h.settle()
        assert any("🔔" in text for text in h.fake.texts(101)), h.fake.texts(101)[-3:]
        assert [r.getMessage() for r in h.errors.records] == []
    finally:
        await h.stop()
        await fake.stop()

"""SIGKILL at random moments: `python -m bot` as a separate process, killed and started again
mid-match. No action is lost or applied twice, and nothing the bot decided to say is lost:
every hand's record, the final board, the end of each match, each player's hand message."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import sqlite3
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from bot.game import MatchConfig, MatchState, replay
from bot.game.actions import parse_any
from bot.i18n import translator
from bot.storage import snapshots
from bot.storage.snapshots import to_json
from bot.views.common import rules_line, score_lines, seating
from tests.e2e.forked import Forked, Zygote
from tests.fakebot import TOKEN, FakeTelegram, FakeUser, StoredMessage

ROOT = Path(__file__).resolve().parents[2]
GROUPS = (-100_701, -100_702)


def live_hand(fake: FakeTelegram, user: FakeUser) -> StoredMessage | None:
    found = [
        m for m in fake.live(user.id)
        if any(str(b.get("callback_data", "")).startswith("a:") for b in m.buttons())
    ]  # fmt: skip
    return found[-1] if found else None


def outbox_rows(database: Path) -> int:
    """What the bot decided to say and has not said yet (read beside the running bot)."""
    if not database.exists():
        return 0
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10) as conn:
        try:
            return int(conn.execute("SELECT count(*) FROM outbox").fetchone()[0])
        except sqlite3.OperationalError:  # not created yet
            return 0


async def said(database: Path, within: float = 60.0) -> None:
    """Nothing the bot decided to say is waiting any more (after an answered tap: the answer
    comes after the commit that wrote what the tap makes the bot say)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not outbox_rows(database):
            return
        await asyncio.sleep(0.01)
    raise TimeoutError("the bot's outbox did not empty")


async def quiet(fake: FakeTelegram, database: Path, within: float = 120.0) -> None:
    """Every update taken, the outbox empty, and no call for a moment (the bot is a separate
    process: these are what can be seen of it from outside)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        last = fake.calls[-1][0] if fake.calls else 0.0
        if fake.unacked() == 0 and time.time() - last > 0.15 and outbox_rows(database) == 0:
            return
        await asyncio.sleep(0.02)
    raise TimeoutError("the bot did not go quiet")


def bot_env(fake: FakeTelegram, database: str, **settings: str) -> dict[str, str]:
    """The environment of a `python -m bot` under test: the fake Bot API, `database`, a fixed
    seed, Telegram's pace and budget as fast as the rest, the tapper's hand and the board at
    once (these tests are about what a kill loses, not Telegram's limits:
    tests/service/test_outbox_ceiling.py), and `settings` (`TRUCO_` and the name in capitals)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUCO_")}
    env.update(
        {
            "TRUCO_BOT_TOKEN": TOKEN,
            "TRUCO_API_BASE_URL": f"http://127.0.0.1:{fake.port}/bot",
            "TRUCO_DATABASE": database,
            "TRUCO_SEED": "7",
            "TRUCO_GROUP_INTERVAL": "0.005",
            "TRUCO_PRIVATE_PER_SECOND": "620",
            "TRUCO_OWN_HAND_DEFER": "0",
            "TRUCO_WATCHED_BOARD_INTERVAL": "0",
            "TRUCO_RATE_OVERALL_PER_SECOND": "1000000",
            "TRUCO_RATE_GROUP_PER_MINUTE": "1000000",
            "TRUCO_TURN_SECONDS": "0",
            "TRUCO_OUTBOX_POLL": "0.2",
            "PYTHONPATH": str(ROOT),
        }
    )
    env.update((f"TRUCO_{name.upper()}", value) for name, value in settings.items())
    return env


class Bots:
    """The bot as a separate process, started again and again on one folder: each one forked
    from a zygote that has imported it (tests/e2e/forked.py), so that a restart after a kill
    costs the bot's start (the database, the Bot API), not Python's imports."""

    def __init__(self, fake: FakeTelegram, folder: Path, **settings: str) -> None:
        self.fake = fake
        env = bot_env(fake, str(folder / "kill.db"), poll_timeout="1", **settings)
        self.zygote = Zygote(env, folder, asyncio.subprocess.DEVNULL)

    async def start(self) -> Forked:
        """The next bot, up (it has registered its commands)."""
        calls = len(self.fake.calls)
        process = await self.zygote.fork()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # up when it has registered its commands again
            if any(method == "setMyCommands" for _, method, _ in self.fake.calls[calls:]):
                return process
            if process.exited:
                raise RuntimeError("the bot exited")
            await asyncio.sleep(0.02)
        raise TimeoutError("the bot did not start")

    async def close(self) -> None:
        await self.zygote.close()


def whole_log(db: sqlite3.Connection, game: sqlite3.Row) -> MatchState:
    """A table's action log after the kills: every action once, in order, replaying to the
    state saved with it (returned)."""
    rows = db.execute(
        "SELECT seq, code FROM actions WHERE game_id = ? ORDER BY seq", (game["id"],)
    ).fetchall()
    assert [r["seq"] for r in rows] == list(range(len(rows)))  # none lost, none twice
    config = MatchConfig.of(json.loads(game["config"]))
    state = snapshots.load(game["state"], len(rows))  # the snapshot saved with the log's end
    assert state is not None
    assert to_json(replay(config, [parse_any(r["code"]) for r in rows])) == to_json(state)
    return state


def over(fake: FakeTelegram, chat: int) -> bool:
    return any("🏆" in t for t in fake.texts(chat))


def can_tap(
    fake: FakeTelegram, groups: Sequence[int], pairs: Sequence[tuple[FakeUser, FakeUser]]
) -> list[tuple[FakeUser, StoredMessage]]:
    """Players of matches still going with a hand message to tap."""
    options = [
        (u, m)
        for chat, pair in zip(groups, pairs, strict=True)
        if not over(fake, chat)
        for u in pair
        if (m := live_hand(fake, u)) is not None
    ]
    assert options, "the game waits on nobody"
    return options


def tap_something(
    rng: random.Random, user: FakeUser, message: StoredMessage, calls: float = 0.3
) -> str:
    """A button of the hand message, mostly a card, rarely a call (`calls`: a call's weight
    to a card's 6); the query's id."""
    buttons = [b for b in message.buttons() if b.get("callback_data", "").startswith("a:")]
    weights = [6.0 if b["callback_data"].count(":") == 4 else calls for b in buttons]
    button = rng.choices(buttons, weights)[0]
    return user.tap_data(user.id, message.message_id, button["callback_data"])


async def test_kill_9_mid_match_and_start_again(fake: FakeTelegram, tmp_path: Path) -> None:
    rng = random.Random(3)
    database = tmp_path / "kill.db"
    pairs = [
        (FakeUser(fake, 1, "Ana"), FakeUser(fake, 2, "Juan")),
        (FakeUser(fake, 3, "Bea"), FakeUser(fake, 4, "Dario")),
    ]
    fake.started.update({1, 2, 3, 4})
    bots = Bots(fake, tmp_path)
    bot = await bots.start()
    kills = taps = 0
    try:
        for chat, (first, second) in zip(GROUPS, pairs, strict=True):
            first.send(chat, "/nueva 15")
            await quiet(fake, database)
            second.send(chat, "hola")  # a member of the group
            await second.tap(chat, fake.last(chat).message_id, "✋ Unirme", within=60)
            await quiet(fake, database)
        while not all(over(fake, chat) for chat in GROUPS):
            user, message = rng.choice(can_tap(fake, GROUPS, pairs))
            query = tap_something(rng, user, message)
            taps += 1
            assert taps < 1000
            # a kill every eighth tap until ten, then every twenty-fifth (a restart is most of
            # this test's time: a fifth of the taps killed made 30 restarts of the same moments)
            if taps % 8 == 3 if kills < 10 else taps % 25 == 0:
                await asyncio.sleep(rng.uniform(0.0, 0.06))  # before, during or after the commit
                bot.kill()
                await bot.wait()
                kills += 1
                bot = await bots.start()
                await quiet(fake, database)
            else:  # answered, and what it decided to say said (a stale tap is only refused)
                await user.answer_of(query, within=60)
                await said(database)
    finally:
        bot.kill()
        await bot.wait()
        await bots.close()
    assert kills >= 10, kills

    db = sqlite3.connect(database)
    db.row_factory = sqlite3.Row
    duplicates = 0
    try:
        assert db.execute("SELECT count(*) FROM outbox").fetchone()[0] == 0
        names = {r["user_id"]: r["name"] for r in db.execute("SELECT * FROM players")}
        for chat in GROUPS:
            game = db.execute("SELECT * FROM games WHERE chat_id = ?", (chat,)).fetchone()
            state = whole_log(db, game)
            config = MatchConfig.of(json.loads(game["config"]))
            assert state.is_over and game["status"] == "finished"
            record = db.execute("SELECT * FROM matches WHERE game_id = ?", (game["id"],)).fetchone()
            assert record["termination"] == "target"

            t = translator("es")
            seats = json.loads(game["seats"])
            who = seating(seats, names)
            final = "\n".join(score_lines(t, who, state.scores, config.target))
            texts = fake.texts(chat)
            # Hand records ride on the board (the next hand's, edited in place): the group saw
            # them, and the final board holds the last hand's record and the final score.
            records = Counter(
                int(m.group(1)) for x in texts if (m := re.search(r"🏁 <b>Mano (\d+)</b>", x))
            )
            assert set(records) <= set(range(1, state.hand_number + 1)), records
            assert len(records) >= state.hand_number // 2, records
            last = [
                m.text for m in fake.live(chat)
                if f"🏁 <b>Mano {state.hand_number}</b>" in m.text
            ]  # fmt: skip
            assert last and final in last[-1]
            # The end of the match was announced, with the final score.
            ends = [m.text for m in fake.live(chat) if "🏆" in m.text]
            assert ends and final in ends[0]
            duplicates += len(ends) - 1
            # Each player's hand message shows the committed state.
            hands = {
                int(r["name"][5:]): int(r["value"])
                for r in db.execute(
                    "SELECT name, value FROM front_records WHERE front = 'telegram'"
                    " AND table_id = ? AND name LIKE 'hand:%'",
                    (game["id"],),
                )
            }
            for user_id in seats:
                shown = fake.messages[user_id][hands[user_id]]
                title = t("hand.title", rules=rules_line(t, config))
                # the match's last hand told whole, then the final score (no hand to title)
                assert shown.text.endswith(f"\n{final}") and title not in shown.text, shown.text
                assert f"🏁 <b>Mano {state.hand_number}</b>" in shown.text
                assert shown.buttons() == []  # a finished hand leaves nothing to tap
                # and a message of its own (it notifies): who won, the score, the rematch
                end = [m for m in fake.live(user_id) if m.text.startswith(("🏆", "🥈"))]
                assert end and final in end[-1].text
                assert [b["text"] for b in end[-1].buttons()] == ["🔁 Revancha", "📝 Mi revisión"]
    finally:
        db.close()
    print(f"\nkills survived: {kills}, taps: {taps}, messages lost: 0, duplicates: {duplicates}")
    assert duplicates <= kills  # at most one a crash: sent, then killed before marked sent

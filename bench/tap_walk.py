"""The walk of one card tap through the bot's rooms (its modules), as it really runs.

    python bench/tap_walk.py [--database sqlite|postgresql] [--list]

The whole bot runs in this process against the fake Bot API (tests/fakebot.py), a 1v1 match of
two people with SQLite (or a throw-away PostgreSQL, as the tests start one). Once the table is
dealt and everything is sent, one card is tapped on the hand message of the player to move, and
`sys.setprofile` follows the event loop's thread until the tap is answered and every message it
caused is sent: each time the frame running (a call, a coroutine resumed, a return to its
caller) is of another module of `bot`, the walk enters that room. Frames outside the bot
(asyncio, PTB, aiohttp, the fake, the bench itself) leave the walk where it is; so does the
bench's own polling of "is it over" (it runs in the bench's task, which is not followed). The
turn timers' job is paused first: nothing but the tap moves.

It prints the rooms in the order they were entered (each stay once: a room entered again is a
return), then the stays, the rooms and the returns, and each task's share of them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.conftest import GROUP, Harness, harness_with  # noqa: E402
from tests.e2e.helpers import action_buttons, hand_message, open_table  # noqa: E402
from tests.fakebot import FakeTelegram  # noqa: E402
from tests.pg import Cluster, find_bin  # noqa: E402


class Walk:
    """The rooms of `bot` the loop's thread runs in, in order, outside the `skip` task."""

    def __init__(self, skip: asyncio.Task[Any] | None) -> None:
        self.skip = skip
        self.stays: list[tuple[str, str]] = []  # (room, task)
        self._room: str | None = None

    def _enter(self, frame: FrameType | None) -> None:
        if frame is None:
            return
        room = frame.f_globals.get("__name__", "")
        if not room.startswith("bot.") or room == self._room:
            return
        try:
            task = asyncio.current_task()
        except RuntimeError:
            task = None
        if task is not None and task is self.skip:
            return
        self._room = room
        name = task.get_name() if task is not None else "(loop)"
        self.stays.append((room, name))

    def profile(self, frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            self._enter(frame)
        elif event == "return":
            self._enter(frame.f_back)

    @contextlib.contextmanager
    def following(self) -> Iterator[None]:
        sys.setprofile(self.profile)
        try:
            yield
        finally:
            sys.setprofile(None)


@contextlib.asynccontextmanager
async def bot(database: str, where: Path) -> AsyncIterator[Harness]:
    fake = FakeTelegram(group_limit=(20, 60 / 155))
    await fake.start()
    cluster = None
    try:
        target: str | Path = where / "walk.db"
        if database == "postgresql":
            bindir = find_bin()
            if bindir is None:
                raise SystemExit("no PostgreSQL binaries found")
            cluster = Cluster(bindir, Path(tempfile.mkdtemp(prefix="truco-walk-")))
            cluster.start()
            target = cluster.new_database()
        async with harness_with(fake, target) as h:
            yield h
    finally:
        if cluster is not None:
            cluster.stop()
        await fake.stop()


async def walk(database: str) -> Walk:
    with tempfile.TemporaryDirectory() as where:
        async with bot(database, Path(where)) as h:
            ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
            await open_table(h, [ana, juan], "1v1 15 sinflor")
            await h.settle()
            assert h.app.job_queue is not None
            h.app.job_queue.scheduler.pause()  # (the turn timers: nothing but the tap moves)
            table = await h.services.tables.table_in(GROUP, 0)
            assert table is not None and table.state is not None
            acting = table.state.acting_seats()
            mover = next(u for u in (ana, juan) if table.seat_of(u.id) in acting)
            message = hand_message(h, mover)
            assert message is not None
            card = next(b for b in action_buttons(message) if ":p:" in b["callback_data"])
            followed = Walk(asyncio.current_task())
            with followed.following():
                await mover.tap(mover.id, message.message_id, card["text"])
                await h.settle()
            return followed


def floor(room: str) -> str:
    """A module's floor (`bot.service.play` -> `bot.service`; `bot.app` stays itself)."""
    return ".".join(room.split(".")[:2])


def merged(stays: list[tuple[str, str]], grain: Any) -> list[tuple[str, str]]:
    """The stays at a coarser grain: consecutive stays in one room (at that grain) are one."""
    out: list[tuple[str, str]] = []
    for room, task in stays:
        room = grain(room)
        if not out or out[-1][0] != room:
            out.append((room, task))
    return out


# The floors of plain values and pure functions (the engine, the model, texts, button data,
# JSON): called and returned from at once, they are the rooms' furniture, not rooms of the walk.
VALUES = ("bot.game", "bot.model", "bot.league", "bot.i18n", "bot.callbacks", "bot.codec")


def working(stays: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The stays in the modules that do the work (a call into a floor of values, and the return
    from it, leave the walk where it was)."""
    return merged([s for s in stays if floor(s[0]) not in VALUES], lambda room: room)


def summary(name: str, stays: list[tuple[str, str]]) -> str:
    rooms = {room for room, _ in stays}
    return f"{name}: {len(stays)} stays in {len(rooms)} rooms, {len(stays) - len(rooms)} returns"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--list", action="store_true", help="print every stay, in order")
    args = parser.parse_args()
    stays = asyncio.run(walk(args.database)).stays
    # Each task by the first room it ran in (PTB's handler task, the mailbox's lanes, ...).
    first: dict[str, str] = {}
    for room, task in stays:
        first.setdefault(task, f"{task} (from {room})")
    stays = [(room, first[task]) for room, task in stays]
    if args.list:
        for number, (room, task) in enumerate(stays, start=1):
            print(f"{number:4} {room:32} {task}")
    counts = Counter(room for room, _ in stays)
    print("modules, in the order first entered, and the stays in each:")
    for room in dict.fromkeys(room for room, _ in stays):
        print(f"  {room:32} {counts[room]}")
    floors = merged(stays, floor)
    work = working(stays)
    print("the walk through the modules that work, task by task (values' floors left out):")
    for task in dict.fromkeys(task for _, task in work):
        walked = [room[4:] for room, t in work if t == task]
        print(f"  {task}: {len(walked)} stays: " + " > ".join(walked))
    print(f"database: {args.database}")
    print(summary("by module", stays))
    print(summary("by floor", floors))
    print(summary("by working module", work))


if __name__ == "__main__":
    main()

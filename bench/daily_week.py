"""A week of 🃏 la mano del día as a group reads it: the real bot (python-telegram-bot, the
outbox, the planner) against the fake Bot API, a real SQLite file, the clock moved by hand.

Two members play a few matches against a computer player in the group and ask for their
reviews; an admin sets the hour in /config; then seven days at that hour: the post (its text,
its buttons), a handful of members tapping (some right, some wrong, one missing a day), the
close, and the post as it stays. Ana lets a hand of hers be told with her name, Beto does not.
At the end, /yo of two members in the group. The group's days come from its own matches until
they run out, then from the bank (bot/ai/positions.json).

    python bench/daily_week.py [--matches 2] [--out week.txt]

A reading aid, not a test: nothing asserts what it prints (tests/e2e/test_daily.py does).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.i18n import translator  # noqa: E402
from bot.model.daily import OPEN_SECONDS  # noqa: E402
from bot.views.common import phone_lines, plain  # noqa: E402
from tests.conftest import GROUP, Harness, harness_with  # noqa: E402
from tests.e2e.test_daily import (  # noqa: E402
    advance,
    at_hour,
    choice_labels,
    closes,
    posts,
    reviewed_match,
    said_to,
    the_hand,
    turn_on,
)
from tests.fakebot import FakeTelegram, StoredMessage  # noqa: E402

ZONE = ZoneInfo("America/Argentina/Buenos_Aires")
# (a Monday in the middle of a month: the week's ranking is one month's)
START = datetime(2027, 3, 8, 10, 0, tzinfo=ZONE)
SEEDS = (13, 14, 15, 16)  # (scripted taps whose matches hold decisions that make questions)


def shown(message: StoredMessage) -> str:
    """A message as a phone shows it: its text, then its buttons row by row, and how many
    lines of a phone it fills."""
    rows = (message.reply_markup or {}).get("inline_keyboard", [])
    keys = "\n".join(" | ".join(f"[{b['text']}]" for b in row) for row in rows if row)
    height = f"({phone_lines(message.text)} lines on a phone, {len(rows)} rows of buttons)"
    return plain(message.text) + (f"\n{keys}" if keys else "") + f"\n{height}"


async def week(h: Harness, matches: int, out: list[str]) -> None:
    names = ["Ana", "Beto", "Caro", "Dani", "Eva"]
    ana, beto, caro, dani, eva = (h.user(i, n) for i, n in enumerate(names, start=1))
    h.fake.admins[GROUP].add(ana.id)
    h.clock.now = max(h.clock.now, START.timestamp())
    players = (ana, beto)
    numbers = [await reviewed_match(h, players[i % 2], SEEDS[i % len(SEEDS)] + 10 * (i // 4))
               for i in range(matches)]  # fmt: skip
    out.append(f"(reviewed matches of the group: {numbers}; Ana's: {numbers[0::2]},"
               f" Beto's: {numbers[1::2]})")  # fmt: skip
    # Ana lets a hand of hers be told with her name (in private, from /yo); Beto does not
    await said_to(h, ana, ana.id, "/yo")
    named = translator(h.settings.language)("daily.button.named")
    await ana.tap(ana.id, h.fake.last(ana.id).message_id, named)
    await h.settle()
    out.append(f"(Ana in private: {plain(h.fake.last(ana.id).text)})")
    label = await turn_on(h, ana)
    out.append(f"(/config: {label})")
    rng = random.Random(1)
    for day in range(1, 8):
        await at_hour(h, 9)
        post = posts(h)[-1]
        _, source, _, puzzle = await the_hand(h)
        when = datetime.fromtimestamp(h.clock.now, ZONE).strftime("%A %d %B %H:%M")
        out.append(f"\n=================== day {day}: {when} ({source}) ===================")
        out.append(shown(post))
        labels = choice_labels(post)
        wrong = [i for i in range(len(labels)) if i not in puzzle.right]
        taps = [(beto, puzzle.best), (caro, rng.choice(wrong) if wrong else puzzle.best)]
        if day != 4:  # (Dani misses a day: her streak starts again)
            taps.append((dani, puzzle.best if day != 6 else rng.choice(wrong or [0])))
        if day % 2:
            taps.append((eva, rng.randrange(len(labels))))
        if day in (2, 3, 5):
            taps.append((ana, rng.randrange(len(labels))))
        for user, index in taps:
            said = await user.tap(GROUP, post.message_id, labels[index])
            out.append(f"  ({user.first_name} taps [{labels[index]}]: «{said['text']}»)")
        await h.settle()
        out.append("--- the post, before the close ---")
        out.append(plain(h.fake.messages[GROUP][post.message_id].text).split("\n\n")[-1])
        await advance(h, OPEN_SECONDS)
        out.append("--- the close ---")
        out.append(shown(closes(h)[-1]))
        out.append("--- the post, after the close ---")
        out.append(plain(h.fake.messages[GROUP][post.message_id].text).split("\n\n")[-1])
    for user in (beto, dani):
        out.append(f"\n--- /yo of {user.first_name} in the group ---")
        out.append(plain(await said_to(h, user, GROUP, "/yo")))


async def main(matches: int) -> str:
    started = time.monotonic()
    out: list[str] = []
    fake = FakeTelegram(group_limit=(20, 60 / 620))
    await fake.start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            async with harness_with(fake, Path(folder) / "truco.db") as h:
                await week(h, matches, out)
    finally:
        await fake.stop()
    out.append(f"\n({time.monotonic() - started:.0f} s)")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=2)
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    text = asyncio.run(main(args.matches))
    print(text)
    if args.out:
        Path(args.out).write_text(text, "utf-8")

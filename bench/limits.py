"""Telegram's limits as the only limit: N 1v1 tables of people at a person's pace (3-8 s a
move) through the real bot (`python -m bot`) against the fake Bot API with Telegram's overall
(30 in any sliding second), group (20 a minute) and private (about 1 a second, a burst of 3)
limits on.

    python bench/limits.py [--tables 50] [--seconds 60] [--workers 1] [--database sqlite|pg]
                           [--mode 1v1|2v2|3v3] [--think-min 3 --think-max 8] [--root CHECKOUT]

`--root` runs the bot of another checkout (the code before a change) against this fake.
Prints, for the measured window: 429s by kind, the calls made in the busiest sliding second
(every attempt, and those the limits let through), the acting player's update (from a tap's
answer until the hand of whoever must act now shows their options) p50/p95/max, how long after
the load stops until every view is current (the bot quiet, nothing left in the outbox), and
Bot API messages per tap, by kind (board edits, hand edits, hand sends, answers to taps, posts
in the group, deletes), over the whole run and in play only (each table's chats from its first
hands on), each player's first hand from the tap of their table's last join, how far the board
is behind a tap (the tap -> the group's next board call), the longest wait of any message
(exact, the bot's `truco_outbox_delay_longest_seconds`), and the line of tables waiting to
start (`TRUCO_MAX_LIVE_TABLES`, the default unless `--max-live` says): tables admitted
(started), tables that waited in line, how long those that started waited (p50/max), and those
still in line at the end (waiting so far).
A shared machine makes the figures indicative, not exact.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import math
import os
import random
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.stack import REFUSALS, free_port, live_hand, pct, wait_change  # noqa: E402
from tests.e2e.helpers import action_buttons  # noqa: E402
from tests.fakebot import OVERALL_COUNTED, TOKEN, FakeTelegram, FakeUser, StoredMessage  # noqa: E402


def _words(key: str) -> str:
    """A text of the bot's (es): the longest piece of it with no tag, before its first
    placeholder (what any message saying it contains)."""
    import json
    import re

    texts = json.loads((ROOT / "locales" / "es.json").read_text(encoding="utf-8"))
    return max(re.split(r"<[^>]*>", str(texts[key]).split("{", 1)[0]), key=len)


# a group told its table waits in the admission line (its lobby says so and its place; before
# ce36153's successor, a note of its own began "Mesa completa, en la fila...": either matches)
QUEUED = _words("lobby.in_line").lower()
STARTED = _words("queue.started")  # the group's post when a table leaves the line
CARDS = _words("hand.cards")  # a hand message ("✅ Te sumaste" comes before it, at the join)


class Probe:
    def __init__(self) -> None:
        self.acting_ms: list[float] = []  # tap answered -> the acting seat's hand current
        self.taps = 0
        self.refused = 0
        self.unseen = 0  # no hand with options came within the wait (the match ended, say)
        self.unopened = 0  # tables that never opened within the run
        self.unanswered = 0  # taps the bot never answered (its handler failed)
        self.started: set[int] = set()
        # the last join tapped -> each player's first hand (tables that started at once; and
        # those that waited in the admission line first, whose wait this includes)
        self.first_ms: list[float] = []
        self.first_queued_ms: list[float] = []
        # tables that waited in line: from the group's "¡Les toca!" to each player's first hand
        self.first_after_start_ms: list[float] = []
        # (group, when a tap was made: time()), not refused: how far behind the play the
        # group's board is (`board_lags`)
        self.answers: list[tuple[int, float]] = []
        # each table's chats (its group, its players') -> when its play began (time()): the
        # calls a tap of play costs, without the lobby's and the first deal's
        self.playing: dict[int, float] = {}
        self.first_missing = 0  # tables where some player had no hand by the end


def snapshot(fake: FakeTelegram, users: list[FakeUser]) -> dict[int, tuple[int, int]]:
    seen = {}
    for user in users:
        message = live_hand(fake, user)
        seen[user.id] = (message.message_id, len(message.history)) if message else (0, 0)
    return seen


def acting(
    fake: FakeTelegram, users: list[FakeUser], before: dict[int, tuple[int, int]]
) -> FakeUser | None:
    """A player whose hand message with options changed since `before` (whoever acts now)."""
    for user in users:
        message = live_hand(fake, user)
        if message is not None and (message.message_id, len(message.history)) != before[user.id]:
            return user
    return None


async def play(
    fake: FakeTelegram, probe: Probe, chat: int, users: list[FakeUser], until: float, seed: int,
    think: tuple[float, float], opens_at: float, mode: str = "1v1",
) -> None:  # fmt: skip
    rng = random.Random(seed)
    await asyncio.sleep(opens_at)  # people come a few at a time, not all in one second
    users[0].send(chat, f"/nueva 15 {mode}")
    while not fake.live(chat):
        if time.monotonic() >= until:
            probe.unopened += 1  # (the bot failed to open it: its reply refused, say)
            return
        await wait_change(fake, [chat], 1.0)
    lobby = fake.live(chat)[0]
    ids = [u.id for u in users]
    try:
        for index, user in enumerate(users[1:], start=1):  # (partners sit opposite)
            label = f"✋ Equipo {index % 2 + 1}" if len(users) > 2 else "✋ Unirme"
            within = max(1.0, until - time.monotonic())
            if index < len(users) - 1:
                await user.tap(chat, lobby.message_id, label, within=within)
                continue
            # The last join: each player's first hand is timed from this tap (the hands may
            # come before its answer does), each as it arrives
            data = fake.messages[chat][lobby.message_id].button(label)["callback_data"]
            seated = time.perf_counter()
            answered = asyncio.ensure_future(
                user.answer_of(user.tap_data(chat, lobby.message_id, data), within)
            )
            arrived: dict[int, float] = {}
            began: float | None = None  # a table in line: when the group was told it starts
            while len(arrived) < len(users):
                if began is None and any(STARTED in text for text in fake.texts(chat)):
                    began = time.perf_counter()
                for u in users:
                    if u.id not in arrived and any(CARDS in m.text for m in fake.live(u.id)):
                        arrived[u.id] = (time.perf_counter() - seated) * 1000
                if len(arrived) == len(users):
                    break
                if answered.done() and answered.exception() is not None:
                    break
                if time.monotonic() >= until + 30:
                    probe.first_missing += 1
                    break
                await wait_change(fake, [*ids, chat], 0.5)
            await answered
            if len(arrived) == len(users):  # (its play: from its last first hand on)
                probe.playing[chat] = time.time()
                probe.playing.update(dict.fromkeys(ids, probe.playing[chat]))
            queued = any(QUEUED in text.lower() for text in fake.texts(chat))
            (probe.first_queued_ms if queued else probe.first_ms).extend(arrived.values())
            if queued and began is not None:  # (the "within 10 s of the start")
                since = (began - seated) * 1000
                probe.first_after_start_ms.extend(max(0.0, v - since) for v in arrived.values())
    except TimeoutError:
        probe.unopened += 1
        return
    probe.started.add(chat)
    # A person does not tap again the hand message they just played from while it has not
    # changed: what they could do there, they did (a hand the bot leaves unedited after its
    # owner's move, until their next turn, still shows its buttons meanwhile)
    tapped: dict[int, tuple[int, int]] = {}

    def fresh(user: FakeUser) -> StoredMessage | None:
        message = live_hand(fake, user)
        if message is None or tapped.get(user.id) == (message.message_id, len(message.history)):
            return None
        return message

    while time.monotonic() < until:
        options = [(u, m) for u in users if (m := fresh(u)) is not None]
        if not options:
            if any("🏆" in t for t in fake.texts(chat)):
                return
            await wait_change(fake, ids, 0.5)
            continue
        await asyncio.sleep(rng.uniform(*think))
        if time.monotonic() >= until:
            return
        options = [(u, m) for u in users if (m := fresh(u)) is not None]
        if not options:
            continue
        user, message = rng.choice(options)
        tapped[user.id] = (message.message_id, len(message.history))
        buttons = action_buttons(message)
        weights = [5.0 if b["callback_data"].count(":") == 4 else 0.3 for b in buttons]
        button = rng.choices(buttons, weights)[0]
        before = snapshot(fake, users)
        started, sent_at = time.perf_counter(), time.time()
        query = user.tap_data(user.id, message.message_id, button["callback_data"])
        try:
            answer = await user.answer_of(query, within=60)
        except TimeoutError:
            probe.unanswered += 1
            continue
        probe.taps += 1
        if answer["text"] in REFUSALS:
            probe.refused += 1
            continue
        probe.answers.append((chat, sent_at))
        deadline = time.monotonic() + 30
        while (who := acting(fake, users, before)) is None and time.monotonic() < deadline:
            if any("🏆" in t for t in fake.texts(chat)):
                break
            await wait_change(fake, ids, 1.0)
        if who is None:
            probe.unseen += 1
            continue
        probe.acting_ms.append((time.perf_counter() - started) * 1000)


def outbox_rows(database: str) -> int:
    with contextlib.closing(sqlite3.connect(database)) as conn:
        return int(conn.execute("SELECT count(*) FROM outbox").fetchone()[0])


async def waiting_rows(database: str) -> int:
    if database.startswith("postgres"):
        import asyncpg

        conn = await asyncpg.connect(database)
        try:
            return int(await conn.fetchval("SELECT count(*) FROM outbox"))
        finally:
            await conn.close()
    return outbox_rows(database)


async def line_figures(database: str, at: float) -> str:
    """The line of tables waiting to start, as the database tells it at the end of the run."""
    started_sql = "SELECT count(*) FROM games WHERE started_at IS NOT NULL"
    line_sql = (
        "SELECT started_at, queued FROM games WHERE queued IS NOT NULL"
        " AND (started_at IS NOT NULL OR status = 'lobby')"
    )
    if database.startswith("postgres"):
        import asyncpg

        conn = await asyncpg.connect(database)
        try:
            started = int(await conn.fetchval(started_sql))
            try:
                rows = [(r[0], r[1]) for r in await conn.fetch(line_sql)]
            except asyncpg.UndefinedColumnError:
                return f"admitted {started}; no line (a bot without one)"
        finally:
            await conn.close()
    else:
        with contextlib.closing(sqlite3.connect(database)) as conn:
            started = int(conn.execute(started_sql).fetchone()[0])
            try:
                rows = list(conn.execute(line_sql).fetchall())
            except sqlite3.OperationalError:
                return f"admitted {started}; no line (a bot without one)"
    waited = sorted(s - q for s, q in rows if s is not None)
    waiting = sorted(at - q for s, q in rows if s is None)

    def spread(values: list[float]) -> str:
        return f"p50 {pct(values, 0.5):.1f} s, max {values[-1]:.1f} s" if values else "-"

    return (
        f"admitted {started}; queued {len(rows)}: {len(waited)} started after waiting"
        f" ({spread(waited)}), {len(waiting)} still in line at the end (so far {spread(waiting)})"
    )


async def metric_lines(ports: list[int]) -> list[str]:
    """Every line of each worker's /metrics (a worker that does not answer adds none)."""
    import aiohttp

    lines: list[str] = []
    async with aiohttp.ClientSession() as session:
        for port in ports:
            with contextlib.suppress(Exception):
                async with session.get(f"http://127.0.0.1:{port}/metrics") as answer:
                    lines += (await answer.text()).splitlines()
    return lines


async def outbox_waits(ports: list[int], deferred: bool = False) -> Counter[float]:
    """Messages by how long they waited from their commit to their call (the bot's own
    histogram, `truco_outbox_delay_seconds`, each worker's, added): upper bound -> count.
    `deferred`: only the tappers' own hands, which wait by design (else all the others)."""
    buckets: Counter[float] = Counter()
    for line in await metric_lines(ports):
        if line.startswith("truco_outbox_delay_seconds_bucket") and deferred == (
            'chat="deferred"' in line
        ):
            bound = line.split('le="')[1].split('"')[0]
            buckets[math.inf if bound == "+Inf" else float(bound)] += float(line.rsplit(" ", 1)[1])
    return buckets


async def longest_waits(ports: list[int]) -> dict[str, float]:
    """The longest wait of any message, by kind of lane (`truco_outbox_delay_longest_seconds`,
    the largest of the workers')."""
    found: dict[str, float] = {}
    for line in await metric_lines(ports):
        if line.startswith("truco_outbox_delay_longest_seconds{"):
            lane = line.split('chat="')[1].split('"')[0]
            found[lane] = max(found.get(lane, 0.0), float(line.rsplit(" ", 1)[1]))
    return found


def waits_line(buckets: Counter[float], longest: float | None = None) -> str:
    """The longest wait (exact, where the bot says it; else its bucket) and the share within
    each bound (cumulative counts)."""
    bounds = sorted(buckets)
    total = buckets[math.inf] if bounds else 0
    if not total:
        return "no figures (metrics off)"
    below = "".join(
        f", {buckets[b] / total:.1%} <= {b:g} s" for b in bounds if b in (1.0, 3.5, 10.0)
    )
    if longest is not None:
        return f"{total:.0f} messages, the longest {longest:.2f} s{below}"
    bucket = next(b for b in bounds if buckets[b] >= total)
    return f"{total:.0f} messages, the longest <= {bucket:g} s{below}"


def board_lags(fake: FakeTelegram, answers: list[tuple[int, float]]) -> list[float]:
    """For each tap, ms from when it was made until the group's next board call (an edit or a
    send): what a spectator waits to see it. Indicative: a call rendered just before the tap's
    commit counts as showing it (a board that waits goes with the latest state, so that is
    rare where boards wait, and where they do not, the next call is ms away)."""
    import bisect

    calls: dict[int, list[float]] = {}
    for at, method, chat in fake.taken:
        if chat is not None and chat < 0 and method in ("editMessageText", "sendMessage"):
            calls.setdefault(chat, []).append(at)
    lags = []
    for chat, at in answers:
        times = calls.get(chat, [])
        i = bisect.bisect_left(times, at)
        if i < len(times):
            lags.append((times[i] - at) * 1000)
    return sorted(lags)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--think-min", type=float, default=3.0)
    parser.add_argument("--think-max", type=float, default=8.0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--mode", choices=("1v1", "2v2", "3v3"), default="1v1")
    parser.add_argument("--database", default="sqlite")
    parser.add_argument(
        "--max-live", type=int, default=None, help="TRUCO_MAX_LIVE_TABLES (unset: the default)"
    )
    parser.add_argument("--root", default=str(ROOT), help="the checkout whose bot runs")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="TRUCO_NAME=VALUE",
        help="a setting of the bot's (the caller's own TRUCO_ variables are not passed on)",
    )
    parser.add_argument(
        "--opening", type=float, default=5.0, help="tables opened a second at the start"
    )
    args = parser.parse_args()
    gc.disable()  # (as bench/stack.py: the load generator's pauses are not the bot's)
    fake = FakeTelegram(group_limit=(20, 60.0), overall_limit=(30, 1.0), private_limit=(1.0, 3))
    await fake.start()
    folder = Path(tempfile.mkdtemp())
    cluster = None
    database = str(folder / "bench.db")
    if args.database == "pg":
        from tests.pg import Cluster, find_bin

        bindir = find_bin()
        assert bindir is not None, "no PostgreSQL server binaries"
        cluster = Cluster(bindir, Path(tempfile.mkdtemp(prefix="bench-pg-")))
        cluster.start()
        database = cluster.new_database()
    assert args.workers == 1 or database.startswith("postgres"), "several workers need PostgreSQL"
    root = Path(args.root)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("TRUCO_")},
        "TRUCO_BOT_TOKEN": TOKEN,
        "TRUCO_API_BASE_URL": f"http://127.0.0.1:{fake.port}/bot",
        "TRUCO_DATABASE": database,
        "TRUCO_POLL_TIMEOUT": "1",
        "TRUCO_LOG_LEVEL": "ERROR",
        "PYTHONPATH": str(root),
    }
    if args.max_live is not None:
        env["TRUCO_MAX_LIVE_TABLES"] = str(args.max_live)
    for setting in args.set:
        name, _, value = setting.partition("=")
        assert name.startswith("TRUCO_") and value, setting
        env[name] = value
    hooked = args.workers > 1
    bots = []
    metrics_ports = [free_port() for _ in range(args.workers)]
    for index in range(args.workers):
        worker_env = dict(env, TRUCO_METRICS_PORT=str(metrics_ports[index]))
        if hooked:
            port = free_port()
            worker_env.update(
                {
                    "TRUCO_WORKER_ID": f"w{index}",
                    "TRUCO_WEBHOOK_URL": f"http://127.0.0.1:{port}/hook",
                    "TRUCO_WEBHOOK_PORT": str(port),
                    "TRUCO_WEBHOOK_PATH": "hook",
                    "TRUCO_WEBHOOK_SECRET": "bench-secret",
                }
            )
        bots.append(
            await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=folder, env=worker_env
            )
        )
    while len(fake.backends) < args.workers if hooked else not fake.commands:  # noqa: ASYNC110
        await asyncio.sleep(0.05)
    if hooked:
        fake.start_balancing()
    await asyncio.sleep(1.0)
    probe = Probe()
    began = time.time()
    until = time.monotonic() + args.seconds
    tasks = []
    for i in range(args.tables):
        chat = -1_000_000 - i
        size = int(args.mode[0]) * 2
        users = [FakeUser(fake, 100_000 + size * i + k, f"{'ABCDEF'[k]}{i}") for k in range(size)]
        fake.started.update(u.id for u in users)
        think = (args.think_min, args.think_max)
        opens_at = i / args.opening
        tasks.append(asyncio.create_task(
            play(fake, probe, chat, users, until, i, think, opens_at, args.mode)
        ))  # fmt: skip
    try:
        await asyncio.gather(*tasks)
        stopped = time.time()
        # Every view current: no call for 2 s and nothing left in the outbox (at most 120 s).
        quiet_deadline = time.monotonic() + 120
        while time.monotonic() < quiet_deadline:
            last = max((at for at, _, _ in fake.calls), default=stopped)
            if time.time() - last > 2.0 and await waiting_rows(database) == 0:
                break
            await asyncio.sleep(0.2)
        last = max(
            (at for at, method, _ in fake.calls if method in OVERALL_COUNTED), default=stopped
        )
        settled = max(0.0, last - stopped)
        line = await line_figures(database, stopped)
        waits = await outbox_waits(metrics_ports)
        deferred = await outbox_waits(metrics_ports, deferred=True)
        longest = await longest_waits(metrics_ports)
    finally:
        await fake.stop_balancing()
        for bot in bots:
            bot.terminate()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(bot.wait(), 20)
        await fake.stop()
        if cluster is not None:
            cluster.stop()
    attempts = sorted(at for at, method, _ in fake.calls if method in OVERALL_COUNTED)
    busiest_tried = 0
    j = 0
    for i, at in enumerate(attempts):
        while attempts[j] <= at - 1.0:
            j += 1
        busiest_tried = max(busiest_tried, i - j + 1)
    done = probe.taps - probe.refused
    counted = OVERALL_COUNTED | {"deleteMessage"}
    messages = Counter(method for at, method, _ in fake.calls if method in counted and at >= began)
    ok_messages = len([at for at, _, _ in fake.taken if at >= began])
    ms = sorted(probe.acting_ms)
    too_many = dict(fake.limited)
    kinds = Counter(kind_of(method, chat) for at, method, chat in fake.calls if at >= began)
    print(
        f"tables {args.tables} {args.mode}, {args.seconds:.0f} s, workers {args.workers},"
        f" {args.database},"
        f" bot from {root}"
    )
    print(
        f"  taps {probe.taps} ({probe.refused} refused, {probe.unseen} without a next hand,"
        f" {probe.unanswered} never answered); tables not opened: {probe.unopened}"
    )
    print(f"  429s: {sum(too_many.values())} {too_many}")
    if fake.limited_calls:
        by = Counter(f"{kind} {method} {'group' if chat < 0 else 'private'}"
                     for kind, method, chat in fake.limited_calls)  # fmt: skip
        print("    by call: " + ", ".join(f"{k}: {n}" for k, n in by.most_common()))
    print(f"  busiest second: {busiest_tried} calls made, {fake.busiest(1.0)} let through")
    if ms:
        print(
            f"  acting player's update: p50 {pct(ms, 0.5):.0f} ms, p95 {pct(ms, 0.95):.0f} ms,"
            f" max {ms[-1]:.0f} ms over {len(ms)}"
        )
    joined = "last join tapped -> each player's first hand"
    for name, values, since in (
        ("at once", probe.first_ms, joined),
        ("after the line", probe.first_queued_ms, joined),
        (
            "after the line, from their start",
            probe.first_after_start_ms,
            "the group told '¡Les toca!' -> each player's first hand; 0: the hand came first",
        ),
    ):
        first = sorted(values)
        if first:
            late = sum(1 for v in first if v > 10_000)
            print(
                f"  first hands, tables started {name} ({since}):"
                f" p50 {pct(first, 0.5):.0f} ms, p95 {pct(first, 0.95):.0f} ms,"
                f" max {first[-1]:.0f} ms over {len(first)} players, {late} over 10 s"
            )
    print(f"    tables missing a first hand at the end: {probe.first_missing}")
    lags = board_lags(fake, probe.answers)
    if lags:
        print(
            f"  board behind a tap (tapped -> the group's next board call): p50"
            f" {pct(lags, 0.5):.0f} ms, p95 {pct(lags, 0.95):.0f} ms, max {lags[-1]:.0f} ms"
        )
    others = max((v for k, v in longest.items() if k != "deferred"), default=None)
    print(f"  outbox waits (last write -> call): {waits_line(waits, others)}")
    if longest:
        print("    the longest by lane: " + ", ".join(
            f"{k} {v:.2f} s" for k, v in sorted(longest.items())))  # fmt: skip
    if deferred:
        print(
            "    the tappers' own hands (deferred by design):"
            f" {waits_line(deferred, longest.get('deferred'))}"
        )
    print(f"  every view current {settled:.1f} s after the load stopped")
    print(f"  tables: {line}")
    print(
        f"  messages per tap: {ok_messages / max(done, 1):.2f} let through"
        f" (calls made: " + ", ".join(f"{m} {n / max(done, 1):.2f}" for m, n in
                                      messages.most_common()) + ")"
    )  # fmt: skip
    print(
        "  by kind, a tap: "
        + ", ".join(f"{k} {kinds[k] / max(done, 1):.2f}" for k in KINDS)
        + f" (taps counted {done})"
    )
    # In play only: the calls in a table's chats from its first hands on (the lobby's edits,
    # the joins' answers and notes and the first deal left out; an answer has no chat: one a
    # tap, the refused too)
    played = Counter(
        kind_of(method, chat) for at, method, chat in fake.taken
        if chat is not None and at >= probe.playing.get(chat, math.inf)
    )  # fmt: skip
    played["answers"] = probe.taps
    counted = sum(n for k, n in played.items() if k not in ("answers", "deletes", "other"))
    print(
        f"  in play, a tap: {counted / max(done, 1):.2f} counted calls: "
        + ", ".join(f"{k} {played[k] / max(done, 1):.2f}" for k in KINDS)
    )


KINDS = ("board edits", "hand edits", "hand sends", "answers", "posts", "deletes")


def kind_of(method: str, chat: int | None) -> str:
    """What a Bot API call is, as a player sees it (`KINDS`; "other" for the rest)."""
    if method == "answerCallbackQuery":
        return "answers"
    if method == "deleteMessage":
        return "deletes"
    if chat is None:
        return "other"
    if method in ("editMessageText", "editMessageReplyMarkup"):
        return "board edits" if chat < 0 else "hand edits"
    if method == "sendMessage":
        return "posts" if chat < 0 else "hand sends"
    return "other"


if __name__ == "__main__":
    asyncio.run(main())

"""The whole stack under load: many concurrent 1v1 matches against the fake Bot API server.

    python bench/stack.py [--matches 100] [--seconds 60] [--group-interval 3.1]
                          [--think S] [--bots FRACTION --bot-level dificil --bot-delay 1.5]
                          [--workers N] [--database sqlite|pg|postgresql://...]

With `--database pg` a throw-away PostgreSQL cluster is started (tests/pg.py); with several
workers they share it and receive updates by webhook, posted round-robin by the fake server.

The bot runs as its own process (`python -m bot`), as in production; this process hosts the
fake Bot API server and the scripted players, who tap as fast as the bot lets them. Prints:
tap -> answer (callback answered, and the tapper's hand message updated) p50/p99, how far group
boards lag behind the game (p99), Bot API calls per group per minute (max over any sliding
minute) and 429s, memory per live match (the bot's RSS growth / live matches).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.helpers import action_buttons  # noqa: E402
from tests.fakebot import TOKEN, FakeTelegram, FakeUser, StoredMessage  # noqa: E402


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def server_cpu(cluster: object | None) -> float:
    """CPU seconds of the PostgreSQL server so far: the postmaster and every process it runs
    (the backends serving the workers, the writers, the WAL writer...)."""
    if cluster is None:
        return 0.0
    postmaster = int((cluster.data / "postmaster.pid").read_text().split()[0])  # type: ignore[attr-defined]
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue  # gone meanwhile
        fields = text.rsplit(")", 1)[1].split()
        pid = int(stat.parent.name)
        if pid == postmaster:  # with what its children that ended used (cutime, cstime)
            ticks = sum(int(f) for f in fields[11:15])
        elif int(fields[1]) == postmaster:
            ticks = int(fields[11]) + int(fields[12])
        else:
            continue
        total += ticks / os.sysconf("SC_CLK_TCK")
    return total


def db_stats(paths: list[Path]) -> dict[str, object]:
    """The workers' storage counters (TRUCO_STATS_FILE), summed."""
    total: dict[str, object] = {"trips": 0, "transactions": 0, "conflicts": 0, "lock_waits": 0,
                                "notices": 0, "kinds": Counter(), "delays": Counter()}  # fmt: skip
    for path in paths:
        try:
            whole = json.loads(path.read_text())
            found = whole["db"]
        except (OSError, ValueError):
            continue
        total["delays"].update({int(k): v for k, v in whole.get("delays_ms", {}).items()})  # type: ignore[attr-defined]
        for what, (calls, asked) in whole.get("gathered", {}).items():
            total[f"{what}_calls"] = int(total.get(f"{what}_calls", 0)) + calls  # type: ignore[call-overload]
            total[f"{what}_asked"] = int(total.get(f"{what}_asked", 0)) + asked  # type: ignore[call-overload]
        for key, value in found.items():
            if key == "kinds":
                total["kinds"].update(value)  # type: ignore[attr-defined]
            elif isinstance(value, int):
                total[key] = int(total.get(key, 0)) + value  # type: ignore[call-overload]
    return total


def stats_delta(after: dict[str, object], before: dict[str, object]) -> dict[str, object]:
    delta: dict[str, object] = {}
    for key, value in after.items():
        if key in ("kinds", "delays"):
            delta[key] = Counter(value) - Counter(before.get(key, {}))  # type: ignore[arg-type]
        else:
            delta[key] = int(value) - int(before.get(key, 0))  # type: ignore[call-overload]
    return delta


async def sample_locks(url: str, samples: list[int], every: float = 0.02) -> None:
    """How many of the database's backends wait for a lock, sampled (`--locks`)."""
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        while True:
            samples.append(
                await conn.fetchval(
                    "SELECT count(*) FROM pg_stat_activity"
                    " WHERE datname = current_database() AND wait_event_type = 'Lock'"
                )
            )
            await asyncio.sleep(every)
    finally:
        await conn.close()


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def live_hand(fake: FakeTelegram, user: FakeUser) -> StoredMessage | None:
    found = [m for m in fake.live(user.id) if action_buttons(m)]
    return found[-1] if found else None


async def wait_change(fake: FakeTelegram, chats: list[int], within: float) -> None:
    events = [fake.changed[c] for c in chats]
    for event in events:
        event.clear()
    waiters = [asyncio.ensure_future(e.wait()) for e in events]
    await asyncio.wait(waiters, timeout=within, return_when=asyncio.FIRST_COMPLETED)
    for waiter in waiters:
        waiter.cancel()


def refusal_texts() -> set[str]:
    """What the bot answers a tap it refuses (es): such a tap changes no hand to wait for."""
    import json

    texts = json.loads((ROOT / "locales" / "es.json").read_text(encoding="utf-8"))
    return {v for k, v in texts.items() if k.startswith(("refusal.", "reason."))}


REFUSALS = refusal_texts()


class Probe:
    def __init__(self) -> None:
        self.refused_at: list[float] = []  # taps refused (on a hand not yet refreshed): untimed
        self.answer_ms: list[float] = []
        self.hand_ms: list[float] = []
        self.answered: dict[int, list[float]] = {}
        self.at: list[float] = []  # when each measured tap started
        self.who: list[int] = []  # the tapper of each
        self.started: set[int] = set()


async def play(
    fake: FakeTelegram,
    probe: Probe,
    chat: int,
    users: list[FakeUser],
    until: float,
    seed: int,
    think: float,
    bot_level: str | None = None,
) -> None:
    rng = random.Random(seed)
    users[0].send(chat, f"/nueva 15 bot {bot_level}" if bot_level else "/nueva 15")
    while not fake.live(chat):
        await wait_change(fake, [chat], 1.0)
    if bot_level is None:
        lobby = fake.live(chat)[0]
        await users[1].tap(chat, lobby.message_id, "✋ Unirme", within=120)
    probe.started.add(chat)
    ids = [u.id for u in users]
    while time.monotonic() < until:
        options = [(u, m) for u in users if (m := live_hand(fake, u)) is not None]
        if not options:
            if any("🏆" in t for t in fake.texts(chat)):
                return
            await wait_change(fake, ids, 0.5)
            continue
        if think:
            await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
            options = [(u, m) for u in users if (m := live_hand(fake, u)) is not None]
            if not options:
                continue
        user, message = rng.choice(options)
        buttons = action_buttons(message)
        weights = [5.0 if b["callback_data"].count(":") == 4 else 0.3 for b in buttons]
        button = rng.choices(buttons, weights)[0]
        seen = len(message.history)
        fake.changed[user.id].clear()
        started = time.perf_counter()
        query = user.tap_data(user.id, message.message_id, button["callback_data"])
        answer = await user.answer_of(query, within=120)
        answered = time.perf_counter()
        if answer["text"] in REFUSALS:
            # Tapped on a hand the bot had not refreshed yet (not this player's turn any
            # more, or not yet): nothing changes for this tap, and the measure is the answer.
            probe.refused_at.append(time.monotonic())
            continue
        while len(message.history) == seen and live_hand(fake, user) is message:
            await wait_change(fake, [user.id], 5.0)
        probe.at.append(time.monotonic())
        probe.who.append(user.id)
        probe.answer_ms.append((answered - started) * 1000)
        probe.hand_ms.append((time.perf_counter() - started) * 1000)
        probe.answered.setdefault(chat, []).append(time.time())


async def watch_loop(lags: list[tuple[float, float]], every: float = 0.01) -> None:
    """How late this process's own event loop wakes up: if the load generator lags, so do the
    tap timings it takes (they are taken on this loop), whatever the bot does."""
    while True:
        before = time.monotonic()
        await asyncio.sleep(every)
        now = time.monotonic()
        lags.append((now, (now - before - every) * 1000))


def board_lag(fake: FakeTelegram, answered: dict[int, list[float]]) -> list[float]:
    """For each answered tap, the time until the group's next call (the board catching up)."""
    lags = []
    for chat, times in answered.items():
        calls = sorted(fake.calls_in(chat))
        i = 0
        for at in times:
            while i < len(calls) and calls[i] < at:
                i += 1
            if i < len(calls):
                lags.append(calls[i] - at)
    return lags


def dump_taps(path: Path, probe: Probe) -> None:
    """Each measured tap as `end hand_ms answer_ms`, in wall-clock time to set beside the bot's
    logs."""
    shift = time.time() - time.monotonic()
    rows = zip(probe.at, probe.hand_ms, probe.answer_ms, probe.who, strict=True)
    path.write_text("".join(f"{at + shift:.3f} {ms:.1f} {a:.1f} {u}\n" for at, ms, a, u in rows))


def max_per_minute(times: list[float]) -> int:
    times = sorted(times)
    best, j = 0, 0
    for i, at in enumerate(times):
        while times[j] < at - 60:
            j += 1
        best = max(best, i - j + 1)
    return best


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--group-interval", type=float, default=3.1)
    parser.add_argument("--private-per-second", type=float, default=1.0)
    parser.add_argument("--think", type=float, default=0.0, help="seconds a player takes to move")
    parser.add_argument("--bots", type=float, default=0.0, help="share of tables against a bot")
    parser.add_argument("--bot-level", default="dificil")
    parser.add_argument("--bot-delay", type=float, default=1.5)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--webhook",
        action="store_true",
        help="updates by webhook even for one worker (several workers always use it)",
    )
    parser.add_argument("--database", default="sqlite")
    parser.add_argument(
        "--web", action="store_true", help="serve the web table too (a Mini App; no page open)"
    )
    parser.add_argument(
        "--locks", action="store_true", help="sample PostgreSQL's lock waits every 20 ms"
    )
    parser.add_argument("--dump", help="write each measured tap (start, ms to answer) to this file")
    parser.add_argument(
        "--warmup",
        type=float,
        default=0.0,
        help="seconds to open and deal every table before the measured window starts",
    )
    args = parser.parse_args()
    # This process keeps every message of 2,000 users: its full garbage collections stopped it
    # for up to 150 ms, and every tap in flight then looked that much slower. A run is minutes
    # long and makes few cycles, so the load generator runs without the collector.
    gc.disable()
    fake = FakeTelegram(group_limit=(20, 60.0))
    await fake.start()
    folder = Path(tempfile.mkdtemp())
    cluster = None
    database = str(folder / "bench.db")
    if args.database == "pg":
        from tests.pg import Cluster, find_bin

        bindir = find_bin()
        assert bindir is not None, "no PostgreSQL server binaries (apt-get install postgresql)"
        cluster = Cluster(bindir, Path(tempfile.mkdtemp(prefix="bench-pg-")))
        cluster.start()
        database = cluster.new_database()
    elif args.database != "sqlite":
        database = args.database
    assert args.workers == 1 or database.startswith("postgres"), "several workers need PostgreSQL"
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("TRUCO_")},
        "TRUCO_BOT_TOKEN": TOKEN,
        "TRUCO_API_BASE_URL": f"http://127.0.0.1:{fake.port}/bot",
        "TRUCO_DATABASE": database,
        "TRUCO_GROUP_INTERVAL": str(args.group_interval),
        "TRUCO_PRIVATE_PER_SECOND": str(args.private_per_second),
        "TRUCO_POLL_TIMEOUT": "1",
        "TRUCO_LOG_LEVEL": "WARNING",
        "TRUCO_BOT_DELAY": str(args.bot_delay),
        "PYTHONPATH": str(ROOT),
    }
    if args.web:
        env.update({"TRUCO_WEBAPP_URL": "https://bench.invalid/t", "TRUCO_WEB_PORT": "0"})
    command = os.environ.get("BENCH_BOT_COMMAND", "-m bot").split()
    hooked = args.workers > 1 or args.webhook
    bots = []
    stats_files = [folder / f"stats-{index}.json" for index in range(args.workers)]
    for index in range(args.workers):
        worker_env = dict(env, TRUCO_STATS_FILE=str(stats_files[index]))
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
                sys.executable, *command, cwd=folder, env=worker_env
            )
        )
    while len(fake.backends) < args.workers if hooked else not fake.commands:  # noqa: ASYNC110
        await asyncio.sleep(0.05)
    if hooked:
        fake.start_balancing()
    await asyncio.sleep(0.5)
    bot = bots[0]
    base_rss = rss_kib(bot.pid)
    cpu_before = sum(cpu_seconds(b.pid) for b in bots)
    own_before = time.process_time()
    server_before = server_cpu(cluster)
    stats_before = db_stats(stats_files)
    probe = Probe()
    until = time.monotonic() + args.warmup + args.seconds
    users_of = {}
    tasks = []
    every = round(1 / args.bots) if args.bots else 0
    for i in range(args.matches):
        chat = -1_000_000 - i
        users = [FakeUser(fake, 100_000 + 2 * i, f"A{i}"), FakeUser(fake, 100_001 + 2 * i, f"B{i}")]
        level = args.bot_level if every and i % every == 0 else None
        if level:
            users = users[:1]
        fake.started.update(u.id for u in users)
        users_of[chat] = users
        tasks.append(
            asyncio.create_task(
                play(fake, probe, chat, users, until, seed=i, think=args.think, bot_level=level)
            )
        )
    loop_lags: list[tuple[float, float]] = []
    watcher = asyncio.create_task(watch_loop(loop_lags))
    lock_samples: list[int] = []
    locks = None
    window = time.monotonic()
    if args.warmup:
        await asyncio.sleep(args.warmup)
        window = time.monotonic()
        cpu_before = sum(cpu_seconds(b.pid) for b in bots)
        own_before = time.process_time()
        server_before = server_cpu(cluster)
        stats_before = db_stats(stats_files)
        print(f"warm-up over: {len(probe.started)} of {args.matches} tables dealt")
    if args.locks and database.startswith("postgres"):
        locks = asyncio.create_task(sample_locks(database, lock_samples))
    await asyncio.sleep(min(args.seconds / 2, 30))
    live = len(probe.started)
    grown = rss_kib(bot.pid) - base_rss
    await asyncio.gather(*tasks)
    if locks is not None:
        locks.cancel()
    per_worker = [cpu_seconds(b.pid) for b in bots]
    cpu = sum(per_worker) - cpu_before
    server = server_cpu(cluster) - server_before
    await asyncio.sleep(1.2)  # the workers write their counters every tick
    stats = stats_delta(db_stats(stats_files), stats_before)
    own_cpu = time.process_time() - own_before
    own_wall = time.monotonic() - window
    watcher.cancel()
    own_lags = [ms for at, ms in loop_lags if at >= window]
    wall_window = time.time() - (time.monotonic() - window)
    if args.warmup:  # only the taps of the measured window count
        keep = [i for i, at in enumerate(probe.at) if at >= window]
        probe.answer_ms = [probe.answer_ms[i] for i in keep]
        probe.hand_ms = [probe.hand_ms[i] for i in keep]
        probe.at = [probe.at[i] for i in keep]
        probe.who = [probe.who[i] for i in keep]
        probe.refused_at = [at for at in probe.refused_at if at >= window]
    await fake.stop_balancing()
    for bot in bots:
        bot.terminate()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(bot.wait(), 20)
    await fake.stop()
    if cluster is not None:
        cluster.stop()
    if args.dump:
        dump_taps(Path(args.dump), probe)
    rates = [max_per_minute(fake.calls_in(chat)) for chat in users_of]
    lags = board_lag(fake, probe.answered)
    too_many = sum(1 for _, code, _ in fake.errors if code == 429)
    taps = max(len(probe.hand_ms) + len(probe.refused_at), 1)
    print(
        f"matches: {args.matches}, seconds: {args.seconds}, think: {args.think} s, "
        f"taps: {taps} ({taps / args.seconds:.0f}/s; {len(probe.refused_at)} refused: untimed), "
        f"workers: {args.workers}{' (webhook)' if hooked else ''}, database: {args.database}"
    )
    print(f"bot CPU: {cpu:.1f} s in all, {1000 * cpu / taps:.2f} ms per tap")
    if args.workers > 1:
        print("  per worker (s, whole run): " + ", ".join(f"{c:.1f}" for c in per_worker))
    if cluster is not None:
        total = cpu + server
        print(
            f"PostgreSQL server CPU: {server:.1f} s, {1000 * server / taps:.2f} ms per tap; "
            f"total (workers + server): {1000 * total / taps:.2f} ms per tap, "
            f"{taps / args.seconds / (total / args.seconds):.0f} taps/s per core"
        )
    else:
        print(f"total CPU per tap: {1000 * cpu / taps:.2f} ms, {taps / cpu:.0f} taps/s per core")
    kinds: Counter[str] = stats["kinds"]  # type: ignore[assignment]
    print(
        f"database round trips per tap: {int(stats['trips']) / taps:.1f} "  # type: ignore[call-overload]
        f"(transactions {int(stats['transactions']) / taps:.2f}); per 1,000 taps: "  # type: ignore[call-overload]
        f"conflicts {1000 * int(stats['conflicts']) / taps:.1f}, "  # type: ignore[call-overload]
        f"lock waits {1000 * int(stats['lock_waits']) / taps:.1f}, "  # type: ignore[call-overload]
        f"wake-ups from other workers {1000 * int(stats['notices']) / taps:.0f}"  # type: ignore[call-overload]
    )
    if lock_samples:
        waiting = [n for n in lock_samples if n]
        print(
            f"lock waits (pg_stat_activity every 20 ms): a backend waited in {len(waiting)} of "
            f"{len(lock_samples)} samples, {sum(lock_samples) / len(lock_samples):.3f} on average"
        )
    for what in ("reads", "completes"):
        calls = int(stats.get(f"{what}_calls", 0))  # type: ignore[call-overload]
        if calls:
            asked = int(stats[f"{what}_asked"])  # type: ignore[call-overload]
            print(
                f"  lane {what} gathered: {asked / calls:.2f} lanes a statement"
                f" ({calls} statements)"
            )
    delays: Counter[int] = stats["delays"]  # type: ignore[assignment]
    if delays:
        spread = sorted(delays.elements())
        print(
            f"cross-worker delivery (commit -> read by the lane's owner, after a notice): "
            f"p50 {pct(spread, 0.5):.0f} ms, p99 {pct(spread, 0.99):.0f} ms over {len(spread)} rows"
        )
    print("  by kind, per tap: " + ", ".join(
        f"{kind} {n / taps:.2f}" for kind, n in kinds.most_common(12)
    ))  # fmt: skip
    print(
        f"tap -> callback answered: p50 {statistics.median(probe.answer_ms):.1f} ms, "
        f"p99 {pct(probe.answer_ms, 0.99):.1f} ms"
    )
    print(
        f"tap -> answered and own hand updated: p50 {statistics.median(probe.hand_ms):.1f} ms, "
        f"p99 {pct(probe.hand_ms, 0.99):.1f} ms"
    )
    steady_from = probe.at[0] + 15 if probe.at else 0
    steady = [ms for at, ms in zip(probe.at, probe.hand_ms, strict=True) if at >= steady_from]
    if steady:
        print(
            f"  after the first 15 s (every table dealt): p50 {statistics.median(steady):.1f} ms, "
            f"p99 {pct(steady, 0.99):.1f} ms over {len(steady)} taps"
        )
    print(
        f"board lag behind the game: p50 {statistics.median(lags):.2f} s, "
        f"p99 {pct(lags, 0.99):.2f} s"
    )
    print(f"Bot API calls per group per minute: max {max(rates)}; 429 answers: {too_many}")
    methods = Counter(method for at, method, _ in fake.calls if at >= wall_window)
    print(
        "Bot API calls per tap: "
        + ", ".join(f"{m} {n / taps:.2f}" for m, n in methods.most_common())
    )
    print(
        f"load generator: {100 * own_cpu / own_wall:.0f}% of a core; its loop wakes late by "
        f"p50 {statistics.median(own_lags):.1f} ms, p99 {pct(own_lags, 0.99):.1f} ms, "
        f"max {max(own_lags):.1f} ms"
    )
    print(f"memory per live match: {grown / max(live, 1):.1f} KiB ({live} live)")
    if every:
        bot_chats = [c for c, users in users_of.items() if len(users) == 1]
        taps = sum(len(probe.answered.get(c, [])) for c in bot_chats)
        print(f"tables against a {args.bot_level} bot: {len(bot_chats)}, their taps: {taps}")


if __name__ == "__main__":
    asyncio.run(main())

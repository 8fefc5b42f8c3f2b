"""/tabla on a big group: 10,000 recorded matches, then the standings queries timed, and how
long the event loop stalled meanwhile.

python bench/league.py [--matches 10000] [--players 12]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.i18n import translator
from bot.service.history import History
from bot.service.league import rate_match
from bot.storage.connect import open_database
from bot.storage.db import Database
from bot.storage.repo import Store
from bot.views.standings import standings_pages

CHAT = -1


async def fill(db: Database, matches: int, players: int, rng: random.Random) -> None:
    async with db.transaction() as conn:
        for user in range(1, players + 1):
            await conn.execute(
                "INSERT INTO players (user_id, name, updated_at) VALUES (?, ?, 0)",
                (user, f"Jugador {user}"),
            )
        for game in range(1, matches + 1):
            size = rng.choice((2, 4))
            seated = list(enumerate(rng.sample(range(1, players + 1), size)))
            winner = rng.randrange(2)
            scores = [rng.randrange(0, 30), rng.randrange(0, 30)]
            scores[winner] = 30
            await conn.execute(
                "INSERT INTO games (id, chat_id, status, opener_id, config, language, created_at,"
                " updated_at) VALUES (?, ?, 'finished', 1, '{}', 'es', ?, ?)",
                (game, CHAT, game, game),
            )
            await conn.execute(
                "INSERT INTO matches (game_id, chat_id, players, target, flor, house_rule,"
                " termination, winner_side, score0, score1, hands, started_at, ended_at)"
                " VALUES (?, ?, ?, 30, 1, 1, 'target', ?, ?, ?, 10, ?, ?)",
                (game, CHAT, size, winner, scores[0], scores[1], game * 60.0, game * 60.0 + 50),
            )
            await conn.executemany(
                "INSERT INTO match_players (game_id, seat, user_id, side) VALUES (?, ?, ?, ?)",
                [(game, seat, user, seat % 2) for seat, user in seated],
            )
            await rate_match(conn, CHAT, game, seated, winner)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--players", type=int, default=12)
    args = parser.parse_args()
    db = await open_database(Path(tempfile.mkdtemp()) / "league.db")
    started = time.perf_counter()
    await fill(db, args.matches, args.players, random.Random(1))
    print(f"recorded {args.matches} matches in {time.perf_counter() - started:.1f} s")
    league = History(Store(db))  # the core's readings: its counting, its ranking
    t = translator("es")
    stalls: list[float] = []
    watcher = asyncio.create_task(watch_loop(stalls))
    for label, players, month in [("all", None, False), ("1v1", 2, False), ("2v2", 4, False)]:
        times = []
        for _ in range(20):
            begin = time.perf_counter()
            rows = await league.standings(
                CHAT, players, (args.matches - 500) * 60.0 if month else None
            )
            pairs = await league.pairs(CHAT) if players == 4 else []
            standings_pages(t, rows, label, pairs)  # what /tabla draws
            times.append((time.perf_counter() - begin) * 1000)
            await asyncio.sleep(0.005)  # a quiet moment: the watcher below measures the stalls
        print(
            f"/tabla {label}: median {statistics.median(times):.1f} ms, "
            f"max {max(times):.1f} ms ({len(rows)} players)"
        )
    watcher.cancel()
    print(
        f"the event loop, meanwhile (every other table waits on it): longest stall "
        f"{max(stalls):.1f} ms"
    )
    await db.close()


async def watch_loop(stalls: list[float], every: float = 0.001) -> None:
    """How late the loop wakes up a task that sleeps 1 ms: what a query run on it would cost
    every other table."""
    while True:
        before = time.perf_counter()
        await asyncio.sleep(every)
        stalls.append((time.perf_counter() - before - every) * 1000)


if __name__ == "__main__":
    asyncio.run(main())

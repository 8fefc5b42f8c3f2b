"""A table read from its snapshot, and from its action log when the snapshot is gone.

    python bench/snapshots.py [--tables N] [--repeat R]

Plays N matches through the real core on a SQLite file (half of them to the end, the others
stopped halfway), then reads every table through the storage (`Store.table`) with their
snapshots, and again after `UPDATE games SET state = NULL` (each replayed from its log). Also
the codec alone, without the database: a state from its snapshot text, and from its log. Each
reports the fastest of R runs (a shared machine varies a lot).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.core import Core
from bot.game import ActionKind, MatchConfig
from bot.storage import snapshots
from bot.storage.connect import open_database
from bot.storage.repo import Store

SHORT = (ActionKind.FALTA_ENVIDO, ActionKind.MAZO)  # (kept rare: matches of a usual length)


async def build(core: Core, tables: int) -> list[int]:
    ids = []
    for index in range(tables):
        players = (2, 4, 6)[index % 3]
        first = 100 * (index + 1)
        table = await core.lobby.open(-1 - index, 0, first, MatchConfig(players=players), "es")
        for user in range(first, first + players):
            await core.lobby.join(table.id, user)
        rng = random.Random(index)
        limit = None if index % 2 == 0 else 60  # every other one stops in the middle
        steps = 0
        while True:
            found = await core.store.table(table.id)
            assert found is not None and found.state is not None
            if found.state.is_over or (limit is not None and steps >= limit):
                break
            legal = found.state.legal_actions()
            action = rng.choice([a for a in legal if a.kind not in SHORT] or legal)
            user = found.seats[action.seat]
            assert user is not None
            await core.play.act(table.id, user, found.state.step, action.kind, action.card)
            steps += 1
        ids.append(table.id)
    return ids


async def read_all(store: Store, ids: list[int], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for table_id in ids:
            await store.table(table_id)
        best = min(best, time.perf_counter() - start)
    return best


def codec_alone(texts: list[tuple[str, int, MatchConfig, list[str]]], repeat: int) -> None:
    load = replay = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for text, steps, _, _ in texts:
            snapshots.load(text, steps)
        load = min(load, time.perf_counter() - start)
        start = time.perf_counter()
        for _, _, config, codes in texts:
            snapshots.rebuild(config, codes)
        replay = min(replay, time.perf_counter() - start)
    n = len(texts)
    actions = sum(len(codes) for *_, codes in texts) / n
    size = sum(len(text) for text, *_ in texts) / n
    print(
        f"codec alone: {n} states, {actions:.0f} actions and a {size:,.0f}-byte snapshot each:"
        f" from the snapshot {1000 * load / n:.3f} ms, replayed {1000 * replay / n:.3f} ms"
        f" ({replay / load:.1f}x)"
    )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        core = Core.build(Store(await open_database(path)), seed=1)
        ids = await build(core, args.tables)
        texts = []
        for table_id in ids:
            table = await core.store.table(table_id)
            assert table is not None and table.state is not None
            codes = [code for _, _, code in await core.store.action_log(table_id)]
            texts.append((snapshots.dump(table.state), len(codes), table.config, codes))
        store = core.store
        snap = await read_all(store, ids, args.repeat)
        async with store.db.transaction() as conn:
            await conn.execute("UPDATE games SET state = NULL")
        logs = await read_all(store, ids, args.repeat)
        await store.db.close()
    n = len(ids)
    print(
        f"Store.table, SQLite: {n} tables, from their snapshots {1000 * snap / n:.3f} ms each,"
        f" from their logs {1000 * logs / n:.3f} ms each ({logs / snap:.1f}x)"
    )
    codec_alone(texts, args.repeat)


if __name__ == "__main__":
    asyncio.run(main())

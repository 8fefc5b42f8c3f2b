"""The action log is a match's one truth: `games.state` is a cache that can be dropped.

A database of finished matches and live ones (in the middle of a hand, chants waiting, 1v1, 2v2
and 3v3 with pica-pica, con flor) loses every snapshot and is opened again through the real
core: every state comes back equal, and the live matches play on to the end exactly as the same
matches do on a twin database that kept its snapshots. On SQLite's file and on PostgreSQL."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

from bot import codec
from bot.game import ActionKind, MatchConfig, MatchState, Pending
from bot.model.outcome import Termination
from bot.model.table import TableStatus
from bot.service.core import Core
from bot.storage import snapshots
from bot.storage.connect import open_database
from bot.storage.migrations import MIGRATIONS
from bot.storage.repo import Store
from tests.pg import Cluster

Stop = Callable[[MatchState], bool]
SHORT = (ActionKind.FALTA_ENVIDO, ActionKind.MAZO)


def pending(kind: Pending) -> Stop:
    return lambda s: s.hand is not None and s.hand.pending() is kind


def in_a_duel(s: MatchState) -> bool:
    """A pica-pica hand's duel with a chant waiting."""
    h = s.hand
    return s.pica and h is not None and h.duel is not None and h.pending() is not None


def over(s: MatchState) -> bool:
    return s.is_over


# (rules, where the match stops) for each table the database holds
WORLD: list[tuple[MatchConfig, Stop | None]] = [
    (MatchConfig(players=2), over),
    (MatchConfig(players=4, flor=False, target=15), over),
    (MatchConfig(players=6), over),
    (MatchConfig(players=2), pending(Pending.TRUCO)),
    (MatchConfig(players=4), pending(Pending.ENVIDO)),
    (MatchConfig(players=2, falta_malas=True), pending(Pending.ENVIDO)),
    (MatchConfig(players=6), in_a_duel),
    (MatchConfig(players=6, duel_falta=6), lambda s: s.pica and s.hand is not None),
    (MatchConfig(players=4), None),  # a lobby: no match yet
]


async def open_core(target: Path | str) -> Core:
    return Core.build(Store(await open_database(target)), seed=3)


async def step_once(core: Core, table_id: int, rng: random.Random) -> None:
    """One legal action, chosen by `rng`, through the core as its person taps it (a falta envido
    or the mazo only when nothing else may be done: matches that last)."""
    table = await core.store.table(table_id)
    assert table is not None and table.state is not None
    legal = table.state.legal_actions()
    action = rng.choice([a for a in legal if a.kind not in SHORT] or legal)
    user = table.seats[action.seat]
    assert user is not None
    await core.play.act(table_id, user, table.state.step, action.kind, action.card)


async def build(core: Core) -> list[int]:
    """The tables of WORLD, each played (random legal taps) to where it stops."""
    ids = []
    for index, (config, stop) in enumerate(WORLD):
        first = 100 * (index + 1)
        table = await core.lobby.open(-1000 - index, 0, first, config, "es")
        ids.append(table.id)
        if stop is None:
            continue
        for user in range(first, first + config.players):
            await core.lobby.join(table.id, user)
        rng = random.Random(index)
        while True:
            found = await core.store.table(table.id)
            assert found is not None and found.state is not None
            if stop(found.state):
                break
            assert not found.state.is_over, f"table {index} ended before it got where it stops"
            await step_once(core, table.id, rng)
    return ids


async def states(core: Core, ids: list[int]) -> dict[int, str | None]:
    """Each table's state as its snapshot would say it (None: a lobby), read from storage."""
    out: dict[int, str | None] = {}
    for table_id in ids:
        table = await core.store.table(table_id)
        assert table is not None
        out[table_id] = None if table.state is None else snapshots.dump(table.state)
    return out


async def drop_snapshots(target: Path | str) -> None:
    db = await open_database(target)
    async with db.transaction() as conn:
        await conn.execute("UPDATE games SET state = NULL")
    row = await db.fetchone("SELECT count(*) AS n FROM games WHERE state IS NOT NULL")
    assert row is not None and row["n"] == 0
    await db.close()


async def the_log_is_the_truth(kept: Path | str, dropped: Path | str) -> None:
    # The same world on two databases (the seed and the taps are the same: so are the matches)
    built = {}
    for target in (kept, dropped):
        core = await open_core(target)
        ids = await build(core)
        built[target] = (ids, await states(core, ids))
        await core.store.db.close()
    ids, originals = built[kept]
    assert built[dropped] == (ids, originals)
    assert sum(1 for s in originals.values() if s is None) == 1  # the lobby
    await drop_snapshots(dropped)

    one, two = await open_core(kept), await open_core(dropped)
    try:
        assert await states(two, ids) == originals  # every one rebuilt from its log
        # through the core's own reading (the open tables at start, then each one)
        kept_tables = [await one.store.table(i) for i in ids]
        assert sorted(t.id for t in await two.tables.open_tables()) == [
            t.id for t in kept_tables if t is not None and t.is_open
        ]
        for table_id in ids:
            got = await two.tables.get(table_id)
            assert got is not None
            expected = originals[table_id]
            assert (None if got.state is None else snapshots.dump(got.state)) == expected
        # The live matches play on to the end, identically
        live = [t.id for t in kept_tables if t is not None and t.status is TableStatus.PLAYING]
        assert len(live) == 5
        for table_id in live:
            rng_one, rng_two = random.Random(table_id), random.Random(table_id)
            for _ in range(5000):
                a, b = await one.store.table(table_id), await two.store.table(table_id)
                assert a is not None and b is not None and a.state and b.state
                assert snapshots.dump(a.state) == snapshots.dump(b.state)
                if a.status is not TableStatus.PLAYING:
                    break
                await step_once(one, table_id, rng_one)
                await step_once(two, table_id, rng_two)
            assert a.status is TableStatus.FINISHED and a.state.is_over
            assert await one.store.action_log(table_id) == await two.store.action_log(table_id)
            records = [await c.store.match_record(table_id) for c in (one, two)]
            timeless = [dataclasses.replace(r, started_at=0, ended_at=0) for r in records if r]
            assert len(timeless) == 2 and timeless[0] == timeless[1]
            assert timeless[0].termination is Termination.TARGET
    finally:
        await one.store.db.close()
        await two.store.db.close()


async def test_sqlite_matches_come_back_from_their_logs(tmp_path: Path) -> None:
    await the_log_is_the_truth(tmp_path / "kept.db", tmp_path / "dropped.db")


async def test_postgresql_matches_come_back_from_their_logs(pg_cluster: Cluster | None) -> None:
    assert pg_cluster is not None, "PostgreSQL's server binaries are needed"
    await the_log_is_the_truth(pg_cluster.new_database(), pg_cluster.new_database())


async def test_a_stale_snapshot_is_not_believed(tmp_path: Path) -> None:
    """A snapshot behind the log (or of another format) is replayed over, never used."""
    path = tmp_path / "t.db"
    core = await open_core(path)
    table = await core.lobby.open(-1, 0, 1, MatchConfig(players=2), "es")
    for user in (1, 2):
        await core.lobby.join(table.id, user)
    rng = random.Random(5)
    for _ in range(6):
        await step_once(core, table.id, rng)
    behind = await core.store.table(table.id)
    assert behind is not None and behind.state is not None
    old = snapshots.dump(behind.state)
    for _ in range(6):
        await step_once(core, table.id, rng)
    now = await core.store.table(table.id)
    assert now is not None and now.state is not None
    current = snapshots.dump(now.state)
    assert current != old
    other = codec.dumps({**codec.loads(current), "format": "another"})
    for stale in (old, other):
        async with core.store.db.transaction() as conn:
            await conn.execute("UPDATE games SET state = ? WHERE id = ?", (stale, table.id))
        again = await core.store.table(table.id)
        assert again is not None and again.state is not None
        assert snapshots.dump(again.state) == current
    # and a current one is what is read: a snapshot that says so is believed
    loaded = snapshots.load(current, now.state.step)
    assert loaded is not None and snapshots.dump(loaded) == current
    assert snapshots.load(current, now.state.step + 1) is None
    await core.store.db.close()


# The migration that dropped the old snapshots and renamed the house rule (its version)
RENAME = next(i for i, m in enumerate(MIGRATIONS, 1) if "mazo_penalty" in str(m))


async def test_the_migration_drops_old_snapshots_and_renames_house(tmp_path: Path) -> None:
    """Snapshots of the old shapes go (their matches replay from the log); rules stored under
    the house rule's old name take its name, in a group's defaults, a table and a tournament."""
    path = tmp_path / "old.db"
    core = await open_core(path)
    table = await core.lobby.open(-1, 0, 1, MatchConfig(players=2, mazo_penalty=False), "es")
    for user in (1, 2):
        await core.lobby.join(table.id, user)
    rng = random.Random(2)
    for _ in range(10):
        await step_once(core, table.id, rng)
    played = await core.store.table(table.id)
    assert played is not None and played.state is not None
    truth = snapshots.dump(played.state)
    await core.store.db.close()

    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version={RENAME - 1}")  # as a database of before it
    raw.execute("ALTER TABLE senders DROP COLUMN queued")  # (and of before those after it)
    raw.execute("ALTER TABLE games DROP COLUMN signs")
    raw.execute("ALTER TABLE players DROP COLUMN hand_place")
    raw.execute("DROP INDEX tournaments_number")
    raw.execute("ALTER TABLE tournaments DROP COLUMN number")
    for undone in ("DROP TABLE daily_answers", "DROP TABLE daily_hands", "DROP TABLE daily_named",
                   "DROP TABLE review_answers",
                   "ALTER TABLE chats DROP COLUMN daily_hour",
                   "ALTER TABLE chats DROP COLUMN daily_set_at"):  # fmt: skip
        raw.execute(undone)
    old_state = {"config": {"players": 2}, "scores": [0, 0], "last_hand": {"number": 1}}
    raw.execute(
        "UPDATE games SET state = ?, config = ? WHERE id = ?",
        (codec.dumps(old_state), codec.dumps({"players": 2, "house": False}), table.id),
    )
    raw.execute(
        "INSERT INTO chats (chat_id, defaults) VALUES (-5, ?), (-6, ?)",
        (codec.dumps({"house": False, "target": 15}), codec.dumps({"target": 15})),
    )
    raw.commit()
    raw.close()

    again = await open_core(path)
    try:
        rows = await again.store.db.fetchall("SELECT state, config FROM games")
        assert [r["state"] for r in rows] == [None]
        assert codec.loads(rows[0]["config"]) == {"players": 2, "mazo_penalty": False}
        assert (await again.store.chat_defaults(-5)).chosen == {
            "target": 15, "mazo_penalty": False
        }  # fmt: skip
        assert (await again.store.chat_defaults(-6)).chosen == {"target": 15}
        found = await again.store.table(table.id)
        assert found is not None and found.state is not None
        assert not found.config.mazo_penalty
        assert snapshots.dump(found.state) == truth
    finally:
        await again.store.db.close()


async def test_postgresql_migration_renames_house(pg_cluster: Cluster | None) -> None:
    assert pg_cluster is not None, "PostgreSQL's server binaries are needed"
    url = pg_cluster.new_database()
    db = await open_database(url)
    async with db.transaction() as conn:
        await conn.execute("DELETE FROM schema_version WHERE version >= ?", (RENAME,))
        await conn.execute("ALTER TABLE senders DROP COLUMN queued")  # (those after it too)
        await conn.execute("ALTER TABLE games DROP COLUMN signs")
        await conn.execute("ALTER TABLE players DROP COLUMN hand_place")
        await conn.execute("DROP INDEX tournaments_number")
        await conn.execute("ALTER TABLE tournaments DROP COLUMN number")
        for undone in ("DROP TABLE daily_answers", "DROP TABLE daily_hands",
                       "DROP TABLE daily_named", "DROP TABLE review_answers",
                       "ALTER TABLE chats DROP COLUMN daily_hour",
                       "ALTER TABLE chats DROP COLUMN daily_set_at"):  # fmt: skip
            await conn.execute(undone)
        await conn.execute(
            "INSERT INTO chats (chat_id, defaults) VALUES (-5, ?)",
            (codec.dumps({"house": True, "flor": False}),),
        )
        await conn.execute(
            "INSERT INTO tournaments (chat_id, status, opener_id, language, data, created_at,"
            " updated_at) VALUES (-5, 'signup', 1, 'es', ?, 0, 0)",
            (codec.dumps({"format": "ko", "config": {"players": 2, "house": False}}),),
        )
    await db.close()
    again = await open_database(url)
    try:
        row = await again.fetchone("SELECT defaults FROM chats WHERE chat_id = -5")
        assert row is not None and codec.loads(row["defaults"]) == {
            "flor": False, "mazo_penalty": True
        }  # fmt: skip
        row = await again.fetchone("SELECT data FROM tournaments")
        assert row is not None
        assert codec.loads(row["data"])["config"] == {"players": 2, "mazo_penalty": False}
    finally:
        await again.close()

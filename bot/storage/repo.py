"""The core's tables and people to rows and back (nothing above the storage writes SQL)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from bot import codec
from bot.game import MatchConfig, MatchState
from bot.model.options import ChatDefaults
from bot.model.outbox import Outgoing, Record
from bot.model.outcome import Outcome, Termination
from bot.model.records import Counting, MatchRecord
from bot.model.table import Call, HandPlace, Note, Player, Sign, Table, TableStatus
from bot.storage import snapshots
from bot.storage.db import Conn, Database, Row
from bot.storage.league import counted
from bot.storage.outbox import TOLD, OutboxStore
from bot.storage.records import RecordStore

# A table's row, and how many actions its log holds (its snapshot is current if it saw as many).
GAMES = (
    "SELECT games.*, (SELECT max(seq) + 1 FROM actions WHERE game_id = games.id) AS logged"
    " FROM games"
)


def _table(row: Row, state: MatchState | None) -> Table:
    """A table from its row and its match's state (`Store._tables`)."""
    table = Table(
        id=row["id"],
        chat_id=row["chat_id"],
        thread_id=row["thread_id"],
        status=TableStatus(row["status"]),
        opener_id=row["opener_id"],
        config=_config(row),
        seats=list(codec.loads(row["seats"])),
        language=row["language"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        state=state,
        version=row["version"],
        calls=[Call.from_json(c) for c in codec.loads(row["calls"])],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        turn_seconds=row["turn_seconds"],
        deadline=row["deadline"],
        strikes=list(codec.loads(row["strikes"])),
        vacated=row["vacated"],
        reminded=row["reminded"],
        acted={int(k): float(v) for k, v in codec.loads(row["acted"]).items()},
        came=[int(u) for u in codec.loads(row["came"] or row["acted"])],
        seed=row["seed"],
        rematch_of=row["rematch_of"],
        outcome=Outcome.from_json(codec.loads(row["outcome"])) if row["outcome"] else None,
        tournament=row["tournament"],
        hints=bool(row["hints"]),
        hinted=[int(u) for u in codec.loads(row["hinted"])],
        handed=row["handed"],
        queued=row["queued"],
        signs=[Sign.from_json(s) for s in codec.loads(row["signs"])],
    )
    if table.outcome is None and not table.is_open and table.started_at is not None:
        table.outcome = _saved_before_outcomes(table)
    return table


def _player(row: Row) -> Player:
    place = row["hand_place"]
    return Player(
        row["user_id"], row["name"], row["username"], bool(row["can_dm"]),
        HandPlace(place) if place in ("group", "private") else None,
    )  # fmt: skip


def _match(row: Row) -> MatchRecord:
    return MatchRecord(
        table_id=row["game_id"],
        chat_id=row["chat_id"],
        players=row["players"],
        target=row["target"],
        flor=bool(row["flor"]),
        house_rule=bool(row["house_rule"]),
        termination=Termination(row["termination"]),
        winner=row["winner_side"],
        scores=(row["score0"], row["score1"]),
        hands=row["hands"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        bots=row["bots"],
        hinted=bool(row["hinted"]),
    )


def _saved_before_outcomes(table: Table) -> Outcome:
    """A match that ended before outcomes were saved: as its state and last calls tell it."""
    state = table.state
    if table.status is TableStatus.CANCELLED or state is None:
        return Outcome.cancelled(table.scores)
    if state.is_over and state.winner is not None:
        return Outcome.reached(state.winner, table.scores)
    for call in reversed(table.calls):
        if call.what is Note.CONCEDE and call.seat is not None:
            return Outcome.left(call.seat, table.scores)
    return Outcome.cancelled(table.scores)


def _config(row: Row) -> MatchConfig:
    return MatchConfig.of(codec.loads(row["config"]))


def _columns(table: Table) -> dict[str, object]:
    """A table's row in `games`, but for its id (names are fixed, values are bound)."""
    return {
        "chat_id": table.chat_id,
        "thread_id": table.thread_id,
        "status": table.status.value,
        "opener_id": table.opener_id,
        "config": codec.dumps(table.config.options()),
        "seats": codec.dumps(table.seats),
        "state": snapshots.dump(table.state) if table.state else None,  # a cache: see `_tables`
        "version": table.version,
        "calls": codec.dumps([c.to_json() for c in table.calls]),
        "language": table.language,
        "created_at": table.created_at,
        "updated_at": table.updated_at,
        "started_at": table.started_at,
        "ended_at": table.ended_at,
        "turn_seconds": table.turn_seconds,
        "deadline": table.deadline,
        "strikes": codec.dumps(table.strikes),
        "vacated": table.vacated,
        "reminded": table.reminded,
        "acted": codec.dumps(table.acted),
        "came": codec.dumps(table.came),
        "seed": table.seed,
        "rematch_of": table.rematch_of,
        "outcome": codec.dumps(table.outcome.to_json()) if table.outcome else None,
        "tournament": table.tournament,
        "hints": int(table.hints),
        "hinted": codec.dumps(table.hinted),
        "handed": table.handed,
        "queued": table.queued,
        "signs": codec.dumps([s.to_json() for s in table.signs]),
    }


TABLES_CHANNEL = "truco_tables"


class Store:
    def __init__(self, db: Database) -> None:
        self.db = db
        # Several workers with web tables: each commit of a table says so on TABLES_CHANNEL
        # (a page watching it may be served by another worker).
        self.notify_tables = False

    async def tell_table(self, conn: Conn, table_id: int) -> None:
        """Inside a commit: the other workers hear that this table changed (PostgreSQL)."""
        if self.notify_tables:
            await conn.run(f"SELECT pg_notify('{TABLES_CHANNEL}', ?)", (str(table_id),))

    # -- tables --------------------------------------------------------------------------------
    async def _tables(self, rows: Sequence[Row]) -> list[Table]:
        """Tables from their rows (`GAMES`): each match's state from its snapshot when it is
        current, else replayed from its action log (the match's truth: the snapshot is a cache)."""
        tables = []
        for row in rows:
            logged = row["logged"] or 0
            state = snapshots.load(row["state"], logged)
            if state is None and logged:
                codes = [code for _, _, code in await self.action_log(row["id"])]
                state = snapshots.rebuild(_config(row), codes)
            tables.append(_table(row, state))
        return tables

    async def table(self, table_id: int) -> Table | None:
        row = await self.db.fetchone(f"{GAMES} WHERE id = ?", table_id)
        return (await self._tables([row]))[0] if row else None

    async def open_table_in(self, chat_id: int, thread_id: int) -> Table | None:
        row = await self.db.fetchone(
            f"{GAMES} WHERE chat_id = ? AND thread_id = ? "
            "AND status IN ('lobby', 'playing') AND tournament IS NULL",
            chat_id,
            thread_id,
        )
        return (await self._tables([row]))[0] if row else None

    async def last_thread(self, chat_id: int) -> int:
        """The highest topic id any table of this chat had (0 for none)."""
        row = await self.db.fetchone(
            "SELECT max(thread_id) AS top FROM games WHERE chat_id = ?", chat_id
        )
        return int(row["top"]) if row and row["top"] is not None else 0

    async def open_tables_of(self, opener_id: int) -> int:
        """How many open tables this person opened (in any chat; a tournament's matches,
        opened in the name of whoever opened the tournament, are not theirs to count)."""
        row = await self.db.fetchone(
            "SELECT count(*) AS n FROM games"
            " WHERE opener_id = ? AND status IN ('lobby', 'playing') AND tournament IS NULL",
            opener_id,
        )
        return int(row["n"]) if row else 0

    async def open_tables(self) -> list[Table]:
        rows = await self.db.fetchall(f"{GAMES} WHERE status IN ('lobby', 'playing') ORDER BY id")
        return await self._tables(rows)

    async def due_tables(self, now: float, lobby_seconds: float, stalled: float) -> list[Table]:
        """Open tables a sweep has something to do with, and no others: a lobby past its time,
        a match past half its turn (a reminder, then the deadline), and a match with a computer
        player nobody moved for `stalled` seconds (the process that should have moved it died).
        A table holds a computer player when its seats hold a negative id: a '-' in its JSON."""
        rows = await self.db.fetchall(
            f"{GAMES} WHERE (status = 'lobby' AND queued IS NULL AND created_at <= ?)"
            " OR (status = 'playing' AND deadline IS NOT NULL"
            "     AND deadline - turn_seconds / 2.0 <= ?)"
            " OR (status = 'playing' AND updated_at <= ? AND seats LIKE '%-%')"
            " ORDER BY id",
            now - lobby_seconds,
            now,
            now - stalled,
        )
        return await self._tables(rows)

    # -- the line of full lobbies waiting to start (bot.service.admission) ---------------------
    async def live_matches(self) -> int:
        """Matches in play now (every worker's: a tournament's and a practice too)."""
        row = await self.db.fetchone("SELECT count(*) AS n FROM games WHERE status = 'playing'")
        return int(row["n"]) if row else 0

    async def first_in_line(self, after: int = 0) -> int | None:
        """The table first in line (the one that waited longest; `after`: past that many)."""
        row = await self.db.fetchone(
            "SELECT id FROM games WHERE status = 'lobby' AND queued IS NOT NULL"
            " ORDER BY queued, id LIMIT 1 OFFSET ?",
            after,
        )
        return int(row["id"]) if row else None

    async def last_in_line(self) -> float | None:
        """When the table last in line joined it (None: nobody waits)."""
        row = await self.db.fetchone(
            "SELECT max(queued) AS q FROM games WHERE status = 'lobby' AND queued IS NOT NULL"
        )
        return float(row["q"]) if row and row["q"] is not None else None

    async def ahead_in_line(self, table_id: int, queued: float | None) -> int:
        """How many tables are ahead of this one in line (`queued`: when it joined; None:
        it has not yet, so every table in line is ahead)."""
        if queued is None:
            row = await self.db.fetchone(
                "SELECT count(*) AS n FROM games WHERE status = 'lobby' AND queued IS NOT NULL"
                " AND id <> ?",
                table_id,
            )
        else:
            row = await self.db.fetchone(
                "SELECT count(*) AS n FROM games WHERE status = 'lobby' AND queued IS NOT NULL"
                " AND (queued < ? OR (queued = ? AND id < ?))",
                queued,
                queued,
                table_id,
            )
        return int(row["n"]) if row else 0

    async def insert_table(self, conn: Conn, table: Table) -> int:
        columns = _columns(table)
        marks = ", ".join("?" * len(columns))
        row = await conn.fetchone(
            f"INSERT INTO games ({', '.join(columns)}) VALUES ({marks}) RETURNING id",
            tuple(columns.values()),
        )
        assert row is not None
        return int(row["id"])

    async def save_table(self, conn: Conn, table: Table, expected: int) -> bool:
        """Save over version `expected` only: False if another process saved first."""
        columns = _columns(table)
        assignments = ", ".join(f"{name} = ?" for name in columns)
        changed = await conn.execute(
            f"UPDATE games SET {assignments} WHERE id = ? AND version = ?",
            (*columns.values(), table.id, expected),
        )
        return changed == 1

    async def save_change(
        self,
        table: Table,
        expected: int,
        entries: Sequence[tuple[int | None, str]],
        first_seq: int,
        rows: list[Outgoing],
        outbox: OutboxStore,
        now: float,
        records: Sequence[Record] = (),
        record_store: RecordStore | None = None,
    ) -> bool:
        # `now`: the actions' time (the table's updated_at); the rows are stamped with the
        # database's clock (`Database.now`: their delay to delivery is measured against it, and
        # a worker whose clock is off must not make them look old, or new, to another)
        """The commit of an ordinary change in a transaction of its own: the table saved over
        version `expected` (False, and nothing written, if another process saved first), its
        new actions, the rows the front ends will send. On PostgreSQL one statement does it all,
        one round trip where a transaction took six (BEGIN, the table, the actions, two outbox
        inserts, COMMIT), and tells the owners of the rows' lanes (see `OutboxStore`)."""
        if self.db.dialect != "postgresql" or records:
            async with self.db.transaction() as conn:
                if not await self.save_table(conn, table, expected):
                    return False
                await self.tell_table(conn, table.id)
                if entries:
                    await self.append_actions(conn, table.id, first_seq, list(entries), now)
                if rows:
                    await outbox.enqueue(conn, rows, stamp=table.version)
                if records and record_store is not None:
                    await record_store.write(conn, records)
            return True
        columns = _columns(table)
        assignments = ", ".join(f"{name} = ?" for name in columns)
        parts = [f"g AS (UPDATE games SET {assignments} WHERE id = ? AND version = ? RETURNING id)"]
        args: list[object] = [*columns.values(), table.id, expected]
        saved = "EXISTS (SELECT 1 FROM g)"
        if self.notify_tables:
            parts.append(f"t AS (SELECT pg_notify('{TABLES_CHANNEL}', ?) WHERE {saved})")
            args.append(str(table.id))
        if entries:
            parts.append(
                "a AS (INSERT INTO actions (game_id, seq, user_id, code, at)"
                " SELECT ?::bigint, seq, user_id, code, ?::double precision"
                " FROM unnest(?::bigint[], ?::bigint[], ?::text[])"
                f" AS x(seq, user_id, code) WHERE {saved})"
            )
            args += [
                table.id, now, [first_seq + i for i in range(len(entries))],
                [user_id for user_id, _ in entries], [code for _, code in entries],
            ]  # fmt: skip
        if rows:
            wall = self.db.now()
            insert, insert_args = outbox.rows_statement(rows, wall, saved, table.version)
            notify, notify_args = outbox.notify_ctes(rows, wall, saved)
            parts += [f"o AS ({insert})", notify]
            args += [*insert_args, *notify_args]
            told = TOLD.removeprefix("SELECT ")
        else:
            told = "NULL AS chats, NULL AS leases, 0 AS notices"
        found = await self.db.fetchone(
            f"WITH {', '.join(parts)} SELECT (SELECT count(*) FROM g) AS saved, {told}", *args
        )
        assert found is not None
        if not found["saved"]:
            return False
        if rows:
            outbox.told(rows, found["chats"], found["leases"])
        return True

    async def append_actions(
        self,
        conn: Conn,
        table_id: int,
        first_seq: int,
        entries: list[tuple[int | None, str]],
        at: float,
    ) -> None:
        await conn.executemany(
            "INSERT INTO actions (game_id, seq, user_id, code, at) VALUES (?, ?, ?, ?, ?)",
            [
                (table_id, first_seq + i, user_id, code, at)
                for i, (user_id, code) in enumerate(entries)
            ],
        )

    async def version_of(self, table_id: int) -> int | None:
        """A table's saved version (a page's stream asks it often: one small query)."""
        row = await self.db.fetchone("SELECT version FROM games WHERE id = ?", table_id)
        return int(row["version"]) if row else None

    async def action_log(self, table_id: int) -> list[tuple[int, int | None, str]]:
        rows = await self.db.fetchall(
            "SELECT seq, user_id, code FROM actions WHERE game_id = ? ORDER BY seq", table_id
        )
        return [(r["seq"], r["user_id"], r["code"]) for r in rows]

    # -- players -------------------------------------------------------------------------------
    async def upsert_player(
        self, conn: Conn, user_id: int, name: str, username: str | None, at: float
    ) -> None:
        await conn.execute(
            "INSERT INTO players (user_id, name, username, updated_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET name = excluded.name,"
            " username = excluded.username, updated_at = excluded.updated_at",
            (user_id, name, username, at),
        )

    async def set_can_dm(self, conn: Conn, user_id: int, can_dm: bool) -> None:
        await conn.execute(
            "UPDATE players SET can_dm = ? WHERE user_id = ?", (int(can_dm), user_id)
        )

    async def player(self, user_id: int) -> Player | None:
        row = await self.db.fetchone("SELECT * FROM players WHERE user_id = ?", user_id)
        if row is None:
            return None
        return _player(row)

    async def players(self, user_ids: list[int]) -> dict[int, Player]:
        if not user_ids:
            return {}
        marks = ",".join("?" * len(user_ids))
        rows = await self.db.fetchall(
            f"SELECT * FROM players WHERE user_id IN ({marks})",
            *user_ids,
        )
        return {r["user_id"]: _player(r) for r in rows}

    async def set_hand_place(self, user_id: int, place: HandPlace | None) -> None:
        await self.db.write(
            lambda conn: conn.run(
                "UPDATE players SET hand_place = ? WHERE user_id = ?",
                (None if place is None else place.value, user_id),
            )
        )

    # -- chats ---------------------------------------------------------------------------------
    async def chat_language(self, chat_id: int) -> str | None:
        row = await self.db.fetchone("SELECT language FROM chats WHERE chat_id = ?", chat_id)
        return row["language"] if row else None

    async def set_chat_language(self, conn: Conn, chat_id: int, language: str) -> None:
        """Inside the caller's transaction."""
        await conn.execute(
            "INSERT INTO chats (chat_id, language) VALUES (?, ?)"
            " ON CONFLICT (chat_id) DO UPDATE SET language = excluded.language",
            (chat_id, language),
        )

    async def chat_defaults(self, chat_id: int) -> ChatDefaults:
        row = await self.db.fetchone("SELECT defaults FROM chats WHERE chat_id = ?", chat_id)
        return ChatDefaults(dict(codec.loads(row["defaults"])) if row else {})

    async def set_chat_defaults(self, conn: Conn, chat_id: int, defaults: ChatDefaults) -> None:
        """Inside the caller's transaction."""
        await conn.execute(
            "INSERT INTO chats (chat_id, defaults) VALUES (?, ?)"
            " ON CONFLICT (chat_id) DO UPDATE SET defaults = excluded.defaults",
            (chat_id, codec.dumps(dict(defaults.chosen))),
        )

    async def set_daily_hour(
        self, conn: Conn, chat_id: int, hour: int | None, at: float, changed: bool
    ) -> None:
        """A group's hour for la mano del día (None: off), in /config's transaction; `at`, when
        it was chosen (kept as it was when the hour did not change)."""
        await conn.execute(
            "UPDATE chats SET daily_hour = ?,"
            " daily_set_at = CASE WHEN ? = 1 THEN ? ELSE daily_set_at END WHERE chat_id = ?",
            (hour, 1 if changed else 0, at, chat_id),
        )

    async def move_chat(self, old: int, new: int, also: Callable[[Conn], Awaitable[None]]) -> None:
        """A group became a supergroup: its tables, league and settings follow it."""
        async with self.db.transaction() as conn:
            await also(conn)
            await conn.execute("UPDATE games SET chat_id = ? WHERE chat_id = ?", (new, old))
            await conn.execute("UPDATE matches SET chat_id = ? WHERE chat_id = ?", (new, old))
            # A row the new chat already has stays with the old one (as UPDATE OR IGNORE).
            await conn.execute(
                "UPDATE ratings SET chat_id = ? WHERE chat_id = ? AND user_id NOT IN"
                " (SELECT user_id FROM ratings WHERE chat_id = ?)",
                (new, old, new),
            )
            await conn.execute(
                "UPDATE chats SET chat_id = ? WHERE chat_id = ?"
                " AND NOT EXISTS (SELECT 1 FROM chats WHERE chat_id = ?)",
                (new, old, new),
            )

    # -- finished matches ----------------------------------------------------------------------
    async def recent_matches(
        self, chat_id: int, counting: Counting, limit: int = 10
    ) -> list[MatchRecord]:
        """A group's last finished matches that `counting` takes, newest first."""
        where, args = counted(counting, "matches")
        rows = await self.db.fetchall(
            f"SELECT * FROM matches WHERE chat_id = ? AND {where}"
            " ORDER BY ended_at DESC, game_id DESC LIMIT ?",
            chat_id,
            *args,
            limit,
        )
        return [_match(row) for row in rows]

    async def last_match_of(self, user_id: int, counting: Counting) -> int | None:
        """The number of the last finished match `user_id` played that `counting` takes, in
        any chat (a practice in their own chat too); None: none."""
        where, args = counted(counting, "m")
        row = await self.db.fetchone(
            "SELECT m.game_id AS game_id FROM matches m"
            " JOIN match_players mp ON mp.game_id = m.game_id"
            f" WHERE mp.user_id = ? AND {where} ORDER BY m.ended_at DESC, m.game_id DESC LIMIT 1",
            user_id,
            *args,
        )
        return int(row["game_id"]) if row is not None else None

    async def record_match(self, conn: Conn, table: Table, outcome: Outcome, at: float) -> bool:
        """The match's record, once: False (and nothing written) if it has one already (a 2v2
        match is recorded when a side leaves it, whatever a bot then plays)."""
        state = table.state
        scores = outcome.scores
        inserted = await conn.execute(
            "INSERT INTO matches (game_id, chat_id, players, target, flor, house_rule,"
            " winner_side, score0, score1, hands, started_at, ended_at, bots,"
            " termination, hinted) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT DO NOTHING",
            (
                table.id,
                table.chat_id,
                table.config.players,
                table.config.target,
                int(table.config.flor),
                int(table.config.mazo_penalty),
                outcome.winner,
                scores[0],
                scores[1],
                state.hand_number if state else 0,
                table.started_at,
                at,
                len(table.bot_seats),
                outcome.termination.value,
                int(bool(table.hinted)),
            ),
        )
        if not inserted:
            return False
        side = table.geometry.side
        await conn.executemany(
            "INSERT INTO match_players (game_id, seat, user_id, side)"
            " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [
                (table.id, seat, user_id, side(seat))
                for seat, user_id in enumerate(table.seats)
                if user_id is not None
            ],
        )
        return True

    async def match_record(self, table_id: int) -> MatchRecord | None:
        row = await self.db.fetchone("SELECT * FROM matches WHERE game_id = ?", table_id)
        return _match(row) if row else None

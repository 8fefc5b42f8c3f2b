"""Rows in, typed values out: nothing above this module writes SQL."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot import codec
from bot.game import ActionKind, MatchConfig, MatchState
from bot.options import DEFAULT_BOT_LEVEL, TableOptions
from bot.storage.db import Conn, Database, Row
from bot.storage.outbox import TOLD, OutboxStore, Outgoing


class TableStatus(StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"
    CANCELLED = "cancelled"


OPEN_STATUSES = (TableStatus.LOBBY, TableStatus.PLAYING)

# A computer player sits where a user id would: a negative number that names its level
# (Telegram's user ids are positive).
BOT_LEVELS: dict[int, str] = {-1: "facil", -2: "normal", -3: "dificil"}
BOT_IDS: dict[str, int] = {level: uid for uid, level in BOT_LEVELS.items()}


def is_bot(user_id: int | None) -> bool:
    return user_id is not None and user_id < 0


class Note(StrEnum):
    """What a line of a table's recent calls says, besides a chant (stored as these strings)."""

    MAZO = "mazo"
    ENVIDO_VALUES = "envido_values"
    FLOR_VALUES = "flor_values"
    ENVIDO_ANNULLED = "envido_annulled"
    CONCEDE = "concede"


@dataclass(frozen=True)
class Call:
    """One line of the hand's recent calls: a chant or answer (`what` is an ActionKind), a note
    (a Note), or the values said (`values`: (seat, value) pairs in the order said, value None
    for "son buenas"; `seat` is None). Stored as
    `[seat, what, values]` lists, seat -1 for none, as databases have always kept them."""

    seat: int | None
    what: ActionKind | Note
    values: tuple[tuple[int, int | None], ...] = ()

    def to_json(self) -> list[Any]:
        values = [list(v) for v in self.values] if self.values else None
        return [-1 if self.seat is None else self.seat, self.what.value, values]

    @staticmethod
    def from_json(entry: Sequence[Any]) -> Call:
        seat, what, values = entry
        kind: ActionKind | Note = Note(what) if what in NOTES else ActionKind(what)
        pairs = tuple((int(s), None if v is None else int(v)) for s, v in values) if values else ()
        return Call(None if seat is None or seat < 0 else int(seat), kind, pairs)


NOTES = frozenset(n.value for n in Note)


@dataclass
class Table:
    """A table in a group (or a forum topic): a lobby, then a match."""

    id: int
    chat_id: int
    thread_id: int
    status: TableStatus
    opener_id: int
    config: MatchConfig
    seats: list[int | None]
    language: str
    created_at: float
    updated_at: float
    state: MatchState | None = None
    version: int = 0
    message_id: int | None = None
    hand_messages: dict[int, int] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)  # the hand's recent calls
    started_at: float | None = None
    ended_at: float | None = None
    turn_seconds: int = 0  # 0: sin tiempo
    deadline: float | None = None  # when the player the game waits on runs out of time
    strikes: list[int] = field(default_factory=lambda: [0, 0])  # timeouts in a row, per side
    join_token: str | None = None  # in join links: unguessable, unlike the table's number
    vacated: int | None = None  # a seat whose player left: the others choose bot or end
    reminded: int | None = None  # the step whose half-time reminder was sent (once)
    acted: dict[int, float] = field(default_factory=dict)  # person -> when they last acted
    seed: str | None = None  # every deal comes from it (bot/game/fair.py); secret until the end
    rematch_of: int | None = None  # the finished table whose 🔁 Revancha opened this one

    @property
    def is_open(self) -> bool:
        return self.status in OPEN_STATUSES

    def seat_of(self, user_id: int) -> int | None:
        """The seat of a person (never of a computer player)."""
        if user_id < 0:
            return None
        for seat, occupant in enumerate(self.seats):
            if occupant == user_id:
                return seat
        return None

    @property
    def players(self) -> list[int]:
        """The people seated (computer players are not among them)."""
        return [u for u in self.seats if u is not None and u > 0]

    @property
    def bot_seats(self) -> list[int]:
        return [seat for seat, u in enumerate(self.seats) if is_bot(u)]

    def bot_level(self, seat: int) -> str | None:
        user = self.seats[seat]
        return BOT_LEVELS.get(user) if user is not None else None

    @property
    def options(self) -> TableOptions:
        """The table's options as they stand (its bots' level, or the default)."""
        bots = self.bot_seats
        level = self.bot_level(bots[0]) if bots else None
        return TableOptions(self.config, self.turn_seconds, level or DEFAULT_BOT_LEVEL)


@dataclass(frozen=True)
class Player:
    user_id: int
    name: str
    username: str | None
    can_dm: bool


def _table(row: Row) -> Table:
    state = MatchState.from_dict(codec.loads(row["state"])) if row["state"] else None
    return Table(
        id=row["id"],
        chat_id=row["chat_id"],
        thread_id=row["thread_id"],
        status=TableStatus(row["status"]),
        opener_id=row["opener_id"],
        config=MatchConfig.from_dict(codec.loads(row["config"])),
        seats=list(codec.loads(row["seats"])),
        language=row["language"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        state=state,
        version=row["version"],
        message_id=row["message_id"],
        hand_messages={int(k): int(v) for k, v in codec.loads(row["hand_messages"]).items()},
        calls=[Call.from_json(c) for c in codec.loads(row["calls"])],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        turn_seconds=row["turn_seconds"],
        deadline=row["deadline"],
        strikes=list(codec.loads(row["strikes"])),
        join_token=row["join_token"],
        vacated=row["vacated"],
        reminded=row["reminded"],
        acted={int(k): float(v) for k, v in codec.loads(row["acted"]).items()},
        seed=row["seed"],
        rematch_of=row["rematch_of"],
    )


def _state_json(table: Table) -> str | None:
    return codec.dumps(table.state.to_dict()) if table.state else None


def _columns(table: Table) -> dict[str, object]:
    """A table's row in `games`, but for its id (names are fixed, values are bound)."""
    return {
        "chat_id": table.chat_id,
        "thread_id": table.thread_id,
        "status": table.status.value,
        "opener_id": table.opener_id,
        "config": codec.dumps(table.config.to_dict()),
        "seats": codec.dumps(table.seats),
        "state": _state_json(table),
        "version": table.version,
        "message_id": table.message_id,
        "hand_messages": codec.dumps(table.hand_messages),
        "calls": codec.dumps([c.to_json() for c in table.calls]),
        "language": table.language,
        "created_at": table.created_at,
        "updated_at": table.updated_at,
        "started_at": table.started_at,
        "ended_at": table.ended_at,
        "turn_seconds": table.turn_seconds,
        "deadline": table.deadline,
        "strikes": codec.dumps(table.strikes),
        "join_token": table.join_token,
        "vacated": table.vacated,
        "reminded": table.reminded,
        "acted": codec.dumps(table.acted),
        "seed": table.seed,
        "rematch_of": table.rematch_of,
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
    async def table(self, table_id: int) -> Table | None:
        row = await self.db.fetchone("SELECT * FROM games WHERE id = ?", table_id)
        return _table(row) if row else None

    async def table_by_token(self, token: str) -> Table | None:
        row = await self.db.fetchone("SELECT * FROM games WHERE join_token = ?", token)
        return _table(row) if row else None

    async def open_table_in(self, chat_id: int, thread_id: int) -> Table | None:
        row = await self.db.fetchone(
            "SELECT * FROM games WHERE chat_id = ? AND thread_id = ? "
            "AND status IN ('lobby', 'playing')",
            chat_id,
            thread_id,
        )
        return _table(row) if row else None

    async def last_thread(self, chat_id: int) -> int:
        """The highest topic id any table of this chat had (0 for none)."""
        row = await self.db.fetchone(
            "SELECT max(thread_id) AS top FROM games WHERE chat_id = ?", chat_id
        )
        return int(row["top"]) if row and row["top"] is not None else 0

    async def open_tables_of(self, opener_id: int) -> int:
        """How many open tables this person opened (in any chat)."""
        row = await self.db.fetchone(
            "SELECT count(*) AS n FROM games"
            " WHERE opener_id = ? AND status IN ('lobby', 'playing')",
            opener_id,
        )
        return int(row["n"]) if row else 0

    async def open_tables(self) -> list[Table]:
        rows = await self.db.fetchall(
            "SELECT * FROM games WHERE status IN ('lobby', 'playing') ORDER BY id"
        )
        return [_table(r) for r in rows]

    async def due_tables(self, now: float, lobby_seconds: float, stalled: float) -> list[Table]:
        """Open tables a sweep has something to do with, and no others: a lobby past its time,
        a match past half its turn (a reminder, then the deadline), and a match with a computer
        player nobody moved for `stalled` seconds (the process that should have moved it died).
        A table holds a computer player when its seats hold a negative id: a '-' in its JSON."""
        rows = await self.db.fetchall(
            "SELECT * FROM games WHERE (status = 'lobby' AND created_at <= ?)"
            " OR (status = 'playing' AND deadline IS NOT NULL"
            "     AND deadline - turn_seconds / 2.0 <= ?)"
            " OR (status = 'playing' AND updated_at <= ? AND seats LIKE '%-%')"
            " ORDER BY id",
            now - lobby_seconds,
            now,
            now - stalled,
        )
        return [_table(r) for r in rows]

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
        messages_only: bool = False,
    ) -> bool:
        # `now`: the actions' time (the table's updated_at); the rows are stamped with the wall
        # clock (their delay to delivery is measured against it)
        """The commit of an ordinary change in a transaction of its own: the table saved over
        version `expected` (False, and nothing written, if another process saved first), its
        new actions, the rows the front ends will send. On PostgreSQL one statement does it all,
        one round trip where a transaction took six (BEGIN, the table, the actions, two outbox
        inserts, COMMIT), and tells the owners of the rows' lanes (see `OutboxStore`)."""
        if self.db.dialect != "postgresql":
            async with self.db.transaction() as conn:
                save = self.save_messages if messages_only else self.save_table
                if not await save(conn, table, expected):
                    return False
                if entries:
                    await self.append_actions(conn, table.id, first_seq, list(entries), now)
                if rows:
                    await outbox.enqueue(conn, rows, time.time(), table.version)
            return True
        if messages_only:
            columns: dict[str, object] = {
                "message_id": table.message_id,
                "hand_messages": codec.dumps(table.hand_messages),
                "version": table.version,
                "updated_at": table.updated_at,
            }
        else:
            columns = _columns(table)
        assignments = ", ".join(f"{name} = ?" for name in columns)
        parts = [f"g AS (UPDATE games SET {assignments} WHERE id = ? AND version = ? RETURNING id)"]
        args: list[object] = [*columns.values(), table.id, expected]
        saved = "EXISTS (SELECT 1 FROM g)"
        if self.notify_tables and not messages_only:  # (a page shows no message ids)
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
            wall = time.time()
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

    async def save_messages(self, conn: Conn, table: Table, expected: int) -> bool:
        """Only the ids of the table's messages (cheaper than the whole row with its state)."""
        changed = await conn.execute(
            "UPDATE games SET message_id = ?, hand_messages = ?, version = ?, updated_at = ?"
            " WHERE id = ? AND version = ?",
            (table.message_id, codec.dumps(table.hand_messages), table.version, table.updated_at,
             table.id, expected),
        )  # fmt: skip
        return changed == 1

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
        return Player(row["user_id"], row["name"], row["username"], bool(row["can_dm"]))

    async def players(self, user_ids: list[int]) -> dict[int, Player]:
        if not user_ids:
            return {}
        marks = ",".join("?" * len(user_ids))
        rows = await self.db.fetchall(
            f"SELECT * FROM players WHERE user_id IN ({marks})",
            *user_ids,
        )
        return {
            r["user_id"]: Player(r["user_id"], r["name"], r["username"], bool(r["can_dm"]))
            for r in rows
        }

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

    async def chat_defaults(self, chat_id: int) -> dict[str, Any]:
        row = await self.db.fetchone("SELECT defaults FROM chats WHERE chat_id = ?", chat_id)
        return dict(codec.loads(row["defaults"])) if row else {}

    async def set_chat_defaults(self, conn: Conn, chat_id: int, defaults: dict[str, Any]) -> None:
        """Inside the caller's transaction."""
        await conn.execute(
            "INSERT INTO chats (chat_id, defaults) VALUES (?, ?)"
            " ON CONFLICT (chat_id) DO UPDATE SET defaults = excluded.defaults",
            (chat_id, codec.dumps(defaults)),
        )

    async def move_chat(self, old: int, new: int, also: Callable[[Conn], Awaitable[None]]) -> None:
        """A group became a supergroup: its tables, league and settings follow it."""
        async with self.db.transaction() as conn:
            await also(conn)
            await conn.execute(
                "UPDATE games SET chat_id = ?, message_id = NULL WHERE chat_id = ?", (new, old)
            )
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
    async def recent_matches(self, chat_id: int, limit: int = 10) -> list[dict[str, Any]]:
        """A group's last finished matches, newest first (cancelled lobbies left out)."""
        rows = await self.db.fetchall(
            "SELECT * FROM matches WHERE chat_id = ? AND outcome <> 'cancelled'"
            " ORDER BY ended_at DESC, game_id DESC LIMIT ?",
            chat_id,
            limit,
        )
        return [dict(row) for row in rows]

    async def record_match(
        self,
        conn: Conn,
        table: Table,
        outcome: str,
        winner_side: int | None,
        at: float,
    ) -> bool:
        """The match's record, once: False (and nothing written) if it has one already (a 2v2
        match is recorded when a side leaves it, whatever a bot then plays)."""
        state = table.state
        scores = state.scores if state else [0, 0]
        inserted = await conn.execute(
            "INSERT INTO matches (game_id, chat_id, players, target, flor, house_rule,"
            " outcome, winner_side, score0, score1, hands, started_at, ended_at, bots)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
            (
                table.id,
                table.chat_id,
                table.config.players,
                table.config.target,
                int(table.config.flor),
                int(table.config.mazo_penalty),
                outcome,
                winner_side,
                scores[0],
                scores[1],
                state.hand_number if state else 0,
                table.started_at,
                at,
                len(table.bot_seats),
            ),
        )
        if not inserted:
            return False
        await conn.executemany(
            "INSERT INTO match_players (game_id, seat, user_id, side)"
            " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
            [
                (table.id, seat, user_id, seat % 2)
                for seat, user_id in enumerate(table.seats)
                if user_id is not None
            ],
        )
        return True

    async def match_record(self, table_id: int) -> dict[str, Any] | None:
        row = await self.db.fetchone("SELECT * FROM matches WHERE game_id = ?", table_id)
        return dict(row) if row else None

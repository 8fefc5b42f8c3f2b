"""The outbox: what the bot decided to say, written in the transaction that decided it.

A row is one call to make in one chat (its *lane*). Rows with a `key` coalesce while they
wait: enqueuing the same key again bumps the row's `version` instead of adding a row, and a
delivery that rendered version v deletes the row only if nobody bumped it meanwhile (else it
records `done = v` and the row goes out once more, rendering the newer state). `loud` remembers
the version at which a notifying delivery (a hand message sent anew) was last asked for.

`lanes` says which sender owns a chat's lane (a lease, so several processes can share one
database, each lane run by one sender at a time) and when the lane may call next (pacing that
survives a restart).

On PostgreSQL (several processes) each write is one statement, one round trip, and it tells
the lanes' owners: rows written for a lane another live sender holds send that sender a notice
(`pg_notify` on its channel, `lane_channel(owner)`), delivered when the rows commit; the writer
remembers that the lane is held elsewhere until when (`elsewhere`), and asks nothing more.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

from bot import codec
from bot.model.outbox import Load, Outgoing, Pending, row_kind
from bot.storage.db import APPLICATION, Conn, Database, Row


def lane_channel(owner: str) -> str:
    """The channel a sender listens on for notices about its lanes (PostgreSQL's identifiers
    hold 63 bytes: the owner's name is hashed; the SQL below computes the same)."""
    return "truco_lane_" + hashlib.md5(owner.encode()).hexdigest()


# Until when the sender that owns lane `l` holds it: the lane's lease, or longer while that
# sender's heartbeat says it lives (`senders`). A lane whose lease ran out while its sender
# lives (a call outlasting the lease, a long wait for the budget) is still that sender's: its
# row may be in flight, and taking the lane over would send it twice. A sender that stops
# lets its lanes go (`release_all`); one that dies gives them up when its heartbeat runs out.
_HELD_UNTIL = (
    "COALESCE((SELECT CASE WHEN s.alive_until > l.lease_until THEN s.alive_until"
    " ELSE l.lease_until END FROM senders s WHERE s.owner = l.owner), l.lease_until)"
)
# The lanes of these rows that other live senders hold (`n`), and one notice to each such
# sender naming all of its lanes (`m`: "chat,chat,..."), sent when the statement commits.
_OWNERS = (
    f"SELECT l.chat_id, l.owner, {_HELD_UNTIL} AS lease_until FROM lanes l"
    f" WHERE l.chat_id = ANY(?::bigint[]) AND l.owner <> ? AND {_HELD_UNTIL} > ?"
)
_NOTICES = (
    "SELECT pg_notify('truco_lane_' || md5(owner), string_agg(chat_id::text, ',')) AS told"
    " FROM n GROUP BY owner"
)
_ROWS = (
    "INSERT INTO outbox (chat_id, priority, kind, key, payload, loud, version, created_at, stamp)"
    " SELECT chat_id, priority, kind, key, payload, loud, version, ?::double precision, ?::bigint"
    " FROM unnest(?::bigint[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::bigint[],"
    " ?::bigint[]) WITH ORDINALITY AS x(chat_id, priority, kind, key, payload, loud, version, n)"
)
# A keyed row written again while it waits: bumped (by how many times this write asked for it)
_ON_KEY = (
    " ON CONFLICT (chat_id, key) WHERE key IS NOT NULL DO UPDATE SET"
    " version = outbox.version + {bumps}, created_at = excluded.created_at,"
    " stamp = CASE WHEN excluded.stamp > outbox.stamp THEN excluded.stamp ELSE outbox.stamp END,"
    " loud = CASE WHEN excluded.loud > 0 THEN outbox.version + {bumps} ELSE outbox.loud END,"
    " priority = CASE WHEN excluded.priority < outbox.priority"
    " THEN excluded.priority ELSE outbox.priority END"
)
_ON_KEY_ONCE = _ON_KEY.format(bumps="1")
_ON_KEY_MERGED = _ON_KEY.format(bumps="excluded.version")
# what a write found: the lanes whose owners it told (`n`), until when they hold them, and
# how many notices it sent (`m`: naming it here is what makes the notices go)
TOLD = (
    "SELECT (SELECT array_agg(chat_id) FROM n) AS chats,"
    " (SELECT array_agg(lease_until) FROM n) AS leases, (SELECT count(*) FROM m) AS notices"
)


def merged(rows: Iterable[Outgoing]) -> list[tuple[Outgoing, int]]:
    """One row per key and chat (a statement may not upsert a row twice), with how many times
    it was asked for: the first's payload, the most urgent priority, loud if any was. New
    messages (no key) all stay, in order, first; the keyed rows follow by chat (within a chat
    in the order they were asked for): the order every statement locks existing rows in
    (PostgreSQL), so that two never wait for each other in a cycle."""
    plain: list[tuple[Outgoing, int]] = []
    keyed: dict[tuple[int, str], tuple[Outgoing, int]] = {}
    for row in rows:
        if row.key is None:
            plain.append((row, 1))
            continue
        seen = keyed.get((row.chat_id, row.key))
        if seen is None:
            keyed[(row.chat_id, row.key)] = (row, 1)
        else:
            first, times = seen
            keyed[(row.chat_id, row.key)] = (
                Outgoing(
                    first.chat_id, first.kind, first.payload, first.key,
                    min(first.priority, row.priority), first.loud or row.loud,
                ),
                times + 1,
            )  # fmt: skip
    return plain + sorted(keyed.values(), key=lambda pair: pair[0].chat_id)


_PENDING = (
    "id, chat_id, kind, key, payload, version, priority, loud > done AS is_loud, created_at, stamp"
)


def _pending(row: Row) -> Pending:
    return Pending(
        id=row["id"],
        chat_id=row["chat_id"],
        kind=row_kind(row["kind"]),
        key=row["key"],
        payload=codec.loads(row["payload"]),
        version=row["version"],
        priority=row["priority"],
        loud=bool(row["is_loud"]),
        created_at=row["created_at"],
        stamp=row["stamp"],
    )


class OutboxStore:
    def __init__(self, db: Database, owner: str = "main") -> None:
        self.db = db
        self.owner = owner  # this process's name as a sender (the lanes' owner)
        # Lanes another live sender holds, as the last write for them found: chat -> the end
        # of that sender's lease (told by a notice; after the lease, look again).
        self.elsewhere: dict[int, float] = {}

    def rows_statement(
        self, rows: list[Outgoing], now: float, guard: str = "", stamp: int = 0
    ) -> tuple[str, list[object]]:
        """PostgreSQL: the rows as one INSERT ... SELECT over arrays (a CTE's body); `guard`
        a condition the rows go in only under (a fused commit: the table saved)."""
        columns: list[list[object]] = [[], [], [], [], [], [], []]
        for row, times in merged(rows):
            # a loud row is loud as of its last version (> done, which is 0 for a new row)
            values = (row.chat_id, row.priority, str(row.kind), row.key,
                      codec.dumps(row.payload), times if row.loud else 0, times)  # fmt: skip
            for column, value in zip(columns, values, strict=True):
                column.append(value)
        where = f" WHERE {guard}" if guard else ""
        return f"{_ROWS}{where} ORDER BY n{_ON_KEY_MERGED}", [now, stamp, *columns]

    def notify_ctes(
        self, rows: list[Outgoing], now: float, guard: str = ""
    ) -> tuple[str, list[object]]:
        """PostgreSQL: tell the other live owners of these rows' lanes, one notice per owner
        (CTEs `n` and `m` of the caller's statement, read by `TOLD`)."""
        chats = sorted({row.chat_id for row in rows})
        where = f" AND {guard}" if guard else ""
        return f"n AS ({_OWNERS}{where}), m AS ({_NOTICES})", [chats, self.owner, now]

    def told(
        self, rows: Iterable[Outgoing], chats: list[int] | None, leases: list[float] | None
    ) -> None:
        """What a write found: the lanes other senders hold (told), the rest free or ours."""
        held = dict(zip(chats or (), leases or (), strict=True))
        for chat_id in {row.chat_id for row in rows}:
            lease = held.get(chat_id)
            if lease is None:
                self.elsewhere.pop(chat_id, None)
            else:
                self.elsewhere[chat_id] = float(lease)

    async def enqueue(
        self, conn: Conn, rows: list[Outgoing], now: float | None = None, stamp: int = 0
    ) -> None:
        """Inside the caller's transaction. `stamp`: the version of the table these rows are
        about, as this commit saves it (0: no table); `now`: when they were written (the
        database's clock, `Database.now`, unless a test says)."""
        if now is None:
            now = self.db.now()
        if self.db.dialect == "postgresql":
            insert, insert_args = self.rows_statement(rows, now, stamp=stamp)
            notify, notify_args = self.notify_ctes(rows, now)
            found = await conn.fetchone(
                f"WITH o AS ({insert}), {notify} {TOLD}", (*insert_args, *notify_args)
            )
            assert found is not None
            self.told(rows, found["chats"], found["leases"])
            return
        insert = (
            "INSERT INTO outbox (chat_id, priority, kind, key, payload, loud, created_at, stamp)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        )
        # In the order they were decided (rows of one priority go out in the order of their
        # ids: the board's last edit before the end of the match), a run of keyed or unkeyed
        # rows in one statement.
        runs: list[tuple[bool, list[tuple[object, ...]]]] = []
        for row in rows:
            payload = codec.dumps(row.payload)
            values = (
                row.chat_id, row.priority, row.kind, row.key, payload, int(row.loud), now, stamp
            )  # fmt: skip
            keyed = row.key is not None
            if runs and runs[-1][0] == keyed:
                runs[-1][1].append(values)
            else:
                runs.append((keyed, [values]))
        for keyed, batch in runs:
            await conn.executemany(insert + _ON_KEY_ONCE if keyed else insert, batch)

    async def lane_rows(
        self, chat_id: int, limit: int = 16, posts_last: bool = False
    ) -> list[Pending]:
        """The lane's waiting rows, in the order they go out: new messages first, in the order
        they were decided, then refreshes. `posts_last`: refreshes first (a board must not wait
        behind a flood of new messages)."""
        order = "priority = 0, priority, id" if posts_last else "priority, id"
        rows = await self.db.fetchall(
            f"SELECT {_PENDING} FROM outbox WHERE chat_id = ? ORDER BY {order} LIMIT ?",
            chat_id,
            limit,
        )
        return [_pending(row) for row in rows]

    async def lanes_rows(
        self, chats: list[int], limit: int = 16, posts_last: bool = False
    ) -> dict[int, list[Pending]]:
        """`lane_rows` of several lanes in one statement (PostgreSQL: one round trip for the
        lanes a commit woke together)."""
        order = "priority = 0, priority, id" if posts_last else "priority, id"
        rows = await self.db.fetchall(
            f"SELECT w.* FROM unnest(?::bigint[]) AS c(chat) CROSS JOIN LATERAL (SELECT {_PENDING}"
            f" FROM outbox WHERE chat_id = c.chat ORDER BY {order} LIMIT ?) AS w",
            chats,
            limit,
        )
        found: dict[int, list[Pending]] = {chat: [] for chat in chats}
        for row in rows:
            found[row["chat_id"]].append(_pending(row))
        return found

    async def complete_many(self, done: list[tuple[Pending, float | None]], owner: str) -> None:
        """`complete` for rows of several lanes in one statement (PostgreSQL), autocommitted:
        each row is gone, or marked done as the version that went out; a lane's pace kept."""
        paced = [(row.chat_id, next_at) for row, next_at in done if next_at is not None]
        ids, versions = [row.id for row, _ in done], [row.version for row, _ in done]
        # (`= ANY(...)` beside each join: the generic plan of a prepared statement, made for an
        # unknown number of rows, then still finds rows by index, not by scanning the table)
        rows = "unnest(?::bigint[], ?::bigint[]) AS x(id, version)"
        # The rows are locked first, by chat: the order a commit bumps keyed rows in (`merged`),
        # so the two never wait for each other in a cycle (a deadlock, which PostgreSQL breaks
        # by aborting one of them).
        sql = (
            "WITH locked AS (SELECT o.id FROM outbox o WHERE o.id = ANY(?::bigint[])"
            " ORDER BY o.chat_id, o.id FOR UPDATE),"
            f" gone AS (DELETE FROM outbox o USING locked l, {rows} WHERE o.id = ANY(?::bigint[])"
            " AND o.id = l.id AND o.id = x.id AND o.version = x.version RETURNING o.id)"
        )
        args: list[object] = [ids, ids, versions, ids]
        if paced:
            chats = [chat for chat, _ in paced]
            sql += (
                ", paced AS (UPDATE lanes l SET next_at = p.next_at FROM unnest(?::bigint[],"
                " ?::double precision[]) AS p(chat_id, next_at) WHERE l.chat_id = ANY(?::bigint[])"
                " AND l.chat_id = p.chat_id AND l.owner = ?)"
            )
            args += [chats, [at for _, at in paced], chats, owner]
        sql += (
            f" UPDATE outbox o SET done = x.version FROM locked l, {rows}"
            " WHERE o.id = ANY(?::bigint[]) AND o.id = l.id AND o.id = x.id"
            " AND o.id NOT IN (SELECT id FROM gone)"
        )
        args += [ids, versions, ids]

        async def writer(conn: Conn) -> None:
            await conn.run(sql, args)

        await self.db.write(writer)

    async def complete(
        self,
        conn: Conn,
        row: Pending,
        owner: str,
        next_at: float | None,
    ) -> None:
        """The row went out as `row.version`: gone, unless it was bumped meanwhile. Any prefix
        of these statements is harmless to keep (the lane's pace first: a row sent again after a
        crash still keeps it), so they need no transaction of their own."""
        if self.db.dialect == "postgresql":  # one statement (one round trip)
            pace = ""
            args: tuple[object, ...] = (row.id, row.version)
            if next_at is not None:
                pace = ", p AS (UPDATE lanes SET next_at = ? WHERE chat_id = ? AND owner = ?)"
                args = (*args, next_at, row.chat_id, owner)
            await conn.run(
                "WITH gone AS (DELETE FROM outbox WHERE id = ? AND version = ? RETURNING id)"
                f"{pace} UPDATE outbox SET done = ? WHERE id = ? AND NOT EXISTS"
                " (SELECT 1 FROM gone)",
                (*args, row.version, row.id),
            )
            return
        if next_at is not None:
            await conn.run(
                "UPDATE lanes SET next_at = ? WHERE chat_id = ? AND owner = ?",
                (next_at, row.chat_id, owner),
            )
        # Gone; or, bumped meanwhile, marked done as `row.version` (the newer one still goes).
        deleted = await conn.execute(
            "DELETE FROM outbox WHERE id = ? AND version = ?", (row.id, row.version)
        )
        if not deleted:
            await conn.run("UPDATE outbox SET done = ? WHERE id = ?", (row.version, row.id))

    async def claim(self, chat_id: int, owner: str, now: float, lease: float) -> float | None:
        """Own the lane until now + lease, if it is free, given up (its lease ended and its
        owner's heartbeat too: `_HELD_UNTIL`) or already ours: the time of its next call; None
        if another sender holds it (on PostgreSQL that sender is told: what this one came for
        may have been written after it last looked), remembered in `elsewhere` until then."""
        if self.db.dialect == "postgresql":
            found = await self.db.fetchone(
                "WITH c AS (INSERT INTO lanes AS l (chat_id, owner, lease_until) VALUES (?, ?, ?)"
                " ON CONFLICT (chat_id) DO UPDATE SET owner = excluded.owner,"
                " lease_until = excluded.lease_until"
                f" WHERE l.owner = excluded.owner OR {_HELD_UNTIL} < ?"
                " RETURNING owner, next_at, lease_until),"
                f" other AS (SELECT l.owner, l.next_at, {_HELD_UNTIL} AS lease_until,"
                " pg_notify('truco_lane_' || md5(l.owner), l.chat_id::text) AS told"
                " FROM lanes l WHERE l.chat_id = ? AND NOT EXISTS (SELECT 1 FROM c))"
                " SELECT owner, next_at, lease_until FROM c"
                " UNION ALL SELECT owner, next_at, lease_until FROM other",
                chat_id, owner, now + lease, now, chat_id,
            )  # fmt: skip
            if found is None:
                return None  # (the row went meanwhile: nobody holds it; try again later)
            if found["owner"] != owner:
                self.elsewhere[chat_id] = float(found["lease_until"])
                return None
            self.elsewhere.pop(chat_id, None)
            return float(found["next_at"])
        async with self.db.transaction() as conn:
            await conn.run(
                "INSERT INTO lanes AS l (chat_id, owner, lease_until) VALUES (?, ?, ?)"
                " ON CONFLICT (chat_id) DO UPDATE SET owner = excluded.owner,"
                " lease_until = excluded.lease_until"
                f" WHERE l.owner = excluded.owner OR {_HELD_UNTIL} < ?",
                (chat_id, owner, now + lease, now),
            )
            found = await conn.fetchone(
                f"SELECT owner, next_at, {_HELD_UNTIL} AS lease_until FROM lanes l"
                " WHERE chat_id = ?",
                (chat_id,),
            )
        if found is None:
            return None
        if found["owner"] != owner:
            self.elsewhere[chat_id] = float(found["lease_until"])
            return None
        self.elsewhere.pop(chat_id, None)
        return float(found["next_at"])

    async def release_all(self, owner: str) -> None:
        """A sender that stops: its lanes are free now, not at the end of their leases (another
        process takes them over at once)."""

        async def writer(conn: Conn) -> None:
            await conn.run("UPDATE lanes SET lease_until = 0 WHERE owner = ?", (owner,))

        await self.db.write(writer)

    async def release(self, chat_id: int, owner: str) -> None:
        """An idle lane: its lease ends now (its pace, `next_at`, stays)."""

        async def writer(conn: Conn) -> None:
            await conn.run(
                "UPDATE lanes SET lease_until = 0 WHERE chat_id = ? AND owner = ?",
                (chat_id, owner),
            )

        await self.db.write(writer)

    async def lanes_with_work(self, owner: str, now: float) -> list[int]:
        """Chats with rows waiting whose lane is free, given up (its lease and its sender's
        heartbeat ran out), or ours."""
        rows = await self.db.fetchall(
            "SELECT DISTINCT o.chat_id FROM outbox o LEFT JOIN lanes l ON l.chat_id = o.chat_id"
            f" WHERE l.chat_id IS NULL OR l.owner = ? OR {_HELD_UNTIL} < ?",
            owner,
            now,
        )
        return [r["chat_id"] for r in rows]

    async def beat(
        self,
        owner: str,
        now: float,
        lease: float,
        load: Load,
        choose: Callable[[list[tuple[Load, float]]], float] | None = None,
    ) -> int:
        """This sender is alive until now + lease, with this `load`: how many senders are
        alive now (itself included). `choose` is given the other live senders' (load, share)
        and says this one's share, written with them seen (one beat at a time, so the shares
        written never add up to more than any sender chose from). Senders long dead are
        forgotten."""
        # A sender that stands still inside its beat (a paused process, a machine swapping)
        # holds the beats' lock, and would hold every other sender's beat behind it until it
        # ran again: the others' rows then ran out, and the whole bot stopped sending. A beat
        # waits a third of a lease for the lock at most; one that could not have it ends the
        # session of a holder that has been inside its beat longer than that (its beat rolled
        # back, the lock freed), and the next beat goes through.
        wait = max(0.1, lease / 3)
        try:
            return await self._beat(owner, now, lease, load, choose, wait)
        except Exception:
            if self.db.dialect == "postgresql":
                await self._cut_frozen_beat(wait)
            raise

    async def _beat(
        self,
        owner: str,
        now: float,
        lease: float,
        load: Load,
        choose: Callable[[list[tuple[Load, float]]], float] | None,
        wait: float,
    ) -> int:
        async with self.db.transaction() as conn:
            if self.db.dialect == "postgresql":  # one beat at a time: each sees those before
                await conn.run(
                    f"SET LOCAL lock_timeout = {int(wait * 1000)};"
                    " SELECT pg_advisory_xact_lock(5005)"
                )
            others = await conn.fetchall(
                "SELECT demand, share, queued FROM senders WHERE alive_until > ? AND owner <> ?",
                (now, owner),
            )
            seen = [
                (Load(float(r["demand"]), _counts(r["queued"])), float(r["share"])) for r in others
            ]
            share = choose(seen) if choose is not None else 0.0
            queued = ",".join(f"{q:g}" for q in load.queued)
            await conn.run(
                "INSERT INTO senders (owner, alive_until, demand, share, queued)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (owner) DO UPDATE SET"
                " alive_until = excluded.alive_until, demand = excluded.demand,"
                " share = excluded.share, queued = excluded.queued",
                (owner, now + lease, load.demand, share, queued),
            )
            await conn.run("DELETE FROM senders WHERE alive_until < ?", (now - 3600.0,))
        return len(others) + 1

    async def _cut_frozen_beat(self, wait: float) -> None:
        """End the session of a beat holding the lock for longer than `wait` seconds: one of
        this bot's, in this database. An advisory key is a number any program may take, in
        any database of the cluster, and a role allowed to end others' sessions (a superuser,
        or one role for everything) would end theirs too: a session of another database, or
        of another application in this one, is never cut (`tests/service/test_heartbeat_cut.py`;
        the bot's sessions name themselves `application_name`)."""
        try:
            await self.db.fetchall(
                "SELECT pg_terminate_backend(a.pid) AS cut FROM pg_locks l"
                " JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory'"
                " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                " AND l.classid = 0 AND l.objid = 5005 AND l.objsubid = 1 AND l.granted"
                " AND a.datname = current_database() AND a.application_name = ?"
                " AND a.pid <> pg_backend_pid()"
                " AND a.xact_start < clock_timestamp() - make_interval(secs => ?)",
                APPLICATION,
                wait,
            )
        except Exception:  # (the beat's own failure is what its caller is told)
            return

    async def leave(self, owner: str) -> None:
        """A sender that stops: its share of the budget is the others' at their next beat."""

        async def writer(conn: Conn) -> None:
            await conn.run("DELETE FROM senders WHERE owner = ?", (owner,))

        await self.db.write(writer)

    async def waiting(self) -> int:
        row = await self.db.fetchone("SELECT count(*) AS n FROM outbox")
        return int(row["n"]) if row else 0


def _counts(text: str) -> tuple[float, ...]:
    """A sender's calls waiting by rank, as its heartbeat wrote them ("3,0,12,40")."""
    try:
        return tuple(float(part) for part in text.split(",")) if text else ()
    except ValueError:
        return ()

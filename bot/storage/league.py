"""League records and queries: standings, pairs, a player's numbers, rating changes."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from bot.league.ratings import Rated, Rating, Rerated
from bot.league.stats import STAT_NAMES, PlayerMatchStats
from bot.league.values import Pair, PlayerNumbers, RatingChange, Tally
from bot.model.records import Counting
from bot.model.table import BOT_LEVELS
from bot.storage.db import Conn, Database

LOCK_RATINGS = 1  # Conn.lock space: a group's ratings


def counted(counting: Counting, m: str = "m") -> tuple[str, list[object]]:
    """The filter of `counting` on the matches aliased `m`, as given (the core decides which
    matches count; this only says it in SQL): a condition and its arguments."""
    terminations = sorted(t.value for t in counting.terminations)
    sql = f"{m}.termination IN ({', '.join('?' * len(terminations))})" if terminations else "0 = 1"
    args: list[object] = list(terminations)
    if counting.bots is not None:
        sql += f" AND {m}.bots {'>' if counting.bots else '='} 0"
    if counting.hinted is not None:
        sql += f" AND {m}.hinted = ?"
        args.append(int(counting.hinted))
    if counting.players is not None:
        sql += f" AND {m}.players = ?"
        args.append(counting.players)
    if counting.since is not None:
        sql += f" AND {m}.ended_at >= ?"
        args.append(counting.since)
    return sql, args


# -- a match's league records, written in the caller's transaction (the core computed them) --
async def match_log(conn: Conn, game_id: int) -> list[str]:
    rows = await conn.fetchall(
        "SELECT code FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
    )
    return [r[0] for r in rows]


async def save_stats(
    conn: Conn, game_id: int, stats: Sequence[tuple[int, PlayerMatchStats]]
) -> None:
    await conn.executemany(
        f"INSERT INTO player_match_stats (game_id, user_id, {', '.join(STAT_NAMES)})"
        f" VALUES (?, ?{', ?' * len(STAT_NAMES)}) ON CONFLICT DO NOTHING",
        [(game_id, user, *numbers.as_row()) for user, numbers in stats],
    )


async def ratings_of(conn: Conn, chat_id: int, users: Sequence[int]) -> dict[int, Rated]:
    """The group's ratings of `users`, locked until the caller's transaction ends (they are
    read, then written: one match at a time)."""
    await conn.lock(LOCK_RATINGS, chat_id)
    marks = ",".join("?" * len(users))
    rows = await conn.fetchall(
        "SELECT user_id, mu, sigma, matches, streak FROM ratings"
        f" WHERE chat_id = ? AND user_id IN ({marks})",
        (chat_id, *users),
    )
    return {r[0]: Rated(Rating(r[1], r[2]), r[3], r[4]) for r in rows}


async def save_ratings(conn: Conn, chat_id: int, game_id: int, rerated: Sequence[Rerated]) -> None:
    for one in rerated:
        new = one.after
        await conn.execute(
            "INSERT INTO ratings (chat_id, user_id, mu, sigma, matches, streak)"
            " VALUES (?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (chat_id, user_id) DO UPDATE SET mu = excluded.mu,"
            " sigma = excluded.sigma, matches = excluded.matches, streak = excluded.streak",
            (chat_id, one.user_id, new.rating.mu, new.rating.sigma, new.matches, new.streak),
        )
        await conn.execute(
            "UPDATE match_players SET rating_before = ?, rating_after = ?"
            " WHERE game_id = ? AND user_id = ?",
            (one.before.shown, new.rating.shown, game_id, one.user_id),
        )


async def clear_ratings(conn: Conn, chat_id: int) -> None:
    await conn.execute("DELETE FROM ratings WHERE chat_id = ?", (chat_id,))


async def won_matches(conn: Conn, chat_id: int, counting: Counting) -> list[tuple[int, int]]:
    """(game id, winning side) of the group's matches `counting` takes that somebody won,
    oldest first."""
    where, args = counted(counting, "matches")
    rows = await conn.fetchall(
        f"SELECT game_id, winner_side FROM matches WHERE chat_id = ? AND {where}"
        " AND winner_side IS NOT NULL ORDER BY ended_at, game_id",
        (chat_id, *args),
    )
    return [(int(r[0]), int(r[1])) for r in rows]


async def seated(conn: Conn, game_id: int) -> list[tuple[int, int]]:
    """(seat, user id) of a recorded match, by seat."""
    rows = await conn.fetchall(
        "SELECT seat, user_id FROM match_players WHERE game_id = ? ORDER BY seat", (game_id,)
    )
    return [(int(r[0]), int(r[1])) for r in rows]


class League:
    """The league's readings: each one over the matches the core's `Counting` takes."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def tallies(self, chat_id: int, counting: Counting) -> list[Tally]:
        """Each player's sums over the counted matches, with the group's rating and current
        streak (whatever the filter), unranked."""
        where, args = counted(counting)
        rows = await self.db.report(
            "SELECT a.user_id AS user_id, COALESCE(p.name, '?') AS name, a.played AS played,"
            " a.won AS won, a.pf AS pf, a.pa AS pa, r.mu AS mu, r.sigma AS sigma,"
            " r.matches AS matches, r.streak AS streak FROM ("
            "   SELECT mp.user_id AS user_id, COUNT(*) AS played,"
            "   SUM(CASE WHEN m.winner_side = mp.side THEN 1 ELSE 0 END) AS won,"
            "   CAST(SUM(CASE WHEN mp.side = 0 THEN m.score0 ELSE m.score1 END) AS BIGINT) AS pf,"
            "   CAST(SUM(CASE WHEN mp.side = 0 THEN m.score1 ELSE m.score0 END) AS BIGINT) AS pa"
            "   FROM matches m JOIN match_players mp ON mp.game_id = m.game_id"
            f"  WHERE m.chat_id = ? AND {where}"
            "   GROUP BY mp.user_id) AS a"
            " LEFT JOIN players p ON p.user_id = a.user_id"
            " LEFT JOIN ratings r ON r.chat_id = ? AND r.user_id = a.user_id",
            chat_id,
            *args,
            chat_id,
        )
        return [
            Tally(
                r["user_id"], r["name"], r["played"], r["won"] or 0, r["pf"] or 0, r["pa"] or 0,
                None if r["mu"] is None
                else Rated(Rating(r["mu"], r["sigma"]), r["matches"], r["streak"] or 0),
            )
            for r in rows
        ]  # fmt: skip

    async def streaks(self, chat_id: int, counting: Counting) -> dict[int, int]:
        """Each player's current streak over the counted matches alone (+3: the last three
        won; -2: the last two lost): the run of their newest results that are all alike."""
        where, args = counted(counting)
        rows = await self.db.report(
            "SELECT user_id, won, COUNT(*) AS n FROM ("
            "  SELECT user_id, won,"
            "  ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ended_at DESC, game_id DESC)"
            "    AS k,"
            "  ROW_NUMBER() OVER (PARTITION BY user_id, won ORDER BY ended_at DESC, game_id DESC)"
            "    AS j"
            "  FROM (SELECT mp.user_id AS user_id, m.ended_at AS ended_at, m.game_id AS game_id,"
            "    CASE WHEN m.winner_side = mp.side THEN 1 ELSE 0 END AS won"
            "    FROM matches m JOIN match_players mp ON mp.game_id = m.game_id"
            f"   WHERE m.chat_id = ? AND {where}) AS results"
            ") AS numbered WHERE k = j GROUP BY user_id, won",
            chat_id,
            *args,
        )  # (k = j: the rows before the first result unlike the newest, the newest's run)
        return {int(r["user_id"]): int(r["n"]) * (1 if r["won"] else -1) for r in rows}

    async def pairs(self, chat_id: int, counting: Counting, size: int) -> list[Pair]:
        """The sides of `size` players who won most together, over the counted matches."""
        where, args = counted(counting)
        seats = [f"p{i}" for i in range(size)]
        joins = "".join(
            f" JOIN match_players {b} ON {b}.game_id = {a}.game_id AND {b}.side = {a}.side"
            f" AND {b}.user_id > {a}.user_id"
            for a, b in pairwise(seats)
        )
        names = "".join(f" LEFT JOIN players n{s} ON n{s}.user_id = {s}.user_id" for s in seats)
        chosen = ", ".join(f"COALESCE(n{s}.name, '?') AS {s}" for s in seats)
        ids = ", ".join(f"{s}.user_id" for s in seats)
        named = ", ".join(f"n{s}.name" for s in seats)
        rows = await self.db.report(
            f"SELECT {chosen}, COUNT(*) AS played,"
            " SUM(CASE WHEN m.winner_side = p0.side THEN 1 ELSE 0 END) AS won"
            f" FROM match_players p0{joins}"
            " JOIN matches m ON m.game_id = p0.game_id"
            f"{names}"
            f" WHERE m.chat_id = ? AND {where}"
            f" GROUP BY {ids}, {named}"
            f" ORDER BY won DESC, played ASC, {ids} LIMIT 10",
            chat_id,
            *args,
        )
        return [Pair(tuple(r[s] for s in seats), r["played"], r["won"] or 0) for r in rows]

    async def numbers(
        self, user_id: int, counting: Counting, chat_id: int | None = None
    ) -> PlayerNumbers:
        where, args = counted(counting)
        scope = " AND m.chat_id = ?" if chat_id is not None else ""
        args = [user_id, *args]
        if chat_id is not None:
            args.append(chat_id)
        sums = ", ".join(f"CAST(SUM(s.{name}) AS BIGINT) AS {name}" for name in STAT_NAMES)
        (row,) = await self.db.report(
            "SELECT COUNT(*) AS played, SUM(CASE WHEN m.winner_side = mp.side THEN 1 ELSE 0 END)"
            f" AS won, {sums},"
            " MAX(s.best_envido) AS top_envido"
            " FROM match_players mp JOIN matches m ON m.game_id = mp.game_id"
            " LEFT JOIN player_match_stats s ON s.game_id = mp.game_id AND s.user_id = mp.user_id"
            f" WHERE mp.user_id = ? AND {where}{scope}",
            *args,
        )
        partners = await self.db.report(
            "SELECT COALESCE(p.name, '?') AS name, COUNT(*) AS n FROM match_players mp"
            " JOIN match_players o ON o.game_id = mp.game_id AND o.side = mp.side"
            "   AND o.user_id != mp.user_id"
            " JOIN matches m ON m.game_id = mp.game_id"
            " LEFT JOIN players p ON p.user_id = o.user_id"
            f" WHERE mp.user_id = ? AND {where}{scope}"
            " GROUP BY o.user_id, p.name ORDER BY n DESC, o.user_id LIMIT 1",
            *args,
        )
        partner = partners[0] if partners else None
        totals = PlayerMatchStats(**{name: int(row[name] or 0) for name in STAT_NAMES})
        return PlayerNumbers(
            int(row["played"] or 0),
            int(row["won"] or 0),
            totals,
            int(row["top_envido"] or 0),
            partner["name"] if partner else None,
            int(partner["n"]) if partner else 0,
        )

    async def against_bots(
        self, user_id: int, counting: Counting, chat_id: int | None = None
    ) -> dict[str, tuple[int, int]]:
        """A player's record against computer players, by level: {level: (played, won)}."""
        where, args = counted(counting)
        scope = " AND m.chat_id = ?" if chat_id is not None else ""
        args = [user_id, *args]
        if chat_id is not None:
            args.append(chat_id)
        rows = await self.db.report(
            "SELECT bot, COUNT(*) AS played, SUM(won) AS won FROM ("
            "  SELECT m.game_id, MIN(b.user_id) AS bot,"
            "  MIN(CASE WHEN m.winner_side = mp.side THEN 1 ELSE 0 END) AS won"
            "  FROM match_players mp JOIN matches m ON m.game_id = mp.game_id"
            "  JOIN match_players b ON b.game_id = mp.game_id AND b.user_id < 0"
            "    AND b.side != mp.side"
            f" WHERE mp.user_id = ? AND {where}{scope}"
            "  GROUP BY m.game_id) AS per_game"
            " GROUP BY bot ORDER BY bot DESC",
            *args,
        )
        return {
            BOT_LEVELS[r["bot"]]: (int(r["played"]), int(r["won"] or 0))
            for r in rows
            if r["bot"] in BOT_LEVELS
        }

    async def rating_changes(self, game_id: int) -> list[RatingChange]:
        rows = await self.db.fetchall(
            "SELECT mp.user_id AS user_id, COALESCE(p.name, '?') AS name,"
            " mp.rating_before AS before, mp.rating_after AS after"
            " FROM match_players mp LEFT JOIN players p ON p.user_id = mp.user_id"
            " WHERE mp.game_id = ? AND mp.rating_after IS NOT NULL ORDER BY mp.seat",
            game_id,
        )
        return [RatingChange(r["user_id"], r["name"], r["before"], r["after"]) for r in rows]

"""League records and queries: standings, pairs, a player's numbers, rating changes."""

from __future__ import annotations

from itertools import pairwise

from bot.game.seats import SIDES, side_of
from bot.league.ratings import Rating, rate
from bot.league.stats import STAT_NAMES, match_stats
from bot.league.values import Pair, PlayerNumbers, RatingChange, Standing
from bot.model.table import BOT_LEVELS, Table
from bot.storage.db import Conn, Database

# Cancelled matches never count, nor matches with a computer player (practice), nor one where
# somebody asked for a hint (💡): used as `outcome IN {COUNTED}`, so it brings its own filters.
COUNTED = "('won', 'conceded') AND bots = 0 AND hinted = 0"
LOCK_RATINGS = 1  # Conn.lock space: a group's ratings


def _filters(players: int | None, since: float | None) -> tuple[str, list[object]]:
    sql, args = "", list[object]()
    if players is not None:
        sql += " AND m.players = ?"
        args.append(players)
    if since is not None:
        sql += " AND m.ended_at >= ?"
        args.append(since)
    return sql, args


async def record_league(conn: Conn, table: Table, winner_side: int) -> None:
    """Per-player stats from the action log, and new ratings; in the caller's transaction.
    A match with a computer player is practice: it moves nobody's numbers or rating; so is one
    where somebody asked for a hint (💡)."""
    if table.bot_seats or table.hinted:
        return
    rows = await conn.fetchall(
        "SELECT code FROM actions WHERE game_id = ? ORDER BY seq", (table.id,)
    )
    stats = match_stats(table.config, [r[0] for r in rows])
    seated = [(seat, user) for seat, user in enumerate(table.seats) if user is not None]
    await conn.executemany(
        f"INSERT INTO player_match_stats (game_id, user_id, {', '.join(STAT_NAMES)})"
        f" VALUES (?, ?{', ?' * len(STAT_NAMES)}) ON CONFLICT DO NOTHING",
        [(table.id, user, *stats[seat].as_row()) for seat, user in seated],
    )
    await rate_match(conn, table.chat_id, table.id, seated, winner_side)


async def rate_match(
    conn: Conn,
    chat_id: int,
    game_id: int,
    seated: list[tuple[int, int]],
    winner_side: int,
) -> None:
    await conn.lock(LOCK_RATINGS, chat_id)  # ratings are read, then written: one match at a time
    users = [user for _, user in seated]
    marks = ",".join("?" * len(users))
    rows = await conn.fetchall(
        "SELECT user_id, mu, sigma, matches, streak FROM ratings"
        f" WHERE chat_id = ? AND user_id IN ({marks})",
        (chat_id, *users),
    )
    known = {r[0]: (Rating(r[1], r[2]), r[3]) for r in rows}
    streaks = {r[0]: r[4] for r in rows}
    sides = [[u for s, u in seated if side_of(s) == side] for side in SIDES]
    before = [[known.get(u, (Rating(), 0))[0] for u in side] for side in sides]
    after = rate(before, winner_side)
    for side in SIDES:
        for user, old, new in zip(sides[side], before[side], after[side], strict=True):
            count = known.get(user, (Rating(), 0))[1] + 1
            streak = _next_streak(streaks.get(user, 0), side == winner_side)
            await conn.execute(
                "INSERT INTO ratings (chat_id, user_id, mu, sigma, matches, streak)"
                " VALUES (?, ?, ?, ?, ?, ?)"
                " ON CONFLICT (chat_id, user_id) DO UPDATE SET mu = excluded.mu,"
                " sigma = excluded.sigma, matches = excluded.matches, streak = excluded.streak",
                (chat_id, user, new.mu, new.sigma, count, streak),
            )
            await conn.execute(
                "UPDATE match_players SET rating_before = ?, rating_after = ?"
                " WHERE game_id = ? AND user_id = ?",
                (old.shown, new.shown, game_id, user),
            )


def _next_streak(streak: int, won: bool) -> int:
    """+3 is three wins in a row, -2 two losses in a row."""
    if won:
        return streak + 1 if streak > 0 else 1
    return streak - 1 if streak < 0 else -1


class League:
    def __init__(self, db: Database) -> None:
        self.db = db

    async def standings(
        self, chat_id: int, players: int | None = None, since: float | None = None
    ) -> list[Standing]:
        """Sorted by rating. The streak is the group's current one, whatever the filter."""
        where, args = _filters(players, since)
        rows = await self.db.report(
            "SELECT a.user_id AS user_id, COALESCE(p.name, '?') AS name, a.played AS played,"
            " a.won AS won, a.pf AS pf, a.pa AS pa, r.mu AS mu, r.sigma AS sigma,"
            " r.streak AS streak FROM ("
            "   SELECT mp.user_id AS user_id, COUNT(*) AS played,"
            "   SUM(CASE WHEN m.winner_side = mp.side THEN 1 ELSE 0 END) AS won,"
            "   CAST(SUM(CASE WHEN mp.side = 0 THEN m.score0 ELSE m.score1 END) AS BIGINT) AS pf,"
            "   CAST(SUM(CASE WHEN mp.side = 0 THEN m.score1 ELSE m.score0 END) AS BIGINT) AS pa"
            "   FROM matches m JOIN match_players mp ON mp.game_id = m.game_id"
            f"  WHERE m.chat_id = ? AND m.outcome IN {COUNTED}{where}"
            "   GROUP BY mp.user_id) AS a"
            " LEFT JOIN players p ON p.user_id = a.user_id"
            " LEFT JOIN ratings r ON r.chat_id = ? AND r.user_id = a.user_id",
            chat_id,
            *args,
            chat_id,
        )
        result = []
        for row in rows:
            rating = Rating(row["mu"], row["sigma"]) if row["mu"] is not None else Rating()
            result.append(
                Standing(
                    row["user_id"], row["name"], row["played"], row["won"] or 0,
                    row["pf"] or 0, row["pa"] or 0, rating.shown, row["streak"] or 0,
                )
            )  # fmt: skip
        result.sort(key=lambda s: (-s.rating, -s.won, s.played, s.user_id))
        return result

    async def pairs(self, chat_id: int, players: int = 4, since: float | None = None) -> list[Pair]:
        """The sides who won most together: partners in 2v2, trios in 3v3 (all modes: the
        pairs of any side)."""
        where, args = _filters(players, since)
        size = 3 if players == 6 else 2
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
            f" WHERE m.chat_id = ? AND m.outcome IN {COUNTED}{where}"
            f" GROUP BY {ids}, {named}"
            f" ORDER BY won DESC, played ASC, {ids} LIMIT 10",
            chat_id,
            *args,
        )
        return [Pair(tuple(r[s] for s in seats), r["played"], r["won"] or 0) for r in rows]

    async def numbers(self, user_id: int, chat_id: int | None = None) -> PlayerNumbers:
        scope = " AND m.chat_id = ?" if chat_id is not None else ""
        args: list[object] = [user_id]
        if chat_id is not None:
            args.append(chat_id)
        sums = ", ".join(f"CAST(SUM(s.{name}) AS BIGINT) AS {name}" for name in STAT_NAMES)
        (row,) = await self.db.report(
            "SELECT COUNT(*) AS played, SUM(CASE WHEN m.winner_side = mp.side THEN 1 ELSE 0 END)"
            f" AS won, {sums},"
            " MAX(s.best_envido) AS top_envido"
            " FROM match_players mp JOIN matches m ON m.game_id = mp.game_id"
            " LEFT JOIN player_match_stats s ON s.game_id = mp.game_id AND s.user_id = mp.user_id"
            f" WHERE mp.user_id = ? AND m.outcome IN {COUNTED}{scope}",
            *args,
        )
        partners = await self.db.report(
            "SELECT COALESCE(p.name, '?') AS name, COUNT(*) AS n FROM match_players mp"
            " JOIN match_players o ON o.game_id = mp.game_id AND o.side = mp.side"
            "   AND o.user_id != mp.user_id"
            " JOIN matches m ON m.game_id = mp.game_id"
            " LEFT JOIN players p ON p.user_id = o.user_id"
            f" WHERE mp.user_id = ? AND m.outcome IN {COUNTED}{scope}"
            " GROUP BY o.user_id, p.name ORDER BY n DESC, o.user_id LIMIT 1",
            *args,
        )
        partner = partners[0] if partners else None
        totals = {name: int(row[name] or 0) for name in STAT_NAMES}
        return PlayerNumbers(
            int(row["played"] or 0),
            int(row["won"] or 0),
            totals,
            int(row["top_envido"] or 0),
            partner["name"] if partner else None,
            int(partner["n"]) if partner else 0,
        )

    async def against_bots(
        self, user_id: int, chat_id: int | None = None
    ) -> dict[str, tuple[int, int]]:
        """A player's record against computer players, by level: {level: (played, won)}."""
        scope = " AND m.chat_id = ?" if chat_id is not None else ""
        args: list[object] = [user_id]
        if chat_id is not None:
            args.append(chat_id)
        rows = await self.db.report(
            "SELECT bot, COUNT(*) AS played, SUM(won) AS won FROM ("
            "  SELECT m.game_id, MIN(b.user_id) AS bot,"
            "  MIN(CASE WHEN m.winner_side = mp.side THEN 1 ELSE 0 END) AS won"
            "  FROM match_players mp JOIN matches m ON m.game_id = mp.game_id"
            "  JOIN match_players b ON b.game_id = mp.game_id AND b.user_id < 0"
            "    AND b.side != mp.side"
            f" WHERE mp.user_id = ? AND m.outcome IN ('won', 'conceded'){scope}"
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

    async def rebuild_ratings(self, chat_id: int) -> None:
        """Recompute a group's ratings from its match records alone, oldest first."""
        async with self.db.transaction() as conn:
            await conn.execute("DELETE FROM ratings WHERE chat_id = ?", (chat_id,))
            games = await conn.fetchall(
                "SELECT game_id, winner_side FROM matches"
                f" WHERE chat_id = ? AND outcome IN {COUNTED} AND winner_side IS NOT NULL"
                " ORDER BY ended_at, game_id",
                (chat_id,),
            )
            for game_id, winner in games:
                seated = await conn.fetchall(
                    "SELECT seat, user_id FROM match_players WHERE game_id = ? ORDER BY seat",
                    (game_id,),
                )
                await rate_match(conn, chat_id, game_id, [(s, u) for s, u in seated], winner)

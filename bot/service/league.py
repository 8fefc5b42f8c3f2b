"""The league's policy and its arithmetic, written once: which finished matches count for /tabla,
/yo and the ratings, and what a counted match changes (each seat's stats from the action log,
new ratings and streaks). The storage reads and writes the rows, and filters by the `Counting`
given here; it decides nothing."""

from __future__ import annotations

from bot.game.seats import SIDES, side_of
from bot.league import ratings
from bot.league.stats import match_stats
from bot.model.outcome import Outcome
from bot.model.records import DECIDED, Counting
from bot.model.table import Table
from bot.storage import league as rows
from bot.storage.db import Conn, Database

# What counts for the league: a match somebody won (on the score, by a concession, timeouts or
# a walkover; never a cancelled one), with no computer player (that is practice) and where
# nobody asked for a hint (💡).
COUNTED = Counting(DECIDED, bots=False, hinted=False)
# A person's record against computer players: every match somebody won, hints or not (the
# reading itself takes only the matches with a computer player on the other side).
AGAINST_BOTS = Counting(DECIDED)
# /historial: every finished match but the cancelled ones, practice and hints included.
LISTED = Counting(DECIDED)


def counts(table: Table, credited: Outcome, at: float) -> bool:
    """Whether the league counts this table's match, its result `credited` at `at`: `COUNTED`
    asked of the table (the same decision the storage's filter makes of the match's record)."""
    return COUNTED.takes(
        credited.termination, len(table.bot_seats), bool(table.hinted), table.config.players, at
    )


async def record_league(conn: Conn, table: Table, credited: Outcome, at: float) -> None:
    """A match the league counts, its result `credited`, in the caller's transaction: per-player
    stats from the action log, and new ratings. Practice and hinted matches move nobody's
    numbers or rating, nor does a cancelled one."""
    if not counts(table, credited, at) or credited.winner is None:
        return
    winner_side = credited.winner
    stats = match_stats(table.config, await rows.match_log(conn, table.id))
    seated = [(seat, user) for seat, user in enumerate(table.seats) if user is not None]
    await rows.save_stats(conn, table.id, [(user, stats[seat]) for seat, user in seated])
    await rate_match(conn, table.chat_id, table.id, seated, winner_side)


async def rate_match(
    conn: Conn, chat_id: int, game_id: int, seated: list[tuple[int, int]], winner_side: int
) -> None:
    """The group's ratings of the players `seated` ((seat, user id)) after a match."""
    known = await rows.ratings_of(conn, chat_id, [user for _, user in seated])
    sides = [[u for s, u in seated if side_of(s) == side] for side in SIDES]
    await rows.save_ratings(conn, chat_id, game_id, ratings.rate_sides(sides, known, winner_side))


async def rebuild_ratings(db: Database, chat_id: int) -> None:
    """Recompute a group's ratings from its counted match records alone, oldest first."""
    async with db.transaction() as conn:
        await rows.clear_ratings(conn, chat_id)
        for game_id, winner in await rows.won_matches(conn, chat_id, COUNTED):
            await rate_match(conn, chat_id, game_id, await rows.seated(conn, game_id), winner)

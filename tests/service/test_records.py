"""The storage's records of finished matches as typed values: a database made by the schema
before `matches.outcome` was dropped reads the same records once migrated, and the league counts
exactly the matches it always counted (the core's `Counting`, filtered by the storage)."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from bot.core import Core
from bot.game import MatchConfig
from bot.model.outcome import Outcome, Termination
from bot.model.records import DECIDED, Counting, MatchRecord
from bot.model.table import BOT_IDS, Table, TableStatus
from bot.service.league import COUNTED, record_league
from bot.storage.connect import open_database
from bot.storage.migrations import MIGRATIONS
from bot.storage.repo import Store
from tests.olddb import database_before

CHAT = -77
ANA, BETO = 1, 2
BOT = BOT_IDS["normal"]

# Rows as the schema before the last migration kept them: (game_id, outcome, termination,
# winner_side, score0, score1, bots, hinted, the second seat). A NULL termination is a record
# written before `termination` existed (its old word is all it has).
OLD_ROWS = [
    (1, "won", None, 0, 15, 7, 0, 0, BETO),
    (2, "conceded", None, 1, 3, 4, 0, 0, BETO),
    (3, "cancelled", None, None, 2, 2, 0, 0, BETO),
    (4, "conceded", "timeouts", 0, 9, 1, 0, 0, BETO),
    (5, "conceded", "walkover", 1, 0, 0, 0, 0, BETO),
    (6, "won", "target", 1, 5, 15, 0, 1, BETO),  # somebody asked for a hint
    (7, "won", "target", 0, 15, 0, 1, 0, BOT),  # practice against a computer player
    (8, "cancelled", "cancelled", None, 0, 0, 0, 0, BETO),
    (9, "conceded", "concession", 0, 6, 6, 0, 0, BETO),
]


def _old_shape_inserts() -> list[tuple[str, tuple[object, ...]]]:
    statements: list[tuple[str, tuple[object, ...]]] = [
        ("INSERT INTO players (user_id, name, updated_at) VALUES (?, ?, 0)", (ANA, "Ana")),
        ("INSERT INTO players (user_id, name, updated_at) VALUES (?, ?, 0)", (BETO, "Beto")),
    ]
    for game, outcome, termination, winner, s0, s1, bots, hinted, rival in OLD_ROWS:
        statements += [
            (
                "INSERT INTO games (id, chat_id, status, opener_id, config, language,"
                " created_at, updated_at) VALUES (?, ?, ?, ?, '{}', 'es', ?, ?)",
                (game, CHAT, "cancelled" if winner is None else "finished", ANA, game, game),
            ),
            (
                "INSERT INTO matches (game_id, chat_id, players, target, flor, house_rule,"
                " outcome, winner_side, score0, score1, hands, started_at, ended_at, bots,"
                " termination, hinted) VALUES (?, ?, 2, 15, 1, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game,
                    CHAT,
                    outcome,
                    winner,
                    s0,
                    s1,
                    game + 2,
                    game * 100.0,
                    game * 100.0 + 60,
                    bots,
                    termination,
                    hinted,
                ),
            ),
            (
                "INSERT INTO match_players (game_id, seat, user_id, side) VALUES (?, 0, ?, 0),"
                " (?, 1, ?, 1)",
                (game, ANA, game, rival),
            ),
        ]
    return statements


# the migration that leaves `matches.outcome` for `termination` (later ones come after it)
DROPS_OUTCOME = next(
    i for i, m in enumerate(MIGRATIONS) if isinstance(m, str) and "DROP COLUMN outcome" in m
)


async def old_database(target: Path | str) -> None:
    """A database at the schema before the migration that dropped `matches.outcome`, with
    records in its shape."""
    await database_before(target, DROPS_OUTCOME, list(_old_shape_inserts()))


def expected(game: int) -> MatchRecord:
    """What the old row `game` says, in the one vocabulary."""
    _, outcome, termination, winner, s0, s1, bots, hinted, _ = OLD_ROWS[game - 1]
    words = {"won": "target", "conceded": "concession", "cancelled": "cancelled"}
    return MatchRecord(
        table_id=game, chat_id=CHAT, players=2, target=15, flor=True, house_rule=False,
        termination=Termination(termination or words[outcome]), winner=winner, scores=(s0, s1),
        hands=game + 2, started_at=game * 100.0, ended_at=game * 100.0 + 60, bots=bots,
        hinted=bool(hinted),
    )  # fmt: skip


@pytest.mark.postgresql
async def test_a_database_of_the_old_schema_reads_the_same_records(
    db_target: Path | str,
) -> None:
    await old_database(db_target)
    db = await open_database(db_target)  # migrates
    try:
        core = Core.build(Store(db), seed=1)
        for game, outcome, *_ in OLD_ROWS:
            record = await core.history.record(game)
            assert record == expected(game)
            # What /historial marked "conceded" it marks still, and only that.
            assert record is not None and record.conceded == (outcome == "conceded")
            assert (record.winner is None) == (outcome == "cancelled")
        # /historial: every finished match but the cancelled ones, newest first.
        listed = await core.history.recent(CHAT, 20)
        assert [r.table_id for r in listed] == [9, 7, 6, 5, 4, 2, 1]
        # /tabla: what `outcome IN ('won', 'conceded') AND bots = 0 AND hinted = 0` took.
        counted = [1, 2, 4, 5, 9]
        standings = {s.user_id: s for s in await core.history.standings(CHAT)}
        assert set(standings) == {ANA, BETO}
        won = {ANA: sum(OLD_ROWS[g - 1][3] == 0 for g in counted)}
        assert (standings[ANA].played, standings[ANA].won) == (len(counted), won[ANA])
        assert standings[BETO].played == len(counted)
        assert standings[ANA].points_for == sum(OLD_ROWS[g - 1][4] for g in counted)
        assert await core.history.against_bots(ANA) == {"normal": (1, 1)}
        # The column is gone: one vocabulary, and new records are written in it.
        columns = await db.fetchone("SELECT * FROM matches WHERE game_id = 1")
        assert columns is not None and "outcome" not in dict(columns)
    finally:
        await db.close()


def _table(game: int, seats: list[int], hinted: list[int]) -> Table:
    return Table(
        id=game, chat_id=CHAT, thread_id=0, status=TableStatus.FINISHED, opener_id=ANA,
        config=MatchConfig(players=2, target=15), seats=seats, language="es",
        created_at=game, updated_at=game, started_at=game, ended_at=game, hinted=hinted,
    )  # fmt: skip


OUTCOMES = {
    Termination.TARGET: Outcome.reached(0, (15, 4)),
    Termination.CONCESSION: Outcome.left(1, (3, 2)),
    Termination.TIMEOUTS: Outcome.left(1, (1, 0), timed_out=True),
    Termination.WALKOVER: Outcome.walkover(1, (0, 0)),
    Termination.CANCELLED: Outcome.cancelled((2, 2)),
}


@pytest.mark.postgresql
async def test_the_league_counts_what_it_always_counted(db_target: Path | str) -> None:
    """Every way a match ends, with and without a computer player, with and without a hint,
    recorded as the commit records it: /tabla, the ratings and /yo count a match somebody won
    (on the score, by a concession, timeouts or a walkover) with no bot and no hint, and
    nothing else; /historial lists all but the cancelled ones."""
    db = await open_database(db_target)
    try:
        store = Store(db)
        core = Core.build(store, seed=1)
        async with db.transaction() as conn:
            await store.upsert_player(conn, ANA, "Ana", None, 0)
            await store.upsert_player(conn, BETO, "Beto", None, 0)
        kinds = list(itertools.product(OUTCOMES, (False, True), (False, True)))
        for number, (how, bot, hinted) in enumerate(kinds, start=1):
            table = _table(number, [ANA, BOT if bot else BETO], [ANA] if hinted else [])
            async with db.transaction() as conn:
                table.id = await store.insert_table(conn, table)
                assert await store.record_match(conn, table, OUTCOMES[how], number)
                await record_league(conn, table, OUTCOMES[how], number)
        counted = [n for n, (how, bot, hinted) in enumerate(kinds, 1)
                   if how is not Termination.CANCELLED and not bot and not hinted]  # fmt: skip
        assert len(counted) == 4  # the target, a concession, timeouts, a walkover
        (ana, beto) = await core.history.standings(CHAT)
        assert (ana.user_id, ana.played, ana.won) == (ANA, 4, 4)
        assert (beto.user_id, beto.played, beto.won, beto.streak) == (BETO, 4, 0, -4)
        assert ana.points_for == sum(OUTCOMES[kinds[n - 1][0]].scores[0] for n in counted)
        rated = await db.fetchall("SELECT user_id, matches FROM ratings ORDER BY user_id")
        assert [(r["user_id"], r["matches"]) for r in rated] == [(ANA, 4), (BETO, 4)]
        changes = {n for n in range(1, len(kinds) + 1) if await core.history.rating_changes(n)}
        assert changes == set(counted)
        assert (await core.history.numbers(ANA)).played == 4
        assert await core.history.against_bots(ANA) == {"normal": (8, 8)}
        listed = await core.history.recent(CHAT, 100)
        assert sorted(r.table_id for r in listed) == [
            n for n, (how, _, _) in enumerate(kinds, 1) if how is not Termination.CANCELLED
        ]
        hinted_conceded = kinds.index((Termination.CONCESSION, False, True)) + 1
        record = await core.history.record(hinted_conceded)
        assert record is not None and record.conceded and record.hinted and record.winner == 0
        assert not COUNTED.takes_record(record)
        # Rebuilt from the records alone, the ratings are the same.
        before = await core.history.standings(CHAT)
        await core.history.rebuild_ratings(CHAT)
        assert await core.history.standings(CHAT) == before
    finally:
        await db.close()


@pytest.mark.postgresql
async def test_the_storage_filters_by_exactly_the_counting_it_is_given(
    db_target: Path | str,
) -> None:
    """Any `Counting`: the records the storage returns for it are the ones its own `takes`
    keeps of all of them (the SQL and the Python say one decision)."""
    db = await open_database(db_target)
    try:
        store = Store(db)
        rng = random.Random(5)
        for number in range(1, 61):
            how = rng.choice(list(OUTCOMES))
            bot, hinted = rng.random() < 0.3, rng.random() < 0.3
            table = _table(number, [ANA, BOT if bot else BETO], [ANA] if hinted else [])
            if rng.random() < 0.5:
                table.config = MatchConfig(players=4, target=15)
                table.seats = [ANA, BETO, 3, BOT if bot else 4]
            async with db.transaction() as conn:
                table.id = await store.insert_table(conn, table)
                await store.record_match(conn, table, OUTCOMES[how], float(number))
        every = await store.recent_matches(CHAT, Counting(frozenset(Termination)), 1000)
        assert len(every) == 60
        for _ in range(40):
            counting = Counting(
                frozenset(t for t in Termination if rng.random() < 0.6),
                bots=rng.choice((None, False, True)),
                hinted=rng.choice((None, False, True)),
                players=rng.choice((None, 2, 4)),
                since=rng.choice((None, 30.0)),
            )
            got = await store.recent_matches(CHAT, counting, 1000)
            assert got == [r for r in every if counting.takes_record(r)]
        assert frozenset(Termination) - {Termination.CANCELLED} == DECIDED
    finally:
        await db.close()

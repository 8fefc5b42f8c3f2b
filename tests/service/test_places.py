"""A table's kind of place and its computer players as columns: a database written before they
were (a practice known by its chat, a computer player by a '-' in the seats' JSON) reads the
same tables once migrated, and plays on."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import codec
from bot.core import Core
from bot.game import MatchConfig
from bot.model.table import BOT_IDS, PlaceKind, TableStatus
from bot.storage.connect import open_database
from bot.storage.migrations import MIGRATIONS
from bot.storage.repo import Store
from tests.olddb import database_before

CHAT = -77
ANA, BETO, CARLA, DANI = 1, 2, 3, 4
BOT = BOT_IDS["normal"]

# the migration that adds `games.place` and `games.computers` (later ones come after it)
PLACES = next(
    i for i, m in enumerate(MIGRATIONS) if isinstance(m, tuple) and "ADD COLUMN computers" in m[0]
)

# (id, chat, opener, status, seats, updated_at) as the schema before it kept them
OLD_GAMES = [
    (1, ANA, ANA, "lobby", [ANA, None], 900.0),  # a practice's lobby
    (2, CHAT, BETO, "playing", [BETO, BOT], 10.0),  # a group's match, its bot not moved since
    (3, CHAT - 1, CARLA, "playing", [CARLA, DANI], 10.0),  # people only: nothing for the sweep
    (4, ANA, ANA, "finished", [ANA, BOT_IDS["dificil"]], 10.0),  # a practice played
    (5, CHAT, BETO, "finished", [BOT, BETO], 10.0),
]


async def _before_places(target: Path | str) -> None:
    insert = (
        "INSERT INTO games (id, chat_id, status, opener_id, config, seats, language,"
        " created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'es', ?, ?)"
    )
    config = codec.dumps(MatchConfig(players=2, target=15).options())
    values = [
        (game, chat, status, opener, config, codec.dumps(seats), 5.0, updated)
        for game, chat, opener, status, seats, updated in OLD_GAMES
    ]
    await database_before(
        target,
        PLACES,
        [(insert, value) for value in values],
        ["SELECT setval('games_id_seq', 5)"],
    )


@pytest.mark.postgresql
async def test_an_older_database_knows_its_practices_and_computer_players(
    db_target: Path | str,
) -> None:
    await _before_places(db_target)
    db = await open_database(db_target)  # migrates
    try:
        store = Store(db)
        places = {}
        for game, *_ in OLD_GAMES:
            table = await store.table(game)
            assert table is not None
            places[game] = table.place
        assert places == {
            1: PlaceKind.PRACTICE, 2: PlaceKind.GROUP, 3: PlaceKind.GROUP,
            4: PlaceKind.PRACTICE, 5: PlaceKind.GROUP,
        }  # fmt: skip
        rows = await db.fetchall("SELECT id, computers FROM games ORDER BY id")
        assert [(r["id"], r["computers"]) for r in rows] == [(1, 0), (2, 1), (3, 0), (4, 1), (5, 1)]
        # The sweep finds the match whose computer player nobody moved, and no other.
        due = await store.due_tables(1000.0, lobby_seconds=10_000.0, stalled=60.0)
        assert [t.id for t in due] == [2]
        # The practice's lobby plays on: a computer player fills it, the match starts, still a
        # practice, and the sweep would now find it once stalled.
        core = Core.build(store, seed=1, clock=lambda: 1000.0)
        await core.lobby.add_bot(1, ANA, None)
        table = await store.table(1)
        assert table is not None and table.status is TableStatus.PLAYING and table.practice
        due = await store.due_tables(2000.0, lobby_seconds=10_000.0, stalled=60.0)
        assert [t.id for t in due] == [1, 2]
    finally:
        await db.close()

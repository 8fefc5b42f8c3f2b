"""The try-out has its own kind of place and of person, recorded with them: a database the
try-out wrote before they were (its tables in group -1, its people with ids drawn in
[2**52, 2**53)) knows them once migrated, and its tables play on; a new try-out person's id is
the database's next, and known as the try-out's by their kind."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bot import codec
from bot.core import Core
from bot.game import MatchConfig
from bot.model.occupants import PersonKind
from bot.model.table import BOT_IDS, PlaceKind, TableStatus
from bot.storage.connect import open_database
from bot.storage.migrations import MIGRATIONS
from bot.storage.repo import Store
from bot.web.auth import LOCAL_CHAT
from tests.conftest import harness_with
from tests.e2e.test_web import call, launch
from tests.fakebot import FakeTelegram
from tests.olddb import database_before
from tests.web.test_local_restart import browser, get, login
from tests.web.test_tourney_page import serving

OLD_ROOM = -1  # where the try-out seated its tables before it had a kind of place
ANA, BETO = 2**52 + 7_093_311, 2**52 + 901  # try-out people, their ids drawn at random then
CARLA = 5_551_234  # a Telegram person in the same database
BOT = BOT_IDS["facil"]

# the migration that gives the try-out its kinds (later ones come after it)
KINDS = next(
    i for i, m in enumerate(MIGRATIONS) if "'tryout'" in (m if isinstance(m, str) else m[0])
)

# (id, chat, opener, status, seats) as the schema before it kept them
OLD_GAMES = [
    (1, OLD_ROOM, ANA, "lobby", [ANA, None]),  # Ana waits for a friend
    (2, OLD_ROOM, BETO, "finished", [BETO, BOT]),
    (3, -77, CARLA, "lobby", [CARLA, None]),  # a group's
    (4, CARLA, CARLA, "lobby", [CARLA, None]),  # a practice
]


async def _before_kinds(target: Path | str) -> None:
    config = codec.dumps(MatchConfig(players=2, target=15, flor=False).options())
    insert = (
        "INSERT INTO games (id, chat_id, status, opener_id, config, seats, language,"
        " created_at, updated_at, place, computers) VALUES (?, ?, ?, ?, ?, ?, 'es', ?, ?, ?, ?)"
    )
    now = time.time()  # (a lobby left a while ago would have expired)
    rows = [
        (insert, (game, chat, status, opener, config, codec.dumps(seats), now, now,
                  "practice" if chat == opener else "group", seats.count(BOT)))
        for game, chat, opener, status, seats in OLD_GAMES
    ]  # fmt: skip
    person = "INSERT INTO players (user_id, name, updated_at) VALUES (?, ?, 5.0)"
    rows += [(person, (user, name)) for user, name in ((ANA, "Ana"), (BETO, "Beto"),
                                                        (CARLA, "Carla"))]  # fmt: skip
    await database_before(target, KINDS, rows, ["SELECT setval('games_id_seq', 4)"])


@pytest.mark.postgresql
async def test_an_old_tryout_database_knows_its_places_and_people(db_target: Path | str) -> None:
    await _before_kinds(db_target)
    db = await open_database(db_target)  # migrates
    try:
        store = Store(db)
        places = {}
        for game, *_ in OLD_GAMES:
            table = await store.table(game)
            assert table is not None
            places[game] = table.place
        assert places == {
            1: PlaceKind.TRYOUT, 2: PlaceKind.TRYOUT, 3: PlaceKind.GROUP, 4: PlaceKind.PRACTICE
        }
        known = await store.players([ANA, BETO, CARLA])
        assert {u: p.kind for u, p in known.items()} == {
            ANA: PersonKind.TRYOUT, BETO: PersonKind.TRYOUT, CARLA: PersonKind.TELEGRAM
        }
        # A new try-out person: the database's next id of the kind, never one it holds.
        core = Core.build(store, seed=1)
        dani = await core.people.new_person("Dani", PersonKind.TRYOUT)
        assert dani == ANA + 1
        assert (await store.players([dani]))[dani].kind is PersonKind.TRYOUT
        # Ana's lobby plays on: Dani sits, the match starts, still the try-out's.
        await core.lobby.join(1, dani)
        table = await store.table(1)
        assert table is not None and table.status is TableStatus.PLAYING
        assert table.place is PlaceKind.TRYOUT and table.seats == [ANA, dani]
    finally:
        await db.close()


async def test_an_old_tryout_lobby_is_listed_joined_and_played_after_the_upgrade(
    tmp_path: Path,
) -> None:
    """Through the local server: the lobby an old session left is listed, a new person takes
    its seat and gets a hand; each login is a person of the try-out's kind, numbered in turn."""
    path = tmp_path / "local.db"
    await _before_kinds(path)
    async with serving(path) as url, browser() as eva, browser() as fede:
        me = await login(eva, url, "Eva")
        assert me["user_id"] == ANA + 1
        status, listed = await get(eva, f"{url}/api/local/tables")
        assert status == 200 and [t["id"] for t in listed["tables"]] == [1], listed
        async with eva.post(f"{url}/api/table/1/join", json={}) as r:
            assert r.status == 200, await r.text()
        status, view = await get(eva, f"{url}/api/table/1")
        assert status == 200 and view["seat"] == 1 and len(view["hand"]) == 3, view
        assert (await login(fede, url, "Fede"))["user_id"] == ANA + 2
        # A new table of the try-out is the try-out's kind of place.
        async with fede.post(f"{url}/api/local/new", json={"level": "facil"}) as r:
            assert r.status == 200, await r.text()
            opened = (await r.json())["table"]
    db = await open_database(path)
    try:
        store = Store(db)
        table = await store.table(opened)
        assert table is not None and table.place is PlaceKind.TRYOUT
        known = await store.players([ANA + 1, ANA + 2])
        assert {p.kind for p in known.values()} == {PersonKind.TRYOUT} and len(known) == 2
    finally:
        await db.close()


async def test_the_telegram_bot_never_writes_or_asks_about_the_tryout(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The Telegram bot serving a database that holds a try-out match, played to its end: no
    Bot API call goes to the try-out's room or its people (its planner writes no row for the
    table), and a Mini App's viewer who asks for the table is refused without Telegram being
    asked whether they are in a group."""
    async with harness_with(
        fake, tmp_path / "both.db", webapp_url="https://x.invalid/t", webapp_name="mesa",
        web_port=0,
    ) as h:  # fmt: skip
        core = h.services.core
        ana = await core.people.new_person("Ana", PersonKind.TRYOUT)
        beto = await core.people.new_person("Beto", PersonKind.TRYOUT)
        config = MatchConfig(players=2, target=15, flor=False)
        table = await core.lobby.open(
            LOCAL_CHAT, 1, ana, config, "es", seat_opener=True, place=PlaceKind.TRYOUT
        )
        await core.lobby.join(table.id, beto)
        while True:
            found = await core.tables.get(table.id)
            assert found is not None and found.state is not None
            if found.state.is_over:
                break
            action = found.state.legal_actions()[0]
            user = found.seats[action.seat]
            assert user is not None
            await core.play.act(table.id, user, found.state.step, action.kind, action.card)
        juan = h.user(2, "Juan")
        code, answer = await call(h, "GET", f"/api/table/{table.id}", launch(h, juan))
        assert code == 403, answer
        await h.settle()
        assert [c for c in fake.calls if c[2] in (LOCAL_CHAT, ana, beto)] == []
        assert [c for c in fake.calls if c[1] == "getChatMember"] == []

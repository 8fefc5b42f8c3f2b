"""🔁 Revancha keeps the table: the same people and the same computer players (names, levels,
characters) in the same seats, through the core (SQLite and PostgreSQL) and through the web
route, a rematch of a rematch too (issue 48: "revancha against Mirta seats Beba")."""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest

from bot.ai.characters import character_of
from bot.core import Core
from bot.game import MatchConfig
from bot.i18n import translator
from bot.model.table import BOT_IDS, Table, TableStatus
from bot.service.changes import Refusal
from bot.storage.connect import open_database
from bot.storage.repo import Store
from bot.views.common import seating_at
from bot.web.auth import LocalAuth
from bot.web.hub import Hub
from bot.web.server import WebTable, serve
from tests.waiting import until_async
from tests.web.conftest import local_settings

CHAT = -1001


def who_sits(table: Table, names: dict[int, str]) -> list[tuple[int | None, str, str | None]]:
    """Each seat: who (a person's id or a computer player's), the name shown, the character."""
    shown = seating_at(translator(table.language), table, names).names
    return [
        (user, shown[seat], character_of(table.lineage, seat).value if user and user < 0 else None)
        for seat, user in enumerate(table.seats)
    ]


async def finish(core: Core, table_id: int, seed: int) -> Table:
    """The match played to its end: people and computer players alike pick at random."""
    rng = random.Random(seed)
    while True:
        table = await core.tables.get(table_id)
        assert table is not None and table.state is not None
        state = table.state
        if state.is_over:
            assert table.status is TableStatus.FINISHED
            return table
        action = rng.choice(state.legal_actions())
        user = table.seats[action.seat]
        assert user is not None
        if user < 0:
            await core.play.bot_act(table_id, action.seat, state.step, action)
        else:
            await core.play.act(table_id, user, state.step, action.kind, action.card)


@pytest.mark.postgresql
async def test_a_rematch_through_the_core_keeps_every_seat(db_target: Path | str) -> None:
    """3v3: Ana and Beto with a computer partner against three computer players. Each
    rematch, twice over, seats the same people and computer players where they were, named
    and characterised as they were."""
    core = Core.build(Store(await open_database(db_target)), seed=5)
    try:
        await core.people.see(1, "Ana", None)
        await core.people.see(2, "Beto", None)
        config = MatchConfig(players=6, target=15, flor=False)
        table = await core.lobby.open(CHAT, 0, 1, config, "es", seat_opener=True)
        await core.lobby.join(table.id, 2, 0)
        for team in (1, 1, 1, 0):
            await core.lobby.add_bot(table.id, 1, team, "dificil")
        old = await finish(core, table.id, seed=1)
        before = who_sits(old, await core.people.at(old))
        assert {user for user, _, _ in before} == {1, 2, BOT_IDS["dificil"]}
        for generation in range(2):
            await core.lobby.rematch(old.id, 2)  # Beto asks first: he sits where he sat
            lobby = await core.tables.table_in(CHAT, 0)
            assert lobby is not None and lobby.status is TableStatus.LOBBY
            assert lobby.seats == [u if u != 1 else None for u in old.seats]
            await core.lobby.rematch(old.id, 1)  # Ana's tap takes her seat: the match starts
            new = await core.tables.get(lobby.id)
            assert new is not None and new.status is TableStatus.PLAYING
            assert new.id != old.id and new.seats == old.seats, generation
            assert who_sits(new, await core.people.at(new)) == before, generation
            old = await finish(core, new.id, seed=2 + generation)
    finally:
        await core.close()


@pytest.fixture
async def local(tmp_path: Path) -> AsyncIterator[tuple[str, Core]]:
    """The local try-out served in this process (its computer players moving by themselves),
    its core at hand to play Ana's cards."""
    core = await Core.open(local_settings(tmp_path / "rematch.db"), turn_seconds=0)
    hub = Hub()
    core.changes.subscribe(hub)
    auth = LocalAuth()
    await core.start()
    try:
        async with serve(WebTable(core, auth, hub, auth).app(), "127.0.0.1", 0, hub) as runner:
            yield f"http://127.0.0.1:{runner.addresses[0][1]}", core
    finally:
        core.stop()
        await core.close()


async def play_out(core: Core, table_id: int, user: int, seed: int) -> Table:
    """The person plays at random whenever asked; the computer players by themselves."""
    rng = random.Random(seed)

    async def over() -> bool:
        table = await core.tables.get(table_id)
        assert table is not None and table.state is not None
        if table.status is TableStatus.FINISHED:
            return True
        seat = table.seat_of(user)
        mine = [a for a in table.state.legal_actions() if a.seat == seat]
        if mine:
            action = rng.choice(mine)
            with contextlib.suppress(Refusal):  # (a computer player moved first)
                await core.play.act(table_id, user, table.state.step, action.kind, action.card)
        return False

    await until_async(over, within=300)
    done = await core.tables.get(table_id)
    assert done is not None
    return done


async def test_a_rematch_from_the_page_keeps_the_computer_players(
    local: tuple[str, Core],
) -> None:
    """2v2 on the local table, Ana with a computer partner against two: 🔁 Revancha from the
    page seats the same three computer players, by name, level and character, where they sat,
    and again from the rematch's end."""
    url, core = local
    async with aiohttp.ClientSession() as s:
        async with s.post(f"{url}/api/local/login", json={"name": "Ana"}) as r:
            me = await r.json()
        headers = {"X-Local-Session": me["session"]}
        new = {"mode": "2v2", "target": 15, "level": "normal", "hints": False}
        async with s.post(f"{url}/api/local/new", json=new, headers=headers) as r:
            table_id = (await r.json())["table"]

        async def seats_of(table_id: int) -> list[tuple[str, bool]]:
            async with s.get(f"{url}/api/table/{table_id}", headers=headers) as r:
                view = await r.json()
            return [(seat["name"], seat["bot"]) for seat in view["seats"]]

        first = await core.tables.get(table_id)
        assert first is not None
        shown = await seats_of(table_id)
        assert sum(bot for _, bot in shown) == 3
        characters = [character_of(first.lineage, s).value for s in first.bot_seats]
        for generation in range(2):
            old = await play_out(core, table_id, me["user_id"], seed=generation)
            async with s.post(f"{url}/api/table/{old.id}/rematch", headers=headers) as r:
                assert r.status == 200, await r.text()
                table_id = (await r.json())["table"]
            fresh = await core.tables.get(table_id)
            assert fresh is not None and fresh.status is TableStatus.PLAYING
            assert fresh.seats == first.seats, generation
            assert await seats_of(table_id) == shown, generation
            assert [character_of(fresh.lineage, s).value for s in fresh.bot_seats] == characters

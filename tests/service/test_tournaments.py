"""Tournaments in the core, on SQLite and PostgreSQL, with an injected clock: a liguilla of five
to its standings, 2v2 with pairs drawn at the start, a best of three, a walkover, a player
replaced by a computer player, a tournament called off, sign-ups that close by themselves."""

from __future__ import annotations

import asyncio
import itertools
import logging
import sqlite3
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from bot import codec
from bot.game import ActionKind, MatchConfig
from bot.league.tournament import Format, Status, Tournament, knockout, parse_tag, standings
from bot.model.outbox import Outgoing, Planned
from bot.model.outcome import Termination
from bot.model.refusals import Refusal, Refused
from bot.model.table import BOT_IDS, Table, TableStatus
from bot.service.changes import Change, ChangeKind, TourneyNote
from bot.service.core import Core
from bot.storage.connect import open_database
from bot.storage.migrations import MIGRATIONS, script_of
from bot.storage.postgres import postgres_ddl, to_postgres
from bot.storage.repo import Store
from tests.service.test_league import play_out

CHAT = -77


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def core(db_target: Path | str) -> AsyncIterator[Core]:
    db = await open_database(db_target)
    service = Core.build(Store(db), seed=3, clock=Clock())
    for user in range(1, 11):
        await service.people.see(user, f"P{user}", None)
    yield service
    await service.tournaments.idle()
    await db.close()


def base(**options: object) -> Tournament:
    t = Tournament(0, CHAT, 0, 1, "es", 0.0, 0.0, config=MatchConfig(target=15, flor=False))
    return replace(t, **options)  # type: ignore[arg-type]


async def started(core: Core, people: int, **options: object) -> Tournament:
    t = await core.tournaments.open(CHAT, 0, 1, "es", base(**options))
    for user in range(1, people + 1):
        await core.tournaments.sign(t.id, user)
    await core.tournaments.begin(t.id, 1, False)
    await core.tournaments.idle()
    found = await core.tournaments.get(t.id)
    assert found is not None and found.status is Status.RUNNING
    return found


async def live_tables(core: Core, t: Tournament) -> list[Table]:
    tables = []
    for table_id in (await core.tournaments.tables_of(t.id)).values():
        table = await core.tables.get(table_id)
        if table is not None and table.is_open:
            tables.append(table)
    return tables


async def run(core: Core, t: Tournament, loser: object = None) -> Tournament:
    """Play every match as it opens: the side holding the lower seed wins (or `loser` says
    which user's side loses), until the tournament ends."""
    for _ in range(100):
        found = await core.tournaments.get(t.id)
        assert found is not None
        if found.status is not Status.RUNNING:
            return found
        tables = await live_tables(core, found)
        assert tables, "a running tournament with nothing to play"
        for table in tables:
            seeds = [found.entry_of(u) if u and u > 0 else 99 for u in table.seats]
            best = min(range(len(seeds)), key=lambda s: seeds[s])  # type: ignore[arg-type, return-value]
            await play_out(core, table.id, loser_side=1 - best % 2)
        await core.tournaments.idle()
    raise AssertionError("the tournament did not end")


async def test_a_liguilla_of_five_plays_every_tie_once_to_its_standings(core: Core) -> None:
    t = await started(core, 5, format=Format.LEAGUE)
    assert len(t.fixtures) == 10 and len(await live_tables(core, t)) == 2  # one rests
    t = await run(core, t)
    assert t.status is Status.FINISHED and all(len(f.games) == 1 for f in t.fixtures)
    assert len(await core.tournaments.tables_of(t.id)) == 10
    lines = standings(t)
    assert [x.won for x in lines] == [4, 3, 2, 1, 0]  # the better seed won every tie
    assert t.champion == lines[0].entry == 0
    # every match counted in the league like any match
    rows = await core.store.db.fetchall("SELECT count(*) AS n FROM matches WHERE chat_id = ?", CHAT)
    assert rows[0]["n"] == 10


async def test_pairs_are_drawn_for_2v2_and_a_best_of_three_swaps_sides(core: Core) -> None:
    t = await started(core, 4, config=MatchConfig(players=4, target=15, flor=False), series=3)
    assert [len(e) for e in t.entries] == [2, 2]
    assert sorted(u for e in t.entries for u in e) == [1, 2, 3, 4]
    (table,) = await live_tables(core, t)
    assert table.config.players == 4 and sorted(table.players) == [1, 2, 3, 4]
    first_side0 = {table.seats[0], table.seats[2]}
    t = await run(core, t)
    (final,) = t.fixtures
    assert final.wins() == (2, 0) and t.champion == 0
    tables = await core.tournaments.tables_of(t.id)
    assert len(tables) == 2
    second = await core.tables.get(tables[f"{t.id}:0:0:1"])
    assert second is not None and {second.seats[0], second.seats[2]} != first_side0


async def test_a_side_that_never_turns_up_loses_by_walkover(core: Core) -> None:
    clock = core.clock
    assert isinstance(clock, Clock)
    t = await started(core, 2, turn_seconds=60)
    (table,) = await live_tables(core, t)
    waited = table.seats[table.state.acting_seats()[0]]  # type: ignore[union-attr]
    for _ in range(3):  # the first to move never does: the timer moves for them (a strike)
        clock.now += 61
        await core.sweep()
        table = await core.tables.get(table.id)  # type: ignore[assignment]
        if table.is_open and waited_on(table) != waited:
            await move_once(core, table.id)  # the other one is there
    await core.tournaments.idle()
    t = await core.tournaments.get(t.id)  # type: ignore[assignment]
    assert t.status is Status.FINISHED
    (final,) = t.fixtures
    assert final.walkover and final.games[0].walkover
    assert waited not in t.entries[t.champion]  # type: ignore[index]
    done = await core.tables.get(final.games[0].table)
    assert done is not None and done.outcome is not None
    assert done.outcome.termination is Termination.WALKOVER


@pytest.mark.postgresql
async def test_a_player_who_leaves_is_replaced_where_the_opener_allows_it(core: Core) -> None:
    t = await started(core, 4, bots=True)
    table = (await live_tables(core, t))[0]
    leaver = table.players[0]
    seat = table.seat_of(leaver)
    await core.turns.concede(table.id, leaver)
    await core.tournaments.idle()
    again = await core.tables.get(table.id)
    assert again is not None and again.status is TableStatus.PLAYING
    assert again.seats[seat] == BOT_IDS["normal"]  # type: ignore[index]
    t = await core.tournaments.get(t.id)  # type: ignore[assignment]
    assert t.replaced == [leaver]
    # without the option, leaving concedes the tie
    other = await core.tournaments.open(CHAT, 5, 1, "es", base())
    for user in (7, 8):
        await core.tournaments.sign(other.id, user)
    await core.tournaments.begin(other.id, 1, False)
    await core.tournaments.idle()
    (table,) = await live_tables(core, other)
    await core.turns.concede(table.id, 7)
    await core.tournaments.idle()
    other = await core.tournaments.get(other.id)  # type: ignore[assignment]
    assert other.status is Status.FINISHED and other.entries[other.champion] == (8,)  # type: ignore[index]


async def test_calling_it_off_cancels_its_matches_or_lets_them_finish(core: Core) -> None:
    t = await started(core, 4)
    tables = await live_tables(core, t)
    assert len(tables) == 2
    with pytest.raises(Refusal) as refused:
        await core.tournaments.cancel(t.id, 3, False, finish_matches=False)
    assert refused.value.code is Refused.ONLY_TOURNEY_OPENER
    await core.tournaments.cancel(t.id, 1, False, finish_matches=False)
    for x in tables:
        after = await core.tables.get(x.id)
        assert after is not None and after.status is TableStatus.CANCELLED
    t = await core.tournaments.get(t.id)  # type: ignore[assignment]
    assert t.status is Status.CANCELLED
    kept = await started(core, 4)
    await core.tournaments.cancel(kept.id, 1, False, finish_matches=True)
    assert all(x.status is TableStatus.PLAYING for x in await live_tables(core, kept))


async def test_sign_ups_close_by_themselves(core: Core) -> None:
    clock = core.clock
    assert isinstance(clock, Clock)
    few = await core.tournaments.open(CHAT, 1, 1, "es", base())
    await core.tournaments.sign(few.id, 1)  # one alone: called off
    many = await core.tournaments.open(CHAT, 2, 1, "es", base())
    for user in (1, 2, 3):
        await core.tournaments.sign(many.id, user)  # three: it starts, seed 1 has a bye
    clock.now += 31 * 60
    await core.sweep()
    await core.tournaments.idle()
    few = await core.tournaments.get(few.id)  # type: ignore[assignment]
    many = await core.tournaments.get(many.id)  # type: ignore[assignment]
    assert few.status is Status.CANCELLED and many.status is Status.RUNNING
    assert [f.bye for f in many.fixtures if f.round == 0] == [True, False]
    assert len(await live_tables(core, many)) == 1
    assert list(itertools.chain(*many.entries)).count(1) == 1


async def test_two_workers_on_postgresql_run_one_tournament_once(pg_cluster: object) -> None:
    """Two processes (two cores, one PostgreSQL) settle the same tournament at the same time,
    over and over: every match opened once, every result counted once."""
    if pg_cluster is None:
        pytest.skip("PostgreSQL is not installed here")
    url = pg_cluster.new_database()  # type: ignore[attr-defined]
    dbs = [await open_database(url) for _ in range(2)]
    cores = [
        Core.build(Store(db), seed=4, clock=Clock(), worker=f"w{i}") for i, db in enumerate(dbs)
    ]
    try:
        one, two = cores
        t = await one.tournaments.open(CHAT, 0, 1, "es", base())
        for user in range(1, 7):
            await one.tournaments.sign(t.id, user)
        await asyncio.gather(
            one.tournaments.begin(t.id, 1, False), two.tournaments.settle(t.id),
            return_exceptions=True,
        )  # fmt: skip
        for _ in range(30):
            await asyncio.gather(*(c.tournaments.settle(t.id) for c in cores for _ in range(2)))
            found = await two.tournaments.get(t.id)
            assert found is not None
            if found.status is not Status.RUNNING:
                break
            for table in await live_tables(two, found):
                await play_out(one, table.id, loser_side=1)
        assert found.status is Status.FINISHED
        tables = await one.tournaments.tables_of(t.id)
        played = [f for f in found.fixtures if not f.bye]
        assert len(tables) == len(played) == 5  # six entries: two byes, five ties
        assert all(len(f.games) == 1 for f in played)
    finally:
        for c in cores:
            await c.tournaments.idle()
        for db in dbs:
            await db.close()


async def test_a_3v3_tournament_seats_its_trios_at_tables_of_six(core: Core) -> None:
    for user in range(11, 13):
        await core.people.see(user, f"P{user}", None)
    six = MatchConfig(players=6, target=15, flor=False)
    t = await core.tournaments.open(CHAT, 0, 1, "es", base(config=six))
    for user in range(1, 13):
        await core.tournaments.sign(t.id, user)
    await core.tournaments.begin(t.id, 1, False)
    await core.tournaments.idle()
    t = await core.tournaments.get(t.id)  # type: ignore[assignment]
    assert [len(e) for e in t.entries] == [3, 3, 3, 3]
    tables = await live_tables(core, t)
    assert len(tables) == 2 and all(x.config.players == 6 for x in tables)
    for table in tables:  # each trio on one side: seats 0, 2, 4 and 1, 3, 5
        sides = {t.entry_of(table.seats[s] or 0) for s in (0, 2, 4)}
        assert len(sides) == 1
    t = await run(core, t)
    assert t.status is Status.FINISHED and t.champion is not None


async def test_its_matches_are_not_the_openers_tables_nor_the_topics(core: Core) -> None:
    t = await started(core, 8)
    assert len(await live_tables(core, t)) == 4  # four matches, opened in the opener's name
    table = await core.lobby.open(CHAT, 0, 1, MatchConfig(), "es")  # the topic's own table
    assert table.status is TableStatus.LOBBY
    assert (await core.tables.table_in(CHAT, 0)) is not None


# -- a walkover is a side that never came (issue 45) -------------------------------------------
async def move_once(core: Core, table_id: int) -> int:
    """Whoever the game waits on plays their first card (or answers as it lets them): the
    person who moved."""
    table = await core.tables.get(table_id)
    assert table is not None and table.state is not None
    state = table.state
    legal = state.legal_actions()
    action = next((a for a in legal if a.kind is ActionKind.PLAY), legal[0])
    user = table.seats[action.seat]
    assert user is not None and user > 0
    await core.play.act(table_id, user, state.step, action.kind, action.card)
    return user


def waited_on(table: Table) -> int:
    assert table.state is not None
    user = table.seats[table.state.acting_seats()[0]]
    assert user is not None
    return user


async def let_run_out(core: Core, clock: Clock, table_id: int, seconds: float = 61) -> None:
    clock.now += seconds
    await core.sweep()
    await core.tournaments.idle()


async def test_one_timeout_in_the_middle_of_a_match_is_a_strike_not_a_walkover(
    core: Core,
) -> None:
    clock = core.clock
    assert isinstance(clock, Clock)
    t = await started(core, 2, turn_seconds=60)
    (table,) = await live_tables(core, t)
    for _ in range(12):  # both play for five minutes, a move every 25 s
        clock.now += 25
        await move_once(core, table.id)
        table = await core.tables.get(table.id)  # type: ignore[assignment]
        assert table.status is TableStatus.PLAYING
    slow = waited_on(table)
    await let_run_out(core, clock, table.id)  # one turn runs out: a strike, nothing more
    table = await core.tables.get(table.id)  # type: ignore[assignment]
    assert table.status is TableStatus.PLAYING, table.outcome
    assert sorted(table.came) == sorted(table.players)
    t = await core.tournaments.get(t.id)  # type: ignore[assignment]
    assert t.status is Status.RUNNING and not t.fixtures[0].games
    # three in a row concede, as at any table: a result by timeouts, not a walkover
    for _ in range(3):
        table = await core.tables.get(table.id)  # type: ignore[assignment]
        if not table.is_open:
            break
        while waited_on(table) != slow:
            await move_once(core, table.id)
            table = await core.tables.get(table.id)  # type: ignore[assignment]
        await let_run_out(core, clock, table.id)
    table = await core.tables.get(table.id)  # type: ignore[assignment]
    assert table.outcome is not None and table.outcome.termination is Termination.TIMEOUTS
    t = await core.tournaments.get(t.id)  # type: ignore[assignment]
    (final,) = t.fixtures
    assert final.decided and not final.walkover and not final.games[0].walkover
    assert slow not in t.entries[t.champion]  # type: ignore[index]


async def test_who_acted_inside_the_start_window_came_even_if_they_time_out_later(
    core: Core,
) -> None:
    clock = core.clock
    assert isinstance(clock, Clock)
    t = await started(core, 2, turn_seconds=60)
    (table,) = await live_tables(core, t)
    clock.now += 50
    first = await move_once(core, table.id)  # at 50 s
    await move_once(core, table.id)  # the other at once
    table = await core.tables.get(table.id)  # type: ignore[assignment]
    while waited_on(table) != first:
        await move_once(core, table.id)
        table = await core.tables.get(table.id)  # type: ignore[assignment]
    await let_run_out(core, clock, table.id)  # their next turn runs out, at 110 s
    clock.now += 15  # past the window (120 s)
    await core.sweep()
    await core.tournaments.idle()
    table = await core.tables.get(table.id)  # type: ignore[assignment]
    assert table.status is TableStatus.PLAYING, table.outcome


async def test_in_a_best_of_three_a_walkover_gives_only_the_match_not_played(
    core: Core,
) -> None:
    clock = core.clock
    assert isinstance(clock, Clock)
    t = await started(core, 2, turn_seconds=60, series=3)
    (table,) = await live_tables(core, t)
    leader = table.seats[0]
    await play_out(core, table.id, loser_side=1)  # seat 0's side wins the first match
    await core.tournaments.idle()
    (table,) = await live_tables(core, t)  # the second match: the leader never comes
    assert table.status is TableStatus.PLAYING
    for _ in range(4):
        table = await core.tables.get(table.id)  # type: ignore[assignment]
        if not table.is_open:
            break
        if waited_on(table) == leader:
            await let_run_out(core, clock, table.id)
        else:
            clock.now += 5
            await move_once(core, table.id)
    clock.now += 10
    await core.sweep()
    await core.tournaments.idle()
    t = await core.tournaments.get(t.id)  # type: ignore[assignment]
    (final,) = t.fixtures
    assert [g.walkover for g in final.games] == [False, True]
    assert final.wins() == (1, 1) and not final.decided and t.status is Status.RUNNING
    (third,) = await live_tables(core, t)  # the series' rule decides: a third match
    assert third.tournament == f"{t.id}:0:0:2"


# -- the options and the sign-ups agree; one tournament that raises stops nobody (issue 45) -----
async def test_a_mode_that_would_break_a_team_is_skipped_or_refused(core: Core) -> None:
    six = MatchConfig(players=6, target=15, flor=False)
    t = await core.tournaments.open(CHAT, 0, 1, "es", base(config=six))
    _, token = await core.tournaments.invite(t.id, 1)
    await core.tournaments.join_team(token, 2)
    await core.tournaments.join_team(token, 3)  # a trio, signed up together
    with pytest.raises(Refusal) as refused:  # neither 1v1 nor 2v2 fits three
        await core.tournaments.option(t.id, 1, "mode", False)
    assert refused.value.code is Refused.TOURNEY_TEAM_MISFIT
    assert refused.value.params["count"] == 3
    t = await core.tournaments.get(t.id)  # type: ignore[assignment]
    assert t.config.players == 6 and t.teams == [[1, 2, 3]]
    # a pair in 2v2: the mode goes to 3v3 (the pair is completed from the draw), then back
    # to 2v2, never to 1v1
    four = MatchConfig(players=4, target=15, flor=False)
    other = await core.tournaments.open(CHAT, 1, 4, "es", base(config=four))
    _, token = await core.tournaments.invite(other.id, 4)
    await core.tournaments.join_team(token, 5)
    modes = []
    for _ in range(3):
        modes.append((await core.tournaments.option(other.id, 4, "mode", False)).config.players)
    assert modes == [6, 4, 6]


async def test_starting_checks_that_every_entry_fits_the_mode(core: Core) -> None:
    four = MatchConfig(players=4, target=15, flor=False)
    t = await core.tournaments.open(CHAT, 0, 1, "es", base(config=four))
    for user in range(1, 7):
        await core.tournaments.sign(t.id, user)
    found = await core.tournaments.get(t.id)
    assert found is not None
    found.teams = [[1, 2, 3]]  # as an older version let it be: a trio in a 2v2
    async with core.store.db.transaction() as conn:
        assert await core.tournaments.store.save(conn, found, found.version)
    with pytest.raises(Refusal) as refused:
        await core.tournaments.begin(t.id, 1, False)
    assert refused.value.code is Refused.TOURNEY_TEAM_MISFIT
    found = await core.tournaments.get(t.id)
    assert found is not None and found.status is Status.SIGNUP


async def test_a_tournament_that_raises_is_marked_broken_once_and_stops_nobody_else(
    core: Core, caplog: pytest.LogCaptureFixture
) -> None:
    clock = core.clock
    assert isinstance(clock, Clock)
    four = MatchConfig(players=4, target=15, flor=False)
    bad = await core.tournaments.open(CHAT, 0, 1, "es", base(config=four))
    for user in range(1, 7):
        await core.tournaments.sign(bad.id, user)
    found = await core.tournaments.get(bad.id)
    assert found is not None
    # as an older version left it running: trios drawn for a 2v2 (its matches cannot open)
    found.status, found.started_at = Status.RUNNING, clock.now
    found.entries, found.fixtures = [(1, 2, 3), (4, 5, 6)], knockout(2)
    async with core.store.db.transaction() as conn:
        assert await core.tournaments.store.save(conn, found, found.version)
    good = await core.tournaments.open(CHAT - 1, 0, 7, "es", base())  # another group's
    for user in (7, 8):
        await core.tournaments.sign(good.id, user)
    clock.now += 31 * 60  # its sign-ups close: the sweep starts it
    with caplog.at_level(logging.ERROR):
        for _ in range(4):  # ticks of the sweep: nothing escapes, one ERROR in all
            await core.sweep()
            await core.tournaments.idle()
            clock.now += 6
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and f"tournament {bad.id}" in errors[0].getMessage(), errors
    good = await core.tournaments.get(good.id)  # type: ignore[assignment]
    assert good.status is Status.RUNNING and len(await live_tables(core, good)) == 1
    bad = await core.tournaments.get(bad.id)  # type: ignore[assignment]
    assert bad.status is Status.RUNNING and bad.broken, bad
    await core.tournaments.cancel(bad.id, 1, False, finish_matches=False)  # its opener can
    bad = await core.tournaments.get(bad.id)  # type: ignore[assignment]
    assert bad.status is Status.CANCELLED


def round_pairs(t: Tournament, round_: int) -> list[tuple[int | None, int | None]]:
    return [(f.a, f.b) for f in t.fixtures if f.round == round_]


@pytest.mark.postgresql
async def test_a_swiss_of_seven_over_three_rounds_worked_by_hand(core: Core) -> None:
    """The hand-worked Swiss of tests/unit/test_swiss.py played at real tables: the lower entry
    wins every match 16-0 (the loser goes to the mazo each hand, 2 points a hand), so the unit
    test's differences times 16/15. Each round opens when the last match of the one before
    ends; every match counts in the league."""
    t = await started(core, 7, format=Format.SWISS)
    assert t.rules.total_rounds(t) == 3
    expected = [
        [(0, 1), (2, 3), (4, 5), (6, None)],
        [(0, 2), (6, 4), (1, 3), (5, None)],
        [(4, 0), (2, 1), (5, 6), (3, None)],
    ]
    for round_ in range(3):
        t = await core.tournaments.get(t.id)  # type: ignore[assignment]
        assert t.rounds == round_ + 1 and round_pairs(t, round_) == expected[round_]
        tables = await live_tables(core, t)
        assert sorted(parse_tag(x.tournament or "")[1:3] for x in tables) == [
            (round_, 0), (round_, 1), (round_, 2)
        ]  # fmt: skip
        for played, table in enumerate(tables, start=1):
            seeds = [t.entry_of(u) if u and u > 0 else 99 for u in table.seats]
            best = min(range(len(seeds)), key=lambda s: seeds[s])  # type: ignore[arg-type, return-value]
            await play_out(core, table.id, loser_side=1 - best % 2)
            await core.tournaments.idle()
            now = await core.tournaments.get(t.id)
            assert now is not None
            if played < len(tables):  # the round is not over: nothing of the next opens
                assert now.rounds == round_ + 1
                assert len(await live_tables(core, now)) == len(tables) - played
    t = await core.tournaments.get(t.id)  # type: ignore[assignment]
    assert t.status is Status.FINISHED and t.champion == 0
    games = [g for f in t.fixtures for g in f.games]
    assert len(games) == 9 and all(sorted(g.points) == [0, 16] for g in games)
    table = [(x.entry, x.score, x.buchholz, x.diff) for x in standings(t)]
    assert table == [
        (0, 3, 5, 48), (4, 2, 6, 16), (1, 2, 5, 16), (5, 2, 3, 0), (2, 1, 6, -16),
        (6, 1, 4, -32), (3, 1, 3, -32),
    ]  # fmt: skip
    rows = await core.store.db.fetchall("SELECT count(*) AS n FROM matches WHERE chat_id = ?", CHAT)
    assert rows[0]["n"] == 9
    assert len(await core.tournaments.tables_of(t.id)) == 9


async def test_a_swiss_round_waits_no_longer_than_a_knockout_for_a_side_that_never_comes(
    core: Core,
) -> None:
    """Three in a Swiss: one rests, two play; the one the first move waits on never comes and
    loses by walkover as in a knockout, and the next round opens at once (paired with it)."""
    clock = core.clock
    assert isinstance(clock, Clock)
    t = await started(core, 3, format=Format.SWISS, turn_seconds=60)
    (table,) = await live_tables(core, t)
    waited = waited_on(table)
    for _ in range(3):
        clock.now += 61
        await core.sweep()
        table = await core.tables.get(table.id)  # type: ignore[assignment]
        if table.is_open and waited_on(table) != waited:
            await move_once(core, table.id)
    await core.tournaments.idle()
    t = await core.tournaments.get(t.id)  # type: ignore[assignment]
    first = t.fixture(0, 0)
    assert first is not None and first.walkover and first.winner != t.entry_of(waited)
    assert t.rounds == 2 and t.status is Status.RUNNING
    (table,) = await live_tables(core, t)  # the second round's match is on
    assert table.tournament == f"{t.id}:1:0:0"


async def test_a_swiss_of_pairs_seats_its_teams(core: Core) -> None:
    t = await started(core, 6, format=Format.SWISS,
                      config=MatchConfig(players=4, target=15, flor=False))  # fmt: skip
    assert [len(e) for e in t.entries] == [2, 2, 2] and t.rules.total_rounds(t) == 2
    (table,) = await live_tables(core, t)
    assert table.config.players == 4 and len(table.players) == 4
    t = await run(core, t)
    assert t.status is Status.FINISHED and t.rounds == 2
    assert len([f for f in t.fixtures if f.bye]) == 2


async def test_a_twelve_player_arena_of_thirty_minutes_to_its_podium(core: Core) -> None:
    """Twelve in a relámpago of 30 minutes, the clock moved three minutes a wave: the lower
    entry wins every match; whoever ends is paired again at once; one player pauses and comes
    back; once the time is up nothing more opens and the matches in play count."""
    clock = core.clock
    assert isinstance(clock, Clock)
    for user in (11, 12):
        await core.people.see(user, f"P{user}", None)
    t = await started(core, 12, format=Format.ARENA, minutes=30)
    assert len(await live_tables(core, t)) == 6
    end = clock.now + 30 * 60
    resting = t.entries[5][0]  # the person of entry 5 pauses for a while
    paused_from = back_at = rounds_at_end = -1
    for wave in range(40):
        t = await core.tournaments.get(t.id)  # type: ignore[assignment]
        if t.status is not Status.RUNNING:
            break
        for table in sorted(await live_tables(core, t), key=lambda x: x.id):
            seeds = [t.entry_of(u) if u and u > 0 else 99 for u in table.seats]
            best = min(range(len(seeds)), key=lambda s: seeds[s])  # type: ignore[arg-type, return-value]
            await play_out(core, table.id, loser_side=1 - best % 2)
            await core.tournaments.idle()
        if wave == 2:
            _, paused = await core.tournaments.pause(t.id, resting)
            assert paused
            paused_from = (await core.tournaments.get(t.id)).rounds  # type: ignore[union-attr]
        if wave == 5:
            back_at = (await core.tournaments.get(t.id)).rounds  # type: ignore[union-attr]
            _, paused = await core.tournaments.pause(t.id, resting)
            assert not paused
        if clock.now < end <= clock.now + 180:
            rounds_at_end = -2  # (taken after the move below)
        clock.now += 180
        await core.sweep()
        await core.tournaments.idle()
        if rounds_at_end == -2:
            rounds_at_end = (await core.tournaments.get(t.id)).rounds  # type: ignore[union-attr]
    t = await core.tournaments.get(t.id)  # type: ignore[assignment]
    assert t.status is Status.FINISHED
    assert t.rounds == rounds_at_end  # nothing opened once the time was up
    assert all(f.decided for f in t.fixtures)
    while_paused = [f for f in t.fixtures if paused_from <= f.round < back_at]
    assert while_paused and all(5 not in (f.a, f.b) for f in while_paused)
    assert any(5 in (f.a, f.b) for f in t.fixtures if f.round >= back_at)  # paired again
    lines = standings(t)
    assert t.champion == lines[0].entry and lines[0].score >= lines[1].score
    first = next(x for x in lines if x.entry == 0)  # it won every match it played
    assert first.won == first.played >= 3 and first.fire
    assert first.score == 2 * 2 + 4 * (first.won - 2)  # two wins, then every one doubled
    rows = await core.store.db.fetchall("SELECT count(*) AS n FROM matches WHERE chat_id = ?", CHAT)
    assert rows[0]["n"] == len(t.fixtures) == len(await core.tournaments.tables_of(t.id))


class Told:
    """What the core committed for tournaments: each change's note (a front end's view)."""

    def __init__(self) -> None:
        self.notes: list[tuple[int, TourneyNote]] = []

    async def plan(self, change: Change) -> Sequence[Planned]:
        return []

    def committed(self, change: Change, rows: Sequence[Outgoing]) -> None:
        if change.kind is ChangeKind.TOURNEY:
            self.notes.append((change.tournament.id, change.note))


async def test_a_tournament_set_for_later_reminds_once_and_starts_by_itself(
    db_target: Path | str,
) -> None:
    clock = Clock()
    starts = clock.now + 3 * 3600
    db = await open_database(db_target)
    core = Core.build(Store(db), seed=3, clock=clock)
    told = Told()
    core.changes.subscribe(told)
    t = await core.tournaments.open(CHAT, 0, 1, "es", base(starts_at=starts))
    assert t.closes_at == starts
    for user in (1, 2, 3, 4):
        await core.tournaments.sign(t.id, user)
    clock.now = starts - 31 * 60  # past the usual half hour of sign-ups: still open
    await core.sweep()
    clock.now = starts - 11 * 60
    await core.sweep()
    found = await core.tournaments.get(t.id)
    assert found is not None and found.status is Status.SIGNUP and not found.reminded
    assert (t.id, "reminder") not in told.notes
    clock.now = starts - 10 * 60  # ten minutes before: the people signed up are reminded
    await core.sweep()
    await core.sweep()
    assert told.notes.count((t.id, "reminder")) == 1
    await core.tournaments.idle()
    await db.close()

    # a restart between the reminder and the start: nobody is told twice
    db = await open_database(db_target)
    core = Core.build(Store(db), seed=3, clock=clock)
    again = Told()
    core.changes.subscribe(again)
    clock.now = starts - 5 * 60
    await core.sweep()
    assert again.notes == []
    clock.now = starts
    await core.sweep()
    await core.tournaments.idle()
    found = await core.tournaments.get(t.id)
    assert found is not None and found.status is Status.RUNNING and found.reminded
    assert [n for _, n in again.notes].count("reminder") == 0
    assert (t.id, "started") in again.notes
    assert len(await live_tables(core, found)) == 2
    await core.tournaments.idle()
    await db.close()


async def test_a_tournament_set_for_later_with_too_few_is_called_off(core: Core) -> None:
    clock = core.clock
    assert isinstance(clock, Clock)
    told = Told()
    core.changes.subscribe(told)
    starts = clock.now + 3600
    t = await core.tournaments.open(CHAT, 0, 1, "es", base(starts_at=starts))
    await core.tournaments.sign(t.id, 1)
    clock.now = starts - 10 * 60
    await core.sweep()
    clock.now = starts
    await core.sweep()
    found = await core.tournaments.get(t.id)
    assert found is not None and found.status is Status.CANCELLED
    notes = [n for _, n in told.notes]
    assert notes == [TourneyNote.SIGNED, TourneyNote.REMINDER, TourneyNote.CALLED_OFF]
    assert all(type(n) is TourneyNote for n in notes)  # (a typed note, never loose text)


async def test_a_time_already_gone_opens_nothing(core: Core) -> None:
    clock = core.clock
    assert isinstance(clock, Clock)
    with pytest.raises(Refusal) as refused:
        await core.tournaments.open(CHAT, 0, 1, "es", base(starts_at=clock.now - 60))
    assert refused.value.code is Refused.TOURNEY_BAD_TIME
    assert await core.tournaments.open_in(CHAT, 0) is None


# the migration that numbers each group's tournaments (later ones come after it)
NUMBERS = next(
    i for i, m in enumerate(MIGRATIONS) if isinstance(m, str) and "tournaments_number" in m
)


async def _before_numbers(target: Path | str, rows: Sequence[Tournament]) -> None:
    """A database at the schema before tournaments had a number in their group, with `rows`."""
    old = MIGRATIONS[:NUMBERS]
    insert = (
        "INSERT INTO tournaments (id, chat_id, thread_id, status, opener_id, language, data,"
        " version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?)"
    )
    values = [
        (t.id, t.chat_id, t.thread_id, t.status.value, t.opener_id, t.language,
         codec.dumps(t.to_json()), t.created_at, t.created_at)
        for t in rows
    ]  # fmt: skip
    if isinstance(target, Path):
        raw = sqlite3.connect(target)
        for migration in old:
            raw.executescript(script_of(migration, "sqlite"))
        raw.execute(f"PRAGMA user_version={len(old)}")
        raw.executemany(insert, values)
        raw.commit()
        raw.close()
        return
    import asyncpg

    conn = await asyncpg.connect(target)
    try:
        async with conn.transaction():
            await conn.execute("CREATE TABLE schema_version (version BIGINT)")
            for number, migration in enumerate(old, start=1):
                for statement in postgres_ddl(script_of(migration, "postgresql")).split(";\n"):
                    if statement.strip():
                        await conn.execute(statement)
                await conn.execute("INSERT INTO schema_version (version) VALUES ($1)", number)
            for value in values:
                await conn.execute(to_postgres(insert), *value)
            await conn.execute("SELECT setval('tournaments_id_seq', 5)")
    finally:
        await conn.close()


@pytest.mark.postgresql
async def test_an_older_database_numbers_each_groups_tournaments_in_order(
    db_target: Path | str,
) -> None:
    """Tournaments made before each group numbered its own get their numbers when the database
    is migrated, in each group in the order they were made; the next one a group opens comes
    after them (its id the database's own, as before)."""
    other = -88
    chats = [CHAT, other, CHAT, CHAT, other]  # ids 1 to 5, made in this order
    rows = [
        replace(base(), id=i, chat_id=chat, status=Status.FINISHED, created_at=1000.0 + i)
        for i, chat in enumerate(chats, start=1)
    ]
    await _before_numbers(db_target, rows)
    db = await open_database(db_target)  # migrates
    try:
        core = Core.build(Store(db), seed=3, clock=Clock())
        numbers = {}
        for i in range(1, 6):
            found = await core.tournaments.get(i)
            assert found is not None
            numbers[i] = found.number
        assert numbers == {1: 1, 2: 1, 3: 2, 4: 3, 5: 2}
        made = await core.tournaments.open(CHAT, 0, 1, "es", base())
        assert (made.id, made.number) == (6, 4)
        again = await core.tournaments.get(made.id)
        assert again is not None and again.number == 4
        elsewhere = await core.tournaments.open(-99, 0, 1, "es", base())
        assert elsewhere.number == 1
    finally:
        await db.close()

"""The service on real SQLite files: transactions, restarts, races, one table per topic."""

from __future__ import annotations

import asyncio
import random
import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.game import ActionKind, MatchConfig, replay
from bot.game.actions import parse_any
from bot.model.outbox import POST, Outgoing, Record
from bot.model.outcome import Termination
from bot.model.table import Table, TableStatus
from bot.service.changes import Change, Refusal
from bot.service.core import Core
from bot.storage.connect import open_database
from bot.storage.db import DatabaseTooNewError
from bot.storage.migrations import MIGRATIONS
from bot.storage.repo import Store
from bot.storage.snapshots import to_json
from bot.telegram.planner import Planner
from tests.pg import INSTALL_HINT, Cluster

CHAT = -100


async def service_on(path: Path | str) -> Core:
    return Core.build(Store(await open_database(path)), seed=3)


async def started_table(service: Core, players: int = 2) -> int:
    table = await service.lobby.open(CHAT, 0, 1, MatchConfig(players=players), "es")
    for user in range(1, players + 1):
        outcome = await service.lobby.join(table.id, user)
    assert outcome.started
    return table.id


async def test_migrations_wal_and_a_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    db = await open_database(path)
    row = await db.fetchone("PRAGMA journal_mode")
    assert row is not None and row[0] == "wal"
    await db.close()
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    raw.execute(f"PRAGMA user_version={len(MIGRATIONS) + 1}")
    raw.commit()
    raw.close()
    with pytest.raises(DatabaseTooNewError):
        await open_database(path)


async def test_postgres_migrates_once_and_refuses_a_newer_schema(
    pg_cluster: Cluster | None,
) -> None:
    if pg_cluster is None:
        pytest.skip(INSTALL_HINT)
    url = pg_cluster.new_database()
    first, second = await asyncio.gather(open_database(url), open_database(url))  # two workers
    row = await first.fetchone("SELECT count(*) AS n, max(version) AS v FROM schema_version")
    assert row is not None and (row["n"], row["v"]) == (len(MIGRATIONS), len(MIGRATIONS))
    async with first.transaction() as conn:
        newer = len(MIGRATIONS) + 1
        await conn.execute("INSERT INTO schema_version (version) VALUES (?)", (newer,))
    await first.close()
    await second.close()
    with pytest.raises(DatabaseTooNewError):
        await open_database(url)


async def test_a_restart_keeps_state_log_and_messages(db_target: Path | str) -> None:
    path = db_target
    service = await service_on(path)
    table_id = await started_table(service)
    table = await service.tables.get(table_id)
    assert table is not None and table.state is not None
    seat0_cards = table.state.hand.held[0]  # type: ignore[union-attr]
    step = table.state.step
    await service.play.act(table_id, 1, step, ActionKind.TRUCO, None)
    await service.play.act(table_id, 2, step + 1, ActionKind.QUIERO, None)
    await service.play.act(table_id, 1, step + 2, ActionKind.PLAY, seat0_cards[0])
    await service.tables.records.put([Record("telegram", table_id, "hand:1", "42")])
    table = await service.tables.get(table_id)
    assert table is not None and table.state is not None
    before = to_json(table.state)
    await service.store.db.close()

    again = await service_on(path)
    reloaded = await again.tables.get(table_id)
    assert reloaded is not None and reloaded.state is not None
    assert to_json(reloaded.state) == before
    assert await again.tables.records.of("telegram", table_id) == {"hand:1": "42"}
    log = await again.store.action_log(table_id)
    assert [seq for seq, _, _ in log] == list(range(len(log)))
    rebuilt = replay(reloaded.config, [parse_any(code) for _, _, code in log])
    assert to_json(rebuilt) == before
    await again.store.db.close()


@pytest.mark.postgresql  # (races: the locks are PostgreSQL's own)
async def test_simultaneous_actions_apply_once(db_target: Path | str) -> None:
    service = await service_on(db_target)
    table_id = await started_table(service)
    table = await service.tables.get(table_id)
    assert table is not None and table.state is not None
    step = table.state.step
    results = await asyncio.gather(
        *[service.play.act(table_id, 1, step, ActionKind.TRUCO, None) for _ in range(10)],
        return_exceptions=True,
    )
    applied = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, Refusal)]
    assert len(applied) == 1 and len(refused) == 9
    assert {r.code for r in refused} == {"stale"}
    log = await service.store.action_log(table_id)
    assert [code for _, _, code in log][1:] == ["0:t"]
    await service.store.db.close()


async def test_one_open_table_per_topic_and_refusals_change_nothing(db_target: Path | str) -> None:
    service = await service_on(db_target)
    first = await service.lobby.open(CHAT, 5, 1, MatchConfig(), "es")
    await service.lobby.open(CHAT, 6, 1, MatchConfig(), "es")
    with pytest.raises(Refusal) as info:
        await service.lobby.open(CHAT, 5, 2, MatchConfig(), "es")
    assert info.value.code == "table_already_open"
    await service.lobby.join(first.id, 1)
    version = first.version
    for call in (
        service.lobby.join(first.id, 1),
        service.lobby.leave(first.id, 9),
        service.lobby.set_option(first.id, 2, "mode"),
        service.lobby.set_option(first.id, 1, "nonsense"),
        service.lobby.cancel(first.id, 2, is_admin=False),
    ):
        with pytest.raises(Refusal):
            await call
    assert first.version == version and first.status is TableStatus.LOBBY
    await service.store.db.close()


async def test_cancelling_a_started_match_records_it_as_cancelled(db_target: Path | str) -> None:
    service = await service_on(db_target)
    table_id = await started_table(service, players=4)
    await service.lobby.cancel(table_id, 2, is_admin=True)
    record = await service.history.record(table_id)
    assert record is not None and record.termination is Termination.CANCELLED
    assert record.winner is None and not record.conceded
    with pytest.raises(Refusal):
        await service.play.act(table_id, 1, 1, ActionKind.MAZO, None)
    await service.store.db.close()


async def test_one_log_line_per_applied_action(
    db_target: Path | str, caplog: pytest.LogCaptureFixture
) -> None:
    service = await service_on(db_target)
    table_id = await started_table(service)
    table = await service.tables.get(table_id)
    assert table is not None and table.state is not None
    with caplog.at_level("INFO", logger="bot.service.play"):
        await service.play.act(table_id, 1, table.state.step, ActionKind.TRUCO, None)
        with pytest.raises(Refusal):
            await service.play.act(table_id, 1, table.state.step, ActionKind.TRUCO, None)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("action ")]
    assert len(lines) == 1
    assert re.fullmatch(
        rf"action table={table_id} user=1 seat=0 action=0:t step=1 took_ms=\d+\.\d", lines[0]
    )
    await service.store.db.close()


async def test_two_processes_on_one_postgresql_apply_each_action_once(
    pg_cluster: Cluster | None,
) -> None:
    """Two services (as two workers) on one database, both taking every tap at once: each
    step is applied by exactly one of them, the other is told the tap is stale, and the log
    replays to the stored state."""
    if pg_cluster is None:
        pytest.skip(INSTALL_HINT)
    url = pg_cluster.new_database()
    first = await service_on(url)
    second = await service_on(url)
    assert first.tables.shared and second.tables.shared
    try:
        table_id = await started_table(first, players=2)
        applied = 0
        for _ in range(40):
            table = await second.tables.get(table_id)
            assert table is not None and table.state is not None
            if not table.is_open or table.state.is_over:
                break
            legal = table.state.legal_actions()
            plays = [a for a in legal if a.kind is ActionKind.PLAY] or legal
            a, b = plays[0], plays[-1]
            ua, ub = table.seats[a.seat], table.seats[b.seat]
            assert ua is not None and ub is not None
            step = table.state.step
            results = await asyncio.gather(
                first.play.act(table_id, ua, step, a.kind, a.card),
                second.play.act(table_id, ub, step, b.kind, b.card),
                return_exceptions=True,
            )
            done = [r for r in results if not isinstance(r, BaseException)]
            refused = [r for r in results if isinstance(r, Refusal)]
            assert len(done) == 1 and len(refused) == 1, results
            # The loser is told its tap is stale (of this round, or of a hand already over).
            assert refused[0].code in ("stale", "stale_round", "stale_hand")
            applied += 1
        assert applied > 10
        # Two copies read at one version: the save over it that comes second is refused and
        # leaves nothing behind (neither its state nor its action log entry).
        one, two = await first.tables.get(table_id), await second.tables.get(table_id)
        assert one is not None and two is not None and one.version == two.version
        assert one.is_open and one.state is not None and not one.state.is_over
        step = one.state.step
        move = one.state.legal_actions()[0]
        user = one.seats[move.seat]
        assert user is not None
        await first.play.apply(one, user, move)
        assert two.state is not None
        with pytest.raises(Refusal):
            await second.play.apply(two, user, two.state.legal_actions()[-1])
        log = await first.store.action_log(table_id)
        assert [code for seq, _, code in log if seq == step] == [move.code]
        final = await first.store.table(table_id)
        assert final is not None and final.state is not None
        log = await first.store.action_log(table_id)
        assert [seq for seq, _, _ in log] == list(range(len(log)))
        rebuilt = replay(final.config, [parse_any(code) for _, _, code in log])
        assert to_json(rebuilt) == to_json(final.state)
    finally:
        await first.store.db.close()
        await second.store.db.close()


@pytest.mark.postgresql
async def test_a_shared_sweep_loads_only_the_tables_with_something_due(
    db_target: Path | str,
) -> None:
    """With several workers every sweep asks the database; it asks for what is due (an old
    lobby, a turn past half its time, a computer player left unmoved), not every live table."""
    db = await open_database(db_target)
    store = Store(db)
    now = 1_000_000.0
    made: dict[str, int] = {}

    async def make(name: str, status: TableStatus, seats: list[int | None], **fields: Any) -> None:
        table = Table(
            id=0, chat_id=-len(made) - 1, thread_id=0, status=status, opener_id=1,
            config=MatchConfig(players=2), seats=seats, language="es",
            created_at=fields.pop("created_at", now), updated_at=fields.pop("updated_at", now),
            **fields,
        )  # fmt: skip
        async with db.transaction() as conn:
            made[name] = await store.insert_table(conn, table)

    try:
        await make("fresh lobby", TableStatus.LOBBY, [1, None])
        await make("old lobby", TableStatus.LOBBY, [1, None], created_at=now - 700)
        await make("no timer", TableStatus.PLAYING, [1, 2])
        await make("early turn", TableStatus.PLAYING, [1, 2], deadline=now + 100, turn_seconds=120)
        await make("late turn", TableStatus.PLAYING, [1, 2], deadline=now + 50, turn_seconds=120)
        await make("late, over", TableStatus.FINISHED, [1, 2], deadline=now - 5, turn_seconds=120)
        await make("bot, moving", TableStatus.PLAYING, [1, -3], updated_at=now - 2)
        await make("bot, stalled", TableStatus.PLAYING, [1, -3], updated_at=now - 30)
        await make("people, quiet", TableStatus.PLAYING, [1, 2], updated_at=now - 30)
        due = await store.due_tables(now, lobby_seconds=600, stalled=10)
        assert {t.id for t in due} == {made["old lobby"], made["late turn"], made["bot, stalled"]}
    finally:
        await db.close()


async def test_the_tap_that_ends_a_match_sends_the_tappers_hand_first(tmp_path: Path) -> None:
    """The last tap's hands go in their place among the new messages, before the end of the
    match decided after them, and a busy bot holds back neither (it once held the tapper's last
    hand a second behind the budget; then the board's last edit landed after the 🏆)."""
    service = await service_on(tmp_path / "t.db")
    # plan() of a move reads the table and the core only: no bot or sender needed.
    planner = Planner(service.tables, service.people, None, service.tournaments)  # type: ignore[arg-type]
    planned: list[tuple[Change, list[Outgoing]]] = []

    class Recorder:
        async def plan(self, change: Change) -> list[Outgoing]:
            rows = await planner.plan(change)
            planned.append((change, rows))
            return rows

        def committed(self, change: Change, rows: Sequence[Outgoing]) -> None:
            pass

    service.changes.subscribe(Recorder())
    table_id = await started_table(service)
    while True:
        table = await service.tables.get(table_id)
        assert table is not None and table.state is not None
        if table.state.is_over:
            break
        action = table.state.legal_actions()[0]
        user = table.seats[action.seat]
        assert user is not None
        await service.play.act(table_id, user, table.state.step, action.kind, action.card)
    change, rows = planned[-1]
    assert change.actor in (1, 2) and any(r.kind == "match_end" for r in rows)
    other = 3 - change.actor
    assert {r.chat_id: r.priority for r in rows if r.kind == "hand"} == {
        change.actor: POST,  # (never held by the budget: only background refreshes are)
        other: POST,
    }
    for user in (1, 2):  # in each player's chat (its lane): the hand, then their ending
        kinds = [r.kind for r in rows if r.chat_id == user]
        assert kinds == ["hand", "text"], kinds
    await service.store.db.close()


async def test_the_commit_that_ends_a_match_waits_for_the_disk(tmp_path: Path) -> None:
    """SQLite commits at synchronous=NORMAL (a power cut may lose the last commits); the one
    that ends a match, after which its seed is public, is made at FULL, and only that one."""
    service = await service_on(tmp_path / "t.db")
    table_id = await started_table(service)
    statements: list[str] = []
    raw = service.store.db.db  # type: ignore[attr-defined]
    raw.set_trace_callback(statements.append)
    table = await service.tables.get(table_id)
    assert table is not None and table.state is not None
    await service.play.act(table_id, 1, table.state.step, ActionKind.TRUCO, None)
    await service.turns.concede(table_id, 2)
    raw.set_trace_callback(None)
    full = [i for i, s in enumerate(statements) if s == "PRAGMA synchronous=FULL"]
    assert len(full) == 1  # the move's commit did not wait; the end's did
    after = statements[full[0] :]
    commit = after.index("COMMIT")
    assert any(s.startswith("INSERT INTO matches") for s in after[:commit])
    assert after[commit + 1] == "PRAGMA synchronous=NORMAL"
    row = await service.store.db.fetchone("PRAGMA synchronous")
    assert row is not None and row[0] == 1  # NORMAL again for everything else
    await service.store.db.close()


async def test_a_tap_from_a_board_one_edit_behind_counts_when_it_means_the_same(
    tmp_path: Path,
) -> None:
    """Beto taps ¡Truco! on a board drawn before Ana played her card: truco is still open to
    him with the same meaning (same round, nothing chanted since), so it counts. A tap from
    before a chant, a finished round or another hand is refused, saying which."""
    service = await service_on(tmp_path / "t.db")
    lobby = await service.lobby.open(CHAT, 0, 1, MatchConfig(players=2, flor=False), "es")
    await service.lobby.join(lobby.id, 1)
    await service.lobby.join(lobby.id, 2)
    table_id = lobby.id

    async def state() -> Any:
        table = await service.tables.get(table_id)
        assert table is not None and table.state is not None and table.state.hand is not None
        return table.state

    s = await state()
    mano = s.hand.turn
    users = {0: 1, 1: 2}
    drawn = s.step  # the board Beto looks at
    strongest = max(s.hand.held[mano], key=lambda c: c.strength)
    await service.play.act(table_id, users[mano], s.step, ActionKind.PLAY, strongest)
    other = 1 - mano
    change = await service.play.act(table_id, users[other], drawn, ActionKind.TRUCO, None)
    assert change.action is not None and change.action.kind is ActionKind.TRUCO
    s = await state()
    assert s.hand.truco_pending == 1
    # A chant was made since `drawn`: an old tap no longer means the same.
    with pytest.raises(Refusal) as info:
        await service.play.act(table_id, users[mano], drawn, ActionKind.MAZO, None)
    assert info.value.code == "stale"
    await service.play.act(table_id, users[mano], s.step, ActionKind.QUIERO, None)
    s = await state()
    assert s.hand.truco_level == 1
    await service.store.db.close()


def test_what_changed_since_a_button_was_drawn() -> None:
    """The rule behind a stale tap, on hands dealt by hand: the same action, still legal,
    only cards played since, in the same round, counts; else the refusal says what changed."""
    from bot.game import Action
    from bot.service.play import what_changed
    from tests.engine.helpers import deal_of, do, start

    def changed(action: Action, step: int) -> tuple[str, str | None, bool] | None:
        refusal = what_changed(state, action, step)
        if refusal is None:
            return None
        since = refusal.params.get("since")
        return refusal.code, since.code if since else None, bool(refusal.params.get("answer"))

    state = start("1e 4c 5o | 3o 4o 5c", MatchConfig(flor=False))
    drawn = state.step
    do(state, "0:p:1e")
    assert changed(Action(1, ActionKind.TRUCO), drawn) is None  # means the same
    assert changed(Action(0, ActionKind.MAZO), drawn) == ("stale", None, False)  # own move
    do(state, "1:t")
    # Beto chanted ¡Truco! since: Ana's button is gone, and she is told she must answer it.
    assert changed(Action(0, ActionKind.MAZO), drawn) == ("stale", "1:t", True)
    do(state, "0:q")
    assert changed(Action(1, ActionKind.MAZO), drawn) == ("stale", "0:q", False)  # an answer
    before = state.step
    do(state, "1:p:3o")  # the ancho takes round 1: seat 0 leads round 2
    assert changed(Action(0, ActionKind.MAZO), before) == ("stale_round", "1:p:3o", False)
    do(state, "0:m")
    state.apply(deal_of("6o 7o 2e | 3b 4b 5b"))
    refusal = what_changed(state, Action(1, ActionKind.MAZO), before)
    assert refusal is not None and refusal.code == "stale_hand"
    assert refusal.params == {"hand": 2}


def test_a_chant_tapped_before_a_chant_of_the_other_family_keeps_its_stake() -> None:
    """R17: an Envido from a button drawn before the rivals' ¡Truco! is chanted over it (it
    means what it meant); an Envido drawn before the rivals' own Envido would raise it (four
    points, not two), an answer would answer another chant, the mazo would cost the truco's
    points: those are refused, saying what changed."""
    from bot.game import Action
    from bot.service.play import what_changed
    from tests.engine.helpers import do, start

    state = start("1e 4c 5o | 3o 4o 5c", MatchConfig(flor=False))
    drawn = state.step
    do(state, "0:t")  # the mano chants ¡Truco! before any card
    assert what_changed(state, Action(1, ActionKind.ENVIDO), drawn) is None
    assert what_changed(state, Action(1, ActionKind.REAL_ENVIDO), drawn) is None
    assert what_changed(state, Action(1, ActionKind.FALTA_ENVIDO), drawn) is None
    for kind in (ActionKind.MAZO, ActionKind.QUIERO, ActionKind.RETRUCO):
        refusal = what_changed(state, Action(1, kind), drawn)
        assert refusal is not None and refusal.params.get("since") == Action(0, ActionKind.TRUCO)
    do(state, "1:e")
    refusal = what_changed(state, Action(0, ActionKind.ENVIDO), drawn)  # own move since
    assert refusal is not None and refusal.code == "stale"

    state = start("1e 4c 5o | 3o 4o 5c", MatchConfig(flor=False))
    drawn = state.step
    do(state, "0:e")  # the mano's own Envido: the other's Envido would now raise it
    refusal = what_changed(state, Action(1, ActionKind.ENVIDO), drawn)
    assert refusal is not None and refusal.params == {"since": Action(0, ActionKind.ENVIDO),
                                                      "answer": True}  # fmt: skip
    do(state, "1:q")  # answered: nothing drawn before it means the same any more
    refusal = what_changed(state, Action(0, ActionKind.TRUCO), drawn)
    assert refusal is not None and refusal.params.get("since") == Action(1, ActionKind.QUIERO)


async def test_a_3v3_match_through_the_core_refuses_senas_in_a_pica_pica_hand(
    tmp_path: Path,
) -> None:
    """Six people at one table (the core takes 3v3; the lobby's buttons do not offer it yet):
    a seña between partners is shown in a redondo, refused during a pica-pica hand (R40), and
    the match, played to its end, is recorded in the league with its six players."""
    service = await service_on(tmp_path / "six.db")
    try:
        table_id = await started_table(service, players=6)
        table = await service.tables.get(table_id)
        assert table is not None and table.state is not None
        change = await service.play.sign(table_id, 1, table.state.step, "ev")  # hand 1: redondo
        assert change.sign == "ev"
        rng = random.Random(6)
        refused_in_a_duel = False
        for _ in range(3000):
            table = await service.tables.get(table_id)
            assert table is not None and table.state is not None
            state = table.state
            if state.is_over:
                break
            if state.hand is not None and state.hand.duel is not None and not refused_in_a_duel:
                seat = next(s for s in range(6) if s not in state.hand.table.all)
                with pytest.raises(Refusal) as refusal:
                    await service.play.sign(table_id, seat + 1, state.step, "ev")
                assert refusal.value.code.value == "no_signs_in_duels"
                refused_in_a_duel = True
            action = rng.choice(state.legal_actions())
            await service.play.act(table_id, action.seat + 1, state.step, action.kind, action.card)
        assert refused_in_a_duel and table.state.is_over
        record = await service.history.record(table_id)
        assert record is not None
        done = await service.tables.get(table_id)
        assert done is not None and done.status is TableStatus.FINISHED
    finally:
        await service.close()

"""SIGKILL in the middle of a tournament's round: `python -m bot` as a separate process, killed
at random moments while four players play their semifinals and final in private (and while a
Swiss's rounds and an arena's matches are played). The bracket moves on once per result, no
match is opened twice, no result counted twice or lost."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
import re
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from tests.e2e.test_kill import (
    Bots,
    live_hand,
    quiet,
    said,
    tap_something,
    whole_log,
)
from tests.fakebot import FakeTelegram, FakeUser, StoredMessage

GROUP = -100_703


async def hands(
    fake: FakeTelegram, users: list[FakeUser], within: float = 30.0
) -> list[tuple[FakeUser, StoredMessage]]:
    """The players with a hand to tap, waited for a while if none has one yet (a format on
    time pairs them again as their ties end)."""
    deadline = time.monotonic() + within
    while not (found := [(u, m) for u in users if (m := live_hand(fake, u)) is not None]):
        if time.monotonic() > deadline:
            break
        await asyncio.sleep(0.02)
    return found


def tourney_state(database: Path) -> tuple[str, dict[str, object]] | None:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10) as conn:
        row = conn.execute("SELECT status, data FROM tournaments ORDER BY id DESC").fetchone()
    return (row[0], json.loads(row[1])) if row else None


async def run_with_kills(
    fake: FakeTelegram,
    tmp_path: Path,
    users: list[FakeUser],
    command: str,
    seed: int,
    most_taps: int,
    enough: Callable[[Path], bool] = lambda _: False,
    calls: float = 0.3,
) -> tuple[int, int, tuple[str, dict[str, object]] | None]:
    """`command` opens a tournament in the group, `users` sign up and the first starts it; then
    they tap at random until it is over (or `enough` says so of the database, the bot quiet),
    the bot SIGKILLed at every 25th tap and started again (`calls`: how often a tap is a call,
    see `tap_something`). The kills, the taps and the
    tournament's last stored state."""
    rng = random.Random(seed)
    database = tmp_path / "kill.db"
    fake.started.update(u.id for u in users)
    # (people only: no computer player thinks, so each start's two thinking processes, spawned
    # and warmed afresh at every restart, are left out here; tests/e2e/test_kill.py keeps them)
    bots = Bots(fake, tmp_path, ai_workers="0")
    bot = await bots.start()
    kills = taps = 0
    try:
        users[0].send(GROUP, command)
        await quiet(fake, database)
        message = next(m for m in reversed(fake.live(GROUP)) if "Torneo #" in m.text)
        for user in users:
            await user.tap(GROUP, message.message_id, "✋ Anotarme", within=60)
            await quiet(fake, database)
        await users[0].tap(GROUP, message.message_id, "▶️ Empezar", within=60)
        await quiet(fake, database)
        while (found := tourney_state(database)) is not None and found[0] == "running":
            if enough(database):
                break
            options = await hands(fake, users)
            assert options, "the tournament waits on nobody"
            user, hand = rng.choice(options)
            query = tap_something(rng, user, hand, calls)
            taps += 1
            assert taps < most_taps
            if taps % 25 == 7:  # (a kill at a random moment of every 25th tap: see test_kill)
                bot.kill()
                await bot.wait()
                kills += 1
                bot = await bots.start()
                await quiet(fake, database)
            else:  # answered, and what it decided to say said (a stale tap is only refused)
                await user.answer_of(query, within=60)
                await said(database)
    finally:
        bot.kill()
        await bot.wait()
        await bots.close()
    return kills, taps, found


async def test_kill_9_mid_tournament_and_start_again(fake: FakeTelegram, tmp_path: Path) -> None:
    database = tmp_path / "kill.db"
    users = [FakeUser(fake, 11 + i, name) for i, name in enumerate(["Ana", "Beto", "Caro", "Dani"])]
    kills, taps, found = await run_with_kills(fake, tmp_path, users, "/torneo 15", 5, 3000)
    assert kills >= 5, kills
    status, data = found  # type: ignore[misc]
    assert status == "finished" and data["champion"] is not None
    fixtures = data["fixtures"]
    assert len(fixtures) == 3 and all(len(f["g"]) == 1 for f in fixtures)  # type: ignore[arg-type]
    db = sqlite3.connect(database)
    db.row_factory = sqlite3.Row
    try:
        assert db.execute("SELECT count(*) FROM outbox").fetchone()[0] == 0
        games = db.execute("SELECT * FROM games WHERE tournament IS NOT NULL").fetchall()
        assert sorted(g["tournament"] for g in games) == ["1:0:0:0", "1:0:1:0", "1:1:0:0"]
        for game in games:
            whole_log(db, game)
            assert game["status"] == "finished"
    finally:
        db.close()
    results = [t for t in fake.texts(GROUP) if re.match(r"🏆 (Semifinales|Final): ", t)]
    distinct = set(results)
    assert len(distinct) == 3, distinct  # each result told...
    duplicates = len(results) - len(distinct)
    print(f"\nkills survived: {kills}, taps: {taps}, results told twice: {duplicates}")
    assert duplicates <= kills  # ...at most once more a crash (sent, then killed before marked)


async def test_kill_9_mid_swiss_and_start_again(fake: FakeTelegram, tmp_path: Path) -> None:
    """A Swiss of five over two rounds, killed at random moments: each round paired once (its
    bye given once), each result counted once, the second round opened after the first."""
    database = tmp_path / "kill.db"
    names = ["Ana", "Beto", "Caro", "Dani", "Eva"]
    users = [FakeUser(fake, 31 + i, name) for i, name in enumerate(names)]
    kills, taps, found = await run_with_kills(fake, tmp_path, users, "/torneo suizo 2 15", 8, 4000)
    assert kills >= 3, kills
    status, data = found  # type: ignore[misc]
    assert status == "finished" and data["champion"] is not None
    fixtures = data["fixtures"]
    assert len(fixtures) == 6  # type: ignore[arg-type]
    byes = [f for f in fixtures if f["bye"]]  # type: ignore[union-attr, index]
    assert [f["r"] for f in byes] == [0, 1] and byes[0]["a"] != byes[1]["a"]  # type: ignore[index]
    played = [f for f in fixtures if not f["bye"]]  # type: ignore[union-attr, index]
    assert all(len(f["g"]) == 1 for f in played)  # type: ignore[index]
    db = sqlite3.connect(database)
    db.row_factory = sqlite3.Row
    try:
        assert db.execute("SELECT count(*) FROM outbox").fetchone()[0] == 0
        games = db.execute("SELECT * FROM games WHERE tournament IS NOT NULL").fetchall()
        tags = sorted(g["tournament"] for g in games)
        assert tags == ["1:0:0:0", "1:0:1:0", "1:1:0:0", "1:1:1:0"]
        for game in games:
            whole_log(db, game)
            assert game["status"] == "finished"
    finally:
        db.close()
    results = [t for t in fake.texts(GROUP) if re.match(r"🏆 Ronda \d de 2: ", t)]
    distinct = set(results)
    assert len(distinct) == 4, distinct
    duplicates = len(results) - len(distinct)
    print(f"\nkills survived: {kills}, taps: {taps}, results told twice: {duplicates}")
    assert duplicates <= kills


ARENA_COUNTED = 6  # arena matches counted before the test stops (its half hour never runs out)


def arena_enough(database: Path) -> bool:
    """`ARENA_COUNTED` arena matches counted, a win on a streak (scored double) among them."""
    found = tourney_state(database)
    if found is None:
        return False
    fixtures: list[dict[str, object]] = found[1]["fixtures"]  # type: ignore[assignment]
    entries: list[list[int]] = found[1]["entries"]  # type: ignore[assignment]
    counted = sum(1 for f in fixtures if f["w"] is not None)
    return counted >= ARENA_COUNTED and arena_points(fixtures, len(entries))[3] > 0


def arena_points(
    fixtures: list[dict[str, object]], entries: int
) -> tuple[list[int], list[int], dict[tuple[int, int], bool], int, set[tuple[int, int]]]:
    """Each entry's points by the arena's rule, reckoned here from its decided ties in the
    order they were paired (a win 2, a loss 0, a win after two wins in a row 4 until a loss),
    its streak now, of each tie whether its winner is on a streak after it (🔥, told), how
    many wins scored double, and which ties (told with "🔥 ×2")."""
    points, streak = [0] * entries, [0] * entries
    doubled = 0
    twice: set[tuple[int, int]] = set()
    fire: dict[tuple[int, int], bool] = {}
    for f in sorted(fixtures, key=lambda f: (f["r"], f["s"])):
        if f["w"] is None:
            continue
        for entry in (f["a"], f["b"]):
            assert isinstance(entry, int)
            if f["w"] == entry:
                points[entry] += 2 if streak[entry] < 2 else 4
                doubled += streak[entry] >= 2
                if streak[entry] >= 2:
                    twice.add((f["r"], f["s"]))  # type: ignore[arg-type]
                streak[entry] += 1
                fire[(f["r"], f["s"])] = streak[entry] >= 2  # type: ignore[index]
            else:
                streak[entry] = 0
    return points, streak, fire, doubled, twice


async def test_kill_9_mid_arena_and_start_again(fake: FakeTelegram, tmp_path: Path) -> None:
    """A relámpago of five, killed at random moments until six matches are counted (its half
    hour is not waited for): each finished table counted once, in its tie, and the points by
    the arena's rule; no tie with two tables, nobody at two tables at once; each result told
    once (once more at most a kill); every table's log whole."""
    database = tmp_path / "kill.db"
    names = ["Ana", "Beto", "Caro", "Dani", "Eva"]
    users = [FakeUser(fake, 51 + i, name) for i, name in enumerate(names)]
    kills, taps, found = await run_with_kills(
        fake, tmp_path, users, "/torneo relampago 30 15", 9, 4000,
        enough=arena_enough, calls=3.0,
    )  # fmt: skip
    assert kills >= 3, kills
    status, data = found  # type: ignore[misc]
    assert status == "running" and data["champion"] is None  # (the half hour is still going)
    fixtures: list[dict[str, object]] = data["fixtures"]  # type: ignore[assignment]
    entries: list[list[int]] = data["entries"]  # type: ignore[assignment]
    decided = [f for f in fixtures if f["w"] is not None]
    assert len(decided) >= ARENA_COUNTED
    busy = [e for f in fixtures if f["w"] is None for e in (f["a"], f["b"])]
    assert len(busy) == len(set(busy)), fixtures  # nobody in two ties undecided
    db = sqlite3.connect(database)
    db.row_factory = sqlite3.Row
    try:
        assert db.execute("SELECT count(*) FROM outbox").fetchone()[0] == 0
        games = db.execute("SELECT * FROM games WHERE tournament IS NOT NULL").fetchall()
        tags = [g["tournament"] for g in games]
        assert len(tags) == len(set(tags)), tags  # no tie played at two tables
        by_tag = {g["tournament"]: g for g in games}
        assert set(by_tag) == {f"1:{f['r']}:{f['s']}:0" for f in fixtures}, (tags, fixtures)
        spans: dict[int, list[tuple[float, float]]] = {}
        for f in fixtures:
            game = by_tag[f"1:{f['r']}:{f['s']}:0"]
            state = whole_log(db, game)
            told: list[list[object]] = f["g"]  # type: ignore[assignment]
            if f["w"] is None:  # in play: nothing of it counted
                assert told == [] and game["status"] == "playing", (f, game["status"])
            else:  # finished, and counted once, in its tie, as it ended
                assert game["status"] == "finished" and len(told) == 1, (f, game["status"])
                table, side, points, _, _ = told[0]
                assert table == game["id"] and list(state.scores) == points
                assert state.winner == side and f["w"] == (f["a"], f["b"])[side]  # type: ignore[index]
            for entry in (f["a"], f["b"]):
                assert isinstance(entry, int)
                spans.setdefault(entry, []).append((game["started_at"], game["ended_at"] or 1e20))
        for entry, times in spans.items():  # nobody at two tables at once
            times.sort()
            assert all(b[0] >= a[1] for a, b in itertools.pairwise(times)), (entry, times)
    finally:
        db.close()
    name = {e: names[users.index(next(u for u in users if u.id == ids[0]))]
            for e, ids in enumerate(entries)}  # fmt: skip
    results = [t for t in fake.texts(GROUP) if t.startswith("🏆 Relámpago: ")]
    points, streak, fire, doubled, twice = arena_points(fixtures, len(entries))
    assert doubled > 0
    board = next(m for m in reversed(fake.live(GROUP)) if "Torneo #" in m.text).text
    print(f"\n{board}")
    row = r"^ *\d+ (\w+) +(\d+) +(\d+) +[-+]?\d+( 🔥)?(?:</pre>)?$"
    lines = re.findall(row, board, re.MULTILINE)
    assert sorted((n, int(p), int(pj), bool(f)) for n, p, pj, f in lines) == sorted(
        (name[e], points[e], sum(1 for f in decided if e in (f["a"], f["b"])), streak[e] >= 2)
        for e in range(len(entries))
    ), board  # the leaderboard the group sees: the points by the rule, the streaks
    for f in decided:
        a, b = name[f["a"]], name[f["b"]]  # type: ignore[index]
        x, y = f["g"][0][2]  # type: ignore[index]
        double = (f["r"], f["s"]) in twice  # (a win a streak doubled says so)
        line = f"🏆 Relámpago: <b>{a}</b> {x}–{y} <b>{b}</b>" + (" · 🔥 ×2." if double else ".")
        hot = fire[(f["r"], f["s"])]  # type: ignore[index]
        assert any(t.startswith(line) and ("en racha" in t) == hot for t in results), (
            line, results)  # fmt: skip
    distinct = set(results)
    duplicates = len(results) - len(decided)
    print(
        f"counted: {len(decided)} ({doubled} scored double), kills survived: {kills}, "
        f"taps: {taps}, results told twice: {duplicates}"
    )
    assert len(distinct) <= len(decided) <= len(results) and duplicates <= kills

"""Many tournaments at once: the CPU a result costs to move a bracket on, and what each group
is sent.

    python bench/tournaments.py [--groups 100] [--entries 8] [--database PATH]

`--groups` tournaments of `--entries` players (1v1 to 15, eliminación directa), one per group,
all running at once on one SQLite file (the core in this process, as `python -m bot` runs it,
without Telegram): every round's matches are played out move by move (the losing side goes to
the mazo, the other plays a card), each tournament settled as its matches end. Prints the CPU
per settle that counted a result (p50, p99), the wall time of the whole run, and the rows the
Telegram adapter would send to each group (the sign-up/bracket message's edits and the result
messages): per group and per round.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.core import Core
from bot.game import ActionKind, MatchConfig
from bot.model.outbox import Outgoing, Planned
from bot.service.changes import Change, ChangeKind
from bot.storage.connect import open_database
from bot.storage.repo import Store
from bot.tourney.model import Status, Tournament


class GroupRows:
    """A subscriber that counts what a front end would send to the groups: the tournament's
    message (one edit per change, coalesced in a real lane) and one message per result."""

    def __init__(self) -> None:
        self.rows: dict[int, int] = {}

    async def plan(self, change: Change) -> list[Planned]:
        if change.kind is ChangeKind.TOURNEY and change.tournament is not None:
            said = 1 + (change.note in ("result", "champion", "started", "cancelled"))
            chat = change.tournament.chat_id
            self.rows[chat] = self.rows.get(chat, 0) + said
        return []

    def committed(self, change: Change, rows: list[Outgoing]) -> None:
        return None


async def play_out(core: Core, table_id: int) -> None:
    while True:
        table = await core.tables.get(table_id)
        if table is None or table.state is None or not table.is_open:
            return
        state = table.state
        legal = state.legal_actions()
        mazo = [a for a in legal if a.kind is ActionKind.MAZO and a.seat % 2 == 1]
        plays = [a for a in legal if a.kind is ActionKind.PLAY]
        action = mazo[0] if mazo else plays[0] if plays else legal[0]
        user = table.seats[action.seat]
        assert user is not None
        await core.play.act(table_id, user, state.step, action.kind, action.card)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--groups", type=int, default=100)
    parser.add_argument("--entries", type=int, default=8)
    parser.add_argument("--database", type=Path, default=None)
    args = parser.parse_args()
    path = args.database or Path(tempfile.mkdtemp()) / "bench.db"
    db = await open_database(path)
    core = Core.build(Store(db), seed=1)
    counter = GroupRows()
    core.changes.subscribe(counter)
    cpu: list[float] = []
    wall_each: list[float] = []
    # Each tournament is settled here, one at a time after each round, so that a settle's CPU
    # is its own (the core would settle it in a task the moment its match's commit is done).
    core.tournaments.committed = lambda change, rows: None  # type: ignore[method-assign]
    ids = []
    user = 1
    for group in range(args.groups):
        chat = -1_000_000 - group
        base = Tournament(0, chat, 0, user, "es", 0.0, 0.0, config=MatchConfig(target=15))
        t = await core.tournaments.open(chat, 0, user, "es", base)
        for _ in range(args.entries):
            await core.people.see(user, f"P{user}", None)
            await core.tournaments.sign(t.id, user)
            user += 1
        ids.append(t.id)
    wall = time.perf_counter()
    for t_id in ids:
        await core.tournaments.begin(t_id, None, True)
    await core.tournaments.idle()
    rounds = 0
    while True:
        live = []
        for t_id in ids:
            found = await core.tournaments.get(t_id)
            if found is None or found.status is not Status.RUNNING:
                continue
            for table_id in (await core.tournaments.tables_of(t_id)).values():
                table = await core.tables.get(table_id)
                if table is not None and table.is_open:
                    live.append(table_id)
        if not live:
            break
        rounds += 1
        await asyncio.gather(*(play_out(core, table_id) for table_id in live))
        for t_id in ids:
            start, clock = time.process_time(), time.perf_counter()
            done = await core.tournaments.settle(t_id)
            if done.results:
                cpu.append(time.process_time() - start)
                wall_each.append(time.perf_counter() - clock)
    wall = time.perf_counter() - wall
    finished = [await core.tournaments.get(t_id) for t_id in ids]
    champions = sum(1 for t in finished if t is not None and t.champion is not None)
    cpu.sort()
    per_group = sorted(counter.rows.values())
    print(f"{args.groups} tournaments of {args.entries}: {champions} champions, {rounds} rounds,"
          f" {wall:.1f} s wall")  # fmt: skip
    wall_each.sort()
    p99 = cpu[int(0.99 * (len(cpu) - 1))]
    wall_p99 = wall_each[int(0.99 * (len(wall_each) - 1))]
    print(f"CPU per settle that counted a result (and opened what follows): p50"
          f" {1000 * statistics.median(cpu):.2f} ms, p99 {1000 * p99:.2f} ms ({len(cpu)} settles);"
          f" wall p99 {1000 * wall_p99:.1f} ms")  # fmt: skip
    median = per_group[len(per_group) // 2]
    print(f"rows for each group's chat over the whole tournament: median {median},"
          f" most {per_group[-1]}; per round: {per_group[-1] / max(rounds, 1):.1f}")  # fmt: skip
    await db.close()


if __name__ == "__main__":
    asyncio.run(main())

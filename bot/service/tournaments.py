"""A group's tournaments: sign-ups, the start, and a bracket that runs itself.

A tournament is one row (`bot.league.tournament` for its rules); each match it plays is a table
of its own, tagged with the tie and the match of the series it plays (`tag_of`: unique in the
database, so two processes never open one twice). `settle` is the one step that moves a
tournament on, and anyone may run it at any time: it counts the results of its finished tables
(each once), opens the tables of the ties that can be played, and starts any left unstarted.
It runs when a tournament's table ends (after that commit) and on the sweep, so a restart in
the middle of a round loses and duplicates nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from bot.league.later import REMIND_BEFORE
from bot.league.tournament import (
    SIGNUP_SECONDS,
    Fixture,
    Status,
    Tournament,
    can_start,
    fits,
    misfit,
    parse_tag,
    playable,
    record,
    seats_for,
    sides_of,
    start,
    tag_of,
    tick,
)
from bot.league.tournament import (
    Refusal as Why,
)
from bot.model.errors import Unavailable
from bot.model.outbox import Outgoing, Planned
from bot.model.outcome import Outcome, Termination
from bot.model.refusals import Refused
from bot.model.table import BOT_IDS, Table, TableStatus
from bot.service.changes import (
    Change,
    ChangeKind,
    Conflict,
    Refusal,
    TableChange,
    TourneyChange,
    TourneyNote,
)
from bot.service.history import History
from bot.service.play import Play
from bot.service.unit import Tables
from bot.storage.db import Conn, is_conflict
from bot.storage.tournaments import TournamentStore

log = logging.getLogger(__name__)

RETRIES = 5
SETTLE_EVERY = 5.0  # seconds between two sweeps' looks at a running tournament
_WHY = {
    Why.TOO_FEW: Refused.TOURNEY_TOO_FEW,
    Why.TOO_MANY: Refused.TOURNEY_TOO_MANY,
    Why.TEAMS_UNEVEN: Refused.TOURNEY_UNEVEN,
    Why.TEAM_MISFIT: Refused.TOURNEY_TEAM_MISFIT,
}
OPTIONS = ("format", "mode", "target", "flor", "series", "timer", "bots")
MOST_SIGNED = 64


@dataclass(frozen=True)
class Settled:
    """What one settle did: results counted, tables opened."""

    results: int = 0
    opened: int = 0


def _never_came(table: Table) -> set[int]:
    """The sides with people at the table none of whom ever acted by their own hand (a side
    of computer players only came: it plays)."""
    never = set()
    for side in (0, 1):
        seated = [table.seats[s] for s in table.geometry.of_side(side)]
        people = [u for u in seated if u is not None and u > 0]
        if people and not any(u in table.came for u in people):
            never.add(side)
    return never


class Tournaments:
    def __init__(
        self,
        tables: Tables,
        play: Play,
        *,
        clock: Callable[[], float] = time.time,
        seed: int | None = None,
        start_window: float | None = None,
    ) -> None:
        self.tables = tables
        self.play = play
        self.clock = clock
        self.seed = seed
        self.store = TournamentStore(tables.store.db)
        self.league = History(tables.store)  # the league's standings, to seed by
        self.start_window = start_window  # None: two turns' time of the tournament
        self._locks: dict[int, asyncio.Lock] = {}
        self._looked: dict[int, float] = {}  # tournament -> when a sweep last settled it
        self._minutes: dict[int, int] = {}  # tournament on time -> the minutes left last shown
        self._tasks: set[asyncio.Task[None]] = set()
        self._broken: set[int] = set()  # tournaments whose step raised here (logged once)
        self.settles = 0  # (counted: the tests wait on it)

    # -- a subscriber of the core: a tournament's table that ended moves it on -----------------
    async def plan(self, change: Change) -> Sequence[Planned]:
        return []

    def committed(self, change: Change, rows: Sequence[Outgoing]) -> None:
        table = change.table
        if table is None or table.tournament is None or table.is_open:
            return
        tournament = parse_tag(table.tournament)[0]
        task = asyncio.get_running_loop().create_task(self._settle_quietly(tournament))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _settle_quietly(self, tournament_id: int) -> None:
        try:
            await self.settle(tournament_id)
        except (Refusal, Conflict, Unavailable) as error:  # the sweep comes back to it
            log.info("tournament %s not settled now: %s", tournament_id, error)
        except Exception as error:
            await self._broke(tournament_id, error)

    async def _broke(self, tournament_id: int, error: Exception) -> None:
        """A step of a tournament raised: logged once (here: the first time in this process,
        and never again once it is marked), marked broken for its opener and the group to see
        and call off; the sweep leaves it alone from then on. Nothing else waits on it."""
        if tournament_id in self._broken:
            return
        self._broken.add(tournament_id)
        log.error("tournament %s is broken: %r", tournament_id, error, exc_info=error)
        what = type(error).__name__

        async def change(t: Tournament) -> TourneyNote:
            if t.broken is not None or not t.is_open:
                raise Refusal(Refused.NO_TOURNEY)  # (marked already, or over)
            t.broken = what
            return TourneyNote.BROKEN

        try:
            await self._change(tournament_id, None, change)
        except Refusal:
            pass
        except Exception as again:  # (the mark itself failed: it stays known in this process)
            log.warning("tournament %s not marked broken: %r", tournament_id, again)

    def busy(self) -> bool:
        """Settles started after commits still running."""
        return bool(self._tasks)

    async def idle(self) -> None:
        """Wait for the settles started after commits (a clean stop, the tests)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # -- reading -----------------------------------------------------------------------------
    async def get(self, tournament_id: int) -> Tournament | None:
        return await self.store.get(tournament_id)

    async def open_in(self, chat_id: int, thread_id: int) -> Tournament | None:
        return await self.store.open_in(chat_id, thread_id)

    async def past(self, chat_id: int) -> list[Tournament]:
        return await self.store.past(chat_id)

    async def record_of(self, chat_id: int, user_id: int) -> tuple[int, int]:
        """Tournaments of this group a person played, and won."""
        return await self.store.won(chat_id, user_id)

    async def tables_of(self, tournament_id: int) -> dict[str, int]:
        return await self.store.tables_of(tournament_id)

    async def match_of(self, user_id: int, chat_id: int | None) -> Table | None:
        """The tournament match a person is playing now (in that group's tournaments, or in
        any), or None."""
        for t in await self.store.open_ones():
            if t.status is not Status.RUNNING or (chat_id is not None and t.chat_id != chat_id):
                continue
            if t.entry_of(user_id) is None:
                continue
            for table_id in (await self.store.tables_of(t.id)).values():
                table = await self.tables.get(table_id)
                if table is not None and table.is_open and table.seat_of(user_id) is not None:
                    return table
        return None

    # -- sign-ups ----------------------------------------------------------------------------
    async def open(
        self, chat_id: int, thread_id: int, opener_id: int, language: str, base: Tournament
    ) -> Tournament:
        """Open sign-ups in a group (or topic): one open tournament there at a time. `base`
        carries the options asked for."""
        now = self.clock()
        if base.starts_at is not None and base.starts_at <= now:
            raise Refusal(Refused.TOURNEY_BAD_TIME)
        closes = base.starts_at if base.starts_at is not None else now + SIGNUP_SECONDS
        t = replace(
            base, id=0, chat_id=chat_id, thread_id=thread_id, opener_id=opener_id,
            language=language, created_at=now, updated_at=now, closes_at=closes,
            status=Status.SIGNUP, signed=[], entries=[], fixtures=[], version=1, reminded=False,
        )  # fmt: skip
        for _ in range(RETRIES):
            existing = await self.store.open_in(chat_id, thread_id)
            if existing is not None:
                raise Refusal(Refused.TOURNEY_ALREADY_OPEN)
            try:
                async with self.tables.store.db.transaction() as conn:
                    t.id, t.number = await self.store.insert(conn, t)
                    await self._rows(conn, TourneyChange(t, TourneyNote.OPENED, opener_id))
            except Unavailable as error:
                raise Refusal(Refused.DB_BUSY) from error
            except Exception as error:
                if not is_conflict(error):
                    raise
                continue  # one opened meanwhile in this topic, or another took the number
            return t
        raise Refusal(Refused.DB_BUSY)

    async def sign(self, tournament_id: int, user_id: int) -> Tournament:
        async def change(t: Tournament) -> TourneyNote:
            if t.status is not Status.SIGNUP:
                raise Refusal(Refused.TOURNEY_STARTED)
            if user_id in t.signed:
                raise Refusal(Refused.ALREADY_SIGNED)
            if len(t.signed) >= MOST_SIGNED:
                raise Refusal(Refused.TOURNEY_FULL)
            t.signed.append(user_id)
            return TourneyNote.SIGNED

        return await self._change(tournament_id, user_id, change)

    async def unsign(self, tournament_id: int, user_id: int) -> Tournament:
        async def change(t: Tournament) -> TourneyNote:
            if t.status is not Status.SIGNUP:
                raise Refusal(Refused.TOURNEY_STARTED)
            if user_id not in t.signed:
                raise Refusal(Refused.NOT_SIGNED)
            t.signed.remove(user_id)
            team = t.team_of(user_id)
            if team is not None:  # the others stay signed up, to be drawn
                t.teams.remove(team)
                t.invites = {k: v for k, v in t.invites.items() if v != user_id}
            return TourneyNote.SIGNED

        return await self._change(tournament_id, user_id, change)

    async def invite(self, tournament_id: int, user_id: int) -> tuple[Tournament, str]:
        """Sign up with a partner (2v2, 3v3): the inviter is signed up, and gets a link (its
        token) that signs up whoever opens it as their partner."""
        token = secrets.token_urlsafe(9)

        async def change(t: Tournament) -> TourneyNote:
            if t.status is not Status.SIGNUP:
                raise Refusal(Refused.TOURNEY_STARTED)
            if t.team_size == 1:
                raise Refusal(Refused.BAD_BUTTON)
            team = t.team_of(user_id)
            if team is not None and len(team) >= t.team_size:
                raise Refusal(Refused.TEAM_FULL)
            if user_id not in t.signed:
                if len(t.signed) >= MOST_SIGNED:
                    raise Refusal(Refused.TOURNEY_FULL)
                t.signed.append(user_id)
            if team is None:
                t.teams.append([user_id])
            t.invites = {k: v for k, v in t.invites.items() if v != user_id}
            t.invites[token] = user_id
            return TourneyNote.SIGNED

        return await self._change(tournament_id, user_id, change), token

    async def open_with_invite(self, token: str) -> Tournament | None:
        """The open tournament a partner's link belongs to."""
        return next((t for t in await self.store.open_ones() if token in t.invites), None)

    async def join_team(self, token: str, user_id: int) -> tuple[Tournament, int]:
        """Whoever opens a partner's link joins their team (and so the tournament)."""
        found = next((t for t in await self.store.open_ones() if token in t.invites), None)
        if found is None:
            raise Refusal(Refused.NO_TOURNEY)
        inviter = found.invites[token]

        async def change(t: Tournament) -> TourneyNote:
            if t.status is not Status.SIGNUP or token not in t.invites:
                raise Refusal(Refused.TOURNEY_STARTED)
            team = t.team_of(inviter)
            if team is None or len(team) >= t.team_size:
                raise Refusal(Refused.TEAM_FULL)
            if user_id == inviter or user_id in team:
                raise Refusal(Refused.ALREADY_SIGNED)
            mine = t.team_of(user_id)
            if mine is not None:  # leaving a team of one's own (alone in it) for this one
                if len(mine) > 1:
                    raise Refusal(Refused.ALREADY_SIGNED)
                t.teams.remove(mine)
            if user_id not in t.signed:
                if len(t.signed) >= MOST_SIGNED:
                    raise Refusal(Refused.TOURNEY_FULL)
                t.signed.append(user_id)
            team.append(user_id)
            if len(team) >= t.team_size:
                t.invites.pop(token, None)
            return TourneyNote.SIGNED

        return await self._change(found.id, user_id, change), inviter

    async def pause(self, tournament_id: int, user_id: int) -> tuple[Tournament, bool]:
        """An arena's player asks not to be paired for now, or to be paired again (True:
        paused now). A match in play is not touched: it is played out and counts."""
        paused = False

        async def change(t: Tournament) -> TourneyNote:
            nonlocal paused
            if t.status is not Status.RUNNING or not t.rules.runs_on_time:
                raise Refusal(Refused.BAD_BUTTON)
            entry = t.entry_of(user_id)
            if entry is None:
                raise Refusal(Refused.NOT_SIGNED)
            paused = entry not in t.paused
            if paused:
                t.paused.append(entry)
            else:
                t.paused.remove(entry)
            return TourneyNote.PAUSED

        t = await self._change(tournament_id, user_id, change)
        await self.settle(tournament_id)
        return t, paused

    async def option(
        self, tournament_id: int, user_id: int, option: str, is_admin: bool
    ) -> Tournament:
        """Whoever opened it (or an admin) taps an option: its next value."""
        if option not in OPTIONS:
            raise Refusal(Refused.BAD_BUTTON)

        async def change(t: Tournament) -> TourneyNote:
            if t.status is not Status.SIGNUP:
                raise Refusal(Refused.TOURNEY_STARTED)
            if user_id != t.opener_id and not is_admin:
                raise Refusal(Refused.ONLY_TOURNEY_OPENER)
            after = t.cycled(option)
            if option == "mode" and after.config.players == t.config.players:
                # no other mode seats every team signed up together: said, nothing changes
                biggest = max((len(team) for team in t.teams), default=1)
                raise Refusal(Refused.TOURNEY_TEAM_MISFIT, count=biggest)
            t.format, t.config, t.series = after.format, after.config, after.series
            t.turn_seconds, t.bots = after.turn_seconds, after.bots
            return TourneyNote.OPTION

        return await self._change(tournament_id, user_id, change)

    async def begin(self, tournament_id: int, user_id: int | None, is_admin: bool) -> Tournament:
        """Close the sign-ups and draw the bracket (whoever opened it, an admin, or the clock:
        `user_id` None); then its first matches open."""
        ratings = await self._ratings(tournament_id)

        async def change(t: Tournament) -> TourneyNote:
            if t.status is not Status.SIGNUP:
                raise Refusal(Refused.TOURNEY_STARTED)
            if user_id is not None and user_id != t.opener_id and not is_admin:
                raise Refusal(Refused.ONLY_TOURNEY_OPENER)
            why = can_start(t)
            if why is not None:
                raise Refusal(_WHY[why[0]], count=why[1])
            seed = None if self.seed is None else f"{self.seed}:{t.id}"
            start(t, ratings, random.Random(seed), self.clock())
            if not fits(t):  # (nothing is saved: it stays open for sign-ups)
                raise Refusal(Refused.TOURNEY_TEAM_MISFIT, count=misfit(t) or t.team_size)
            return TourneyNote.STARTED

        t = await self._change(tournament_id, user_id, change)
        await self.settle(tournament_id)
        return t

    async def cancel(
        self, tournament_id: int, user_id: int | None, is_admin: bool, finish_matches: bool,
        note: TourneyNote = TourneyNote.CANCELLED,
    ) -> Tournament:  # fmt: skip
        """Call the tournament off (whoever opened it, or an admin). Its matches in play are
        cancelled, or (`finish_matches`) left to finish as matches of their own. `note`:
        "called_off" when the sign-ups of one set for later closed with too few (told to those
        signed up too)."""

        async def change(t: Tournament) -> TourneyNote:
            if not t.is_open:
                raise Refusal(Refused.NO_TOURNEY)
            if user_id is not None and user_id != t.opener_id and not is_admin:
                raise Refusal(Refused.ONLY_TOURNEY_OPENER)
            t.status = Status.CANCELLED
            t.ended_at = self.clock()
            return note

        t = await self._change(tournament_id, user_id, change)
        if not finish_matches:
            for table_id in (await self.store.tables_of(tournament_id)).values():
                table = await self.tables.get(table_id)
                if table is not None and table.is_open:
                    with contextlib.suppress(Refusal):
                        await self._cancel_table(table.id)
        return t

    async def _cancel_table(self, table_id: int) -> None:
        async with self.tables.locked(table_id):
            table = await self.tables.get(table_id)
            if table is None or not table.is_open:
                return
            was = table.status
            table.status = TableStatus.CANCELLED
            table.ended_at = self.clock()
            if was is TableStatus.PLAYING:
                table.outcome = Outcome.cancelled(table.scores)
            await self.tables.commit(table, TableChange(ChangeKind.CANCELLED, table, was=was))

    # -- the one step that moves a tournament on ---------------------------------------------
    async def settle(self, tournament_id: int) -> Settled:
        """Count the results of its finished tables (each once), decide walkovers, open the
        tables of the ties that can be played now and start any left unstarted. Safe to run
        at any time, by any process, as often as wanted."""
        self.settles += 1
        counted = 0
        for _ in range(RETRIES):
            try:
                counted = await self._count(tournament_id)
                break
            except Conflict:
                continue
        return Settled(counted, await self._open_matches(tournament_id))

    async def _count(self, tournament_id: int) -> int:
        stalled: list[tuple[int, frozenset[int], int]] = []  # tables with a side that never
        # came: (table, the sides absent, the side that loses by walkover)
        async with self._lock(tournament_id):
            t = await self.store.get(tournament_id)
            if t is None or t.status is not Status.RUNNING or t.broken is not None:
                return 0
            window = self.start_window or 2.0 * t.turn_seconds
            tags = await self.store.tables_of(tournament_id)
            results: list[tuple[int, int, int]] = []
            for tag, table_id in sorted(tags.items(), key=lambda kv: parse_tag(kv[0])):
                _, round_, slot, _ = parse_tag(tag)
                fixture = t.fixture(round_, slot)
                table = await self.tables.get(table_id)
                if fixture is None or table is None or fixture.decided:
                    continue
                if table.is_open:
                    absent = self._absent(table, window)
                    if absent:
                        stalled.append((table.id, absent, self._loser(t, fixture, absent)))
                    continue
                outcome = table.outcome
                if table.status is not TableStatus.FINISHED or outcome is None:
                    continue
                if outcome.winner is None:
                    continue  # cancelled: the tie is played again at a new table
                walkover = outcome.termination is Termination.WALKOVER
                nobody = walkover and len(_never_came(table)) == 2
                ended = table.ended_at if table.ended_at is not None else self.clock()
                if record(t, fixture, table.id, outcome.winner, outcome.scores, walkover, nobody,
                          ended):  # fmt: skip
                    results.append((round_, slot, len(fixture.games) - 1))
            moved = tick(t, self.clock())  # (a format on time: pairs whoever is free, ends)
            if results or moved:
                over = t.champion is not None  # (the last result decided it, or the clock)
                if over:
                    t.ended_at = self.clock()
                note = (
                    TourneyNote.CHAMPION if over
                    else TourneyNote.RESULT if results else TourneyNote.PAIRED
                )  # fmt: skip
                await self._save(t, TourneyChange(t, note, results=tuple(results)))
        # (a table's lock is never taken while the tournament's is held: a player leaving
        # holds their table's and then asks for the tournament's)
        for table_id, absent, loser in stalled:
            await self._end_by_walkover(table_id, window, absent, loser)
        return len(results)

    def _absent(self, table: Table, window: float) -> frozenset[int]:
        """The sides that never came: once the start window (two turns' time) has passed since
        the match opened, a side with people none of whom ever acted by their own hand, when
        one such side was waited on and ran out of time. A timeout later in the match, after a
        side came, is a strike as at any table (three in a row concede), never a no-show.
        Both sides when neither ever came."""
        if table.status is not TableStatus.PLAYING or table.started_at is None:
            return frozenset()
        if self.clock() < table.started_at + window:
            return frozenset()
        geometry = table.geometry
        never = _never_came(table)
        if not any(table.strikes[side] >= 1 for side in never):
            return frozenset()  # (not waited on yet: nobody can say they did not come)
        waited = {geometry.side(s) for s in table.state.acting_seats()} if table.state else set()
        deadline = table.deadline
        if any(table.strikes[side] == 0 and side in waited for side in never) and (
            deadline is not None and self.clock() < deadline
        ):
            return frozenset()  # a side's first turn still runs: it may come yet
        return frozenset(never)

    @staticmethod
    def _loser(t: Tournament, fixture: Fixture, absent: frozenset[int]) -> int:
        """The table side that loses by walkover: the absent one; when neither side came, by
        the rule the group is told: the better seed (the lower entry: seed 1 is entry 0) goes
        through, the other side loses."""
        if len(absent) == 1:
            return next(iter(absent))
        entries = sides_of(t, fixture, len(fixture.games))
        return 0 if entries[0] > entries[1] else 1

    async def _end_by_walkover(
        self, table_id: int, window: float, absent: frozenset[int], loser: int
    ) -> None:
        async with self.tables.locked(table_id):
            table = await self.tables.get(table_id)
            if table is None:
                return
            if self._absent(table, window) != absent:  # someone came meanwhile: not now
                return
            seat = table.geometry.of_side(loser)[0]
            table.status = TableStatus.FINISHED
            table.ended_at = self.clock()
            table.deadline = None
            table.outcome = Outcome.walkover(seat, table.scores)
            with contextlib.suppress(Conflict):  # the table moved meanwhile: the next settle
                await self.tables.commit(table, TableChange(ChangeKind.CONCEDED, table, seat=seat,
                                                       timed_out=True))  # fmt: skip

    async def _open_matches(self, tournament_id: int) -> int:
        """Open a table for each tie that can be played now (both entries free), and start
        any of its tables left unstarted (a crash between the two commits). A tie with a
        finished table whose result this reading of the tournament has not counted yet (another
        settle, maybe in another process, is counting it) is left to the next settle: it may be
        decided already."""
        async with self._lock(tournament_id):
            t = await self.store.get(tournament_id)
            if t is None or t.status is not Status.RUNNING or t.broken is not None:
                return 0
            tags = await self.store.tables_of(t.id)
            busy: set[int] = set()
            made: dict[tuple[int, int], int] = {}  # tie -> tables opened for it so far
            waiting: set[tuple[int, int]] = set()  # ties with a result not counted here yet
            to_start = []
            for tag, table_id in tags.items():
                _, round_, slot, number = parse_tag(tag)
                made[(round_, slot)] = max(made.get((round_, slot), 0), number + 1)
                fixture = t.fixture(round_, slot)
                table = await self.tables.get(table_id)
                if table is None or fixture is None:
                    continue
                if not table.is_open:
                    counted = {g.table for g in fixture.games}
                    won = table.outcome is not None and table.outcome.winner is not None
                    if won and table.id not in counted and not fixture.decided:
                        waiting.add(fixture.key)
                    continue
                if fixture.a is not None and fixture.b is not None:
                    busy |= {fixture.a, fixture.b}
                if table.status is TableStatus.LOBBY:
                    to_start.append(table.id)
            fixtures = [f for f in playable(t, busy) if f.key not in waiting]
            opened = 0
            for fixture in fixtures:
                number = made.get(fixture.key, 0)
                table = Table(
                    id=0, chat_id=t.chat_id, thread_id=t.thread_id, status=TableStatus.LOBBY,
                    opener_id=t.opener_id, config=t.config,
                    seats=seats_for(t, fixture, len(fixture.games)), language=t.language,
                    created_at=self.clock(), updated_at=self.clock(),
                    turn_seconds=t.turn_seconds,
                    tournament=tag_of(t.id, fixture.round, fixture.slot, number),
                )  # fmt: skip
                for seat, user in enumerate(table.seats):
                    if user is not None and user in t.replaced:
                        table.seats[seat] = BOT_IDS["normal"]
                try:
                    await self.tables.insert(table, lambda x: TableChange(ChangeKind.OPENED, x))
                except Refusal:
                    raise
                except Exception as error:
                    if is_conflict(error):
                        continue  # another process opened it a moment ago
                    raise
                to_start.append(table.id)
                opened += 1
        for table_id in to_start:
            await self._start_table(table_id)
        return opened

    async def _start_table(self, table_id: int) -> None:
        async with self.tables.locked(table_id):
            table = await self.tables.get(table_id)
            if table is None or table.status is not TableStatus.LOBBY:
                return
            events, entries = self.play.start(table)
            change = TableChange(ChangeKind.STARTED, table, table.chat_id, tuple(events))
            with contextlib.suppress(Conflict):  # another process started it a moment ago
                await self.tables.commit(table, change, entries, 0)

    # -- a player who leaves -----------------------------------------------------------------
    async def replace(self, table: Table, seat: int) -> bool:
        """A player leaves a tournament's match: where the tournament allows it, a computer
        player takes their seat for the rest of the tournament (True); otherwise their side
        concedes as anywhere (False). The caller holds the table's lock."""
        if table.tournament is None:
            return False
        tournament_id = parse_tag(table.tournament)[0]
        user = table.seats[seat]
        if user is None or user < 0:
            return False

        async def change(t: Tournament) -> TourneyNote:
            if not t.bots or t.status is not Status.RUNNING:
                raise Refusal(Refused.NO_TOURNEY)
            if user not in t.replaced:
                t.replaced.append(user)
            return TourneyNote.REPLACED

        try:
            await self._change(tournament_id, user, change)
        except Refusal:
            return False
        return True

    # -- the sweep ---------------------------------------------------------------------------
    async def sweep(self) -> None:
        """Sign-ups past their time close (the tournament starts, or is called off for want of
        entries); running tournaments are settled every few seconds (results a crash left
        uncounted, walkovers, matches to open)."""
        now = self.clock()
        running = await self.store.open_ones()
        # (what is kept of tournaments no longer open goes)
        known = {t.id for t in running}
        for gone in [k for k in self._looked if k not in known]:
            del self._looked[gone]
        for gone in [k for k in self._minutes if k not in known]:
            del self._minutes[gone]
        for gone in [k for k, lock in self._locks.items() if k not in known and not lock.locked()]:
            del self._locks[gone]
        for t in running:
            if t.broken is not None or t.id in self._broken:
                continue  # waits for its opener or an admin to call it off
            try:
                await self._sweep_one(t, now)
            except (Refusal, Conflict, Unavailable) as error:  # the next tick comes back to it
                log.info("tournament %s not swept now: %s", t.id, error)
            except Exception as error:  # one tournament's fault stops no other
                await self._broke(t.id, error)

    async def _sweep_one(self, t: Tournament, now: float) -> None:
        if t.status is Status.SIGNUP and now >= t.closes_at:
            try:
                await self.begin(t.id, None, True)
            except Refusal as refusal:
                if refusal.code in (Refused.TOURNEY_STARTED,):
                    return
                # (one set for later is called off with the reason, to those signed up too)
                note = TourneyNote.CALLED_OFF if t.starts_at is not None else TourneyNote.CANCELLED
                with contextlib.suppress(Refusal):
                    await self.cancel(t.id, None, True, finish_matches=False, note=note)
        elif (
            t.status is Status.SIGNUP and t.starts_at is not None and not t.reminded
            and now >= t.starts_at - REMIND_BEFORE
        ):  # fmt: skip
            await self._remind(t.id)
        elif t.status is Status.RUNNING and now - self._looked.get(t.id, 0.0) >= SETTLE_EVERY:
            self._looked[t.id] = now
            await self.settle(t.id)
            await self._tell_the_time(t, now)

    async def _tell_the_time(self, t: Tournament, now: float) -> None:
        """A tournament on time shows the minutes left: its message redrawn when that number
        changes, a result or not (a keyed refresh: it coalesces with any other waiting; after
        a restart, once more)."""
        end = t.rules.ends_at(t)
        if end is None:
            return
        shown = -1 if now >= end else int((end - now) // 60)
        if self._minutes.get(t.id) == shown:
            return
        self._minutes[t.id] = shown
        change = TourneyChange(t, TourneyNote.CLOCK)
        try:
            async with self.tables.store.db.transaction() as conn:
                rows = await self._rows(conn, change)
        except Unavailable:
            del self._minutes[t.id]  # (the next sweep tries again)
            return
        self.tables.changes.committed(change, rows)

    async def _remind(self, tournament_id: int) -> None:
        """Ten minutes before a tournament set for later: the people signed up are told in
        private, once (the mark is saved with the rows that tell them: a restart tells no one
        twice)."""

        async def change(t: Tournament) -> TourneyNote:
            if t.status is not Status.SIGNUP or t.reminded:
                raise Refusal(Refused.TOURNEY_STARTED)
            t.reminded = True
            return TourneyNote.REMINDER

        with contextlib.suppress(Refusal):
            await self._change(tournament_id, None, change)

    # -- committing ----------------------------------------------------------------------------
    def _lock(self, tournament_id: int) -> asyncio.Lock:
        return self._locks.setdefault(tournament_id, asyncio.Lock())

    async def _change(
        self,
        tournament_id: int,
        user_id: int | None,
        decide: Callable[[Tournament], Awaitable[TourneyNote]],
    ) -> Tournament:
        """Read the tournament, let `decide` change it (it says what happened, or refuses),
        and save it with the front ends' rows, over the version read (again on a conflict)."""
        for _ in range(RETRIES):
            async with self._lock(tournament_id):
                t = await self.store.get(tournament_id)
                if t is None:
                    raise Refusal(Refused.NO_TOURNEY)
                note = await decide(t)
                change = TourneyChange(t, note, user_id)
                try:
                    await self._save(t, change)
                except Conflict:
                    continue
                return t
        raise Refusal(Refused.DB_BUSY)

    async def _save(self, t: Tournament, change: Change) -> None:
        expected = t.version
        t.version += 1
        t.updated_at = self.clock()
        try:
            async with self.tables.store.db.transaction() as conn:
                if not await self.store.save(conn, t, expected):
                    raise Conflict(Refused.STALE)
                rows = await self._rows(conn, change)
        except Unavailable as error:
            t.version = expected
            raise Refusal(Refused.DB_BUSY) from error
        except BaseException:
            t.version = expected
            raise
        self.tables.changes.committed(change, rows)

    async def _rows(self, conn: Conn, change: Change) -> list[Outgoing]:
        """The front ends' rows for a tournament's change, written in its transaction."""
        planned = await self.tables.changes.plan(change)
        rows = [p for p in planned if isinstance(p, Outgoing)]
        if rows:
            await self.tables.outbox.enqueue(conn, rows)
        return rows

    async def _ratings(self, tournament_id: int) -> dict[int, float]:
        t = await self.store.get(tournament_id)
        if t is None:
            return {}
        players = t.config.players if t.config.players in (2, 4, 6) else None
        rows = await self.league.standings(t.chat_id, players)
        return {r.user_id: r.rating for r in rows if r.user_id in set(t.signed)}

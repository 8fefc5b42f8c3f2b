"""Turns and seats: deadlines (a reminder at half time, the conservative move at the end),
concessions, seats left empty mid-match, and the sweep that looks at every deadline.

Deadlines live in the database (games.deadline, games.created_at) and in the cache of open
tables; the sweep checks them against the core's clock, and a timeout is applied only if the
game is still at the step whose deadline passed, so a restart never loses or doubles one.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from bot.game import Action
from bot.model.occupants import is_person
from bot.model.outcome import Outcome
from bot.model.refusals import Refused
from bot.model.table import BOT_IDS, Call, Note, Table, TableStatus
from bot.service.changes import ChangeKind, Refusal, TableChange
from bot.service.lobby import Lobby
from bot.service.play import Play, conservative_action, partner_for, people_to_move
from bot.service.unit import Tables

log = logging.getLogger(__name__)

STRIKES_TO_CONCEDE = 3
VACATED_SECONDS = 300  # a seat left empty mid-match: the others have this long to choose
STALLED_SECONDS = 10.0  # a computer player nobody moved this long is taken up by any process


@dataclass(frozen=True)
class TimedOut:
    table: Table
    seat: int
    action: Action | None  # None when the side conceded instead


class Replacer(Protocol):
    """Who may give the seat a person left to a computer player at once: a group's
    tournaments (`bot.tourney`, built on the core, so known here by this alone)."""

    async def replace(self, table: Table, seat: int) -> bool: ...


class Turns:
    def __init__(
        self,
        tables: Tables,
        play: Play,
        lobby: Lobby,
        *,
        lobby_seconds: float,
        clock: Callable[[], float] = time.time,
        tournaments: Replacer | None = None,
    ) -> None:
        self.tables = tables
        self.play = play
        self.lobby = lobby
        self.tournaments = tournaments
        self.lobby_seconds = lobby_seconds
        self.clock = clock

    # -- the sweep -------------------------------------------------------------------------------
    async def stalled(self) -> list[Table]:
        """With a shared database, refresh the view of the tables with something due, and
        return those whose computer player nobody moved for a while (the process that should
        have moved it died): the computer players take them up."""
        if not self.tables.shared:
            return []
        now = self.clock()
        due = await self.tables.due_tables(now, self.lobby_seconds, STALLED_SECONDS)
        return [t for t in due if t.bot_seats and now - t.updated_at > STALLED_SECONDS]

    async def deadlines(self) -> None:
        """Every deadline that is due: lobbies nobody filled, reminders, timeouts."""
        now = self.clock()
        for table in self.tables.lobbies():
            if not table.in_line and now >= table.created_at + self.lobby_seconds:
                with contextlib.suppress(Refusal):  # another process got there first
                    await self.lobby.expire(table.id)
        for table in self.tables.playing():
            if table.deadline is None or table.state is None:
                continue
            step = table.state.step
            with contextlib.suppress(Refusal):  # the player (or another process) got there first
                if now >= table.deadline:
                    await self.timeout(table.id, step)
                elif table.vacated is not None:
                    continue  # paused for the empty seat's choice: nobody is to move
                elif now >= table.deadline - table.turn_seconds / 2 and table.reminded != step:
                    await self.remind(table.id, step)

    # -- deadlines -------------------------------------------------------------------------------
    async def timeout(self, table_id: int, step: int) -> TimedOut | None:
        """The deadline of `step` passed: act for the player, or concede after three strikes.
        Nothing happens if the game moved on meanwhile (a late or doubled timer)."""
        async with self.tables.locked(table_id):
            table = await self.tables.get(table_id)
            if table is None or table.status is not TableStatus.PLAYING or table.state is None:
                return None
            state = table.state
            if state.step != step or table.deadline is None or not state.legal_actions():
                return None
            if table.vacated is not None:  # nobody chose: the side that left concedes
                seat = table.vacated
                await self._finish_conceded(table, seat, None, timed_out=True)
                return TimedOut(table, seat, None)
            if table.handed == step:
                return None  # the computer partner decides (it has no clock)
            people = people_to_move(table)
            if not people:
                return None
            seat = people[0]
            if partner_for(table, seat) is not None:
                # A person with a computer partner who may answer for the side lets the timer
                # hand it the decision: no strike (they may mean it).
                await self.play.handed(table, seat, timed_out=True)
                return TimedOut(table, seat, None)
            side = table.geometry.side(seat)
            table.strikes[side] += 1
            if table.strikes[side] >= STRIKES_TO_CONCEDE:
                await self._leave_seat(table, seat, None, timed_out=True)
                return TimedOut(table, seat, None)
            action = conservative_action(state, seat)
            user = table.seats[seat]
            assert user is not None
            await self.play.apply(table, user, action, timed_out=True)
            log.info("timeout table=%s seat=%s action=%s", table.id, seat, action.code)
            return TimedOut(table, seat, action)

    async def remind(self, table_id: int, step: int) -> Table | None:
        """The half-time reminder of `step`, once (whichever process gets there first)."""
        async with self.tables.locked(table_id):
            table = await self.tables.get(table_id)
            if table is None or table.status is not TableStatus.PLAYING or table.state is None:
                return None
            if table.state.step != step or table.reminded == step or table.vacated is not None:
                return None
            table.reminded = step
            await self.tables.commit(table, TableChange(ChangeKind.REMIND, table))
            return table

    # -- seats -----------------------------------------------------------------------------------
    async def cancel(self, table_id: int, user_id: int, is_admin: bool) -> Table:
        """/cancelar. A lobby is cancelled (by whoever opened it, or an admin). A match in play
        is conceded by the side of whoever cancels it from a seat (a losing side cannot escape
        the league that way); an admin who is not playing cancels it, and it counts for nobody.
        """
        async with self.tables.locked(table_id):
            table = await self.tables.get(table_id)
            playing = table is not None and table.status is TableStatus.PLAYING
            seat = table.seat_of(user_id) if table is not None and playing else None
            if table is not None and seat is not None:
                if user_id != table.opener_id and not is_admin:
                    raise Refusal(Refused.ONLY_OPENER_OR_ADMIN)
                await self._finish_conceded(table, seat, user_id)
                return table
        return await self.lobby.cancel(table_id, user_id, is_admin)

    async def concede(self, table_id: int, user_id: int) -> Table:
        async with self.tables.locked(table_id):
            table, seat = await self.play.in_play(table_id, user_id)
            await self._leave_seat(table, seat, user_id)
            return table

    async def _leave_seat(
        self, table: Table, seat: int, user_id: int | None, timed_out: bool = False
    ) -> None:
        """A player concedes (or ran out of time three times). The league counts it as a loss of
        their side at once. When a partner of theirs is a person, the match pauses and the
        partners choose: a computer player takes the seat, or it ends. Otherwise (1v1, or
        computer partners) it simply ends. At a tournament's match that allows it, a computer
        player takes the seat at once and plays on for the player's side."""
        if self.tournaments is not None and await self.tournaments.replace(table, seat):
            table.seats[seat] = BOT_IDS["normal"]
            table.strikes[table.geometry.side(seat)] = 0
            await self.tables.commit(table, TableChange(ChangeKind.BOT_IN, table, seat=seat))
            return
        people = [s for s in table.geometry.partners(seat) if is_person(table.seats[s])]
        if not people:
            await self._finish_conceded(table, seat, user_id, timed_out)
            return
        table.vacated = seat
        table.deadline = self.clock() + VACATED_SECONDS
        credited = Outcome.left(seat, table.scores, timed_out)
        change = TableChange(
            ChangeKind.VACATED, table, actor=user_id, seat=seat, timed_out=timed_out,
            credited=credited,
        )  # fmt: skip
        await self.tables.commit(table, change)

    async def _finish_conceded(
        self, table: Table, seat: int, user_id: int | None, timed_out: bool = False
    ) -> None:
        table.calls.append(Call(seat, Note.CONCEDE))
        table.status = TableStatus.FINISHED
        table.ended_at = self.clock()
        table.deadline = None
        table.vacated = None
        table.outcome = Outcome.left(seat, table.scores, timed_out)
        change = TableChange(
            ChangeKind.CONCEDED, table, actor=user_id, seat=seat, timed_out=timed_out
        )  # fmt: skip
        await self.tables.commit(table, change)

    async def fill_vacated(
        self, table_id: int, user_id: int, keep_playing: bool, level: str = "normal"
    ) -> Table:
        """Another player at the table chooses for an empty seat: a computer player, or the
        end of the match (the side that left concedes)."""
        async with self.tables.locked(table_id):
            table = await self.tables.get(table_id)
            if table is None or table.status is not TableStatus.PLAYING:
                raise Refusal(Refused.NO_GAME)
            seat = table.vacated
            if seat is None:
                raise Refusal(Refused.ALREADY_DECIDED)
            chooser = table.seat_of(user_id)
            if chooser is None or chooser == seat:
                raise Refusal(Refused.NOT_SEATED)
            if chooser not in table.geometry.partners(seat):  # its side chooses, not its rivals
                raise Refusal(Refused.ONLY_PARTNER)
            if not keep_playing:
                await self._finish_conceded(table, seat, None)
                return table
            table.seats[seat] = BOT_IDS.get(level, BOT_IDS["normal"])
            table.vacated = None
            table.strikes = [0, 0]
            self.play.arm(table)
            await self.tables.commit(
                table, TableChange(ChangeKind.BOT_IN, table, actor=user_id, seat=seat)
            )
            return table

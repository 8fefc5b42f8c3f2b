"""Computer players at the tables: when one is to move, it waits a human pause, thinks away
from the event loop (a process pool, or a thread), and acts through the service like anyone.

Nothing here is saved: whether a computer player is to move is read from the table itself,
so after a restart (or a lost decision) the next look at the table finds it again. A decision
is for one step: if the game moved on meanwhile, the service drops it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Coroutine, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from bot import codec
from bot.ai import Level, decide, personas
from bot.ai.characters import character_of
from bot.ai.hints import Hint, advise
from bot.ai.personas import Belief
from bot.ai.signs import signs_to_show
from bot.game import Action, MatchConfig, Observation, observe
from bot.game.past import PastHand
from bot.model.outbox import Outgoing, Planned
from bot.model.refusals import Refused
from bot.model.table import Table, TableStatus, is_bot
from bot.service.changes import Change, ChangeKind, Refusal
from bot.service.play import Play, bot_to_move
from bot.service.unit import Tables
from bot.storage.rivals import RivalStore

log = logging.getLogger(__name__)

T = TypeVar("T")
PRIORS_KEPT = 2_000  # tables whose remembered people a process keeps in memory


def _think(
    obs: Observation,
    level: str,
    seed: str | None,
    signs: tuple[str, ...],
    priors: dict[int, Belief] | None = None,
    character: str | None = None,
) -> Action:
    return decide(obs, level, seed, signs, priors=priors, character=character)


def _advise(obs: Observation, seed: str) -> Hint:
    return advise(obs, seed)


def _learn(
    config: MatchConfig, seats: tuple[int, ...], past: tuple[PastHand, ...], priors: dict[int, str]
) -> dict[int, str]:
    """What the public record `past` of a match teaches of each seat in `seats`, from what was
    remembered of them (JSON by seat), as JSON by seat: kept for their next match."""
    learned = {}
    for seat in seats:
        prior = personas.from_json(codec.loads(priors[seat])) if seat in priors else None
        belief = personas.learn(config, seat, past, prior)
        learned[seat] = codec.dumps(personas.to_json(personas.remembered(belief)))
    return learned


def _watch_parent(parent: int) -> None:
    """In each pool process: leave when the bot is gone (a SIGKILLed bot cannot tell its pool
    to stop, and the pool must not outlive it)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def _warm() -> bool:
    """Imports the players in a worker before the first real decision needs them."""
    return True


@dataclass
class _Due:
    step: int
    seat: int
    at: float


class AiPlayers:
    """A subscriber of the core: after every commit it looks whether a computer player is to
    move, and moves it through `Play` like anyone."""

    def __init__(
        self,
        tables: Tables,
        play: Play,
        *,
        delay: float,
        workers: int,
        seed: int | None,
    ) -> None:
        self.tables = tables
        self.play = play
        self.clock = tables.clock
        self.delay = delay
        self.seed = seed
        self._tasks: set[asyncio.Task[None]] = set()
        self.workers = workers
        self._pool: Executor | None = None
        self._due: dict[int, _Due] = {}
        self._thinking: set[int] = set()
        self._signs: dict[tuple[int, int, int], list[str]] = {}  # (table, hand, seat) -> señas
        self._signed: set[tuple[int, int]] = set()  # (table, hand): the bots showed theirs
        self.decisions = 0  # moves made, for tests and logs
        self.rivals = RivalStore(tables.store.db)
        self.remember = True  # keep what difícil learns of each person (per group)
        self._priors: OrderedDict[int, dict[int, Belief]] = OrderedDict()  # table -> seat -> it
        self._learned: set[int] = set()  # tables whose match was learned from (once each)

    # -- a subscriber of the core ----------------------------------------------------------------
    async def plan(self, change: Change) -> list[Planned]:
        return []  # a computer player says nothing of its own

    def committed(self, change: Change, rows: Sequence[Outgoing]) -> None:
        table = change.table
        if table is None:
            return
        if table.status in (TableStatus.FINISHED, TableStatus.CANCELLED):
            self._priors.pop(table.id, None)
            if (
                self.remember
                and table.bot_seats
                and table.players
                and table.id not in self._learned
            ):
                self._learned.add(table.id)
                if len(self._learned) > PRIORS_KEPT:
                    self._learned.clear()
                self.spawn(self._remember(table))
        if change.kind is ChangeKind.SIGN and change.seat is not None and change.sign:
            for partner in table.geometry.partners(change.seat):
                if is_bot(table.seats[partner]):
                    self.receive_sign(table, partner, change.sign)
            return
        self.consider(table)

    # -- the pool ------------------------------------------------------------------------------
    def _executor(self) -> Executor | None:
        if self.workers <= 0:
            return None  # decisions run in a thread (tests, tiny machines)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_watch_parent,
                initargs=(os.getpid(),),
            )
        return self._pool

    async def start(self) -> None:
        """Start the pool and look at every table in play (a restart resumes their bots)."""
        pool = self._executor()
        if pool is not None:
            await asyncio.get_running_loop().run_in_executor(pool, _warm)
        for table in self.tables.playing():
            self.consider(table)

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def close(self) -> None:
        """Stop thinking: a move not made is found again at the next start."""
        for task in list(self._tasks):
            task.cancel()
        self._due.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def busy(self) -> bool:
        """A computer player is thinking or its pause is over (tests wait on this)."""
        now = self.clock()
        return bool(self._tasks) or any(due.at <= now for due in self._due.values())

    # -- scheduling ----------------------------------------------------------------------------
    def consider(self, table: Table) -> None:
        """After every commit: is a computer player to move at this table now?"""
        if table.status is not TableStatus.PLAYING or table.state is None:
            self._due.pop(table.id, None)
            return
        self._show_signs(table)
        seat = bot_to_move(table)
        if seat is None:
            self._due.pop(table.id, None)
            return
        step = table.state.step
        due = self._due.get(table.id)
        if due is not None and due.step == step and due.seat == seat:
            return
        self._due[table.id] = _Due(step, seat, self.clock() + self.delay)
        if self.delay <= 0:
            self.tick()
        else:  # on time, rather than at the next sweep (which still catches it if need be)
            with contextlib.suppress(RuntimeError):
                asyncio.get_running_loop().call_later(self.delay + 0.01, self.tick)

    def tick(self) -> None:
        """Start the moves whose pause is over (called by the timer sweep, and at once when
        there is no pause)."""
        now = self.clock()
        for table_id, due in list(self._due.items()):
            if due.at <= now and table_id not in self._thinking:
                del self._due[table_id]
                self._thinking.add(table_id)
                self.spawn(self._move(table_id, due))

    async def _move(self, table_id: int, due: _Due) -> None:
        try:
            table = await self.tables.get(table_id)
            if table is None or table.state is None or table.state.step != due.step:
                return
            level = table.bot_level(due.seat)
            if level is None:
                return
            obs = observe(table.state, due.seat)
            hand = table.state.hand_number
            signs = tuple(self.signs_for(table_id, hand, due.seat))
            seed = None if self.seed is None else f"{self.seed}:{table_id}:{due.step}:{due.seat}"
            priors = await self._priors_of(table) if level == Level.DIFICIL else None
            character = character_of(table.lineage, due.seat)
            action = await self._run(_think, obs, level, seed, signs, priors, character)
            try:
                outcome = await self.play.bot_act(table_id, due.seat, due.step, action)
            except Refusal:  # the table changed in another process meanwhile
                outcome = None
            if outcome is not None:
                self.decisions += 1
        except Exception:
            log.exception("computer player failed table=%s step=%s", table_id, due.step)
        finally:
            self._thinking.discard(table_id)
        table = await self.tables.get(table_id)
        if table is not None:
            self.consider(table)  # a move that was dropped is looked at again
        self.tick()

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` in the pool (or a thread): never on the event loop."""
        pool = self._executor()
        if pool is not None:
            return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)
        return await asyncio.to_thread(fn, *args)

    # -- hints -----------------------------------------------------------------------------------
    async def hint(self, table_id: int, user_id: int, step: int) -> Hint:
        """💡: what difícil would do at the asker's seat now, from what that seat sees. The
        first hint a person asks for marks the match (it moves nobody's rating)."""
        async with self.tables.locked(table_id):
            table, seat = await self.play.in_play(table_id, user_id)
            assert table.state is not None
            if not table.hints:
                raise Refusal(Refused.NO_HINTS)
            if step != table.state.step:
                raise Refusal(Refused.STALE)
            if not any(a.seat == seat for a in table.state.legal_actions()):
                raise Refusal(Refused.HINT_NOT_YOUR_MOVE)
            if user_id not in table.hinted:
                table.hinted.append(user_id)
                await self.tables.commit(table, Change(ChangeKind.HINTED, table, actor=user_id))
            obs = observe(table.state, seat)
        return await self._run(_advise, obs, f"hint:{table_id}:{step}:{seat}")

    # -- what difícil remembers of people --------------------------------------------------------
    async def _priors_of(self, table: Table) -> dict[int, Belief]:
        """What difícil remembers of the people at `table`, by seat (read once a match)."""
        found = self._priors.get(table.id)
        if found is not None:
            self._priors.move_to_end(table.id)
            return found
        people = {u: s for s, u in enumerate(table.seats) if u is not None and u > 0}
        stored = await self.rivals.load(table.chat_id, list(people)) if self.remember else {}
        found = {}
        for user, text in stored.items():
            belief = personas.from_json(codec.loads(text))
            if belief is not None:
                found[people[user]] = belief
        self._priors[table.id] = found
        if len(self._priors) > PRIORS_KEPT:
            self._priors.popitem(last=False)
        return found

    async def _remember(self, table: Table) -> None:
        """A match with computer players ended: what it showed of each person who played
        against one (its public record only: what anyone at the table saw) is kept for the
        next match in this group."""
        state = table.state
        if state is None:
            return
        try:
            bots = set(table.bot_seats)
            people = {
                s: u for s, u in enumerate(table.seats)
                if u is not None and u > 0 and any(b in table.geometry.rivals(s) for b in bots)
            }  # fmt: skip
            past = observe(state, None).past
            if not people or not past:
                return
            stored = await self.rivals.load(table.chat_id, list(people.values()))
            priors = {s: stored[u] for s, u in people.items() if u in stored}
            learned = await self._run(_learn, table.config, tuple(people), past, priors)
            await self.rivals.save(
                table.chat_id, {people[s]: text for s, text in learned.items()}, self.clock()
            )
        except Exception:
            log.exception("remembering the people of table=%s failed", table.id)

    # -- señas ---------------------------------------------------------------------------------
    def receive_sign(self, table: Table, seat: int, sign: str) -> None:
        """A partner showed `seat` (a computer player) a seña; it counts for this hand."""
        if table.state is None:
            return
        key = (table.id, table.state.hand_number, seat)
        shown = self._signs.setdefault(key, [])
        if sign not in shown:  # a repeat tells nothing new
            shown.append(sign)

    def _show_signs(self, table: Table) -> None:
        """At the start of each hand every computer player with partners shows them a seña."""
        state = table.state
        if state is None or state.hand is None or table.geometry.team_size == 1:
            return
        if state.hand.duel is not None:  # nobody makes señas in a pica-pica hand (R40)
            return
        key = (table.id, state.hand_number)
        if key in self._signed or not table.bot_seats:
            return
        self._signed.add(key)
        if len(self._signed) > 10_000:
            self._signed.clear()
            self._signs.clear()
        for seat in table.bot_seats:
            shown = signs_to_show(state.hand.dealt[seat])
            people = False
            for partner in table.geometry.partners(seat):
                if is_bot(table.seats[partner]):
                    self._signs.setdefault((table.id, state.hand_number, partner), []).extend(shown)
                elif table.seats[partner] is not None:
                    people = True
            if people:
                self.spawn(self.play.bot_signs(table, seat, list(shown)))

    def signs_for(self, table_id: int, hand: int, seat: int) -> Collection[str]:
        """The señas `seat` (a computer player) was shown this hand by its partner."""
        return tuple(self._signs.get((table_id, hand, seat), ()))

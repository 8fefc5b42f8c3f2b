"""Computer players at the tables: when one is to move, it waits a human pause, thinks away
from the event loop (a supervised process pool, `bot.service.pools`, or a thread), and acts
through the service like anyone.

Nothing here is saved: whether a computer player is to move is read from the table itself,
so after a restart (or a lost decision) the next look at the table finds it again. A decision
is for one step: if the game moved on meanwhile, the service drops it.

💡 Hints think apart (`HintLane`): in a process of their own at a lower priority (a thread
when the players think in threads), one at a time, so a computer player's move never waits
behind one and the machine gives the players' processes the CPU first. One hint per (table,
step, seat) is thought once and kept (in this process: another worker asked the same thinks
it once more, from the same seed); a person has one in flight at most; an ask the lane could
not answer within its asker's window is answered "un momento" at once, and one whose window
passed while it waited is dropped, never thought.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from bot import codec
from bot.ai import Level, decide, personas
from bot.ai.characters import character_of
from bot.ai.hints import Hint, advise
from bot.ai.personas import Belief
from bot.ai.search import Machine
from bot.ai.signs import signs_to_show
from bot.game import Action, MatchConfig, Observation, observe
from bot.game.past import PastHand
from bot.model.outbox import Outgoing, Planned
from bot.model.refusals import Refused
from bot.model.table import Table, TableStatus, is_bot
from bot.service.changes import Change, ChangeKind, Refusal, TableChange
from bot.service.play import Play, bot_to_move
from bot.service.pools import Supervised, processes
from bot.service.unit import Tables
from bot.storage.rivals import RivalStore

log = logging.getLogger(__name__)

T = TypeVar("T")
PRIORS_KEPT = 2_000  # tables whose remembered people a process keeps in memory
HINT_WINDOW = 10.0  # seconds an asker waits for a hint at most (Telegram answers a tap in ~15)
HINTS_KEPT = 4_096  # hints a process keeps, by (table, step, seat): a second ask answers from it
HINT_TYPICAL = 0.2  # seconds a hint takes, until measured (two budgets of 0.1 s)
RETRY_AFTER = 5.0  # seconds before a computer player's move that failed is tried again


def _think(
    obs: Observation,
    level: str,
    seed: str | None,
    signs: tuple[str, ...],
    priors: dict[int, Belief] | None = None,
    character: str | None = None,
) -> Action:
    return decide(obs, level, seed, signs, priors=priors, character=character)


def _advise(
    obs: Observation,
    seed: str,
    priors: dict[int, Belief] | None = None,
    machines: dict[int, Machine] | None = None,
) -> Hint:
    return advise(obs, seed, priors=priors, machines=machines)


def machines_of(table: Table) -> dict[int, Machine]:
    """The table's computer players, as a hint reckons with them: each seat's level and the
    character it plays with."""
    found = {}
    for seat in range(len(table.seats)):
        level = table.bot_level(seat)
        if level is not None:
            found[seat] = Machine(level, character_of(table.lineage, seat).value)
    return found


def _learn(
    config: MatchConfig, seats: tuple[int, ...], past: tuple[PastHand, ...], priors: dict[int, str]
) -> dict[int, str]:
    """What the public record `past` of a match teaches of each seat in `seats`, from what was
    remembered of them (JSON by seat; a text that is no belief counts as nothing), as JSON by
    seat: kept for their next match."""
    learned = {}
    for seat in seats:
        prior = personas.from_text(priors[seat]) if seat in priors else None
        belief = personas.learn(config, seat, past, prior)
        learned[seat] = codec.dumps(personas.to_json(personas.remembered(belief)))
    return learned


def _warm() -> bool:
    """Imports the players in a worker before the first real decision needs them."""
    return True


class Late(Exception):
    """A job whose asker's window passed while it waited: dropped, never started."""


@dataclass
class _Job:
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    future: asyncio.Future[Any]
    deadline: float


@dataclass
class HintLane:
    """Where hints think: `slots` at a time through `think` (their own pool's `run`), the
    others waiting in order of asking. A job whose deadline (on `clock`) has passed when its
    turn comes is dropped (its caller gets `Late`), never started."""

    think: Callable[..., Awaitable[Any]]
    clock: Callable[[], float]
    slots: int = 1
    typical: float = HINT_TYPICAL  # seconds a job takes (measured as they run, at most 1 s)
    started: int = 0  # jobs started (for tests and the benchmark)
    dropped: int = 0  # jobs dropped, their window passed
    running: int = 0
    _waiting: deque[_Job] = field(default_factory=deque)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def wait(self) -> float:
        """About how long a job asked now would take to come back."""
        ahead = self.running + len(self._waiting)
        return (ahead // self.slots + 1) * self.typical

    async def run(self, fn: Callable[..., T], *args: Any, deadline: float) -> T:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._waiting.append(_Job(fn, args, future, deadline))
        self._pump()
        return await future

    def _pump(self) -> None:
        while self.running < self.slots and self._waiting:
            job = self._waiting.popleft()
            if job.future.done():  # its asker went away
                continue
            if self.clock() > job.deadline:
                self.dropped += 1
                job.future.set_exception(Late())
                continue
            self.running += 1
            self.started += 1
            task = asyncio.get_running_loop().create_task(self._start(job))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _start(self, job: _Job) -> None:
        began = time.perf_counter()
        try:
            result = await self.think(job.fn, *job.args)
        except asyncio.CancelledError:
            job.future.cancel()
            raise
        except Exception as error:
            if not job.future.done():
                job.future.set_exception(error)
        else:
            if not job.future.done():
                job.future.set_result(result)
        finally:
            self.running -= 1
            spent = min(time.perf_counter() - began, 1.0)
            self.typical = 0.8 * self.typical + 0.2 * spent
            self._pump()

    def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        while self._waiting:
            self._waiting.popleft().future.cancel()


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
        # (none when decisions run in a thread: tests, tiny machines)
        self._pool = (
            Supervised("players", processes(workers), size=workers) if workers > 0 else None
        )
        self._due: dict[int, _Due] = {}
        self._thinking: set[int] = set()
        # (table, hand) whose computer players' señas to people were set going: only not to
        # start it twice; the table holds what was made (`Table.signs`)
        self._signed: set[tuple[int, int]] = set()
        self.decisions = 0  # moves made, for tests and logs
        self.rivals = RivalStore(tables.store.db)
        self.remember = True  # keep what difícil learns of each person (per group)
        self._priors: OrderedDict[int, dict[int, Belief]] = OrderedDict()  # table -> seat -> it
        self._learned: set[int] = set()  # tables whose match was learned from (once each)
        self._bad_rows: set[tuple[int, int, str]] = set()  # rows said not to decode (once each)
        self._failed: set[tuple[int, int]] = set()  # (table, step) whose move failed: said once
        # The hints' own: a process at a lower priority (a thread when the players think in
        # threads).
        self._hint_pool = Supervised(
            "hints",
            processes(1, nice=10)
            if workers > 0
            else partial(ThreadPoolExecutor, 1, thread_name_prefix="hints"),
        )
        self.hints = HintLane(self._hint_pool.run, self.clock)
        self._kept: OrderedDict[tuple[int, int, int], Hint] = OrderedDict()  # thought hints
        self._asking: set[int] = set()  # people with a hint in flight

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
        if change.kind is ChangeKind.SIGN:
            return  # (a seña moves no one: a computer partner reads it off the table)
        self.consider(table)

    # -- the pools -----------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the pools and look at every table in play (a restart resumes their bots)."""
        if self._pool is not None:
            await asyncio.gather(self._pool.run(_warm), self._hint_pool.run(_warm))
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
        self.hints.close()
        self._hint_pool.close()
        if self._pool is not None:
            self._pool.close()

    async def ended(self) -> None:
        """After `close`: every process it started has ended (bounded)."""
        await self._hint_pool.ended()
        if self._pool is not None:
            await self._pool.ended()

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
        failed = False
        try:
            table = await self.tables.get(table_id)
            if table is None or table.state is None or table.state.step != due.step:
                return
            level = table.bot_level(due.seat)
            if level is None:
                return
            obs = observe(table.state, due.seat)
            signs = signs_for(table, due.seat)
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
            failed = True
            if (table_id, due.step) not in self._failed:  # said once, not at every try
                if len(self._failed) > 10_000:
                    self._failed.clear()
                self._failed.add((table_id, due.step))
                log.exception("computer player failed table=%s step=%s", table_id, due.step)
        finally:
            self._thinking.discard(table_id)
        if failed:  # tried again after a pause (the sweep's tick), never at once in a loop
            self._due.setdefault(table_id, _Due(due.step, due.seat, self.clock() + RETRY_AFTER))
            return
        table = await self.tables.get(table_id)
        if table is not None:
            self.consider(table)  # a move that was dropped is looked at again
        self.tick()

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` in the pool (or a thread): never on the event loop."""
        if self._pool is not None:
            return await self._pool.run(fn, *args)
        return await asyncio.to_thread(fn, *args)

    # -- hints -----------------------------------------------------------------------------------
    async def hint(
        self, table_id: int, user_id: int, step: int, *, window: float = HINT_WINDOW
    ) -> Hint | None:
        """💡: what difícil would do at the asker's seat now, from what that seat sees; every
        front end asks here. The first hint a person asks for marks the match (it moves
        nobody's rating). A hint is thought once per (table, step, seat) and kept; one in
        flight a person, the others "un momento" (`Refused.HINT_BUSY`), as is an ask the hints'
        lane could not answer within `window` seconds; None: the window passed while it
        waited (dropped, not thought: nobody is there to answer)."""
        deadline = self.clock() + window
        if user_id in self._asking:
            raise Refusal(Refused.HINT_BUSY)
        self._asking.add(user_id)
        try:
            async with self.tables.locked(table_id):
                table, seat = await self.play.in_play(table_id, user_id)
                assert table.state is not None
                if not table.hints:
                    raise Refusal(Refused.NO_HINTS)
                if step != table.state.step:
                    raise Refusal(Refused.STALE)
                if not any(a.seat == seat for a in table.state.legal_actions()):
                    raise Refusal(Refused.HINT_NOT_YOUR_MOVE)
                key = (table_id, step, seat)
                kept = self._kept.get(key)
                if kept is None and self.hints.wait() > window:
                    raise Refusal(Refused.HINT_BUSY)  # (before the match is marked)
                if user_id not in table.hinted:
                    table.hinted.append(user_id)
                    change = TableChange(ChangeKind.HINTED, table, actor=user_id)
                    await self.tables.commit(table, change)
                if kept is not None:
                    self._kept.move_to_end(key)
                    return kept
                obs = observe(table.state, seat)
                machines = machines_of(table)
            seed = f"hint:{table_id}:{step}:{seat}"
            # (what the rivals memory keeps of the people at the table: difícil there starts
            # from it, and the chance reckons with it)
            priors = await self._priors_of(table)
            try:
                found = await self.hints.run(
                    _advise, obs, seed, priors, machines, deadline=deadline
                )
            except Late:
                return None
            self._kept[key] = found
            if len(self._kept) > HINTS_KEPT:
                self._kept.popitem(last=False)
            return found
        finally:
            self._asking.discard(user_id)

    # -- what difícil remembers of people --------------------------------------------------------
    async def _priors_of(self, table: Table) -> dict[int, Belief]:
        """What difícil remembers of the people at `table`, by seat (read once a match)."""
        found = self._priors.get(table.id)
        if found is not None:
            self._priors.move_to_end(table.id)
            return found
        people = {u: s for s, u in enumerate(table.seats) if u is not None and u > 0}
        try:
            stored = await self.rivals.load(table.chat_id, list(people)) if self.remember else {}
        except Exception as error:  # (rows the database cannot read): play as without memory
            mark = (table.chat_id, 0, type(error).__name__)
            if mark not in self._bad_rows:
                self._bad_rows.add(mark)
                log.warning("remembered people of chat=%s unreadable: %r", table.chat_id, error)
            return {}  # (not kept: the next move asks again)
        found = {}
        for user, text in stored.items():
            belief = self._decoded(table.chat_id, user, text)
            if belief is not None:
                found[people[user]] = belief
        self._priors[table.id] = found
        if len(self._priors) > PRIORS_KEPT:
            self._priors.popitem(last=False)
        return found

    def _decoded(self, chat_id: int, user_id: int, text: str) -> Belief | None:
        """A stored belief, or None if its row does not decode (said once a row: the player
        plays as if it remembered nothing, and the match's end writes the row anew)."""
        belief = personas.from_text(text)
        if belief is None:
            digest = hashlib.blake2b(text.encode(errors="replace"), digest_size=8).hexdigest()
            mark = (chat_id, user_id, digest)
            if mark not in self._bad_rows:
                if len(self._bad_rows) > 10_000:
                    self._bad_rows.clear()
                self._bad_rows.add(mark)
                log.warning(
                    "a remembered belief does not decode, ignored: chat=%s user=%s (%d chars)",
                    chat_id, user_id, len(text),
                )  # fmt: skip
        return belief

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
            priors = {
                s: stored[u] for s, u in people.items()
                if u in stored and self._decoded(table.chat_id, u, stored[u]) is not None
            }  # fmt: skip  (a row that does not decode is learned anew, and so replaced)
            learned = await self._run(_learn, table.config, tuple(people), past, priors)
            await self.rivals.save(
                table.chat_id, {people[s]: text for s, text in learned.items()}, self.clock()
            )
        except Exception:
            log.exception("remembering the people of table=%s failed", table.id)

    # -- señas ---------------------------------------------------------------------------------
    def _show_signs(self, table: Table) -> None:
        """At the start of each hand every computer player with people among its partners shows
        them its señas (through the table: once, whoever's worker sees the hand first)."""
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
        made = {s.seat for s in table.hand_signs()}
        for seat in table.bot_seats:
            people = any(
                not is_bot(table.seats[p]) and table.seats[p] is not None
                for p in table.geometry.partners(seat)
            )
            if people and seat not in made:
                shown = signs_to_show(state.hand.dealt[seat])
                self.spawn(self.play.bot_signs(table.id, seat, state.hand_number, shown))


def signs_for(table: Table, seat: int) -> tuple[str, ...]:
    """The señas `seat` (a computer player) was shown this hand by its partners: those the
    table holds (a person's, and a computer player's shown to people too) and a computer
    partner's, which are its cards' (`signs_to_show`: nothing to keep)."""
    state = table.state
    if state is None or state.hand is None or state.hand.duel is not None:
        return ()
    out: list[str] = []
    for partner in table.geometry.partners(seat):
        if is_bot(table.seats[partner]):
            out += signs_to_show(state.hand.dealt[partner])
    out += [s.sign for s in table.signs_to(seat)]
    return tuple(dict.fromkeys(out))  # (a repeat tells nothing new)

"""The web table's live side: `Hub`, a subscriber of the core that wakes the streams watching
a table after each of its commits (and after a notice from another worker, heard through
PostgreSQL's LISTEN: `Hub.listen`), and `stream`, one viewer's server-sent events."""

from __future__ import annotations

import asyncio
import contextlib
import zlib
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from bot.game.events import HandEnded
from bot.model.outbox import Outgoing, Planned
from bot.model.table import Table
from bot.service.changes import Change, ChangeKind, TableChange
from bot.service.core import Core
from bot.service.unit import Tables
from bot.web.view import TimedOut

KEEPALIVE = 15.0  # seconds between comments on a quiet stream (proxies drop idle ones)
SHARED_POLL = 0.5  # several workers, their notices not heard: how often a stream checks the version
SHARED_SAFETY = 5.0  # several workers, notices heard: the check is only a safety net
# A gzipped stream remembers the last 8 kB: two views, enough for the next to cost little;
# a window is memory kept per stream (docs/performance.md).
STREAM_WINDOW_BITS = 13
STREAMS_PER_VIEWER = 4  # live streams one person keeps open (a few tabs); the oldest closes
STREAMS_PER_ADDRESS = 16  # live streams one address keeps open (a household); the oldest closes
TIMEOUTS_KEPT = 3  # the timer's last moves a watched table's views tell


@dataclass(eq=False)
class Stream:
    """One open stream of a table's views."""

    table_id: int
    viewer: int
    address: str
    woken: asyncio.Event = field(default_factory=asyncio.Event)
    closed: bool = False


class Hub:
    """A subscriber of the core: after every commit, the streams watching that table wake. It
    bounds the streams one person and one address keep open (the oldest close), and keeps the
    views it drew, so that every identical viewer of a table's version shares one drawing."""

    def __init__(self, streams_per_address: int = STREAMS_PER_ADDRESS) -> None:
        self.streams_per_address = streams_per_address
        self._watching: dict[int, set[Stream]] = {}
        self._streams: OrderedDict[Stream, None] = OrderedDict()  # oldest first
        self.closed = False
        # The views drawn of each watched table's newest version, by what their viewer may see:
        # table -> (version, {(seat, señas seen): JSON}); gone with the table's last stream.
        self._views: dict[int, tuple[int, dict[tuple[Any, ...], bytes]]] = {}
        self.drawn = 0  # views drawn (the rest were shared)
        # The moves the turn's timer made at each watched table, last few, oldest first: a
        # table keeps no trace of them, and its pages are to say them as Telegram's board does.
        # (Heard from this process's commits: a timeout another worker made goes unsaid.)
        self._timeouts: dict[int, list[TimedOut]] = {}

    def close(self) -> None:
        """The server stops: every stream ends now rather than at its next keep-alive."""
        self.closed = True
        for stream in self._streams:
            stream.woken.set()

    async def plan(self, change: Change) -> list[Planned]:
        return []

    def committed(self, change: Change, rows: Sequence[Outgoing]) -> None:
        table = change.table
        if table is None:
            return
        if isinstance(change, TableChange) and change.timed_out and table.id in self._watching:
            self._timed_out(change)
        self.wake(table.id)

    def _timed_out(self, change: TableChange) -> None:
        table = change.table
        if change.seat is None or table.state is None:
            return
        conceded = change.kind is ChangeKind.CONCEDED
        if not conceded and (change.kind is not ChangeKind.ACTION or change.action is None):
            return  # (a decision handed to a computer partner: the page says that itself)
        ends = [e.hand_number for e in change.events if isinstance(e, HandEnded)]
        hand = ends[0] if ends else table.state.hand_number
        timed = TimedOut(table.version, hand, change.seat, change.action, conceded)
        kept = self._timeouts.setdefault(table.id, [])
        kept[:] = [*kept, timed][-TIMEOUTS_KEPT:]
        self._views.pop(table.id, None)  # (a view of this version drawn before it: stale)

    def timeouts(self, table_id: int) -> list[TimedOut]:
        """The timer's last moves at a watched table, oldest first."""
        return list(self._timeouts.get(table_id, ()))

    def wake(self, table_id: int) -> None:
        for stream in self._watching.get(table_id, ()):
            stream.woken.set()

    def heard_again(self) -> None:
        """Notices may have been missed (listening began again): every stream looks."""
        for stream in self._streams:
            stream.woken.set()

    @contextlib.contextmanager
    def watch(self, table_id: int, viewer: int = 0, address: str = "") -> Iterator[Stream]:
        """A stream of `table_id` for `viewer` from `address`, while the block runs; past the
        bounds, the oldest stream of that viewer (or address) is closed."""
        stream = Stream(table_id, viewer, address)
        self._watching.setdefault(table_id, set()).add(stream)
        self._streams[stream] = None
        by_viewer = [s for s in self._streams if s.viewer == viewer and not s.closed]
        by_address = [s for s in self._streams if s.address == address and not s.closed]
        bounds = ((by_viewer, STREAMS_PER_VIEWER), (by_address, self.streams_per_address))
        for mine, bound in bounds:
            for old in mine[: max(0, len(mine) - bound)]:
                old.closed = True
                old.woken.set()
        try:
            yield stream
        finally:
            self._streams.pop(stream, None)
            watchers = self._watching.get(table_id)
            if watchers is not None:
                watchers.discard(stream)
                if not watchers:
                    del self._watching[table_id]
                    self._views.pop(table_id, None)
                    self._timeouts.pop(table_id, None)

    def watchers(self) -> int:
        return len(self._streams)

    def view(self, table: Table, key: tuple[Any, ...]) -> bytes | None:
        """The view of `table` (as committed) drawn for `key` (what its viewer may see)."""
        found = self._views.get(table.id)
        return found[1].get(key) if found is not None and found[0] == table.version else None

    def keep_view(self, table: Table, key: tuple[Any, ...], view: bytes) -> None:
        """Keep a view drawn, while the table is watched (its newest version's only)."""
        self.drawn += 1
        if table.id not in self._watching:
            return
        found = self._views.get(table.id)
        if found is None or found[0] != table.version:
            found = self._views[table.id] = (table.version, {})
        found[1][key] = view

    def listen(self, tables: Tables) -> None:
        """Several workers: every worker's commits say which table changed; this one's streams
        hear them (and all look again when listening begins again)."""
        tables.listen(self.wake, self.heard_again)


async def stream(
    request: web.Request,
    hub: Hub,
    core: Core,
    table: Table,
    viewer: int,
    seat: int | None,
    address: str,
    draw: Callable[[Table, int | None], Awaitable[bytes]],
    headers: Mapping[str, str],
) -> web.StreamResponse:
    """Server-sent events for `viewer` (at `seat`, or an onlooker) from `address`: the view
    `draw` draws now, then again after every change of `table`, until the stream is closed."""
    # A player's stream is gzipped when the client takes it, each event flushed whole:
    # successive views share most of their text, which the window remembers. An onlooker's is
    # not: the public view is drawn once and the same bytes go to every onlooker, where
    # compressing each stream would cost every move CPU for each onlooker (docs/performance.md).
    packer = (
        zlib.compressobj(6, zlib.DEFLATED, 16 + STREAM_WINDOW_BITS, 4)
        if seat is not None and "gzip" in request.headers.get("Accept-Encoding", "")
        else None
    )
    response = web.StreamResponse(
        headers={
            "Content-Type": "text/event-stream",
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",
            **headers,
            **({"Content-Encoding": "gzip", "Vary": "Accept-Encoding"} if packer else {}),
        }
    )
    await response.prepare(request)

    async def send(data: bytes) -> None:
        if packer is not None:
            data = packer.compress(data) + packer.flush(zlib.Z_SYNC_FLUSH)
        await response.write(data)

    # With several workers on one PostgreSQL, a change may be committed by another process,
    # whose subscribers this one never hears: that process's commit sends a notice (see
    # `Hub.listen`), and the stream also looks at the table's version now and then,
    # twice a second while notices cannot be heard (one small query), and reads the table
    # only when it moved.
    shared = core.shared
    # (a player's page open: their Telegram hand message waits until it closes)
    with (
        hub.watch(table.id, viewer, address) as watched,
        core.presence.page(table.id, viewer if seat is not None else 0),
    ):
        sent: bytes | None = None
        version = -1
        quiet = 0.0
        while not hub.closed and not watched.closed:
            watched.woken.clear()
            fresh = await core.tables.get(table.id)
            if fresh is None:
                break
            version = fresh.version
            seat = fresh.seat_of(viewer)
            view = await draw(fresh, seat)
            if view != sent:  # (a seña shown changes the view, not the table's version)
                await send(b"data: " + view + b"\n\n")
                sent = view
            while not hub.closed and not watched.closed:
                if not shared:
                    wait = KEEPALIVE
                else:
                    wait = SHARED_SAFETY if core.tables.listening else SHARED_POLL
                try:
                    await asyncio.wait_for(watched.woken.wait(), wait)
                    break
                except TimeoutError:
                    quiet += wait
                if shared and await core.tables.version_of(table.id) != version:
                    break
                if quiet >= KEEPALIVE:
                    await send(b": still here\n\n")
                    quiet = 0.0
    return response

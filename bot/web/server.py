"""The web table's server (aiohttp): the page, the cards, a table's view for whoever asks, its
actions through the same service calls as a tap, and a live stream of the table's views.

Who asks is told by an `Auth`: Telegram's signed launch data (`initData`, in the
`X-Telegram-Init-Data` header) when the bot runs with a token, or a session of the local
try-out (`X-Local-Session`, or its SameSite=Strict cookie), which exists only in local mode:
a page of another site cannot make it act. A seated player gets their seat's view; anyone else
allowed to watch (a member of the group; anyone on the local table) the public view; nobody
else anything. A route that changes something checks what its Telegram button checks.
"""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import hashlib
import json
import logging
import secrets
import time
import zlib
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Protocol, TypeVar

from aiohttp import web
from pydantic import BaseModel, ValidationError

from bot import codec
from bot.game import DECK, AnyAction, Card, MatchConfig
from bot.game.actions import KINDS_BY_CODE
from bot.game.ending import ended_hands
from bot.game.seats import players_of, seats
from bot.i18n import translator
from bot.league.tournament import parse_tag
from bot.model.limits import Buckets
from bot.model.names import clean_name
from bot.model.outbox import Outgoing, Planned
from bot.model.refusals import Refused
from bot.model.table import Table, TableStatus
from bot.service.changes import Change, ChangeKind, Refusal
from bot.service.core import Core
from bot.views.common import plain, refusal_text, seating_at
from bot.views.hints import hint_text
from bot.views.review import review_json
from bot.views.tournament import people_of
from bot.web.cards import back_svg, card_svg
from bot.web.guard import (
    LANGUAGES,
    ActBody,
    JoinBody,
    LoginBody,
    NewTableBody,
    SignBody,
    StepBody,
    guarded,
    language_of,
)
from bot.web.initdata import BadInitData, validate
from bot.web.replay import replay_of
from bot.web.view import table_view, tourney_view

log = logging.getLogger(__name__)
WEB_WORDS = tuple(
    f"web.{k}"
    for k in (
        "name", "enter", "newMatch", "mode", "target", "flor", "malas", "con", "sin", "level",
        "facil",
        "normal", "dificil", "partner", "friend", "play", "open", "join", "you", "hand",
        "worth", "won", "over", "again", "waiting", "team", "sign", "signs_seen", "seats",
        "timer", "notimer", "options", "seal", "rematch", "final", "half", "left", "points",
        "played", "wonRound", "parda", "round", "fromGroup", "yourCards", "answers", "watch",
        "sealLocal", "buenas", "record", "sound",
        "replay", "back", "step", "playReplay", "pause", "prevHand", "nextHand", "of", "sealOk",
        "sealBad", "sealNone", "duel", "pica", "picaOn", "picaSix", "picaOff",
        "champion", "live", "replayShort", "bye", "walkover", "colPlayed", "colWon", "colDiff",
        "bracket", "hint", "colPts", "colBuchholz", "colStreak", "colGames", "colInPlay", "colName",
        "leaderboard", "standings", "inPlay", "playedMatches",
    )
)  # fmt: skip

MAX_BODY = 4096  # an action is a few dozen bytes
KEEPALIVE = 15.0  # seconds between comments on a quiet stream (proxies drop idle ones)
SHARED_POLL = 0.5  # several workers, their notices not heard: how often a stream checks the version
SHARED_SAFETY = 5.0  # several workers, notices heard: the check is only a safety net
STATIC = ("index.html", "app.js", "style.css")
REPLAYS_KEPT = 32  # finished matches' replays kept drawn (a few kB each, gzipped)
STREAM_WINDOW_BITS = 13  # a gzipped stream remembers the last 8 kB (two views): ~40 kB a stream
SIGNS_REMEMBERED = 10_000
JSON = "application/json"
B = TypeVar("B", bound=BaseModel)
R = TypeVar("R")


@dataclass(frozen=True)
class Viewer:
    user_id: int
    name: str


class Auth(Protocol):
    async def identify(self, request: web.Request) -> Viewer | None: ...

    async def may_watch(self, chat_id: int, viewer: Viewer) -> bool | None:
        """Whether the viewer may watch the tables (and tournaments) of this group (None: it
        cannot be told now)."""
        ...


MEMBER_TTL = 120.0  # seconds a membership answer is trusted
LOOKUPS = (1 / 10, 5.0)  # a person's membership lookups at Telegram: one per 10 s, 5 at once
MEMBERS_REMEMBERED = 50_000


class TelegramAuth:
    """Telegram's launch data, signed with the bot's token, no older than `max_age`. Whether
    a person belongs to a table's group is asked of Telegram (`is_member`) at most once per
    `MEMBER_TTL` per group and person, and a person's lookups are rate limited: a stranger's
    flood costs the bot a handful of Bot API calls, not one a request."""

    def __init__(
        self,
        token: str,
        max_age: float,
        clock: Callable[[], float],
        is_member: Callable[[int, int], Awaitable[bool | None]],
    ) -> None:
        self._token = token
        self.max_age = max_age
        self.clock = clock
        self.is_member = is_member
        self._members: OrderedDict[tuple[int, int], tuple[bool | None, float]] = OrderedDict()
        self._lookups = Buckets(*LOOKUPS, clock=clock)
        self.asked = 0  # lookups made at Telegram (a stranger's flood is measured by it)

    async def identify(self, request: web.Request) -> Viewer | None:
        raw = request.headers.get("X-Telegram-Init-Data", "")
        try:
            launch = validate(raw, self._token, self.clock(), self.max_age)
        except BadInitData as error:
            log.info("web request refused: %s", error)
            return None
        return Viewer(launch.user_id, clean_name(launch.first_name or "") or "?")

    async def may_watch(self, chat_id: int, viewer: Viewer) -> bool | None:
        key = (chat_id, viewer.user_id)
        now = self.clock()
        known = self._members.get(key)
        if known is not None and known[1] > now:
            return known[0]
        if not self._lookups.take(viewer.user_id):
            return None  # asked too often: not answered now (and Telegram is not asked)
        self.asked += 1
        member = await self.is_member(*key)
        self._members[key] = (member, now + MEMBER_TTL)
        self._members.move_to_end(key)
        if len(self._members) > MEMBERS_REMEMBERED:
            self._members.popitem(last=False)
        return member


LOCAL_CHAT = -1  # the local try-out's one "group"
# Local people's ids: drawn at random in [2**52, 2**53), never one the database knows, so that
# none repeats across restarts. Above every Telegram id (Telegram's have at most 52 significant
# bits; computer players are negative) and whole in the page's JavaScript numbers.
LOCAL_USERS = (2**52, 2**53)
SESSION_IDLE = 86_400.0  # a local session unused this long is gone
SESSION_COOKIE = "truco_session"


def _local_id() -> int:
    low, high = LOCAL_USERS
    return low + secrets.randbelow(high - low)


@dataclass
class LocalAuth:
    """The try-out's people: a name typed on the page, a session kept by the page (a random
    token bound to one person's id, kept in this process: after a restart it is nobody's);
    a session idle for a day expires."""

    clock: Callable[[], float] = time.time
    sessions: dict[str, tuple[Viewer, float]] = field(default_factory=dict)
    draw: Callable[[], int] = _local_id

    def new_id(self) -> int:
        """An id no session of this process has (the caller also asks the database)."""
        taken = {viewer.user_id for viewer, _ in self.sessions.values()}
        while (user_id := self.draw()) in taken:
            pass
        return user_id

    def login(self, name: str, user_id: int | None = None) -> tuple[str, Viewer]:
        """A new session for a new person (`user_id`: one drawn by `new_id`)."""
        self._expire()
        viewer = Viewer(self.new_id() if user_id is None else user_id, name)
        token = secrets.token_urlsafe(18)
        self.sessions[token] = (viewer, self.clock())
        return token, viewer

    def _expire(self) -> None:
        now = self.clock()
        for token, (_, used) in list(self.sessions.items()):
            if now - used > SESSION_IDLE:
                del self.sessions[token]

    async def identify(self, request: web.Request) -> Viewer | None:
        # The page's cookie (every tab of the browser shares it), or the header a script sends.
        token = request.headers.get("X-Local-Session") or request.cookies.get(SESSION_COOKIE, "")
        found = self.sessions.get(token)
        if found is None:
            return None
        viewer, used = found
        now = self.clock()
        if now - used > SESSION_IDLE:
            del self.sessions[token]
            return None
        self.sessions[token] = (viewer, now)
        return viewer

    async def may_watch(self, chat_id: int, viewer: Viewer) -> bool | None:
        return chat_id == LOCAL_CHAT


STREAMS_PER_VIEWER = 4  # live streams one person keeps open (a few tabs); the oldest closes
STREAMS_PER_ADDRESS = 16  # live streams one address keeps open (a household); the oldest closes


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
        # The señas each seat was shown this hand, for its page: (table, hand, seat) -> señas
        # (each with the seat that made it)
        self._signs: OrderedDict[tuple[int, int, int], list[tuple[int, str]]] = OrderedDict()
        # The views drawn of each watched table's newest version, by what their viewer may see:
        # table -> (version, {(seat, señas seen): JSON}); gone with the table's last stream.
        self._views: dict[int, tuple[int, dict[tuple[Any, ...], bytes]]] = {}
        self.drawn = 0  # views drawn (the rest were shared)

    def signs_for(self, table: Table, seat: int) -> list[tuple[int, str]]:
        hand = table.state.hand_number if table.state else 0
        return list(self._signs.get((table.id, hand, seat), ()))

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
        if change.kind is ChangeKind.SIGN and change.sign and change.seat is not None:
            hand = table.state.hand_number if table.state else 0
            for partner in table.geometry.partners(change.seat):
                key = (table.id, hand, partner)
                self._signs.setdefault(key, []).append((change.seat, change.sign))
                self._signs.move_to_end(key)
                if len(self._signs) > SIGNS_REMEMBERED:
                    self._signs.popitem(last=False)
        self.wake(table.id)

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


def _replay_bytes(table: Table, names: dict[int, str], log: Sequence[AnyAction]) -> bytes:
    return gzip.compress(codec.dump_bytes(replay_of(table, names, log)), 6, mtime=0)


@dataclass(frozen=True)
class Static:
    """A file the page loads, kept as sent: its bytes, gzipped, and a validator (a reload that
    has it gets a 304 and no body)."""

    body: bytes
    gzipped: bytes
    etag: str
    content_type: str

    @classmethod
    def of(cls, text: str, content_type: str) -> Static:
        body = text.encode()
        digest = hashlib.blake2b(body, digest_size=12).hexdigest()
        return cls(body, gzip.compress(body, 9, mtime=0), f'"{digest}"', content_type)

    def answer(self, request: web.Request, cache: str) -> web.Response:
        headers = {"Cache-Control": cache, "ETag": self.etag, "Vary": "Accept-Encoding"}
        asked = request.headers.get("If-None-Match", "")
        if self.etag in (tag.strip() for tag in asked.split(",")) or asked.strip() == "*":
            return web.Response(status=304, headers=headers)
        if "gzip" in request.headers.get("Accept-Encoding", "") and len(self.body) > 256:
            headers["Content-Encoding"] = "gzip"
            return web.Response(body=self.gzipped, content_type=self.content_type, headers=headers)
        return web.Response(body=self.body, content_type=self.content_type, headers=headers)


def _error(status: int, text: str) -> web.Response:
    return web.json_response({"error": text}, status=status)


def _refused(status: int, language: str, refusal: Refusal) -> web.Response:
    """A refusal, in the table's language."""
    return _error(status, refusal_text(translator(language), refusal))


REQUESTS = (20.0, 60.0)  # an address's API requests: 20 a second, 60 at once


class WebTable:
    """The routes. `local` adds the try-out's own: a name, and a new table with bots."""

    def __init__(
        self,
        core: Core,
        auth: Auth,
        hub: Hub,
        local: LocalAuth | None = None,
        *,
        rate: tuple[float, float] = REQUESTS,
        proxies: Sequence[str] = (),
    ) -> None:
        self.core = core
        self.auth = auth
        self.hub = hub
        self.local = local
        self._requests = Buckets(*rate)
        self._files: dict[str, Static] = {}  # the page's files, as sent
        self._cards: dict[tuple[str, str], Static] = {}  # the cards' pictures, by language
        self._replays: OrderedDict[int, bytes] = OrderedDict()  # finished matches, gzipped
        # Requests from these come through a reverse proxy, which says whose they are (never
        # trusted in local mode, where nothing stands in front of the page).
        self.proxies = frozenset(proxies) if local is None else frozenset()

    def address(self, request: web.Request) -> str:
        """Who asks: the peer, or the client a trusted reverse proxy names (the last address
        it added to X-Forwarded-For)."""
        peer = request.remote or ""
        if peer in self.proxies:
            forwarded = request.headers.get("X-Forwarded-For", "")
            hops = [hop.strip() for hop in forwarded.split(",") if hop.strip()]
            if hops:
                return hops[-1][:64]
        return peer

    def app(self) -> web.Application:
        app = web.Application(
            client_max_size=MAX_BODY, middlewares=[guarded(self.local is not None)]
        )
        app.router.add_get("/", self.page)
        app.router.add_get("/static/{name}", self.static)
        app.router.add_get("/cards/{code}.svg", self.card)
        app.router.add_get("/api/words/{language}", self.words)
        table = "/api/table/{id:[0-9]{1,15}}"
        app.router.add_get(table, self.get_table)
        app.router.add_post(table + "/act", self.act)
        app.router.add_post(table + "/sign", self.sign)
        app.router.add_post(table + "/hint", self.hint)
        app.router.add_post(table + "/handoff", self.handoff)
        app.router.add_post(table + "/rematch", self.rematch)
        app.router.add_get(table + "/replay", self.replay)
        app.router.add_get(table + "/review", self.review)
        app.router.add_get(table + "/events", self.events)
        app.router.add_get("/api/tourney/{id:[0-9]{1,15}}", self.get_tourney)
        if self.local is not None:
            app.router.add_post("/api/local/login", self.local_login)
            app.router.add_get("/api/local/me", self.local_me)
            app.router.add_post("/api/local/new", self.local_new)
            app.router.add_get("/api/local/tables", self.local_tables)
            app.router.add_post(table + "/join", self.local_join)
        return app

    # -- the page and its pictures --------------------------------------------------------------
    async def page(self, request: web.Request) -> web.Response:
        return await self._file(request, "index.html")

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in STATIC:
            raise web.HTTPNotFound()
        return await self._file(request, name)

    async def _file(self, request: web.Request, name: str) -> web.Response:
        found = self._files.get(name)
        if found is None:
            text = resources.files("bot.web").joinpath("static", name).read_text(encoding="utf-8")
            kind = {"html": "text/html", "js": "text/javascript", "css": "text/css"}
            found = self._files[name] = Static.of(text, kind[name.rsplit(".", 1)[1]])
        # (the page asks again each time, a reload costs a 304 when nothing changed)
        return found.answer(request, "no-cache")

    async def card(self, request: web.Request) -> web.Response:
        code = request.match_info["code"]
        language = language_of(request)
        if code == "back":
            svg = back_svg()
        else:
            found = next((c for c in DECK if c.code == code), None)
            if found is None:
                raise web.HTTPNotFound()
            svg = card_svg(found, language)
        kept = self._cards.get((code, language))
        if kept is None:
            kept = self._cards[(code, language)] = Static.of(svg, "image/svg+xml")
        return kept.answer(request, "max-age=86400")

    # -- a table -----------------------------------------------------------------------------------
    def _limited(self, request: web.Request) -> None:
        """An address that asks too fast is told to slow down (and nothing is read for it)."""
        if not self._requests.take(self.address(request)):
            t = translator(language_of(request))
            raise web.HTTPTooManyRequests(
                text=json.dumps({"error": t("web.error.slow_down")}),
                content_type="application/json",
            )

    async def _viewer(self, request: web.Request) -> Viewer:
        self._limited(request)
        viewer = await self.auth.identify(request)
        if viewer is None:
            t = translator(language_of(request))
            raise web.HTTPUnauthorized(
                text=json.dumps({"error": t("web.error.who")}), content_type="application/json"
            )
        return viewer

    async def _viewer_and_table(self, request: web.Request) -> tuple[Viewer, Table, int | None]:
        viewer = await self._viewer(request)
        table = await self.core.tables.get(int(request.match_info["id"]))
        if table is None:
            raise web.HTTPNotFound(
                text=json.dumps({"error": translator(language_of(request))("web.error.no_table")}),
                content_type="application/json",
            )
        seat = table.seat_of(viewer.user_id)
        if seat is None:
            allowed = await self.auth.may_watch(table.chat_id, viewer)
            if not allowed:
                key = "web.error.not_here" if allowed is False else "web.error.try_later"
                raise web.HTTPForbidden(
                    text=json.dumps({"error": translator(table.language)(key)}),
                    content_type="application/json",
                )
        return viewer, table, seat

    async def _body(self, request: web.Request, shape: type[B], language: str) -> B:
        """The request's JSON body in the shape a route takes; anything else is a 400."""
        try:
            return shape.model_validate_json(await request.read())
        except ValidationError:
            raise web.HTTPBadRequest(
                text=json.dumps({"error": translator(language)(Refused.BAD_BUTTON.key)}),
                content_type="application/json",
            ) from None

    async def _service(
        self, call: Awaitable[R], table: Table | None, language: str, named: bool = False
    ) -> R:
        """A service call made for a request, shielded (a client that leaves does not undo half
        of it); a refusal is a 409 that says why, in the table's language (`named`: what
        changed since the page was drawn, by the names at `table`)."""
        try:
            return await asyncio.shield(call)
        except Refusal as refusal:
            t = translator(language)
            who = (
                seating_at(t, table, await self.core.people.at(table)) if named and table else None
            )
            raise web.HTTPConflict(
                text=json.dumps({"error": refusal_text(t, refusal, who)}), content_type=JSON
            ) from None

    async def _member(self, table: Table, viewer: Viewer) -> None:
        """Only the group's members sit at its tables, as the Telegram button asks (a page is
        no tap on the group's own message: a membership that cannot be told now refuses)."""
        allowed = await self.auth.may_watch(table.chat_id, viewer)
        if not allowed:
            code = Refused.NOT_MEMBER if allowed is False else Refused.MEMBER_UNKNOWN
            t = translator(table.language)
            raise web.HTTPForbidden(
                text=json.dumps({"error": refusal_text(t, Refusal(code))}), content_type=JSON
            )

    def _json(self, view: bytes) -> web.Response:
        """A view as an answer: with the server's time, gzipped when the client takes it."""
        answer = web.Response(body=view, content_type=JSON, headers=self._now())
        answer.enable_compression()  # (aiohttp reads Accept-Encoding; none: sent as is)
        return answer

    def _now(self) -> dict[str, str]:
        """The core's time, by which a view's deadline counts (the page's clock may be off)."""
        return {"X-Server-Time": f"{self.core.clock():.3f}"}

    def _view_key(self, table: Table, seat: int | None) -> tuple[Any, ...]:
        shown = tuple(self.hub.signs_for(table, seat)) if seat is not None else ()
        return (seat, shown)

    async def _view(self, table: Table, seat: int | None) -> dict[str, Any]:
        names = await self.core.people.at(table)
        shown = self.hub.signs_for(table, seat) if seat is not None else []
        # The two hands that ended last: the page holds each end it has not shown on the felt
        # a moment (a page that missed a view, the next hand begun, still shows the one before;
        # a match that ended at the deal shows the hand before it too).
        ended = ended_hands(table.state) if table.state is not None else ()
        return table_view(table, names, seat, shown, ended[-2:])

    async def _view_bytes(self, table: Table, seat: int | None) -> bytes:
        """The view as JSON, drawn once per table version for every identical viewer."""
        key = self._view_key(table, seat)
        found = self.hub.view(table, key)
        if found is None:
            found = codec.dump_bytes(await self._view(table, seat))
            self.hub.keep_view(table, key, found)
        return found

    async def words(self, request: web.Request) -> web.Response:
        """The page's own words, from the locale files (`web.*`)."""
        language = request.match_info["language"]
        t = translator(language if language in LANGUAGES else "es")
        return web.json_response({key[4:]: t(key) for key in WEB_WORDS})

    async def sign(self, request: web.Request) -> web.Response:
        viewer, table, _ = await self._viewer_and_table(request)
        body = await self._body(request, SignBody, table.language)
        sign = self.core.play.sign(table.id, viewer.user_id, body.step, body.sign)
        await self._service(sign, table, table.language)
        return web.json_response({"sent": body.sign})

    async def hint(self, request: web.Request) -> web.Response:
        """💡: what difícil would do at the viewer's seat, for the viewer alone."""
        viewer, table, _ = await self._viewer_and_table(request)
        body = await self._body(request, StepBody, table.language)
        if self.core.ai is None:
            return _refused(409, table.language, Refusal(Refused.NO_HINTS))
        try:
            found = await asyncio.shield(self.core.ai.hint(table.id, viewer.user_id, body.step))
        except Refusal as refusal:
            return _refused(409, table.language, refusal)
        if found is None:  # it waited past its window, and was dropped
            return _refused(503, table.language, Refusal(Refused.HINT_BUSY))
        team = table.geometry.team_size > 1
        text = hint_text(translator(table.language), found, team)
        return web.json_response({"text": plain(text)})

    async def handoff(self, request: web.Request) -> web.Response:
        """🤖: the answer the viewer's side owes goes to their computer partner."""
        viewer, table, _ = await self._viewer_and_table(request)
        body = await self._body(request, StepBody, table.language)
        handing = self.core.play.hand_off(table.id, viewer.user_id, body.step)
        await self._service(handing, table, table.language)
        return web.json_response({"handed": True})

    async def get_tourney(self, request: web.Request) -> web.Response:
        """A tournament's bracket (or liguilla), for its players and the group's members."""
        viewer = await self._viewer(request)
        tour = await self.core.tournaments.get(int(request.match_info["id"]))
        t = translator(language_of(request))
        # A tournament of a group the viewer is not in (or cannot be told to be in now) gets
        # the answer of one that does not exist: a stranger walking the numbers learns nothing.
        playing = tour is not None and (
            tour.entry_of(viewer.user_id) is not None or viewer.user_id in tour.signed
        )
        if tour is None or not (playing or await self.auth.may_watch(tour.chat_id, viewer)):
            return _error(404, t("web.error.no_tourney"))
        names = await self.core.people.names(people_of(tour))
        tables: dict[tuple[int, int], list[Table]] = {}
        tags = await self.core.tournaments.tables_of(tour.id)
        for tag, table_id in sorted(tags.items(), key=lambda kv: parse_tag(kv[0])):
            found = await self.core.tables.get(table_id)
            if found is not None:
                _, round_, slot, _ = parse_tag(tag)
                tables.setdefault((round_, slot), []).append(found)
        return web.json_response(tourney_view(tour, names, tables), headers=self._now())

    async def get_table(self, request: web.Request) -> web.Response:
        _, table, seat = await self._viewer_and_table(request)
        return self._json(await self._view_bytes(table, seat))

    async def act(self, request: web.Request) -> web.Response:
        viewer, table, seat = await self._viewer_and_table(request)
        if seat is None:
            return _refused(403, table.language, Refusal(Refused.NOT_SEATED))
        body = await self._body(request, ActBody, table.language)
        kind = KINDS_BY_CODE[body.kind]
        card = Card.parse(body.card) if body.card else None
        acting = self.core.play.act(table.id, viewer.user_id, body.step, kind, card)
        await self._service(acting, table, table.language, named=True)
        fresh = await self.core.tables.get(table.id)
        assert fresh is not None
        return self._json(await self._view_bytes(fresh, seat))

    async def replay(self, request: web.Request) -> web.Response:
        """A finished match, frame by frame, for whoever may watch its table (the players, the
        group's members): drawn once and kept, it never changes."""
        _, table, _ = await self._viewer_and_table(request)
        if table.status is not TableStatus.FINISHED or table.state is None:
            t = translator(table.language)
            return _error(409, t("web.error.not_finished"))
        body = self._replays.get(table.id)
        if body is None:
            names = await self.core.people.at(table)
            log = await self.core.history.log(table.id)
            # (a few hundred frames drawn: in a thread, the loop serves the live tables meanwhile)
            body = await asyncio.to_thread(_replay_bytes, table, names, log)
            self._replays[table.id] = body
            while len(self._replays) > REPLAYS_KEPT:
                self._replays.popitem(last=False)
        else:
            self._replays.move_to_end(table.id)
        if "gzip" in request.headers.get("Accept-Encoding", ""):
            return web.Response(body=body, content_type=JSON, headers={"Content-Encoding": "gzip"})
        return web.Response(body=gzip.decompress(body), content_type=JSON)

    async def review(self, request: web.Request) -> web.Response:
        """The viewer's review of a match they played (computed once and kept), as /revision
        gives it: for them alone; anyone else, or a match not over, is refused and nothing
        is computed."""
        viewer = await self._viewer(request)
        language = language_of(request)
        number = int(request.match_info["id"])
        try:
            found = await asyncio.shield(self.core.reviews.of(number, viewer.user_id))
        except Refusal as refusal:
            status = {
                Refused.REVIEW_NO_MATCH: 404, Refused.REVIEW_NOT_YOURS: 403,
            }.get(refusal.code, 409)  # fmt: skip
            return _refused(status, language, refusal)
        return web.json_response(review_json(translator(language), found, str(number)))

    async def rematch(self, request: web.Request) -> web.Response:
        """🔁 Revancha from the page: the same rematch as the group's button (the same place,
        options, seats and computer players), with the same checks: a player of that match
        (the rematch asks), still in the group; the page follows the new table."""
        viewer, table, seat = await self._viewer_and_table(request)
        if seat is not None:  # (anyone else: the rematch refuses, as the button's does)
            await self._member(table, viewer)
        rematch = self.core.lobby.rematch(table.id, viewer.user_id)
        change = await self._service(rematch, table, table.language)
        assert change.table is not None
        return web.json_response({"table": change.table.id})

    async def events(self, request: web.Request) -> web.StreamResponse:
        """Server-sent events: the viewer's view now, then again after every change. A viewer
        (and an address) keeps a few streams at most: past them, the oldest ends."""
        viewer, table, seat = await self._viewer_and_table(request)
        # A player's stream is gzipped when the client takes it, each event flushed whole:
        # successive views share most of their text, so an event costs a tenth of its size. An
        # onlooker's is not: the public view is drawn once and the same bytes go to every
        # onlooker, where compressing each stream would cost a move ~5 ms of CPU per hundred.
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
                **self._now(),
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
        # `WebServer.start`), and the stream also looks at the table's version now and then,
        # twice a second while notices cannot be heard (one small query), and reads the table
        # only when it moved.
        shared = self.core.shared
        watcher = viewer.user_id if seat is not None else 0  # (a player's page: presence)
        with (
            self.hub.watch(table.id, viewer.user_id, self.address(request)) as stream,
            self.core.presence.page(table.id, watcher),
        ):
            sent: bytes | None = None
            version = -1
            quiet = 0.0
            while not self.hub.closed and not stream.closed:
                stream.woken.clear()
                fresh = await self.core.tables.get(table.id)
                if fresh is None:
                    break
                version = fresh.version
                seat = fresh.seat_of(viewer.user_id)
                view = await self._view_bytes(fresh, seat)
                if view != sent:  # (a seña shown changes the view, not the table's version)
                    await send(b"data: " + view + b"\n\n")
                    sent = view
                while not self.hub.closed and not stream.closed:
                    if not shared:
                        wait = KEEPALIVE
                    else:
                        wait = SHARED_SAFETY if self.core.tables.listening else SHARED_POLL
                    try:
                        await asyncio.wait_for(stream.woken.wait(), wait)
                        break
                    except TimeoutError:
                        quiet += wait
                    if shared and await self.core.tables.version_of(table.id) != version:
                        break
                    if quiet >= KEEPALIVE:
                        await send(b": still here\n\n")
                        quiet = 0.0
        return response

    # -- the local try-out -------------------------------------------------------------------------
    async def local_login(self, request: web.Request) -> web.Response:
        assert self.local is not None
        self._limited(request)
        body = await self._body(request, LoginBody, language_of(request))
        name = clean_name(body.name)
        if not name:
            return _error(400, translator(body.language)("web.error.name"))
        # A new person: an id nobody had, in this run or any before it (the names the
        # database keeps are every local person's who ever logged in).
        while await self.core.people.names([user_id := self.local.new_id()]):
            pass
        token, viewer = self.local.login(name, user_id)
        await asyncio.shield(self.core.people.see(viewer.user_id, viewer.name, None))
        answer = web.json_response({"session": token, "user_id": viewer.user_id})
        # A cookie the page's script cannot read, sent to this server alone: a new tab or a
        # reload keeps the seat.
        answer.set_cookie(
            SESSION_COOKIE, token, max_age=int(SESSION_IDLE), httponly=True, samesite="Strict",
            path="/",
        )  # fmt: skip
        return answer

    async def local_me(self, request: web.Request) -> web.Response:
        """Who the page's session is (null: nobody yet, the page asks for a name)."""
        self._limited(request)
        viewer = await self.auth.identify(request)
        if viewer is None:
            return web.json_response({"user_id": None, "name": None})
        return web.json_response({"user_id": viewer.user_id, "name": viewer.name})

    async def local_new(self, request: web.Request) -> web.Response:
        """A new table: the options of /nueva, and computer players in the seats asked for."""
        assert self.local is not None
        viewer = await self._viewer(request)
        body = await self._body(request, NewTableBody, language_of(request))
        config = MatchConfig(
            players=players_of(body.mode), target=body.target, flor=body.flor,
            mazo_penalty=body.house, pica_pica=body.pica, duel_falta=body.duel_falta,
            falta_malas=body.falta_malas and body.target == 30,
        )  # fmt: skip
        table_seats = seats(config.players)
        # A friend takes a seat (the rival in 1v1, the partner in teams); computer players
        # take the others: the opener sits in seat 0, team 0.
        bots: list[int | None]
        if table_seats.team_size == 1:
            bots = [] if body.friend else [None]
        else:
            partners = [0] * (table_seats.team_size - 1)
            bots = [*([1] * table_seats.team_size), *(partners[1:] if body.friend else partners)]
        thread = await self.core.lobby.last_thread(LOCAL_CHAT) + 1
        opening = self._open_local(viewer, thread, config, body, bots)
        table = await self._service(opening, None, body.language)
        return web.json_response({"table": table.id})

    async def _open_local(
        self,
        viewer: Viewer,
        thread: int,
        config: MatchConfig,
        body: NewTableBody,
        bots: Sequence[int | None],
    ) -> Table:
        table = await self.core.lobby.open(
            LOCAL_CHAT, thread, viewer.user_id, config, body.language, body.timer,
            seat_opener=True, hints=body.hints and bool(bots),
        )  # fmt: skip
        for team in bots:
            await self.core.lobby.add_bot(table.id, viewer.user_id, team, body.level)
        return table

    async def local_tables(self, request: web.Request) -> web.Response:
        """Lobbies with a free seat, for friends in other windows."""
        await self._viewer(request)
        lobbies = sorted(
            (t for t in self.core.tables.lobbies() if t.chat_id == LOCAL_CHAT), key=lambda t: t.id
        )  # (local mode is SQLite: every open table is in the core's cache)
        out = [await self._view(t, None) for t in lobbies if None in t.seats]
        return web.json_response({"tables": out})

    async def local_join(self, request: web.Request) -> web.Response:
        viewer, table, _ = await self._viewer_and_table(request)
        body = await self._body(request, JoinBody, table.language)
        joining = self.core.lobby.join(table.id, viewer.user_id, body.team)
        await self._service(joining, table, table.language)
        return web.json_response({"table": table.id})


@contextlib.asynccontextmanager
async def serve(
    app: web.Application, host: str, port: int, hub: Hub | None = None
) -> AsyncIterator[web.AppRunner]:
    """The web table on `host:port` while the block runs."""
    # A client that leaves ends its request at once (a stream it watched closes then, not at
    # its next keep-alive); what a request changes in the game is shielded from that.
    runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    try:
        yield runner
    finally:
        if hub is not None:
            hub.close()
        await runner.cleanup()


class WebServer:
    """The web table served beside the bot (polling or webhook) on its own port."""

    def __init__(self, table: WebTable, hub: Hub, host: str, port: int) -> None:
        self.table = table
        self.hub = hub
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        # Several workers: every worker's commits say which table changed; this one's streams
        # hear them.
        self.table.core.tables.listen(self.hub.wake, self.hub.heard_again)
        runner = web.AppRunner(self.table.app(), access_log=None, handler_cancellation=True)
        await runner.setup()
        await web.TCPSite(runner, self.host, self.port).start()
        self._runner = runner
        self.port = runner.addresses[0][1]  # (port 0: the one the system gave)
        log.info("the web table listens on %s:%s", self.host, self.port)

    async def stop(self) -> None:
        self.hub.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

"""The web table's server (aiohttp): the page, the cards, a table's view for whoever asks, its
actions through the same service calls as a tap, and a live stream of the table's views.

Who asks is told by an `Auth`: Telegram's signed launch data (`initData`, in the
`X-Telegram-Init-Data` header) when the bot runs with a token, or a session of the local
try-out (`X-Local-Session`), which exists only in local mode. No cookies: a page cannot be
made to act by another site. A seated player gets their seat's view; anyone else allowed to
watch (a member of the group; anyone on the local table) the public view; nobody else anything.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Protocol

from aiohttp import web

from bot.game import DECK, Card
from bot.game.actions import KINDS_BY_CODE
from bot.game.ending import ended_hands
from bot.i18n import translator
from bot.model.outbox import Outgoing
from bot.model.refusals import Refused
from bot.model.table import Table
from bot.service.changes import Change, ChangeKind, Refusal
from bot.service.core import Core
from bot.views.common import refusal_text, seating_at
from bot.web.cards import back_svg, card_svg
from bot.web.initdata import BadInitData, validate
from bot.web.view import table_view

log = logging.getLogger(__name__)
WEB_WORDS = tuple(
    f"web.{k}"
    for k in (
        "name", "enter", "newMatch", "mode", "target", "flor", "con", "sin", "level", "facil",
        "normal", "dificil", "partner", "friend", "play", "open", "join", "you", "hand",
        "worth", "won", "over", "again", "waiting", "team", "sign", "signs_seen",
    )
)  # fmt: skip

MAX_BODY = 4096  # an action is a few dozen bytes
KEEPALIVE = 15.0  # seconds between comments on a quiet stream (proxies drop idle ones)
SHARED_POLL = 0.5  # several workers, their notices not heard: how often a stream checks the version
SHARED_SAFETY = 5.0  # several workers, notices heard: the check is only a safety net
STATIC = ("index.html", "app.js", "style.css")
SIGNS_REMEMBERED = 10_000


@dataclass(frozen=True)
class Viewer:
    user_id: int
    name: str


class Auth(Protocol):
    async def identify(self, request: web.Request) -> Viewer | None: ...

    async def may_watch(self, table: Table, viewer: Viewer) -> bool: ...


class TelegramAuth:
    """Telegram's launch data, signed with the bot's token, no older than `max_age`."""

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

    async def identify(self, request: web.Request) -> Viewer | None:
        raw = request.headers.get("X-Telegram-Init-Data", "")
        try:
            launch = validate(raw, self._token, self.clock(), self.max_age)
        except BadInitData as error:
            log.info("web request refused: %s", error)
            return None
        return Viewer(launch.user_id, launch.first_name or "?")

    async def may_watch(self, table: Table, viewer: Viewer) -> bool:
        return bool(await self.is_member(table.chat_id, viewer.user_id))


LOCAL_CHAT = -1  # the local try-out's one "group"
LOCAL_USERS = 8_000_000_000_000  # local people's ids start here (never a Telegram id)


@dataclass
class LocalAuth:
    """The try-out's people: a name typed on the page, a session kept by the page."""

    sessions: dict[str, Viewer] = field(default_factory=dict)
    next_id: int = LOCAL_USERS

    def login(self, name: str) -> tuple[str, Viewer]:
        clean = " ".join(name.split())[:24] or "?"
        self.next_id += 1
        viewer = Viewer(self.next_id, clean)
        token = secrets.token_urlsafe(18)
        self.sessions[token] = viewer
        return token, viewer

    async def identify(self, request: web.Request) -> Viewer | None:
        return self.sessions.get(request.headers.get("X-Local-Session", ""))

    async def may_watch(self, table: Table, viewer: Viewer) -> bool:
        return table.chat_id == LOCAL_CHAT


class Hub:
    """A subscriber of the core: after every commit, the streams watching that table wake."""

    def __init__(self) -> None:
        self._watching: dict[int, set[asyncio.Event]] = {}
        self.closed = False
        # The señas each seat was shown this hand, for its page: (table, hand, seat) -> señas
        self._signs: OrderedDict[tuple[int, int, int], list[str]] = OrderedDict()

    def signs_for(self, table: Table, seat: int) -> list[str]:
        hand = table.state.hand_number if table.state else 0
        return list(self._signs.get((table.id, hand, seat), ()))

    def close(self) -> None:
        """The server stops: every stream ends now rather than at its next keep-alive."""
        self.closed = True
        for watchers in self._watching.values():
            for woken in watchers:
                woken.set()

    async def plan(self, change: Change) -> list[Outgoing]:
        return []

    def committed(self, change: Change, rows: Sequence[Outgoing]) -> None:
        table = change.table
        if table is None:
            return
        if change.kind is ChangeKind.SIGN and change.sign and change.seat is not None:
            hand = table.state.hand_number if table.state else 0
            for partner in table.geometry.partners(change.seat):
                key = (table.id, hand, partner)
                self._signs.setdefault(key, []).append(change.sign)
                self._signs.move_to_end(key)
                if len(self._signs) > SIGNS_REMEMBERED:
                    self._signs.popitem(last=False)
        self.wake(table.id)

    def wake(self, table_id: int) -> None:
        for woken in self._watching.get(table_id, ()):
            woken.set()

    def heard_again(self) -> None:
        """Notices may have been missed (listening began again): every stream looks."""
        for watchers in self._watching.values():
            for woken in watchers:
                woken.set()

    @contextlib.contextmanager
    def watch(self, table_id: int) -> Any:
        woken = asyncio.Event()
        self._watching.setdefault(table_id, set()).add(woken)
        try:
            yield woken
        finally:
            watchers = self._watching.get(table_id)
            if watchers is not None:
                watchers.discard(woken)
                if not watchers:
                    del self._watching[table_id]

    def watchers(self) -> int:
        return sum(len(w) for w in self._watching.values())


def _error(status: int, text: str) -> web.Response:
    return web.json_response({"error": text}, status=status)


def _refused(status: int, language: str, refusal: Refusal) -> web.Response:
    """A refusal, in the table's language."""
    return _error(status, refusal_text(translator(language), refusal))


class WebTable:
    """The routes. `local` adds the try-out's own: a name, and a new table with bots."""

    def __init__(self, core: Core, auth: Auth, hub: Hub, local: LocalAuth | None = None) -> None:
        self.core = core
        self.auth = auth
        self.hub = hub
        self.local = local

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_get("/", self.page)
        app.router.add_get("/static/{name}", self.static)
        app.router.add_get("/cards/{code}.svg", self.card)
        app.router.add_get("/api/table/{id}", self.get_table)
        app.router.add_post("/api/table/{id}/act", self.act)
        app.router.add_post("/api/table/{id}/sign", self.sign)
        app.router.add_get("/api/words/{language}", self.words)
        app.router.add_get("/api/table/{id}/events", self.events)
        if self.local is not None:
            app.router.add_post("/api/local/login", self.local_login)
            app.router.add_post("/api/local/new", self.local_new)
            app.router.add_get("/api/local/tables", self.local_tables)
            app.router.add_post("/api/table/{id}/join", self.local_join)
        return app

    # -- the page and its pictures --------------------------------------------------------------
    async def page(self, request: web.Request) -> web.Response:
        return await self._file("index.html")

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in STATIC:
            raise web.HTTPNotFound()
        return await self._file(name)

    async def _file(self, name: str) -> web.Response:
        text = resources.files("bot.web").joinpath("static", name).read_text(encoding="utf-8")
        kind = {"html": "text/html", "js": "text/javascript", "css": "text/css"}
        return web.Response(
            text=text,
            content_type=kind[name.rsplit(".", 1)[1]],
            headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"},
        )

    async def card(self, request: web.Request) -> web.Response:
        code = request.match_info["code"]
        if code == "back":
            svg = back_svg()
        else:
            found = next((c for c in DECK if c.code == code), None)
            if found is None:
                raise web.HTTPNotFound()
            svg = card_svg(found, request.query.get("lang", "es"))
        return web.Response(
            text=svg, content_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"}
        )

    # -- a table -----------------------------------------------------------------------------------
    async def _viewer_and_table(self, request: web.Request) -> tuple[Viewer, Table, int | None]:
        viewer = await self.auth.identify(request)
        if viewer is None:
            raise web.HTTPUnauthorized(
                text=json.dumps({"error": "launch data missing, forged or too old"}),
                content_type="application/json",
            )
        try:
            table_id = int(request.match_info["id"])
        except ValueError:
            raise web.HTTPNotFound() from None
        table = await self.core.tables.get(table_id)
        if table is None:
            raise web.HTTPNotFound()
        seat = table.seat_of(viewer.user_id)
        if seat is None and not await self.auth.may_watch(table, viewer):
            raise web.HTTPForbidden(
                text=json.dumps({"error": "not at this table"}), content_type="application/json"
            )
        return viewer, table, seat

    async def _view(self, table: Table, seat: int | None) -> dict[str, Any]:
        names = await self.core.people.at(table)
        shown = self.hub.signs_for(table, seat) if seat is not None else []
        # The hand that ended last (the page keeps it on the felt a moment; the two before
        # the end of a match that ended at the deal).
        ended = ended_hands(table.state) if table.state is not None else ()
        last = ended[-2:] if ended and table.state and table.state.is_over else ended[-1:]
        return table_view(table, names, seat, shown, last)

    async def words(self, request: web.Request) -> web.Response:
        """The page's own words, from the locale files (`web.*`)."""
        language = request.match_info["language"]
        t = translator(language if language in ("es", "en") else "es")
        return web.json_response({key[4:]: t(key) for key in WEB_WORDS})

    async def sign(self, request: web.Request) -> web.Response:
        viewer, table, _ = await self._viewer_and_table(request)
        try:
            body = await request.json()
            step, sign = int(body["step"]), str(body["sign"])
        except (ValueError, KeyError, TypeError, json.JSONDecodeError):
            return _refused(400, table.language, Refusal(Refused.BAD_BUTTON))
        try:
            await self.core.play.sign(table.id, viewer.user_id, step, sign)
        except Refusal as refusal:
            return _refused(409, table.language, refusal)
        return web.json_response({"sent": sign})

    async def get_table(self, request: web.Request) -> web.Response:
        _, table, seat = await self._viewer_and_table(request)
        return web.json_response(await self._view(table, seat))

    async def act(self, request: web.Request) -> web.Response:
        viewer, table, seat = await self._viewer_and_table(request)
        if seat is None:
            return _refused(403, table.language, Refusal(Refused.NOT_SEATED))
        try:
            body = await request.json()
            step = int(body["step"])
            kind = KINDS_BY_CODE[str(body["kind"])]
            card = Card.parse(str(body["card"])) if body.get("card") else None
        except (ValueError, KeyError, TypeError, json.JSONDecodeError):
            return _refused(400, table.language, Refusal(Refused.BAD_BUTTON))
        try:
            await self.core.play.act(table.id, viewer.user_id, step, kind, card)
        except Refusal as refusal:
            t = translator(table.language)
            who = seating_at(t, table, await self.core.people.at(table))
            return _error(409, refusal_text(t, refusal, who))
        fresh = await self.core.tables.get(table.id)
        assert fresh is not None
        return web.json_response(await self._view(fresh, seat))

    async def events(self, request: web.Request) -> web.StreamResponse:
        """Server-sent events: the viewer's view now, then again after every change."""
        viewer, table, seat = await self._viewer_and_table(request)
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",
            }
        )
        await response.prepare(request)
        # With several workers on one PostgreSQL, a change may be committed by another process,
        # whose subscribers this one never hears: that process's commit sends a notice (see
        # `WebServer.start`), and the stream also looks at the table's version now and then,
        # twice a second while notices cannot be heard (one small query), and reads the table
        # only when it moved.
        shared = self.core.shared
        with self.hub.watch(table.id) as woken:
            sent: dict[str, Any] | None = None
            version = -1
            quiet = 0.0
            while not self.hub.closed:
                woken.clear()
                fresh = await self.core.tables.get(table.id)
                if fresh is None:
                    break
                version = fresh.version
                seat = fresh.seat_of(viewer.user_id)
                view = await self._view(fresh, seat)
                if view != sent:  # (a seña shown changes the view, not the table's version)
                    await response.write(f"data: {json.dumps(view)}\n\n".encode())
                    sent = view
                while not self.hub.closed:
                    if not shared:
                        wait = KEEPALIVE
                    else:
                        wait = SHARED_SAFETY if self.core.tables.listening else SHARED_POLL
                    try:
                        await asyncio.wait_for(woken.wait(), wait)
                        break
                    except TimeoutError:
                        quiet += wait
                    if shared and await self.core.tables.version_of(table.id) != version:
                        break
                    if quiet >= KEEPALIVE:
                        await response.write(b": still here\n\n")
                        quiet = 0.0
        return response

    # -- the local try-out -------------------------------------------------------------------------
    async def local_login(self, request: web.Request) -> web.Response:
        assert self.local is not None
        try:
            name = str((await request.json())["name"])
        except (ValueError, KeyError, TypeError, json.JSONDecodeError):
            return _error(400, "a name, please")
        token, viewer = self.local.login(name)
        await self.core.people.see(viewer.user_id, viewer.name, None)
        return web.json_response({"session": token, "user_id": viewer.user_id})

    async def local_new(self, request: web.Request) -> web.Response:
        """A new table: the options of /nueva, and computer players in the seats asked for."""
        assert self.local is not None
        viewer = await self.auth.identify(request)
        if viewer is None:
            return _error(401, "log in first")
        try:
            body = await request.json()
            options = local_options(body)
        except (ValueError, KeyError, TypeError, json.JSONDecodeError):
            return _error(400, "bad options")
        config, bots, level, language = options
        thread = await self._free_thread()
        try:
            table = await self.core.lobby.open(
                LOCAL_CHAT, thread, viewer.user_id, config, language, seat_opener=True
            )
            for team in bots:
                await self.core.lobby.add_bot(table.id, viewer.user_id, team, level)
        except Refusal as refusal:
            return _refused(409, language, refusal)
        return web.json_response({"table": table.id})

    async def _free_thread(self) -> int:
        """Each local table is a "topic" of the one local group (one open table each)."""
        return await self.core.lobby.last_thread(LOCAL_CHAT) + 1

    async def local_tables(self, request: web.Request) -> web.Response:
        """Lobbies with a free seat, for friends in other windows."""
        if await self.auth.identify(request) is None:
            return _error(401, "log in first")
        lobbies = sorted(
            (t for t in self.core.tables.lobbies() if t.chat_id == LOCAL_CHAT), key=lambda t: t.id
        )  # (local mode is SQLite: every open table is in the core's cache)
        out = [await self._view(t, None) for t in lobbies if None in t.seats]
        return web.json_response({"tables": out})

    async def local_join(self, request: web.Request) -> web.Response:
        viewer, table, _ = await self._viewer_and_table(request)
        try:
            body = await request.json()
            team = body.get("team")
            team = int(team) if team is not None else None
        except (ValueError, TypeError, json.JSONDecodeError):
            team = None
        try:
            await self.core.lobby.join(table.id, viewer.user_id, team)
        except Refusal as refusal:
            return _refused(409, table.language, refusal)
        return web.json_response({"table": table.id})


def local_options(body: dict[str, Any]) -> tuple[Any, list[int | None], str, str]:
    """The page's options as /nueva's: mode, target, flor, house rule, bots and their level."""
    from bot.game import MatchConfig

    players = 4 if body.get("mode") == "2v2" else 2
    target = 15 if int(body.get("target", 30)) == 15 else 30
    config = MatchConfig(
        players=players,
        target=target,
        flor=bool(body.get("flor", True)),
        mazo_penalty=bool(body.get("house", True)),
    )
    level = str(body.get("level", "normal"))
    if level not in ("facil", "normal", "dificil"):
        raise ValueError(level)
    language = "en" if body.get("language") == "en" else "es"
    friend = bool(body.get("friend", False))  # a friend takes a seat: the rival in 1v1, the
    # partner in 2v2; computer players take the others
    if players == 2:
        bots: list[int | None] = [] if friend else [None]
    else:
        bots = [1, 1] if friend else [1, 1, 0]
    return config, bots, level, language


@contextlib.asynccontextmanager
async def serve(
    app: web.Application, host: str, port: int, hub: Hub | None = None
) -> AsyncIterator[web.AppRunner]:
    """The web table on `host:port` while the block runs."""
    runner = web.AppRunner(app, access_log=None)
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
        runner = web.AppRunner(self.table.app(), access_log=None)
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

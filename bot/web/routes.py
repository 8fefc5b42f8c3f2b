"""The web table's routes: the page and its pictures, a table's view for whoever may see it,
its actions through the same service calls as a tap (each route checks what its Telegram
button checks), a finished match's replay, a review, a tournament's bracket, and a table's
live stream (`hub.stream`).

A seated player gets their seat's view; anyone else allowed to watch (a member of the group;
anyone on the local table) the public view; nobody else anything. Every call into the core
that may change something or be refused goes through `Routes._service`: shielded (a client
that leaves does not undo half of it), and a refusal is answered with the status that says it
(409 unless told otherwise), in the table's language (reads go to the core directly).
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
from collections import OrderedDict
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, TypeVar

from aiohttp import web
from pydantic import BaseModel, ValidationError

from bot import codec
from bot.game import DECK, AnyAction, Card
from bot.game.actions import KINDS_BY_CODE
from bot.game.ending import ended_hands
from bot.i18n import translator
from bot.league.tournament import parse_tag
from bot.model.limits import Buckets
from bot.model.refusals import Refused
from bot.model.table import Table, TableStatus
from bot.service.changes import Refusal
from bot.service.core import Core
from bot.views.common import plain, refusal_text, seating_at
from bot.views.hints import hint_text
from bot.views.review import REVIEW_WORDS, review_json
from bot.views.tournament import people_of
from bot.web.auth import Auth, LocalAuth, Viewer
from bot.web.cards import back_svg, card_svg
from bot.web.guard import LANGUAGES, ActBody, SignBody, StepBody, language_of
from bot.web.hub import Hub, stream
from bot.web.replay import replay_of
from bot.web.view import table_view, tourney_view

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
        "leaderboard", "standings", "inPlay", "playedMatches", "handOver", "yourTurn",
        "signPick", "signs_made", "close", "toMenu", "toChat", "toTable", "openNone",
        "pastMatches", "watchShort", "youWon", "youLost", "soundWaits", "duelNow", "duelNext",
        "duelDone",
        *REVIEW_WORDS,
    )
)  # fmt: skip

MAX_BODY = 4096  # an action is a few dozen bytes
STATIC = ("index.html", "app.js", "style.css")
REPLAYS_KEPT = 32  # finished matches' replays kept drawn (a few kB each, gzipped)
JSON = "application/json"
B = TypeVar("B", bound=BaseModel)
R = TypeVar("R")


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


def error_answer(status: int, text: str) -> web.Response:
    """A refusal the route says itself, as JSON: `{"error": text}` with `status`."""
    return web.json_response({"error": text}, status=status)


def _refused(status: int, language: str, refusal: Refusal) -> web.Response:
    """A refusal, in the table's language."""
    return error_answer(status, refusal_text(translator(language), refusal))


REQUESTS = (20.0, 60.0)  # an address's API requests: 20 a second, 60 at once
# A refusal's status, as the exception a route raises for it
REFUSED: dict[int, type[web.HTTPException]] = {
    403: web.HTTPForbidden, 404: web.HTTPNotFound, 409: web.HTTPConflict,
}  # fmt: skip
REVIEW_REFUSED = {Refused.REVIEW_NO_MATCH: 404, Refused.REVIEW_NOT_YOURS: 403}


class Routes:
    """The routes every web table has, and what they share: who asks, the table, the body, the
    service call (`local`: the try-out, whose own routes are `tryout.TryOutRoutes`)."""

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
        refused = None if seat is not None else await self._may_not_watch(table, viewer)
        if refused is not None:
            raise web.HTTPForbidden(
                text=json.dumps({"error": translator(table.language)(refused)}),
                content_type="application/json",
            )
        return viewer, table, seat

    async def _may_not_watch(self, table: Table, viewer: Viewer) -> str | None:
        """Why a viewer not seated at `table` may not watch it (a locale key), or None."""
        if table.chat_id > 0:
            # A practice: its place is its player's private chat, no group whose members may
            # watch (Telegram, asked, could not tell, and asking later would not help).
            return None if table.chat_id == viewer.user_id else "web.error.private"
        allowed = await self.auth.may_watch(table.chat_id, viewer)
        if allowed:
            return None
        return "web.error.not_here" if allowed is False else "web.error.try_later"

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
        self,
        call: Awaitable[R],
        table: Table | None,
        language: str,
        named: bool = False,
        statuses: Mapping[Refused, int] | None = None,
    ) -> R:
        """A service call made for a request, shielded (a client that leaves does not undo half
        of it); a refusal is a 409 (or the status `statuses` gives its code) that says why, in
        `language` (`named`: what changed since the page was drawn, by the names at `table`)."""
        try:
            return await asyncio.shield(call)
        except Refusal as refusal:
            t = translator(language)
            who = (
                seating_at(t, table, await self.core.people.at(table)) if named and table else None
            )
            status = (statuses or {}).get(refusal.code, 409)
            raise REFUSED[status](
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
        return (seat,)  # (the señas a seat sees are the table's: its version tells them)

    async def _view(self, table: Table, seat: int | None) -> dict[str, Any]:
        names = await self.core.people.at(table)
        # The two hands that ended last: the page holds each end it has not shown on the felt
        # a moment (a page that missed a view, the next hand begun, still shows the one before;
        # a match that ended at the deal shows the hand before it too).
        ended = ended_hands(table.state) if table.state is not None else ()
        return table_view(table, names, seat, ended[-2:], self.hub.timeouts(table.id))

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
        asking = self.core.ai.hint(table.id, viewer.user_id, body.step)
        found = await self._service(asking, table, table.language)
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
            return error_answer(404, t("web.error.no_tourney"))
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
            return error_answer(409, t("web.error.not_finished"))
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
        reviewing = self.core.reviews.of(number, viewer.user_id)
        found = await self._service(reviewing, None, language, statuses=REVIEW_REFUSED)
        t = translator(language)
        table = await self.core.history.table(number)
        who = seating_at(t, table, await self.core.people.at(table)) if table else None
        return web.json_response(review_json(t, found, str(number), who))

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
        address = self.address(request)
        return await stream(
            request, self.hub, self.core, table, viewer.user_id, seat, address, self._view_bytes,
            self._now(),
        )  # fmt: skip

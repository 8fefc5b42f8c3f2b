"""Who asks the web table: an `Auth` tells a request's `Viewer`, and whether that person may
watch a group's tables.

- `TelegramAuth` (the Mini App, with the bot's token): Telegram's signed launch data
  (`initData`, in the `X-Telegram-Init-Data` header, never a cookie); a group's membership is
  asked of Telegram, remembered a while, and a person's lookups are rate limited.
- `LocalAuth` (the try-out, `python -m bot --local`, which exists only without a token): a name
  typed on the page and a session token kept in this process, sent as the `X-Local-Session`
  header or as the SameSite=Strict, HttpOnly cookie the login sets (so a page of another site
  cannot make it act, and a new tab keeps the seat).
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from aiohttp import web

from bot.model.limits import Buckets
from bot.model.names import clean_name
from bot.web.initdata import BadInitData, validate

log = logging.getLogger(__name__)


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

    async def may_sit(self, chat_id: int, viewer: Viewer) -> bool | None:
        """Whether the viewer may sit at a table of this group, asked afresh (None: it cannot be
        told now)."""
        ...


LOOKUPS = (1 / 10, 5.0)  # a person's membership lookups at Telegram: one per 10 s, 5 at once
# Whether a person is in a group (chat, person, `fresh`: not from memory), as the front end that
# knows the group tells it: asked of Telegram only when the given `may_ask` lets it.
Membership = Callable[[int, int, bool, Callable[[], bool]], Awaitable[bool | None]]


class TelegramAuth:
    """Telegram's launch data, signed with the bot's token, no older than `max_age`. Whether
    a person belongs to a table's group is the Telegram adapter's answer (`is_member`: its one
    memory of them), and a person's lookups at Telegram are rate limited: a stranger's flood
    costs the bot a handful of Bot API calls, not one a request."""

    def __init__(
        self,
        token: str,
        max_age: float,
        clock: Callable[[], float],
        is_member: Membership,
    ) -> None:
        self._token = token
        self.max_age = max_age
        self.clock = clock
        self.is_member = is_member
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
        return await self._member(chat_id, viewer, False)

    async def may_sit(self, chat_id: int, viewer: Viewer) -> bool | None:
        return await self._member(chat_id, viewer, True)

    async def _member(self, chat_id: int, viewer: Viewer, fresh: bool) -> bool | None:
        def may_ask() -> bool:
            if not self._lookups.take(viewer.user_id):
                return False  # asked too often: not answered now (and Telegram is not asked)
            self.asked += 1
            return True

        return await self.is_member(chat_id, viewer.user_id, fresh, may_ask)


# The try-out's one room: where it opens its tables and keeps its league. A table is the
# try-out's by its kind of place (`PlaceKind.TRYOUT`) and a person by their kind
# (`PersonKind.TRYOUT`, their id the database's), never by a number.
LOCAL_CHAT = -1
SESSION_IDLE = 86_400.0  # a local session unused this long is gone
SESSION_COOKIE = "truco_session"


@dataclass
class LocalAuth:
    """The try-out's people: a name typed on the page, a session kept by the page (a random
    token bound to one person, whose id the database allocated: kept in this process, after a
    restart it is nobody's); a session idle for a day expires. They watch and sit in the
    try-out's room (`room`) alone."""

    clock: Callable[[], float] = time.time
    sessions: dict[str, tuple[Viewer, float]] = field(default_factory=dict)
    room: int = LOCAL_CHAT

    def login(self, name: str, user_id: int) -> tuple[str, Viewer]:
        """A new session for a new person (`user_id`: theirs, allocated by the database)."""
        self._expire()
        viewer = Viewer(user_id, name)
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
        return chat_id == self.room

    async def may_sit(self, chat_id: int, viewer: Viewer) -> bool | None:
        return chat_id == self.room

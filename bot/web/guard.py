"""The web table's edge: what every request meets before a route runs, and the shapes a route
accepts.

- `guarded`: a middleware. In local mode the page answers only to its own name (the loopback
  address or localhost, with its port: a page of another site that DNS-rebinds its name to
  127.0.0.1 is refused, 421); every response carries the security headers (a
  Content-Security-Policy that allows only the page's own origin, and in Mini App mode framing
  by Telegram's web client only; nosniff; no referrer); a fault no route expected is a 500 said
  in JSON, logged once (the tests assert there is none).
- The bodies the routes accept, as pydantic models (types, ranges, sizes): anything else is a
  400 with a clear message in the reader's language, and nothing happens.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Literal

from aiohttp import web
from aiohttp.typedefs import Middleware
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from bot.ai.signs import SIGNS
from bot.game import DECK
from bot.game.actions import KINDS_BY_CODE
from bot.i18n import DEFAULT_LANGUAGE, language_for, languages

log = logging.getLogger(__name__)

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
# What a page of ours may load or talk to: itself. (Cards are our own SVG; the page's scripts
# and styles are files of ours; styles set from the script go through the CSSOM.)
CSP = (
    "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; object-src 'none'; "
)
# Telegram's web client shows a Mini App in a frame; its apps do not frame it.
TELEGRAM_FRAMES = "frame-ancestors https://web.telegram.org https://*.web.telegram.org"
NO_FRAMES = "frame-ancestors 'none'"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def guarded(local: bool) -> Middleware:
    """The middleware of the web table (`local`: the try-out on loopback)."""
    csp = CSP + (NO_FRAMES if local else TELEGRAM_FRAMES)

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        if local and not own_name(request):
            response: web.StreamResponse = web.json_response(
                {"error": "this table answers only to its own address"}, status=421
            )
        else:
            try:
                response = await handler(request)
            except web.HTTPException as refused:
                response = _answer(refused)
            except Exception:
                log.exception("web request failed: %s %s", request.method, request.path)
                response = web.json_response({"error": "internal error"}, status=500)
        headers = response.headers
        headers.setdefault("Content-Security-Policy", csp)
        headers["X-Content-Type-Options"] = "nosniff"
        headers["Referrer-Policy"] = "no-referrer"
        return response

    return guard


def _answer(refused: web.HTTPException) -> web.Response:
    """A refusal raised by a route, as the response it stands for (in JSON)."""
    if refused.content_type == "application/json" and refused.text:
        text = refused.text
    else:
        text = json.dumps({"error": refused.reason})
    answer = web.Response(status=refused.status, text=text, content_type="application/json")
    for name in ("Location", "Retry-After", "Allow"):
        if name in refused.headers:
            answer.headers[name] = refused.headers[name]
    return answer


def own_name(request: web.Request) -> bool:
    """The request names this server as the loopback address or localhost, with its port."""
    host = request.headers.get("Host", "")
    name, _, port = host.rpartition(":") if not host.endswith("]") else (host, "", "")
    if name not in LOOPBACK_NAMES:
        return False
    sockname = request.transport.get_extra_info("sockname") if request.transport else None
    listening = sockname[1] if sockname else None
    return port.isdigit() and int(port) == listening


# -- the shapes of request bodies -----------------------------------------------------------------
STEP = Annotated[int, Field(ge=0, le=10_000_000)]
TEAM = Literal[0, 1]


def _spoken(value: str) -> str:
    if value not in languages():
        raise ValueError("no such language")
    return value


LANGUAGE = Annotated[str, Field(max_length=16), AfterValidator(_spoken)]


class _Body(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class ActBody(_Body):
    """A move from the page: the step it was drawn at, its kind's code, the card for a play."""

    step: STEP
    kind: str = Field(max_length=4)
    card: str | None = Field(default=None, max_length=3)

    @field_validator("kind")
    @classmethod
    def _kind(cls, value: str) -> str:
        if value not in KINDS_BY_CODE:
            raise ValueError("no such move")
        return value

    @field_validator("card")
    @classmethod
    def _card(cls, value: str | None) -> str | None:
        if value is not None and value not in CARD_CODES:
            raise ValueError("no such card")
        return value


class SignBody(_Body):
    step: STEP
    sign: str = Field(max_length=8)

    @field_validator("sign")
    @classmethod
    def _sign(cls, value: str) -> str:
        if value not in SIGNS:
            raise ValueError("no such seña")
        return value


class StepBody(_Body):
    """💡 a hint, 🤖 hand the answer to a computer partner: at the step the page was drawn at."""

    step: STEP


class AnswerBody(_Body):
    """📝 an answer to a review's question: the moment (its place among the review's slips)
    and the choice tapped (checked against the review by the service)."""

    index: int = Field(ge=0, le=1000)
    choice: int = Field(ge=0, le=100)


class LoginBody(_Body):
    name: str = Field(max_length=256)
    language: LANGUAGE = DEFAULT_LANGUAGE


class NewTableBody(_Body):
    """The options of /nueva, as the page's form sends them."""

    mode: Literal["1v1", "2v2", "3v3"] = "1v1"  # (3v3: on the local table only, for now)
    target: Literal[15, 30] = 30
    flor: bool = True
    house_rule: bool = True  # R24
    pica: bool = True  # 3v3: pica-pica hands (R36)
    duel_falta: Literal[0, 6] = 0  # 3v3: a falta envido in a duel, R18 (0) or a fixed 6 (R42)
    falta_malas: bool = False  # R46: the falta counted to the end of the malas (to 30 only)
    level: Literal["facil", "normal", "dificil"] = "normal"
    friend: bool = False  # a friend takes a seat: the rival in 1v1, the partner in 2v2
    timer: Literal[0, 30, 60, 120] = 0  # seconds a move (0: sin tiempo)
    language: LANGUAGE = DEFAULT_LANGUAGE
    hints: bool = True  # 💡 (a table with computer players is practice: on unless turned off)


class JoinBody(_Body):
    team: TEAM | None = None


CARD_CODES = frozenset(card.code for card in DECK)


def language_of(request: web.Request) -> str:
    """The reader's language when no table says it: the page's `lang`, else their browser's."""
    asked = request.query.get("lang", "")
    if asked in languages():
        return asked
    return language_for(request.headers.get("Accept-Language", ""))

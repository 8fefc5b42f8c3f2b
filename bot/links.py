"""One codec for the deep links the bot hands out: `t.me/<bot>?start=<payload>` (opens the
bot's private chat with `/start <payload>`) and `t.me/<bot>/<app>?startapp=<payload>` (opens the
web table as a Mini App with `start_param`).

A kind of link is declared once, as a frozen dataclass over `Link` with its channel, its prefix
and at most one typed field written right after the prefix: an `int` (ASCII digits, at most
`MAX_DIGITS`) or a `str` declared `Annotated[str, Token()]` (a secret looked up, never
trusted). `encode` and `decode` are generic; the web page reads its links with the prefixes
this module serves it (`page_links`), so the bot and the page cannot disagree on a letter.
Anything else a link may carry (typed by hand, garbled, forged) decodes to None: the answer a
`/start` without a link gets.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import (
    Annotated,
    Any,
    ClassVar,
    dataclass_transform,
    get_args,
    get_origin,
    get_type_hints,
)

from bot.callbacks import MAX_DIGITS

MAX_PAYLOAD = 64  # Telegram's longest start parameter
# Telegram's alphabet of start parameters (a token of `secrets.token_urlsafe` is in it)
_ALPHABET = re.compile(r"[A-Za-z0-9_-]*")


class Channel(StrEnum):
    """Where a link opens: the bot's private chat, or the web table as a Mini App."""

    START = "start"
    APP = "startapp"


@dataclass(frozen=True)
class Token:
    """A `str` field: a secret of the link (a table's join token, a partner's invitation). Any
    text after the prefix is read as one, as ever: a wrong one is looked up and not found,
    and its answer is a stale link's."""


class _Int:
    kind = "int"

    def encode(self, value: Any) -> str:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"not a link's number: {value!r}")
        text = str(value)
        if len(text) > MAX_DIGITS:
            raise ValueError(f"not a link's number: {value!r}")
        return text

    def decode(self, text: str) -> int | None:
        # (ASCII digits only: `str.isdigit` also takes "²")
        if not text or len(text) > MAX_DIGITS or not text.isascii() or not text.isdigit():
            return None
        return int(text)


class _Token:
    kind = "token"

    def encode(self, value: Any) -> str:
        # (empty only for a table whose token is missing: a link that joins nothing, as before)
        if not isinstance(value, str) or not _ALPHABET.fullmatch(value):
            raise ValueError(f"not a link's token: {value!r}")
        return value

    def decode(self, text: str) -> str | None:
        return text or None


FieldCodec = _Int | _Token


def _field_of(cls: type) -> tuple[str, FieldCodec] | None:
    specs = dataclasses.fields(cls)
    if not specs:
        return None
    if len(specs) > 1:  # (nothing would tell where one ends: the alphabet has no separator)
        raise TypeError(f"{cls.__name__}: a link carries at most one field")
    hint = get_type_hints(cls, include_extras=True)[specs[0].name]
    if hint is int:
        return specs[0].name, _Int()
    extras = get_args(hint)[1:] if get_origin(hint) is Annotated else ()
    if get_args(hint)[:1] == (str,) and any(isinstance(x, Token) for x in extras):
        return specs[0].name, _Token()
    raise TypeError(f"{cls.__name__}: a link's field is an int or a Token: {hint!r}")


_BY_CHANNEL: dict[Channel, dict[str, type[Link]]] = {channel: {} for channel in Channel}


@dataclass_transform(frozen_default=True)
class Link:
    """A kind of link: `class X(Link, channel=Channel.START, prefix="h"): table: int` (a
    frozen dataclass; its prefix unique in its channel, ASCII letters)."""

    CHANNEL: ClassVar[Channel]
    PREFIX: ClassVar[str]
    FIELD: ClassVar[tuple[str, FieldCodec] | None]

    def __init_subclass__(cls, channel: Channel, prefix: str, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclass(frozen=True)(cls)
        if not prefix or not prefix.isascii() or not prefix.isalpha():
            raise TypeError(f"{cls.__name__}: a prefix is ASCII letters: {prefix!r}")
        kinds = _BY_CHANNEL[channel]
        if prefix in kinds:
            raise TypeError(f"{cls.__name__}: prefix {prefix!r} is {kinds[prefix].__name__}'s")
        cls.CHANNEL, cls.PREFIX, cls.FIELD = channel, prefix, _field_of(cls)
        kinds[prefix] = cls


def encode(link: Link) -> str:
    """The link's payload: its prefix and its field."""
    text = link.PREFIX
    if link.FIELD is not None:
        name, codec = link.FIELD
        text += codec.encode(getattr(link, name))
    if len(text) > MAX_PAYLOAD:
        raise ValueError(f"a link over {MAX_PAYLOAD} characters: {text!r}")
    return text


def decode(channel: Channel, text: str | None) -> Link | None:
    """The link a payload of `channel` carries; None for anything we did not make."""
    if not isinstance(text, str):
        return None
    kinds = _BY_CHANNEL[channel]
    # (the longest prefix first: a kind's prefix may begin another's)
    for prefix in sorted((p for p in kinds if text.startswith(p)), key=len, reverse=True):
        kind = kinds[prefix]
        rest = text[len(prefix) :]
        if kind.FIELD is None:
            if not rest:
                return kind()
            continue
        name, codec = kind.FIELD
        value = codec.decode(rest)
        if value is not None:
            return kind(**{name: value})
    return None


def url(link: Link, bot: str | None, app: str = "") -> str:
    """The `t.me` address of `link`: the bot's chat, or its Mini App `app`."""
    where = f"{bot}/{app}" if link.CHANNEL is Channel.APP else f"{bot}"
    return f"https://t.me/{where}?{link.CHANNEL}={encode(link)}"


def start_pattern(kind: type[Link]) -> str:
    """The regular expression of `/start <kind's payload>` (its handler's filter)."""
    assert kind.CHANNEL is Channel.START and kind.FIELD is not None
    tail = r"\d+" if isinstance(kind.FIELD[1], _Int) else r"\S+"
    return rf"^/start {re.escape(kind.PREFIX)}{tail}$"


# -- the links -----------------------------------------------------------------------------------
class HandLink(Link, channel=Channel.START, prefix="h"):
    """A player who blocked the bot, back for their hand at table `table`."""

    table: int


class JoinLink(Link, channel=Channel.START, prefix="j"):
    """A seat at the table whose join token is `token` (never its number)."""

    token: Annotated[str, Token()]


class PartnerLink(Link, channel=Channel.START, prefix="tp"):
    """A partner's invitation to sign up with its inviter in a tournament."""

    token: Annotated[str, Token()]


class ReviewLink(Link, channel=Channel.START, prefix="v"):
    """The review of match `table`, in private."""

    table: int


class PracticeLink(Link, channel=Channel.START, prefix="practica"):
    """The private chat opened to practise (`/nueva bot` asked where the bot cannot write)."""


class NotifyLink(Link, channel=Channel.START, prefix="avisame"):
    """The private chat opened for the notes of /avisame."""


class PlaceLink(Link, channel=Channel.START, prefix="mano"):
    """The private chat opened for `/mano privado`."""


class TableLink(Link, channel=Channel.APP, prefix="t"):
    """The web table of table `table`, to play or watch."""

    table: int


class ReplayLink(Link, channel=Channel.APP, prefix="r"):
    """A finished match, `table`, replayed on the web table."""

    table: int


class TourneyLink(Link, channel=Channel.APP, prefix="k"):
    """A tournament's bracket on the web table."""

    tourney: int


def page_name(kind: type[Link]) -> str:
    """The name app.js knows a Mini App link by: TableLink's is "table"."""
    return kind.__name__.removesuffix("Link").lower()


def page_links() -> dict[str, dict[str, Any]]:
    """The page's reading of its `start_param`, from these declarations: each Mini App link's
    prefix and its number's most digits, by name (served to app.js inside the page)."""
    return {
        page_name(kind): {"prefix": prefix, "digits": MAX_DIGITS}
        for prefix, kind in _BY_CHANNEL[Channel.APP].items()
    }


KINDS: tuple[type[Link], ...] = tuple(k for kinds in _BY_CHANNEL.values() for k in kinds.values())

"""One codec for button data: short ASCII, `<prefix>:<field>:<field>...`, never over 64 bytes.

A button type is declared once, as a frozen dataclass over `CallbackData` with its prefix and
typed fields; packing and unpacking are generic. A field is an `int` (ASCII digits, at most
`MAX_DIGITS`), a `StrEnum` (its value), an `ActionKind` (its short code), a `Card` (its code),
a `Scope` (/tabla's key, a number), or a `str` declared `Annotated[str, Word(...)]` (an `int`
of more digits, `Annotated[int, Digits(n)]`). A last
field `X | None = None` is left out when None. The worst case of every type is measured when
it is declared: one that could ever pack over 64 bytes is not a type. Anything else a button
may carry (forged, garbled, from a release that wrote other codes) unpacks to None: the
"stale button" answer, nothing changes.
"""

from __future__ import annotations

import dataclasses
import types
from dataclasses import dataclass
from enum import StrEnum
from typing import (
    Annotated,
    Any,
    ClassVar,
    Protocol,
    Union,
    dataclass_transform,
    get_args,
    get_origin,
    get_type_hints,
)

from bot.game import ActionKind, Card
from bot.game.actions import KIND_CODES
from bot.game.seats import SEAT_COUNTS

MAX_BYTES = 64
MAX_DIGITS = 12  # table numbers and ids fit in SQLite's and PostgreSQL's 64-bit integers
SEP = ":"


class BadButton(ValueError):
    """The codec's refusal: data that is not one of our buttons."""


@dataclass(frozen=True)
class Word:
    """A `str` field's shape: at most `size` ASCII letters (and digits, if `digits`), at least
    `least` of them."""

    size: int
    digits: bool = True
    least: int = 1

    def check(self, text: str) -> str:
        ok = text.isalnum() if self.digits else text.isalpha()
        if not (self.least <= len(text) <= self.size and text.isascii() and (ok or not text)):
            raise BadButton(text)
        return text


@dataclass(frozen=True)
class Scope:
    """What a /tabla page counts: one mode's matches (`players`; None: all of them), this
    month's only or all time. Carried as the number old buttons carry: players, plus 100 for
    this month (0 all, 2 1v1, 4 2v2, 102 1v1 this month)."""

    players: int | None = None
    month: bool = False

    @property
    def code(self) -> int:
        return (self.players or 0) + (100 if self.month else 0)

    @staticmethod
    def of(code: int) -> Scope:
        """Any number a button carries (a mode we do not have counts every match)."""
        players = code % 100
        return Scope(players if players in SEAT_COUNTS else None, code >= 100)


# -- field codecs ------------------------------------------------------------------------------
class FieldCodec(Protocol):
    width: int  # the most bytes a value packs to

    def encode(self, value: Any) -> str: ...

    def decode(self, text: str) -> Any: ...


def _number(text: str, most: int = MAX_DIGITS) -> int:
    if not text or len(text) > most or not text.isascii() or not text.isdigit():
        raise BadButton(text)
    return int(text)


@dataclass(frozen=True)
class Digits:
    """An `int` field's most digits, when more than `MAX_DIGITS` (a person's Telegram id: up
    to 52 significant bits, 16 digits)."""

    most: int


class _Int:
    def __init__(self, width: int = MAX_DIGITS) -> None:
        self.width = width

    def encode(self, value: Any) -> str:
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"not a button's number: {value!r}")
        return _checked(str(value), self.width)

    def decode(self, text: str) -> int:
        if len(text) > self.width:
            raise BadButton(text)
        return _number(text, self.width)


class _Codes:
    """An enumeration by its codes (a `StrEnum` by its values; `ActionKind` by its short codes)."""

    def __init__(self, codes: dict[Any, str]) -> None:
        self.codes = codes
        self.by_code = {code: value for value, code in codes.items()}
        self.width = max(len(code.encode()) for code in codes.values())
        for code in codes.values():
            _checked(code, self.width)

    def encode(self, value: Any) -> str:
        try:
            return self.codes[value]
        except (KeyError, TypeError):
            raise ValueError(f"not one of the button's codes: {value!r}") from None

    def decode(self, text: str) -> Any:
        try:
            return self.by_code[text]
        except KeyError:
            raise BadButton(text) from None


class _Card:
    width = 3  # "12e"

    def encode(self, value: Any) -> str:
        return _checked(value.code, self.width)

    def decode(self, text: str) -> Card:
        try:
            return Card.parse(text)
        except ValueError:
            raise BadButton(text) from None


class _Scope:
    width = 3

    def encode(self, value: Any) -> str:
        return _checked(str(value.code), self.width)

    def decode(self, text: str) -> Scope:
        return Scope.of(_number(text))


class _Word:
    def __init__(self, word: Word) -> None:
        self.word = word
        self.width = word.size

    def encode(self, value: Any) -> str:
        try:
            return self.word.check(value)
        except BadButton:
            raise ValueError(f"not a button's word: {value!r}") from None

    def decode(self, text: str) -> str:
        return self.word.check(text)


def _checked(text: str, width: int) -> str:
    if SEP in text or not text.isascii() or len(text) > width:
        raise ValueError(f"not a button field: {text!r}")
    return text


def _codec_of(hint: Any) -> FieldCodec:
    if get_origin(hint) is Annotated:
        base, *extras = get_args(hint)
        words = [x for x in extras if isinstance(x, Word)]
        if base is str and len(words) == 1:
            return _Word(words[0])
        digits = [x for x in extras if isinstance(x, Digits)]
        if base is int and len(digits) == 1:
            return _Int(digits[0].most)
    elif hint is int:
        return _Int()
    elif hint is Card:
        return _Card()
    elif hint is Scope:
        return _Scope()
    elif hint is ActionKind:
        return _Codes(dict(KIND_CODES))
    elif isinstance(hint, type) and issubclass(hint, StrEnum):
        return _Codes({member: member.value for member in hint})
    raise TypeError(f"a button field must be int, a StrEnum, Card, Scope or a Word: {hint!r}")


@dataclass(frozen=True)
class Field:
    name: str
    codec: FieldCodec
    optional: bool  # the last field, left out when None


def _fields_of(cls: type) -> tuple[Field, ...]:
    hints = get_type_hints(cls, include_extras=True)
    found: list[Field] = []
    for spec in dataclasses.fields(cls):
        hint = hints[spec.name]
        optional = get_origin(hint) in (Union, types.UnionType) and type(None) in get_args(hint)
        if optional:
            (hint,) = [x for x in get_args(hint) if x is not type(None)]
            if spec.default is not None:
                raise TypeError(f"{cls.__name__}.{spec.name}: an optional field defaults to None")
        found.append(Field(spec.name, _codec_of(hint), optional))
    if any(f.optional for f in found[:-1]):
        raise TypeError(f"{cls.__name__}: only the last field may be optional")
    return tuple(found)


_BY_PREFIX: dict[str, type[CallbackData]] = {}


@dataclass_transform(frozen_default=True)
class CallbackData:
    """A button type: `class X(CallbackData, prefix="x"): table: int; ...` (a frozen
    dataclass; its prefix unique, its worst case within 64 bytes, checked here)."""

    PREFIX: ClassVar[str]
    FIELDS: ClassVar[tuple[Field, ...]]

    def __init_subclass__(cls, prefix: str, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        dataclass(frozen=True)(cls)
        if not prefix or not all(p.isascii() and p.isalpha() for p in prefix.split(SEP)):
            raise TypeError(f"{cls.__name__}: a prefix is ASCII letters: {prefix!r}")
        if prefix in _BY_PREFIX:
            raise TypeError(f"{cls.__name__}: prefix {prefix!r} is {_BY_PREFIX[prefix].__name__}'s")
        cls.PREFIX, cls.FIELDS = prefix, _fields_of(cls)
        worst = len(prefix) + sum(1 + f.codec.width for f in cls.FIELDS)
        if worst > MAX_BYTES:
            raise TypeError(f"{cls.__name__} may pack to {worst} bytes, over {MAX_BYTES}")
        _BY_PREFIX[prefix] = cls

    def valid(self) -> bool:
        """Whether the fields make sense together (a type's own rule across its fields)."""
        return True


def pack(data: CallbackData) -> str:
    parts = [data.PREFIX]
    for f in data.FIELDS:
        value = getattr(data, f.name)
        if not (f.optional and value is None):
            parts.append(f.codec.encode(value))
    text = SEP.join(parts)
    if len(text.encode()) > MAX_BYTES or not data.valid():
        raise ValueError(f"not a button's data: {text!r}")
    return text


def decode(text: str) -> CallbackData:
    """The data of one of our buttons; `BadButton` (and nothing else) for anything else."""
    # (ASCII first: a lone surrogate, which JSON may carry, has no UTF-8 to measure)
    if not isinstance(text, str) or not text.isascii() or not text or len(text) > MAX_BYTES:
        raise BadButton(text)
    parts = text.split(SEP)
    for size in (2, 1):  # (the longest prefix first: "p:t" before "p")
        kind = _BY_PREFIX.get(SEP.join(parts[:size])) if len(parts) > size else None
        if kind is not None:
            return _decode(kind, parts[size:], text)
    raise BadButton(text)


def _decode(kind: type[CallbackData], parts: list[str], text: str) -> CallbackData:
    fields = kind.FIELDS
    optional = bool(fields) and fields[-1].optional
    if not (len(fields) - optional <= len(parts) <= len(fields)):
        raise BadButton(text)
    values = {f.name: f.codec.decode(part) for f, part in zip(fields, parts, strict=False)}
    found = kind(**values)
    if not found.valid():
        raise BadButton(text)
    return found


def unpack(text: str | None) -> CallbackData | None:
    """The data of a button, or None for anything we did not make."""
    try:
        return decode(text) if text is not None else None
    except BadButton:
        return None


def pattern(kind: type[CallbackData], *views: StrEnum) -> str:
    """The regular expression of one type's button data (for PageData, of some views only)."""
    head = f"^{kind.PREFIX}{SEP}"
    return head + (f"[{''.join(views)}]{SEP}" if views else "")


# -- the buttons -------------------------------------------------------------------------------
class ActData(CallbackData, prefix="a"):
    """A game action; the seat is the tapper's, never the button's."""

    table: int
    step: int
    kind: ActionKind
    card: Card | None = None

    def valid(self) -> bool:
        return (self.kind is ActionKind.PLAY) == (self.card is not None)


class LobbyOp(StrEnum):
    JOIN = "j"  # arg: the team ("" any)
    LEAVE = "x"
    OPTION = "o"  # arg: the option's name, or "cancel"
    ADD_BOT = "b"  # arg: the team ("" any)
    REMOVE_BOT = "r"
    PLACE = "p"  # a full lobby waiting in line: its place now


LOBBY_CANCEL = "cancel"  # LobbyOp.OPTION's arg that cancels the table


class LobbyData(CallbackData, prefix="l"):
    table: int
    op: LobbyOp
    arg: Annotated[str, Word(16, least=0)] = ""


class CardsData(CallbackData, prefix="c"):
    """🃏 Mis cartas: the tapper's hand in a private pop-up."""

    table: int


SIGN_MENU, SIGN_BACK = "m", "b"


class SignData(CallbackData, prefix="s"):
    table: int
    step: int
    sign: Annotated[str, Word(8)]  # SIGN_MENU: open the menu, SIGN_BACK: back, else the sign


class HintOp(StrEnum):
    HINT = "h"  # 💡 a hint
    HAND_OFF = "d"  # 🤖 Que decida: the decision handed to a computer partner


class HintData(CallbackData, prefix="h"):
    """From a player's own hand message: a hint, or the decision handed to a partner."""

    table: int
    step: int
    op: HintOp


class Language(StrEnum):
    ES = "es"
    EN = "en"


class LanguageData(CallbackData, prefix="g"):
    language: Language


class ConfigData(CallbackData, prefix="k"):
    """/config: a group default toggled by an admin."""

    option: Annotated[str, Word(16, digits=False)]


class Vacated(StrEnum):
    BOT = "b"  # a computer player takes the empty seat
    END = "e"  # the match ends


class VacatedData(CallbackData, prefix="v"):
    """A seat left empty mid-match: who takes it, or the end."""

    table: int
    choice: Vacated


class RematchData(CallbackData, prefix="r"):
    """🔁 Revancha: a new table like this finished one, with the tapper in their seat."""

    table: int


class TourneyOp(StrEnum):
    SIGN = "s"  # sign up
    PARTNER = "p"  # sign up with a partner (a link for them)
    UNSIGN = "u"  # take one's name off
    OPTION = "o"  # arg: the option's name
    START = "g"
    CANCEL = "x"  # arg: KEEP the matches in play keep going, CUT they are cancelled
    PAUSE = "z"  # an arena's player pauses or comes back


TOURNEY_KEEP, TOURNEY_CUT = "k", "c"


class TourneyData(CallbackData, prefix="T"):
    """A tournament's buttons."""

    tourney: int
    op: TourneyOp
    arg: Annotated[str, Word(16, digits=False, least=0)] = ""


class PageView(StrEnum):
    MATCH = "h"  # a finished match opened from /historial (a reply below the list)
    PAGE = "m"  # a page of a finished match hand by hand
    EXPORT = "j"  # its JSON export
    VERIFY = "f"  # its deals verified
    REVIEW = "v"  # the tapper's review of a match they played
    REVIEWED = "w"  # a page of the tapper's review of match `key` (in their private chat)
    RULES = "g"  # a page of /reglas (`key`: 1 with the rule of falta a las malas, R46)
    HELP = "a"  # a page of /ayuda (`key`: 0)
    TOURNEY = "k"  # a page of a tournament's group message (`key`: the tournament's id)
    NUMBERS = "y"  # a page of /yo (`key`: whose numbers, a person's id)


class PageData(CallbackData, prefix="p"):
    """Reading, not playing: a finished match (`key`: its number), seen some way; or a page
    of another long reading (`view` says which, and what `key` is: a person's id for /yo)."""

    view: PageView
    key: Annotated[int, Digits(16)]
    page: int = 0


class TablaData(CallbackData, prefix="p:t"):
    """A page of /tabla."""

    scope: Scope
    page: int = 0


class DailyData(CallbackData, prefix="d"):
    """An answer to a group's hand of the day: the choice's place among the choices."""

    hand: int
    choice: int


class DailyOp(StrEnum):
    NAMED = "n"  # a person lets their decisions be shown with their name
    ANON = "a"  # or not (the default)


class DailyNameData(CallbackData, prefix="p:d"):
    """/yo in private: whether a hand of the day of theirs may name them."""

    op: DailyOp


class QuizOp(StrEnum):
    ANSWER = "a"  # a choice for one of the match's costly moments
    AGAIN = "r"  # a choice for a moment missed before, come back (a repaso)
    NEXT = "n"  # the match's next moment (past the last: the rest of the review)
    DUE = "d"  # the next moment missed before that is due again
    ALL = "t"  # the whole review, answers and all, at once


class QuizData(CallbackData, prefix="q"):
    """A review answered first, in private: a match's costly moment (`index` among its told
    slips) asked before its answer."""

    table: int
    index: int
    op: QuizOp
    choice: int | None = None


KINDS: tuple[type[CallbackData], ...] = tuple(_BY_PREFIX.values())

"""One codec for button data: short ASCII, `<kind>:<table>:...`, never over 64 bytes."""

from __future__ import annotations

from dataclasses import dataclass

from bot.game import ActionKind, Card
from bot.game.actions import KIND_CODES, KINDS_BY_CODE

MAX_BYTES = 64


@dataclass(frozen=True)
class ActData:
    """A game action; the seat is the tapper's, never the button's."""

    table: int
    step: int
    kind: ActionKind
    card: Card | None = None


@dataclass(frozen=True)
class LobbyData:
    table: int
    op: str  # j: join (arg: team), x: leave, o: option (arg: name), b: add a bot (arg: team),
    # r: take a bot out
    arg: str = ""


@dataclass(frozen=True)
class CardsData:
    """🃏 Mis cartas: the tapper's hand in a private pop-up."""

    table: int


@dataclass(frozen=True)
class SignData:
    table: int
    step: int
    sign: str  # "m": open the menu, "b": back, else the sign's key


@dataclass(frozen=True)
class LanguageData:
    language: str


@dataclass(frozen=True)
class ConfigData:
    """/config: a group default toggled by an admin."""

    option: str


@dataclass(frozen=True)
class VacatedData:
    """A seat left empty mid-match: "b" a computer player takes it, "e" the match ends."""

    table: int
    choice: str


@dataclass(frozen=True)
class RematchData:
    """🔁 Revancha: a new table like this finished one, with the tapper in their seat."""

    table: int


@dataclass(frozen=True)
class PageData:
    """Reading, not playing. `view`: "h" a finished match opened from /historial (a reply
    below the list), "m" a page of a finished match hand by hand (key: its number),
    "j" its JSON export, "f" its deals verified, "t" /tabla (key: 0 all, 2 1v1, 4 2v2; plus
    100 for this month only)."""

    view: str
    key: int
    page: int = 0


CallbackData = (
    ActData
    | LobbyData
    | CardsData
    | SignData
    | LanguageData
    | ConfigData
    | VacatedData
    | PageData
    | RematchData
)
PAGE_VIEWS = ("h", "m", "j", "f", "t")


# The first field of each type's data: handlers are routed by it (`pattern`).
PREFIXES: dict[type, str] = {
    ActData: "a", LobbyData: "l", CardsData: "c", SignData: "s", LanguageData: "g",
    ConfigData: "k", VacatedData: "v", PageData: "p", RematchData: "r",
}  # fmt: skip


def pattern(kind: type, *views: str) -> str:
    """The regular expression of one type's button data (for PageData, of some views only)."""
    head = f"^{PREFIXES[kind]}:"
    return head + (f"[{''.join(views)}]:" if views else "")


def pack(data: CallbackData) -> str:
    if isinstance(data, ActData):
        text = f"a:{data.table}:{data.step}:{KIND_CODES[data.kind]}"
        if data.card is not None:
            text += f":{data.card.code}"
    elif isinstance(data, LobbyData):
        text = f"l:{data.table}:{data.op}:{data.arg}"
    elif isinstance(data, CardsData):
        text = f"c:{data.table}"
    elif isinstance(data, SignData):
        text = f"s:{data.table}:{data.step}:{data.sign}"
    elif isinstance(data, ConfigData):
        text = f"k:{data.option}"
    elif isinstance(data, VacatedData):
        text = f"v:{data.table}:{data.choice}"
    elif isinstance(data, PageData):
        text = f"p:{data.view}:{data.key}:{data.page}"
    elif isinstance(data, RematchData):
        text = f"r:{data.table}"
    else:
        text = f"g:{data.language}"
    if len(text.encode()) > MAX_BYTES:
        raise ValueError(f"callback data over {MAX_BYTES} bytes: {text!r}")
    return text


def _int(text: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 12:
        raise ValueError(text)
    return int(text)


def unpack(text: str | None) -> CallbackData | None:
    """The data of a button, or None for anything we did not make."""
    if not text or len(text.encode()) > MAX_BYTES or not text.isascii():
        return None
    parts = text.split(":")
    try:
        head = parts[0]
        if head == "a" and len(parts) in (4, 5):
            kind = KINDS_BY_CODE[parts[3]]
            card = Card.parse(parts[4]) if len(parts) == 5 else None
            if (kind is ActionKind.PLAY) != (card is not None):
                return None
            return ActData(_int(parts[1]), _int(parts[2]), kind, card)
        if head == "l" and len(parts) == 4 and parts[2] in ("j", "x", "o", "b", "r"):
            return LobbyData(_int(parts[1]), parts[2], parts[3])
        if head == "v" and len(parts) == 3 and parts[2] in ("b", "e"):
            return VacatedData(_int(parts[1]), parts[2])
        if head == "c" and len(parts) == 2:
            return CardsData(_int(parts[1]))
        if head == "r" and len(parts) == 2:
            return RematchData(_int(parts[1]))
        if head == "s" and len(parts) == 4 and parts[3].isalnum():
            return SignData(_int(parts[1]), _int(parts[2]), parts[3])
        if head == "k" and len(parts) == 2 and parts[1].isalpha():
            return ConfigData(parts[1])
        if head == "p" and len(parts) == 4 and parts[1] in PAGE_VIEWS:
            return PageData(parts[1], _int(parts[2]), _int(parts[3]))
        if head == "g" and len(parts) == 2 and parts[1] in ("es", "en"):
            return LanguageData(parts[1])
    except (KeyError, ValueError):
        return None
    return None

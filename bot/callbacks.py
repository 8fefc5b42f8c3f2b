"""One codec for button data: short ASCII, `<kind>:<table>:...`, never over 64 bytes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from bot.game import ActionKind, Card
from bot.game.actions import KIND_CODES, KINDS_BY_CODE

MAX_BYTES = 64


@dataclass(frozen=True)
class ActData:
    """A game action; the seat is the tapper's, never the button's."""

    PREFIX: ClassVar[str] = "a"
    table: int
    step: int
    kind: ActionKind
    card: Card | None = None

    def parts(self) -> list[str]:
        card = [self.card.code] if self.card is not None else []
        return [str(self.table), str(self.step), KIND_CODES[self.kind], *card]

    @staticmethod
    def parse(parts: list[str]) -> ActData | None:
        if len(parts) not in (3, 4):
            return None
        kind = KINDS_BY_CODE[parts[2]]
        card = Card.parse(parts[3]) if len(parts) == 4 else None
        if (kind is ActionKind.PLAY) != (card is not None):
            return None
        return ActData(_int(parts[0]), _int(parts[1]), kind, card)


LOBBY_OPS = ("j", "x", "o", "b", "r")


@dataclass(frozen=True)
class LobbyData:
    PREFIX: ClassVar[str] = "l"
    table: int
    op: str  # j: join (arg: team), x: leave, o: option (arg: name), b: add a bot (arg: team),
    # r: take a bot out
    arg: str = ""

    def parts(self) -> list[str]:
        return [str(self.table), self.op, self.arg]

    @staticmethod
    def parse(parts: list[str]) -> LobbyData | None:
        if len(parts) != 3 or parts[1] not in LOBBY_OPS:
            return None
        return LobbyData(_int(parts[0]), parts[1], parts[2])


@dataclass(frozen=True)
class CardsData:
    """🃏 Mis cartas: the tapper's hand in a private pop-up."""

    PREFIX: ClassVar[str] = "c"
    table: int

    def parts(self) -> list[str]:
        return [str(self.table)]

    @staticmethod
    def parse(parts: list[str]) -> CardsData | None:
        return CardsData(_int(parts[0])) if len(parts) == 1 else None


@dataclass(frozen=True)
class SignData:
    PREFIX: ClassVar[str] = "s"
    table: int
    step: int
    sign: str  # "m": open the menu, "b": back, else the sign's key

    def parts(self) -> list[str]:
        return [str(self.table), str(self.step), self.sign]

    @staticmethod
    def parse(parts: list[str]) -> SignData | None:
        if len(parts) != 3 or not parts[2].isalnum():
            return None
        return SignData(_int(parts[0]), _int(parts[1]), parts[2])


HINT_OPS = ("h", "d")


@dataclass(frozen=True)
class HintData:
    """From a player's own hand message: "h" 💡 a hint, "d" hand the decision to a computer
    partner (🤖 Que decida)."""

    PREFIX: ClassVar[str] = "h"
    table: int
    step: int
    op: str

    def parts(self) -> list[str]:
        return [str(self.table), str(self.step), self.op]

    @staticmethod
    def parse(parts: list[str]) -> HintData | None:
        if len(parts) != 3 or parts[2] not in HINT_OPS:
            return None
        return HintData(_int(parts[0]), _int(parts[1]), parts[2])


@dataclass(frozen=True)
class LanguageData:
    PREFIX: ClassVar[str] = "g"
    language: str

    def parts(self) -> list[str]:
        return [self.language]

    @staticmethod
    def parse(parts: list[str]) -> LanguageData | None:
        return LanguageData(parts[0]) if len(parts) == 1 and parts[0] in ("es", "en") else None


@dataclass(frozen=True)
class ConfigData:
    """/config: a group default toggled by an admin."""

    PREFIX: ClassVar[str] = "k"
    option: str

    def parts(self) -> list[str]:
        return [self.option]

    @staticmethod
    def parse(parts: list[str]) -> ConfigData | None:
        return ConfigData(parts[0]) if len(parts) == 1 and parts[0].isalpha() else None


@dataclass(frozen=True)
class VacatedData:
    """A seat left empty mid-match: "b" a computer player takes it, "e" the match ends."""

    PREFIX: ClassVar[str] = "v"
    table: int
    choice: str

    def parts(self) -> list[str]:
        return [str(self.table), self.choice]

    @staticmethod
    def parse(parts: list[str]) -> VacatedData | None:
        if len(parts) != 2 or parts[1] not in ("b", "e"):
            return None
        return VacatedData(_int(parts[0]), parts[1])


@dataclass(frozen=True)
class RematchData:
    """🔁 Revancha: a new table like this finished one, with the tapper in their seat."""

    PREFIX: ClassVar[str] = "r"
    table: int

    def parts(self) -> list[str]:
        return [str(self.table)]

    @staticmethod
    def parse(parts: list[str]) -> RematchData | None:
        return RematchData(_int(parts[0])) if len(parts) == 1 else None


TOURNEY_OPS = ("s", "p", "u", "o", "g", "x", "z")


@dataclass(frozen=True)
class TourneyData:
    """A tournament's buttons: "s" sign up, "p" sign up with a partner (a link for them), "u"
    take one's name off, "o" an option (arg: its name), "g" start it, "x" call it off (arg
    "k": the matches in play keep going, "c": they are cancelled), "z" an arena's player
    pauses or comes back."""

    PREFIX: ClassVar[str] = "T"
    tourney: int
    op: str
    arg: str = ""

    def parts(self) -> list[str]:
        return [str(self.tourney), self.op, self.arg]

    @staticmethod
    def parse(parts: list[str]) -> TourneyData | None:
        if len(parts) != 3 or parts[1] not in TOURNEY_OPS or (not parts[2].isalpha() and parts[2]):
            return None
        return TourneyData(_int(parts[0]), parts[1], parts[2])


PAGE_VIEWS = ("h", "m", "j", "f", "t", "v")


@dataclass(frozen=True)
class PageData:
    """Reading, not playing. `view`: "h" a finished match opened from /historial (a reply
    below the list), "m" a page of a finished match hand by hand (key: its number),
    "j" its JSON export, "f" its deals verified, "t" /tabla (key: 0 all, 2 1v1, 4 2v2; plus
    100 for this month only), "v" the tapper's review of a match they played."""

    PREFIX: ClassVar[str] = "p"
    view: str
    key: int
    page: int = 0

    def parts(self) -> list[str]:
        return [self.view, str(self.key), str(self.page)]

    @staticmethod
    def parse(parts: list[str]) -> PageData | None:
        if len(parts) != 3 or parts[0] not in PAGE_VIEWS:
            return None
        return PageData(parts[0], _int(parts[1]), _int(parts[2]))


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
    | TourneyData
    | HintData
)
KINDS: tuple[type[CallbackData], ...] = (
    ActData, LobbyData, CardsData, SignData, LanguageData, ConfigData, VacatedData, PageData,
    RematchData, TourneyData, HintData,
)  # fmt: skip
_BY_PREFIX: dict[str, Any] = {kind.PREFIX: kind for kind in KINDS}


def pattern(kind: type[CallbackData], *views: str) -> str:
    """The regular expression of one type's button data (for PageData, of some views only)."""
    head = f"^{kind.PREFIX}:"
    return head + (f"[{''.join(views)}]:" if views else "")


def pack(data: CallbackData) -> str:
    text = ":".join((data.PREFIX, *data.parts()))
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
    head, *parts = text.split(":")
    kind = _BY_PREFIX.get(head)
    if kind is None:
        return None
    try:
        found: CallbackData | None = kind.parse(parts)
    except (KeyError, ValueError, IndexError):
        return None
    return found

"""Pieces every view shares: names, cards in words, fósforos, score lines."""

from __future__ import annotations

import math
import random
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from html import escape, unescape
from typing import Any, NamedTuple, Protocol

from bot.game import Action, ActionKind, Card, MatchConfig
from bot.game.scoring import fosforos, malas_buenas
from bot.game.seats import Seats, mode_of, seats
from bot.i18n import Translator, translator
from bot.model import occupants
from bot.model.names import BOT_MARK, clean_name, told_apart
from bot.model.options import Option, TableOptions
from bot.model.refusals import Refusal, Refused
from bot.model.table import Table

SUIT_EMOJI = {"o": "🪙", "c": "🍷", "e": "🗡️", "b": "🪵"}
MAX_NAME = 24


PHONE_WIDTH = 36  # characters on a phone's line, in Telegram's default font size
_TAG = re.compile(r"<[^>]+>")


def plain(text: str) -> str:
    """A message's HTML as the reader sees it: tags gone, entities read."""
    return unescape(_TAG.sub("", text))


def phone_lines(text: str, width: int = PHONE_WIDTH) -> int:
    """How many lines an HTML message takes on a phone: each line wrapped at `width`
    (an emoji counts as two characters)."""
    height = 0
    for line in plain(text).split("\n"):
        wide = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
        height += max(1, math.ceil(wide / width))
    return height


def refusal_text(t: Translator, refusal: Refusal, who: Seating | None = None) -> str:
    """What a refusal says to the person who asked: an illegal move, the engine's reason; a
    button from an older moment, what changed since (with `who`, the names at the table)."""
    if refusal.code is Refused.ILLEGAL:
        reason = refusal.reason
        return t(f"reason.{reason.value if reason is not None else 'not_allowed'}")
    since = refusal.params.get("since")
    if isinstance(since, Action) and who is not None:
        what = plain(move_said(t, who, since))  # (a pop-up shows plain text)
        key = "refusal.changed_answer" if refusal.params.get("answer") else "refusal.changed"
        return t(key, what=what)
    card = refusal.params.get("card")
    if refusal.code is Refused.STALE and isinstance(card, Card):  # (a tap from before their card)
        return t("refusal.already_played", card=card_name(t, card))
    params = {k: v for k, v in refusal.params.items() if isinstance(v, int | str)}
    return t(refusal.code.key, **params)


def move_said(t: Translator, who: Seating, action: Action) -> str:
    """A move as the table heard it: "Beto cantó ¡Truco!", "Beto jugó el 3 de espadas"."""
    name = who.seat(action.seat)
    if action.card is not None:
        return t("said.played", name=name, card=card_name(t, action.card))
    if action.kind is ActionKind.MAZO:
        return t("said.mazo", name=name)
    label = t(f"kind.{action.kind.value}")
    if action.kind in (ActionKind.QUIERO, ActionKind.NO_QUIERO, ActionKind.CON_FLOR_ME_ACHICO):
        return t("said.answered", name=name, answer=label)
    return t("said.chanted", name=name, chant=label)


def plain_name(name: str) -> str:
    """Cleaned (`clean_name`) and trimmed, not escaped: for text Telegram shows as it is (a
    tap's pop-up has no parse mode, and would show "&lt;b&gt;" as typed)."""
    clean = clean_name(name) or "?"
    return clean if len(clean) <= MAX_NAME else clean[: MAX_NAME - 1] + "…"


def short_name(name: str) -> str:
    """`plain_name`, escaped: names are user input and go into HTML."""
    return escape(plain_name(name))


class Button(NamedTuple):
    """A button: a callback (`callback_data`), a link (`url`), a Mini App to open over the
    chat (`web_app`, its https address), or one that shows and does nothing (`disabled`, Bot API
    10.3: a card that cannot be played now). `style` colours it (9.4: "success" green, "danger"
    red; a client that draws no colours shows it plain). The field names are Telegram's."""

    text: str
    callback_data: str = ""
    url: str = ""
    web_app: str = ""
    style: str = ""
    disabled: bool = False

    def to_dict(self) -> dict[str, Any]:
        found: dict[str, Any]
        if self.disabled:
            found = {"text": self.text, "disabled": {}}
        elif self.web_app:
            found = {"text": self.text, "web_app": {"url": self.web_app}}
        elif self.url:
            found = {"text": self.text, "url": self.url}
        else:
            found = {"text": self.text, "callback_data": self.callback_data}
        if self.style:
            found["style"] = self.style
        return found


class Keys(tuple[tuple[Button, ...], ...]):
    """An inline keyboard, as plain tuples (every view builds its keyboards so): a board and
    two hands are drawn on every tap, and PTB's keyboard objects (built, hashed, then turned
    back into dicts) cost more (docs/performance.md). Hashable, so an unchanged message is not
    edited again."""

    @property
    def inline_keyboard(self) -> tuple[tuple[Button, ...], ...]:
        return self

    def to_dict(self) -> dict[str, Any]:
        return {"inline_keyboard": [[b.to_dict() for b in row] for row in self if row]}

    @staticmethod
    def of(rows: Sequence[Sequence[Button]]) -> Keys:
        return Keys(tuple(tuple(row) for row in rows if row))


@dataclass(frozen=True)
class Seating:
    """Who sits where, with their names ready for HTML. A computer player's name is bare
    ("Lola"): its 🤖 is added where it tells (`marked`, `mark_first`), not on every line."""

    names: tuple[str, ...]  # per seat, escaped
    bots: tuple[int, ...] = ()  # the seats of computer players
    # The seats whose names take feminine words (computer players with a woman's name: a
    # person's gender is not known, and the words said of them stay the generic masculine)
    feminine: tuple[int, ...] = ()

    def agree(self, key: str, seats_: Sequence[int]) -> str:
        """The locale key of words said of `seats_`: `key`, or its feminine form (`key.f`)
        when every one of them takes feminine words ("tu compañera", "mentirosa")."""
        return f"{key}.f" if seats_ and all(s in self.feminine for s in seats_) else key

    def marked(self, seat: int) -> str:
        """A seat's name with 🤖 when a computer player sits there (a lobby, a first mention)."""
        if seat in self.bots:
            return f"<b>{BOT_MARK} {self.names[seat]}</b>"
        return self.seat(seat)

    @property
    def table(self) -> Seats:
        return seats(len(self.names))

    def seat(self, seat: int) -> str:
        return f"<b>{self.names[seat]}</b>"

    def size(self, side: int) -> int:
        """How many players a side has: 1, 2 or 3 (for plural forms)."""
        return self.table.team_size

    def side(self, t: Translator, side: int) -> str:
        """A side by its players' names: "Ana", "Ana y Carla", "Ana, Carla y Eva"."""
        return both(t, [self.seat(s) for s in self.table.of_side(side)])

    def short(self, t: Translator, side: int) -> str:
        """A side where it comes up again and again (points, stakes): its players' names up to
        two, "los de Ana" for a trio (the score lines name the three)."""
        if self.table.team_size < 3:
            return self.side(t, side)
        return t("side.of", name=self.seat(self.table.of_side(side)[0]))

    def either(self, t: Translator, seats_: Sequence[int]) -> str:
        """ "Ana", "Ana o Carla", "Ana, Carla o Eva"."""
        return either(t, [self.seat(s) for s in seats_])


def mark_first(text: str, who: Seating) -> str:
    """`text` with each computer player's first mention marked 🤖 ("🤖 Lola"): one mark a
    message, where the reader first meets the name."""
    for seat in who.bots:
        bare = who.seat(seat)
        at = text.find(bare)
        if at >= 0:
            text = text[:at] + who.marked(seat) + text[at + len(bare) :]
    return text


def both(t: Translator, names: Sequence[str]) -> str:
    """Names joined as a list: "Ana", "Ana y Carla", "Ana, Carla y Eva"."""
    if len(names) <= 1:
        return "".join(names)
    return t("side.pair", a=", ".join(names[:-1]), b=names[-1])


def either(t: Translator, names: Sequence[str]) -> str:
    """Names joined as a choice: "Ana", "Ana o Carla", "Ana, Carla o Eva"."""
    if len(names) <= 1:
        return "".join(names)
    return t("names.or", a=", ".join(names[:-1]), b=names[-1])


def said_line(t: Translator, who: Seating, said: Sequence[tuple[int, int | None]]) -> str:
    """Values said in turn (R19), in the order they were said: "Ana 25 · Beto son buenas ·
    Carla 31"; at six a table, where three or more said "son buenas", those who said it one
    after another are named together ("Dani y Beto son buenas"); a 0 is said as a table says
    it ("nada")."""
    parts: list[str] = []
    good: list[str] = []
    many = sum(1 for _, value in said if value is None) >= 3  # (at six: room is short)

    def close() -> None:
        if len(good) > 1 and many:
            parts.append(t("said.good_many", names=both(t, good)))
        else:
            parts.extend(f"{name} {t('said.son_buenas')}" for name in good)
        good.clear()

    for seat, value in said:
        if value is None:
            good.append(who.seat(seat))
            continue
        close()
        parts.append(f"{who.seat(seat)} {t('said.zero') if value == 0 else value}")
    close()
    return " · ".join(parts)


def seating(seats: Sequence[int | None], names: dict[int, str]) -> Seating:
    return Seating(tuple(short_name(names.get(u, "?")) if u else "—" for u in seats))


def computer_names(t: Translator, table: Seated, names: dict[int, str]) -> dict[int, str]:
    """Each computer player's name for the match, by seat: from the locale's list, in an order
    drawn from the table's lineage (a rematch keeps its computer players' names), never the
    name of a person at the table nor another computer player's ("🤖 Lola", "🤖 Tito")."""
    pool = [n.strip() for n in t("bot.names").split(",") if n.strip()]
    random.Random(table.lineage).shuffle(pool)
    taken = {clean_name(names.get(u, "")).casefold() for u in table.players}
    named: dict[int, str] = {}
    for seat in table.bot_seats:
        name = next((n for n in pool if n.casefold() not in taken), None)
        if name is None:  # more computer players than names: numbered
            name = f"{t('bot.fallback')} {seat + 1}"
        taken.add(name.casefold())
        named[seat] = f"{BOT_MARK} {name}"
    return named


def feminine_names(t: Translator) -> frozenset[str]:
    """The computer players' names that take feminine words ("Lola", "Mirta"), casefolded."""
    return frozenset(n.strip().casefold() for n in t("bot.feminine").split(",") if n.strip())


def seating_at(t: Translator, table: Table, names: dict[int, str]) -> Seating:
    """Who sits where at `table`: people by their names (the same ones told apart),
    computer players by theirs. (Remembered: every view of every edit asks it again.)"""
    people = tuple(names.get(u, "?") for u in occupants.people(table.seats))
    return _seating(t.language, table.lineage, tuple(table.seats), people)


@lru_cache(maxsize=8192)
def _seating(
    language: str, lineage: int, seats_: tuple[int | None, ...], people: tuple[str, ...]
) -> Seating:
    t = translator(language)
    ids = occupants.people(seats_)
    table = _Seats(lineage, list(seats_), ids)
    bots = computer_names(t, table, dict(zip(ids, people, strict=True)))
    shown_people = told_apart([clean_name(name) or "?" for name in people])
    shown: list[str] = []
    for seat, user in enumerate(seats_):
        if seat in bots:
            shown.append(escape(bots[seat].removeprefix(f"{BOT_MARK} ")))
        elif user:
            name = shown_people.pop(0)
            shown.append(escape(name if len(name) <= MAX_NAME else name[: MAX_NAME - 1] + "…"))
        else:
            shown.append("—")
    women = feminine_names(t)
    feminine = tuple(
        seat for seat in sorted(bots) if bots[seat].removeprefix(f"{BOT_MARK} ").casefold() in women
    )
    return Seating(tuple(shown), tuple(sorted(bots)), feminine)


class Seated(Protocol):
    """What naming the computer players reads of a table."""

    @property
    def lineage(self) -> int: ...

    @property
    def players(self) -> list[int]: ...

    @property
    def bot_seats(self) -> list[int]: ...


@dataclass(frozen=True)
class _Seats:
    """A table's seats, as `computer_names` reads them."""

    lineage: int
    seats: list[int | None]
    players: list[int]

    @property
    def bot_seats(self) -> list[int]:
        return [seat for seat, u in enumerate(self.seats) if occupants.is_computer(u)]


def level_name(t: Translator, level: str) -> str:
    return t(f"bot.level.{level}")


def option_label(t: Translator, key: str, value: str) -> str:
    """An option button: its name and the value it has now ("🔄 Flor: con")."""
    return t("button.option", name=t(f"option.{key}"), value=value)


ZONE_NAMES = {
    "America/Argentina/Buenos_Aires": "Buenos Aires", "America/Argentina/Cordoba": "Córdoba",
    "America/Asuncion": "Asunción", "America/Bogota": "Bogotá",
    "America/Mexico_City": "Ciudad de México",
}  # fmt: skip


def zone_name(zone: str) -> str:
    """A time zone as a group knows it: its city ("Buenos Aires", "Madrid")."""
    return ZONE_NAMES.get(zone) or zone.rsplit("/", 1)[-1].replace("_", " ")


def option_button_text(t: Translator, options: TableOptions, option: Option) -> str:
    """What an option's button shows: its name and the value it has now (one tap moves it on,
    see `TableOptions.cycled`). LANG shows the translator's own language."""
    config = options.config
    seconds = options.timer
    name, value = {
        Option.MODE: ("mode", mode_of(config.players)),
        Option.TARGET: ("target", t("option.target_value", points=config.target)),
        Option.FLOR: ("flor", t("option.flor_on") if config.flor else t("option.flor_off")),
        Option.HOUSE_RULE: ("house", "2" if config.house_rule else "1"),
        Option.MALAS: ("malas", t("option.yes") if config.falta_malas else t("option.no")),
        Option.PICA: ("pica", t("option.flor_on") if config.pica_pica else t("option.flor_off")),
        Option.FALTA: (
            "falta",
            str(config.duel_falta) if config.duel_falta else t("option.falta_usual"),
        ),
        Option.TIMER: ("timer", f"{seconds} s" if seconds else t("option.timer_off")),
        Option.BOT: ("bots", t(f"bot.level.{options.bot}")),
        Option.HINTS: ("hints", t("option.yes") if options.hints else t("option.no")),
        Option.LANG: ("lang", t.language),
        Option.ZONE: ("zone", zone_name(options.zone)),
        Option.DAILY: (
            "daily",
            t("option.daily_at", hour=options.daily) if options.daily is not None
            else t("option.daily_off"),
        ),
    }[option]
    return option_label(t, name, value)


def timer_text(t: Translator, seconds: int) -> str:
    return t("lobby.timer", seconds=seconds) if seconds else t("lobby.no_timer")


def card_name(t: Translator, card: Card, *, picture: bool = False) -> str:
    """ "4 de copa 🍷"; the four top cards as players name them: "ancho de espada 🗡️",
    "siete de oro 🪙". A `picture`'s name (the web's card, its text alternative) says what is
    printed on it, without the emoji: "7 de oro", "ancho de espada"."""
    suit = t(f"suit.{card.suit.value}")
    if card.number == 1 and card.suit.value in "eb":
        name = t("card.ancho", suit=suit)
    elif card.number == 7 and card.suit.value in "eo" and not picture:  # the killers, by name
        name = t("card.siete", suit=suit)
    else:
        name = t("card", number=card.number, suit=suit)
    return name if picture else f"{name} {SUIT_EMOJI[card.suit.value]}"


def played(t: Translator, card: Card) -> str:
    """The answer to a tap on a card: which went ("Jugaste siete de espada 🗡️.")."""
    return t("move.played", card=card_name(t, card))


def card_label(card: Card) -> str:
    """A card on a button, three to a row on a phone: "7 🗡️", "12 🍷", and the two top cards
    by the name every player uses for them, "ancho 🗡️" (the game's word, in every language)."""
    emoji = SUIT_EMOJI[card.suit.value]
    if card.number == 1 and card.suit.value in "eb":
        return f"ancho {emoji}"
    return f"{card.number} {emoji}"


def card_short(card: Card) -> str:
    """A card where room is short (the rounds on a phone): "7🗡️", "12🪙"."""
    return f"{card.number}{SUIT_EMOJI[card.suit.value]}"


def cards_text(t: Translator, cards: Sequence[Card]) -> str:
    return ", ".join(card_name(t, c) for c in cards)


def fosforos_text(points: int, target: int) -> str:
    """R27: ⊠ is a square of five (four matches and the fifth crossing), | a loose match."""

    def draw(n: int) -> str:
        squares, loose = fosforos(n)
        return "⊠" * squares + "|" * loose

    halves = malas_buenas(points, target)
    if halves is None or halves[1] == 0:
        return draw(points) or "·"
    return f"{draw(halves[0])} ┃ {draw(halves[1])}"


def rules_line(t: Translator, config: MatchConfig) -> str:
    line = t(
        "rules.line",
        mode=mode_of(config.players),
        target=config.target,
        flor=t("rules.con_flor") if config.flor else t("rules.sin_flor"),
        house=t("rules.house_on") if config.house_rule else t("rules.house_off"),
    )
    if config.falta_malas and config.target == 30:
        line += t("rules.falta_malas")
    if config.players == 6:
        line += t("rules.pica_on") if config.pica_pica else t("rules.pica_off")
        if config.pica_pica and config.duel_falta:
            line += t("rules.duel_falta", points=config.duel_falta)
    return line


def shown_options(options: Sequence[Option], config: MatchConfig) -> list[Option]:
    """The options that mean something for these rules (pica-pica: 3v3 only; the falta in a
    duel: with pica-pica only; the falta a las malas: in a match to 30 only)."""
    six = config.players == 6
    return [
        o
        for o in options
        if (o is not Option.PICA or six)
        and (o is not Option.FALTA or (six and config.pica_pica))
        and (o is not Option.MALAS or config.target == 30)
    ]


def score_lines(t: Translator, who: Seating, scores: Sequence[int], target: int) -> list[str]:
    lines = []
    for side in (0, 1):
        lines.append(
            t(
                "score.line",
                side=who.side(t, side),
                points=scores[side],
                fosforos=fosforos_text(scores[side], target),
                half=half_name(t, scores[side], target),
            )
        )
    return lines


def half_name(t: Translator, points: int, target: int) -> str:
    halves = malas_buenas(points, target)
    if halves is None:
        return ""
    return t("score.buenas") if halves[1] > 0 else t("score.malas")


_TOKEN = re.compile(r"<[^>]*>|&#?[a-zA-Z0-9]+;|[^<&]+|[<&]")
_TAG_NAME = re.compile(r"</?\s*([a-zA-Z-]+)")


class _OpenTags:
    """The tags open at a point of HTML text, followed token by token: what closes them at a
    cut, and what opens them again after it (both ways of cutting a text in pieces share it)."""

    def __init__(self) -> None:
        self.stack: list[tuple[str, str]] = []  # (name, start tag) of the tags open here

    def closing(self) -> str:
        return "".join(f"</{name}>" for name, _ in reversed(self.stack))

    def reopening(self) -> list[str]:
        return [tag for _, tag in self.stack]

    def take(self, token: str) -> None:
        if token.startswith("<") and len(token) > 1:
            found = _TAG_NAME.match(token)
            name = found.group(1).lower() if found else ""
            if token.startswith("</"):
                if self.stack and self.stack[-1][0] == name:
                    self.stack.pop()
            elif not token.endswith("/>"):
                self.stack.append((name, token))


def split_html(text: str, limit: int) -> list[str]:
    """HTML text in pieces of at most `limit` characters, cut on line boundaries where it can
    be and never inside a tag or an entity; a tag open at a cut is closed at the end of its
    piece and opened again at the start of the next, so each piece is whole HTML."""
    pieces: list[str] = []
    tags = _OpenTags()
    closing = tags.closing
    current: list[str] = []
    size = 0

    def flush() -> None:
        nonlocal current, size
        body = "".join(current)
        if body.strip():
            pieces.append(body + closing())
        current = tags.reopening()
        size = sum(len(x) for x in current)

    def room(extra: int) -> bool:
        return size + extra + len(closing()) + 16 <= limit  # 16: a tag closed by the next token

    def add(token: str) -> None:
        nonlocal size
        tags.take(token)
        current.append(token)
        size += len(token)

    for number, line in enumerate(text.split("\n")):
        joined = ("\n" if number else "") + line
        if number and not room(len(joined)):
            flush()
            joined = line
        if room(len(joined)):
            for token in _TOKEN.findall(joined):
                add(token)
            continue
        for token in _TOKEN.findall(joined):  # a line longer than a piece: cut between tokens
            while not room(len(token)):
                if token.startswith(("<", "&")) or len(token) == 1:
                    flush()
                    break
                cut = max(1, limit - size - len(closing()) - 16)
                add(token[:cut])
                token = token[cut:]
                flush()
            add(token)
    flush()
    return pieces or [""]


def split_lines(text: str, most: int) -> list[str]:
    """HTML text in pieces of at most `most` phone lines (`phone_lines`), cut between lines
    (a line taller than a piece between its tokens, a run of text between its characters),
    never inside a tag or an entity; a tag open at a cut is closed at the end of its piece and
    opened again at the start of the next, so each piece is whole HTML."""
    pieces: list[str] = []
    tags = _OpenTags()
    current: list[str] = []

    def fits(*more: str) -> bool:
        return phone_lines("".join(current) + "".join(more)) <= most  # (tags are not seen)

    def seen() -> bool:
        return bool(plain("".join(current)).strip())

    def flush() -> None:
        nonlocal current
        if seen():
            pieces.append("".join(current) + tags.closing())
        current = tags.reopening()

    def add(token: str) -> None:
        tags.take(token)
        current.append(token)

    for number, line in enumerate(text.split("\n")):
        tokens = _TOKEN.findall(("\n" if number else "") + line)
        if number and not fits(*tokens) and seen():
            flush()
            tokens = _TOKEN.findall(line)
        if fits(*tokens):
            for token in tokens:
                add(token)
            continue
        for token in tokens:  # a line taller than a piece
            if not fits(token) and seen():
                flush()
                token = token.lstrip("\n")  # (a piece starts no line of its own)
            if fits(token) or token.startswith(("<", "&")):
                add(token)
                continue
            while token:  # a run of text: as many characters as fit, then a new piece
                low, high = 1, len(token)  # (the longest prefix that fits: at least one)
                while low < high:
                    middle = (low + high + 1) // 2
                    low, high = (middle, high) if fits(token[:middle]) else (low, middle - 1)
                add(token[:low])
                token = token[low:]
                if token:
                    flush()
    flush()
    return pieces or [""]

"""A table's options, one definition: their values, their cycle, and a group's defaults.

The lobby (whoever opened it taps an option), `/config` (a group's defaults for new tables) and
every view that shows an option use this module, so an option, its order of values and its
default live in one place. Plain values: no Telegram, no text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, TypeVar

from bot.game import MatchConfig
from bot.model.daily import HOURS


class Option(StrEnum):
    MODE = "mode"  # 1v1, 2v2 (or 3v3): the seats
    TARGET = "target"  # a 30 or a 15
    FLOR = "flor"  # con or sin flor
    HOUSE = "house"  # R24's house rule: leaving early in round 1 gives 2
    PICA = "pica"  # pica-pica in 3v3 (R36): shown for 3v3 only
    FALTA = "falta"  # a falta envido in a pica-pica duel: R18 or a fixed 6 (R42's option)
    MALAS = "malas"  # R46: the falta envido counted to the end of the malas (matches to 30)
    TIMER = "timer"  # seconds a player has to move
    BOT = "bot"  # the computer players' level
    HINTS = "hints"  # 💡 consejos: a seat may ask what difícil would do (the match is not rated)
    LANG = "lang"  # the chat's language (a group default only)
    ZONE = "zone"  # the group's time zone: a tournament's hour is read in it (a group default)
    DAILY = "daily"  # la mano del día's hour (a group default; off until chosen)


# The options that are a rule of the match: its field in `MatchConfig`.
RULE_OF = {
    Option.MODE: "players",
    Option.TARGET: "target",
    Option.FLOR: "flor",
    Option.HOUSE: "mazo_penalty",
    Option.PICA: "pica_pica",
    Option.FALTA: "duel_falta",
    Option.MALAS: "falta_malas",
}
LOBBY_OPTIONS = (
    Option.MODE, Option.TARGET, Option.FLOR, Option.HOUSE, Option.MALAS, Option.PICA,
    Option.FALTA, Option.TIMER, Option.BOT, Option.HINTS,
)  # fmt: skip
CONFIG_OPTIONS = (*LOBBY_OPTIONS, Option.LANG, Option.ZONE, Option.DAILY)

TIMER_CHOICES = (60, 120, 300, 0)  # seconds a player has to move; 0: sin tiempo
BOT_LEVEL_ORDER = ("facil", "normal", "dificil")
DEFAULT_BOT_LEVEL = "normal"
ZONES = (
    "America/Argentina/Buenos_Aires", "America/Argentina/Cordoba", "America/Montevideo",
    "America/Santiago", "America/Asuncion", "America/La_Paz", "America/Lima",
    "America/Bogota", "America/Mexico_City", "Europe/Madrid",
)  # fmt: skip  (a group's time zones to choose from in /config)

T = TypeVar("T")


def next_of(choices: tuple[T, ...], value: T) -> T:
    """The value after `value` in `choices`, round again; the first for a value not there."""
    index = choices.index(value) if value in choices else -1
    return choices[(index + 1) % len(choices)]


def bot_level(value: object, fallback: str = DEFAULT_BOT_LEVEL) -> str:
    """A level name as stored or typed, or `fallback` for anything else."""
    return value if isinstance(value, str) and value in BOT_LEVEL_ORDER else fallback


@dataclass(frozen=True)
class TableOptions:
    """What the options of a table (or a group's defaults for new tables) are set to."""

    config: MatchConfig = field(default_factory=MatchConfig)
    timer: int = 0
    bot: str = DEFAULT_BOT_LEVEL
    hints: bool = False
    zone: str = ""  # the group's time zone ("": the operator's, TRUCO_TIMEZONE)
    daily: int | None = None  # la mano del día's hour, in the group's zone (None: off)

    def cycled(self, option: Option) -> TableOptions:
        """The options after one tap on `option` (its next value). LANG is the chat's, not a
        table's: it leaves these unchanged."""
        rule = RULE_OF.get(option)
        if rule is not None:
            return replace(self, config=self.config.cycled(rule))
        if option is Option.TIMER:
            return replace(self, timer=next_of(TIMER_CHOICES, self.timer))
        if option is Option.BOT:
            return replace(self, bot=next_of(BOT_LEVEL_ORDER, self.bot))
        if option is Option.HINTS:
            return replace(self, hints=not self.hints)
        if option is Option.ZONE:
            return replace(self, zone=next_of(ZONES, self.zone))
        if option is Option.DAILY:
            return replace(self, daily=next_of((None, *HOURS), self.daily))
        return self

    # -- a group's defaults, as stored (chats.defaults) -----------------------------------------
    @staticmethod
    def from_defaults(
        defaults: Mapping[str, Any], timer: int = 0, bot: str = DEFAULT_BOT_LEVEL
    ) -> TableOptions:
        """A group's stored defaults over the operator's (`timer`, `bot`)."""
        config = MatchConfig.of(defaults)
        seconds = int(defaults.get("timer", timer))
        level = bot_level(defaults.get("bot", bot), bot_level(bot))
        zone = defaults.get("zone")
        daily = defaults.get("daily")
        return TableOptions(config, seconds, level, defaults.get("hints") is True,
                            zone if isinstance(zone, str) else "",
                            daily if daily in HOURS else None)  # fmt: skip

    def to_defaults(self) -> dict[str, Any]:
        return {**self.config.options(), "timer": self.timer, "bot": self.bot,
                "hints": self.hints, "zone": self.zone, "daily": self.daily}  # fmt: skip


@dataclass(frozen=True)
class ChatDefaults:
    """A group's defaults for new tables as stored (`chats.defaults`): only what the group
    chose; everything else follows the operator's settings (`timer`, `bot` below)."""

    chosen: Mapping[str, object] = field(default_factory=dict)

    def options(self, timer: int = 0, bot: str = DEFAULT_BOT_LEVEL) -> TableOptions:
        return TableOptions.from_defaults(self.chosen, timer, bot)

    def choosing(
        self, options: TableOptions, timer: int = 0, bot: str = DEFAULT_BOT_LEVEL
    ) -> ChatDefaults:
        """The group sets `options`: what differs from what it had now is its own."""
        old = self.options(timer, bot).to_defaults()
        changed = {k: v for k, v in options.to_defaults().items() if old[k] != v}
        return ChatDefaults({**self.chosen, **changed})


def parse_option(text: str) -> Option | None:
    try:
        return Option(text)
    except ValueError:
        return None

"""A tournament's format, one class each: the fixtures it lays out at the start, what a decided
tie opens next (a winner carried into the next round, the next round paired), when it is over
and who won it, its table of standings, and the names of its rounds. Everything else about a
tournament (sign-ups, seeds, series, the tables its matches are played at, walkovers) is the
same for every format and lives in `bot.tourney.model`; the service and the views ask the
format (`Tournament.rules`) and never branch on its name: what a front end needs of a format
(the words that name it in a command, a number it takes, whether its rounds eliminate, its web
page's layout) is declared with it. A format reads and moves what of a tournament `Bracket`
names.

One file a format (`knockout`, `liguilla`, `swiss`, `arena`), each declaring its `Rules`
(`base`), none knowing another; a new format is one more file and its words in the locales:
the package finds its formats in its files (`found`), and nothing lists them. Nothing but
`bot.tourney.model` imports this package (the import contracts say so): the rest of the
bot reaches a format through its tournament.

A format that pairs round by round (the Swiss) lays out its first round only and appends the
next one in `advance`, in the same step that counts the result that closed a round, so it is
stored with that result and a crash repeats neither.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from bot.tourney.bracket import Format
from bot.tourney.formats.base import Count as Count
from bot.tourney.formats.base import Page as Page
from bot.tourney.formats.base import Rules as Rules
from bot.tourney.formats.knockout import KNOCKOUT_MOST as KNOCKOUT_MOST
from bot.tourney.formats.knockout import knockout as knockout
from bot.tourney.formats.knockout import seed_positions as seed_positions
from bot.tourney.formats.liguilla import LEAGUE_MOST as LEAGUE_MOST
from bot.tourney.formats.liguilla import round_robin as round_robin

# every format, by code, in the order the sign-up message's button goes round (`found`)
RULES: dict[Format, Rules] = {}


def found() -> dict[Format, Rules]:
    """Every format declared in a file of this package (a `Rules` of its own module), by code,
    in the order the sign-up message offers them: read at import, and again after a file is
    added beside them (a test's format)."""
    declared = dict(RULES)
    for module in pkgutil.iter_modules(__path__, f"{__name__}."):
        for value in vars(importlib.import_module(module.name)).values():
            if not _a_format(value, module.name):
                continue
            rules: Rules = value()
            if declared.setdefault(rules.format, rules).__class__ is not value:
                raise ValueError(f"two formats are {rules.format!r}")
    RULES.clear()
    RULES.update(sorted(declared.items(), key=lambda item: item[1].offered))
    return RULES


def _a_format(value: object, module: str) -> bool:
    return (
        isinstance(value, type) and issubclass(value, Rules) and value.__module__ == module
        and not inspect.isabstract(value)
    )  # fmt: skip


found()

"""A tournament's format, one class each: the fixtures it lays out at the start, what a decided
tie opens next (a winner carried into the next round, the next round paired), when it is over
and who won it, its table of standings, and the names of its rounds. Everything else about a
tournament (sign-ups, seeds, series, the tables its matches are played at, walkovers) is the
same for every format and lives in `bot.league.tournament`; the service and the views ask the
format (`Tournament.rules`) and never branch on its name: what a front end needs of a format
(the words that name it in a command, a number it takes, whether its rounds eliminate, its web
page's layout) is declared with it. A format reads and moves what of a tournament `Bracket`
names.

One file a format (`knockout`, `liguilla`, `swiss`, `arena`), each declaring its `Rules`
(`base`), none knowing another; a new format is one more file, its line in `RULES` and its
words in the locales. Nothing but `bot.league.tournament` imports this package (the import
contracts say so): the rest of the bot reaches a format through its tournament.

A format that pairs round by round (the Swiss) lays out its first round only and appends the
next one in `advance`, in the same step that counts the result that closed a round, so it is
stored with that result and a crash repeats neither.
"""

from __future__ import annotations

from bot.league.bracket import Format
from bot.league.formats.arena import Arena
from bot.league.formats.base import Count as Count
from bot.league.formats.base import Page as Page
from bot.league.formats.base import Rules as Rules
from bot.league.formats.knockout import KNOCKOUT_MOST as KNOCKOUT_MOST
from bot.league.formats.knockout import Knockout
from bot.league.formats.knockout import knockout as knockout
from bot.league.formats.knockout import seed_positions as seed_positions
from bot.league.formats.liguilla import LEAGUE_MOST as LEAGUE_MOST
from bot.league.formats.liguilla import League
from bot.league.formats.liguilla import round_robin as round_robin
from bot.league.formats.swiss import Swiss

RULES: dict[Format, Rules] = {
    rules.format: rules for rules in (Knockout(), League(), Swiss(), Arena())
}
FORMATS = tuple(RULES)  # (the order the sign-up message's button goes round)

"""/tabla mes counts from the start of the month where the group's dates are told."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html import unescape

import pytest

from bot.i18n import translator
from tests.conftest import GROUP, Harness
from tests.e2e.helpers import open_table
from tests.fakebot import FakeUser


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


@pytest.mark.postgresql
async def test_this_months_table_starts_at_midnight_in_the_bots_time_zone(
    harness: Harness,
) -> None:
    """A match that ended on 1 December at 01:00 UTC ended on 30 November at 22:00 in Buenos
    Aires (TRUCO_TIMEZONE's default): three hours later it is December there, and the match
    belongs to last month's table, not this one's."""
    h = harness
    assert h.settings.timezone == "America/Argentina/Buenos_Aires"
    ana, juan = h.user(1, "Ana"), h.user(2, "Juan")
    h.clock.now = at("2026-12-01T01:00:00")
    await open_table(h, [ana, juan], "1v1 15")
    ana.send(GROUP, "/abandonar")  # a concession is a match of the league
    await h.settle()
    ana.send(GROUP, "/tabla")
    await h.settle()
    assert "Juan" in h.fake.last(GROUP).text
    h.clock.now = at("2026-12-01T04:00:00")  # 01:00 of 1 December in Buenos Aires
    ana.send(GROUP, "/tabla mes")
    await h.settle()
    assert "Todavía no hay partidas terminadas" in h.fake.last(GROUP).text
    h.clock.now = at("2026-12-01T02:30:00")  # still 30 November there: it counts
    ana.send(GROUP, "/tabla mes")
    await h.settle()
    month = h.fake.last(GROUP).text
    assert "este mes" in month and "Juan" in month


NAMES = [
    "Bo",
    "Maximiliano",  # 11: the name column's width
    "Maximiliano Ezequiel",
    "María Florencia de los Ángeles Fernández",
    "Bartolomé José Domingo Faustino Sarmiento y Albarracín del Valle",  # 64: a name's most
]


def blocks(text: str) -> list[list[str]]:
    """Each monospace block of a message, as lines."""
    return [part.split("</pre>")[0].split("\n") for part in text.split("<pre>")[1:]]


def words(text: str) -> set[str]:
    return set(re.findall(r"[^\W\d_]+", unescape(text).replace("<b>", " ").replace("</b>", " ")))


async def sit(h: Harness, users: list[FakeUser], args: str, english: bool) -> None:
    """/nueva by the first, the others join by tapping (in the group's language)."""
    t = translator("en" if english else "es")
    users[0].send(GROUP, f"/nueva {args}")
    await h.settle()
    lobby = h.fake.last(GROUP)
    for index, user in enumerate(users[1:], start=1):
        label = t("button.join_team", team=index % 2 + 1) if "2v2" in args else t("button.join")
        await user.tap(GROUP, lobby.message_id, label)
        await h.settle()


async def league_of_long_names(h: Harness, english: bool = False) -> list[FakeUser]:
    """Two players with five matches each (ranked), the others with one (not yet ranked),
    and a 2v2 match for the pairs."""
    users = [h.user(10 + i, name) for i, name in enumerate(NAMES)]
    if english:
        h.fake.admins[GROUP].add(users[0].id)
        users[0].send(GROUP, "/idioma")
        await h.settle()
        await users[0].tap(GROUP, h.fake.last(GROUP).message_id, "🇬🇧 English")
        await h.settle()
    for number in range(5):
        pair = [users[2], users[1]] if number % 2 else [users[1], users[2]]
        await sit(h, pair, "1v1 15", english)
        pair[number % 2].send(GROUP, "/abandonar")
        await h.settle()
    await sit(h, [users[3], users[0], users[4], users[1]], "2v2 15", english)
    users[4].send(GROUP, "/abandonar")
    await h.settle()
    return users


@pytest.mark.parametrize("english", [False, True])
async def test_tabla_keeps_every_line_whole_at_every_size_of_name(
    harness: Harness, english: bool
) -> None:
    """/tabla fits a phone (32 characters a line) and never cuts a word: a long name is laid
    out on lines of its own, a long title wraps between words, in both languages."""
    h = harness
    users = await league_of_long_names(h, english)
    t = translator("en" if english else "es")
    allowed = words(" ".join(NAMES)) | words(
        " ".join(
            [
                t("tabla.title"), t("tabla.player"), t("tabla.played"), t("tabla.won"),
                t("tabla.rating"), t("tabla.provisional", count=5), t("tabla.pairs"),
                t("tabla.scope_all"), t("tabla.streak_won", n=1), t("tabla.streak_lost", n=1),
                t("tabla.won_of", won=0, played=1), t("tabla.lost"), t("tabla.trios"),
            ]
        )
    )  # fmt: skip
    for command in ("/tabla", "/tabla 2v2"):
        users[0].send(GROUP, command)
        await h.settle()
        text = h.fake.last(GROUP).text
        lines = [line for block in blocks(text) for line in block]
        assert lines, text
        assert all(len(line) <= 32 for line in lines), [x for x in lines if len(x) > 32]
        flat = " ".join(" ".join(unescape(x).split()) for x in lines)
        for name in NAMES[1:] if command == "/tabla" else NAMES[:1] + NAMES[3:]:
            assert name in flat, (name, lines)  # whole, wrapped between its words if need be
        for line in lines:  # every word on a line is a whole word of a name or a title
            assert set(re.findall(r"[^\W\d_]+", unescape(line))) <= allowed, line
        if command == "/tabla":
            assert " ".join(t("tabla.provisional", count=5).split()) in flat

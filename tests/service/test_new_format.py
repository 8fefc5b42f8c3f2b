"""A new tournament format is one file and its words (issue 69): a throw-away "desafío" (the
two entries play one tie) written as a file of the formats' package, found there as a real new
file is, with its words in a locale directory of the test's own, and no other file of the bot
edited. `/torneo` reads its word, the sign-up message's button offers it, a tournament of it
opens, draws and plays to its champion through the core, and its page's layout and its
round's name come from its declaration."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from bot.core import Core
from bot.handlers.tournaments import parse_tourney
from bot.i18n import LOCALES_DIR, translator, use_locales
from bot.model.table import Table
from bot.tourney import formats
from bot.tourney.model import Format, Status
from bot.tourney.views import people_of, round_title
from bot.web.view import tourney_view
from tests.service.test_tournaments import base, core, run, started

__all__ = ["core"]  # (the core of the tournaments' tests, a fixture)

DESAFIO = '''"""Desafío: two entries, one tie; its winner is the champion."""

from __future__ import annotations

from bot.tourney.bracket import Bracket, Fixture, Format
from bot.tourney.formats.base import Page, Rules


class Desafio(Rules):
    format = Format("desafio")
    words = ("desafio", "desafío", "duelo")
    page = Page(view="live", columns=("played", "won"), board="leaderboard")
    least = 2
    most = 2

    def lay_out(self, t: Bracket) -> list[Fixture]:
        return [Fixture(0, 0, 0, 1)]

    def champion(self, t: Bracket) -> int:
        winner = t.fixtures[0].winner
        assert winner is not None
        return winner

    def round_key(self, t: Bracket, round_: int) -> str:
        return "round.desafio"
'''
WORDS = {
    "es": {"tourney.format.desafio": "desafío a muerte", "tourney.round.desafio": "El desafío"},
    "en": {"tourney.format.desafio": "grudge match", "tourney.round.desafio": "The grudge"},
}
NEW = Format("desafio")


@pytest.fixture
def desafio(tmp_path: Path) -> Iterator[None]:
    """The format's file beside the package's own (a directory of the package's path), found
    as the package finds its files; its words in a copy of the locales. Both gone after."""
    package = tmp_path / "formats"
    package.mkdir()
    (package / "desafio.py").write_text(DESAFIO)
    locales = tmp_path / "locales"
    locales.mkdir()
    for path in LOCALES_DIR.glob("*.json"):
        words = json.loads(path.read_text("utf-8")) | WORDS[path.stem]
        (locales / path.name).write_text(json.dumps(words, ensure_ascii=False), "utf-8")
    formats.__path__.append(str(package))
    use_locales(locales)
    try:
        formats.found()
        yield
    finally:
        use_locales(LOCALES_DIR)
        formats.__path__.remove(str(package))
        formats.RULES.pop(NEW, None)
        sys.modules.pop(f"{formats.__name__}.desafio", None)


@pytest.mark.usefixtures("desafio")
async def test_a_new_format_is_its_file_and_its_words(core: Core) -> None:
    read, wrong = parse_tourney(["duelo", "30"], base())
    assert (read.format, read.config.target, wrong) == (NEW, 30, None)
    assert parse_tourney(["desafío"], base())[0].format == NEW
    assert base(format=Format("relampago")).cycled("format").format == NEW  # (offered last)

    t = await started(core, 2, format=NEW)
    assert sorted(u for e in t.entries for u in e) == [1, 2] and len(t.fixtures) == 1
    t = await run(core, t)
    assert t.status is Status.FINISHED and t.champion == 0 and t.fixtures[0].decided

    stored = await core.tournaments.get(t.id)  # (read back from its stored code)
    assert stored is not None and stored.format == NEW and stored.rules.page.board == "leaderboard"
    es = translator("es")
    assert round_title(es, stored, 0) == "El desafío"
    names = await core.people.names(people_of(stored))
    tables: dict[tuple[int, int], list[Table]] = {}
    for place, table_id in sorted((await core.tournaments.tables_of(t.id)).items()):
        table = await core.tables.get(table_id)
        assert table is not None
        tables.setdefault(place.tie, []).append(table)
    page = tourney_view(stored, names, tables)
    assert page["format"] == "desafio" and page["rules"].startswith("desafío a muerte")
    assert page["page"] == {"view": "live", "columns": ["played", "won"], "board": "leaderboard"}
    assert [r["name"] for r in page["rounds"]] == ["El desafío"]
    assert page["champion"] == names[stored.entries[0][0]]
    assert replace(base()).format != NEW  # (a tournament is still a knockout unless asked)

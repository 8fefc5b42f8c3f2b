"""Nothing branches on a tournament format's name outside the format's own module
(`bot.tourney.formats`): what the views, the handlers and the web page need of a format is its
declaration (`Rules`: its words, its number, whether its rounds eliminate, its page's layout,
served to the page in the bracket JSON)."""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from pathlib import Path

from bot.game import MatchConfig
from bot.handlers.tournaments import parse_tourney
from bot.tourney.bracket import Format
from bot.tourney.formats import RULES
from bot.tourney.model import Tournament

BOT = Path(__file__).resolve().parents[2] / "bot"
FORMATS = BOT / "tourney" / "formats"
# each format's own file (it alone may name it), and where the names are given
OWN = {Path(sys.modules[type(r).__module__].__file__ or ""): r.format for r in RULES.values()}
NAMES = "|".join(re.escape(f) for f in RULES)
PYTHON = re.compile(rf"[\"'](?:{NAMES})[\"']")
SCRIPT = re.compile(rf"[\"'`](?:{NAMES})[\"'`]|\.(?:{NAMES})\b")


def test_no_module_but_the_formats_own_names_a_format() -> None:
    said = [
        f"{path.relative_to(BOT)}:{number}: {line.strip()}"
        for path in sorted(BOT.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        for name in PYTHON.findall(line)
        if name.strip("\"'") not in _own(path)
    ]
    assert said == []


def _own(path: Path) -> set[str]:
    """How the file of a format names it (none for any other file)."""
    mine = OWN.get(path)
    return set() if mine is None else {mine}


def test_the_page_names_no_format() -> None:
    script = (BOT / "web" / "static" / "app.js").read_text()
    said = [line.strip() for line in script.splitlines() if SCRIPT.search(line)]
    assert said == []


def test_each_format_declares_what_its_page_and_its_command_need() -> None:
    views = {"bracket", "rounds", "live"}
    columns = {"played", "won", "points", "buchholz", "diff", "streak", "games", "in_play"}
    for rules in RULES.values():
        assert rules.page.view in views and set(rules.page.columns) <= columns
        assert rules.page.board in ("standings", "leaderboard")
        assert rules.format in rules.words  # (the name the locales give it is a word)


def test_torneo_reads_each_formats_number_where_it_takes_one() -> None:
    base = Tournament(0, -1, 0, 1, "es", 0.0, 0.0, config=MatchConfig(target=15))

    def read(text: str) -> tuple[Format, int, int, int, int, str | None]:
        t, wrong = parse_tourney(text.split(), base)
        return t.format, t.minutes, t.planned, t.config.target, t.config.players, wrong

    ko, liga, suizo, arena = Format("ko"), Format("liga"), Format("suizo"), Format("relampago")
    assert read("relampago 30 15") == (arena, 30, 0, 15, 2, None)
    assert read("relampago 15") == (arena, 0, 0, 15, 2, None)  # (a target, not minutes)
    assert read("relámpago 90 30") == (arena, 90, 0, 30, 2, None)
    assert read("arena 2v2 60") == (ko, 0, 0, 15, 2, "60")  # (minutes only right after)
    assert read("suizo 5") == (suizo, 0, 5, 15, 2, None)
    assert read("suizo 2v2 3") == (suizo, 0, 3, 15, 4, None)
    assert read("5 suizo") == (ko, 0, 0, 15, 2, "5")
    assert read("liga 2v2 30 bo3") == (liga, 0, 0, 30, 4, None)
    assert read("copa 4") == (ko, 0, 0, 15, 2, "4")
    assert replace(base).format is ko  # (a tournament is a knockout unless asked)
